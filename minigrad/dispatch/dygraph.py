"""The dygraph layer (Paddle's generated ``<op>_dygraph_function``).

Every op call, after the API layer checked its arguments, runs its op's
dygraph function. Each op's is generated from its definition into
``dispatch/generated/`` (``minigrad codegen --write``): the steps below in a
straight line, for that op's inputs. ``run_layers`` is the same steps for any
op, each emitting its events when a recorder is active; a generated function
hands it the calls that something observes (a recorder, autocast) and those
its cached kernel does not cover:

1. **AMP**: with an autocast context active, inputs are cast per the op lists
   (``amp.autocast_call``);
2. the **kernel call**: the kernel layer computes the outputs
   (``kernels.api.call_kernel``);
3. ``require_any_grad``: grad mode is on, the output is floating and a
   differentiable input requires grad;
4. if so, ``create_grad_node`` (``autograd/node_creation.py``): edges, history,
   TensorWrappers.

A failing op raises before anything is attached to a tensor: the kernel layer
runs first and node creation cannot fail, so no half-built node is left. While
recording, the failure is one ``error`` event (``failed``; NOTE [ One error event
per failure ] in ``tracing/recorder.py``), and an op's outputs are named after
the variable the user's line assigns them to (NOTE [ A tensor is named after the
variable the student assigns it to ] in ``tracing/provenance.py``).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..autograd import function as _function
from ..autograd.engine import RUNNING_PASSES
from ..autograd.grad_mode import GRAD_MODE
from ..autograd.grad_node import GradNode, announce_node
from ..autograd.node_creation import create_grad_node, require_any_grad
from ..autograd.tensor_wrapper import BEFORE_INPLACE_WRITE
from ..autograd.views import (DEFAULT, check_inplace, check_view_inplace, make_view, mark_multi_output, rebind_saved_result, rewrites_base,
                              view_function_name)
from .. import dtypes as _dt
from ..dtypes import float32, from_numpy
from ..errors import ShapeError
from ..kernels.api import call_kernel
from ..kernels.backends import backend_of_device, move_array
from ..kernels.infer_meta import scalar_type_name, size_mismatch
from ..kernels.prepare_data import emit_transform
from ..tensor import Tensor, VersionCounter, bases_sharing, has_views, live_views
from ..tracing import bus
from ..tracing.events import ApiCall
from ..tracing.profiling import scope
from ..tracing.preview import call_attrs, jsonable
from ..tracing.provenance import name_outputs
from . import amp_state
from .amp import autocast_call
from .op_table import OPS
from .views import announce_version, move_history as _move_history, regenerate_views, rewrite_history

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef

__all__ = ["OPS", "run_op", "run_layers", "run_inplace", "run_to_device", "announce_node", "jsonable", "new_tensor",
           "finish_outputs", "share_version", "share_versions", "refuse_integral_grad"]


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
                    t._announce(rec)
            ids.append([t._id for t in v])
        else:
            if v._id not in seen:
                v._announce(rec)
            ids.append(v._id)
    return ids


def refuse_integral_grad(out: Any) -> None:
    """PyTorch's refusal of a recorded op whose ``dtype=`` made its output integral: no gradient flows through it."""
    raise RuntimeError(f"Autograd not support dtype: {scalar_type_name(out._dtype.np)}")


def run_op(op: "OpDef", inputs: list[Any], attrs: dict[str, Any]) -> Any:
    """Run one op call after the API layer: the op's dygraph function."""
    return op.dygraph_function(*inputs, attrs)


def run_layers(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], rec: Any) -> Any:
    """The dygraph layer's steps for any op: ``api.call``, AMP, the kernel call, ``require_any_grad``,
    ``create_grad_node``; each emits its events to ``rec``, the active recorder (``bus.recorder``)."""
    if rec is not None and rec.ranges:
        return _profiled(op, inputs, attrs, rec)
    return _run_layers(op, inputs, attrs, rec)


def _profiled(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], rec: Any) -> Any:
    """An op call while a profile records: its range around the layers' steps. The steps emit no events
    (a profile keeps none: NOTE [ A profile times what runs unrecorded ] in tracing/profiling.py) unless
    the profile keeps the GPU's rows, which the ``kernel.launch`` events give."""
    rec.op_begin(op.name, inputs, attrs)
    outs = None
    try:
        outs = _run_layers(op, inputs, attrs, rec if rec.device_rows else None)
        return outs
    finally:
        rec.op_end(inputs, outs)


def _run_layers(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], rec: Any) -> Any:
    try:
        if rec is not None:
            rec.emit(ApiCall.new(op=op.name, inputs=_announce_inputs(rec, inputs), attrs=call_attrs(op, attrs)))
        if amp_state.AMP.level:
            inputs, attrs = autocast_call(op, inputs, attrs)
        out, device, layout = call_kernel(op, inputs, attrs, rec)
        multi = type(out) is tuple
        if multi:
            outs = [new_tensor(a, device, layout) for a in out]
        else:  # the output tensor around the kernel's array, as the generated functions write it
            outs = [Tensor._make(out, _np_dtypes.get(out.dtype) or from_numpy(out.dtype), device, layout)]
        if op.view and outs and getattr(outs[0]._data, "base", None) is not None:
            share_versions(op, inputs[0], outs, attrs)
        # Named before the node saves them (its TensorWrappers keep the names, for error messages); not
        # inside backward, whose tensors no line of the user's assigns.
        if rec is not None and not RUNNING_PASSES:
            name_outputs(outs)
        # require_any_grad: the global grad mode and the inputs' autograd meta; integer and bool
        # outputs are never differentiable.
        if GRAD_MODE.enabled and op.backward is not None and outs[0]._dtype.is_floating and require_any_grad(op, inputs):
            create_grad_node(op, inputs, attrs, outs, rec)
        elif op.dtype_out and GRAD_MODE.enabled and require_any_grad(op, inputs):
            refuse_integral_grad(outs[0])
        if op.output_index is not None:
            mark_multi_output(tuple(outs), view_function_name(op, inputs[0], attrs))
        if rec is not None:
            for t in outs:
                t._announce(rec)
        return tuple(outs) if multi else outs[0]
    except BaseException as exc:
        if rec is not None:
            failed(rec, exc, op.name)
        raise


def failed(rec: Any, exc: BaseException, op_name: str) -> None:
    """An op call failed while recording: the ``error`` event that ends it, or, inside a backward pass,
    the op noted on the exception for the engine's event, which names the node too (NOTE [ One error
    event per failure ] in ``tracing/recorder.py``)."""
    if RUNNING_PASSES:
        if getattr(exc, "_minigrad_op", None) is None:
            try:
                exc._minigrad_op = op_name  # type: ignore[attr-defined]
            except AttributeError:
                pass
        return
    rec.record_error(exc, op=op_name)


def new_tensor(array: Any, device: str, layout: str) -> Tensor:
    """The output tensor holding a kernel's ``array``, of the minigrad dtype of its NumPy dtype."""
    return Tensor._make(array, _np_dtypes.get(array.dtype) or from_numpy(array.dtype), device, layout)


def finish_outputs(op: "OpDef", inputs: list[Any], attrs: dict[str, Any], arrays: tuple[Any, ...], device: str,
                   layout: str) -> tuple[Any, ...]:
    """The tensors of a kernel with several outputs, and their grad node (a generated function's tail)."""
    outs = [new_tensor(a, device, layout) for a in arrays]
    if op.view and getattr(arrays[0], "base", None) is not None:
        share_versions(op, inputs[0], outs, attrs)
    if GRAD_MODE.enabled and op.backward is not None and outs[0]._dtype.is_floating and require_any_grad(op, inputs):
        create_grad_node(op, inputs, attrs, outs)
    if op.output_index is not None:
        mark_multi_output(tuple(outs), view_function_name(op, inputs[0], attrs))
    return tuple(outs)


_np_dtypes = _dt.BY_NUMPY


def share_versions(op: "OpDef", src: Tensor, outs: list[Tensor], attrs: dict[str, Any]) -> None:
    """The outputs of a view op share ``src``'s counter; an op with several (``split``, ``unbind``) gives
    each the ``getitem`` that makes it as its view function (``OpDef.output_index``)."""
    if op.output_index is None:
        for t in outs:
            share_version(src, t, op, attrs)
        return
    getitem = OPS["getitem"]
    for k, t in enumerate(outs):
        make_view(src, t, getitem, {"index": op.output_index(src, attrs, k)})


def share_version(src: Tensor, view: Tensor, op: "OpDef", attrs: dict[str, Any]) -> None:
    """A view shares its input's storage, hence its version counter, and records its base and
    view function (``autograd/views.py``)."""
    make_view(src, view, op, attrs)


def check_inplace_shape(self: Tensor, other: Any, op_name: str) -> None:
    """Refuse an operand that does not broadcast with ``self``, or would grow it by broadcasting, in PyTorch's
    words, before anything runs or is recorded."""
    other_shape = other.shape if isinstance(other, Tensor) else ()
    if other_shape == self.shape or not other_shape:  # the common cases: nothing to broadcast
        return
    mismatch = size_mismatch(self.shape, other_shape)
    if mismatch:
        raise ShapeError(mismatch)
    shape = np.broadcast_shapes(self.shape, other_shape)
    if shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}")


def cast_refusal(result: Any, dtype: Any) -> RuntimeError:
    """PyTorch's refusal of a result of dtype ``result`` written into a tensor (an in-place op's, an ``out=``)
    of ``dtype`` it can't be cast to (``dtypes.can_cast``), the dtypes by their ScalarType names."""
    return RuntimeError(f"result type {scalar_type_name(result)} can't be cast to the desired output type "
                        f"{scalar_type_name(dtype)}")


def _check_inplace_operand(self: Tensor, op_name: str, other: Any) -> None:
    """Refuse, before anything runs or is recorded, an operand whose result can't live in ``self``.

    The out-of-place op would build its grad node (and announce it to the
    trace) before the write-back found that the result has another shape
    or a float dtype; a failed op must leave nothing behind (docs/architecture.md, bad input).
    """
    check_inplace_shape(self, other, op_name)
    if not self._dtype.is_floating:
        if isinstance(other, Tensor) and other._dtype.is_floating:
            result = other._dtype
        elif op_name == "div_" or isinstance(other, float):
            result = float32  # true division and Python floats promote to the default float dtype
        else:
            return
        raise cast_refusal(result, self._dtype)


def run_inplace(self: Tensor, op_name: str, fn: Callable[[], Tensor], other: Any = None,
                operands: tuple[Any, ...] = ()) -> Tensor:
    """An in-place op (``x.add_(y)``, ``x += y``, ``x[i] = v``; docs/architecture.md, Engine rules, rule 8).

    ``fn()`` computes the new values out of place (recording a node as usual);
    this writes them into ``self``'s storage, bumps its version counter and,
    when a node was recorded, moves ``self``'s history to it (``SetHistory``);
    through a view, the base's history is rewritten instead and the views of
    the base regenerated (NOTE [ In-place through a view: the history rewrite ]
    in ``autograd/views.py``). ``operands``: the op's other tensors, for the
    checks. Misuse - a leaf that requires grad, a view of one, a view made
    under ``no_grad``, an int tensor receiving floats - raises before anything changes.
    """
    rec = bus.recorder
    if rec is not None and rec.ranges:  # a profile: PyTorch's range for the in-place op around minigrad's steps
        with scope("minigrad::setitem" if op_name == "setitem" else f"aten::{op_name}"):
            return _run_inplace(self, op_name, fn, other, operands)
    return _run_inplace(self, op_name, fn, other, operands)


def _run_inplace(self: Tensor, op_name: str, fn: Callable[[], Tensor], other: Any,
                 operands: tuple[Any, ...]) -> Tensor:
    try:
        meta = self._meta
        _check_inplace_allowed(self, op_name, other, operands)
        result = fn()
        if result._dtype is not self._dtype and not _dt.can_cast(result._dtype, self._dtype):
            raise cast_refusal(result._dtype, self._dtype)
        node = result._meta.grad_node if result._meta is not None else None
        if node is not None:
            _keep_saved_values(node, self)
        if result._dtype is not self._dtype:
            # ``y_f32 += w_f64`` computes in float64; the tensor keeps its dtype, and recording the
            # cast keeps the graph's dtypes right (the gradient reaching w is float64 again).
            result = OPS["cast"](result, self._dtype)
            node = result._meta.grad_node if result._meta is not None else None
        _write_back(self, op_name, result._data)
        return _take_history(self, meta, op_name, result, node)
    except BaseException as exc:
        if bus.recorder is not None:
            failed(bus.recorder, exc, op_name)
        raise


def _take_history(self: Tensor, meta: Any, op_name: str, result: Tensor, node: GradNode | None) -> Tensor:
    """After an in-place change of ``self`` (its version bumped): ``self`` takes ``result``'s node, or, through a
    view, the base's history is rewritten; the views of ``self`` see the new values."""
    if bus.recorder is not None:
        announce_version(self, op_name)
    if node is not None:
        rebind_saved_result(node, result, self)
        if rewrites_base(self):
            rewrite_history(self, result)
            _regenerate_views_of(self, done=self._view.base)  # a view of a detach(): the other bases' views
        else:
            _move_history(self, meta, result)
            _regenerate_views_of(self)
    else:
        # Changed outside autograd (no_grad): the views get fresh nodes, as PyTorch's on their next use.
        _regenerate_views_of(self)
    if bus.recorder is not None:
        self._announce_update(op_name)
    return self


def adopt_changed_input(self: Tensor, op_name: str, result: Tensor) -> Tensor:
    """A custom Function's input that its ``forward`` changed in place and marked dirty (``ctx.mark_dirty``):
    ``self`` takes the Function's node from ``result`` (its output over the same storage) as an in-place op's
    tensor does - through a view, the base's history is rewritten (``CopySlices``) - and its version moves
    once more, as PyTorch's ``mark_dirty`` moves it. The autograd layer calls it through
    ``autograd.function.ADOPT_CHANGED_INPUT``, set below."""
    if self._vc is None:
        self._vc = VersionCounter()
    self._vc.bump()
    node = result._meta.grad_node if result._meta is not None else None
    return _take_history(self, self._meta, op_name, result, node)


_function.ADOPT_CHANGED_INPUT = adopt_changed_input


def run_inplace_view(self: Tensor, op: "OpDef", args: tuple[Any, ...], undo: tuple["OpDef", dict[str, Any]]) -> Tensor:
    """An in-place view op (``x.squeeze_(0)``, ``x.t_()``): ``self`` takes the shape ``op`` gives it.

    ``op`` makes the view out of place (checked, recorded: its node is the in-place overload's,
    ``SqueezeBackward4``); ``self`` then takes its array and, when a node was recorded, its history,
    and its version moves - as PyTorch's, whose in-place view ops change a tensor's sizes and strides,
    never its elements. A view stays a view of its base, seen through one more view function; the
    views of a base that changed shape see it through ``undo`` (the op's inverse) first.
    """
    try:
        check_view_inplace(self, op.name)
        meta = self._meta
        if GRAD_MODE.enabled and meta is not None and meta.grad_node is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        result = op(self, *args)
        self._data = result._data
        if self._vc is None:
            self._vc = result._vc = VersionCounter()
        self._vc.bump()
        recorded = result._meta is not None and result._meta.grad_node is not None
        if self._view is not None:  # seen through one more view function, its out-of-place twin's (what a
            info = result._view     # replay runs); made as it was; current if its node is the op's
            info.fns = info.fns[:-1] + ((OPS[op.name[:-1]], info.fns[-1][1]),)
            info.creation, info.source = self._view.creation, self._view.source
            info.version = self._vc.value if recorded else self._view.version
            self._view = info
        else:
            for v in live_views(self):
                info = v._view
                if info is not None and info.base is self and v is not result:
                    info.fns = (undo,) + info.fns
        if bus.recorder is not None:
            announce_version(self, op.name)
        if recorded:
            _move_history(self, meta, result)
        # The other views of the storage take their nodes anew (through ``self``'s new node, where they are
        # its views), or are refused if made under no_grad, as after any in-place op; ``self`` keeps the op's
        # node, unless it is such a view itself (changed under no_grad: refused from now on, as PyTorch's).
        # A view whose change recorded nothing is replayed from its base as the others are.
        keeps_node = recorded and (self._view is None or self._view.creation == DEFAULT)
        for b in bases_sharing(self._vc):
            if has_views(b):
                regenerate_views(b, [w for w in live_views(b) if (w is not self or not keeps_node) and w is not result])
        if bus.recorder is not None:
            self._announce_update(op.name)
        return self
    except BaseException as exc:
        if bus.recorder is not None:
            failed(bus.recorder, exc, op.name)
        raise


def _regenerate_views_of(t: Tensor, done: Tensor | None = None) -> None:
    """After ``t`` changed in place: every tensor sharing its storage and counter that views were taken of
    gets them regenerated (``done``: one whose views already were) - ``t`` or its base, the tensor a
    ``detach()`` came from (``d = h.detach(); d[0] = 1`` reaches ``h``'s views), and the other
    ``detach()``es (``d``'s own views take their node from ``d`` once it has a history). PyTorch replays
    each such view on its next use, when its version moved and its base requires grad."""
    for b in bases_sharing(t._vc):
        if b is not done and has_views(b):
            regenerate_views(b)


def _check_inplace_allowed(self: Tensor, op_name: str, other: Any, operands: tuple[Any, ...] = ()) -> None:
    """PyTorch's refusals: overlapping elements, a view it can't rewrite through (``views.check_inplace``),
    a leaf that requires grad."""
    check_inplace(self, op_name, (other,) + operands)
    meta = self._meta
    if GRAD_MODE.enabled and meta is not None and meta.grad_node is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if op_name in ("add_", "sub_", "mul_", "div_"):
        _check_inplace_operand(self, op_name, other)


def _keep_saved_values(node: GradNode, self: Tensor) -> None:
    """The new node saved the pre-change values of ``self`` (PyTorch's original_self): give those
    wrappers a private copy, since the storage is about to change. A new wrapper, not an edited
    one: wrappers may be shared (NOTE [ One wrapper per saved leaf ] in autograd/tensor_wrapper.py).

    Only the wrapper of input 0 (``self``) is the original self: another saved input that aliases
    the storage (``x.detach().div_(x)``, ``y.mul_(y)``) was modified by this op, and backward must
    refuse it by its version, as PyTorch does.
    """
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


def _write_back(self: Tensor, op_name: str, new_values: Any) -> None:
    """Write ``new_values`` into ``self``'s storage and bump its version counter."""
    if BEFORE_INPLACE_WRITE:  # (allow_mutation_on_saved_tensors: the saved values cloned first)
        for before in list(BEFORE_INPLACE_WRITE):  # (a watcher may leave the list)
            before(self)
    if isinstance(self._data, np.generic):
        # A NumPy scalar (a 0-d kernel result) is immutable and shares no memory with
        # any other tensor: give the tensor a writable 0-d array of the same value.
        self._data = np.array(self._data)
    try:
        if self._data.size == 0:
            pass  # nothing to write (an empty expand() view is read-only in NumPy, not in PyTorch)
        elif type(self._data) is np.ndarray:
            self._data[...] = new_values
        else:  # a device array, 0-d too (a running total, a step count): its backend's own copy where it has
            # one (the GPU's: no kernel, no setitem path, and no read of the value back to the host)
            copy_into = backend_of_device(self._device).copy_into
            if copy_into is None or not copy_into(self._data, new_values):
                self._data[...] = new_values
    except ValueError as exc:
        raise RuntimeError(f"{op_name}(): cannot write into this tensor in place ({exc})") from None
    if self._vc is None:
        self._vc = VersionCounter()
    self._vc.bump()


def run_to_device(op: "OpDef", x: Tensor, device: str, non_blocking: bool = False) -> Tensor:
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
    data = move_array(x._data, x._device, device, non_blocking)
    emit_transform(op.name, "x", "backend", src_backend, dst_backend)
    out = Tensor._make(data, x._dtype, device, x._layout)
    if rec is not None and not RUNNING_PASSES:
        name_outputs((out,))
    if GRAD_MODE.enabled and x._meta is not None:
        create_grad_node(op, [x], {"device": device}, [out], rec)
        out._meta.grad_node.extra = x._device  # type: ignore[union-attr]
    if rec is not None:
        out._announce()
    return out
