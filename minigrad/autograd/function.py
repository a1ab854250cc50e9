"""Custom autograd Functions: ``mg.autograd.Function`` (PyTorch's ``torch.autograd.Function``, Paddle's ``PyLayer``).

A user writes the forward and the backward of an operation by hand::

    class Exp(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

``apply`` is a small dygraph layer of its own (compare ``autograd/dygraph.py``):

1. ``forward(ctx, *args)`` runs with grad recording **off**: the ops inside
   build no nodes, the Function is one op to autograd;
2. ``require_any_grad``: grad mode is on and some Tensor argument requires grad;
3. if so, one grad node ``<Class>GradNode`` is created, exactly as for a
   built-in op: one edge per forward argument (slot ``i`` = argument ``i``,
   ``next`` is ``None`` for arguments that are not Tensors or need no grad),
   output meta and history on each differentiable output, TensorWrappers
   (with version snapshots) for ``ctx.save_for_backward``.

The node is an ordinary ``GradNode``: the engine counts its in-degree, queues
it, runs its hooks, releases its saved tensors, copies it for GeneralGrad,
and announces it in ``node.create`` under the user's class name. Its formula
is the user's ``backward``; it runs with recording on only for
``create_graph=True``, so a backward written with minigrad ops is itself
differentiable.

Example:
    >>> import minigrad as mg
    >>> class Cube(mg.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return g * 3 * x ** 2
    >>> x = mg.tensor(2.0, requires_grad=True)
    >>> y = Cube.apply(x)
    >>> y.grad_fn.name(), y.item()
    ('CubeBackward', 8.0)
    >>> y.backward(); x.grad.item()
    12.0
"""

from __future__ import annotations

import functools
from typing import Any, Callable, ClassVar

from ..errors import GradientTypeError, ShapeError
from ..tensor import Tensor
from ..tracing import bus
from ..tracing.events import ApiCall
from ..autograd_meta import AutogradMeta
from .accumulation import accumulation_node_for
from .grad_mode import GRAD_MODE, set_grad_enabled
from .grad_node import Edge, GradNode, announce_node
from .tensor_wrapper import TensorWrapper
from .views import check_view_inplace

__all__ = ["Function", "FunctionCtx", "FunctionNode", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` a custom Function's ``forward`` and ``backward`` receive.

    Anything else may be stored on it as an attribute (``ctx.scale = 2``);
    tensors needed in backward go through ``save_for_backward``, so they are
    version-checked and freed with the graph.
    """

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        #: One bool per forward argument: whether backward must return its gradient.
        self.needs_input_grad = needs_input_grad
        self._to_save: tuple[Any, ...] | None = None
        self._non_differentiable: set[int] = set()
        self._materialize_grads = True
        self._dirty: list[Any] = []  # the inputs forward changed in place (mark_dirty)
        # Set only while backward runs (node, create_graph): the ctx must not keep its
        # node alive, or node -> ctx -> node would be a reference cycle.
        self._running: tuple[GradNode, bool] | None = None

    def save_for_backward(self, *tensors: Any) -> None:
        """Save tensors (inputs, outputs or intermediates, or ``None``) for ``backward``.

        Call it at most once, in ``forward``; ``ctx.saved_tensors`` returns them in order.
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward(): argument {i} must be a Tensor or None, but got {type(t).__name__}; "
                    f"store other values as attributes of ctx"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The saved tensors, recovered and version-checked (only inside ``backward``)."""
        if self._running is None:
            raise RuntimeError("saved_tensors can only be read inside backward()")
        node, create_graph = self._running
        slots = node.extra.saved_slots
        wrappers = node.wrappers
        return tuple(None if k is None else wrappers[k].recover(node, create_graph) for k in slots)

    def mark_dirty(self, *args: Any) -> None:
        """Say that ``forward`` changed these inputs in place (and returns them): each output that is one of them
        is that tensor itself, with this Function's node as its history, its version moved (PyTorch's
        ``mark_dirty``). Call it once, in ``forward``."""
        self._dirty = list(args)

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Declare outputs that get no gradient (indices, masks): they do not require grad,
        and ``backward`` receives zeros for them."""
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"mark_non_differentiable(): expected Tensors, but got {type(t).__name__}")
            self._non_differentiable.add(id(t))


    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` receives zeros (the default) or ``None`` for the outputs that got no gradient
        (PyTorch's ``ctx.set_materialize_grads``): the engine fills a node's missing gradients with zeros
        only where this is on (``engine._filled_with_zeros``)."""
        if not isinstance(value, bool):
            raise TypeError("set_materialize_grads received an invalid combination of arguments - got (), but "
                            "expected (bool)")
        self._materialize_grads = value


class _FunctionInfo:
    """What a Function node keeps besides its wrappers: the ctx and how to map results."""

    __slots__ = ("ctx", "fn_cls", "saved_slots", "arg_kinds", "out_is_tuple")

    def __init__(self, ctx: FunctionCtx, fn_cls: type, saved_slots: list[Any], arg_kinds: list[bool], out_is_tuple: bool) -> None:
        self.ctx = ctx
        self.fn_cls = fn_cls
        self.saved_slots = saved_slots
        self.arg_kinds = arg_kinds  # per forward argument: is it a Tensor
        self.out_is_tuple = out_is_tuple


class FunctionNode(GradNode):
    """Base of the grad nodes of custom Functions; one subclass per Function class.

    ``opdef`` is ``None``: the engine calls ``run_formula`` instead of an op's
    registered backward (``engine._run_node``).
    """

    __slots__ = ()
    fn_cls: ClassVar[type | None] = None

    @property
    def materializes_grads(self) -> bool:  # type: ignore[override]
        return self.extra.ctx._materialize_grads

    def __repr__(self) -> str:
        # PyTorch's repr of a custom Function's node names its module: <torch.autograd.function.ExpBackward object ...>
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"

    def run_formula(self, grads: list[list[Any]], create_graph: bool) -> list[list[Any]]:
        """Call the user's ``backward(ctx, *grads)`` and check what it returns."""
        info: _FunctionInfo = self.extra
        ctx = info.ctx
        grads_in = [row[0] for row in grads]  # missing ones zeros, unless ctx.set_materialize_grads(False)
        ctx._running = (self, create_graph)
        try:
            result = info.fn_cls.backward(ctx, *grads_in)
        finally:
            ctx._running = None
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self.next_edges)
        if len(result) != n_args:
            raise RuntimeError(
                f"function {type(self).__name__} returned an incorrect number of gradients "
                f"(expected {n_args}, got {len(result)}); backward() must return one value per forward argument"
            )
        out: list[list[Any]] = []
        for slot, (row, g) in enumerate(zip(self.next_edges, result)):
            edge = row[0]
            if g is None or edge.node is None:
                out.append([None])
                continue
            if not isinstance(g, Tensor):  # PyTorch's words (a RuntimeError there; a TypeError here before)
                raise GradientTypeError(f"expected Variable or None (got {type(g).__name__})")
            if tuple(g.shape) != tuple(edge.shape):
                g = _reduced_to(g, tuple(edge.shape), type(self).__name__, slot)
            if edge.dtype is not None and g._dtype is not edge.dtype:
                g = g.astype(edge.dtype)  # as PyTorch's validate_outputs: the gradient takes its input's dtype
            out.append([g])
        return out


def _reduced_to(g: Tensor, shape: tuple[int, ...], name: str, slot: int) -> Tensor:
    """PyTorch's ``validate_outputs``: a gradient that broadcasts from the input's shape is summed back to it
    (a backward may return the gradient of the broadcast input); any other shape is refused."""
    got = tuple(g.shape)
    expandable = len(shape) <= len(got) and all(s in (1, d) for s, d in zip(reversed(shape), reversed(got)))
    if not expandable:
        raise ShapeError(f"Function {name} returned an invalid gradient at index {slot} - got {list(got)} but "
                         f"expected shape compatible with {list(shape)}")
    return g.sum_to_size(shape)


class Function:
    """Base class of custom autograd operations (see the module docstring).

    Subclasses define two static methods:

    - ``forward(ctx, *args)``: compute the outputs (a Tensor or a tuple) with
      minigrad ops or NumPy; grad recording is off inside;
    - ``backward(ctx, *grads)``: one gradient per output in, one gradient (or
      ``None``) per forward argument out.

    Call ``MyFunction.apply(*args)``; never instantiate the class.
    """

    _node_class: ClassVar[type[FunctionNode] | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            f"{type(self).__name__} is a custom autograd Function: call {type(self).__name__}.apply(...) "
            f"instead of creating an instance"
        )

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        raise NotImplementedError("a custom Function must define forward(ctx, *args) as a staticmethod")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise NotImplementedError("a custom Function must define backward(ctx, *grads) as a staticmethod")

    @classmethod
    def _node_cls(cls) -> type[FunctionNode]:
        node_cls = cls.__dict__.get("_node_class")
        if node_cls is None:
            node_cls = type(
                f"{cls.__name__}Backward",  # PyTorch's name for a custom Function's node
                (FunctionNode,),
                {"__slots__": (), "op_name": cls.__name__, "fn_cls": cls, "paddle_name": "GradNodePyLayer",
                 "__module__": "minigrad.autograd.function"},  # PyTorch's: torch.autograd.function.<Name>Backward
            )
            cls._node_class = node_cls
        return node_cls

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run ``forward`` and, when a Tensor argument requires grad, record one grad node."""
        if cls.forward is Function.forward or cls.backward is Function.backward:
            raise NotImplementedError(f"{cls.__name__} must define both forward() and backward() as staticmethods")
        rec = bus.recorder
        if rec is not None:
            for a in args:
                if isinstance(a, Tensor) and a._id not in rec.announced:
                    a._announce()
        recording = GRAD_MODE.enabled
        needs = tuple(recording and isinstance(a, Tensor) and a._meta is not None for a in args)
        ctx = FunctionCtx(needs)
        with set_grad_enabled(False):
            result = cls.forward(ctx, *args)
        is_tuple = isinstance(result, tuple)
        raw = list(result) if is_tuple else [result]
        tensors_out = [r for r in raw if isinstance(r, Tensor)]
        if not tensors_out:
            raise TypeError(f"{cls.__name__}.forward() must return a Tensor or a tuple containing Tensors")
        dirty = {id(t) for t in ctx._dirty}
        if dirty:
            _check_dirty(cls, ctx, raw, recording)
        # Each output is a new tensor over the forward's result (sharing its storage), so
        # that an output which is an input returned as is gets its own history.
        fresh: dict[int, Tensor] = {}
        outs = []
        for r in raw:
            if isinstance(r, Tensor):
                t = Tensor._make(r._data, r._dtype, r._device, r._layout)
                t._vc = r._vc
                fresh[id(r)] = t
                outs.append(t)
            else:
                outs.append(r)
        if rec is not None:
            rec.emit(ApiCall(op=cls.__name__, inputs=[a._id if isinstance(a, Tensor) else None for a in args], attrs={}))
        if any(needs):
            _create_function_node(cls, ctx, args, raw, outs, fresh, is_tuple)
        for k, r in enumerate(raw):
            if id(r) in dirty:  # the changed input itself, with the Function's history (NOTE [ An input marked dirty ])
                adopted = ADOPT_CHANGED_INPUT(r, cls.__name__, outs[k])
                if any(needs) or r._meta is None:  # (unrecorded, an input that requires grad comes back detached)
                    outs[k] = adopted
        if rec is not None:
            for t in outs:
                if isinstance(t, Tensor) and t._id not in rec.announced:
                    t._announce()
        return tuple(outs) if is_tuple else outs[0]


# NOTE [ An input marked dirty ]
#     A Function whose ``forward`` changes an input in place (``x.mul_(2)``) and returns it says so with
#     ``ctx.mark_dirty(x)``. Its output is then ``x`` itself, as an in-place op's is: ``x`` takes the
#     Function's node as its history (a view's base has its history rewritten, ``CopySlices``), and its
#     version moves once more (unrecorded - under ``no_grad`` - an input that requires grad comes back as a
#     detached alias, as PyTorch's). Taking the history is the in-place machinery of the dispatch layer, which this
#     layer may not import: the dispatch layer hands it over as ``ADOPT_CHANGED_INPUT`` when it is imported
#     (``dispatch/dygraph.py``'s ``adopt_changed_input``). The refusals come first, before any node exists:
#     a dirty input not returned, a leaf that requires grad, a view PyTorch would not rewrite through.

#: ``adopt_changed_input(tensor, name, output)`` of the dispatch layer (NOTE [ An input marked dirty ])
ADOPT_CHANGED_INPUT: Callable[[Tensor, str, Tensor], Tensor]


def _check_dirty(cls: type, ctx: FunctionCtx, raw: list[Any], recording: bool) -> None:
    """PyTorch's refusals of ``mark_dirty``, in its words, before any node is made."""
    returned = {id(r) for r in raw}
    if any(id(t) not in returned for t in ctx._dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                           "The inputs that are modified inplace must all be outputs of the Function.")
    for t in ctx._dirty:
        if not isinstance(t, Tensor) or not recording:
            continue
        if t._meta is not None and t._meta.grad_node is None and t._view is None:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        check_view_inplace(t, cls.__name__)


def _create_function_node(
    cls: type[Function], ctx: FunctionCtx, args: tuple[Any, ...], raw: list[Any], outs: list[Any],
    fresh: dict[int, Tensor], is_tuple: bool,
) -> None:
    """Grad-node creation for a Function call, in the dygraph layer's order."""
    node = cls._node_cls()()
    # SetGradOutMeta & edges: one slot per forward argument.
    next_edges: list[list[Edge]] = []
    topo = 0
    for a in args:
        if not isinstance(a, Tensor):
            next_edges.append([Edge(None, 0, 0, ())])
            continue
        meta = a._meta
        if meta is None:
            next_edges.append([Edge(None, 0, 0, a._data.shape, a._dtype)])
            continue
        nxt = meta.grad_node if meta.grad_node is not None else accumulation_node_for(meta, a)
        next_edges.append([Edge(nxt, meta.out_slot, meta.out_rank, a._data.shape, a._dtype)])
        topo = max(topo, nxt.topo_nr + 1)
    node.next_edges = next_edges
    node.topo_nr = topo if topo > 0 else 1
    # SetOutRankWithSlot, SetHistory, SetGradInMeta: each Tensor output is one slot.
    in_meta = []
    slot = 0
    for r, t in zip(raw, outs):
        if not isinstance(t, Tensor):
            continue
        if id(r) not in ctx._non_differentiable and t._dtype.is_floating:
            meta = AutogradMeta(t._id)
            meta.grad_node = node
            meta.out_slot = slot
            meta.out_rank = 0
            t._meta = meta
        in_meta.append([(t._data.shape, t._dtype, t._device)])
        slot += 1
    node.in_meta = in_meta
    # TensorWrappers for ctx.save_for_backward (a saved output is the new output tensor).
    wrappers: list[TensorWrapper] = []
    saved_slots: list[Any] = []
    for t in ctx._to_save or ():
        if t is None:
            saved_slots.append(None)
            continue
        saved_slots.append(len(wrappers))
        wrappers.append(TensorWrapper(fresh.get(id(t), t), output=id(t) in fresh))
    node.wrappers = wrappers
    ctx._to_save = None  # the ctx keeps no tensors: the wrappers hold the arrays
    ctx._non_differentiable.clear()
    node.extra = _FunctionInfo(ctx, cls, saved_slots, [isinstance(a, Tensor) for a in args], is_tuple)
    rec = bus.recorder
    if rec is not None:
        announce_node(node, rec)


# -- once_differentiable: a backward that is not itself differentiable -----------------------------------------


class DelayedError(Function):
    """PyTorch's ``DelayedError`` (its node: ``Error``), which ``once_differentiable`` puts after a backward
    run under ``create_graph=True``: its outputs carry the values on; differentiating through them raises."""

    @staticmethod
    def forward(ctx: FunctionCtx, *tensors: Tensor) -> Any:
        out = tuple(t.clone() for t in tensors)
        return out if len(out) > 1 else out[0]

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


DelayedError._node_class = type("Error", (FunctionNode,), {  # PyTorch's node: <Error>, torch::autograd::Error
    "__slots__": (), "op_name": "DelayedError", "fn_cls": DelayedError, "paddle_name": "GradNodePyLayer",
    "__module__": "minigrad.autograd.nodes", "__repr__": GradNode.__repr__})  # a C++ node's repr in PyTorch


def once_differentiable(fn: Any) -> Any:
    """Decorate a custom Function's ``backward`` that is not written to be differentiated (NumPy inside, say):
    it runs with recording off, and where ``create_graph=True`` asked for a gradient that could be
    differentiated, the gradients pass through an ``Error`` node (``DelayedError``), so that a second backward through
    them says why it cannot run instead of giving a wrong answer (PyTorch's decorator)."""
    @functools.wraps(fn)
    def wrapper(ctx: FunctionCtx, *args: Any) -> Any:
        with set_grad_enabled(False):
            outputs = fn(ctx, *args)
        if not GRAD_MODE.enabled or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        many = isinstance(outputs, tuple)
        outs = list(outputs) if many else [outputs]
        live = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        if live:
            passed = DelayedError.apply(*[outs[i].detach().requires_grad_() for i in live])
            for i, t in zip(live, passed if len(live) > 1 else (passed,)):
                outs[i] = t
        return tuple(outs) if many else outs[0]

    return wrapper
