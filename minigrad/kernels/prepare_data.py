"""PrepareData: transform each input to the kernel's argument def (Paddle's ``PrepareData``, paddle/phi/api/lib/data_transform.cc).

For every input tensor the kernel layer compares the tensor's backend,
layout and dtype with what the kernel declared for that argument
(``Kernel.arg_def(i)``) and transforms it when they differ:

- **layout** (``TransDataLayout``): NCHW <-> NHWC, for 4-D tensors, when
  the kernel is registered for a specific layout;
- **dtype** (``TransDataType``): only when the op's transform flag asks
  (``OpDef.transform_dtype``; off by default, as in Paddle), and only for
  inputs that take part in promotion;
- **backend** (``TransDataPlace``): moved to the kernel's device, unless the
  argument is declared ``ALL_BACKEND``.

Each transform emits ``data.transform``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..devices import constant_array
from ..tracing import bus
from ..tracing.events import DataTransform
from .backends import backend_of_device, base_backend, device_of_backend, move_array
from .key import Backend, KernelKey, Layout

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef
    from .registry import Kernel

__all__ = ["prepare_data", "emit_transform", "transform_layout"]

#: NCHW -> NHWC and back, as axis permutations.
_PERM = {(Layout.NCHW, Layout.NHWC): (0, 2, 3, 1), (Layout.NHWC, Layout.NCHW): (0, 3, 1, 2)}


def emit_transform(op: str, arg: str, what: str, src: str, dst: str) -> None:
    """Emit ``data.transform`` if a recorder is active."""
    rec = bus.recorder
    if rec is not None:
        rec.emit(DataTransform(op=op, arg=arg, what=what, from_=src, to=dst))


def transform_layout(array: Any, src: str, dst: str) -> Any:
    """Transpose a 4-D array between NCHW and NHWC (contiguous result)."""
    perm = _PERM.get((src, dst))
    if perm is None or array.ndim != 4:
        return array
    xp_copy = array.transpose(perm)
    return xp_copy.copy()


def prepare_data(op: "OpDef", kernel: "Kernel", inputs: list[Any], key: KernelKey) -> list[Any]:
    """The arrays the kernel receives, one per input (lists stay lists, ``None`` stays)."""
    kernel_backend = kernel.key.backend
    kernel_layout = kernel.key.layout
    kernel_dtype = kernel.key.dtype
    kernel_device = device_of_backend(kernel_backend)
    key_inputs = op.key_inputs
    out: list[Any] = []
    for i, v in enumerate(inputs):
        if v is None:
            out.append(None)
            continue
        spec_name = op.inputs[i].name
        if isinstance(v, list):
            out.append([_prepare_one(op, kernel, i, f"{spec_name}[{j}]", t, kernel_device, kernel_layout,
                                     kernel_dtype if i in key_inputs else None) for j, t in enumerate(v)])
            continue
        # Fast path: nothing to transform (the common case).
        if (
            v._device == kernel_device
            and (kernel_layout == Layout.ALL_LAYOUT or v._layout == kernel_layout or v._data.ndim != 4)
            and (v._dtype is kernel_dtype or not op.transform_dtype or i not in key_inputs)
            and not kernel.arg_overrides
        ):
            out.append(v._data)
            continue
        out.append(_prepare_one(op, kernel, i, spec_name, v, kernel_device, kernel_layout,
                                kernel_dtype if i in key_inputs else None))
    return out


def _prepare_one(
    op: "OpDef",
    kernel: "Kernel",
    index: int,
    arg: str,
    t: Any,
    kernel_device: str,
    kernel_layout: str,
    kernel_dtype: Any,
) -> Any:
    arg_def = kernel.arg_def(index)
    data = t._data
    layout = arg_def.layout
    if layout != Layout.ALL_LAYOUT and t._layout != layout and data.ndim == 4:
        data = transform_layout(data, t._layout, layout)
        emit_transform(op.name, arg, "layout", t._layout, layout)
    # ``kernel_dtype`` is None for inputs outside the promotion; an arg def
    # whose dtype is None accepts any dtype (neither is ever cast).
    want_dtype = arg_def.dtype
    if op.transform_dtype and kernel_dtype is not None and want_dtype is not None and t._dtype is not want_dtype:
        data = data.astype(want_dtype.np)
        emit_transform(op.name, arg, "dtype", t._dtype.name, want_dtype.name)
    if arg_def.backend != Backend.ALL_BACKEND:
        dst_device = device_of_backend(arg_def.backend)
        if t._device != dst_device:
            if data.ndim == 0 and t._device == "cpu" and _takes_numbers(op):
                data = constant_array(np.asarray(data), dst_device)  # NOTE [ A CPU scalar is a number ]
            else:
                data = move_array(data, t._device, dst_device)
            emit_transform(op.name, arg, "backend", backend_of_device(t._device).name, base_backend(arg_def.backend))
    return data


# NOTE [ A CPU scalar is a number ]
# PyTorch lets a 0-d CPU tensor meet a GPU tensor in an elementwise op (``x / torch.tensor(3.0)``) and reads
# its value on the host (``TensorIterator::is_cpu_scalar``): the value reaches the kernel as an argument, no
# copy, no wait. minigrad did move it to the device, a host -> device copy (and a sync) every call. An
# elementwise binary or comparison op now takes it as it takes a Python number: the backend's kept constant
# of that value (``constant_array``: on the GPU filled once by a kernel, then reused), which the kernel reads
# by value (``_scalar0``/``_scalar1``). Only those ops: they never return a view of an input, so the kept
# constant can never become a tensor a program writes to.


def _takes_numbers(op: "OpDef") -> bool:
    """Whether ``op``'s GPU kernel is an elementwise binary op or comparison (one that takes a number operand
    by value)."""
    kind = op.gpu_elementwise
    return kind is not None and kind[0] in ("binary", "compare")
