"""Vectorised special functions NumPy does not have (``erf``, ``erfc``, ``erfinv``), and faster
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

__all__ = ["erf", "erfc", "erfinv", "normal_cdf_float32", "by_chunks", "row_max"]


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


def erfc(x: np.ndarray) -> np.ndarray:
    """``1 - erf(x)`` of each element, an array of ``x``'s dtype, keeping its relative digits where it is
    small: ``1 - erf(x)`` below ``x = 2.75`` (at most 4 digits lost there), Laplace's continued fraction
    (``_erfc_far``) above. Every dtype is computed in float64 and rounded once."""
    x = np.asarray(x)
    out = by_chunks(_erfc_float64, x.astype(_F64, copy=False))
    return out if x.dtype == np.float64 else out.astype(x.dtype)


def _erfc_float64(flat: np.ndarray) -> np.ndarray:
    near = flat < _ERFC_FAR
    out = np.empty_like(flat)
    out[near] = 1.0 - _erf_float64(flat[near])
    with np.errstate(all="ignore"):  # exp(-x^2) underflows to 0 far out: erfc is 0 there
        out[~near] = _erfc_far(flat[~near])  # NaN too
    return out


def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse error function of each element, an array of ``y``'s dtype: ``x`` with ``erf(x) = y``,
    ``+-inf`` at ``+-1``, NaN outside ``[-1, 1]``.

    A rational first guess, then two Newton steps against ``erf`` above, as
    PyTorch's ``calc_erfinv`` does (the guess's relative error is about 1e-7,
    each step squares it). Past ``|y| = 0.9999`` ``erf(x)`` is within a few
    ulp of 1, too close to tell neighbouring ``x`` apart, so there four steps
    from the guess (whose error grows to 1e-3 towards 1) solve
    ``erfc(|x|) = 1 - |y|`` instead (``1 - |y|`` is exact there). Every dtype
    is computed in float64 and rounded once.
    """
    y = np.asarray(y)
    out = by_chunks(_erfinv_float64, y.astype(_F64, copy=False))
    return out if y.dtype == np.float64 else out.astype(y.dtype)


# The first guess: ``y p(y^2) / q(y^2)`` in the centre, ``r(t) / s(t)`` of ``t = sqrt(-log((1 - |y|) / 2))``
# in the tails (the classic coefficients PyTorch's ``calc_erfinv`` also starts from).
_ERFINV_CENTRAL = 0.7
_ERFINV_P = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_ERFINV_Q = (1.0, -2.118377725, 1.442710462, -0.329097515, 0.012229801)
_ERFINV_R = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_ERFINV_S = (1.0, 3.543889200, 1.637067800)
_TWO_OVER_SQRT_PI = 1.1283791670955126


#: Where ``erfc`` switches from ``1 - erf(x)`` to the continued fraction (60 terms reach 1e-16 from here on).
_ERFC_FAR = 2.75

#: Past this ``|y|`` (``|x|`` about 2.75) ``erf(x)`` is so close to 1 that its last ulp moves ``x`` by more than
#: 1e-13 of itself: the tails take a last step against ``erfc``, which keeps its relative digits there.
_ERFINV_FAR = 0.9999


def _erfc_far(x: np.ndarray) -> np.ndarray:
    """``erfc(x)`` for ``x`` from about 2.75 up (to 1e-15 of itself): Laplace's continued fraction
    ``exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))``, 60 terms, from the bottom up."""
    f = x.copy()
    for k in range(60, 0, -1):
        f = x + (k / 2.0) / f
    return np.exp(-x * x) / (1.7724538509055160 * f)


def _polynomial(coeffs: tuple[float, ...], t: np.ndarray) -> np.ndarray:
    """``sum(coeffs[j] * t**j)`` by Horner's rule."""
    acc = np.full_like(t, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = acc * t + c
    return acc


def _erfinv_float64(flat: np.ndarray) -> np.ndarray:
    a = np.abs(flat)
    with np.errstate(all="ignore"):  # the tail's log of 0 at +-1, NaN outside [-1, 1]: set below
        z = flat * flat
        central = flat * _polynomial(_ERFINV_P, z) / _polynomial(_ERFINV_Q, z)
        t = np.sqrt(-np.log((1.0 - a) / 2.0))
        tail = np.copysign(_polynomial(_ERFINV_R, t) / _polynomial(_ERFINV_S, t), flat)
        guess = np.where(a <= _ERFINV_CENTRAL, central, tail)
        x = guess
        for _ in range(2):  # Newton: x - (erf(x) - y) / erf'(x)
            x = x - (_erf_float64(x) - flat) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        far = (a > _ERFINV_FAR) & (a < 1.0)
        if far.any():  # the steep tails: the guess, then four steps against erfc(|x|) = 1 - |y| (exact)
            af, xf = a[far], np.abs(guess[far])
            for _ in range(4):
                xf = xf + (_erfc_far(xf) - (1.0 - af)) / (_TWO_OVER_SQRT_PI * np.exp(-xf * xf))
            x[far] = np.copysign(xf, flat[far])
    x = np.where(a == 1.0, np.copysign(np.inf, flat), x)
    return np.where(a > 1.0, np.nan, x)


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
