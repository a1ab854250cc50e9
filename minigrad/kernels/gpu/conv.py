"""GPU convolution and max pooling (NCHW), forward and backward; GPU mse_loss.

Convolution is registered twice, as matmul is (``linalg.py``), so kernel
selection's GPUDNN -> GPU order shows for it too:

- ``GPUDNN``: im2col + cuBLAS GEMM (``gpudnn/im2col_cublas_*``). The input is
  unfolded into columns by a hand-written kernel and multiplied by the weight
  with cuBLAS (``gemm.matmul``), one GEMM per group, batched. The images are
  processed in slices so the column matrix stays under ``_COLS_BYTES``.
- ``GPU``: direct hand-written kernels (``gpu/cuda_direct_*``), one thread per
  output value; chosen when ``mg.flags.use_gpudnn = False``.

Both take stride, padding, dilation and groups. Max pooling has one
hand-written implementation (``gpu/cuda_max_pool2d*``): forward with an
argmax, backward gathered through it. ``F.unfold``/``F.fold`` (the im2col and col2im ops) are the GEMM
convolution's im2col and col2im kernels over a batch.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import FLOAT_DTYPES
from ..conv_forms import as_2d, transposed_output
from ..pool_windows import pool_out_size
from ..key import Backend, Layout
from ..kept import kept
from ..registry import register_kernel
from . import conv_src as src
from ._runtime import block_for, dtype_name, function, launch_1d
from .gemm import matmul as gemm
from .reduce import combine_partials

GPU, GPUDNN = Backend.GPU, Backend.GPUDNN

__all__ = ["conv2d_gemm", "conv2d_direct", "max_pool2d", "mse_loss", "im2col", "col2im"]

#: at most this many bytes of im2col columns at a time (images are processed in slices)
_COLS_BYTES = 256 << 20


def _pair(v: Any) -> tuple[int, int]:
    if type(v) is tuple and len(v) == 2:  # the common case: the API layer's check made it a pair
        return (int(v[0]), int(v[1]))
    return (int(v), int(v)) if np.isscalar(v) else (int(v[0]), int(v[1]))


# NOTE [ A convolution's geometry is worked out once ]
#     A training step calls the same convolutions and poolings with the same shapes every time; each call's
#     kernels take about twenty int arguments (``_geometry``: sizes, strides, paddings...). Working them out and
#     converting each to a NumPy ``int32`` for CuPy took about 0.2 ms of a small CNN's 2 ms step on an H200, so
#     the arguments are kept per geometry (``kernels/kept.py``).
_GEOMETRIES: dict[tuple[Any, ...], tuple[int, ...]] = {}
_ARGS: dict[tuple[int, ...], tuple[Any, ...]] = {}
_CACHE_MAX = 1024


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool = False) -> int:
    return pool_out_size(size, k, s, p, ceil_mode, d)  # a convolution's is a max pool's without ceil_mode


def _geometry(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: Any, padding: Any, dilation: Any,
              groups: int, grad_shape: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The kernels' int arguments. A gradient's shape, when given, sets the windows: a transposed
    convolution's gradient may have fewer than the image has (kernels/conv_forms.py)."""
    return kept(_GEOMETRIES, ("conv", x_shape, w_shape, stride, padding, dilation, groups, grad_shape),
                lambda: _work_out_geometry(x_shape, w_shape, stride, padding, dilation, groups, grad_shape), _CACHE_MAX)


def _work_out_geometry(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: Any, padding: Any, dilation: Any,
                       groups: int, grad_shape: tuple[int, ...] | None) -> tuple[int, ...]:
    n, c, h, w = (int(v) for v in x_shape)
    o, _, kh, kw = (int(v) for v in w_shape)
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    oh, ow = _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)
    if grad_shape is not None:
        oh, ow = (int(v) for v in grad_shape[2:])
    return (n, c, h, w, o, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, int(groups))


def _lift_shape(shape: Any) -> tuple[int, ...]:
    """A 1-D convolution's ``(N, C, L)`` shape as ``(N, C, 1, L)``."""
    shape = tuple(int(v) for v in shape)
    return shape if len(shape) == 4 else shape[:2] + (1,) + shape[2:]


def _args(geo: tuple[int, ...]) -> tuple[Any, ...]:
    return kept(_ARGS, geo, lambda: tuple(np.int32(v) for v in geo), _CACHE_MAX)


def _fn(family: str, dt: str, name: str) -> Any:
    make = {"conv": src.conv_source, "pool": src.pool_source, "mse": src.mse_source}[family]
    return function(f"{family}_{dt}", lambda: make(dt), f"mg_{name}_{src.DTYPES[dt][2]}")


def _slices(n: int, rows: int, cols_per_image: int, itemsize: int) -> list[tuple[int, int]]:
    """Image slices ``(n0, nb)`` whose column matrix fits in ``_COLS_BYTES``."""
    per = max(1, _COLS_BYTES // max(1, rows * cols_per_image * itemsize))
    return [(n0, min(per, n - n0)) for n0 in range(0, n, per)]


# -- convolution: im2col + cuBLAS (GPUDNN) --------------------------------------------


def _im2col(x: Any, geo: tuple[int, ...], n0: int, nb: int) -> Any:
    n, c, h, w, o, kh, kw, oh, ow = geo[:9]
    cols = cupy.empty((c * kh * kw, nb * oh * ow), dtype=x.dtype)
    launch_1d(_fn("conv", dtype_name(x.dtype), "im2col"), cols.size, (x, cols, *_args(geo), np.int32(n0), np.int32(nb)))
    return cols


@register_kernel("conv2d", GPUDNN, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="gpudnn/im2col_cublas_conv2d")
def conv2d_gemm(x: Any, weight: Any, bias: Any = None, stride: Any = (1, 1), padding: Any = (0, 0),
                dilation: Any = (1, 1), groups: int = 1) -> Any:
    """y = W @ im2col(x): one cuBLAS GEMM per group over a slice of images."""
    if x.ndim == 3:  # 1-D: over a height of 1
        return conv2d_gemm(*as_2d(x, weight), bias, stride, padding, dilation, groups)[:, :, 0]
    x, weight = cupy.ascontiguousarray(x), cupy.ascontiguousarray(weight)
    geo = _geometry(x.shape, weight.shape, stride, padding, dilation, groups)
    n, c, _, _, o, kh, kw, oh, ow = geo[:9]
    g = geo[-1]
    p = oh * ow
    wg = weight.reshape(g, o // g, (c // g) * kh * kw)
    slices = _slices(n, c * kh * kw, p, x.dtype.itemsize)
    if g == 1 and len(slices) == 1:  # every image at once: image i's columns are cols[:, i*P:(i+1)*P], so one
        # strided-batched GEMM (W read once per image, stride 0) writes y as it lies, (N, O, P): no transpose copy
        cols = _im2col(x, geo, 0, n).reshape(c * kh * kw, n, p).transpose(1, 0, 2)
        y = gemm(wg[0], cols).reshape(n, o, oh, ow)
    else:
        y = cupy.empty((n, o, oh, ow), dtype=x.dtype)
        for n0, nb in slices:
            cols = _im2col(x, geo, n0, nb).reshape(g, (c // g) * kh * kw, nb * p)
            r = gemm(wg, cols).reshape(o, nb, p)  # (G, O/G, nb*P) = (O, nb, P)
            y[n0:n0 + nb] = r.transpose(1, 0, 2).reshape(nb, o, oh, ow)
    if bias is not None:
        y += bias.reshape(1, o, 1, 1)
    return y


@register_kernel("conv2d_input_grad", GPUDNN, dtypes=FLOAT_DTYPES, name="gpudnn/im2col_cublas_conv2d_input_grad")
def conv2d_input_grad_gemm(grad: Any, weight: Any, x_shape: Any, stride: Any = (1, 1), padding: Any = (0, 0),
                           dilation: Any = (1, 1), groups: int = 1) -> Any:
    """dx = col2im(W^T @ grad): the transposed convolution as a GEMM and the adjoint of im2col."""
    if grad.ndim == 3:
        dx = conv2d_input_grad_gemm(*as_2d(grad, weight), _lift_shape(x_shape), stride, padding, dilation, groups)
        return dx[:, :, 0]
    grad, weight = cupy.ascontiguousarray(grad), cupy.ascontiguousarray(weight)
    geo = _geometry(tuple(x_shape), weight.shape, stride, padding, dilation, groups, grad.shape)
    n, c, h, w, o, kh, kw, oh, ow = geo[:9]
    g = geo[-1]
    p = oh * ow
    dx = cupy.empty((n, c, h, w), dtype=grad.dtype)
    wt = weight.reshape(g, o // g, (c // g) * kh * kw).transpose(0, 2, 1)  # (G, C/G*KK, O/G)
    for n0, nb in _slices(n, c * kh * kw, p, grad.dtype.itemsize):
        gy = grad[n0:n0 + nb].reshape(nb, o, p).transpose(1, 0, 2).reshape(g, o // g, nb * p)
        cols = cupy.ascontiguousarray(gemm(wt, gy))  # (G, C/G*KK, nb*P) = (C*KK, nb*P)
        launch_1d(_fn("conv", dtype_name(grad.dtype), "col2im"), nb * c * h * w,
                  (cols, dx, *_args(geo), np.int32(n0), np.int32(nb)))
    return dx


@register_kernel("conv2d_weight_grad", GPUDNN, dtypes=FLOAT_DTYPES, name="gpudnn/im2col_cublas_conv2d_weight_grad")
def conv2d_weight_grad_gemm(x: Any, grad: Any, w_shape: Any, stride: Any = (1, 1), padding: Any = (0, 0),
                            dilation: Any = (1, 1), groups: int = 1) -> Any:
    """dW = grad @ im2col(x)^T, summed over the image slices (one slice, the usual case: one GEMM writes dW,
    no fill and no sum launched around it)."""
    if x.ndim == 3:
        dw = conv2d_weight_grad_gemm(*as_2d(x, grad), _lift_shape(w_shape), stride, padding, dilation, groups)
        return dw[:, :, 0]
    x, grad = cupy.ascontiguousarray(x), cupy.ascontiguousarray(grad)
    geo = _geometry(x.shape, tuple(w_shape), stride, padding, dilation, groups, grad.shape)
    n, c, _, _, o, kh, kw, oh, ow = geo[:9]
    g = geo[-1]
    p = oh * ow
    slices = _slices(n, c * kh * kw, p, x.dtype.itemsize)
    acc = np.float64 if x.dtype == np.float64 else np.float32
    dw = cupy.zeros((g, o // g, (c // g) * kh * kw), dtype=acc) if len(slices) != 1 else None
    for n0, nb in slices:
        cols = _im2col(x, geo, n0, nb).reshape(g, (c // g) * kh * kw, nb * p)
        gy = grad[n0:n0 + nb].reshape(nb, o, p).transpose(1, 0, 2).reshape(g, o // g, nb * p)
        part = gemm(gy, cols.transpose(0, 2, 1))
        if dw is None:
            return part.reshape(o, c // g, kh, kw)
        dw += part.astype(acc, copy=False)
    return dw.reshape(o, c // g, kh, kw).astype(x.dtype, copy=False)


# NHWC ("channels last") inputs: the GPU has no NHWC convolution of its own, so the NCHW kernels are also
# registered for NHWC keys, declaring their input and weight NCHW and their output NCHW. PrepareData transposes the input
# in and the kernel layer transposes the output back - two data.transform events, on the device (Paddle's
# TransDataLayout; cuDNN's tensor cores prefer NHWC, which is why frameworks keep both).
_NCHW_IN = {0: {"layout": Layout.NCHW}, 1: {"layout": Layout.NCHW}}
register_kernel("conv2d", GPUDNN, layout=Layout.NHWC, dtypes=FLOAT_DTYPES, name="gpudnn/im2col_cublas_conv2d",
                arg_overrides=_NCHW_IN, out_layout=Layout.NCHW)(conv2d_gemm)


# -- convolution: direct kernels (GPU) ------------------------------------------------


@register_kernel("conv2d", GPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="gpu/cuda_direct_conv2d")
def conv2d_direct(x: Any, weight: Any, bias: Any = None, stride: Any = (1, 1), padding: Any = (0, 0),
                  dilation: Any = (1, 1), groups: int = 1) -> Any:
    if x.ndim == 3:  # 1-D: over a height of 1
        return conv2d_direct(*as_2d(x, weight), bias, stride, padding, dilation, groups)[:, :, 0]
    x, weight = cupy.ascontiguousarray(x), cupy.ascontiguousarray(weight)
    geo = _geometry(x.shape, weight.shape, stride, padding, dilation, groups)
    n, _, _, _, o, _, _, oh, ow = geo[:9]
    y = cupy.empty((n, o, oh, ow), dtype=x.dtype)
    if y.size:
        b = cupy.ascontiguousarray(bias) if bias is not None else weight  # an unread placeholder when no bias
        launch_1d(_fn("conv", dtype_name(x.dtype), "conv_fwd"), y.size,
                  (x, weight, b, y, *_args(geo), np.int32(bias is not None)))
    return y


register_kernel("conv2d", GPU, layout=Layout.NHWC, dtypes=FLOAT_DTYPES, name="gpu/cuda_direct_conv2d",
                arg_overrides=_NCHW_IN, out_layout=Layout.NCHW)(conv2d_direct)


@register_kernel("conv2d_input_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_direct_conv2d_input_grad")
def conv2d_input_grad_direct(grad: Any, weight: Any, x_shape: Any, stride: Any = (1, 1), padding: Any = (0, 0),
                             dilation: Any = (1, 1), groups: int = 1) -> Any:
    if grad.ndim == 3:
        dx = conv2d_input_grad_direct(*as_2d(grad, weight), _lift_shape(x_shape), stride, padding, dilation, groups)
        return dx[:, :, 0]
    grad, weight = cupy.ascontiguousarray(grad), cupy.ascontiguousarray(weight)
    geo = _geometry(tuple(x_shape), weight.shape, stride, padding, dilation, groups, grad.shape)
    dx = cupy.empty(tuple(int(v) for v in x_shape), dtype=grad.dtype)
    if dx.size:
        launch_1d(_fn("conv", dtype_name(grad.dtype), "conv_dx"), dx.size, (grad, weight, dx, *_args(geo)))
    return dx


@register_kernel("conv2d_weight_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_direct_conv2d_weight_grad")
def conv2d_weight_grad_direct(x: Any, grad: Any, w_shape: Any, stride: Any = (1, 1), padding: Any = (0, 0),
                              dilation: Any = (1, 1), groups: int = 1) -> Any:
    if x.ndim == 3:
        dw = conv2d_weight_grad_direct(*as_2d(x, grad), _lift_shape(w_shape), stride, padding, dilation, groups)
        return dw[:, :, 0]
    x, grad = cupy.ascontiguousarray(x), cupy.ascontiguousarray(grad)
    geo = _geometry(x.shape, tuple(w_shape), stride, padding, dilation, groups, grad.shape)
    n, _, _, _, _, _, _, oh, ow = geo[:9]
    dw = cupy.empty(tuple(int(v) for v in w_shape), dtype=x.dtype)
    if dw.size:
        _fn("conv", dtype_name(x.dtype), "conv_dw")((dw.size,), (block_for(n * oh * ow),), (x, grad, dw, *_args(geo)))
    return dw


# -- transposed convolution: conv2d's input gradient (kernels/conv_forms.py) ------------------


def _transposed_kernel(input_grad: Any) -> Any:
    def run(x: Any, weight: Any, bias: Any = None, stride: Any = (1, 1), padding: Any = (0, 0),
            output_padding: Any = (0, 0), dilation: Any = (1, 1), groups: int = 1) -> Any:
        if x.ndim == 3:  # 1-D: over a height of 1
            return run(*as_2d(x, weight), bias, stride, padding, output_padding, dilation, groups)[:, :, 0]
        return transposed_output(input_grad, cupy.zeros, x, weight, bias, _pair(stride), _pair(padding),
                                 _pair(output_padding), _pair(dilation), int(groups))
    return run


register_kernel("conv_transpose2d", GPUDNN, dtypes=FLOAT_DTYPES, name="gpudnn/im2col_cublas_conv_transpose2d")(
    _transposed_kernel(conv2d_input_grad_gemm))
register_kernel("conv_transpose2d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_direct_conv_transpose2d")(
    _transposed_kernel(conv2d_input_grad_direct))


# -- max pooling (GPU) -------------------------------------------------------------------------


def _pool_geometry(x_shape: tuple[int, ...], kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                   ceil_mode: bool) -> tuple[int, ...]:
    return kept(_GEOMETRIES, ("pool", x_shape, kernel_size, stride, padding, dilation, ceil_mode),
                lambda: _work_out_pool_geometry(x_shape, kernel_size, stride, padding, dilation, ceil_mode), _CACHE_MAX)


def _work_out_pool_geometry(x_shape: tuple[int, ...], kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                            ceil_mode: bool) -> tuple[int, ...]:
    h, w = (int(v) for v in x_shape[-2:])
    planes = int(np.prod(x_shape[:-2], dtype=np.int64))  # (N, C, H, W) or unbatched (C, H, W)
    (kh, kw), (sh, sw) = _pair(kernel_size), _pair(stride if stride is not None else kernel_size)
    (ph, pw), (dh, dw) = _pair(padding), _pair(dilation)
    oh, ow = _out_size(h, kh, sh, ph, dh, ceil_mode), _out_size(w, kw, sw, pw, dw, ceil_mode)
    # planes (N*C) travel as "C"; "O" is unused by the pooling kernels
    return (1, planes, h, w, 1, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, 1)


def _pool_argmax(x: Any, geo: tuple[int, ...]) -> tuple[Any, Any]:
    """Each window's maximum and its flat ``h * W + w`` position in its plane, shaped as the output."""
    planes, oh, ow = geo[1], geo[7], geo[8]
    y = cupy.empty((planes, oh, ow), dtype=x.dtype)
    arg = cupy.empty((planes, oh, ow), dtype=np.int64)
    if y.size:
        launch_1d(_fn("pool", dtype_name(x.dtype), "maxpool_fwd"), y.size, (x, y, arg, *_args(geo)))
    out_shape = tuple(x.shape[:-2]) + (oh, ow)
    return y.reshape(out_shape), arg.reshape(out_shape)


@register_kernel("max_pool2d", GPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="gpu/cuda_max_pool2d")
def max_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = (0, 0), dilation: Any = (1, 1),
               ceil_mode: bool = False) -> Any:
    x = cupy.ascontiguousarray(x)
    return _pool_argmax(x, _pool_geometry(x.shape, kernel_size, stride, padding, dilation, ceil_mode))[0]


@register_kernel("max_pool2d_indices", GPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="gpu/cuda_max_pool2d_indices")
def max_pool2d_indices(x: Any, kernel_size: Any, stride: Any = None, padding: Any = (0, 0), dilation: Any = (1, 1),
                       ceil_mode: bool = False) -> Any:
    """The forward kernel's positions: PyTorch's indices (the values it writes beside them are dropped)."""
    x = cupy.ascontiguousarray(x)
    return _pool_argmax(x, _pool_geometry(x.shape, kernel_size, stride, padding, dilation, ceil_mode))[1]


@register_kernel("max_pool2d_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_max_pool2d_grad")
def max_pool2d_grad(grad: Any, x: Any, kernel_size: Any, stride: Any = None, padding: Any = (0, 0),
                    dilation: Any = (1, 1), ceil_mode: bool = False) -> Any:
    x, grad = cupy.ascontiguousarray(x), cupy.ascontiguousarray(grad)
    geo = _pool_geometry(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    _, arg = _pool_argmax(x, geo)
    dx = cupy.empty(x.shape, dtype=grad.dtype)
    if dx.size:
        launch_1d(_fn("pool", dtype_name(grad.dtype), "maxpool_dx"), dx.size, (grad, arg, dx, *_args(geo)))
    return dx


@register_kernel("max_pool2d_select", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_max_pool2d_select")
def max_pool2d_select(grad_x: Any, x: Any, kernel_size: Any, stride: Any = None, padding: Any = (0, 0),
                      dilation: Any = (1, 1), ceil_mode: bool = False) -> Any:
    x, grad_x = cupy.ascontiguousarray(x), cupy.ascontiguousarray(grad_x)
    geo = _pool_geometry(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    _, arg = _pool_argmax(x, geo)
    y = cupy.empty(arg.shape, dtype=grad_x.dtype)
    if y.size:
        launch_1d(_fn("pool", dtype_name(grad_x.dtype), "maxpool_select"), y.size, (grad_x, arg, y, *_args(geo)))
    return y


# -- mse_loss (GPU) ------------------------------------------------------------------------------

#: elements per block of the partial sums
_MSE_CHUNK = 8192


@register_kernel("mse_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_mse_loss")
def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    """Squared differences in one kernel; for mean/sum, fused with per-block partial sums."""
    shape = tuple(np.broadcast_shapes(input.shape, target.shape))
    a = cupy.ascontiguousarray(cupy.broadcast_to(input, shape))
    b = cupy.ascontiguousarray(cupy.broadcast_to(target, shape))
    dt = dtype_name(input.dtype)
    n = a.size
    if reduction == "none":
        out = cupy.empty(shape, dtype=input.dtype)
        if n:
            launch_1d(_fn("mse", dt, "mse_none"), n, (a, b, out, np.int64(n)))
        return out
    if n == 0:
        return cupy.full((), 0.0 if reduction == "sum" else np.nan, dtype=input.dtype)  # a fill: no copy
    chunks = -(-n // _MSE_CHUNK)
    acc = np.float64 if input.dtype == np.float64 else np.float32
    partial = cupy.empty((chunks,), dtype=acc)
    _fn("mse", dt, "mse_partial")((chunks,), (256,), (a, b, partial, np.int64(n), np.int64(_MSE_CHUNK)))
    op = "sum" if reduction == "sum" else "mean"
    return combine_partials(op, partial.reshape(1, chunks), input.dtype, scale=1.0 / n).reshape(())


# -- im2col / col2im (F.unfold, F.fold): the GEMM convolution's two kernels, for a batch of images ------------


def _fold_geometry(n: int, c: int, hw: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple[int, ...]:
    """The conv kernels' int arguments for windows of one output channel and one group."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    h, w = (int(v) for v in hw)
    oh, ow = _out_size(h, kh, sh, ph, dh), _out_size(w, kw, sw, pw, dw)
    return (n, c, h, w, 1, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, 1)


@register_kernel("im2col", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_im2col")
def im2col(x: Any, kernel_size: Any, dilation: Any = (1, 1), padding: Any = (0, 0), stride: Any = (1, 1)) -> Any:
    """``mg_im2col`` over every image at once gives ``(C kH kW, N L)``; one transposed copy makes it ``(N, C kH kW, L)``."""
    if x.ndim == 3:
        return im2col(x[None], kernel_size, dilation, padding, stride)[0]
    n, c = x.shape[:2]
    geo = _fold_geometry(n, c, x.shape[2:], kernel_size, dilation, padding, stride)
    rows, blocks = c * geo[5] * geo[6], geo[7] * geo[8]
    if n == 0:
        return cupy.empty((0, rows, blocks), dtype=x.dtype)
    cols = _im2col(cupy.ascontiguousarray(x), geo, 0, n)
    return cupy.ascontiguousarray(cols.reshape(rows, n, blocks).transpose(1, 0, 2))


@register_kernel("col2im", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_col2im")
def col2im(x: Any, output_size: Any, kernel_size: Any, dilation: Any = (1, 1), padding: Any = (0, 0),
           stride: Any = (1, 1)) -> Any:
    """The columns laid out as ``mg_col2im`` reads them, ``(C kH kW, N L)`` (one transposed copy), then one launch that
    sums, for every image pixel, the columns that read it, taps in order."""
    if x.ndim == 2:
        return col2im(x[None], output_size, kernel_size, dilation, padding, stride)[0]
    n, rows, blocks = x.shape
    c = rows // (kernel_size[0] * kernel_size[1])
    geo = _fold_geometry(n, c, output_size, kernel_size, dilation, padding, stride)
    out = cupy.empty((n, c, *geo[2:4]), dtype=x.dtype)
    if out.size:
        cols = cupy.ascontiguousarray(x.transpose(1, 0, 2)).reshape(rows, n * blocks)
        launch_1d(_fn("conv", dtype_name(x.dtype), "col2im"), out.size, (cols, out, *_args(geo), np.int32(0), np.int32(n)))
    return out
