"""Vectorised special functions NumPy does not have (``erf``), and faster
roads through NumPy for kernels that make many passes (``by_chunks``) or
reduce many short rows (``row_max``).

``math.erf`` called once per element costs a Python call each (about 10 ms
for one GELU activation of a small transformer, more than all its matmuls).
``erf`` here evaluates polynomials with whole-array NumPy operations (the
tables in ``erf_tables.py`` and how they were fitted: ``scripts/erf_tables.py``).

float64, within 2 ulp of ``math.erf``: one of a few polynomials per element,
chosen by ``|x|``:

- ``|x| < 0.5``: ``x * q(x**2 - m0)``, exact in relative terms for tiny ``x``;
- ``0.5 <= |x| < 6``: ``p_k(|x| - mid_k)`` on the interval ``k = floor(2|x|)``;
- ``|x| >= 6``: ``1`` (``erfc(6)`` is below half an ulp of 1), with the sign of ``x``.

float32 (and float16), within 2 float32 ulp, computed in float32 as PyTorch
computes float32 GELU: two smooth pieces, each evaluated over the whole array
and the right one kept per element. That is about forty passes, most of them
in place, and one ``exp``; the per-element coefficient lookups (``np.take``)
they replaced took twice the time:

- ``|x| < 0.75``: ``x * q(x**2 - m0)``;
- ``0.75 <= |x| < 4``: ``1 - exp(-x**2) * r(1 / (1 + |x|) - mid)``, ``r`` the
  smooth ``exp(x**2) * erfc(x)``;
- ``|x| >= 4``: ``1`` (``erfc(4)`` is below half a float32 ulp of 1).

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.special import erf
    >>> float(erf(np.array(0.5)))
    0.5204998778130465
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _host_memory
from . import erf_tables as T

__all__ = ["erf", "normal_cdf_float32", "by_chunks", "row_max"]


_F64 = np.float64
_Q64, _MIDS64 = [_F64(c) for c in T.Q_FLOAT64], np.array(T.MIDS_FLOAT64)
_P64 = [np.array(row) for row in T.P_FLOAT64]  # [power][interval]
_F32 = np.float32
_Q32, _R32 = [_F32(c) for c in T.Q_FLOAT32], [_F32(c) for c in T.R_FLOAT32]
_H32 = [_F32(c) for c in T.H_FLOAT32]


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of each element, an array of ``x``'s dtype (0-d in, 0-d out)."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        return by_chunks(_erf_float64, x)
    return by_chunks(_erf_float32, x.astype(_F32, copy=False)).astype(x.dtype, copy=False)


_CHUNK = 1 << 14  # 64 KB of float32: under the allocator's 128 KB threshold for fresh memory


def by_chunks(kernel: Any, *arrays: np.ndarray) -> np.ndarray:
    """``kernel`` over same-shaped ``arrays``, ``_CHUNK`` elements at a time, as one array of that shape.

    A kernel of many passes makes several temporaries as large as its input.
    Past 128 KB each is fresh memory from the OS, whose page faults cost more
    than the arithmetic done in it: GELU over 131k float32 elements took 2.1 ms
    in one piece, 0.8 ms by chunks, which stay in cache and are reused by the
    allocator. (Inside a transformer's forward pass, where many large arrays
    are alive, 64 KB chunks were faster than 256 KB ones: 11.2 vs 13.2 ms.)
    When glibc keeps freed memory for reuse (NOTE [ Fresh pages for every large
    array ] in ``minigrad/_host_memory.py``), there are no such faults, and one
    piece is faster again: the transformer step took 12.5-12.9 ms so, against
    13.0-14.4 ms by chunks.
    """
    shape = arrays[0].shape
    flats = [a.reshape(-1) for a in arrays]
    if flats[0].size <= _CHUNK or _host_memory.reused:
        return kernel(*flats).reshape(shape)
    out = None
    for start in range(0, flats[0].size, _CHUNK):
        part = kernel(*[f[start:start + _CHUNK] for f in flats])
        if out is None:
            out = np.empty(flats[0].size, dtype=part.dtype)
        out[start:start + _CHUNK] = part
    return out.reshape(shape)


#: Rows at most this long, and at least ``_MANY_ROWS`` of them, take ``row_max``'s transposed road.
_SHORT_ROW, _MANY_ROWS = 64, 256


def row_max(x: np.ndarray, axis: Any) -> np.ndarray:
    """``np.max(x, axis=axis, keepdims=True)``, the same bits, faster over many short rows.

    NumPy reduces each row on its own: for a softmax over attention scores
    (rows of 32) ``np.max`` takes 2.4x as long as ``np.sum``. Transposed, the
    rows become columns, and their maximum is one elementwise ``np.maximum``
    running down contiguous memory: 2.3x faster for (2048, 32), 10x for
    (8192, 8). ``maximum`` picks the same element as ``max`` (NaN included),
    so the result is the same. Rows are taken a block at a time, so the
    transposed copy stays in cache.
    """
    if type(axis) is tuple and len(axis) == 1:  # a reduction op's ``dim`` is a tuple
        axis = axis[0]
    length = x.shape[-1] if x.ndim else 0
    if not x.size or not x.ndim or axis not in (-1, x.ndim - 1) or length > _SHORT_ROW or x.size < _MANY_ROWS * length:
        return np.max(x, axis=axis, keepdims=True)
    rows = x.reshape(-1, length)
    out = np.empty(rows.shape[0], dtype=x.dtype)
    block = _CHUNK * 4 // length
    for start in range(0, rows.shape[0], block):
        columns = np.ascontiguousarray(rows[start:start + block].T)
        np.maximum.reduce(columns, axis=0, out=out[start:start + block])
    return out.reshape(x.shape[:-1] + (1,))


def _horner(coeffs: list[Any], t: np.ndarray) -> np.ndarray:
    """``sum(coeffs[j] * t**j)``: one new array, the rest in place."""
    acc = t * coeffs[-1]
    acc += coeffs[-2]
    for c in reversed(coeffs[:-2]):
        acc *= t
        acc += c
    return acc


def _erf_float32(flat: np.ndarray) -> np.ndarray:
    # Five temporaries in all, the rest of the work in place.
    a = np.abs(flat)
    np.minimum(a, _F32(T.TOP), out=a)  # NaN stays NaN through every step
    s = a * a
    t = s - _F32(T.M0_FLOAT32)
    small = _horner(_Q32, t)
    small *= a  # x * q(x**2 - m0)
    v = np.add(a, _F32(1), out=t)
    np.divide(_F32(1), v, out=v)
    v -= _F32(T.MID_R_FLOAT32)
    large = _horner(_R32, v)  # exp(x**2) * erfc(x)
    np.negative(s, out=s)
    large *= np.exp(s, out=s)  # erfc(|x|)
    np.subtract(_F32(1), large, out=large)
    # Keep each element's piece by weights of exactly 1 and 0 (x * 1 and x + 0 are exact, and both
    # pieces are finite on [0, TOP]): a tenth of the time of np.where or a masked copy.
    weight = np.less(a, _F32(T.SPLIT), out=v)
    small *= weight
    large *= np.subtract(_F32(1), weight, out=weight)
    large += small
    return np.copysign(large, flat, out=large)


def normal_cdf_float32(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The standard normal CDF ``Phi(x)`` of float32 ``x``, and ``exp(-x**2 / 2)``, as new arrays.

    GELU is ``x * Phi(x)``, and its backward needs ``exp(-x**2 / 2)`` as well,
    which this computes anyway. One smooth piece for every ``x``, no ``erf``:

    - ``Phi(-|x|) = exp(-x**2 / 2) * h(v - mid)``, ``v = 1 / (1 + |x| / sqrt(2))``,
      ``h`` half of ``erfcx`` (``scripts/erf_tables.py``), degree 10;
    - ``Phi(x)`` is that for ``x < 0`` and ``1 - `` that for ``x >= 0``.

    Within 2.5 float32 ulp for ``x >= 0`` (``Phi(0)`` is 0.5 exactly); for
    ``x < 0`` within ``6e-7`` of the small value itself down to ``x = -4`` and
    ``5e-6`` below (``exp`` of a rounded ``x**2``), where
    ``0.5 * (1 + erf(x / sqrt(2)))`` - PyTorch's form - cancels and keeps only
    the digits above ``2**-24``. About 30 passes instead of erf's 40 and no
    blend of two pieces: GELU 1.6x and its backward 1.7x faster.
    """
    a = np.abs(x)
    a *= _F32(0.7071067811865476)
    a += _F32(1)
    v = np.divide(_F32(1), a, out=a)
    v -= _F32(T.MID_H_FLOAT32)
    tail = _horner(_H32, v)
    gauss = np.multiply(x, x)
    gauss *= _F32(-0.5)
    np.exp(gauss, out=gauss)
    tail *= gauss  # Phi(-|x|)
    # up + (1 - 2 up) * tail with up = 1.0 where x >= 0: 1 - tail or tail, each rounded once; NaN stays NaN.
    up = np.greater_equal(x, _F32(0), out=v)
    sign = np.multiply(up, _F32(-2))
    sign += _F32(1)
    tail *= sign
    tail += up
    return tail, gauss


def _erf_float64(flat: np.ndarray) -> np.ndarray:
    # |x|, at most 6: fmin also sends NaN there (its result is set below).
    a = np.fmin(np.abs(flat), _F64(T.K * T.W))
    k = (a * _F64(1 / T.W)).astype(np.intp)  # each element's interval; 6 is the last, erf = 1
    # Horner's rule, each element with its interval's coefficients.
    t = a - np.take(_MIDS64, k)
    acc = np.take(_P64[-1], k)
    for coeffs in reversed(_P64[:-1]):
        acc *= t
        acc += np.take(coeffs, k)
    # The first interval's x * q(x**2 - m0), computed for all (cheaper than picking them out).
    acc = np.where(k == 0, a * _horner(_Q64, a * a - _F64(T.M0_FLOAT64)), acc)
    out = np.copysign(acc, flat)
    nan = np.isnan(flat)
    if nan.any():
        out[nan] = np.nan
    return out
