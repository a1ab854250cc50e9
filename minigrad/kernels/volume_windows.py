"""The 3-D sliding-window kernels (``conv3d``, its two gradients, ``conv_transpose3d``, ``max_pool3d``), written
once over ``xp`` - NumPy for the CPU's kernels, CuPy for the GPU's (``kernels/gpu/volume.py``).

A window over a ``(D, H, W)`` volume has ``kD * kH * kW`` taps. For one tap ``(i, j, k)`` the input element it
reads, in every output window at once, is one strided slice of the (padded) input: rows ``i * dilation``,
``i * dilation + stride``, ... So a convolution is im2col by taps: the slices stacked into columns
``(N, C, taps, OD, OH, OW)``, then one batched matrix product per group (cuBLAS's on a GPU). The input gradient
is the adjoint: the product with the weight transposed gives each tap's columns, which are added back into
their slices; the weight gradient is the product of the output gradient with the same columns. A max pool
stacks the same slices (the input padded with ``-inf``) and takes each window's ``argmax``.

Everything a launch needs (slices, the output sizes) is a number of the shapes: nothing is read back from the
device and no index array is built on the host.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .pool_windows import pool_out_size

__all__ = ["conv3d_arrays", "conv3d_input_grad_arrays", "conv3d_weight_grad_arrays", "conv_transpose3d_arrays",
           "max_pool3d_positions", "conv_out_size", "adaptive_matrices"]


def conv_out_size(spatial: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
                  padding: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[int, ...]:
    """The number of windows along each spatial dim of a convolution."""
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1 for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))


def _tap_slices(tap: tuple[int, ...], out: tuple[int, ...], stride: tuple[int, ...],
                dilation: tuple[int, ...]) -> tuple[slice, ...]:
    """The slices of the padded volume that tap ``tap`` reads in the ``out`` windows."""
    return tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, o, s, d in zip(tap, out, stride, dilation))


def _columns(xp: Any, xpad: Any, kernel: tuple[int, ...], out: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...], groups: int) -> Any:
    """``(N, G, taps * C / G, L)``: each tap's slice of the padded input, taps in row-major order, the windows
    flattened. Each tap is written as one block (taps outermost: a contiguous copy per tap, many times faster
    than interleaving the taps), then the groups are brought forward (no copy for one group)."""
    n, c = xpad.shape[:2]
    taps = list(itertools.product(*(range(k) for k in kernel)))
    cols = xp.empty((n, len(taps), c) + out, dtype=xpad.dtype)
    for t, tap in enumerate(taps):
        cols[:, t] = xpad[(Ellipsis,) + _tap_slices(tap, out, stride, dilation)]
    cols = cols.reshape(n, len(taps), groups, c // groups, math.prod(out)).transpose(0, 2, 1, 3, 4)
    return xp.ascontiguousarray(cols).reshape(n, groups, -1, math.prod(out))


def _weight_rows(weight: Any, groups: int) -> Any:
    """``(1, G, O / G, taps * C / G)``: the weight in the columns' order (taps, then channels)."""
    o, cg = weight.shape[:2]
    w = weight.reshape(groups, o // groups, cg, -1).transpose(0, 1, 3, 2)
    return w.reshape(1, groups, o // groups, -1)


def _zero_pad(xp: Any, x: Any, padding: tuple[int, ...]) -> Any:
    if not any(padding):
        return x
    return xp.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))


def conv3d_arrays(xp: Any, x: Any, weight: Any, bias: Any, stride: tuple[int, ...], padding: tuple[int, ...],
                  dilation: tuple[int, ...], groups: int) -> Any:
    """Cross-correlation of ``x`` ``(N, C, D, H, W)`` with ``weight`` ``(O, C / groups, kD, kH, kW)``: one batched
    matrix product, ``(O / G, taps * C / G)`` rows times each sample's columns."""
    n, o, kernel = x.shape[0], weight.shape[0], tuple(weight.shape[2:])
    out = conv_out_size(tuple(x.shape[2:]), kernel, stride, padding, dilation)
    cols = _columns(xp, _zero_pad(xp, x, padding), kernel, out, stride, dilation, groups)
    y = xp.matmul(_weight_rows(weight, groups), cols).reshape((n, o) + out)
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1, 1)
    return xp.ascontiguousarray(y, dtype=x.dtype)


def conv3d_input_grad_arrays(xp: Any, grad: Any, weight: Any, x_shape: tuple[int, ...], stride: tuple[int, ...],
                             padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> Any:
    """The gradient of ``conv3d`` w.r.t. its input: each tap's columns (the weight's transpose times the output
    gradient) added back into the tap's slice of a zero padded volume, which is then cropped. The gradient's
    windows may be fewer than ``x_shape`` has (a transposed convolution's)."""
    n, c = x_shape[:2]
    o, kernel, out = weight.shape[0], tuple(weight.shape[2:]), tuple(grad.shape[2:])
    g = grad.reshape(n, groups, o // groups, math.prod(out))
    cols = xp.matmul(_weight_rows(weight, groups).swapaxes(2, 3), g)  # N, G, taps * C / G, L
    taps = math.prod(kernel)
    cols = xp.ascontiguousarray(cols.reshape(n, groups, taps, c // groups, -1).transpose(0, 2, 1, 3, 4))
    cols = cols.reshape((n, taps, c) + out)
    dxp = xp.zeros((n, c) + tuple(s + 2 * p for s, p in zip(x_shape[2:], padding)), dtype=grad.dtype)
    for t, tap in enumerate(itertools.product(*(range(k) for k in kernel))):
        dxp[(Ellipsis,) + _tap_slices(tap, out, stride, dilation)] += cols[:, t]
    crop = tuple(slice(p, p + s) for s, p in zip(x_shape[2:], padding))
    return xp.ascontiguousarray(dxp[(Ellipsis,) + crop])


def conv3d_weight_grad_arrays(xp: Any, x: Any, grad: Any, w_shape: tuple[int, ...], stride: tuple[int, ...],
                              padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> Any:
    """The gradient of ``conv3d`` w.r.t. its weight: the output gradient times the columns of the input, summed
    over the batch and the windows (the gradient's windows, which a transposed convolution's may cut short)."""
    n, (o, cg), kernel, out = x.shape[0], w_shape[:2], tuple(w_shape[2:]), tuple(grad.shape[2:])
    cols = _columns(xp, _zero_pad(xp, x, padding), kernel, out, stride, dilation, groups)  # N, G, taps * Cg, L
    g = grad.reshape(n, groups, o // groups, -1)
    dw = xp.matmul(g, cols.swapaxes(2, 3)).sum(axis=0)  # G, O / G, taps * Cg
    dw = dw.reshape(groups, o // groups, -1, cg).transpose(0, 1, 3, 2)
    return xp.ascontiguousarray(dw.reshape(w_shape), dtype=x.dtype)


def conv_transpose3d_arrays(xp: Any, x: Any, weight: Any, bias: Any, stride: tuple[int, ...], padding: tuple[int, ...],
                            output_padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> Any:
    """The transposed convolution of ``x`` ``(N, C_in, D, H, W)`` with ``weight`` ``(C_in, C_out / groups, kD, kH,
    kW)``: the input gradient to the full size every window reaches, its ``padding`` cropped off and
    ``output_padding`` appended as zeros (``kernels/conv_forms.py`` says why, in 2-D)."""
    n, cout = x.shape[0], weight.shape[1] * groups
    kernel = tuple(weight.shape[2:])
    full = tuple((size - 1) * s + d * (k - 1) + 1 for size, s, d, k in zip(x.shape[2:], stride, dilation, kernel))
    y = conv3d_input_grad_arrays(xp, x, weight, (n, cout) + full, stride, (0, 0, 0), dilation, groups)
    if any(padding) or any(output_padding):
        size = tuple(f - 2 * p + o for f, p, o in zip(full, padding, output_padding))
        out = xp.zeros((n, cout) + size, dtype=y.dtype)
        kept = y[(Ellipsis,) + tuple(slice(p, p + s) for p, s in zip(padding, size))]
        out[(Ellipsis,) + tuple(slice(0, k) for k in kept.shape[2:])] = kept
        y = out
    if bias is not None:
        y = y + bias.reshape(1, -1, 1, 1, 1)
    return xp.ascontiguousarray(y, dtype=x.dtype)


def _first_inside(xp: Any, out: int, s: int, p: int, d: int) -> Any:
    """Along one dim: each window's start (may be in the padding) and its first tap inside the input."""
    start = xp.arange(out, dtype=np.int64) * s - p
    return start, xp.where(start < 0, start - (start // d) * d, start)


def max_pool3d_positions(xp: Any, x: Any, kernel: tuple[int, ...], stride: tuple[int, ...], padding: tuple[int, ...],
                         dilation: tuple[int, ...], ceil_mode: bool) -> Any:
    """The flat ``(d * H + h) * W + w`` position in ``x``'s volumes (its last three dims) of each window's first
    maximum - its last NaN, as PyTorch's ``val > max || isnan(val)`` - shaped as the output (int64). The volume is
    padded with ``-inf`` (past its end too, for ``ceil_mode``'s last windows); a window whose maximum lands in the
    padding holds only ``-inf`` and takes its first tap inside, as PyTorch's loop, which starts there."""
    spatial = tuple(x.shape[-3:])
    out = tuple(pool_out_size(n, k, s, p, ceil_mode, d) for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))
    after = tuple(max(0, (o - 1) * s + d * (k - 1) + 1 - n - p)
                  for o, n, k, s, p, d in zip(out, spatial, kernel, stride, padding, dilation))
    if any(padding) or any(after):
        widths = ((0, 0),) * (x.ndim - 3) + tuple((p, p + a) for p, a in zip(padding, after))
        x = xp.pad(x, widths, constant_values=-np.inf)
    taps = list(itertools.product(*(range(k) for k in kernel)))
    win = xp.stack([x[(Ellipsis,) + _tap_slices(t, out, stride, dilation)] for t in taps], axis=-1)
    arg = win.argmax(axis=-1)
    nan = xp.isnan(win)
    if xp is not np or nan.any():  # (a host check on the CPU only: on a GPU it would be a sync)
        arg = xp.where(nan.any(axis=-1), len(taps) - 1 - nan[..., ::-1].argmax(axis=-1), arg)
    picked = (arg // (kernel[1] * kernel[2]), (arg // kernel[2]) % kernel[1], arg % kernel[2])
    where, first, outside = [], [], False
    for axis, (o, s, p, d, t, n) in enumerate(zip(out, stride, padding, dilation, picked, spatial)):
        shape = [1, 1, 1]
        shape[axis] = o
        start, inside = (a.reshape(shape) for a in _first_inside(xp, o, s, p, d))
        where.append(start + t * d)
        first.append(inside)
        outside = outside | (where[-1] < 0) | (where[-1] >= n)
    d_, h_, w_ = (xp.where(outside, f, w) for f, w in zip(first, where))
    return ((d_ * spatial[1] + h_) * spatial[2] + w_).astype(np.int64)


def adaptive_matrices(xp: Any, spatial: tuple[int, ...], out: tuple[int, ...], dtype: Any) -> list[Any]:
    """Adaptive average pooling's ``(out, n)`` weight matrix along each dim (``pool_windows.adaptive_matrix``'s
    values), made on ``xp`` from ``arange``: row ``o`` holds ``1 / size`` on the window
    ``[floor(o n / out), ceil((o + 1) n / out))``."""
    mats = []
    for n, o in zip(spatial, out):
        rows, cols = xp.arange(o, dtype=np.int64)[:, None], xp.arange(n, dtype=np.int64)[None, :]
        lo, hi = (rows * n) // o, -((-(rows + 1) * n) // o)
        inside = (cols >= lo) & (cols < hi)
        mats.append(xp.where(inside, 1.0 / (hi - lo), 0.0).astype(dtype))
    return mats
