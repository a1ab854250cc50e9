"""Grad-node creation: the last step of the dygraph layer (Paddle's generated ``<op>_dygraph_function``).

``create_grad_node`` does it in Paddle's order: the node numbered and made
with its attributes; ``SetGradOutMeta`` - one edge row per input to the node
that takes its gradient (``edge_row``; a leaf's AccumulationNode is made on
its first use, ``leaf_edge_row`` in ``accumulation.py``), and the node's
topological number (PyTorch's: 1 + the largest of the next nodes',
AccumulationNodes are 0); ``SetOutRankWithSlot`` and ``SetHistory`` on each
output (the output's ``AutogradMeta`` points at the node); ``SetGradInMeta``;
TensorWrappers for the saved tensors (with their version snapshots); and
retain-grad when ``flags.retain_grad_for_all_tensor`` is on. Both the
dygraph layer's ``run_layers`` and the generated functions call it.

Example:
    >>> import minigrad as mg
    >>> a = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> (a * a).grad_fn.next_functions[0][0].name()
    'AccumulateGrad'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import flags
from ..autograd_meta import AutogradMeta
from .accumulation import leaf_edge_row
from .grad_node import Edge, GradNode, announce_node, reserve_node_ids
from .hooks import retain_grad
from .tensor_wrapper import SAVED_TENSORS_HOOKS, TensorWrapper
from .views import MULTI_OUTPUT, restrict_view

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef

__all__ = ["create_grad_node", "require_any_grad", "edge_row", "in_meta_of", "no_edge", "no_edge_row", "save_tensor"]


# NOTE [ Lean graph data ]
#     A deep chain keeps every node alive until backward, so what one node costs
#     in memory and allocations is what the graph costs. The parts that are the
#     same for many nodes are shared rather than rebuilt: ``in_meta`` rows are
#     interned per (shape, dtype, device) (``in_meta_of``), the row of an input
#     that needs no gradient is shared per (shape, dtype) (``no_edge_row``), the row to
#     a leaf's AccumulationNode is shared by every op that uses the leaf (``leaf_edge_row``
#     in ``accumulation.py``), ``next_edges`` rows are tuples, and an op called with its
#     default attributes shares one attrs dict (attrs are never changed after the
#     call). Nothing here is ever
#     mutated in place: GeneralGrad copies a node's edges before re-pointing them.
_in_meta_cache: dict[tuple[Any, ...], tuple[tuple[tuple[Any, ...]], ...]] = {}
_no_edge_cache: dict[tuple[Any, ...], tuple["Edge"]] = {}
_CACHE_LIMIT = 4096


def in_meta_of(shape: tuple[int, ...], dtype: Any, device: str) -> tuple[tuple[tuple[Any, ...]], ...]:
    """The shared ``in_meta`` of a node with one output of this shape, dtype and device."""
    key = (shape, dtype, device)
    meta = _in_meta_cache.get(key)
    if meta is None:
        if len(_in_meta_cache) >= _CACHE_LIMIT:
            _in_meta_cache.clear()
        meta = _in_meta_cache[key] = ((key,),)
    return meta


def no_edge_row(shape: tuple[int, ...], dtype: Any = None) -> tuple["Edge"]:
    """The shared one-edge row of a forward input that needs no gradient (``edge.node is None``)."""
    key = (shape, dtype)
    row = _no_edge_cache.get(key)
    if row is None:
        if len(_no_edge_cache) >= _CACHE_LIMIT:
            _no_edge_cache.clear()
        row = _no_edge_cache[key] = (Edge(None, 0, 0, shape, dtype),)
    return row


def no_edge(shape: tuple[int, ...], dtype: Any = None) -> "Edge":
    """The shared edge of a forward input that needs no gradient (``edge.node is None``)."""
    return no_edge_row(shape, dtype)[0]


def require_any_grad(op: "OpDef", inputs: list[Any]) -> bool:
    """Whether a differentiable input (or a tensor of a list input) requires grad (its autograd meta)."""
    for spec, v in zip(op.inputs, inputs):
        if not spec.differentiable or v is None:
            continue
        if any(t._meta is not None for t in v) if isinstance(v, list) else v._meta is not None:
            return True
    return False


# NOTE [ A node keeps its own index ]
#
# An indexing op (x[idx], index_put, index_select, take, masked_select ...) reads its index as arrays,
# which are the index tensor's own memory; its node keeps them for the backward. PyTorch saves the index
# tensor and refuses a backward after it was changed in place; minigrad's node copies the arrays when
# it is made, so a mask or an index rewritten after the forward (reused for the next batch) leaves the
# gradient of the forward that ran. Only a node pays for the copy: x[idx] under no_grad, or of a tensor
# that needs no gradient, reads the index where it is.
def _kept_index(attrs: dict[str, Any], index: Any) -> dict[str, Any]:
    if hasattr(index, "shape"):
        kept = index.copy()
    elif isinstance(index, tuple) and any(hasattr(i, "shape") for i in index):
        kept = type(index)([i.copy() if hasattr(i, "shape") else i for i in index])
    else:
        return attrs
    return {**attrs, "index": kept}


def create_grad_node(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], outs: list[Any], rec: Any = None) -> GradNode:
    """The grad node of one op call, in Paddle's order (see the module docstring); announced to
    ``rec``, the active recorder (or None). Node creation cannot fail: the kernel ran first."""
    # The node is numbered before the AccumulationNodes its edges may make: ``reserve_node_ids``
    # before the first leaf row that may make one, or the node's own ``__init__`` when none does.
    ids = None
    # SetGradOutMeta: one edge row per input slot; the topological number from the nodes they lead
    # to (a leaf's AccumulationNode counts 0); ``live``: bit ``slot`` set where the row leads to a node.
    rows: list[Any] = []
    live = 0
    topo = 1
    slot = 0
    for v in inputs:
        try:
            meta = v._meta
        except AttributeError:  # a list input or a missing optional one
            if ids is None and v is not None:
                ids = reserve_node_ids()
            row = no_edge_row(()) if v is None else _list_row(op.inputs[slot].differentiable, v) or no_edge_row(())
            for e in row:
                if e.node is not None:
                    live |= 1 << slot
                    if e.node.topo_nr >= topo:
                        topo = e.node.topo_nr + 1
            rows.append(row)
        else:
            if meta is None or not op.inputs[slot].differentiable:
                rows.append(no_edge_row(v._data.shape, v._dtype))
            elif meta.grad_node is not None:  # an edge to the node that made ``v``
                node = meta.grad_node
                shape, dtype, _ = node.in_meta[meta.out_slot][meta.out_rank]
                rows.append((Edge(node, meta.out_slot, meta.out_rank, shape, dtype),))
                if node.topo_nr >= topo:
                    topo = node.topo_nr + 1
                live |= 1 << slot
            elif not meta.accumulates:  # a view made under no_grad: its gradient goes nowhere
                rows.append(no_edge_row(v._data.shape, v._dtype))
            else:  # a leaf: its shared row (``leaf_edge_row``), when still its own and in this recording
                try:
                    row = v._acc
                except AttributeError:  # its first use
                    row = None
                if row is None or row[0].node.meta is not meta or rec is not None and row[0].node.announced_to != rec.token:
                    if ids is None:
                        ids = reserve_node_ids()
                    row = leaf_edge_row(meta, v)
                rows.append(row)
                live |= 1 << slot
        slot += 1
    # SetGradInMeta (shape, dtype and device of each output; shared: NOTE [ Lean graph data ]), then
    # SetOutRankWithSlot and SetHistory: output ``slot``'s gradient comes from this node.
    index = attrs.get("index")
    if index is not None and type(index) is not int:
        attrs = _kept_index(attrs, index)
    cls = op.node_class if op.node_class_of is None else op.node_class_of(inputs, attrs)
    if len(outs) == 1:
        t = outs[0]
        in_meta: Any = _in_meta_cache.get((t._data.shape, t._dtype, t._device)) or in_meta_of(
            t._data.shape, t._dtype, t._device)
        node = cls(ids, attrs, tuple(rows), in_meta, topo)
        t._meta = AutogradMeta(t._id, None, node, 0)
        if t._view is not None and t._view.creation == MULTI_OUTPUT:  # a view of an unbind/split output
            restrict_view(t)
    else:
        in_meta = tuple((in_meta_of(t._data.shape, t._dtype, t._device)[0][0],) for t in outs)
        node = cls(ids, attrs, tuple(rows), in_meta, topo)
        for slot, t in enumerate(outs):
            if not t._dtype.is_floating:  # an integer result (cholesky_ex's info) takes no gradient: no history
                continue
            t._meta = AutogradMeta(t._id, None, node, slot)
            if t._view is not None and t._view.creation == MULTI_OUTPUT:
                restrict_view(t)
    if op.node_extra is not None:  # what the formula must know of an input it may not save
        node.extra = op.node_extra(inputs, attrs)
    # TensorWrappers (with their version snapshots), after SetHistory: a saved output then leads back
    # to this node under create_graph. None where no wanted gradient needs the tensor (``save_for``:
    # no row of the inputs it is saved for leads to a node).
    if op.saves_inputs_only:  # the common case: single tensors
        wrappers: list[Any] = []
        for idx, needed in op.save_plan:
            wrappers.append(None if needed and not live & needed else save_tensor(inputs[idx]))
        node.wrappers = tuple(wrappers)
    elif op.save:
        wrappers = []
        for idx, needed in op.save_plan:
            v = inputs[idx] if idx >= 0 else None
            if needed and not live & needed:
                wrappers.append(None)
            elif idx < 0:
                wrappers.append(TensorWrapper(outs[-1 - idx], output=True))
            elif type(v) is list:
                wrappers.extend([save_tensor(t) for t in v])
            elif v is not None:
                wrappers.append(save_tensor(v))
        node.wrappers = tuple(wrappers)
    if flags.retain_grad_for_all_tensor:
        for t in outs:
            retain_grad(t)
    if rec is not None:
        announce_node(node, rec)
    return node


def edge_row(t: Any) -> tuple[Edge]:
    """``SetGradOutMeta`` for one input: the row of one edge to the node that takes its gradient
    (``create_grad_node`` writes the common cases out)."""
    meta = t._meta
    if meta is None:
        return no_edge_row(t._data.shape, t._dtype)
    node = meta.grad_node
    if node is None:
        if not meta.accumulates:  # a view made under no_grad: its gradient goes nowhere
            return no_edge_row(t._data.shape, t._dtype)
        return leaf_edge_row(meta, t)  # shared by every op that uses the leaf
    shape, dtype, _ = node.in_meta[meta.out_slot][meta.out_rank]
    return (Edge(node, meta.out_slot, meta.out_rank, shape, dtype),)


def _list_row(differentiable: bool, tensors: list[Any]) -> tuple[Edge, ...]:
    """The row of a list input: one edge per tensor (shared no-gradient edges where it takes none)."""
    if differentiable:
        return tuple(edge_row(t)[0] for t in tensors)
    if len(tensors) == 1:
        return no_edge_row(tensors[0]._data.shape, tensors[0]._dtype)
    return tuple(no_edge(t._data.shape, t._dtype) for t in tensors)


def save_tensor(tensor: Any) -> TensorWrapper:
    """The TensorWrapper for saving ``tensor`` now: the last step of node creation (``TensorWrapper`` in
    ``tensor_wrapper.py`` keeps it and checks its version when backward reads it).

    NOTE [ One wrapper per saved leaf ]
        A parameter or a constant is saved by every op that uses it (``w`` in
        each ``x @ w``, ``c`` in each ``y * c`` of a chain). While its array,
        version, history and name are what they were at its last save, the
        wrapper of that save serves again: nothing in a wrapper changes after it
        is made (releasing a node drops its wrappers rather than clearing them,
        and an in-place op replaces a node's wrapper instead of editing it).
        Only tensors without history (leaves and constants) are shared this
        way; the tensor holds its wrapper (tensor -> wrapper -> meta: no cycle).
    """
    if SAVED_TENSORS_HOOKS:  # each save is packed by the hooks on its own
        return TensorWrapper(tensor)
    try:
        w = tensor._saved
    except AttributeError:  # never saved
        w = None
    meta = tensor._meta
    if w is not None:
        vc = tensor._vc
        if (
            w.data is tensor._data
            and w.version_counter is vc
            and vc.value == w.snapshot
            and w.grad_ref is meta
            and w.tensor_name is tensor._name
        ):
            return w
    w = TensorWrapper(tensor)
    if meta is None or meta.grad_node is None:
        tensor._saved = w
    return w
