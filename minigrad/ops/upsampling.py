"""``torch.nn.functional.interpolate``: resizing the spatial dims of an ``(N, C, d1, ...)`` input. Composite.

Every mode PyTorch offers here but ``area`` is *separable*: resizing ``(H, W)``
is resizing ``W`` and then ``H``, each a 1-D rule applied along one dim. Each
1-D rule reads input positions with ``getitem`` and mixes them with constant
weights (``mul``, ``add``), so the gradient is the scatter-add of those reads,
and a trace shows exactly that:

- ``nearest``: output ``i`` reads ``floor(i * scale)`` (PyTorch's float32 rule);
  ``nearest-exact``: ``floor((i + 0.5) * scale)``;
- ``linear`` / ``bilinear`` / ``trilinear``: two neighbours, weights ``1 - t`` and ``t``;
  ``align_corners=True`` maps the corner pixels' centres onto each other;
- ``bicubic``: four neighbours, Keys' cubic convolution with ``A = -0.75``;
- ``area``: ``adaptive_avg_pool1d/2d`` to the output size (3-D: twice the 2-D pool);
- ``antialias=True`` (bilinear, bicubic): every input under a filter stretched by the scale, so
  shrinking averages instead of skipping pixels.

Also here: ``pixel_shuffle`` / ``pixel_unshuffle`` (channels to pixels and back, a ``reshape``
and a ``permute``).

``scale`` is ``in / out``, or ``1 / scale_factor`` when a ``scale_factor`` is
given and ``recompute_scale_factor`` is not set, as PyTorch computes it.

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
from ..kernels.array_kernels import pixel_shuffle_arrays, pixel_unshuffle_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_int, check_tensor
from ._constants import kept_constant
from .math import add, mul
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from .registry import Attr, defop, type_name
from .shape import getitem, reshape

__all__ = ["pixel_shuffle", "pixel_unshuffle"]  # torch.pixel_shuffle, torch.pixel_unshuffle; interpolate in F only

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def _scale(n_in: int, n_out: int, align_corners: bool, scale_factor: float | None) -> float:
    """PyTorch's ``area_pixel_compute_scale``: input pixels per output pixel."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale_factor if scale_factor is not None and scale_factor > 0 else n_in / n_out


def _nearest_index(n_in: int, n_out: int, scale_factor: float | None, exact: bool) -> np.ndarray:
    i = np.arange(n_out)
    if not exact and n_out == n_in:
        return i
    if not exact and n_out == 2 * n_in:
        return i >> 1
    # PyTorch computes the scale and the products in float32: the same indices need the same rounding.
    scale = np.float32(1.0 / scale_factor) if scale_factor is not None and scale_factor > 0 else np.float32(n_in) / np.float32(n_out)
    pos = (i.astype(np.float32) + np.float32(0.5 if exact else 0.0)) * scale
    return np.minimum(np.floor(pos).astype(np.int64), n_in - 1)


def _linear_taps(n_in: int, n_out: int, align_corners: bool, scale_factor: float | None) -> list[tuple[np.ndarray, np.ndarray]]:
    scale = _scale(n_in, n_out, align_corners, scale_factor)
    dst = np.arange(n_out, dtype=np.float64)
    src = scale * dst if align_corners else np.maximum(scale * (dst + 0.5) - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    t = np.clip(src - i0, 0.0, 1.0)
    i1 = i0 + (i0 < n_in - 1)
    return [(i0, 1.0 - t), (i1, t)]


def _cubic_taps(n_in: int, n_out: int, align_corners: bool, scale_factor: float | None) -> list[tuple[np.ndarray, np.ndarray]]:
    a = -0.75
    scale = _scale(n_in, n_out, align_corners, scale_factor)
    dst = np.arange(n_out, dtype=np.float64)
    src = scale * dst if align_corners else scale * (dst + 0.5) - 0.5  # no clamp at 0 for cubic
    i = np.floor(src).astype(np.int64)
    t = src - i

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weights = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    return [(np.clip(i - 1 + k, 0, n_in - 1), w) for k, w in enumerate(weights)]


def _antialias_taps(n_in: int, n_out: int, align_corners: bool, scale_factor: float | None,
                    cubic: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """``antialias=True`` (bilinear/bicubic): each output averages the inputs under a filter stretched by the
    scale when shrinking (a triangle, or Keys' cubic with ``A = -0.5``), the weights summing to 1."""
    size = 4 if cubic else 2
    scale = _scale(n_in, n_out, align_corners, scale_factor)
    support = size / 2 * scale if scale >= 1.0 else size / 2
    inv = 1.0 / scale if scale >= 1.0 else 1.0

    def filt(x: np.ndarray) -> np.ndarray:
        x = np.abs(x)
        if not cubic:
            return np.where(x < 1, 1 - x, 0.0)
        a = -0.5
        return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                        np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))

    center = scale * (np.arange(n_out) + 0.5)
    lo = np.maximum((center - support + 0.5).astype(np.int64), 0)
    hi = np.minimum((center + support + 0.5).astype(np.int64), n_in)
    width = int((hi - lo).max())
    taps = []
    weights = []
    for j in range(width):
        idx = lo + j
        w = np.where(idx < hi, filt((idx - center + 0.5) * inv), 0.0)
        taps.append(np.minimum(idx, n_in - 1))
        weights.append(w)
    total = np.sum(weights, axis=0)
    return [(i, w / np.where(total != 0, total, 1.0)) for i, w in zip(taps, weights)]


def _resample_dim(x: Tensor, d: int, taps: list[tuple[np.ndarray, np.ndarray]]) -> Tensor:
    """``sum_k x[..., idx_k, ...] * w_k`` along dim ``d``."""
    view = (-1,) + (1,) * (x.ndim - 1 - d)
    out = None
    for idx, w in taps:
        # the weights depend on the sizes only: on a GPU copied there once per value and kept (kept_constant)
        weight = kept_constant(("interpolate", view, w.tobytes()), lambda w=w: w.reshape(view), x, x.dtype)
        term = mul(getitem(x, (slice(None),) * d + (idx,)), weight)
        out = term if out is None else add(out, term)
    return out


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
    or by ``scale_factor``, as ``torch.nn.functional.interpolate``. Composite (see the module docstring)."""
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
    if antialias and mode not in ("bilinear", "bicubic"):
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
    align = bool(align_corners)
    if mode == "area":
        return _area(input, out_sizes)
    out = input
    for j in reversed(range(k)):  # last dim first (any order gives the same values)
        d, n_in, n_out, sf = 2 + j, in_sizes[j], out_sizes[j], scales[j]
        if mode in ("nearest", "nearest-exact"):
            out = getitem(out, (slice(None),) * d + (_nearest_index(n_in, n_out, sf, mode == "nearest-exact"),))
        elif antialias:
            out = _resample_dim(out, d, _antialias_taps(n_in, n_out, align, sf, mode == "bicubic"))
        elif mode == "bicubic":
            out = _resample_dim(out, d, _cubic_taps(n_in, n_out, align, sf))
        else:
            out = _resample_dim(out, d, _linear_taps(n_in, n_out, align, sf))
    return out


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
)

_pixel_unshuffle = defop(
    "pixel_unshuffle",
    inputs=("x",),
    out=False,
    attrs=(Attr("downscale_factor", check=check_int),),
    infer_meta=_unshuffle_meta,
    doc="each r x r block of pixels as r^2 channels: (*, C, H r, W r) to (*, C r^2, H, W)",
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
