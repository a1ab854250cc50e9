"""The history rewrite of an in-place change through a view, view replay, and their events
(NOTE [ In-place through a view: the history rewrite ] in ``autograd/views.py``, which makes the views
and holds PyTorch's refusals; ``docs/concepts/views.md``).

``rewrite_history`` gives the base its ``CopySlices`` (the op ``copy_slices``, whose attribute is
the view's geometry), ``regenerate_views`` replays each view's recorded view functions on the base's new
history, and ``announce_version`` emits ``tensor.version`` while recording.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import GRAD_MODE
from ..autograd.hooks import retain_grad
from ..autograd.views import DEFAULT, InvalidMeta, stale_message
from ..autograd_meta import AutogradMeta, NoGradViewMeta
from ..devices import _non_overlapping_and_dense as non_overlapping_and_dense, row_major_strides, strided_copy
from ..kernels.key import Backend
from ..kernels.registry import kernels_for
from ..tensor import _VIEWS_FOLLOW, Tensor, ViewInfo, live_views, root_of
from ..tracing import bus
from ..tracing.events import HistoryRewrite, TensorVersion
from .op_table import OPS

__all__ = ["rewrite_history", "regenerate_views", "views_follow_base", "storage_base", "announce_version", "move_history", "positions_of", "geometry_of"]


def move_history(t: Tensor, old_meta: Any, result: Tensor) -> None:
    """``SetHistory``: the tensor's grad node moves to the node that computed ``result``."""
    new_meta = AutogradMeta(t._id, t._name)
    new_meta.grad_node = result._meta.grad_node
    new_meta.out_slot = result._meta.out_slot
    new_meta.out_rank = result._meta.out_rank
    if old_meta is not None and old_meta.retain_grads:  # it keeps its .grad, and keeps retaining
        new_meta.grad = old_meta.grad
        t._meta = new_meta
        retain_grad(t)
    t._meta = new_meta


def _cpu_kernel(op: Any) -> Any:
    """A CPU kernel of the view op ``op`` (view kernels are the same function for every dtype)."""
    for key, kernel in kernels_for(op.name).items():
        if key.backend == Backend.CPU:
            return kernel.fn
    raise RuntimeError(f"{op.name}: no CPU kernel to replay the view on")  # pragma: no cover - every view op has one


def positions_of(info: ViewInfo) -> np.ndarray:
    """Where each element of the view lies in its base, as flat positions (the view's geometry):
    the recorded view functions replayed on ``arange(base.numel()).reshape(base.shape)``."""
    data = info.base._data
    pos = np.arange(data.size, dtype=np.int64).reshape(data.shape)
    steps = tuple(s // data.itemsize for s in data.strides)
    if data.size and steps != row_major_strides(data.shape) and non_overlapping_and_dense(data):
        # a base laid out in another order: a view function that reads the storage (``as_strided``) then
        # finds in the table's memory what the base has in its own
        pos = strided_copy(np, pos, steps)
    for op, attrs in info.fns:
        pos = _cpu_kernel(op)(pos, **attrs)
    return np.array(pos, order="C")  # a copy (ascontiguousarray would make a 0-d view 1-d)


def geometry_of(positions: np.ndarray) -> dict[str, Any]:
    """The geometry as PyTorch's ``as_strided`` names it: size, stride and storage offset (elements)."""
    if positions.size == 0:
        return {"size": list(positions.shape), "stride": [0] * positions.ndim, "offset": 0}
    first = int(positions.reshape(-1)[0])
    strides = []
    for d, n in enumerate(positions.shape):
        step = (0,) * d + (1,) + (0,) * (positions.ndim - d - 1)
        strides.append(int(positions[step]) - first if n > 1 else 0)
    return {"size": list(positions.shape), "stride": strides, "offset": first}


def rewrite_history(view: Tensor, result: Tensor) -> Tensor:
    """After ``result`` was written into ``view``: the base's new node (``CopySlices``), then
    every view of the base regenerated (NOTE [ In-place through a view: the history rewrite ]).
    Returns the new history of the base (a tensor over its storage).

    The in-place op already wrote the values and bumped the shared version counter; ``result``'s
    grad node is the op's node (its input: the old ``view``). In order: the view's geometry
    (``positions_of``); the base's old node, for the event; ``OPS["copy_slices"](base, result,
    positions)``, whose node has the base's old history and the op's node as its inputs; the base's
    history moved to it (``move_history``); the ``history.rewrite`` event (``_announce_rewrite``);
    and every view of the base given a node made from its new history (``regenerate_views``).
    """
    # BEGIN LESSON 9 TASK 9.2: the history rewrite of an in-place change through a view
    base = view._view.base
    positions = positions_of(view._view)
    old_node = base._meta.grad_node if base._meta is not None else None
    new = OPS["copy_slices"](base, result, positions)
    move_history(base, base._meta, new)
    _announce_rewrite(base, old_node, positions)
    regenerate_views(base)
    return new
    # END LESSON 9 TASK 9.2


def _announce_rewrite(base: Tensor, old_node: Any, positions: np.ndarray) -> None:
    rec = bus.recorder
    if rec is None:
        return
    rec.emit(HistoryRewrite(tensor=base._id, from_node=old_node.id if old_node is not None else None,
                            to_node=base._meta.grad_node.id, view=geometry_of(positions)))


def storage_base(t: Tensor) -> Tensor:
    """The tensor whose views see ``t``'s in-place changes: a view's base; for a ``detach()``, the tensor
    its counter came from (the views share that counter); else ``t`` itself."""
    if t._view is not None:
        return t._view.base
    ref = t._vc.base if t._vc is not None else None
    base = ref() if ref is not None else None
    return base if base is not None else t


def regenerate_views(base: Tensor, views: Any = None) -> None:
    """Give every live view of ``base`` (or those of ``views``) a grad node made from the base's new
    history: its view functions replayed on the base (PyTorch's view replay)."""
    if base._meta is None:
        return
    was, GRAD_MODE.enabled = GRAD_MODE.enabled, True  # replayed with grad on, also after a no_grad change
    try:
        _regenerate(base, bus.recorder, views)
    finally:
        GRAD_MODE.enabled = was


def _regenerate(base: Tensor, rec: Any, views: Any = None) -> None:
    for w in live_views(base) if views is None else views:
        info = w._view
        if info is None:  # a detach(): no history to regenerate
            continue
        info.version = w._vc.value
        if info.creation != DEFAULT:
            w._meta = InvalidMeta(w, stale_message(info))
            continue
        t = base
        for op, attrs in info.fns:
            t = op(t, **attrs)  # the view op called again, through the API layer
        if t._meta is not None and t._meta.grad_node is not None:
            move_history(w, w._meta, t)
            if rec is not None:
                w._announce_update("view replay")  # its new grad node


def views_follow_base(base: Tensor, requires: bool) -> None:
    """``base.requires_grad_(requires)``: its leaf views taken before follow it, as PyTorch's view asks its
    base. Starting: a view whose storage has not changed since its history was made requires grad and
    keeps no gradient (``NoGradViewMeta``); one whose storage changed since is regenerated from the base
    (PyTorch's lazy replay, when ``grad_fn`` is next read, finds the version moved) - or refused, for a
    view made under ``no_grad``. Stopping: the views that only followed it stop too."""
    views = [w for w in live_views(base) if w._view is not None and w._view.base is base]
    if not requires:
        for w in views:
            if type(w._meta) is NoGradViewMeta:
                w._meta = None
        return
    stale = []
    for w in views:
        if w._meta is not None:
            continue
        if w._view.version == w._vc.value:
            w._meta = NoGradViewMeta(w._id, w._name)
        else:
            stale.append(w)
    if stale:
        regenerate_views(base, stale)


_VIEWS_FOLLOW.append(views_follow_base)


def announce_version(t: Tensor, op: str) -> None:
    """Emit ``tensor.version`` for the counter ``t``'s in-place op ``op`` just bumped (a recorder is active)."""
    rec = bus.recorder
    base = t._view.base if t._view is not None else t
    root = t._view.base if t._view is not None else root_of(t)
    aliases = [root._id] if root is not base and root._vc is t._vc else []
    for a in live_views(root):
        if a is not t and a is not base and a._vc is t._vc and a._id in rec.announced:
            aliases.append(a._id)
    if t._view is not None:
        aliases.append(t._id)
    if base._id not in rec.announced:
        base._announce()
    rec.emit(TensorVersion(tensor=base._id, version=t._vc.value, op=op, via=t._id if t._view is not None else None,
                           aliases=aliases))
