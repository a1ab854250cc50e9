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
- ``area``: ``adaptive_avg_pool1d/2d`` to the output size (3-D: twice the 2-D pool).

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

from ..kernels.backends import move_array
from ..tensor import Tensor
from .math import add, mul
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from .registry import type_name
from .shape import getitem, reshape

__all__: list[str] = []  # F.interpolate only

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area")
_LINEAR_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def _const(arr: np.ndarray, like: Tensor) -> Tensor:
    data = arr.astype(like.dtype.np)
    return Tensor._make(data if like.device == "cpu" else move_array(data, "cpu", like.device), like.dtype, like.device)


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


def _resample_dim(x: Tensor, d: int, taps: list[tuple[np.ndarray, np.ndarray]]) -> Tensor:
    """``sum_k x[..., idx_k, ...] * w_k`` along dim ``d``."""
    view = (-1,) + (1,) * (x.ndim - 1 - d)
    out = None
    for idx, w in taps:
        term = mul(getitem(x, (slice(None),) * d + (idx,)), _const(w.reshape(view), x))
        out = term if out is None else add(out, term)
    return out


def _as_tuple(op: str, name: str, v: Any, k: int, kind: type) -> tuple[Any, ...]:
    if isinstance(v, (list, tuple)):
        if len(v) != k:
            raise ValueError(
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
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 0) must be Tensor, but got {type_name(input)}")
    if mode not in _MODES or input.ndim not in (3, 4, 5):
        raise NotImplementedError(
            f"{op}(): Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: "
            f"{' | '.join(_MODES)} (got {mode})"
        )
    if align_corners is not None and mode not in ("linear", "bilinear", "trilinear", "bicubic"):
        raise ValueError(f"{op}(): align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias:
        raise NotImplementedError(f"{op}(): antialias=True is not supported by minigrad")
    k = input.ndim - 2
    if mode in _LINEAR_DIMS and _LINEAR_DIMS[mode] != k:
        raise NotImplementedError(f"{op}(): Got {input.ndim}D input, but {mode} mode needs {_LINEAR_DIMS[mode] + 2}D input")
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{op}(): " + ("either size or scale_factor should be defined" if size is None
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
