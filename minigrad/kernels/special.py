"""Vectorised special functions NumPy does not have: ``erf``.

``math.erf`` called once per element costs a Python call each (about 10 ms
for one GELU activation of a small transformer, more than all its matmuls).
``erf`` here evaluates, per element, one of a few polynomials chosen by
``|x|`` (the tables in ``erf_tables.py`` and how they were fitted:
``scripts/erf_tables.py``):

- ``|x| < 0.5``: ``x * q(x**2 - m0)``, exact in relative terms for tiny ``x``;
- ``0.5 <= |x| < 6``: ``p_k(|x| - mid_k)`` on the interval ``k = floor(2|x|)``;
- ``|x| >= 6``: ``1`` (``erfc(6)`` is below half an ulp of 1), with the sign of ``x``.

float64 is within 2 ulp of ``math.erf``; float32 (and float16) is computed in
float32 with a lower-degree table, within 2 float32 ulp, as PyTorch computes
float32 GELU in float32.

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.special import erf
    >>> float(erf(np.array(0.5)))
    0.5204998778130465
"""

from __future__ import annotations

import numpy as np

from . import erf_tables as T

__all__ = ["erf"]


class _Table:
    """One precision's polynomials, as arrays of that precision."""

    def __init__(self, dtype: type, q: list[float], m0: float, mids: list[float], p: list[list[float]]) -> None:
        self.dtype = dtype
        self.q = [dtype(c) for c in q]
        self.m0 = dtype(m0)
        self.mids = np.array(mids, dtype=dtype)
        self.p = [np.array(row, dtype=dtype) for row in p]  # [power][interval]


_FLOAT64 = _Table(np.float64, T.Q_FLOAT64, T.M0_FLOAT64, T.MIDS_FLOAT64, T.P_FLOAT64)
_FLOAT32 = _Table(np.float32, T.Q_FLOAT32, T.M0_FLOAT32, T.MIDS_FLOAT32, T.P_FLOAT32)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of each element, an array of ``x``'s dtype (0-d in, 0-d out)."""
    x = np.asarray(x)
    table = _FLOAT64 if x.dtype == np.float64 else _FLOAT32
    flat = x.reshape(-1).astype(table.dtype, copy=False)
    # |x|, at most 6: fmin also sends NaN there (its result is set below).
    a = np.fmin(np.abs(flat), table.dtype(T.K * T.W))
    k = (a * table.dtype(1 / T.W)).astype(np.intp)  # each element's interval; 6 is the last, erf = 1
    # Horner's rule, each element with its interval's coefficients.
    t = a - np.take(table.mids, k)
    acc = np.take(table.p[-1], k)
    for coeffs in reversed(table.p[:-1]):
        acc *= t
        acc += np.take(coeffs, k)
    # The first interval's x * q(x**2 - m0), computed for all (cheaper than picking them out).
    u = a * a - table.m0
    q = np.full_like(u, table.q[-1])
    for c in reversed(table.q[:-1]):
        q *= u
        q += c
    acc = np.where(k == 0, a * q, acc)
    out = np.copysign(acc, flat)
    nan = np.isnan(flat)
    if nan.any():
        out[nan] = np.nan
    return out.astype(x.dtype, copy=False).reshape(x.shape)
