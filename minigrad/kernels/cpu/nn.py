"""CPU kernels of the neural-network ops: softmax family, losses, conv2d, max_pool2d (NCHW)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...dtypes import FLOAT_DTYPES
from ..key import Backend, Layout
from ..registry import register_kernel

CPU = Backend.CPU


@register_kernel("softmax", CPU, dtypes=FLOAT_DTYPES)
def softmax(x, dim=-1):
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return np.asarray(e / np.sum(e, axis=dim, keepdims=True), dtype=x.dtype)


@register_kernel("log_softmax", CPU, dtypes=FLOAT_DTYPES)
def log_softmax(x, dim=-1):
    z = x - np.max(x, axis=dim, keepdims=True)
    return np.asarray(z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True)), dtype=x.dtype)


@register_kernel("cross_entropy", CPU, dtypes=FLOAT_DTYPES)
def cross_entropy(input, target, reduction="mean"):
    n, c = input.shape
    if n and (target.min() < 0 or target.max() >= c):
        raise ValueError(f"cross_entropy(): target values must be class indices in [0, {c - 1}], got {target.min()}..{target.max()}")
    logp = log_softmax(input, dim=1)
    nll = -logp[np.arange(n), target]
    if reduction == "none":
        return nll.astype(input.dtype, copy=False)
    out = nll.sum() if reduction == "sum" else nll.sum() / nll.size  # sum/size: no NumPy warning when empty
    return np.asarray(out, dtype=input.dtype)


@register_kernel("mse_loss", CPU, dtypes=FLOAT_DTYPES)
def mse_loss(input, target, reduction="mean"):
    sq = np.asarray((input - target) ** 2)
    if reduction == "none":
        return sq
    return np.asarray(sq.sum() if reduction == "sum" else sq.sum() / sq.size, dtype=input.dtype)


# -- convolution (im2col with strided windows) ---------------------------------


def _windows(x, kh, kw, stride, padding):
    """(N, C, OH, OW, kh, kw) windows of the zero-padded input."""
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = sliding_window_view(x, (kh, kw), axis=(2, 3))
    return win[:, :, :: stride[0], :: stride[1]]


@register_kernel("conv2d", CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES)
def conv2d(x, weight, bias=None, stride=(1, 1), padding=(0, 0)):
    _, _, kh, kw = weight.shape
    win = _windows(x, kh, kw, stride, padding)
    out = np.tensordot(win, weight, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, O
    out = out.transpose(0, 3, 1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return np.ascontiguousarray(out, dtype=x.dtype)


@register_kernel("conv2d_input_grad", CPU, dtypes=FLOAT_DTYPES)
def conv2d_input_grad(grad, weight, x_shape, stride=(1, 1), padding=(0, 0)):
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


@register_kernel("conv2d_weight_grad", CPU, dtypes=FLOAT_DTYPES)
def conv2d_weight_grad(x, grad, w_shape, stride=(1, 1), padding=(0, 0)):
    _, _, kh, kw = w_shape
    win = _windows(x, kh, kw, stride, padding)  # N, C, OH, OW, kh, kw
    dw = np.tensordot(grad, win, axes=([0, 2, 3], [0, 2, 3]))  # O, C, kh, kw
    return np.ascontiguousarray(dw, dtype=x.dtype)


# -- max pooling -----------------------------------------------------------------


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


@register_kernel("max_pool2d", CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES)
def max_pool2d(x, kernel_size, stride, padding):
    flat, padded = _pool_argmax(x, kernel_size, stride, padding)
    ph, pw = padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf) if (ph or pw) else x
    n, c = x.shape[:2]
    out = np.take_along_axis(xp.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2)
    return out.reshape(flat.shape).astype(x.dtype, copy=False)


@register_kernel("max_pool2d_grad", CPU, dtypes=FLOAT_DTYPES)
def max_pool2d_grad(grad, x, kernel_size, stride, padding):
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


@register_kernel("max_pool2d_select", CPU, dtypes=FLOAT_DTYPES)
def max_pool2d_select(grad_x, x, kernel_size, stride, padding):
    flat, padded = _pool_argmax(x, kernel_size, stride, padding)
    n, c = x.shape[:2]
    ph, pw = padding
    gp = np.pad(grad_x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if (ph or pw) else grad_x
    out = np.take_along_axis(gp.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2)
    return out.reshape(flat.shape).astype(grad_x.dtype, copy=False)
