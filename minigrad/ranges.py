"""The values of ``linspace`` and ``arange``, bit for bit as PyTorch's CPU kernels compute them.

NumPy's ``np.linspace`` and ``np.arange`` use other formulas, and their last
bits differ from PyTorch's in most calls: ``torch.linspace(-3.7, 2.9, 7)``
and ``np.linspace(-3.7, 2.9, 7).astype(np.float32)`` disagree in a value.
A student who prints both sees different digits, so minigrad uses PyTorch's
formulas (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp).

NOTE [ PyTorch's ranges, bit for bit ]
    ``linspace`` computes ``step = (end - start) / (steps - 1)`` in the output
    dtype (in double for integer outputs), then ``start + step * i`` for the
    first half of the positions and ``end - step * (steps - 1 - i)`` for the
    second, so both ends are exact. ``arange`` computes in the accumulate
    type (double for float and double outputs, float for half types): the
    kernel writes blocks of one 32-byte vector (8 floats, 4 doubles), each
    block from its first value ``start + step * i0`` rounded to the output
    dtype plus ``j * step``, two blocks at a time; what is left after the
    last pair of blocks is ``start + step * i``. PyTorch's x86 build
    compiles each ``a + b * c`` as one fused multiply-add (rounded once),
    which ``_fma`` reproduces with a wider float: float64 for float32 values
    (exact), the x87 long double for float64 values. The results match
    ``torch.linspace`` and ``torch.arange`` bit for bit on float32, float64 and
    integer outputs (``tests/test_ranges.py``, against PyTorch).

Example:
    >>> import numpy as np
    >>> from minigrad.ranges import linspace_array
    >>> linspace_array(0.0, 1.0, 5, np.dtype(np.float32)).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .fma import fused_multiply_add

__all__ = ["linspace_array", "logspace_array", "arange_array"]

_VECTOR_BYTES = 32  # one AVX2 vector: PyTorch's range kernels are not built for AVX-512


def _fma(a: Any, b: Any, c: Any, acc: Any) -> Any:
    """``a * b + c`` in dtype ``acc`` (scalars or arrays), rounded once: a fused multiply-add."""
    return fused_multiply_add(a, b, c, acc)


def _is_half(dtype: np.dtype) -> bool:
    return dtype.kind in "fV" and dtype.itemsize == 2  # float16, and ml_dtypes' bfloat16 (kind "V")


def linspace_array(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """``steps`` values from ``start`` to ``end`` inclusive, in ``dtype`` (NOTE [ PyTorch's ranges, bit for bit ])."""
    if steps <= 1:
        return np.array([start] * steps, dtype=np.float64).astype(dtype)
    i = np.arange(steps)
    first = i < steps // 2
    if dtype.kind in "iub":  # integer outputs: the ends as integers, the step in double
        s, e = float(math.trunc(start)), float(math.trunc(end))
        step = (e - s) / (steps - 1)
        low = _fma(step, i, s, np.float64)
        high = _fma(-step, steps - 1 - i, e, np.float64)
        return np.where(first, low, high).astype(dtype)
    if _is_half(dtype):  # each half-precision operation is done in float and rounded to the output dtype
        def r(x: Any) -> Any:  # (through float32, as C++ converts a double)
            return np.asarray(x, np.float32).astype(dtype).astype(np.float32)

        s, e = r(start), r(end)
        step = r(r(e - s) / r(steps - 1))
        low = r(s + r(step * r(i)))
        high = r(e - r(step * r(steps - 1 - i)))
        return np.where(first, low, high).astype(dtype)
    s, e = dtype.type(start), dtype.type(end)
    step = (e - s) / dtype.type(steps - 1)
    low = _fma(step, i.astype(dtype), s, dtype)
    high = _fma(-step, (steps - 1 - i).astype(dtype), e, dtype)
    return np.where(first, low, high).astype(dtype)


def logspace_array(start: float, end: float, steps: int, base: float, dtype: np.dtype) -> np.ndarray:
    """``base ** e`` for ``steps`` exponents ``e`` from ``start`` to ``end`` inclusive, in ``dtype``: PyTorch's
    logspace kernel steps the exponents as ``linspace`` does (from each end, so both are exact), in double for a
    floating output (the ends rounded to ``dtype`` first, their difference taken in it) and raises ``base`` to
    them in double; an integer output does all of it in float and truncates (PyTorch's float ``pow`` there is
    vectorised: values past 2**20 may differ from it by a few units)."""
    if steps == 0:
        return np.empty(0, dtype)
    if steps == 1:
        return np.array([float(base) ** float(start)]).astype(dtype)
    i = np.arange(steps)
    first = i < steps // 2
    if dtype.kind in "iub":
        f32 = np.float32
        s, e = math.trunc(start), math.trunc(end)
        step = f32(e - s) / f32(steps - 1)
        low = f32(s) + step * i.astype(f32)
        high = f32(e) - step * (steps - 1 - i).astype(f32)
        with np.errstate(over="ignore"):
            return np.power(f32(base), np.where(first, low, high)).astype(dtype)
    s, e = dtype.type(start), dtype.type(end)
    step = float(e - s) / (steps - 1)
    low = float(s) + step * i  # not fused: this kernel's double arithmetic rounds the product (unlike linspace's)
    high = float(e) - step * (steps - 1 - i)
    b = np.float64(base)
    with np.errstate(over="ignore", invalid="ignore"):
        # element by element: NumPy's scalar power is the C library's pow, as PyTorch's kernel calls it; its
        # array loop may be a SIMD pow instead (SVML on AVX-512 machines), a unit in the last place off
        out = np.array([b ** x for x in np.where(first, low, high).tolist()], dtype=np.float64)
    return (out.astype(np.float32) if _is_half(dtype) else out).astype(dtype)  # a half through float, as C++'s


def arange_array(start: Any, end: Any, step: Any, dtype: np.dtype) -> np.ndarray:
    """The values ``start, start + step, ...`` below ``end`` (above it for a negative step), in ``dtype``
    (NOTE [ PyTorch's ranges, bit for bit ])."""
    if dtype.kind in "iub" and all(isinstance(v, int) for v in (start, end, step)):
        return np.arange(start, end, step, dtype=np.int64).astype(dtype)  # exact: integers throughout
    n = max(0, math.ceil((float(end) - float(start)) / float(step)))  # the length from the numbers as given
    if dtype.kind in "iub":  # integer output of float arguments: the values from start and step truncated
        first, by = math.trunc(start), math.trunc(step)
        if dtype == np.int64:  # int64 takes its length from the truncated numbers too, in C's integer division
            span = math.trunc(end) - first + by - (1 if by > 0 else -1)
            n = max(0, abs(span) // abs(by) * (1 if (span >= 0) == (by > 0) else -1))
        return (first + by * np.arange(n)).astype(dtype)
    i = np.arange(n)
    acc = np.dtype(np.float32) if _is_half(dtype) else np.dtype(np.float64)
    width = _VECTOR_BYTES // dtype.itemsize
    vectorized = (n // (2 * width)) * 2 * width  # pairs of whole vectors; the rest one by one
    out = np.empty(n, dtype)
    block, j = i[:vectorized] - i[:vectorized] % width, i[:vectorized] % width
    base = _fma(step, block, start, acc).astype(dtype)
    out[:vectorized] = _fma(j, step, base.astype(acc), acc).astype(dtype)
    out[vectorized:] = _fma(step, i[vectorized:], start, acc).astype(dtype)
    return out
