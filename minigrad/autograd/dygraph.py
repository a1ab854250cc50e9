"""The dygraph layer (seed 004 §2.3, Paddle's generated ``<op>_dygraph_function``).

``run_op(op, inputs, attrs)`` is what every op call goes through after the
API layer checked its arguments:

1. **AMP**: with an autocast context active, inputs are cast per the op lists;
2. the **kernel layer** computes the outputs (``kernels.api.call_kernel``);
3. ``require_any_grad``: grad mode is on and a differentiable input requires grad;
4. if so, **grad-node creation**, in the seed's order: the node with its
   attributes; ``SetGradOutMeta`` - one edge per input to that input's grad
   node (an AccumulationNode is created for a leaf on first use);
   ``SetOutRankWithSlot`` and ``SetHistory`` on each output; ``SetGradInMeta``;
   TensorWrappers for the saved tensors (with their version snapshot);
   retain-grad when ``flags.retain_grad_for_all_tensor`` is on.

A failing op raises before anything is attached to a tensor: the kernel
layer runs first and node creation cannot fail, so no half-built node is left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import flags
from ..dtypes import from_numpy
from ..kernels.api import call_kernel
from ..tensor import Tensor, VersionCounter
from ..tracing import bus
from ..tracing.events import ApiCall, NodeCreate
from . import amp_state
from .grad_mode import GRAD_MODE
from .grad_node import Edge
from .meta import AutogradMeta
from .tensor_wrapper import TensorWrapper

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef

__all__ = ["run_op", "jsonable"]


def jsonable(value: Any) -> Any:
    """A JSON-friendly rendering of an attribute value for events."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if isinstance(value, slice):
        return f"{'' if value.start is None else value.start}:{'' if value.stop is None else value.stop}" + (
            "" if value.step is None else f":{value.step}"
        )
    if value is Ellipsis:
        return "..."
    shape = getattr(value, "shape", None)
    if shape is not None:
        return {"shape": list(shape), "dtype": str(getattr(value, "dtype", "?"))}
    return repr(value)


def _ids(inputs: list[Any]) -> list[Any]:
    return [
        [t._id for t in v] if isinstance(v, list) else (v._id if v is not None else None) for v in inputs
    ]


def _announce_inputs(rec: Any, inputs: list[Any]) -> None:
    """Announce inputs made before the recording started (parameters, data), so that
    every tensor id an event mentions has a ``tensor.create`` in the trace."""
    seen = rec.announced
    for v in inputs:
        if v is None:
            continue
        for t in v if isinstance(v, list) else (v,):
            if t._id not in seen:
                t._announce()


def run_op(op: "OpDef", inputs: list[Any], attrs: dict[str, Any]) -> Any:
    """Run one op through AMP, the kernel layer and grad-node creation."""
    rec = bus.recorder
    if rec is not None:
        _announce_inputs(rec, inputs)
        rec.emit(ApiCall(op=op.name, inputs=_ids(inputs), attrs={k: jsonable(v) for k, v in attrs.items()}))
    if amp_state.AMP.level:
        from .amp import autocast_inputs

        inputs = autocast_inputs(op, inputs)

    out, device, layout = call_kernel(op, inputs, attrs)
    multi = isinstance(out, tuple)
    if multi:
        arrays = out
        outs = [Tensor._make(a, from_numpy(a.dtype), device, layout) for a in arrays]
    else:
        arrays = (out,)
        outs = [Tensor._make(out, from_numpy(out.dtype), device, layout)]

    if op.view and getattr(arrays[0], "base", None) is not None:
        # Views share the storage, hence the version counter (in-place checks see through them).
        src = inputs[0]
        if src._version is None:
            src._version = VersionCounter()
        for t in outs:
            t._version = src._version

    # require_any_grad: the global grad mode and the inputs' autograd meta.
    # Integer and bool outputs are never differentiable.
    if GRAD_MODE.enabled and op.backward is not None and outs[0]._dtype.is_floating:
        for spec, v in zip(op.inputs, inputs):
            if not spec.differentiable or v is None:
                continue
            if isinstance(v, list):
                if any(t._meta is not None for t in v):
                    break
            elif v._meta is not None:
                break
        else:
            v = None
        if v is not None:
            _create_grad_node(op, inputs, attrs, outs)

    if rec is not None:
        for t in outs:
            t._announce()
    return tuple(outs) if multi else outs[0]


def _edge_to(t: Any) -> Edge:
    """``SetGradOutMeta`` for one input: the edge to the node that takes its gradient."""
    meta = t._meta
    if meta is None:
        return Edge(None, 0, 0, t._data.shape, t._dtype)
    node = meta.grad_node
    if node is None:
        node = meta.accumulation_node_for(t)
    return Edge(node, meta.out_slot, meta.out_rank, t._data.shape, t._dtype)


def _create_grad_node(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], outs: list[Any]) -> None:
    node = op.node_class()
    node.attrs = attrs
    # SetGradOutMeta & edges, slot by slot, rank by rank.
    next_edges: list[list[Edge]] = []
    topo = 0
    for spec, v in zip(op.inputs, inputs):
        if v is None or not spec.differentiable:
            tensors = [] if v is None else (v if isinstance(v, list) else [v])
            next_edges.append([Edge(None, 0, 0, t._data.shape, t._dtype) for t in tensors] or [Edge(None, 0, 0, ())])
            continue
        if isinstance(v, list):
            row = [_edge_to(t) for t in v]
            for e in row:
                if e.node is not None and e.node.topo_nr >= topo:
                    topo = e.node.topo_nr + 1
        else:  # _edge_to(v), inlined: one input per slot is the common case
            meta = v._meta
            if meta is None:
                row = [Edge(None, 0, 0, v._data.shape, v._dtype)]
            else:
                nxt = meta.grad_node
                if nxt is None:
                    nxt = meta.accumulation_node_for(v)
                row = [Edge(nxt, meta.out_slot, meta.out_rank, v._data.shape, v._dtype)]
                if nxt.topo_nr >= topo:
                    topo = nxt.topo_nr + 1
        next_edges.append(row)
    node.next_edges = next_edges
    node.topo_nr = topo if topo > 0 else 1
    # SetOutRankWithSlot, SetHistory, SetGradInMeta.
    in_meta = []
    for slot, t in enumerate(outs):
        meta = AutogradMeta(t._id)
        meta.grad_node = node
        meta.out_slot = slot
        meta.out_rank = 0
        t._meta = meta
        in_meta.append([(t._data.shape, t._dtype, t._device)])
    node.in_meta = in_meta
    # TensorWrappers for the saved inputs/outputs (with version snapshots).
    if op.save:
        wrappers = []
        for idx in op.save_index:
            if idx < 0:
                wrappers.append(TensorWrapper(outs[0]))
            else:
                v = inputs[idx]
                if isinstance(v, list):
                    wrappers.extend(TensorWrapper(t) for t in v)
                elif v is not None:
                    wrappers.append(TensorWrapper(v))
        node.wrappers = wrappers
    if flags.retain_grad_for_all_tensor:
        for t in outs:
            t.retain_grad()
    rec = bus.recorder
    if rec is not None:
        announce_node(node)


def announce_node(node: Any, copy_of: int | None = None) -> None:
    """Emit ``node.create`` for a grad node (used at creation and by GeneralGrad copies)."""
    rec = bus.recorder
    if rec is None:
        return
    if node.is_accumulation:
        node.announce(copy_of=copy_of)
        return
    edges = [
        {
            "slot": slot,
            "rank": rank,
            "next": e.node.id if e.node is not None else None,
            "next_slot": e.slot,
            "next_rank": e.rank,
        }
        for slot, row in enumerate(node.next_edges)
        for rank, e in enumerate(row)
    ]
    ev = NodeCreate(
        node=node.id,
        name=node.display_name,
        op=node.op_name,
        topo_nr=node.topo_nr,
        seq_nr=node.seq_nr,
        is_accumulation=False,
        tensor=None,
        copy_of=copy_of,
        edges=edges,
        saved=[w.tensor_id for w in node.wrappers],
        attrs={k: jsonable(v) for k, v in node.attrs.items()},
    )
    rec.emit(ev)
    if copy_of is None and ev.source is not None:  # the recorder stamped where it came from (tracing/provenance.py)
        node.origin = ev.source + (f" in module {ev.module}" if ev.module else "")
