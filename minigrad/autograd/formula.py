"""What a backward formula sees, and how the engine runs it (Paddle's grad node ``operator()``).

A grad node made for an op runs that op's backward formula, written once
against ``ctx.ops`` (see NOTE [ One formula, two modes ]). This module holds
the formula's context (``BackwardContext``: saved values, attributes, which
inputs need gradients, the ops namespace), the two namespaces (``GRAPH_OPS``
and ``array_ops(device, layout)``) and ``run_formula``, which picks the mode,
calls the formula and hands its results back to the engine as one Tensor per
edge.

Example:
    >>> import minigrad as mg
    >>> from minigrad.autograd.formula import GRAPH_OPS
    >>> GRAPH_OPS.mul is mg.OPS["mul"]
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from .. import dtypes as _dt
from ..tensor import Tensor
from ..tracing import bus

if TYPE_CHECKING:  # pragma: no cover
    from .grad_node import GradNode

__all__ = [
    "BackwardContext", "OpsNamespace", "ArrayOps", "GRAPH_OPS", "array_ops", "define_array_op", "run_formula",
    "column_major",
]


class OpsNamespace:
    """``ctx.ops``: the ops a backward formula computes with, by name (``ctx.ops.mul``).

    A formula is written once against this namespace (NOTE [ One formula,
    two modes ]). ``GRAPH_OPS`` holds minigrad's registered ops, so the
    formula's work is recorded and differentiable; ``array_ops(device,
    layout)`` holds, for each op, the call of its kernels on arrays.
    ``ops/registry.py`` defines every op in both (imports go one way: this
    layer never imports the ops or the kernels).
    """

    def define(self, name: str, fn: Any) -> None:
        """Make ``fn`` reachable as ``ctx.ops.<name>``."""
        object.__setattr__(self, name, fn)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"ctx.ops has no op {name!r}: a backward formula can use only registered ops")


#: The graph-mode namespace, filled by ``ops/registry.py``.
GRAPH_OPS = OpsNamespace()

#: How array mode makes ``ctx.ops.<name>`` for a namespace: ``maker(namespace) -> callable``
#: (filled by ``ops/registry.py``: an op's kernels on arrays, or a composite bound to the namespace).
ARRAY_OP_MAKERS: dict[str, Callable[["ArrayOps"], Any]] = {}


class ArrayOps(OpsNamespace):
    """``ctx.ops`` in array mode, for arrays on one device and layout (made per name on first use)."""

    def __init__(self, device: str, layout: str) -> None:
        object.__setattr__(self, "device", device)
        object.__setattr__(self, "layout", layout)

    def __getattr__(self, name: str) -> Any:
        maker = ARRAY_OP_MAKERS.get(name)
        if maker is None:
            return OpsNamespace.__getattr__(self, name)
        fn = maker(self)
        object.__setattr__(self, name, fn)
        return fn


_array_ops: dict[tuple[str, str], ArrayOps] = {}


def array_ops(device: str, layout: str) -> ArrayOps:
    """The array-mode namespace for values on ``device`` in ``layout``."""
    ns = _array_ops.get((device, layout))
    if ns is None:
        ns = _array_ops[(device, layout)] = ArrayOps(device, layout)
    return ns


def define_array_op(name: str, maker: Callable[[ArrayOps], Any]) -> None:
    """Register how array mode makes ``ctx.ops.<name>`` (replacing what namespaces made before)."""
    ARRAY_OP_MAKERS[name] = maker
    for ns in _array_ops.values():
        ns.__dict__.pop(name, None)


class BackwardContext:
    """What a backward formula sees: saved tensors, attributes, which inputs need grads, ``ops``."""

    __slots__ = ("node", "create_graph", "ops", "arrays", "attrs")

    def __init__(self, node: "GradNode", create_graph: bool, ops: OpsNamespace = GRAPH_OPS) -> None:
        self.node = node
        self.create_graph = create_graph
        #: The ops a formula computes with (``ctx.ops.mul(grad, y)``); see ``OpsNamespace``.
        self.ops = ops
        #: Whether the formula runs in array mode (its values are arrays, not Tensors).
        self.arrays = ops is not GRAPH_OPS
        #: The op's attributes, as the call gave them.
        self.attrs: dict[str, Any] = node.attrs

    @property
    def extra(self) -> Any:
        return self.node.extra

    def saved(self) -> list[Any]:
        """The saved values, recovered (version-checked) in the op's ``save`` order.

        Tensors in graph mode, their arrays in array mode; None for a tensor
        the node did not keep (``save_for``).
        """
        node = self.node
        if self.arrays:
            arrays = []
            for w in node.wrappers:  # a loop, not a comprehension: one call fewer
                arrays.append(w.recover_array(node) if w is not None else None)
            return arrays
        return [w.recover(node, self.create_graph) if w is not None else None for w in node.wrappers]

    def input_shape(self, slot: int) -> tuple[int, ...]:
        """The shape of forward input ``slot`` (its gradient must have it), kept on its edge."""
        return self.node.next_edges[slot][0].shape

    def input_dtype(self, slot: int) -> Any:
        """The dtype of forward input ``slot`` (a minigrad dtype), kept on its edge."""
        return self.node.next_edges[slot][0].dtype

    def input_shapes(self, slot: int) -> list[tuple[int, ...]]:
        """The shapes of the tensors of list input ``slot`` (``concat``'s ``xs``), one per rank."""
        return [e.shape for e in self.node.next_edges[slot]]

    def input_dtypes(self, slot: int) -> list[Any]:
        """The dtypes of the tensors of list input ``slot``, one per rank."""
        return [e.dtype for e in self.node.next_edges[slot]]

    def given(self, slot: int) -> bool:
        """Whether optional input ``slot`` was given: a missing one's edge has no dtype, and it saves nothing
        (so ``saved()`` skips it)."""
        return self.node.next_edges[slot][0].dtype is not None

    def needs(self, slot: int, rank: int | None = None) -> bool:
        """Whether input ``slot`` (its tensor ``rank``, for a list input) needs a gradient."""
        if rank is not None:
            return self.node.next_edges[slot][rank].node is not None
        for e in self.node.next_edges[slot]:
            if e.node is not None:
                return True
        return False


def column_major(value: Any) -> bool:
    """Whether a matrix (a Tensor, or an array) lies in column-major order, as ``weight.t()`` does: PyTorch's
    test in ``mm_mat1_backward``/``mm_mat2_backward`` (strides ``(1, rows)``), the one fact about an operand's
    memory a product's formula asks, to lay its gradient out the same way (``operand_layout``)."""
    data = value._data if isinstance(value, Tensor) else value
    if data is None or data.ndim != 2:
        return False
    s0, s1 = data.strides
    return s0 == data.itemsize and s1 == data.shape[0] * data.itemsize


#: ``ctx.extra`` bits of a matrix product's node (``operand_layout``): its first or its second operand was
#: column-major, so that operand's gradient is made column-major too.
MAT1_COLUMN_MAJOR, MAT2_COLUMN_MAJOR = 1, 2


def operand_layout(mat1: Any, mat2: Any) -> int:
    """``MAT1_COLUMN_MAJOR | MAT2_COLUMN_MAJOR`` for the column-major ones of a product's two matrices, taken
    when its node is made (an op's ``node_extra``): PyTorch's ``MmBackward0`` and ``AddmmBackward0`` keep
    their operands' strides, not only the operands they save, so the layout is known for a gradient whose
    formula did not need the operand itself (``weight.t()``'s, where the input needs no gradient)."""
    return (MAT1_COLUMN_MAJOR if column_major(mat1) else 0) | (MAT2_COLUMN_MAJOR if column_major(mat2) else 0)


# NOTE [ One formula, two modes ]
#     An op's backward formula is written once, against ``ctx.ops``. The engine
#     runs it in one of two modes:
#
#     - **graph mode** while a recorder is active, under ``create_graph=True``,
#       and for an op without kernels of its own (``to_device``): ``ctx.ops``
#       are minigrad's ops (``GRAPH_OPS``), the values are Tensors, and every
#       step of the formula is an op call the trace shows (and, with
#       ``create_graph``, a node of the double-backward graph);
#     - **array mode** otherwise: ``ctx.ops`` are the same ops' kernels
#       (``array_ops(device, layout)``), the values are the tensors' arrays,
#       and each call runs the kernel the op's call would select for those
#       arrays. A call whose kind the kernel layer would transform (mixed
#       dtypes, another device, a CPU fallback), or made under autocast, goes
#       through the op itself (``dispatch/array_mode.py``).
#
#     Either way the same kernels run on the same arrays in the same order, so
#     the two modes give the same bits (tests/test_fused_backward.py runs every
#     op both ways). Array mode skips only what nothing observes there: the API
#     layer's checks, InferMeta, and a Tensor per intermediate value.
#     A formula may use ``ctx.ops.<op>``, ``ctx.saved()``, ``ctx.attrs``,
#     ``ctx.extra``, ``ctx.needs(slot)``, ``ctx.input_shape(slot)`` and the
#     values' ``.shape`` and ``.ndim``: nothing else works in both modes.


#: Whether formulas may run in array mode (NOTE [ One formula, two modes ]). Set it to False
#: to run every formula in graph mode - the bit-equality tests compare the two this way.
ARRAY_MODE = True


def run_formula(node: "GradNode", grads: list[list[Any]], create_graph: bool) -> list[list[Any]]:
    """Run the node's op formula (graph or array mode), then match its results to the node's edges."""
    op = node.opdef
    assert op.backward is not None
    first = grads[0][0]
    if create_graph or bus.recorder is not None or op.infer_meta is None or not ARRAY_MODE:
        ctx = BackwardContext(node, create_graph, GRAPH_OPS)
        grad = first if len(grads) == 1 else [row[0] for row in grads]
    else:
        ns = _array_ops.get((first._device, first._layout)) or array_ops(first._device, first._layout)
        ctx = BackwardContext(node, False, ns)
        grad = first._data if len(grads) == 1 else [row[0]._data for row in grads]
    result = op.backward(ctx, grad)
    if not isinstance(result, (tuple, list)):
        result = (result,)
    return _grads_per_edge(node, ctx, result)


def _grads_per_edge(node: "GradNode", ctx: "BackwardContext", result: Sequence[Any]) -> list[list[Any]]:
    """One gradient per (slot, rank) of the node's edges, as Tensors; None where no edge needs one.

    An op whose inputs were promoted to a common dtype (``x_f32 * y_f64``)
    computes its gradients in that dtype; each is cast back to the dtype of
    the input it belongs to (a recorded ``cast`` in graph mode), as ``.grad``
    must match its tensor.
    """
    op = node.opdef
    out: list[list[Any]] = []
    n_result = len(result)
    for slot, row in enumerate(node.next_edges):
        r = result[slot] if slot < n_result else None
        if op.inputs[slot].is_list:
            vals = list(r) if r is not None else []
            vals += [None] * (len(row) - len(vals))  # one gradient (or None) per rank
            out.append([_as_tensor(g, ctx, op, slot, rank, edge) for rank, (edge, g) in enumerate(zip(row, vals))])
        else:
            out.append([_as_tensor(r, ctx, op, slot, 0, row[0])])
    return out


def _as_tensor(g: Any, ctx: "BackwardContext", op: Any, slot: int, rank: int, edge: Any) -> "Tensor | None":
    """The formula's gradient for ``edge`` as a Tensor of its input's dtype (None where no gradient goes)."""
    if g is None or edge.node is None:
        return None
    if g.shape != edge.shape:
        raise RuntimeError(
            f"backward formula returned a gradient of shape {tuple(g.shape)} for input "
            f"'{op.inputs[slot].name}' (rank {rank}) of shape {tuple(edge.shape)}"
        )
    ops = ctx.ops
    if ctx.arrays:
        if op.casts_grads and edge.dtype is not None and g.dtype != edge.dtype.np:
            g = ops.cast(g, edge.dtype)
        return _make(g, _by_numpy.get(g.dtype) or _dt.from_numpy(g.dtype), ops.device, ops.layout)
    if op.casts_grads and edge.dtype is not None and g._dtype is not edge.dtype:
        g = ops.cast(g, edge.dtype)
    return g


_make = Tensor._make
_by_numpy = _dt.BY_NUMPY
