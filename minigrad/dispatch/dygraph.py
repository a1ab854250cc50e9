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

import copy
import warnings
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .. import flags
from ..autograd.accumulation import accumulation_node_for
from ..autograd.grad_mode import GRAD_MODE
from ..autograd.grad_node import Edge, announce_node, in_meta_of, make_node, no_edge, no_edge_row, reserve_node_ids
from ..autograd.hooks import retain_grad
from ..autograd.tensor_wrapper import TensorWrapper, save_tensor
from ..autograd_meta import AutogradMeta
from .. import dtypes as _dt
from ..dtypes import float32, from_numpy
from ..kernels import api as kernel_api
from ..kernels.api import _specialised, call_kernel, specialise, specialised_kernel
from ..kernels.backends import backend_of_device, move_array
from ..kernels.prepare_data import emit_transform
from ..tensor import Tensor, VersionCounter, next_tensor_id
from ..tracing import bus
from ..tracing.events import ApiCall
from ..tracing.preview import jsonable, jsonable_attrs
from . import amp_state
from .amp import autocast_inputs
from .op_table import OPS

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef

__all__ = ["OPS", "run_op", "run_inplace", "run_to_device", "announce_node", "jsonable"]


def _announce_inputs(rec: Any, inputs: list[Any]) -> list[Any]:
    """Announce inputs made before the recording started (parameters, data), so that
    every tensor id an event mentions has a ``tensor.create`` in the trace.
    Returns the inputs' ids, as ``api.call`` lists them (a list of ids for a list input)."""
    seen = rec.announced
    ids: list[Any] = []
    for v in inputs:
        if v is None:
            ids.append(None)
        elif isinstance(v, list):
            for t in v:
                if t._id not in seen:
                    t._announce()
            ids.append([t._id for t in v])
        else:
            if v._id not in seen:
                v._announce()
            ids.append(v._id)
    return ids


_ndarray = np.ndarray
_new_object = object.__new__
_np_dtypes = _dt.BY_NUMPY


def run_op(op: "OpDef", inputs: list[Any], attrs: dict[str, Any]) -> Any:
    """Run one op through AMP, the kernel layer and grad-node creation."""
    rec = bus.recorder
    if rec is not None:
        rec.emit(ApiCall.new(op=op.name, inputs=_announce_inputs(rec, inputs), attrs=jsonable_attrs(attrs)))
    if amp_state.AMP.level:
        inputs = autocast_inputs(op, inputs)
    elif rec is None:
        # NOTE [ The specialised eager path ] in kernels/api.py: no search, same checks.
        # Everything below is the four layers collapsed for a call whose kind was seen
        # before: the cached kernel, InferMeta's check, the output tensor, the node.
        try:
            if len(inputs) == 2:
                x, y = inputs
                sig: Any = (op, x._dtype, x._device, x._layout, y._dtype, y._device, y._layout,
                            flags.enable_api_kernel_fallback, flags.use_gpudnn)
            else:
                sig = specialise(op, inputs)
        except AttributeError:  # a None or list input: the general path
            sig = None
        entry = (_specialised.get(sig) or specialised_kernel(op, inputs, sig)) if sig is not None else False
        if entry:
            kernel, device, layout = entry
            if warnings.filters is not kernel_api._filters_seen:
                kernel_api._silence_fp_warnings()
            arrays = [x._data, y._data] if len(inputs) == 2 else [t._data for t in inputs]
            check = op.infer_meta(op.name, *arrays, **attrs)  # type: ignore[misc]
            try:
                out = kernel.fn(*arrays, **attrs)
            except MemoryError as exc:
                raise kernel_api.out_of_memory(op, kernel, check, exc) from None
            if type(out) is not _ndarray or type(check) is not tuple or out.shape != check[0] or out.dtype != check[1]:
                if type(out) is tuple or type(check) is not tuple:  # several outputs: the general finish
                    kernel_api._check_outputs(op, kernel.name, check, out)
                    outs = [Tensor._make(a, from_numpy(a.dtype), device, layout) for a in out]
                    return _finish(op, inputs, attrs, out, outs, True, None)
                kernel_api._check_outputs(op, kernel.name, check, out)
            # Tensor._make, inlined.
            t = _new_object(Tensor)
            t._data = out
            t._dtype = dtype = _np_dtypes.get(out.dtype) or from_numpy(out.dtype)
            t._device = device
            t._layout = layout
            t._meta = None
            t._version = None
            t._id = next_tensor_id()
            t._name = None
            if op.view:
                return _finish(op, inputs, attrs, (out,), [t], False, None)
            # require_any_grad, then the node (see _finish and _create_grad_node).
            if GRAD_MODE.enabled and dtype.is_floating and op.backward is not None:
                for spec, v in zip(op.inputs, inputs):
                    if v._meta is not None and spec.differentiable:
                        _create_grad_node(op, inputs, attrs, [t])
                        break
            return t

    out, device, layout = call_kernel(op, inputs, attrs)
    multi = isinstance(out, tuple)
    if multi:
        arrays = out
        outs = [Tensor._make(a, from_numpy(a.dtype), device, layout) for a in arrays]
    else:
        arrays = (out,)
        outs = [Tensor._make(out, from_numpy(out.dtype), device, layout)]
    return _finish(op, inputs, attrs, arrays, outs, multi, rec)


def _finish(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], arrays: Any, outs: list[Any], multi: bool,
            rec: Any) -> Any:
    """After the kernel: views share the version counter, ``require_any_grad``, the grad node."""
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
        return no_edge(t._data.shape, t._dtype)
    node = meta.grad_node
    if node is None:
        node = accumulation_node_for(meta, t)
    shape, dtype, _ = node.in_meta[meta.out_slot][meta.out_rank]
    return Edge(node, meta.out_slot, meta.out_rank, shape, dtype)


_NO_WRAPPERS: tuple[Any, ...] = ()


def _create_grad_node(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], outs: list[Any]) -> None:
    ids = reserve_node_ids()  # the node is numbered first, then the AccumulationNodes its edges make
    # SetGradOutMeta & edges, slot by slot, rank by rank (NOTE [ Lean graph data ] in grad_node.py).
    next_edges = []
    topo = 0
    for spec, v in zip(op.inputs, inputs):
        if v is None or not spec.differentiable:
            tensors = [] if v is None else (v if isinstance(v, list) else [v])
            if len(tensors) == 1:
                next_edges.append(no_edge_row(tensors[0]._data.shape, tensors[0]._dtype))
            else:
                next_edges.append(tuple(no_edge(t._data.shape, t._dtype) for t in tensors) or no_edge_row(()))
            continue
        if type(v) is list:
            row = tuple(_edge_to(t) for t in v)
            for e in row:
                if e.node is not None and e.node.topo_nr >= topo:
                    topo = e.node.topo_nr + 1
        else:  # _edge_to(v), inlined: one input per slot is the common case
            meta = v._meta
            if meta is None:
                row = no_edge_row(v._data.shape, v._dtype)
            else:
                nxt = meta.grad_node
                if nxt is None:
                    nxt = accumulation_node_for(meta, v)
                slot = meta.out_slot
                rank = meta.out_rank
                shape, dtype, _ = nxt.in_meta[slot][rank]
                row = (Edge(nxt, slot, rank, shape, dtype),)
                if nxt.topo_nr >= topo:
                    topo = nxt.topo_nr + 1
        next_edges.append(row)
    # SetGradInMeta: shared per (shape, dtype, device) for the common single output.
    if len(outs) == 1:
        t = outs[0]
        in_meta: Any = in_meta_of(t._data.shape, t._dtype, t._device)
    else:
        in_meta = tuple((in_meta_of(t._data.shape, t._dtype, t._device)[0][0],) for t in outs)
    node = make_node(op.node_class, ids, attrs, tuple(next_edges), in_meta, topo if topo > 0 else 1, _NO_WRAPPERS)
    # SetOutRankWithSlot, SetHistory.
    for slot, t in enumerate(outs):
        meta = AutogradMeta(t._id)
        meta.grad_node = node
        meta.out_slot = slot
        t._meta = meta
    # TensorWrappers for the saved inputs/outputs (with version snapshots); a saved
    # output is wrapped after SetHistory, so it leads back to this node under create_graph.
    if op.save:
        wrappers: Any = []
        for idx, needed_by in zip(op.save_index, op.save_needed_by):
            if needed_by is not None:
                for k in needed_by:
                    for e in next_edges[k]:
                        if e.node is not None:
                            break
                    else:
                        continue
                    break
                else:  # only needed for gradients nobody asked for (save_for)
                    wrappers.append(None)
                    continue
            if idx < 0:
                wrappers.append(TensorWrapper(outs[0]))
            else:
                v = inputs[idx]
                if isinstance(v, list):
                    wrappers.extend(save_tensor(t) for t in v)
                elif v is not None:
                    wrappers.append(save_tensor(v))
        node.wrappers = tuple(wrappers)
    if flags.retain_grad_for_all_tensor:
        for t in outs:
            retain_grad(t)
    if bus.recorder is not None:
        announce_node(node)


def _check_inplace_operand(self: Tensor, op_name: str, other: Any) -> None:
    """Refuse, before anything runs or is recorded, an operand whose result can't live in ``self``.

    The out-of-place op would build its grad node (and announce it to the
    trace) before the write-back found that the result has another shape
    or a float dtype; a failed op must leave nothing behind (DESIGN §7).
    """
    other_shape = other.shape if isinstance(other, Tensor) else ()
    try:
        shape = np.broadcast_shapes(self.shape, other_shape)
    except ValueError:
        return  # the op's own InferMeta names both shapes
    if shape != self.shape:
        raise RuntimeError(
            f"{op_name}(): output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}; "
            f"an in-place op can't grow its tensor (use the out-of-place op: x = x + y)"
        )
    if not self._dtype.is_floating:
        if isinstance(other, Tensor) and other._dtype.is_floating:
            result = other._dtype
        elif op_name == "div_" or isinstance(other, float):
            result = float32  # true division and Python floats promote to the default float dtype
        else:
            return
        raise RuntimeError(f"{op_name}(): result type {result} can't be cast to the desired output type {self._dtype}")


def run_inplace(self: Tensor, op_name: str, fn: Callable[[], Tensor], other: Any = None) -> Tensor:
    """An in-place op (``x.add_(y)``, ``x += y``, ``x[i] = v``): DESIGN §9 rule 8.

    ``fn()`` computes the new values out of place (recording a node as usual);
    this writes them into ``self``'s storage, bumps its version counter and,
    when a node was recorded, moves ``self``'s history to it (``SetHistory``).
    Misuse - a leaf that requires grad, a view of such a tensor, an int tensor
    receiving floats - raises before anything changes.
    """
    meta = self._meta
    if GRAD_MODE.enabled and meta is not None and meta.grad_node is None:
        raise RuntimeError(
            f"{op_name}(): a leaf tensor that requires grad is being used in an in-place operation. "
            f"Use an out-of-place op (x = x + y), or update it under `with mg.no_grad():`"
        )
    # Only a tensor made by a view op (reshape, getitem ...) is a view of another tensor;
    # other kernels may return NumPy views of their own temporaries, which are private.
    made_by_view = (
        meta is not None
        and meta.grad_node is not None
        and getattr(meta.grad_node.opdef, "view", False)
        and getattr(self._data, "base", None) is not None
    )
    if GRAD_MODE.enabled and made_by_view:
        raise RuntimeError(
            f"{op_name}(): in-place change of a view of another tensor that requires grad is not supported; "
            f"use an out-of-place op, or clone() first"
        )
    if op_name in ("add_", "sub_", "mul_", "div_"):
        _check_inplace_operand(self, op_name, other)
    result = fn()
    if result._dtype is not self._dtype:
        if not self._dtype.is_floating and result._dtype.is_floating:
            raise RuntimeError(
                f"{op_name}(): result type {result._dtype} can't be cast to the desired output type {self._dtype}"
            )
    node = result._meta.grad_node if result._meta is not None else None
    if node is not None:
        # The new node saved the pre-change values of ``self`` (PyTorch's original_self):
        # give those wrappers a private copy, since the storage is about to change.
        # A new wrapper, not an edited one: wrappers may be shared (NOTE [ One wrapper per
        # saved leaf ] in autograd/tensor_wrapper.py).
        # Only the wrapper of input 0 (self) is the original self: another saved input that
        # aliases the storage (``x.detach().div_(x)``, ``y.mul_(y)``) was modified by this op,
        # and backward must refuse it by its version, as PyTorch does.
        wrappers = list(node.wrappers)
        opdef = getattr(node, "opdef", None)
        save_index = opdef.save_index if opdef is not None else ()
        for k, w in enumerate(wrappers):
            if w is not None and w.data is self._data and (k >= len(save_index) or save_index[k] == 0):
                w = wrappers[k] = copy.copy(w)
                w.data = self._data.copy()
                w.version_counter = VersionCounter()
                w.snapshot = 0
        node.wrappers = tuple(wrappers)
    if result._dtype is not self._dtype:
        # ``y_f32 += w_f64`` computes in float64; the tensor keeps its dtype, and recording the
        # cast keeps the graph's dtypes right (the gradient reaching w is float64 again).
        result = OPS["cast"](result, self._dtype)
        node = result._meta.grad_node if result._meta is not None else None
    new_values = result._data
    if isinstance(self._data, np.generic):
        # A NumPy scalar (a 0-d kernel result) is immutable and shares no memory with
        # any other tensor: give the tensor a writable 0-d array of the same value.
        self._data = np.array(self._data)
    try:
        if self._data.size == 0:
            pass  # nothing to write (an empty expand() view is read-only in NumPy, not in PyTorch)
        elif self._data.ndim == 0:
            self._data[()] = new_values
        else:
            self._data[...] = new_values
    except ValueError as exc:
        raise RuntimeError(f"{op_name}(): cannot write into this tensor in place ({exc})") from None
    if self._version is None:
        self._version = VersionCounter()
    self._version.bump()
    if node is not None:
        # SetHistory: the tensor's grad node moves to the new node.
        new_meta = AutogradMeta(self._id, self._name)
        new_meta.grad_node = node
        new_meta.out_slot = result._meta.out_slot
        new_meta.out_rank = result._meta.out_rank
        if meta is not None and meta.retain_grads:
            self._meta = new_meta
            self.retain_grad()
        self._meta = new_meta
    if bus.recorder is not None:
        self._announce_update(op_name)
    return self


def run_to_device(op: "OpDef", x: Tensor, device: str) -> Tensor:
    """``x`` copied to ``device`` (``Tensor.to``); the node ``op`` moves gradients back.

    The copy spans two backends, so it is no kernel of either: it skips the
    kernel layer, moving the array with the backends' movers (Paddle's
    ``TransDataPlace``), and records the node itself.
    """
    rec = bus.recorder
    if rec is not None:
        rec.emit(ApiCall(op=op.name, inputs=[x._id], attrs={"device": device}))
    src_backend = backend_of_device(x._device).name
    dst_backend = backend_of_device(device).name
    data = move_array(x._data, x._device, device)
    emit_transform(op.name, "x", "backend", src_backend, dst_backend)
    out = Tensor._make(data, x._dtype, device, x._layout)
    if GRAD_MODE.enabled and x._meta is not None:
        _create_grad_node(op, [x], {"device": device}, [out])
        out._meta.grad_node.extra = x._device  # type: ignore[union-attr]
    if rec is not None:
        out._announce()
    return out
