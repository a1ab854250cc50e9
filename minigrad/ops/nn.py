"""Neural-network ops: softmax, log_softmax, cross_entropy, mse_loss, conv2d and max_pool2d (NCHW).

conv2d's backward uses two more ops, ``conv2d_input_grad`` and
``conv2d_weight_grad``; the three are each other's derivatives, so
convolutions are differentiable to any order. max_pool2d likewise pairs with
``max_pool2d_grad`` (scatter to the argmax) and ``max_pool2d_select``
(gather at the argmax).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..kernels import infer_meta as im
from ._checks import check_int, check_nonneg_pair, check_positive_pair, check_reduction, check_shape
from .math import exp, mul, sub
from .reduce import sum as _sum
from .registry import Attr, Input, defop

__all__ = [
    "softmax", "log_softmax", "cross_entropy", "mse_loss", "conv2d", "conv2d_input_grad", "conv2d_weight_grad",
    "max_pool2d", "max_pool2d_grad", "max_pool2d_select",
]

softmax = defop("softmax", inputs=("x",), attrs=(Attr("dim", -1, check_int),), infer_meta=im.softmax, save=("out",))


@softmax.def_backward
def _softmax_backward(ctx, g):
    (y,) = ctx.saved()
    dim = ctx.attrs["dim"]
    return (mul(y, sub(g, _sum(mul(g, y), dim=dim, keepdim=True))),)


log_softmax = defop("log_softmax", inputs=("x",), attrs=(Attr("dim", -1, check_int),), infer_meta=im.softmax, save=("out",))


@log_softmax.def_backward
def _log_softmax_backward(ctx, g):
    (y,) = ctx.saved()
    dim = ctx.attrs["dim"]
    return (sub(g, mul(exp(y), _sum(g, dim=dim, keepdim=True))),)


cross_entropy = defop(
    "cross_entropy",
    inputs=("input", Input("target", differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=im.cross_entropy,
    save=("input", "target"),
    key_inputs=(0,),
    doc="softmax cross-entropy of logits (N, C) against class indices (N,)",
)


@cross_entropy.def_backward
def _cross_entropy_backward(ctx, g):
    from ..tensor import Tensor
    from .shape import unsqueeze

    x, target = ctx.saved()
    n, c = x.shape
    onehot = np.zeros((n, c), dtype=x.dtype.np)
    t = target.numpy()
    onehot[np.arange(n), t] = 1
    onehot_t = Tensor._make(onehot if x.device == "cpu" else _to(onehot, x.device), x.dtype, x.device)
    p = softmax(x, dim=1)
    diff = sub(p, onehot_t)
    reduction = ctx.attrs["reduction"]
    if reduction == "none":
        return mul(diff, unsqueeze(g, 1)), None
    scale = mul(g, 1.0 / n) if reduction == "mean" and n else g
    return mul(diff, scale), None


def _to(arr: Any, device: str) -> Any:
    from ..kernels.backends import move_array

    return move_array(arr, "cpu", device)


mse_loss = defop(
    "mse_loss",
    inputs=("input", "target"),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=im.loss_pair,
    save=("input", "target"),
    doc="mean squared error",
)


@mse_loss.def_backward
def _mse_backward(ctx, g):
    x, t = ctx.saved()
    diff = sub(x, t)
    reduction = ctx.attrs["reduction"]
    scale = 2.0 / diff.numel() if reduction == "mean" and diff.numel() else 2.0
    gd = mul(mul(diff, g), scale)
    return (gd if ctx.needs(0) else None, mul(gd, -1) if ctx.needs(1) else None)


# -- convolution ----------------------------------------------------------------

_CONV_ATTRS = (Attr("stride", (1, 1), check_positive_pair), Attr("padding", (0, 0), check_nonneg_pair))

conv2d = defop(
    "conv2d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_CONV_ATTRS,
    infer_meta=im.conv2d,
    save=("x", "weight"),
    doc="2-D convolution (cross-correlation), NCHW input, OIHW weight",
)


@conv2d.def_backward
def _conv2d_backward(ctx, g):
    x, w = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    gx = conv2d_input_grad(g, w, x.shape, stride, padding) if ctx.needs(0) else None
    gw = conv2d_weight_grad(x, g, w.shape, stride, padding) if ctx.needs(1) else None
    gb = _sum(g, dim=(0, 2, 3)) if ctx.needs(2) else None
    return gx, gw, gb


def _input_grad_meta(op: str, grad: Any, weight: Any, x_shape: tuple[int, ...], stride: Any = (1, 1), padding: Any = (0, 0)) -> Any:
    return tuple(x_shape), grad.dtype


def _weight_grad_meta(op: str, x: Any, grad: Any, w_shape: tuple[int, ...], stride: Any = (1, 1), padding: Any = (0, 0)) -> Any:
    return tuple(w_shape), x.dtype


conv2d_input_grad = defop(
    "conv2d_input_grad",
    inputs=("grad", "weight"),
    attrs=(Attr("x_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=_input_grad_meta,
    save=("grad", "weight"),
    doc="gradient of conv2d w.r.t. its input (a transposed convolution)",
)


@conv2d_input_grad.def_backward
def _conv2d_input_grad_backward(ctx, h):
    g, w = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    return (
        conv2d(h, w, None, stride, padding) if ctx.needs(0) else None,
        conv2d_weight_grad(h, g, w.shape, stride, padding) if ctx.needs(1) else None,
    )


conv2d_weight_grad = defop(
    "conv2d_weight_grad",
    inputs=("x", "grad"),
    attrs=(Attr("w_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=_weight_grad_meta,
    save=("x", "grad"),
    doc="gradient of conv2d w.r.t. its weight",
)


@conv2d_weight_grad.def_backward
def _conv2d_weight_grad_backward(ctx, k):
    x, g = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    return (
        conv2d_input_grad(g, k, x.shape, stride, padding) if ctx.needs(0) else None,
        conv2d(x, k, None, stride, padding) if ctx.needs(1) else None,
    )


# -- max pooling ---------------------------------------------------------------------

def _pool_meta(op: str, x: Any, kernel_size: Any, stride: Any, padding: Any) -> Any:
    return im.pool2d(op, x, kernel_size, stride, padding)


_max_pool2d = defop(
    "max_pool2d",
    inputs=("x",),
    attrs=(Attr("kernel_size", check=check_positive_pair), Attr("stride", check=check_positive_pair),
           Attr("padding", (0, 0), check_nonneg_pair)),
    infer_meta=_pool_meta,
    save=("x",),
    doc="2-D max pooling over kernel_size windows (NCHW)",
)


def max_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> Any:
    """2-D max pooling (NCHW); ``stride`` defaults to ``kernel_size``."""
    return _max_pool2d(x, kernel_size, kernel_size if stride is None else stride, padding)


max_pool2d.op = _max_pool2d  # type: ignore[attr-defined]


@_max_pool2d.def_backward
def _max_pool2d_backward(ctx, g):
    (x,) = ctx.saved()
    a = ctx.attrs
    return (max_pool2d_grad(g, x.detach(), a["kernel_size"], a["stride"], a["padding"]),)


def _pool_grad_meta(op: str, grad: Any, x: Any, kernel_size: Any, stride: Any, padding: Any) -> Any:
    return tuple(x.shape), grad.dtype


def _pool_select_meta(op: str, grad_x: Any, x: Any, kernel_size: Any, stride: Any, padding: Any) -> Any:
    return im.pool2d(op, x, kernel_size, stride, padding)[0], grad_x.dtype


_POOL_GRAD_ATTRS = (
    Attr("kernel_size", check=check_positive_pair),
    Attr("stride", check=check_positive_pair),
    Attr("padding", (0, 0), check_nonneg_pair),
)

max_pool2d_grad = defop(
    "max_pool2d_grad",
    inputs=("grad", Input("x", differentiable=False)),
    attrs=_POOL_GRAD_ATTRS,
    infer_meta=_pool_grad_meta,
    save=("x",),
    key_inputs=(0,),
    doc="scatter each window's gradient to its argmax (the backward of max_pool2d)",
)


@max_pool2d_grad.def_backward
def _max_pool2d_grad_backward(ctx, h):
    (x,) = ctx.saved()
    a = ctx.attrs
    return (max_pool2d_select(h, x, a["kernel_size"], a["stride"], a["padding"]), None)


max_pool2d_select = defop(
    "max_pool2d_select",
    inputs=("grad_x", Input("x", differentiable=False)),
    attrs=_POOL_GRAD_ATTRS,
    infer_meta=_pool_select_meta,
    save=("x",),
    key_inputs=(0,),
    doc="gather grad_x at each window's argmax (the adjoint of max_pool2d_grad)",
)


@max_pool2d_select.def_backward
def _max_pool2d_select_backward(ctx, h):
    (x,) = ctx.saved()
    a = ctx.attrs
    return (max_pool2d_grad(h, x, a["kernel_size"], a["stride"], a["padding"]), None)
