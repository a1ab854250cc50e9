"""Moving tensors between devices (``Tensor.to``), differentiably.

The copy is not a kernel of one backend - it spans two - so it bypasses the
kernel layer: the array is moved with the backends' movers (``TransDataPlace``)
and, when needed, a ``ToDeviceGradNode`` is recorded whose backward moves the
gradient back.
"""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import GRAD_MODE
from ..kernels.backends import backend_of_device, move_array
from ..kernels.prepare_data import emit_transform
from ..tracing import bus
from ..tracing.events import ApiCall
from .registry import Attr, defop

__all__ = ["to_device"]

_to_device = defop("to_device", inputs=("x",), attrs=(Attr("device"),), infer_meta=None, doc="copy to another device")


@_to_device.def_backward
def _to_device_backward(ctx, g):
    src = ctx.node.extra
    return (to_device(g, src),)


def to_device(x: Any, device: str) -> Any:
    """``x`` copied to ``device``; gradients flow back to ``x``'s device."""
    from ..autograd.dygraph import _create_grad_node
    from ..tensor import Tensor

    rec = bus.recorder
    if rec is not None:
        rec.emit(ApiCall(op="to_device", inputs=[x._id], attrs={"device": device}))
    src_backend = backend_of_device(x._device).name
    dst_backend = backend_of_device(device).name
    data = move_array(x._data, x._device, device)
    emit_transform("to_device", "x", "backend", src_backend, dst_backend)
    out = Tensor._make(data, x._dtype, device, x._layout)
    if GRAD_MODE.enabled and x._meta is not None:
        _create_grad_node(_to_device, [x], {"device": device}, [out])
        out._meta.grad_node.extra = x._device  # type: ignore[union-attr]
    if rec is not None:
        out._announce()
    return out
