"""Pooling. Average pooling: ``avg_pool2d``, ``avg_pool3d`` and ``adaptive_avg_pool2d`` as ops, the 1-D forms as
composites.
Max pooling: the ``max_pool2d`` op is PyTorch's ``max_pool2d_with_indices``
(node ``MaxPool2DWithIndicesBackward0``): an ``(N, C, H, W)`` or unbatched
``(C, H, W)`` input, ``stride``, symmetric ``padding``, ``dilation`` and
``ceil_mode`` (the last partial window counts, when it starts inside the input
or its left padding). Each window's first maximum (its last NaN, as PyTorch's
loop) takes the window's whole gradient; ``max_pool2d_grad`` and
``max_pool2d_select`` are the gradient and its adjoint, so double backward
works. ``return_indices`` adds ``max_pool2d_indices``: the flat ``H * W``
position of each window's maximum (no gradient). ``max_pool1d`` is PyTorch's
composite: the op between an ``unsqueeze`` and a ``squeeze`` (adaptive max
pooling is in ``ops/index_pooling.py``).

NOTE [ Average pooling is two small matrix products ]
    Each output of an average pool is a weighted sum of a window of inputs,
    and the window along H does not depend on the position along W. So the
    whole pool is ``Wh @ x @ Ww.T`` for an ``(out_h, H)`` matrix ``Wh`` and an
    ``(out_w, W)`` matrix ``Ww`` applied to every ``(H, W)`` plane: row ``o``
    of ``Wh`` holds ``1 / size`` on the window of output ``o``. PyTorch's
    divisors are products of a height and a width count in every case
    (``count_include_pad``, ``ceil_mode``'s clipped windows, adaptive windows),
    so they factor into the two matrices; ``divisor_override`` is one constant.
    The backward is the adjoint, ``Wh.T @ g @ Ww``: the op ``*_backward``
    spreads each output's gradient evenly over its window. Being linear, the
    two are each other's backward formulas, so pooling is differentiable to
    any order, as ``conv2d`` and its gradient ops are.

Example:
    >>> import minigrad as mg
    >>> x = mg.arange(16.0).reshape(1, 1, 4, 4)
    >>> mg.nn.functional.avg_pool2d(x, 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    >>> mg.nn.functional.adaptive_avg_pool2d(x, 1).tolist()
    [[[[7.5]]]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..autograd.grad_mode import GRAD_MODE
from ..errors import OutOfRangeError, ShapeError
from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend, Layout
from ..kernels.pool_windows import (adaptive_matrix, adaptive_tiles, apply_windows, apply_windows_3d, avg_matrices,
                                    avg_matrices_3d, avg_tiles, tiled_mean, tiled_mean_adjoint,
                                    pool_out_size)
from ..kernels.registry import register_kernel
from ..kernels.strided import format_of
from ..tensor import Tensor
from ._checks import _is_int, check_bool, check_nonneg_pair, check_positive_pair, check_shape, check_tensor
from ._window import POOL_ARGS, bind_args, check_window_dims, int_pair
from .reduce import mean as _mean
from .registry import Attr, Input, defop, type_name
from .shape import squeeze, unsqueeze

# torch.avg_pool1d, torch.adaptive_avg_pool1d, torch.max_pool1d; the 2-D forms live in F (adaptive max pooling:
# ops/index_pooling.py).
__all__ = ["avg_pool1d", "adaptive_avg_pool1d", "max_pool1d", "max_pool2d", "max_pool2d_grad",
           "max_pool2d_select", "max_pool2d_indices"]


# -- the max_pool2d op (PyTorch's max_pool2d_with_indices: (N, C, H, W) or (C, H, W), stride, padding,
# dilation, ceil_mode) and its gradient ops ----------

def _pool_positions(x, kernel_size, stride, padding, dilation, ceil_mode):
    """The flat ``h * W + w`` position in ``x``'s planes (its last two dims) of each window's first maximum (its
    last NaN, as PyTorch's ``val > max || isnan(val)``), shaped as the output. The planes are padded with
    ``-inf`` (past the input too, for ``ceil_mode``'s last windows) and the windows are a strided view of them,
    copied once; a window whose maximum lands in the padding holds only ``-inf`` and takes its first tap
    inside, as PyTorch's loop, which starts there."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_size, stride, padding, dilation
    h, w = x.shape[-2:]
    oh, ow = pool_out_size(h, kh, sh, ph, ceil_mode, dh), pool_out_size(w, kw, sw, pw, ceil_mode, dw)
    span = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    after = (max(0, (oh - 1) * sh + span[0] - h - ph), max(0, (ow - 1) * sw + span[1] - w - pw))
    padded = ph or pw or any(after)
    if padded:
        x = np.pad(x, ((0, 0),) * (x.ndim - 2) + ((ph, ph + after[0]), (pw, pw + after[1])), constant_values=-np.inf)
    windows = sliding_window_view(x, span, axis=(-2, -1))[..., : (oh - 1) * sh + 1 : sh, : (ow - 1) * sw + 1 : sw,
                                                          ::dh, ::dw]
    flat = windows.reshape(x.shape[:-2] + (oh, ow, kh * kw))
    arg = flat.argmax(axis=-1)
    nan = np.isnan(flat)
    if nan.any():  # PyTorch's ``val > max || isnan(val)``: the window's last NaN
        arg = np.where(nan.any(axis=-1), kh * kw - 1 - nan[..., ::-1].argmax(axis=-1), arg)
    di, dj = np.divmod(arg, kw)
    (top, rows), (left, cols) = _taps(oh, sh, ph, dh, di, (oh, 1)), _taps(ow, sw, pw, dw, dj, (ow,))
    if padded:
        outside = (rows < 0) | (rows >= h) | (cols < 0) | (cols >= w)
        if outside.any():
            rows, cols = np.where(outside, top, rows), np.where(outside, left, cols)
    return rows * w + cols


def _taps(out, s, p, d, picked, shape):
    """Along one dim: each window's first tap inside the input and the input position of its tap ``picked``,
    the windows along an axis of ``shape``."""
    start = (np.arange(out) * s - p).reshape(shape)
    first = np.where(start < 0, start - (start // d) * d, start)  # a window has a tap inside: its output size says so
    return first, start + picked * d


def _planes(a):
    """``a``'s planes as rows: ``(planes, H * W)``."""
    return a.reshape((-1, a.shape[-2] * a.shape[-1]))


def _read_at(a, pos):
    """``a``'s planes read at the flat positions ``pos`` (shaped as the output)."""
    return np.take_along_axis(_planes(a), pos.reshape(_planes(pos).shape), axis=1).reshape(pos.shape)


def _pool_meta(op: str, x: Any, **window: Any) -> Any:
    return im.pool2d(op, x, **window)


@register_kernel("max_pool2d", Backend.CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="cpu/max_pool2d")
def max_pool2d_cpu(x, kernel_size, stride, padding, dilation, ceil_mode):
    return _read_at(x, _pool_positions(x, kernel_size, stride, padding, dilation, ceil_mode))


_POOL_ATTRS = (
    Attr("kernel_size", check=check_positive_pair),
    Attr("stride", check=check_positive_pair),
    Attr("padding", (0, 0), check_nonneg_pair),
    Attr("dilation", (1, 1), check_positive_pair),
    Attr("ceil_mode", False, check_bool),
)

_max_pool2d = defop(
    "max_pool2d",
    inputs=("x",),
    attrs=_POOL_ATTRS,
    infer_meta=_pool_meta,
    save=("x",),
    doc="2-D max pooling over kernel_size windows ((N, C, H, W) or (C, H, W)), dilated, ceil_mode as PyTorch's",
    layout="memory_format",
)


def _window_attrs(a: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(a[attr.name] for attr in _POOL_ATTRS)


@_max_pool2d.def_backward
def _max_pool2d_backward(ctx, g):
    (x,) = ctx.saved()
    return (ctx.ops.max_pool2d_grad(g, x, *_window_attrs(ctx.attrs)),)


@register_kernel("max_pool2d_indices", Backend.CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES,
                 name="cpu/max_pool2d_indices")
def max_pool2d_indices_cpu(x, kernel_size, stride, padding, dilation, ceil_mode):
    return _pool_positions(x, kernel_size, stride, padding, dilation, ceil_mode).astype(np.int64, copy=False)


def _pool_indices_meta(op: str, x: Any, **window: Any) -> Any:
    return im.pool2d(op, x, **window)[0], np.dtype(np.int64)


max_pool2d_indices = defop(
    "max_pool2d_indices",
    inputs=("x",),
    attrs=_POOL_ATTRS,
    infer_meta=_pool_indices_meta,
    differentiable=False,
    layout="memory_format",
    doc="the flat position in each H * W plane of each max_pool2d window's maximum: the first, or the last NaN "
        "(int64; return_indices=True)",
)


def _pool_grad_meta(op: str, grad: Any, x: Any, **window: Any) -> Any:
    return tuple(x.shape), grad.dtype


def _pool_select_meta(op: str, grad_x: Any, x: Any, **window: Any) -> Any:
    return im.pool2d(op, x, **window)[0], grad_x.dtype


@register_kernel("max_pool2d_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool2d_grad")
def max_pool2d_grad_cpu(grad, x, kernel_size, stride, padding, dilation, ceil_mode):
    pos = _planes(_pool_positions(x, kernel_size, stride, padding, dilation, ceil_mode))
    dx = np.zeros(_planes(x).shape, dtype=grad.dtype)
    # Windows may overlap: accumulate every window's gradient at its argmax.
    np.add.at(dx, (np.arange(len(pos))[:, None], pos), _planes(grad))
    return dx.reshape(x.shape)


max_pool2d_grad = defop(
    "max_pool2d_grad",
    inputs=("grad", "x"),  # x: PyTorch's max_pool2d_with_indices_backward's self, whose gradient is zeros
    attrs=_POOL_ATTRS,
    infer_meta=_pool_grad_meta,
    save=("x",),
    key_inputs=(0,),
    doc="scatter each window's gradient to its argmax (the backward of max_pool2d)",
)


@max_pool2d_grad.def_backward
def _max_pool2d_grad_backward(ctx, h):
    """PyTorch's ``MaxPool2DWithIndicesBackwardBackward0``: ``h`` gathered at each window's argmax for the
    gradient, zeros for ``x`` (its edge is there, as PyTorch's ``zeros_like(self)``)."""
    (x,) = ctx.saved()
    zeros = ctx.ops.fill(h, 0.0) if ctx.needs(1) else None
    return ctx.ops.max_pool2d_select(h, x, *_window_attrs(ctx.attrs)), zeros


@register_kernel("max_pool2d_select", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool2d_select")
def max_pool2d_select_cpu(grad_x, x, kernel_size, stride, padding, dilation, ceil_mode):
    return _read_at(grad_x, _pool_positions(x, kernel_size, stride, padding, dilation, ceil_mode))


max_pool2d_select = defop(
    "max_pool2d_select",
    inputs=("grad_x", Input("x", differentiable=False)),
    attrs=_POOL_ATTRS,
    infer_meta=_pool_select_meta,
    save=("x",),
    key_inputs=(0,),
    doc="gather grad_x at each window's argmax (the adjoint of max_pool2d_grad)",
)


@max_pool2d_select.def_backward
def _max_pool2d_select_backward(ctx, h):
    (x,) = ctx.saved()
    return (ctx.ops.max_pool2d_grad(h, x, *_window_attrs(ctx.attrs)), None)


def _host_windows(rows: np.ndarray, cols: np.ndarray, scale: float, dtype: Any) -> tuple[np.ndarray, np.ndarray, float]:
    return rows.astype(dtype), cols.astype(dtype), scale


# -- avg_pool2d -------------------------------------------------------------------------------

_AVG_ATTRS = (
    Attr("kernel_size", check=check_shape), Attr("stride", check=check_shape), Attr("padding", (0, 0), check_shape),
    Attr("ceil_mode", False, check_bool), Attr("count_include_pad", True, check_bool), Attr("divisor_override", None),
)


def _avg_meta(op: str, x: Any, **a: Any) -> tuple[tuple[int, ...], Any]:
    if x.ndim not in (3, 4):
        raise ShapeError(f"{op}(): 'x' must be 3-D (C, H, W) or 4-D (N, C, H, W), but got shape {tuple(x.shape)}")
    h, w = x.shape[-2:]
    oh = pool_out_size(h, a["kernel_size"][0], a["stride"][0], a["padding"][0], a["ceil_mode"])
    ow = pool_out_size(w, a["kernel_size"][1], a["stride"][1], a["padding"][1], a["ceil_mode"])
    return tuple(x.shape[:-2]) + (oh, ow), x.dtype


@register_kernel("avg_pool2d", Backend.CPU, dtypes=FLOAT_DTYPES)
def avg_pool2d_cpu(x: np.ndarray, **a: Any) -> np.ndarray:
    tiled = avg_tiles(x.shape[-2:], a)
    if tiled is not None:
        return tiled_mean(np, x, *tiled)
    return apply_windows(np, x, *_host_windows(*avg_matrices(x.shape[-2:], a), x.dtype))


_avg_pool2d = defop(
    "avg_pool2d",
    inputs=("x",),
    attrs=_AVG_ATTRS,
    infer_meta=_avg_meta,
    doc="2-D average pooling ((N, C, H, W) or (C, H, W)): the mean of each window",
    layout="memory_format",
)


@_avg_pool2d.def_backward
def _avg_pool2d_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """Each output's gradient spread evenly over its window (NOTE [ Average pooling is two small matrix products ])."""
    a = ctx.attrs
    h, w = ctx.input_shape(0)[-2:]
    return (ctx.ops.avg_pool2d_backward(grad, (h, w), *(a[n] for n in _ATTR_NAMES)),)


_ATTR_NAMES = tuple(a.name for a in _AVG_ATTRS)


def _avg_backward_meta(op: str, grad: Any, input_size: tuple[int, int], **a: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(grad.shape[:-2]) + tuple(input_size), grad.dtype


@register_kernel("avg_pool2d_backward", Backend.CPU, dtypes=FLOAT_DTYPES)
def avg_pool2d_backward_cpu(grad: np.ndarray, input_size: tuple[int, int], **a: Any) -> np.ndarray:
    tiled = avg_tiles(input_size, a)
    if tiled is not None:
        return tiled_mean_adjoint(np, grad, *tiled)
    rows, cols, scale = _host_windows(*avg_matrices(input_size, a), grad.dtype)
    return apply_windows(np, grad, rows.T, cols.T, scale)


avg_pool2d_backward = defop(
    "avg_pool2d_backward",
    inputs=("grad",),
    attrs=(Attr("input_size", check=check_shape),) + _AVG_ATTRS,
    infer_meta=_avg_backward_meta,
    doc="gradient of avg_pool2d: each window's gradient spread evenly over it",
)


@avg_pool2d_backward.def_backward
def _avg_pool2d_backward_backward(ctx: Any, h: Any) -> tuple[Any]:
    """The adjoint of the adjoint: ``avg_pool2d`` itself."""
    a = ctx.attrs
    return (ctx.ops.avg_pool2d(h, *(a[n] for n in _ATTR_NAMES)),)


# -- avg_pool3d ---------------------------------------------------------------------------------
# The op takes a batched (N, C, D, H, W) or an unbatched (C, D, H, W) input itself, as PyTorch's: its matrices
# act on the last three dims (NOTE [ Average pooling is two small matrix products ], a third along the depth).

def _avg3d_meta(op: str, x: Any, **a: Any) -> tuple[tuple[int, ...], Any]:
    if x.ndim not in (4, 5):
        raise ShapeError(f"{op}(): 'x' must be 4-D (C, D, H, W) or 5-D (N, C, D, H, W), but got shape {tuple(x.shape)}")
    out = tuple(pool_out_size(n, a["kernel_size"][i], a["stride"][i], a["padding"][i], a["ceil_mode"])
                for i, n in enumerate(x.shape[-3:]))
    return tuple(x.shape[:-3]) + out, x.dtype


@register_kernel("avg_pool3d", Backend.CPU, dtypes=FLOAT_DTYPES)
def avg_pool3d_cpu(x: np.ndarray, **a: Any) -> np.ndarray:
    *mats, scale = avg_matrices_3d(x.shape[-3:], a)
    return apply_windows_3d(np, x, *(m.astype(x.dtype) for m in mats), scale)


_avg_pool3d = defop(
    "avg_pool3d",
    inputs=("x",),
    attrs=_AVG_ATTRS,
    infer_meta=_avg3d_meta,
    doc="3-D average pooling ((N, C, D, H, W) or (C, D, H, W)): the mean of each window",
)


@_avg_pool3d.def_backward
def _avg_pool3d_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """Each output's gradient spread evenly over its window: the adjoint, ``avg_pool3d_backward``."""
    a = ctx.attrs
    return (ctx.ops.avg_pool3d_backward(grad, tuple(ctx.input_shape(0)[-3:]), *(a[n] for n in _ATTR_NAMES)),)


def _avg3d_backward_meta(op: str, grad: Any, input_size: tuple[int, ...], **a: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(grad.shape[:-3]) + tuple(input_size), grad.dtype


@register_kernel("avg_pool3d_backward", Backend.CPU, dtypes=FLOAT_DTYPES)
def avg_pool3d_backward_cpu(grad: np.ndarray, input_size: tuple[int, int, int], **a: Any) -> np.ndarray:
    *mats, scale = avg_matrices_3d(tuple(input_size), a)
    return apply_windows_3d(np, grad, *(m.T.astype(grad.dtype) for m in mats), scale)


avg_pool3d_backward = defop(
    "avg_pool3d_backward",
    inputs=("grad",),
    attrs=(Attr("input_size", check=check_shape),) + _AVG_ATTRS,
    infer_meta=_avg3d_backward_meta,
    doc="gradient of avg_pool3d: each window's gradient spread evenly over it",
)


@avg_pool3d_backward.def_backward
def _avg_pool3d_backward_backward(ctx: Any, h: Any) -> tuple[Any]:
    """The adjoint of the adjoint: ``avg_pool3d`` itself."""
    a = ctx.attrs
    return (ctx.ops.avg_pool3d(h, *(a[n] for n in _ATTR_NAMES)),)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """``torch.nn.functional.avg_pool3d`` on ``(N, C, D, H, W)`` or ``(C, D, H, W)``: the ``avg_pool3d`` op
    (``AvgPool3DBackward0``, an unbatched input too, as PyTorch's); ``stride`` defaults to ``kernel_size``.

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.avg_pool3d(mg.arange(8.0).reshape(1, 1, 2, 2, 2), 2).tolist()
        [[[[[3.5]]]]]
    """
    op = "avg_pool3d"
    check_tensor(op, "input", 1, input)
    k = _ints(op, "kernel_size", 2, kernel_size, 3)
    s = _ints(op, "stride", 3, stride, 3, allow_empty=True) if stride is not None else None
    s = k if s is None else s
    p = _ints(op, "padding", 4, padding, 3)
    for name, v in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
        check_bool(op, name, 5, v)
    if min(s) <= 0:  # (a kernel of 0 is its default stride: PyTorch's words are the stride's)
        raise RuntimeError("stride should not be zero")
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if divisor_override is not None:
        if not _is_int(divisor_override):
            raise TypeError(f"{op}(): argument 'divisor_override' must be int or None, but got {type_name(divisor_override)}")
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
    if min(p) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p[0] if len(set(p)) == 1 else list(p)}")
    if any(pp * 2 > kk for pp, kk in zip(p, k)):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[0] if len(set(p)) == 1 else list(p)}, "
                           f"kernel_size={k[0] if len(set(k)) == 1 else list(k)} and dilation=1")
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if 0 in tuple(input.shape)[-4:]:  # (PyTorch's message says dimension 0, whichever it is)
        raise RuntimeError(f"{op}(): Expected input's non-batch dimensions to have positive length, but input has a "
                           f"shape of {list(input.shape)} and non-batch dimension 0 has length zero!")
    dhw = tuple(input.shape)[-3:]
    if any(n < kk for n, kk in zip(dhw, k)):  # (the input itself, its padding not counted: PyTorch's check; so
        # every output size is at least 1)
        raise RuntimeError(f"input image (T: {dhw[0]} H: {dhw[1]} W: {dhw[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    return _avg_pool3d(input, k, s, p, ceil_mode, count_include_pad, divisor_override)


# -- max pooling: PyTorch's forms of the max_pool2d op --------------------------------------------

def _check_pool_args(x: Tensor, k: tuple[int, int], s: tuple[int, int], p: tuple[int, int],
                     d: tuple[int, int], ceil_mode: bool = False) -> None:
    """max_pool2d's argument values (NOTE [ Window arguments are checked first ] in ``_window.py``), in PyTorch's
    order and words: the input's rank, each dim's output size (stride, padding against the dilated kernel),
    then ``pool2d_shape_check``'s kernel, stride, dilation, empty input, padding and output size."""
    if x.ndim not in (3, 4):
        raise ShapeError("max_pool2d(): non-empty 3D or 4D (batch mode) tensor expected for input")
    check_window_dims("max_pool2d(): ", k, s, p, d)
    if min(k) <= 0:
        raise ShapeError(f"max_pool2d(): kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if min(s) <= 0:
        raise ShapeError(f"max_pool2d(): stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if min(d) <= 0:
        raise ShapeError(f"max_pool2d(): dilation should be greater than zero, but got dilationH: {d[0]} "
                         f"dilationW: {d[1]}")
    if 0 in tuple(x.shape)[-3:]:
        raise ShapeError(f"max_pool2d(): Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                         f"input, but got:{list(x.shape)}")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise ShapeError(f"max_pool2d(): pad should be smaller than or equal to half of kernel size, but got padW = "
                         f"{p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}")
    c, h, w = tuple(x.shape)[-3:]
    oh, ow = pool_out_size(h, k[0], s[0], p[0], ceil_mode, d[0]), pool_out_size(w, k[1], s[1], p[1], ceil_mode, d[1])
    if oh <= 0 or ow <= 0:
        raise ShapeError(f"max_pool2d(): Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                         f"Output size is too small")


def max_pool2d(*args: Any, **kwargs: Any) -> Any:
    """``max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)``:
    the ``max_pool2d`` op (and ``max_pool2d_indices`` for the indices).

    ``input`` is ``(N, C, H, W)`` or unbatched ``(C, H, W)``; with
    ``return_indices`` the result is ``(values, indices)``, the indices being
    flat positions in each ``H * W`` plane, as PyTorch's.
    """
    a = bind_args("max_pool2d", POOL_ARGS, args, kwargs)
    x = a.get("input")
    check_tensor("max_pool2d", "input", 0, x)
    if "kernel_size" not in a:
        raise TypeError("max_pool2d() missing required argument 'kernel_size' (position 1)")
    k = int_pair("max_pool2d", "kernel_size", a["kernel_size"])
    stride = a.get("stride")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else int_pair("max_pool2d", "stride", stride)
    p = int_pair("max_pool2d", "padding", a.get("padding", 0))
    d = int_pair("max_pool2d", "dilation", a.get("dilation", 1))
    ceil_mode, return_indices = bool(a.get("ceil_mode", False)), bool(a.get("return_indices", False))
    _check_pool_args(x, k, s, p, d, ceil_mode)
    out = _max_pool2d(x, k, s, p, d, ceil_mode)  # batched or not, as PyTorch's
    if return_indices:
        return out, max_pool2d_indices(x, k, s, p, d, ceil_mode)
    return out


max_pool2d.name = "max_pool2d"  # type: ignore[attr-defined]
max_pool2d.op = _max_pool2d  # type: ignore[attr-defined]


#: PyTorch's words for a window argument of the wrong length, by op and argument (``{n}``: the length given)
_LENGTH_WORDS = {
    "avg_pool2d": {"kernel_size": "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints",
                   "stride": "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
                   "padding": "avg_pool2d: padding must either be a single int, or a tuple of two ints"},
    "avg_pool3d": {"kernel_size": "avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
                   "stride": "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
                   "padding": "avg_pool3d: padding must be a single int, or a tuple of three ints"},
    "max_pool1d": {"kernel_size": "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 "
                                  "but got size {n}",
                   "stride": "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
                             "got size {n}",
                   "padding": "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got "
                              "size {n}",
                   "dilation": "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got "
                               "size {n}"},
}


def _int_tuple(op: str, name: str, pos: int, v: Any) -> tuple[int, ...]:
    """``v`` (an int, or a tuple or list of ints) as a tuple, its length not checked; ``TypeError`` otherwise."""
    if _is_int(v):
        return (int(v),)
    if isinstance(v, (tuple, list)) and all(_is_int(d) for d in v):
        return tuple(int(d) for d in v)
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, not {type_name(v)}")


def _sized(op: str, name: str, v: tuple[int, ...], k: int, own_words: bool = True) -> tuple[int, ...]:
    """``v`` of one int or ``k`` ints as ``k`` ints; another length refused in PyTorch's words for ``op`` (with
    ``own_words=False``, or for ``avg_pool1d``, those of its ``check1d``)."""
    if len(v) == k:
        return v
    if len(v) == 1:
        return v * k
    if own_words and op in _LENGTH_WORDS:
        raise RuntimeError(_LENGTH_WORDS[op][name].format(n=len(v)))
    raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(v)})")


def _ints(op: str, name: str, pos: int, v: Any, k: int, allow_empty: bool = False) -> tuple[int, ...] | None:
    t = _int_tuple(op, name, pos, v)
    if allow_empty and not t:
        return None
    return _sized(op, name, t, k)


def _shaped(x: Tensor, dim: int) -> np.ndarray:
    """An array of no memory shaped as ``unsqueeze(x, dim)``: the 2-D checks run on it before a 1-D form's
    ``unsqueeze`` makes a node."""
    shape = list(x.shape)
    shape.insert(dim % (len(shape) + 1), 1)
    return np.broadcast_to(np.empty((), dtype=np.float32), tuple(shape))


def _check_dim_range(op: str, x: Tensor, low: int, high: int) -> None:
    """PyTorch's ``checkDimRange``: ``x`` has ``low`` to ``high`` dims."""
    if not low <= x.ndim <= high:
        raise RuntimeError(f"Expected {low} to {high} dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {op})")


def _out_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's ``pooling_output_shape`` with its checks, in its words: stride, padding, then the size."""
    check_window_dims("", (k,), (s,), (p,), (d,))
    return pool_out_size(n, k, s, p, ceil_mode, d) if k > 0 and s > 0 else 1  # (else refused next)


def _check_avg2d(x: Tensor, k: tuple[int, ...], s: tuple[int, ...], p: tuple[int, ...], ceil_mode: bool) -> None:
    """``avg_pool2d``'s checks after its arguments' lengths and divisor, in PyTorch's order and words: the
    input's dim -3, each dim's output size, then ``pool2d_shape_check``."""
    if x.ndim < 3:
        nd = max(x.ndim, 1)
        raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")
    c, h, w = tuple(x.shape)[-3:]
    oh, ow = _out_size(h, k[0], s[0], p[0], 1, ceil_mode), _out_size(w, k[1], s[1], p[1], 1, ceil_mode)
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    shape = tuple(x.shape)
    if not ((x.ndim == 3 and 0 not in shape) or (x.ndim == 4 and 0 not in shape[1:])):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(shape)}")
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size "
                           f"is too small")


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """``torch.nn.functional.avg_pool2d`` on ``(N, C, H, W)`` or ``(C, H, W)``; ``stride`` defaults to ``kernel_size``.

    ``count_include_pad=False`` divides each window by its number of real
    (not padding) inputs; ``divisor_override`` divides every window by one number.
    """
    op = "avg_pool2d"
    check_tensor(op, "input", 1, input)
    k = _ints(op, "kernel_size", 2, kernel_size, 2)
    s = _ints(op, "stride", 3, stride, 2, allow_empty=True) if stride is not None else None
    s = k if s is None else s
    p = _ints(op, "padding", 4, padding, 2)
    for name, v in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
        check_bool(op, name, 5, v)
    if divisor_override is not None:
        if not _is_int(divisor_override):
            raise TypeError(f"{op}(): argument 'divisor_override' must be int or None, but got {type_name(divisor_override)}")
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
    _check_avg2d(input, k, s, p, ceil_mode)
    return _avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override)  # batched or not, as PyTorch's


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """``torch.nn.functional.avg_pool1d`` on ``(N, C, L)`` or ``(C, L)``: composite, ``avg_pool2d`` over a height of
    1, after PyTorch's checks of the rank and the arguments' lengths."""
    op = "avg_pool1d"
    check_tensor(op, "input", 1, input)
    k = _int_tuple(op, "kernel_size", 1, kernel_size)
    s = _int_tuple(op, "stride", 2, stride) if stride is not None else ()
    p = _int_tuple(op, "padding", 3, padding)
    _check_dim_range(op, input, 2, 3)
    k = _sized(op, "kernel_size", k, 1)
    s = _sized(op, "stride", s or k, 1)
    p = _sized(op, "padding", p, 1)
    _check_avg2d(_shaped(input, -2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode)  # (before the unsqueeze's node)
    out = avg_pool2d(unsqueeze(input, -2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode, count_include_pad)
    return squeeze(out, -2)


# -- adaptive_avg_pool2d --------------------------------------------------------------------------

def _adaptive_meta(op: str, x: Any, output_size: tuple[int, int]) -> tuple[tuple[int, ...], Any]:
    if x.ndim != 4:
        raise ShapeError(f"{op}(): 'x' must be 4-D (N, C, H, W), but got shape {tuple(x.shape)}")
    return tuple(x.shape[:2]) + tuple(output_size), x.dtype


@register_kernel("adaptive_avg_pool2d", Backend.CPU, dtypes=FLOAT_DTYPES)
def adaptive_avg_pool2d_cpu(x: np.ndarray, output_size: tuple[int, int]) -> np.ndarray:
    h, w = x.shape[2:]
    tiled = adaptive_tiles((h, w), output_size)
    if tiled is not None:
        return tiled_mean(np, x, *tiled)
    return apply_windows(np, x, *_host_windows(adaptive_matrix(h, output_size[0]), adaptive_matrix(w, output_size[1]),
                                               1.0, x.dtype))


_adaptive_avg_pool2d = defop(
    "adaptive_avg_pool2d",
    inputs=("x",),
    attrs=(Attr("output_size", check=check_shape),),
    infer_meta=_adaptive_meta,
    doc="2-D average pooling to a given output size (windows of varying size)",
    layout="memory_format",
)


@_adaptive_avg_pool2d.def_backward
def _adaptive_avg_pool2d_backward(ctx: Any, grad: Any) -> tuple[Any]:
    h, w = ctx.input_shape(0)[2:]
    return (ctx.ops.adaptive_avg_pool2d_backward(grad, (h, w)),)


def _adaptive_backward_meta(op: str, grad: Any, input_size: tuple[int, int]) -> tuple[tuple[int, ...], Any]:
    return tuple(grad.shape[:2]) + tuple(input_size), grad.dtype


@register_kernel("adaptive_avg_pool2d_backward", Backend.CPU, dtypes=FLOAT_DTYPES)
def adaptive_avg_pool2d_backward_cpu(grad: np.ndarray, input_size: tuple[int, int]) -> np.ndarray:
    (h, w), (oh, ow) = input_size, grad.shape[2:]
    tiled = adaptive_tiles((h, w), (oh, ow))
    if tiled is not None:
        return tiled_mean_adjoint(np, grad, *tiled)
    rows, cols, scale = _host_windows(adaptive_matrix(h, oh), adaptive_matrix(w, ow), 1.0, grad.dtype)
    return apply_windows(np, grad, rows.T, cols.T, scale)


adaptive_avg_pool2d_backward = defop(
    "adaptive_avg_pool2d_backward",
    inputs=("grad",),
    attrs=(Attr("input_size", check=check_shape),),
    infer_meta=_adaptive_backward_meta,
    doc="gradient of adaptive_avg_pool2d: each window's gradient spread evenly over it",
)


@adaptive_avg_pool2d_backward.def_backward
def _adaptive_avg_pool2d_backward_backward(ctx: Any, h: Any) -> tuple[Any]:
    grad_shape = ctx.input_shape(0)
    return (ctx.ops.adaptive_avg_pool2d(h, tuple(grad_shape[2:])),)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """``torch.nn.functional.adaptive_avg_pool2d``: average pooling of ``(N, C, H, W)`` or ``(C, H, W)`` to
    ``output_size`` (an int, or a pair whose ``None`` keeps that input size). PyTorch's checks in its order: the
    size's length and signs, then (unless the size is 1 x 1, a mean of any tensor of 2 or more dims) the rank
    and the empty dims."""
    op = "adaptive_avg_pool2d"
    check_tensor(op, "input", 1, input)
    size = _output_size(op, output_size, input, 2)
    if size == (1, 1):  # PyTorch's: a mean over the plane (MeanBackward1), batched or not
        if input.ndim < 2:
            raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                                  f"{max(input.ndim, 1) - 1}], but got -2)")
        out = _mean(input, (-1, -2), keepdim=True)
        if input.ndim == 4 and format_of(input._data) == "channels_last":  # restrided so (AsStridedBackward1)
            n, c = input.shape[:2]
            out.as_strided_((n, c, 1, 1), (c, 1, c, c))
        return out
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{op}(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    for d in (input.ndim - 2, input.ndim - 1):
        if input.shape[d] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {d} being empty")
    unbatched = input.ndim == 3
    xb = unsqueeze(input, 0) if unbatched else input
    out = _adaptive_avg_pool2d(xb, size)
    return squeeze(out, 0) if unbatched else out


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """``torch.nn.functional.adaptive_avg_pool1d`` on ``(N, C, L)`` or ``(C, L)``: composite, the 2-D op over a height
    of 1, after PyTorch's checks of the rank and the size's length."""
    op = "adaptive_avg_pool1d"
    check_tensor(op, "input", 1, input)
    size = _int_tuple(op, "output_size", 2, output_size)
    _check_dim_range(op, input, 2, 3)
    if len(size) != 1:
        raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got {len(size)})")
    _output_size("adaptive_avg_pool2d", (1, size[0]), _shaped(input, -2), 2)  # (before the unsqueeze's node)
    for d in (input.ndim - 1, input.ndim):
        if _shaped(input, -2).shape[d] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {list(_shaped(input, -2).shape)} with dimension {d} being empty")
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), (1, size[0])), -2)


def _output_size(op: str, v: Any, x: Tensor, k: int) -> tuple[int, ...]:
    """``output_size`` as ``k`` ints, a ``None`` taking the input's size there (PyTorch's ``_list_with_default``),
    checked in PyTorch's words: its length, then its signs."""
    if _is_int(v):
        items: tuple[Any, ...] = (int(v),) * k
    elif isinstance(v, (tuple, list)):
        if x.ndim <= len(v):
            raise ValueError(f"Input dimension should be at least {len(v) + 1}")
        items = tuple(n if i is None else i for i, n in zip(v, tuple(x.shape)[-len(v):]))
    else:
        items = ()
    if not isinstance(v, (tuple, list)) and not _is_int(v) or not all(_is_int(i) for i in items):
        raise TypeError(f"{op}(): argument 'output_size' must be an int or a tuple of {k} ints, but got {v!r}")
    if len(items) != k:
        raise RuntimeError(f"{op}: output_size must be {k}")
    size = tuple(int(i) for i in items)
    if min(size) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, size))}}}")
    return size


# -- max pooling forms (composite) ------------------------------------------------------------

def _check_max_pool1d(x: Tensor, k: tuple[int, ...], s: tuple[int, ...], p: tuple[int, ...], d: tuple[int, ...],
                      ceil_mode: bool) -> None:
    """PyTorch's ``max_pool1d`` checks (its path without indices), in its order and words."""
    op = "max_pool1d"
    shape = tuple(x.shape)
    if not ((x.ndim == 2 and 0 not in shape) or (x.ndim == 3 and 0 not in shape[1:])):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(shape)}")
    k, s, p, d = (_sized(op, name, v, 1)[0] for name, v in
                  (("kernel_size", k), ("stride", s or k), ("padding", p), ("dilation", d)))
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = pool_out_size(shape[-1], k, s, p, ceil_mode, d)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``torch.nn.functional.max_pool1d`` on ``(N, C, L)`` or ``(C, L)``: ``max_pool2d`` over a height of 1 (composite).
    With ``return_indices`` the indices are positions along ``L``. PyTorch checks the arguments in two ways:
    ``max_pool1d``'s own checks, or (with indices, or an input that requires grad) those of
    ``max_pool1d_with_indices``, which leaves the values' checks to ``max_pool2d``."""
    op = "max_pool1d"
    check_tensor(op, "input", 1, input)
    k = _int_tuple(op, "kernel_size", 1, kernel_size)
    s = _int_tuple(op, "stride", 2, stride) if stride is not None else ()
    p, d = _int_tuple(op, "padding", 3, padding), _int_tuple(op, "dilation", 4, dilation)
    if return_indices or (input.requires_grad and GRAD_MODE.enabled):
        _check_dim_range(op, input, 2, 3)
        k, s, p, d = (_sized(op, name, v, 1, own_words=False) for name, v in
                      (("kernel_size", k), ("stride", s or k), ("padding", p), ("dilation", d)))
    else:
        _check_max_pool1d(input, k, s, p, d, ceil_mode)
    k, s, p, d = k[0], (s or k)[0], p[0], d[0]
    _check_pool_args(_shaped(input, -2), (1, k), (1, s), (0, p), (1, d), ceil_mode)  # (before the unsqueeze's node)
    out = max_pool2d(unsqueeze(input, -2), (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    if return_indices:
        return squeeze(out[0], -2), squeeze(out[1], -2)
    return squeeze(out, -2)


# -- power-average pooling: PyTorch's decomposition ----------------------------------------------------------

def _lp_pool(op: str, avg: Any, input: Any, norm_type: Any, kernel_size: Any, stride: Any, ceil_mode: bool,
             scale: Any) -> Tensor:
    """PyTorch's ``lp_pool*d`` op for op: ``avg`` of ``input ** p`` (no padding), then
    ``(sign(out) * relu(abs(out))) * scale`` to the power ``1 / p`` (``scale`` the window's size, so the mean
    becomes the sum); an infinite ``p`` is a max pool of ``abs(input)``."""
    check_tensor(op, "input", 0, input)
    if op == "lp_pool1d":  # the average pool's refusal of the rank, before any op runs (as a node would)
        _check_dim_range("avg_pool1d", input, 2, 3)
    elif op == "lp_pool2d" and input.ndim < 3:
        nd = max(input.ndim, 1)
        raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got -3)")
    elif op == "lp_pool3d" and input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if isinstance(norm_type, (int, float)) and not isinstance(norm_type, bool) and math.isinf(norm_type):
        if op == "lp_pool3d":
            raise NotImplementedError("lp_pool3d(): an infinite norm_type is max_pool3d's, which minigrad does not have")
        pool = max_pool1d if op == "lp_pool1d" else max_pool2d
        if norm_type > 0:
            return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    powered = input.pow(norm_type)
    out = (avg(powered, kernel_size, stride, 0, ceil_mode) if stride is not None
           else avg(powered, kernel_size, padding=0, ceil_mode=ceil_mode))
    return (out.sign() * out.abs().relu()).mul(scale).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """``torch.nn.functional.lp_pool1d``: the ``norm_type``-norm of each window, ``(sum x^p)^(1/p)``; PyTorch's
    decomposition (``pow``, ``avg_pool1d``, ``sign``, ``abs``, ``relu``, ``mul``, ``pow``). A window whose powers
    sum to zero has a zero gradient.

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.lp_pool1d(mg.tensor([[[3.0, 4.0]]]), 2, 2).tolist()
        [[[5.0]]]
    """
    return _lp_pool("lp_pool1d", avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode, kernel_size)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """``torch.nn.functional.lp_pool2d``: ``lp_pool1d`` over ``kernel_size`` windows of the last two dims
    (``avg_pool2d`` in the decomposition)."""
    kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size, kernel_size)
    return _lp_pool("lp_pool2d", avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode, kw * kh)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """``torch.nn.functional.lp_pool3d``: ``lp_pool1d`` over ``kernel_size`` windows of the last three dims
    (``avg_pool3d`` in the decomposition)."""
    kd, kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 3
    return _lp_pool("lp_pool3d", avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode, kd * kw * kh)
