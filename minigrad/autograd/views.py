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
    ``CopySlices``, whose inputs are the old ``h`` (its old history)
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

    A view made under ``no_grad`` of a tensor that requires grad requires grad
    too, as PyTorch's (its ``requires_grad`` asks the base), yet it is a leaf
    without an AccumulationNode: ops on it record nodes whose edge to it is
    empty, so the gradient reaching it goes nowhere (``NoGradViewMeta``).

    PyTorch's refusals stand: a view made under ``no_grad`` changed with grad
    on, an output of a function returning several views (``unbind``,
    ``split``, ``chunk``), a view of a leaf that requires grad, and a write to
    a tensor whose elements overlap (an ``expand``). See ``docs/concepts/views.md``.
"""

from __future__ import annotations

import copy
import re
import weakref
from typing import Any

from ..autograd_meta import AutogradMeta, NoGradViewMeta
from ..devices import partial_overlap
from ..tensor import Tensor, VersionCounter, ViewInfo, register_view
from .grad_mode import GRAD_MODE

__all__ = ["NoGradViewMeta", "make_view", "mark_multi_output", "view_function_name", "check_inplace", "check_view_inplace", "rewrites_base", "rebind_saved_result", "InvalidMeta",
           "stale_message", "restrict_view", "DEFAULT", "NO_GRAD", "MULTI_OUTPUT"]

#: How a view was made (PyTorch's ``CreationMeta``): it decides whether an in-place change through it may
#: rewrite its base's history.
DEFAULT, NO_GRAD, MULTI_OUTPUT = "default", "no_grad", "multi_output"


def make_view(src: Tensor, view: Tensor, op: Any, attrs: dict[str, Any]) -> None:
    """``view`` (made by ``op`` from ``src``) shares ``src``'s counter and records its base and view functions."""
    vc = src._vc
    if vc is None:
        vc = src._vc = VersionCounter()
    view._vc = vc
    # a view of an inference tensor is one, wherever it is made; a view made in inference_mode() of a normal
    # tensor is normal (``Tensor._make`` marked it: set either way)
    view._inference = getattr(src, "_inference", False)
    info = src._view
    creation = DEFAULT if GRAD_MODE.enabled else NO_GRAD
    if info is None:
        base, fns, source = src, ((op, attrs),), None
        if vc.base is None and src._meta is not None:  # the counter's tensor with history, not a detach()
            vc.base = weakref.ref(src)
    else:
        base, fns, source = info.base, info.fns + ((op, attrs),), info.source
        if info.creation != DEFAULT:
            creation = info.creation  # a view of a view keeps the first one's restriction
        if creation == MULTI_OUTPUT:  # PyTorch names the last view op's node (``Select``), as output 0
            source = (view_function_name(op, src, attrs), 0, source[2])
    view._view = ViewInfo(base, fns, creation, source, vc.value)
    bases = vc.bases
    if bases is None or base._id not in bases:  # (the common case, a base already listed: no call)
        vc.add_base(base)
    register_view(base, view)
    if not GRAD_MODE.enabled and src._meta is not None and view._meta is None:
        view._meta = NoGradViewMeta(view._id, view._name)


def view_function_name(op: Any, src: Tensor, attrs: dict[str, Any]) -> str:
    """How PyTorch's refusals name the view function ``op`` applied to ``src``: its node's name without
    ``Backward<n>`` (``Select``, ``Split``, ``SplitWithSizes``, ``Unbind``)."""
    cls = op.node_class if op.node_class_of is None else op.node_class_of([src], attrs)
    name = _VIEW_FUNCTION_NAMES.get(cls)
    if name is None:  # (a view of a ``split`` piece asks at every call: the pattern runs once per node class)
        name = _VIEW_FUNCTION_NAMES[cls] = re.sub(r"Backward\d+$", "", cls.__name__)
    return name


#: node class -> its view function's name (``view_function_name``)
_VIEW_FUNCTION_NAMES: dict[type, str] = {}


def mark_multi_output(outs: tuple[Tensor, ...], fn: str) -> tuple[Tensor, ...]:
    """Outputs of ``fn`` (``unbind``, ``split``), a function returning several views: PyTorch refuses
    to change one in place when autograd is involved (its CopySlices could not run ``fn``'s node)."""
    for k, t in enumerate(outs):
        info = t._view
        if info is not None and info.creation == DEFAULT:
            info.creation, info.source = MULTI_OUTPUT, (fn, k, t._meta is not None)
            restrict_view(t)
    return outs


def restrict_view(t: Tensor) -> None:
    """``t`` (an output of ``unbind``/``split``, or a view of one) that requires grad refuses its history
    once its storage changed in place (``_MultiOutputMeta``)."""
    if t._meta is not None and not isinstance(t._meta, _MultiOutputMeta):
        t._meta = _MultiOutputMeta(t, stale_message(t._view))


def _tracked(t: Tensor, operands: Any) -> bool:
    """Whether an in-place op on ``t`` is recorded: grad mode on, and ``t``, its base or an operand requires grad."""
    if not GRAD_MODE.enabled:
        return False
    if t._meta is not None or (t._view is not None and t._view.base._meta is not None):
        return True
    return any(isinstance(o, Tensor) and o._meta is not None for o in operands)


#: PyTorch's words for an operand that shares some, not all, of the written tensor's memory
PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")


def check_inplace(t: Tensor, op_name: str, operands: Any) -> None:
    """PyTorch's refusals of an in-place change of ``t``, before anything runs (``check_inplace``): elements
    written twice, an operand partly in the written memory (``x[1:].add_(x[:-1])``; ``devices.
    partial_overlap``, PyTorch's rule, read from addresses so a GPU's arrays are checked too), a view it cannot
    rewrite through."""
    data = t._data
    if data.ndim and 0 in data.strides and data.size > 1 and op_name not in ("fill_", "zero_"):
        # PyTorch's fill kernel writes one value: it skips the overlap check the others make.
        for n, s in zip(data.shape, data.strides):
            if s == 0 and n > 1:
                raise RuntimeError(
                    "unsupported operation: more than one element of the written-to tensor refers to a single "
                    "memory location. Please clone() the tensor before performing the operation."
                )
    for o in operands:
        if isinstance(o, Tensor) and o._data is not data and o._device == t._device and partial_overlap(data, o._data):
            raise RuntimeError(PARTIAL_OVERLAP)
    check_view_inplace(t, op_name, operands)


def check_view_inplace(t: Tensor, op_name: str, operands: Any = ()) -> None:
    """PyTorch's refusals of an in-place change of the view ``t`` that autograd records: a view made under
    ``no_grad``, an output of a function returning several views, a view of a leaf that requires grad.
    The in-place view ops (``squeeze_``), which write no element, make only these checks."""
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


def stale_message(info: ViewInfo) -> str:
    if info.creation == MULTI_OUTPUT and info.source[2]:
        return (f"Output {info.source[1]} of {info.source[0]} is a view and its base or another view of its base has "
                "been modified inplace. This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should replace the inplace "
                "operation by an out-of-place one.")
    return ("A view was created in no_grad mode and its base or another view of its base has been modified inplace "
            "with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the no_grad block (if you "
            "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")


class InvalidMeta(AutogradMeta):
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
