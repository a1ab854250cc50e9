"""Views, their base, and in-place changes through a view (PyTorch's view and CopySlices rules).

A view (``view``/``reshape`` when it can view, basic indexing, ``select``,
``narrow``, ``transpose``/``permute``/``t``, ``squeeze``/``unsqueeze``,
``expand``, ``diagonal``, ``split``/``chunk``/``unbind``) shares its input's
storage and version counter. Its ``ViewInfo`` records the *root* base (a view
of a view has the first tensor as ``_base``, as PyTorch's) and the view
functions that lead from the base to it: the ops and their attributes, in
order. ``detach()`` shares storage and counter but is no view; ``.data``
shares only storage.

NOTE [ In-place through a view: the history rewrite ]
    ``v = h[1]; v.mul_(3)`` changes ``h``. The in-place op computes the new
    values of ``v`` out of place (recording its own node, whose input is the
    old ``v``), writes them into the shared storage, then rewrites the
    base's history (PyTorch's ``rebase_history``): ``h`` gets a new node,
    ``CopySlicesGradNode``, whose inputs are the old ``h`` (its old history)
    and the op's result, and whose attribute is the view's geometry (the
    flat positions, in ``h``, of ``v``'s elements). Its backward sends the
    gradient outside the view to the old ``h`` and the gradient inside the
    view to the op's node, which carries it to the old ``v`` and the op's
    other inputs - the in-place op's own formula, its out-of-place twin's.
    PyTorch's ``CopySlices`` calls the op's node from inside itself; here it
    is the node's next node instead, the same sums.

    Every view of the base then regenerates its grad node from the base's
    new history by replaying its recorded view functions on the base
    (PyTorch's view replay; PyTorch's default uses one ``as_strided``).
    minigrad does it right after the rewrite, for every live view of the
    base, rather than on each view's next use: the same nodes, made earlier.
    A change of the base itself (``h.mul_(3)``) regenerates its views too, so
    ``v = h[0]; h.mul_(3); (v * v).sum().backward()`` sees the new ``h``.

    PyTorch's refusals stand: a view made under ``no_grad`` changed with grad
    on, an output of a function returning several views (``unbind``,
    ``split``, ``chunk``), a view of a leaf that requires grad, and a write to
    a tensor whose elements overlap (an ``expand``). See ``docs/concepts/views.md``.
"""

from __future__ import annotations

import copy
import weakref
from typing import Any

import numpy as np

from ..autograd_meta import AutogradMeta
from ..kernels.key import Backend
from ..kernels.registry import kernels_for
from ..tensor import Tensor, VersionCounter
from .grad_mode import GRAD_MODE

__all__ = ["ViewInfo", "make_view", "mark_multi_output", "check_inplace", "rewrite_history", "regenerate_views",
           "positions_of", "geometry_of", "DEFAULT", "NO_GRAD", "MULTI_OUTPUT"]

#: How a view was made (PyTorch's ``CreationMeta``): it decides whether an in-place change through it may
#: rewrite its base's history.
DEFAULT, NO_GRAD, MULTI_OUTPUT = "default", "no_grad", "multi_output"


class ViewInfo:
    """What a view knows of its base: the root ``base``, the view functions ``fns`` leading from it
    (``((OpDef, attrs), ...)``), how it was made (``creation``) and, for an output of a function that
    returns several views, that function's name and the output's index (``source``)."""

    __slots__ = ("base", "fns", "creation", "source")

    def __init__(self, base: Tensor, fns: tuple[Any, ...], creation: str, source: Any = None) -> None:
        self.base = base
        self.fns = fns
        self.creation = creation
        self.source = source


class _Views:
    """The live views of one base (weak references), pruned of dead ones as the list doubles."""

    __slots__ = ("ref", "views", "limit")

    def __init__(self, ref: Any) -> None:
        self.ref = ref
        self.views: list[Any] = []
        self.limit = 16


#: base tensor id -> its live views; the entry goes when the base dies (views keep their base alive).
_VIEWS: dict[int, _Views] = {}


def _forget(key: int) -> Any:
    return lambda _ref: _VIEWS.pop(key, None)


def make_view(src: Tensor, view: Tensor, op: Any, attrs: dict[str, Any]) -> None:
    """``view`` (made by ``op`` from ``src``) shares ``src``'s counter and records its base and view functions."""
    vc = src._vc
    if vc is None:
        vc = src._vc = VersionCounter()
    view._vc = vc
    info = src._view
    creation = DEFAULT if GRAD_MODE.enabled else NO_GRAD
    if info is None:
        base, fns, source = src, ((op, attrs),), None
    else:
        base, fns, source = info.base, info.fns + ((op, attrs),), info.source
        if info.creation != DEFAULT:
            creation = info.creation  # a view of a view keeps the first one's restriction
    view._view = ViewInfo(base, fns, creation, source)
    entry = _VIEWS.get(base._id)
    if entry is None:
        entry = _VIEWS[base._id] = _Views(weakref.ref(base, _forget(base._id)))
    entry.views.append(weakref.ref(view))
    if len(entry.views) > entry.limit:
        entry.views = [r for r in entry.views if r() is not None]
        entry.limit = max(16, 2 * len(entry.views))


def mark_multi_output(outs: tuple[Tensor, ...], fn: str) -> tuple[Tensor, ...]:
    """Outputs of ``fn`` (``unbind``, ``split``), a function returning several views: PyTorch refuses
    to change one in place when autograd is involved (its CopySlices could not run ``fn``'s node)."""
    for k, t in enumerate(outs):
        info = t._view
        if info is not None and info.creation == DEFAULT:
            info.creation, info.source = MULTI_OUTPUT, (fn, k, t._meta is not None)
            if t._meta is not None:
                t._meta = _MultiOutputMeta(t, _stale_message(info))
    return outs


def _tracked(t: Tensor, operands: Any) -> bool:
    """Whether an in-place op on ``t`` is recorded: grad mode on, and ``t``, its base or an operand requires grad."""
    if not GRAD_MODE.enabled:
        return False
    if t._meta is not None or (t._view is not None and t._view.base._meta is not None):
        return True
    return any(isinstance(o, Tensor) and o._meta is not None for o in operands)


def check_inplace(t: Tensor, op_name: str, operands: Any) -> None:
    """PyTorch's refusals of an in-place change of ``t``, before anything runs (``check_inplace``)."""
    data = t._data
    if data.ndim and 0 in data.strides and data.size > 1 and op_name not in ("fill_", "zero_"):
        # PyTorch's fill kernel writes one value: it skips the overlap check the others make.
        for n, s in zip(data.shape, data.strides):
            if s == 0 and n > 1:
                raise RuntimeError(
                    "unsupported operation: more than one element of the written-to tensor refers to a single "
                    "memory location. Please clone() the tensor before performing the operation."
                )
    info = t._view
    if info is None or not _tracked(t, operands):
        return
    if info.creation == NO_GRAD:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
            "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
            "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
            "inplace to be tracked) or both outside (if you want the inplace to be tracked)."
        )
    if info.creation == MULTI_OUTPUT:
        fn, k, had_grad = info.source
        # PyTorch words it by whether the view required grad when it was made.
        head = (f"Output {k} of {fn} is a view and is being modified inplace." if had_grad else
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled.")
        raise RuntimeError(
            f"{head} This view is the output of a function that returns multiple views. Such functions do not "
            "allow the output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    base_meta = info.base._meta
    if base_meta is not None and base_meta.grad_node is None:
        raise RuntimeError(f"{op_name}(): a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def rewrites_base(t: Tensor) -> bool:
    """Whether an in-place op on ``t`` that recorded a node rewrites a base's history (``t`` is a view)."""
    return t._view is not None and t._view.creation == DEFAULT


def _cpu_kernel(op: Any) -> Any:
    """A CPU kernel of the view op ``op`` (view kernels are the same function for every dtype)."""
    for key, kernel in kernels_for(op.name).items():
        if key.backend == Backend.CPU:
            return kernel.fn
    raise RuntimeError(f"{op.name}: no CPU kernel to replay the view on")  # pragma: no cover - every view op has one


def positions_of(info: ViewInfo) -> np.ndarray:
    """Where each element of the view lies in its base, as flat positions (the view's geometry):
    the recorded view functions replayed on ``arange(base.numel()).reshape(base.shape)``."""
    pos = np.arange(info.base._data.size, dtype=np.int64).reshape(info.base._data.shape)
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
    """After ``result`` was written into ``view``: the base's new node (``CopySlicesGradNode``), then
    every view of the base regenerated (NOTE [ In-place through a view: the history rewrite ]).
    Returns the new history of the base (a tensor over its storage)."""
    from ..dispatch.dygraph import OPS, _move_history as move_history

    base = view._view.base
    positions = positions_of(view._view)
    old_node = base._meta.grad_node if base._meta is not None else None
    new = OPS["copy_slices"](base, result, positions)
    move_history(base, base._meta, new)
    _announce_rewrite(base, old_node, positions)
    regenerate_views(base)
    return new


def _announce_rewrite(base: Tensor, old_node: Any, positions: np.ndarray) -> None:
    from ..tracing import bus

    rec = bus.recorder
    if rec is None:
        return
    from ..tracing.events import HistoryRewrite

    rec.emit(HistoryRewrite(tensor=base._id, from_node=old_node.id if old_node is not None else None,
                            to_node=base._meta.grad_node.id, view=geometry_of(positions)))


def regenerate_views(base: Tensor) -> None:
    """Give every live view of ``base`` a grad node made from the base's new history: its view
    functions replayed on the base (PyTorch's view replay)."""
    entry = _VIEWS.get(base._id)
    if entry is None or base._meta is None:
        return
    from ..dispatch.dygraph import _move_history as move_history, run_op
    from ..tracing import bus

    rec = bus.recorder
    for ref in list(entry.views):
        w = ref()
        if w is None or w._view is None:
            continue
        if w._view.creation != DEFAULT:
            w._meta = _InvalidMeta(w, _stale_message(w._view))
            continue
        t = base
        for op, attrs in w._view.fns:
            t = run_op(op, [t], attrs)
        if t._meta is not None and t._meta.grad_node is not None:
            move_history(w, w._meta, t)
            if rec is not None:
                w._announce_update("view replay")  # its new grad node


def _stale_message(info: ViewInfo) -> str:
    if info.creation == MULTI_OUTPUT and info.source[2]:
        return (f"Output {info.source[1]} of {info.source[0]} is a view and its base or another view of its base has "
                "been modified inplace. This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should replace the inplace "
                "operation by an out-of-place one.")
    return ("A view was created in no_grad mode and its base or another view of its base has been modified inplace "
            "with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the no_grad block (if you "
            "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")


class _InvalidMeta(AutogradMeta):
    """The autograd meta of a view PyTorch refuses to regenerate (made under ``no_grad``, or an output of
    ``unbind``/``split``) after its base's history was rewritten: it requires grad, and reading its grad
    node - using it in an op, ``grad_fn`` - raises PyTorch's error (PyTorch's ``grad_fn=<Invalid>``)."""

    __slots__ = ("message",)

    def __init__(self, t: Tensor, message: str) -> None:
        super().__init__(t._id, t._name)
        self.message = message

    @property  # type: ignore[override]
    def grad_node(self) -> Any:
        raise RuntimeError(self.message)

    @grad_node.setter
    def grad_node(self, value: Any) -> None:
        pass


def rebind_saved_result(node: Any, result: Tensor, t: Tensor) -> None:
    """The node of an in-place op saved its result (``exp_``, ``tanh_``, ``sigmoid_``): after the write-back
    that result *is* ``t``, at its new version (PyTorch saves ``self``). The wrapper now holds ``t``'s storage
    and counter, so a later in-place change of ``t`` makes it stale, as in PyTorch. A new wrapper, not an
    edited one (NOTE [ One wrapper per saved leaf ] in ``autograd/tensor_wrapper.py``)."""
    wrappers = node.wrappers
    if not wrappers or not any(w is not None and w.data is result._data for w in wrappers):
        return
    fresh = []
    for w in wrappers:
        if w is not None and w.data is result._data:
            w = copy.copy(w)
            w.data, w.version_counter, w.snapshot = t._data, t._vc, t._vc.value
            w.tensor_id, w.tensor_name = t._id, t._name
        fresh.append(w)
    node.wrappers = tuple(fresh)


def register_alias(src: Tensor, alias: Tensor) -> None:
    """``alias`` (a ``detach()`` of ``src``) shares its counter: listed with the views while recording,
    so ``tensor.version`` can name it among the tensors a bump makes stale."""
    base = src._view.base if src._view is not None else _root_of(src)
    entry = _VIEWS.get(base._id)
    if entry is None:
        entry = _VIEWS[base._id] = _Views(weakref.ref(base, _forget(base._id)))
    entry.views.append(weakref.ref(alias))
    _ALIAS_OF[alias._id] = entry.ref
    weakref.finalize(alias, _ALIAS_OF.pop, alias._id, None)


#: id of a ``detach()`` made while recording -> a weak reference to the root its counter came from.
_ALIAS_OF: dict[int, Any] = {}


def _root_of(t: Tensor) -> Tensor:
    ref = _ALIAS_OF.get(t._id)
    root = ref() if ref is not None else None
    return root if root is not None else t


def announce_version(t: Tensor, op: str) -> None:
    """Emit ``tensor.version`` for the counter ``t``'s in-place op ``op`` just bumped (a recorder is active)."""
    from ..tracing import bus
    from ..tracing.events import TensorVersion

    rec = bus.recorder
    base = t._view.base if t._view is not None else t
    root = t._view.base if t._view is not None else _root_of(t)
    entry = _VIEWS.get(root._id)
    aliases = [root._id] if root is not base and root._vc is t._vc else []
    if entry is not None:
        for ref in entry.views:
            a = ref()
            if a is not None and a is not t and a is not base and a._vc is t._vc and a._id in rec.announced:
                aliases.append(a._id)
    if t._view is not None:
        aliases.append(t._id)
    if base._id not in rec.announced:
        base._announce()
    rec.emit(TensorVersion(tensor=base._id, version=t._vc.value, op=op, via=t._id if t._view is not None else None,
                           aliases=aliases))


class _MultiOutputMeta(AutogradMeta):
    """The autograd meta of an output of ``unbind``/``split`` that requires grad: once its storage
    changed in place (with grad or not: an optimizer step too), reading its grad node raises PyTorch's
    error, as PyTorch checks the view's version when its ``grad_fn`` is read."""

    __slots__ = ("message", "node", "counter", "created")

    def __init__(self, t: Tensor, message: str) -> None:
        old = t._meta
        super().__init__(t._id, t._name)
        self.node, self.out_slot, self.out_rank = old.grad_node, old.out_slot, old.out_rank
        self.retain_grads, self.hooks, self.grad = old.retain_grads, old.hooks, old.grad
        self.message, self.counter, self.created = message, t._vc, t._vc.value

    @property  # type: ignore[override]
    def grad_node(self) -> Any:
        if self.counter.value != self.created:
            raise RuntimeError(self.message)
        return self.node

    @grad_node.setter
    def grad_node(self, value: Any) -> None:
        self.node = value


def has_views(t: Tensor) -> bool:
    """Whether ``t`` is the base of a view (its history change must reach the views)."""
    return t._id in _VIEWS

