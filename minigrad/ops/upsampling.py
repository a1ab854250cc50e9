"""``torch.nn.functional.interpolate``: resizing the spatial dims of an ``(N, C, d1, ...)`` input, with PyTorch's ops.

Each mode and rank is an op of its own, as PyTorch's, with its node:

- ``nearest``: ``upsample_nearest1d/2d/3d`` (``UpsampleNearest2DBackward0``); output ``o`` reads input
  ``floor(o * s)``; ``nearest-exact``: ``upsample_nearest_exact1d/2d/3d`` (PyTorch's
  ``_upsample_nearest_exact*d``, ``UpsampleNearestExact2DBackward0``), ``floor((o + 0.5) * s)``;
- ``linear`` / ``bilinear`` / ``trilinear``: ``upsample_linear1d`` / ``upsample_bilinear2d`` /
  ``upsample_trilinear3d``, two neighbours per dim, weights ``1 - t`` and ``t``; ``align_corners=True``
  maps the corner pixels' centres onto each other;
- ``bicubic``: ``upsample_bicubic2d``, four neighbours, Keys' cubic convolution with ``A = -0.75``;
- ``antialias=True`` (bilinear, bicubic): ``upsample_bilinear2d_aa`` / ``upsample_bicubic2d_aa`` (PyTorch's
  ``_upsample_*_aa``), every input under a filter stretched by the scale, so shrinking averages instead of
  skipping pixels;
- ``area``: ``adaptive_avg_pool1d/2d`` to the output size (3-D: twice the 2-D pool; PyTorch's is one 3-D pool).

``s`` is ``in / out``, or ``1 / scale_factor`` when a ``scale_factor`` is given and
``recompute_scale_factor`` is not set, as PyTorch computes it (NOTE [ Upsampling is separable ] in
``kernels/upsample.py``: the taps, and where PyTorch's kernels round). Every op is linear in its input: its
gradient is its ``*_backward`` op (the weighted reads scattered back), whose gradient is the op again.

Also here: ``pixel_shuffle`` / ``pixel_unshuffle`` (channels to pixels and back), one op each.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([[[1.0, 2.0]]])
    >>> mg.nn.functional.interpolate(x, scale_factor=2, mode="nearest").tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    >>> mg.nn.functional.interpolate(x, size=3, mode="linear", align_corners=True).tolist()
    [[[1.0, 1.5, 2.0]]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..errors import ShapeError
from ..kernels.array_kernels import channel_shuffle_arrays, pixel_shuffle_arrays, pixel_unshuffle_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.upsample import (UPSAMPLE_OPS, add_at_sorted, dim_taps, kernel_dtypes, resample_arrays,
                                resample_backward_arrays)
from ..tensor import Tensor
from ._checks import _is_int, check_bool, check_int, check_shape, check_tensor
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from .registry import Attr, defop, type_name
from .shape import reshape

__all__ = ["pixel_shuffle", "pixel_unshuffle"]  # torch.pixel_shuffle, torch.pixel_unshuffle; interpolate in F only

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


# -- the upsample ops and their gradients: one pair per PyTorch op, made from UPSAMPLE_OPS -----------------

def _check_scales(op: str, name: str, pos: int, v: Any) -> tuple[float | None, ...] | None:
    """None (every dim's scale is its sizes' ratio), or one scale per spatial dim: a number, or None."""
    if v is None:
        return None
    items = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    for item in items:
        if item is not None and (isinstance(item, bool) or not isinstance(item, (int, float))):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a tuple of floats or None, "
                            f"but got {type_name(item)}")
    return tuple(None if item is None else float(item) for item in items)


def _sized_meta(rank: int) -> Any:
    """InferMeta of a ``rank``-D upsample op and of its gradient: an ``(N, C, *spatial)`` input, ``rank`` sizes and
    scales; the spatial dims become the sizes (``output_size``, or the gradient's ``input_size``)."""
    def meta(op: str, x: Any, output_size: Any = None, align_corners: bool = False,
             scales: tuple[float | None, ...] | None = None, input_size: Any = None) -> tuple[tuple[int, ...], Any]:
        sizes = tuple(output_size if input_size is None else input_size)
        if x.ndim != rank + 2 or len(sizes) != rank or (scales is not None and len(scales) != rank):
            raise RuntimeError(f"{op}(): expected a {rank + 2}-D input and {rank} sizes and scales, but got input "
                               f"{list(x.shape)}, sizes {list(sizes)} and scales {scales}")
        return tuple(x.shape[:2]) + tuple(sizes), x.dtype
    return meta


def _attrs(aligned: bool, sizes: str) -> tuple[Attr, ...]:
    """``(sizes, [align_corners,] scales)``, as the PyTorch op's arguments."""
    first = Attr(sizes, check=check_shape)
    return (first, Attr("align_corners", False, check_bool), Attr("scales", None, _check_scales)) if aligned else (
        first, Attr("scales", None, _check_scales))


#: the upsample ops by name (``interpolate`` picks one)
_UPSAMPLE: dict[str, Any] = {}


def _define_upsample(name: str, mode: str, rank: int) -> None:
    """The op ``name`` and its ``name_backward``, with their CPU kernels and formulas (each is the other's gradient).
    The GPU kernels are ``kernels/gpu/library.py``'s, made from the same table."""
    aligned = mode not in ("nearest", "nearest-exact")

    def forward_cpu(x: np.ndarray, output_size: tuple[int, ...], align_corners: bool = False,
                    scales: tuple[float | None, ...] | None = None) -> np.ndarray:
        return resample_arrays(np, x, dim_taps(name, tuple(x.shape[-rank:]), tuple(output_size), bool(align_corners),
                                               scales or (None,) * rank, x.dtype.str))

    def backward_cpu(grad: np.ndarray, input_size: tuple[int, ...], align_corners: bool = False,
                     scales: tuple[float | None, ...] | None = None) -> np.ndarray:
        taps = dim_taps(name, tuple(input_size), tuple(grad.shape[-rank:]), bool(align_corners),
                        scales or (None,) * rank, grad.dtype.str, True)
        return resample_backward_arrays(np, add_at_sorted, grad, tuple(input_size), taps)

    register_kernel(name, Backend.CPU, dtypes=kernel_dtypes(mode), name=f"cpu/{name}")(forward_cpu)
    register_kernel(f"{name}_backward", Backend.CPU, dtypes=kernel_dtypes(mode), name=f"cpu/{name}_backward")(backward_cpu)
    what = f"{rank}-D {mode} interpolation"
    op = defop(name, inputs=("x",), out=False, attrs=_attrs(aligned, "output_size"), infer_meta=_sized_meta(rank),
               layout="memory_format", doc=f"{what} of the last {rank} dims to output_size (PyTorch's scales: 1 / scale_factor)")
    grad_op = defop(f"{name}_backward", inputs=("grad",), out=False, attrs=_attrs(aligned, "input_size"),
                    infer_meta=_sized_meta(rank),
                    doc=f"gradient of {name}: each output's gradient added back to the inputs it read, weighted")

    def rest(ctx: Any) -> tuple[Any, ...]:
        return (ctx.attrs["align_corners"], ctx.attrs["scales"]) if aligned else (ctx.attrs["scales"],)

    @op.def_backward
    def _backward(ctx: Any, grad: Any) -> tuple[Any]:
        return (getattr(ctx.ops, f"{name}_backward")(grad, tuple(ctx.input_shape(0)[-rank:]), *rest(ctx)),)

    @grad_op.def_backward
    def _backward_backward(ctx: Any, h: Any) -> tuple[Any]:
        return (getattr(ctx.ops, name)(h, tuple(ctx.input_shape(0)[-rank:]), *rest(ctx)),)

    _UPSAMPLE[name] = op


for _name, (_mode, _rank) in UPSAMPLE_OPS.items():
    _define_upsample(_name, _mode, _rank)

#: interpolate's mode -> its op of each rank (with ``antialias=True``: ``upsample_{mode}2d_aa``)
_OPS_OF_MODE = {
    "nearest": {1: "upsample_nearest1d", 2: "upsample_nearest2d", 3: "upsample_nearest3d"},
    "nearest-exact": {1: "upsample_nearest_exact1d", 2: "upsample_nearest_exact2d", 3: "upsample_nearest_exact3d"},
    "linear": {1: "upsample_linear1d"}, "bilinear": {2: "upsample_bilinear2d"}, "trilinear": {3: "upsample_trilinear3d"},
    "bicubic": {2: "upsample_bicubic2d"},
}


# -- interpolate ----------------------------------------------------------------------------------------

def _as_tuple(op: str, name: str, v: Any, k: int, kind: type) -> tuple[Any, ...]:
    if isinstance(v, (list, tuple)):
        if len(v) != k:
            raise ShapeError(
                f"{op}(): Input and {name} must have the same number of spatial dimensions, but got input with "
                f"{k} spatial dimensions and {name} of length {len(v)}. Please provide input tensor in "
                f"(N, C, d1, d2, ...,dK) format and {name} in (o1, o2, ...,oK) format."
            )
        items = tuple(v)
    else:
        items = (v,) * k
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, float) if kind is float else int):
            raise TypeError(f"{op}(): argument '{name}' must be {'a number' if kind is float else 'an int'} or a "
                            f"sequence of them, but got {type_name(item)}")
    return tuple(kind(i) for i in items)


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims of ``input`` (``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)``) to ``size``
    or by ``scale_factor``, as ``torch.nn.functional.interpolate``: one upsample op, as PyTorch's (the module
    docstring), or adaptive average pooling for ``area``."""
    op = "interpolate"
    check_tensor(op, "input", 0, input)
    if mode not in _MODES or input.ndim not in (3, 4, 5):
        raise NotImplementedError(
            f"{op}(): Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: "
            f"{' | '.join(_MODES)} (got {mode})"
        )
    if align_corners is not None and mode not in ("linear", "bilinear", "trilinear", "bicubic"):
        raise ShapeError(f"{op}(): align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and (mode not in ("bilinear", "bicubic") or input.ndim != 4):
        raise ShapeError(f"{op}(): Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input")
    k = input.ndim - 2
    if mode in _LINEAR_DIMS and _LINEAR_DIMS[mode] != k:
        raise NotImplementedError(f"{op}(): Got {input.ndim}D input, but {mode} mode needs {_LINEAR_DIMS[mode] + 2}D input")
    if (size is None) == (scale_factor is None):
        raise ShapeError(f"{op}(): " + ("either size or scale_factor should be defined" if size is None
                                        else "only one of size or scale_factor should be defined"))
    in_sizes = tuple(input.shape[2:])
    if size is not None:
        out_sizes = _as_tuple(op, "size", size, k, int)
        scales: tuple[float | None, ...] = (None,) * k
    else:
        factors = _as_tuple(op, "scale_factor", scale_factor, k, float)
        out_sizes = tuple(int(math.floor(n * f)) for n, f in zip(in_sizes, factors))
        scales = (None,) * k if recompute_scale_factor else factors
    if any(n <= 0 for n in in_sizes + out_sizes):
        raise RuntimeError(f"{op}(): Input and output sizes should be greater than 0, but got input {in_sizes} "
                           f"output {out_sizes}")
    if mode == "area":
        return _area(input, out_sizes)
    name = f"upsample_{mode}2d_aa" if antialias else _OPS_OF_MODE[mode][k]
    resize = _UPSAMPLE[name]
    if mode in ("nearest", "nearest-exact"):
        return resize(input, out_sizes, scales)
    return resize(input, out_sizes, bool(align_corners), scales)


def _area(x: Tensor, out_sizes: tuple[int, ...]) -> Tensor:
    """``area`` mode: adaptive average pooling. A 3-D pool is separable too: pool (H, W) on every depth
    slice, then pool D with the (H, W) positions flattened (a window of size 1 along them)."""
    if len(out_sizes) == 1:
        return adaptive_avg_pool1d(x, out_sizes[0])
    if len(out_sizes) == 2:
        return adaptive_avg_pool2d(x, out_sizes)
    n, c, d, h, w = x.shape
    od, oh, ow = out_sizes
    planes = adaptive_avg_pool2d(reshape(x, (n, c * d, h, w)), (oh, ow))
    depth = adaptive_avg_pool2d(reshape(planes, (n, c, d, oh * ow)), (od, oh * ow))
    return reshape(depth, (n, c, od, oh, ow))


# -- pixel_shuffle / pixel_unshuffle: one op each, each the other's gradient --------------------------

def _shuffle_meta(op: str, x: Any, upscale_factor: int) -> tuple[tuple[int, ...], Any]:
    r = upscale_factor
    *lead, c, h, w = x.shape
    return (*lead, c // (r * r), h * r, w * r), x.dtype


def _unshuffle_meta(op: str, x: Any, downscale_factor: int) -> tuple[tuple[int, ...], Any]:
    r = downscale_factor
    *lead, c, h, w = x.shape
    return (*lead, c * r * r, h // r, w // r), x.dtype


@register_kernel("pixel_shuffle", Backend.CPU, dtypes=ALL_DTYPES)
def pixel_shuffle_cpu(x: np.ndarray, upscale_factor: int) -> np.ndarray:
    return pixel_shuffle_arrays(np, x, upscale_factor)


@register_kernel("pixel_unshuffle", Backend.CPU, dtypes=ALL_DTYPES)
def pixel_unshuffle_cpu(x: np.ndarray, downscale_factor: int) -> np.ndarray:
    return pixel_unshuffle_arrays(np, x, downscale_factor)


_pixel_shuffle = defop(
    "pixel_shuffle",
    inputs=("x",),
    out=False,
    attrs=(Attr("upscale_factor", check=check_int),),
    infer_meta=_shuffle_meta,
    doc="each group of r^2 channels as an r x r block of pixels: (*, C r^2, H, W) to (*, C, H r, W r)",
    layout="memory_format",
)

_pixel_unshuffle = defop(
    "pixel_unshuffle",
    inputs=("x",),
    out=False,
    attrs=(Attr("downscale_factor", check=check_int),),
    infer_meta=_unshuffle_meta,
    doc="each r x r block of pixels as r^2 channels: (*, C, H r, W r) to (*, C r^2, H, W)",
    layout="memory_format",
)


@_pixel_shuffle.def_backward
def _pixel_shuffle_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """A permutation of the elements: its gradient is the inverse permutation."""
    return (ctx.ops.pixel_unshuffle(grad, ctx.attrs["upscale_factor"]),)


@_pixel_unshuffle.def_backward
def _pixel_unshuffle_backward(ctx: Any, grad: Any) -> tuple[Any]:
    return (ctx.ops.pixel_shuffle(grad, ctx.attrs["downscale_factor"]),)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``: each group of ``r^2`` channels becomes an ``r x r`` block of pixels
    (the sub-pixel convolution of Shi et al.). One op, ``PixelShuffleBackward0``, as PyTorch's.

    Example:
        >>> import minigrad as mg
        >>> mg.pixel_shuffle(mg.arange(4.0).reshape(1, 4, 1, 1), 2).tolist()
        [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    op = "pixel_shuffle"
    r = _factor(op, "upscale_factor", input, upscale_factor)
    c = input.shape[-3]
    if c % (r * r):
        raise RuntimeError(f"{op} expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
                           f"but input.size(-3)={c} is not divisible by {r * r}")
    return _pixel_shuffle(input, r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: ``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``. One op,
    ``PixelUnshuffleBackward0``, as PyTorch's."""
    op = "pixel_unshuffle"
    r = _factor(op, "downscale_factor", input, downscale_factor)
    for name, d in (("height", -2), ("width", -1)):
        if input.shape[d] % r:
            raise RuntimeError(f"{op} expects {name} to be divisible by downscale_factor, but input.size({d})="
                               f"{input.shape[d]} is not divisible by {r}")
    return _pixel_unshuffle(input, r)


def _factor(op: str, name: str, input: Any, r: Any) -> int:
    """PyTorch's checks of both ops, in its order and words."""
    check_tensor(op, "input", 0, input)
    if not _is_int(r):
        raise TypeError(f"{op}(): argument '{name}' (position 2) must be int, not {type_name(r)}")
    if input.ndim < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {r}")
    return int(r)


# -- channel_shuffle: the channels of g groups interleaved (ShuffleNet) ------------------------------------------


@register_kernel("channel_shuffle", Backend.CPU, dtypes=ALL_DTYPES)
def channel_shuffle_cpu(x: np.ndarray, groups: int) -> np.ndarray:
    return channel_shuffle_arrays(np, x, groups)


_channel_shuffle = defop(
    "channel_shuffle", inputs=("x",), out=False, attrs=(Attr("groups", check=check_int),),
    infer_meta=lambda op, x, groups: (tuple(x.shape), x.dtype),
    doc="the channels of groups groups interleaved: (N, g * k, *) read as (N, g, k, *), transposed to (N, k, g, *)")


@_channel_shuffle.def_backward
def _channel_shuffle_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """A permutation of the channels, whose inverse is the shuffle of ``C / groups`` groups (PyTorch's)."""
    return (ctx.ops.channel_shuffle(grad, ctx.input_shape(0)[1] // ctx.attrs["groups"]),)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """The channels of ``input`` (``(N, C, *)``) split into ``groups`` groups and interleaved, as ShuffleNet mixes
    grouped convolutions' outputs (``torch.channel_shuffle``, ``F.channel_shuffle``). One op,
    ``ChannelShuffleBackward0``.

    Example:
        >>> import minigrad as mg
        >>> mg.channel_shuffle(mg.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    op = "channel_shuffle"
    check_tensor(op, "input", 0, input)
    groups = check_int(op, "groups", 1, groups)
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    return _channel_shuffle(input, groups)


__all__ += ["channel_shuffle"]
