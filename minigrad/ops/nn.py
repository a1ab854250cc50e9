"""Neural-network ops: softmax, log_softmax, cross_entropy, mse_loss, conv2d and max_pool2d (NCHW).

conv2d's backward uses two more ops, ``conv2d_input_grad`` and
``conv2d_weight_grad``; the three are each other's derivatives, so
convolutions are differentiable to any order. max_pool2d likewise pairs with
``max_pool2d_grad`` (scatter to the argmax) and ``max_pool2d_select``
(gather at the argmax).

cross_entropy's backward is an op of its own, ``cross_entropy_backward``
(``(softmax(x) - onehot) * grad``, scaled by the reduction, in one kernel) with
its own formula, as PyTorch's fused loss backward is; every formula computes
with ``ctx.ops`` (NOTE [ One formula, two modes ] in ``autograd/formula.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import ShapeError
from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend, Layout
from ..kernels.registry import register_kernel
from ..kernels.special import row_max
from ._checks import check_int, check_nonneg_pair, check_positive_pair, check_reduction, check_shape
from .registry import Attr, Input, defop

__all__ = [
    "softmax", "log_softmax", "cross_entropy", "cross_entropy_backward", "mse_loss", "conv2d", "conv2d_input_grad", "conv2d_weight_grad",
    "max_pool2d", "max_pool2d_grad", "max_pool2d_select",
]


CPU = Backend.CPU


def _windows(x, kh, kw, stride, padding):
    """(N, C, OH, OW, kh, kw) windows of the zero-padded input."""
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = sliding_window_view(x, (kh, kw), axis=(2, 3))
    return win[:, :, :: stride[0], :: stride[1]]


def _pool_argmax(x, kernel_size, stride, padding):
    """Flat indices (into the padded H*W plane) of each window's maximum, and the padded shape."""
    kh, kw = kernel_size
    ph, pw = padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf) if (ph or pw) else x
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, :: stride[0], :: stride[1]]
    n, c, oh, ow = win.shape[:4]
    arg = win.reshape(n, c, oh, ow, kh * kw).argmax(axis=-1)
    di, dj = np.divmod(arg, kw)
    rows = np.arange(oh).reshape(1, 1, oh, 1) * stride[0] + di
    cols = np.arange(ow).reshape(1, 1, 1, ow) * stride[1] + dj
    return rows * xp.shape[3] + cols, xp.shape


@register_kernel("softmax", CPU, dtypes=FLOAT_DTYPES, name="cpu/softmax")
def softmax_cpu(x, dim=-1):
    if x.size == 0:  # an empty axis (or any zero-size input): nothing to normalise, and np.max has no identity
        return np.empty_like(x)
    e = np.exp(x - row_max(x, dim))
    return np.asarray(e / np.sum(e, axis=dim, keepdims=True), dtype=x.dtype)


softmax = defop(
    "softmax",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int),),
    infer_meta=im.softmax,
    save=("out",),
    methods=("softmax",),
    amp="deny",
)


@softmax.def_backward
def _softmax_backward(ctx, g):
    (y,) = ctx.saved()
    ops = ctx.ops
    dim = ctx.attrs["dim"]
    return (ops.mul(y, ops.sub(g, ops.sum(ops.mul(g, y), dim=dim, keepdim=True))),)


@register_kernel("log_softmax", CPU, dtypes=FLOAT_DTYPES, name="cpu/log_softmax")
def log_softmax_cpu(x, dim=-1):
    if x.size == 0:
        return np.empty_like(x)
    z = x - row_max(x, dim)
    return np.asarray(z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True)), dtype=x.dtype)


log_softmax = defop(
    "log_softmax",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int),),
    infer_meta=im.softmax,
    save=("out",),
    methods=("log_softmax",),
    amp="deny",
)


@log_softmax.def_backward
def _log_softmax_backward(ctx, g):
    """PyTorch's ``_log_softmax_backward_data``: ``g - exp(out) * sum(g)``."""
    (y,) = ctx.saved()
    ops = ctx.ops
    dim = ctx.attrs["dim"]
    return (ops.sub(g, ops.mul(ops.exp(y), ops.sum(g, dim=dim, keepdim=True))),)


@register_kernel("cross_entropy", CPU, dtypes=FLOAT_DTYPES, name="cpu/cross_entropy")
def cross_entropy_cpu(input, target, reduction="mean"):
    n, c = input.shape
    if n and (target.min() < 0 or target.max() >= c):
        raise ShapeError(f"cross_entropy(): target values must be class indices in [0, {c - 1}], got {target.min()}..{target.max()}")
    if n == 0:  # (a target into zero classes was refused above)
        nll = np.zeros((0,), dtype=input.dtype)
    else:
        # -log_softmax(input)[i, target[i]] = log(sum(exp(z_i))) - z_i[target[i]], z = input - rowmax,
        # computed for the picked entries only (the same operations, so the same bits, as
        # indexing the whole log_softmax).
        e = np.subtract(input, row_max(input, 1))
        picked = e[np.arange(n), target]
        np.exp(e, out=e)
        nll = -(picked - np.log(e.sum(axis=1)))
    if reduction == "none":
        return nll.astype(input.dtype, copy=False)
    out = nll.sum() if reduction == "sum" else nll.sum() / nll.size  # sum/size: no NumPy warning when empty
    return np.asarray(out, dtype=input.dtype)


cross_entropy = defop(
    "cross_entropy",
    inputs=("input", Input("target", differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=im.cross_entropy,
    save=("input", "target"),
    key_inputs=(0,),
    doc="softmax cross-entropy of logits (N, C) against class indices (N,)",
    amp="deny",
)


@cross_entropy.def_backward
def _cross_entropy_backward(ctx, g):
    x, target = ctx.saved()
    return ctx.ops.cross_entropy_backward(g, x, target, ctx.attrs["reduction"]), None


@register_kernel("cross_entropy_backward", CPU, dtypes=FLOAT_DTYPES, name="cpu/cross_entropy_backward")
def cross_entropy_backward_cpu(grad, input, target, reduction="mean"):
    n, c = input.shape
    diff = softmax_cpu(input, dim=1)
    diff[np.arange(n), target] -= 1  # softmax - onehot, subtracting only where the one is
    if reduction == "none":
        return np.multiply(diff, np.expand_dims(grad, 1))
    scale = np.multiply(grad, np.asarray(1.0 / n, dtype=grad.dtype)) if reduction == "mean" and n else grad
    return np.multiply(diff, scale)


def _cross_entropy_backward_meta(op: str, grad: Any, input: Any, target: Any, reduction: str = "mean") -> Any:
    return tuple(input.shape), input.dtype


cross_entropy_backward = defop(
    "cross_entropy_backward",
    inputs=("grad", "input", Input("target", differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=_cross_entropy_backward_meta,
    save=("grad", "input", "target"),
    key_inputs=(0, 1),
    doc="cross_entropy's gradient w.r.t. its logits: (softmax(input) - onehot(target)) * grad, scaled by the reduction",
    amp="deny",
)


@cross_entropy_backward.def_backward
def _cross_entropy_backward_backward(ctx, h):
    """out = (softmax(x) - onehot) * s(grad): linear in grad; softmax's backward for x."""
    g, x, target = ctx.saved()
    ops = ctx.ops
    reduction = ctx.attrs["reduction"]
    n = x.shape[0]
    gg = gx = None
    if ctx.needs(0):
        diff = ops.cross_entropy_backward(ops.fill(g, 1), x, target, reduction)  # d out / d grad
        prod = ops.mul(diff, h)
        gg = ops.sum(prod, dim=1) if reduction == "none" else ops.sum(prod)
    if ctx.needs(1):
        if reduction == "none":
            scale = ops.unsqueeze(g, 1)
        else:
            scale = ops.mul(g, 1.0 / n) if reduction == "mean" and n else g
        u = ops.mul(h, scale)
        p = ops.softmax(x, 1)
        gx = ops.mul(p, ops.sub(u, ops.sum(ops.mul(u, p), dim=1, keepdim=True)))
    return gg, gx, None


@register_kernel("mse_loss", CPU, dtypes=FLOAT_DTYPES, name="cpu/mse_loss")
def mse_loss_cpu(input, target, reduction="mean"):
    sq = np.asarray((input - target) ** 2)
    if reduction == "none":
        return sq
    return np.asarray(sq.sum() if reduction == "sum" else sq.sum() / sq.size, dtype=input.dtype)


mse_loss = defop(
    "mse_loss",
    inputs=("input", "target"),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=im.loss_pair,
    save=("input", "target"),
    doc="mean squared error",
    amp="deny",
)


@mse_loss.def_backward
def _mse_backward(ctx, g):
    x, t = ctx.saved()
    ops = ctx.ops
    diff = ops.sub(x, t)
    size = 1
    for d in diff.shape:
        size *= d
    scale = 2.0 / size if ctx.attrs["reduction"] == "mean" and size else 2.0
    gd = ops.mul(ops.mul(diff, g), scale)
    return (gd if ctx.needs(0) else None, ops.mul(gd, -1) if ctx.needs(1) else None)


# -- convolution ----------------------------------------------------------------

_CONV_ATTRS = (Attr("stride", (1, 1), check_positive_pair), Attr("padding", (0, 0), check_nonneg_pair))

@register_kernel("conv2d", CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="cpu/conv2d")
def conv2d_cpu(x, weight, bias=None, stride=(1, 1), padding=(0, 0)):
    _, _, kh, kw = weight.shape
    win = _windows(x, kh, kw, stride, padding)
    out = np.tensordot(win, weight, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, O
    out = out.transpose(0, 3, 1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return np.ascontiguousarray(out, dtype=x.dtype)


# NOTE [ Two layouts of one op ]
#     conv2d has two CPU kernels: the NCHW one above and this one, registered
#     for Layout.NHWC ("channels last", the layout cuDNN's tensor cores prefer).
#     The KernelKey's layout - the input tensor's layout - decides: an NHWC
#     input probes (CPU, NHWC) and gets this kernel; its OIHW weight (tagged
#     NCHW) is transposed by PrepareData to OHWI, the "KRSC" filter layout of
#     NHWC convolutions, and a data.transform event says so. The same function
#     can serve a backend whose conv2d is NHWC-only, declaring its arguments and
#     outputs NHWC while serving NCHW keys (register_kernel's arg_overrides and
#     out_layout); see tests/test_prepare_data.py.
@register_kernel("conv2d", Backend.CPU, layout=Layout.NHWC, dtypes=FLOAT_DTYPES, name="cpu/conv2d_nhwc")
def conv2d_nhwc(x, weight, bias=None, stride=(1, 1), padding=(0, 0)):
    """Cross-correlation of ``x`` (N, H, W, C) with ``weight`` (O, kH, kW, C) -> (N, OH, OW, O)."""
    _, kh, kw, _ = weight.shape
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    # (N, OH', OW', C, kh, kw) windows, then the strided ones.
    win = sliding_window_view(x, (kh, kw), axis=(1, 2))[:, :: stride[0], :: stride[1]]
    # Contract C, kh, kw: channels stay last, as the layout promises.
    out = np.tensordot(win, weight, axes=([3, 4, 5], [3, 1, 2]))  # N, OH, OW, O
    if bias is not None:
        out = out + bias
    return np.ascontiguousarray(out, dtype=x.dtype)


conv2d = defop(
    "conv2d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_CONV_ATTRS,
    infer_meta=im.conv2d,
    save=("x", "weight"),
    doc="2-D convolution (cross-correlation), NCHW input, OIHW weight",
    amp="allow",
)


@conv2d.def_backward
def _conv2d_backward(ctx, g):
    x, w = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    ops = ctx.ops
    gx = ops.conv2d_input_grad(g, w, x.shape, stride, padding) if ctx.needs(0) else None
    gw = ops.conv2d_weight_grad(x, g, w.shape, stride, padding) if ctx.needs(1) else None
    gb = ops.sum(g, dim=(0, 2, 3)) if ctx.needs(2) else None
    return gx, gw, gb


def _input_grad_meta(op: str, grad: Any, weight: Any, x_shape: tuple[int, ...], stride: Any = (1, 1), padding: Any = (0, 0)) -> Any:
    return tuple(x_shape), grad.dtype


def _weight_grad_meta(op: str, x: Any, grad: Any, w_shape: tuple[int, ...], stride: Any = (1, 1), padding: Any = (0, 0)) -> Any:
    return tuple(w_shape), x.dtype


@register_kernel("conv2d_input_grad", CPU, dtypes=FLOAT_DTYPES, name="cpu/conv2d_input_grad")
def conv2d_input_grad_cpu(grad, weight, x_shape, stride=(1, 1), padding=(0, 0)):
    n, c, h, w = x_shape
    _, _, kh, kw = weight.shape
    ph, pw = padding
    _, _, oh, ow = grad.shape
    cols = np.tensordot(grad, weight, axes=([1], [0]))  # N, OH, OW, C, kh, kw
    dxp = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=grad.dtype)
    sh, sw = stride
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i : i + sh * oh : sh, j : j + sw * ow : sw] += cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(dxp[:, :, ph : ph + h, pw : pw + w])


conv2d_input_grad = defop(
    "conv2d_input_grad",
    inputs=("grad", "weight"),
    attrs=(Attr("x_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=_input_grad_meta,
    save=("grad", "weight"),
    doc="gradient of conv2d w.r.t. its input (a transposed convolution)",
    amp="allow",
)


@conv2d_input_grad.def_backward
def _conv2d_input_grad_backward(ctx, h):
    g, w = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    ops = ctx.ops
    return (
        ops.conv2d(h, w, None, stride, padding) if ctx.needs(0) else None,
        ops.conv2d_weight_grad(h, g, w.shape, stride, padding) if ctx.needs(1) else None,
    )


@register_kernel("conv2d_weight_grad", CPU, dtypes=FLOAT_DTYPES, name="cpu/conv2d_weight_grad")
def conv2d_weight_grad_cpu(x, grad, w_shape, stride=(1, 1), padding=(0, 0)):
    _, _, kh, kw = w_shape
    win = _windows(x, kh, kw, stride, padding)  # N, C, OH, OW, kh, kw
    dw = np.tensordot(grad, win, axes=([0, 2, 3], [0, 2, 3]))  # O, C, kh, kw
    return np.ascontiguousarray(dw, dtype=x.dtype)


conv2d_weight_grad = defop(
    "conv2d_weight_grad",
    inputs=("x", "grad"),
    attrs=(Attr("w_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=_weight_grad_meta,
    save=("x", "grad"),
    doc="gradient of conv2d w.r.t. its weight",
    amp="allow",
)


@conv2d_weight_grad.def_backward
def _conv2d_weight_grad_backward(ctx, k):
    x, g = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    ops = ctx.ops
    return (
        ops.conv2d_input_grad(g, k, x.shape, stride, padding) if ctx.needs(0) else None,
        ops.conv2d(x, k, None, stride, padding) if ctx.needs(1) else None,
    )


# -- max pooling ---------------------------------------------------------------------

def _pool_meta(op: str, x: Any, kernel_size: Any, stride: Any, padding: Any) -> Any:
    return im.pool2d(op, x, kernel_size, stride, padding)


@register_kernel("max_pool2d", CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="cpu/max_pool2d")
def max_pool2d_cpu(x, kernel_size, stride, padding):
    flat, padded = _pool_argmax(x, kernel_size, stride, padding)
    ph, pw = padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf) if (ph or pw) else x
    n, c = x.shape[:2]
    out = np.take_along_axis(xp.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2)
    return out.reshape(flat.shape).astype(x.dtype, copy=False)


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
    return (ctx.ops.max_pool2d_grad(g, x, a["kernel_size"], a["stride"], a["padding"]),)


def _pool_grad_meta(op: str, grad: Any, x: Any, kernel_size: Any, stride: Any, padding: Any) -> Any:
    return tuple(x.shape), grad.dtype


def _pool_select_meta(op: str, grad_x: Any, x: Any, kernel_size: Any, stride: Any, padding: Any) -> Any:
    return im.pool2d(op, x, kernel_size, stride, padding)[0], grad_x.dtype


_POOL_GRAD_ATTRS = (
    Attr("kernel_size", check=check_positive_pair),
    Attr("stride", check=check_positive_pair),
    Attr("padding", (0, 0), check_nonneg_pair),
)

@register_kernel("max_pool2d_grad", CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool2d_grad")
def max_pool2d_grad_cpu(grad, x, kernel_size, stride, padding):
    flat, padded = _pool_argmax(x, kernel_size, stride, padding)
    n, c, h, w = x.shape
    ph, pw = padding
    dxp = np.zeros((n, c, padded[2] * padded[3]), dtype=grad.dtype)
    # Windows may overlap: accumulate every window's gradient at its argmax.
    idx_n = np.arange(n).reshape(n, 1, 1)
    idx_c = np.arange(c).reshape(1, c, 1)
    np.add.at(dxp, (idx_n, idx_c, flat.reshape(n, c, -1)), grad.reshape(n, c, -1))
    dxp = dxp.reshape(n, c, padded[2], padded[3])
    return np.ascontiguousarray(dxp[:, :, ph : ph + h, pw : pw + w])


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
    return (ctx.ops.max_pool2d_select(h, x, a["kernel_size"], a["stride"], a["padding"]), None)


@register_kernel("max_pool2d_select", CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool2d_select")
def max_pool2d_select_cpu(grad_x, x, kernel_size, stride, padding):
    flat, padded = _pool_argmax(x, kernel_size, stride, padding)
    n, c = x.shape[:2]
    ph, pw = padding
    gp = np.pad(grad_x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if (ph or pw) else grad_x
    out = np.take_along_axis(gp.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2)
    return out.reshape(flat.shape).astype(grad_x.dtype, copy=False)


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
    return (ctx.ops.max_pool2d_grad(h, x, a["kernel_size"], a["stride"], a["padding"]), None)
