"""3-D pooling: the ``max_pool3d`` op (PyTorch's ``max_pool3d_with_indices``, node
``MaxPool3DWithIndicesBackward0``) and the ``adaptive_avg_pool3d`` op (``AdaptiveAvgPool3DBackward0``), and the
``*_with_indices`` forms of 1-, 2- and 3-D max pooling.

``max_pool3d`` is ``max_pool2d`` (``ops/pooling.py``) over ``(D, H, W)`` volumes: ``(N, C, D, H, W)`` or unbatched
``(C, D, H, W)``, stride, symmetric padding, dilation and ``ceil_mode``. Each window's first maximum (its last
NaN) takes the window's whole gradient: ``max_pool3d_grad`` adds it there and ``max_pool3d_select``, its
adjoint, reads it back, so double backward works. ``max_pool3d_indices`` gives the flat ``D * H * W`` position
of each maximum, which ``max_unpool3d`` takes, as PyTorch's.

``adaptive_avg_pool3d`` averages windows ``[floor(o n / out), ceil((o + 1) n / out))`` along each dim: three small
matrix products (NOTE [ Average pooling is two small matrix products ] in ``ops/pooling.py``, a third along the
depth); its gradient op is the adjoint, and each is the other's backward. An output of ``1`` everywhere is
PyTorch's shortcut, a ``mean`` over the volume (``MeanBackward1``).

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.max_pool3d(mg.arange(8.0).reshape(1, 1, 2, 2, 2), 2).tolist()
    [[[[[7.0]]]]]
    >>> F.adaptive_avg_pool3d(mg.arange(8.0).reshape(1, 2, 2, 2), (1, 2, 1)).tolist()
    [[[[2.5], [4.5]]]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels.key import Backend
from ..kernels.pool_windows import apply_windows_3d, plane_gather, plane_scatter, pool_out_size
from ..kernels.registry import register_kernel
from ..kernels.volume_windows import adaptive_matrices, max_pool3d_positions
from ..tensor import Tensor
from ._checks import _is_int, check_bool, check_shape, check_tensor
from ._window import check_window_dims
from .pooling import max_pool1d, max_pool2d
from .reduce import mean as _mean
from .registry import Attr, Input, defop, type_name

__all__ = ["max_pool3d", "max_pool3d_grad", "max_pool3d_select", "max_pool3d_indices", "max_pool1d_with_indices"]


# -- the max_pool3d op and its gradient ops ----------------------------------------------------------------

_POOL_ATTRS = (Attr("kernel_size", check=check_shape), Attr("stride", check=check_shape),
               Attr("padding", (0, 0, 0), check_shape), Attr("dilation", (1, 1, 1), check_shape),
               Attr("ceil_mode", False, check_bool))


def _out_shape(x: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool) -> tuple[int, ...]:
    out = tuple(pool_out_size(n, k, s, p, ceil_mode, d)
                for n, k, s, p, d in zip(x.shape[-3:], kernel_size, stride, padding, dilation))
    return tuple(x.shape[:-3]) + out


def _pool_meta(op: str, x: Any, **w: Any) -> Any:
    return _out_shape(x, **w), x.dtype


def _positions(x: np.ndarray, w: tuple[Any, ...]) -> np.ndarray:
    return max_pool3d_positions(np, x, *w)


@register_kernel("max_pool3d", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool3d")
def max_pool3d_cpu(x, kernel_size, stride, padding, dilation, ceil_mode):
    return plane_gather(np, x, _positions(x, (kernel_size, stride, padding, dilation, ceil_mode)), 3)


_max_pool3d = defop(
    "max_pool3d",
    inputs=("x",),
    attrs=_POOL_ATTRS,
    infer_meta=_pool_meta,
    save=("x",),
    doc="3-D max pooling over kernel_size windows ((N, C, D, H, W) or (C, D, H, W)), dilated, ceil_mode as PyTorch's",
    layout="memory_format",
)


def _window(a: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(a[attr.name] for attr in _POOL_ATTRS)


@_max_pool3d.def_backward
def _max_pool3d_backward(ctx, g):
    (x,) = ctx.saved()
    return (ctx.ops.max_pool3d_grad(g, x, *_window(ctx.attrs)),)


@register_kernel("max_pool3d_indices", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool3d_indices")
def max_pool3d_indices_cpu(x, kernel_size, stride, padding, dilation, ceil_mode):
    return _positions(x, (kernel_size, stride, padding, dilation, ceil_mode))


max_pool3d_indices = defop(
    "max_pool3d_indices",
    inputs=("x",),
    attrs=_POOL_ATTRS,
    infer_meta=lambda op, x, **w: (_out_shape(x, **w), np.dtype(np.int64)),
    differentiable=False,
    layout="memory_format",
    doc="the flat position in each D * H * W volume of each max_pool3d window's maximum: the first, or the last NaN "
        "(int64; return_indices=True)",
)


@register_kernel("max_pool3d_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool3d_grad")
def max_pool3d_grad_cpu(grad, x, kernel_size, stride, padding, dilation, ceil_mode):
    pos = _positions(x, (kernel_size, stride, padding, dilation, ceil_mode))
    return plane_scatter(np, grad, pos, tuple(x.shape[-3:]), np.add.at)  # windows overlap: add


max_pool3d_grad = defop(
    "max_pool3d_grad",
    inputs=("grad", "x"),  # x: PyTorch's max_pool3d_with_indices_backward's self, whose gradient is zeros
    attrs=_POOL_ATTRS,
    infer_meta=lambda op, grad, x, **w: (tuple(x.shape), grad.dtype),
    save=("x",),
    key_inputs=(0,),
    doc="scatter each window's gradient to its argmax (the backward of max_pool3d)",
)


@max_pool3d_grad.def_backward
def _max_pool3d_grad_backward(ctx, h):
    """PyTorch's ``MaxPool3DWithIndicesBackwardBackward0``: ``h`` gathered at each window's argmax, and zeros for
    ``x`` (PyTorch's ``zeros_like(self)``)."""
    (x,) = ctx.saved()
    zeros = ctx.ops.fill(h, 0.0) if ctx.needs(1) else None
    return ctx.ops.max_pool3d_select(h, x, *_window(ctx.attrs)), zeros


@register_kernel("max_pool3d_select", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/max_pool3d_select")
def max_pool3d_select_cpu(grad_x, x, kernel_size, stride, padding, dilation, ceil_mode):
    return plane_gather(np, grad_x, _positions(x, (kernel_size, stride, padding, dilation, ceil_mode)), 3)


max_pool3d_select = defop(
    "max_pool3d_select",
    inputs=("grad_x", Input("x", differentiable=False)),
    attrs=_POOL_ATTRS,
    infer_meta=lambda op, grad_x, x, **w: (_out_shape(x, **w), grad_x.dtype),
    save=("x",),
    key_inputs=(0,),
    doc="gather grad_x at each max_pool3d window's argmax (the adjoint of max_pool3d_grad)",
)


@max_pool3d_select.def_backward
def _max_pool3d_select_backward(ctx, h):
    (x,) = ctx.saved()
    return (ctx.ops.max_pool3d_grad(h, x, *_window(ctx.attrs)), None)


# -- the forms --------------------------------------------------------------------------------------------

def _triple(name: str, v: Any, words: str) -> tuple[int, ...]:
    """An int or a tuple of one or three ints, refused in PyTorch's words (``max_pool3d: {name} must ...``)."""
    if _is_int(v):
        return (int(v),) * 3
    if not isinstance(v, (tuple, list)) or not all(_is_int(i) for i in v):
        pos = ("kernel_size", "stride", "padding", "dilation").index(name) + 2
        raise TypeError(f"max_pool3d(): argument '{name}' (position {pos}) must be tuple of ints, not {type_name(v)}")
    if len(v) not in (1, 3):
        raise RuntimeError(f"max_pool3d: {name} {words}")
    return tuple(int(i) for i in v) * (3 if len(v) == 1 else 1)


def _check_window(x: Tensor, k: tuple[int, ...], s: tuple[int, ...], p: tuple[int, ...], d: tuple[int, ...]) -> None:
    """PyTorch's ``pooling_output_shape`` per dim, then ``pool3d_shape_check``, in their words and order."""
    if x.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    check_window_dims("", k, s, p, d)
    for words, values, names in (("kernel size", k, ("kT", "kH", "kW")), ("stride", s, ("dT", "dH", "dW")),
                                 ("dilation", d, ("dilationT", "dilationH", "dilationW"))):
        if min(values) <= 0:
            got = " ".join(f"{n}: {v}" for n, v in zip(names, values))
            raise RuntimeError(f"{words} should be greater than zero, but got {got}")
    for i, n in enumerate(x.shape[x.ndim - 4:]):
        if n == 0:
            raise RuntimeError(f"max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to "
                               f"have positive length, but input has a shape of {list(x.shape)} and non-batch "
                               f"dimension {i} has length zero!")


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.max_pool3d_with_indices``: ``max_pool3d``'s values and indices (flat positions in each
    ``D * H * W`` volume, what ``max_unpool3d`` takes), whatever ``return_indices`` says."""
    check_tensor("max_pool3d", "input", 0, input)
    k = _triple("kernel_size", kernel_size, "must either be a single int, or a tuple of three ints")
    empty = stride is None or (isinstance(stride, (tuple, list)) and not stride)
    s = k if empty else _triple("stride", stride, "must either be omitted, a single int, or a tuple of three ints")
    p = _triple("padding", padding, "must either be a single int, or a tuple of three ints")
    d = _triple("dilation", dilation, "must be either a single int, or a tuple of three ints")
    check_bool("max_pool3d", "ceil_mode", 5, ceil_mode)
    _check_window(input, k, s, p, d)
    spatial, lead = tuple(input.shape[-3:]), input.shape[-4]
    out = _out_shape(input, k, s, p, d, ceil_mode)[-3:]
    if min(out) <= 0:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (lead,) + spatial))}). Calculated output size: "
                           f"({'x'.join(map(str, (lead,) + out))}). Output size is too small")
    return _max_pool3d(input, k, s, p, d, ceil_mode), max_pool3d_indices(input, k, s, p, d, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``torch.nn.functional.max_pool3d`` on ``(N, C, D, H, W)`` or ``(C, D, H, W)``: the ``max_pool3d`` op
    (``MaxPool3DWithIndicesBackward0``); ``stride`` defaults to ``kernel_size``, and with ``return_indices`` the
    indices come too (``max_pool3d_indices``).

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.max_pool3d(mg.arange(27.0).reshape(1, 3, 3, 3), 2, stride=1).shape
        minigrad.Size([1, 2, 2, 2])
    """
    out, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


max_pool3d.name = "max_pool3d"  # type: ignore[attr-defined]
max_pool3d.op = _max_pool3d  # type: ignore[attr-defined]


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.max_pool1d_with_indices`` (and ``torch.max_pool1d_with_indices``): ``max_pool1d``'s
    values and indices (positions along ``L``), whatever ``return_indices`` says."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.max_pool2d_with_indices``: ``max_pool2d``'s values and indices (flat positions in each
    ``H * W`` plane), whatever ``return_indices`` says."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# -- adaptive_avg_pool3d --------------------------------------------------------------------------------------

@register_kernel("adaptive_avg_pool3d", Backend.CPU, dtypes=FLOAT_DTYPES)
def adaptive_avg_pool3d_cpu(x: np.ndarray, output_size: tuple[int, ...]) -> np.ndarray:
    return apply_windows_3d(np, x, *adaptive_matrices(np, tuple(x.shape[-3:]), tuple(output_size), x.dtype), 1.0)


_adaptive_avg_pool3d = defop(
    "adaptive_avg_pool3d",
    inputs=("x",),
    attrs=(Attr("output_size", check=check_shape),),
    infer_meta=lambda op, x, output_size: (tuple(x.shape[:-3]) + tuple(output_size), x.dtype),
    doc="3-D average pooling of (N, C, D, H, W) or (C, D, H, W) to a given output size (windows of varying size)",
)


@_adaptive_avg_pool3d.def_backward
def _adaptive_avg_pool3d_backward(ctx: Any, grad: Any) -> tuple[Any]:
    return (ctx.ops.adaptive_avg_pool3d_backward(grad, tuple(ctx.input_shape(0)[-3:])),)


@register_kernel("adaptive_avg_pool3d_backward", Backend.CPU, dtypes=FLOAT_DTYPES)
def adaptive_avg_pool3d_backward_cpu(grad: np.ndarray, input_size: tuple[int, ...]) -> np.ndarray:
    mats = adaptive_matrices(np, tuple(input_size), tuple(grad.shape[-3:]), grad.dtype)
    return apply_windows_3d(np, grad, *(m.T for m in mats), 1.0)


adaptive_avg_pool3d_backward = defop(
    "adaptive_avg_pool3d_backward",
    inputs=("grad",),
    attrs=(Attr("input_size", check=check_shape),),
    infer_meta=lambda op, grad, input_size: (tuple(grad.shape[:-3]) + tuple(input_size), grad.dtype),
    doc="gradient of adaptive_avg_pool3d: each window's gradient spread evenly over it",
)


@adaptive_avg_pool3d_backward.def_backward
def _adaptive_avg_pool3d_backward_backward(ctx: Any, h: Any) -> tuple[Any]:
    """The adjoint of the adjoint: ``adaptive_avg_pool3d`` itself."""
    return (ctx.ops.adaptive_avg_pool3d(h, tuple(ctx.input_shape(0)[-3:])),)


def _output_size(v: Any, spatial: tuple[int, ...]) -> tuple[int, ...]:
    op = "adaptive_avg_pool3d"
    items = (v,) * 3 if _is_int(v) or v is None else tuple(v) if isinstance(v, (tuple, list)) else None
    if items is None or not all(i is None or _is_int(i) for i in items):
        raise TypeError(f"{op}(): argument 'output_size' must be tuple of ints, but got {type_name(v)}")
    if len(items) != 3:
        raise RuntimeError(f"{op}: output_size must be 3")
    size = tuple(n if i is None else int(i) for i, n in zip(items, spatial))
    if min(size) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{size[0]}, {size[1]},{size[2]}}}")  # (PyTorch's spacing)
    return size


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """``torch.nn.functional.adaptive_avg_pool3d``: average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to
    ``output_size`` (an int, or a triple whose ``None`` keeps that input size). The op, batched or not
    (``AdaptiveAvgPool3DBackward0``); a size of ``(1, 1, 1)`` is PyTorch's ``mean`` over the volume."""
    op = "adaptive_avg_pool3d"
    check_tensor(op, "input", 0, input)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"{op}(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    size = _output_size(output_size, tuple(input.shape[-3:]))
    for i in range(input.ndim - 4, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if size == (1, 1, 1):
        return _mean(input, (-1, -2, -3), keepdim=True)
    return _adaptive_avg_pool3d(input, size)
