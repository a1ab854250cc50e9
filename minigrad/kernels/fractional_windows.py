"""The windows of fractional max pooling (Graham, 2014), for the CPU's and the GPU's kernels (``xp`` is NumPy or
CuPy; ``ops/fractional_pooling.py`` has the ops).

Along a dim of ``n`` inputs, ``out`` outputs and windows ``k`` wide, one sample ``u`` in ``[0, 1)`` per plane places
the windows: with ``alpha = (n - k) / (out - 1)``, window ``i`` starts at ``int((i + u) alpha) - int(u alpha)`` and
the last one at ``n - k`` (PyTorch's ``generate_intervals`` in ``aten/src/ATen/native/FractionalMaxPool2d.cpp``),
computed in the samples' dtype - the input's - so that float32 windows start where PyTorch's do. Each window's
maximum is PyTorch's ``val > max || isnan(val)`` over the window in row-major order: the first maximum, or the last
NaN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["fractional_starts", "fractional_positions"]


def fractional_starts(xp: Any, samples: Any, n: int, out: int, k: int) -> Any:
    """Each plane's window starts along one dim, ``(planes, out)`` int64, from the planes' samples ``(planes,)``."""
    starts = xp.full((samples.shape[0], out), n - k, dtype=np.int64)
    if out > 1:
        alpha = samples.dtype.type(n - k) / samples.dtype.type(out - 1)
        steps = (xp.arange(out - 1, dtype=samples.dtype)[None, :] + samples[:, None]) * alpha
        starts[:, :-1] = steps.astype(np.int64) - (samples * alpha).astype(np.int64)[:, None]
    return starts


def fractional_positions(xp: Any, x: Any, samples: Any, kernel_size: tuple[int, ...],
                         output_size: tuple[int, ...]) -> Any:
    """The flat position in each plane (``x``'s last ``k`` dims) of each window's maximum, int64, shaped
    ``x.shape[:-k] + output_size``; ``samples`` holds ``k`` per plane (``(..., k)``, in ``x``'s dtype): in 2-D sample
    0 places the columns and sample 1 the rows, in 3-D samples 0, 1, 2 the depth, rows and columns (PyTorch's)."""
    k = len(kernel_size)
    lead, spatial = tuple(x.shape[:-k]), tuple(x.shape[-k:])
    planes = math.prod(lead)
    order = (1, 0) if k == 2 else (0, 1, 2)
    samples = samples.reshape(planes, k)
    flat, stride = xp.zeros((planes,) + tuple(output_size) + tuple(kernel_size), dtype=np.int64), 1
    for d in reversed(range(k)):  # the starts on output axis d, the offsets within the window on axis k + d
        starts = fractional_starts(xp, samples[:, order[d]], spatial[d], output_size[d], kernel_size[d])
        at = [planes] + [1] * (2 * k)
        at[1 + d] = output_size[d]
        offsets = [1] * (1 + 2 * k)
        offsets[1 + k + d] = kernel_size[d]
        along = starts.reshape(at) + xp.arange(kernel_size[d], dtype=np.int64).reshape(offsets)
        flat = flat + along * stride
        stride *= spatial[d]
    n_out, n_win = math.prod(output_size), math.prod(kernel_size)
    flat = flat.reshape(planes, n_out, n_win)
    values = xp.take_along_axis(x.reshape(planes, math.prod(spatial)), flat.reshape(planes, n_out * n_win),
                                axis=1).reshape(planes, n_out, n_win)
    arg = values.argmax(axis=-1) if n_win else xp.zeros((planes, n_out), dtype=np.int64)
    if n_win:
        nan = xp.isnan(values)
        arg = xp.where(nan.any(axis=-1), n_win - 1 - nan[..., ::-1].argmax(axis=-1), arg)
    picked = xp.take_along_axis(flat, arg[..., None].astype(np.int64), axis=-1)
    return picked.reshape(lead + tuple(output_size))
