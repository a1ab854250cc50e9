"""Moving tensors between devices (``Tensor.to``), differentiably.

The copy is not a kernel of one backend - it spans two - so it bypasses the
kernel layer: the dispatch layer's ``run_to_device`` moves the array with the
backends' movers (``TransDataPlace``) and, when needed, records a
``ToCopyBackward0``, whose backward (below) moves the gradient back.
"""

from __future__ import annotations

from typing import Any

from ..dispatch.dygraph import run_to_device
from ..autograd.formula import GRAPH_OPS
from .registry import Attr, defop

__all__: list[str] = []  # Tensor.to() is the public spelling; to_device is imported by name

_to_device = defop(
    "to_device",
    inputs=("x",),
    attrs=(Attr("device"),),
    infer_meta=None,
    doc="copy to another device",
)


@_to_device.def_backward
def _to_device_backward(ctx, g):
    return (ctx.ops.to_device(g, ctx.extra),)


def to_device(x: Any, device: str, non_blocking: bool = False) -> Any:
    """``x`` copied to ``device``; gradients flow back to ``x``'s device. ``non_blocking`` from pinned
    memory: a copy the host does not wait for (``devices.move_array``)."""
    return run_to_device(_to_device, x, device, non_blocking)


# ``ctx.ops.to_device`` is this function: the op has no kernel, so its formula runs in graph
# mode only (NOTE [ One formula, two modes ] in autograd/formula.py).
GRAPH_OPS.define("to_device", to_device)
