"""The kernels of ``interpolate``'s upsample ops, for the CPU's and the GPU's (NumPy or CuPy as ``xp``).

NOTE [ Upsampling is separable ]
    Every mode of PyTorch's upsample ops reads, along each spatial dim, a few
    input positions ("taps") at indices that depend on the output position, and
    mixes them with weights that depend on it too; the taps along ``W`` do not
    depend on the position along ``H``. PyTorch's CPU kernel nests the dims (the
    first spatial dim outermost): ``out[h, w] = sum_a wh_a * (sum_b ww_b *
    x[ih_a, iw_b])``. Resampling the last dim first, then the one before, gives
    those products and sums in that order. The taps are
    computed on the host from the sizes and scales only (``taps``), in the
    arithmetic PyTorch uses for them (its ``opmath`` type: float32 below float64,
    and ``floorf`` of the source position); the backward, ``*_backward``, is the
    adjoint: each dim's weighted reads become weighted scatter-adds, first dim
    first. PyTorch's CPU build fuses ``a * b + c`` into one rounding (an FMA)
    where NumPy rounds twice, so a value may differ from its in the last bit.

``taps(mode, n_in, n_out, align_corners, scale, acc, rank)`` gives, for one dim, a
list of ``(index, weight)`` pairs of length-``n_out`` arrays (``weight`` None for
``nearest``): ``out[o] = sum_k weight_k[o] * x[index_k[o]]``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from ..dtypes import FLOAT_DTYPES, DType, uint8

__all__ = ["UPSAMPLE_OPS", "kernel_dtypes", "taps", "dim_taps", "resample_arrays", "resample_backward_arrays",
           "add_at_sorted"]

#: PyTorch's upsample op of each mode and rank -> (the kind of taps, the number of spatial dims). Its nearest-exact
#: and antialiased ops are private there (``_upsample_nearest_exact2d``, ``_upsample_bilinear2d_aa``); the node
#: names are the same (``UpsampleNearestExact2DBackward0``).
UPSAMPLE_OPS: dict[str, tuple[str, int]] = {
    "upsample_nearest1d": ("nearest", 1), "upsample_nearest2d": ("nearest", 2), "upsample_nearest3d": ("nearest", 3),
    "upsample_nearest_exact1d": ("nearest-exact", 1), "upsample_nearest_exact2d": ("nearest-exact", 2),
    "upsample_nearest_exact3d": ("nearest-exact", 3),
    "upsample_linear1d": ("linear", 1), "upsample_bilinear2d": ("linear", 2), "upsample_trilinear3d": ("linear", 3),
    "upsample_bicubic2d": ("cubic", 2),
    "upsample_bilinear2d_aa": ("linear-aa", 2), "upsample_bicubic2d_aa": ("cubic-aa", 2),
}

Taps = list[tuple[np.ndarray, "np.ndarray | None"]]


def kernel_dtypes(mode: str) -> tuple[DType, ...]:
    """The dtypes of a mode's kernels, PyTorch's CPU ones: the floats, and bytes where the mode only copies."""
    return FLOAT_DTYPES + ((uint8,) if mode.startswith("nearest") else ())


def _scale(n_in: int, n_out: int, align_corners: bool, scale: float | None, acc: Any) -> Any:
    """PyTorch's ``area_pixel_compute_scale`` in ``acc``: input pixels per output pixel (``1 / scale_factor`` when one
    was given)."""
    if align_corners:
        return acc(n_in - 1) / acc(n_out - 1) if n_out > 1 else acc(0)
    return acc(1.0 / scale) if scale is not None and scale > 0 else acc(n_in) / acc(n_out)


def _nearest(n_in: int, n_out: int, scale: float | None, exact: bool, shortcut: bool) -> Taps:
    """``floor(o * s)`` (``nearest``) or ``floor((o + 0.5) * s)`` (``nearest-exact``), at most ``n_in - 1``, with
    PyTorch's float32 scale ``s``: the same indices need the same rounding. PyTorch's 2-D ``nearest`` kernel
    (``shortcut``) copies a dim whose size is kept and halves the index of one doubled, whatever the scale given."""
    o = np.arange(n_out)
    if shortcut and n_out in (n_in, 2 * n_in):
        return [(o if n_out == n_in else o >> 1, None)]
    s = _scale(n_in, n_out, False, scale, np.float32)
    pos = ((o + 0.5) * np.float64(s)).astype(np.float32) if exact else o.astype(np.float32) * s
    return [(np.minimum(np.floor(pos).astype(np.int64), n_in - 1), None)]


def _source(n_in: int, n_out: int, align_corners: bool, scale: float | None, acc: Any, cubic: bool) -> tuple[Any, Any]:
    """PyTorch's ``area_pixel_compute_source_index`` and ``guard_index_and_lambda``: each output's source position
    split into an index (``floorf``'s, at most ``n_in - 1``) and a fraction in [0, 1]."""
    s = _scale(n_in, n_out, align_corners, scale, acc)
    dst = np.arange(n_out).astype(acc)
    src = s * dst if align_corners else s * (dst + acc(0.5)) - acc(0.5)
    if not cubic and not align_corners:
        src = np.maximum(src, acc(0))
    index = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    return index, np.clip(src - index.astype(acc), acc(0), acc(1))


def _linear(n_in: int, n_out: int, align_corners: bool, scale: float | None, acc: Any) -> Taps:
    """Two neighbours, weights ``1 - t`` and ``t``. A dim whose size is kept reads each input with weight 1 (and its
    neighbour with 0), whatever the scale given, as PyTorch's kernel does."""
    i0, t = _source(n_in, n_out, align_corners, None if n_in == n_out else scale, acc, False)
    return [(i0, acc(1) - t), (i0 + (i0 < n_in - 1), t)]


def _cubic(n_in: int, n_out: int, align_corners: bool, scale: float | None, acc: Any) -> Taps:
    """Keys' cubic convolution with ``A = -0.75`` over four taps (clamped to the edges)."""
    a = acc(-0.75)
    i, t = _source(n_in, n_out, align_corners, scale, acc, True)

    def near(x: Any) -> Any:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Any) -> Any:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weights = [far(t + 1), near(t), near(acc(1) - t), far(acc(2) - t)]
    return [(np.clip(i - 1 + k, 0, n_in - 1), w.astype(acc)) for k, w in enumerate(weights)]


def _antialias(n_in: int, n_out: int, align_corners: bool, scale: float | None, acc: Any, cubic: bool,
               backward: bool) -> Taps:
    """``antialias=True``: each output averages the inputs under a filter stretched by the scale when shrinking (a
    triangle, or Keys' cubic with ``A = -0.5``), the weights normalised to sum to 1 (PyTorch's ``_upsample_*_aa``).
    PyTorch's forward skips a dim whose size is kept (a copy); its backward weighs it by the scale given all the
    same, so the gradient is that of those weights."""
    if n_in == n_out and not backward:
        return [(np.arange(n_out), None)]
    size = 4 if cubic else 2
    s = float(_scale(n_in, n_out, align_corners, scale, np.float64))
    support = size / 2 * s if s >= 1.0 else size / 2
    inv = 1.0 / s if s >= 1.0 else 1.0

    def filt(x: np.ndarray) -> np.ndarray:
        x = np.abs(x)
        if not cubic:
            return np.where(x < 1, 1 - x, 0.0)
        a = -0.5
        return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                        np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))

    center = s * (np.arange(n_out) + 0.5)
    lo = np.maximum((center - support + 0.5).astype(np.int64), 0)
    hi = np.minimum((center + support + 0.5).astype(np.int64), n_in)
    width = int((hi - lo).max())
    idx = [lo + j for j in range(width)]
    weights = [np.where(i < hi, filt((i - center + 0.5) * inv), 0.0) for i in idx]
    total = np.sum(weights, axis=0)
    total = np.where(total != 0, total, 1.0)
    return [(np.minimum(i, n_in - 1), (w / total).astype(acc)) for i, w in zip(idx, weights)]


def taps(mode: str, n_in: int, n_out: int, align_corners: bool, scale: float | None, acc: Any, rank: int,
         backward: bool = False) -> Taps:
    """The taps of one dim (the module docstring) of a ``rank``-D upsampling, or of its ``backward``; ``acc`` is the
    dtype PyTorch computes positions and weights in. PyTorch's backward kernels read some sizes differently from its
    forwards (``nearest``'s take the 2-D forward's shortcut at every rank; the antialiased ones weigh a kept size by
    the scale given): the gradient is theirs, so ``backward`` does too."""
    if mode in ("nearest", "nearest-exact"):
        return _nearest(n_in, n_out, scale, mode == "nearest-exact", mode == "nearest" and (rank == 2 or backward))
    if mode == "linear":
        return _linear(n_in, n_out, align_corners, scale, acc)
    if mode == "cubic":
        return _cubic(n_in, n_out, align_corners, scale, acc)
    return _antialias(n_in, n_out, align_corners, scale, acc, mode == "cubic-aa", backward)


@functools.lru_cache(maxsize=256)
def dim_taps(op: str, in_sizes: tuple[int, ...], out_sizes: tuple[int, ...], align_corners: bool,
             scales: tuple[float | None, ...], dtype: str, backward: bool = False) -> tuple[Taps, ...]:
    """The taps of every spatial dim of ``op`` (weights of ``dtype``), computed once per geometry: they depend on the
    sizes and the attributes only. The arrays are shared: read them, never write them."""
    mode, rank = UPSAMPLE_OPS[op]
    dt = np.dtype(dtype)
    acc = np.float64 if dt == np.float64 else np.float32
    return tuple([(i, None if w is None else w.astype(dt)) for i, w in taps(mode, n, o, align_corners, s, acc, rank, backward)]
                 for n, o, s in zip(in_sizes, out_sizes, scales))


def _weighted(a: Any, w: Any, axis: int) -> Any:
    """``a`` times ``w`` (one weight per position along ``axis``)."""
    return a * w.reshape((-1,) + (1,) * (a.ndim - 1 - axis))


def resample_arrays(xp: Any, x: Any, per_dim: tuple[Taps, ...]) -> Any:
    """The forward: the last spatial dim first (NOTE [ Upsampling is separable ]); ``per_dim`` are the arrays of
    ``xp`` (weights of ``x``'s dtype), one list per spatial dim."""
    out = x
    first = x.ndim - len(per_dim)
    for d in reversed(range(len(per_dim))):
        axis = first + d
        acc = None
        for index, weight in per_dim[d]:
            term = xp.take(out, index, axis=axis)
            term = term if weight is None else _weighted(term, weight, axis)
            acc = term if acc is None else acc + term
        out = acc
    return xp.ascontiguousarray(out)


def resample_backward_arrays(xp: Any, scatter_add: Callable[[Any, tuple[Any, ...], Any], None], grad: Any,
                             input_size: tuple[int, ...], per_dim: tuple[Taps, ...]) -> Any:
    """The adjoint of ``resample_arrays``: first spatial dim first, each tap's weighted gradient scatter-added back
    to the positions it read (``scatter_add(out, index, values)``: NumPy's ``add.at``, CuPy's ``scatter_add``)."""
    g = grad
    first = grad.ndim - len(per_dim)
    for d, dim in enumerate(per_dim):
        axis = first + d
        shape = list(g.shape)
        shape[axis] = input_size[d]
        out = xp.zeros(tuple(shape), dtype=grad.dtype)
        for index, weight in dim:
            values = g if weight is None else _weighted(g, weight, axis)
            scatter_add(out, (slice(None),) * axis + (index,), values)
        g = out
    return g


def add_at_sorted(out: np.ndarray, index: tuple[Any, ...], values: np.ndarray) -> None:
    """NumPy's ``add.at(out, index, values)`` for an index whose last item is the one array, non-decreasing (every
    tap's is): each run of equal positions summed by ``add.reduceat``, then added once per position, several times
    faster than ``add.at``'s element-by-element loop."""
    *lead, positions = index
    axis = len(lead)
    starts = np.flatnonzero(np.concatenate(([True], positions[1:] != positions[:-1])))
    out[(*lead, positions[starts])] += np.add.reduceat(values, starts, axis=axis)
