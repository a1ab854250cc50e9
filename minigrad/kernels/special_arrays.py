"""The ``torch.special`` functions with kernels of their own - ``entr``, ``xlog1py``, ``erfcx``, ``log_ndtr``,
``ndtri``, ``i0e`` and ``i1e`` - written once over an array module ``xp``: NumPy for the CPU kernels
(``ops/special_functions.py``), CuPy for the GPU ones (``kernels/gpu/special.py``), the same steps on both.

Every dtype is computed in float64 and rounded once. How each is evaluated (re-derived from the series, not
copied from a library; each within a few ulp of float64 against PyTorch's Cephes/Faddeeva kernels):

- ``erfcx(x) = e^(x^2) erfc(x)``: below ``x = 1`` from the everywhere-positive series
  ``e^(x^2) erf(x) = 2/sqrt(pi) sum_n 2^n x^(2n+1) / (2n+1)!!`` (Abramowitz and Stegun 7.1.6), so
  ``erfcx = e^(x^2) - that`` loses at most half a digit; from 1 up, Laplace's continued fraction
  ``1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / ...)))``, whose ``e^(-x^2)`` factor never appears (no
  overflow); below 0, ``2 e^(x^2) - erfcx(-x)``.
- ``log_ndtr(x) = log(Phi(x))``: for ``x < -1`` ``log(erfcx(-x/sqrt 2) / 2) - x^2/2`` (no underflow however
  far out), above ``log1p(-erfc(x/sqrt 2) / 2)``, ``erfc(t) = erfcx(t) e^(-t^2)`` with ``t^2`` kept exact.
- ``ndtri(p)``, the ``x`` with ``Phi(x) = p``: the rational first guess of Abramowitz and Stegun 26.2.23 in
  ``t = sqrt(-2 log q)``, ``q = min(p, 1 - p)`` (error below 5e-4), then Newton's steps on
  ``log Phi(x) = log q``, whose slope's inverse is the Mills ratio ``sqrt(pi/2) erfcx(-x/sqrt 2)``: well
  conditioned down to the smallest subnormal ``q``. ``1 - p`` is exact from ``p = 1/2`` up. Within 1/4 of
  ``p = 1/2`` Newton's steps solve ``erf(x/sqrt 2) = 2p - 1`` instead (exact there), for relative digits at 0.
- ``i0e``, ``i1e`` (``e^-|x| I_nu(x)``): the power series ``sum_k (x/2)^(2k+nu) / (k! (k+nu)!)`` (positive terms)
  times ``e^-|x|`` up to ``|x| = 30``, Hankel's asymptotic series
  ``(2 pi x)^(-1/2) sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! (8x)^k)`` above.

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.special_arrays import erfcx
    >>> round(float(erfcx(np, np.array(1.0))), 12)
    0.427583576156
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["entr", "xlog1py", "erfc", "erfcx", "log_ndtr", "ndtri", "bessel_ie", "in_float64"]

_SQRT_PI = math.sqrt(math.pi)
_SQRT_HALF = math.sqrt(0.5)
_SERIES_TO = 1.0  # erfcx: the series below, the continued fraction above
_BESSEL_SERIES_TO = 30.0  # i0e/i1e: the power series up to here, Hankel's series above


def in_float64(xp: Any, fn: Any, *arrays: Any) -> Any:
    """``fn(xp, *arrays)`` computed in float64 and rounded once to the first array's dtype, NumPy's warnings
    for NaN and infinities (which the functions mean to produce) silenced."""
    dtype = arrays[0].dtype
    with np.errstate(all="ignore"):
        out = fn(xp, *[a.astype(np.float64) for a in arrays])
    return out.astype(dtype)


def entr(xp: Any, x: Any) -> Any:
    """``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` below 0, NaN for NaN."""
    safe = xp.where(x > 0, x, 1.0)
    out = xp.where(x > 0, -x * xp.log(safe), xp.where(x == 0, 0.0, -xp.inf))
    return xp.where(xp.isnan(x), x, out)


def xlog1py(xp: Any, x: Any, y: Any) -> Any:
    """``x log1p(y)``, 0 where ``x = 0`` and ``y`` is not NaN."""
    return xp.where((x == 0) & ~xp.isnan(y), 0.0, x * xp.log1p(y))


def _erfcx_series(xp: Any, x: Any) -> Any:
    """``erfcx`` for ``0 <= x <= 1``: ``e^(x^2)`` minus the positive series of ``e^(x^2) erf(x)``."""
    return xp.exp(x * x) - _scaled_erf_series(xp, x)


def _scaled_erf_series(xp: Any, x: Any) -> Any:
    """``e^(x^2) erf(x)`` for ``|x| <= 1``: ``2/sqrt(pi) sum_n 2^n x^(2n+1) / (2n+1)!!``, 40 terms."""
    term = x * (2.0 / _SQRT_PI)
    total = term
    for n in range(1, 40):
        term = term * (2.0 * x * x) / (2 * n + 1)
        total = total + term
    return total


def _erfcx_fraction(xp: Any, x: Any) -> Any:
    """``erfcx`` for ``x >= 1``: Laplace's continued fraction, 200 levels (to 1e-15 at 1), from the bottom up."""
    f = x
    for k in range(200, 0, -1):
        f = x + (k * 0.5) / f
    return 1.0 / (_SQRT_PI * f)


def _erfcx_positive(xp: Any, a: Any) -> Any:
    """``erfcx`` of ``a >= 0`` (NaN stays NaN)."""
    near = a < _SERIES_TO
    out = xp.where(near, _erfcx_series(xp, xp.where(near, a, 0.0)), _erfcx_fraction(xp, xp.where(near, _SERIES_TO, a)))
    return xp.where(xp.isinf(a), 0.0, out)


def erfcx(xp: Any, x: Any) -> Any:
    """The scaled complementary error function ``e^(x^2) erfc(x)`` of a float64 array."""
    positive = _erfcx_positive(xp, xp.abs(x))
    out = xp.where(x >= 0, positive, 2.0 * xp.exp(x * x) - positive)
    return xp.where(xp.isnan(x), x, out)


def _exp_neg_square(xp: Any, t: Any) -> Any:
    """``e^(-t^2)`` without the rounding of ``t^2``: ``t`` split into a head of 26 bits (whose square is exact)
    and a tail, ``e^(-head^2) e^(-(2 head + tail) tail)``."""
    small = xp.abs(t) < 27.0  # beyond, e^(-t^2) is below 1e-316, where the split buys no digits
    near = xp.where(small, t, 0.0)
    head = (near * 134217729.0) - ((near * 134217729.0) - near)  # Dekker's split
    tail = near - head
    return xp.where(small, xp.exp(-head * head) * xp.exp(-(2.0 * head + tail) * tail), xp.exp(-t * t))


def erfc(xp: Any, t: Any) -> Any:
    """``erfc(t)`` of a float64 array, to a few ulp of itself everywhere: ``erfcx(t) e^(-t^2)`` from 0 up,
    ``2 - erfc(-t)`` below."""
    positive = _erfcx_positive(xp, xp.abs(t)) * _exp_neg_square(xp, xp.abs(t))
    return xp.where(t >= 0, positive, 2.0 - positive)


def log_ndtr(xp: Any, x: Any) -> Any:
    """``log`` of the standard normal CDF of a float64 array, split where PyTorch's is (at -1)."""
    t = x * _SQRT_HALF
    low = xp.log(0.5 * erfcx(xp, -t)) - t * t
    high = xp.log1p(-0.5 * erfc(xp, t))
    out = xp.where(x < -1, low, high)
    return xp.where(xp.isnan(x), x, xp.where(x == -xp.inf, -xp.inf, out))


def _ndtri_guess(xp: Any, q: Any) -> Any:
    """Abramowitz and Stegun 26.2.23's ``x`` with ``Phi(x) ~ q`` for ``0 < q <= 1/2`` (error below 4.5e-4)."""
    t = xp.sqrt(-2.0 * xp.log(q))
    num = 2.515517 + t * (0.802853 + t * 0.010328)
    den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))
    return num / den - t


def _ndtri_tail(xp: Any, q: Any) -> Any:
    """``ndtri(q)`` for ``0 < q <= 1/2``: Newton's steps on ``log Phi(x) = log q`` from the rational guess."""
    x, log_q = _ndtri_guess(xp, q), xp.log(q)
    for _ in range(5):  # quadratic: 4.5e-4, 1e-7, 1e-14, then rounding
        scaled = erfcx(xp, -x * _SQRT_HALF)
        x = x - (xp.log(0.5 * scaled) - 0.5 * x * x - log_q) * (math.sqrt(math.pi / 2) * scaled)
    return x


def _ndtri_centre(xp: Any, d: Any) -> Any:
    """``ndtri(1/2 + d)`` for ``|d| <= 1/4`` (``d`` exact there), to a few ulp of itself however small:
    Newton's steps on ``erf(x / sqrt 2) / 2 = d``, ``erf`` from its positive series."""
    x = d * math.sqrt(2 * math.pi)
    for _ in range(6):
        t = x * _SQRT_HALF
        density = _exp_neg_square(xp, t) / math.sqrt(2 * math.pi)
        x = x - (0.5 * _scaled_erf_series(xp, t) * _exp_neg_square(xp, t) - d) / density
    return x


def ndtri(xp: Any, p: Any) -> Any:
    """The inverse of the standard normal CDF of a float64 array: ``-inf`` at 0, ``inf`` at 1, NaN outside."""
    upper = p > 0.5
    q = xp.where(upper, 1.0 - p, p)
    inside = (q > 0) & (q <= 0.5)
    centre = xp.abs(p - 0.5) <= 0.25
    tail = _ndtri_tail(xp, xp.where(inside & ~centre, q, 0.125))
    x = xp.where(centre, _ndtri_centre(xp, xp.where(centre, p - 0.5, 0.0)), xp.where(upper, -tail, tail))
    edge = xp.where(p == 0, -xp.inf, xp.where(p == 1, xp.inf, xp.nan))
    return xp.where(inside, x, edge)


def _bessel_series(xp: Any, a: Any, nu: int) -> Any:
    """``I_nu(a) e^-a`` for ``0 <= a <= 30``: the power series, each term the last times
    ``(a/2)^2 / (k (k + nu))``."""
    term = (a * 0.5) ** nu / math.factorial(nu)
    total = term
    q = (a * 0.5) ** 2
    for k in range(1, 64):
        term = term * q / (k * (k + nu))
        total = total + term
    return total * xp.exp(-a)


def _bessel_hankel(xp: Any, a: Any, nu: int) -> Any:
    """``I_nu(a) e^-a`` for ``a > 30``: Hankel's asymptotic series in ``1 / (8a)``."""
    term = xp.ones_like(a)
    total = term
    for k in range(1, 24):
        term = -term * (4.0 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0 * a)
        total = total + term
    return total / xp.sqrt(2 * math.pi * a)


def bessel_ie(xp: Any, x: Any, nu: int) -> Any:
    """``e^-|x| I_nu(x)`` of a float64 array for ``nu`` 0 or 1 (``i1e`` is odd, ``i0e`` even); 0 at infinities."""
    a = xp.abs(x)
    near = a <= _BESSEL_SERIES_TO
    out = xp.where(near, _bessel_series(xp, xp.where(near, a, 0.0), nu),
                   _bessel_hankel(xp, xp.where(near, 2 * _BESSEL_SERIES_TO, a), nu))
    out = xp.where(xp.isinf(a), 0.0, out)
    if nu % 2:
        out = xp.where(x < 0, -out, out)
    return xp.where(xp.isnan(x), x, out)
