"""The Hurwitz zeta and the regularized incomplete gamma functions of ``torch.special`` - ``zeta(x, q)``,
``gammainc(a, x) = P(a, x)`` and ``gammaincc(a, x) = Q(a, x)`` - written once over an array module ``xp``
(NumPy for the CPU kernels of ``ops/incomplete_gamma.py``, CuPy for ``kernels/gpu/special.py``), in float64.

- ``zeta(x, q) = sum_k (q + k)^-x``: the steps of Cephes' ``zeta`` (the one PyTorch's kernel follows): the
  terms summed until ``q + k > 9`` and at least nine, stopping early where a term no longer counts, then the
  Euler-Maclaurin tail with ``(2k)! / B_2k`` (DLMF 25.11.5; the Bernoulli numbers generated here); the same
  rules at ``x <= 1`` and ``q <= 0``. Below ``q = -64`` (integer ``x`` only, NaN otherwise) the negative terms
  are ``(-1)^x`` times a difference of two zetas of positive arguments, instead of ``|q|`` terms one by one.
- ``P`` and ``Q`` with PyTorch's choice between them (Cephes' ``igam``/``igamc``: ``P`` by its power series
  where ``x <= a`` or ``x <= 1``, else ``1 - Q``; ``Q`` by Legendre's continued fraction for ``x > 1.1`` and
  ``x >= a``, by the series of ``1 - P`` with ``lgamma(1 + a)`` kept exact (DLMF 8.7.3) below 1.1), the common
  factor ``x^a e^-x / Gamma(a)`` written ``sqrt(a / 2pi) e^(-a (lambda - 1 - log lambda) - S(a))`` from
  ``a = 10`` up (``lambda = x / a``, ``S`` Stirling's series), so that it keeps its digits for large ``a``. From
  ``a = 1e5`` up near ``x = a`` (where both series need ``sqrt(a)`` terms), Temme's uniform expansion
  ``Q = erfc(eta sqrt(a/2)) / 2 + e^(-a eta^2 / 2) / sqrt(2 pi a) (C0 + C1 / a + C2 / a^2)`` (DLMF 8.12.3-8.12.8).
  PyTorch's edge rules: NaN below 0 and for ``a = x = 0``; ``P = 1`` at ``a = 0``, 0 at ``x = 0``, 0 for an
  infinite ``a`` (NaN if ``x`` is infinite too), 1 for an infinite ``x``.

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.gamma_arrays import gammainc, zeta
    >>> round(float(gammainc(np, np.array(1.0), np.array(1.0))), 12), round(float(zeta(np, np.array(2.0), np.array(1.0))), 12)
    (0.632120558829, 1.644934066848)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from . import special_arrays as sa

__all__ = ["zeta", "gammainc", "gammaincc", "log_gamma"]

_EPS = 1.11022302462515654042e-16  # Cephes' MACHEP, the stopping rule of zeta and of the series
_FAR = 64.0  # zeta: below -_FAR the negative terms are summed as a difference of two zetas


def _bernoulli(count: int) -> list[Fraction]:
    """B_0 .. B_(count - 1) from ``sum_k C(m + 1, k) B_k = 0``."""
    b: list[Fraction] = []
    for m in range(count):
        b.append(Fraction(1) if m == 0 else -sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(26)
#: the Euler-Maclaurin divisors (2k)! / B_2k, k = 1 .. 12
_ZETA_A = tuple(float(math.factorial(2 * k) / _B[2 * k]) for k in range(1, 13))
#: Stirling's series of log Gamma: B_2k / (2k (2k - 1)), k = 1 .. 8
_STIRLING = tuple(float(_B[2 * k] / (2 * k * (2 * k - 1))) for k in range(1, 9))


def _zeta_main(xp: Any, x: Any, q: Any) -> Any:
    """Cephes' summation for ``q >= -_FAR`` (edge rules applied by ``zeta``), element by element in step."""
    with np.errstate(all="ignore"):
        s, a, b = q ** -x, q, xp.zeros_like(q)
    done, out = xp.zeros(q.shape, dtype=bool), s
    count = int(max(9.0, float(xp.max(xp.where(xp.isfinite(q), 10.0 - q, 0.0), initial=0.0)) + 1))
    for i in range(count):
        active = ~done & ((i < 9) | (a <= 9.0))
        a = xp.where(active, a + 1.0, a)
        b = xp.where(active, a ** -x, b)
        s = xp.where(active, s + b, s)
        converged = active & (-_EPS * s < b) & (b < _EPS * s)
        out, done = xp.where(converged, s, out), done | converged
    w = a
    s = s + b * w / (x - 1.0) - 0.5 * b
    a, k = xp.ones_like(q), 0.0
    for i in range(12):
        a = a * (x + k)
        b = b / w
        t = a * b / _ZETA_A[i]
        s = xp.where(done, s, s + t)
        converged = ~done & (xp.abs(t / s) < _EPS)
        out, done = xp.where(converged, s, out), done | converged
        a = a * (x + k + 1.0)
        b = b / w
        k += 2.0
    return xp.where(done, out, s)


def zeta(xp: Any, x: Any, q: Any) -> Any:
    """The Hurwitz zeta of two float64 arrays of one shape (module docstring)."""
    far = (q < -_FAR) & (q != xp.floor(q)) & (x == xp.floor(x)) & (x > 1) & xp.isfinite(x)
    settled = (x <= 1) | xp.isnan(x) | ((q <= 0) & ((q == xp.floor(q)) | (x != xp.floor(x))))  # by the rules below
    near_q = xp.where(far | settled, 0.5, q)
    out = _zeta_main(xp, x, near_q)
    if bool(xp.any(far)):  # (q + k)^-x = (-1)^x u^-x for the m = ceil(-q) terms below 0, u = -q - k
        xf, qf = xp.where(far, x, 2.0), xp.where(far, q, -100.5)
        m = xp.ceil(-qf)
        sign = xp.where(xp.fmod(xf, 2.0) == 0, 1.0, -1.0)
        nearest = _zeta_main(xp, xf, 1.0 - qf - m)  # inf where (q + k)^-x overflows: PyTorch's sum is too
        below = sign * xp.where(xp.isinf(nearest), nearest, nearest - _zeta_main(xp, xf, 1.0 - qf))
        out = xp.where(far, below + _zeta_main(xp, xf, qf + m), out)
    pole = (q <= 0) & (q == xp.floor(q))
    out = xp.where((q <= 0) & ~pole & (x != xp.floor(x)), xp.nan, out)
    out = xp.where(pole, xp.inf, out)
    out = xp.where(x < 1, xp.nan, out)
    return xp.where(x == 1, xp.inf, out)


# -- log Gamma and the factor x^a e^-x / Gamma(a) -------------------------------------------------------------------

def _stirling_tail(xp: Any, a: Any) -> Any:
    """``S(a) = log Gamma(a) - ((a - 1/2) log a - a + log sqrt(2 pi))`` for ``a >= 10``."""
    inv2 = 1.0 / (a * a)
    total = xp.zeros_like(a)
    for c in reversed(_STIRLING):
        total = total * inv2 + c
    return total / a


def log_gamma(xp: Any, a: Any) -> Any:
    """``log Gamma(a)`` for ``a > 0``: pushed up to 10 by ``Gamma(a) = Gamma(a + n) / (a (a+1) ... (a+n-1))``."""
    low = a < 10.0
    product, shifted = xp.ones_like(a), a
    for _ in range(10):
        below = shifted < 10.0
        product = xp.where(below, product * shifted, product)
        shifted = xp.where(below, shifted + 1.0, shifted)
    stirling = (shifted - 0.5) * xp.log(shifted) - shifted + 0.5 * math.log(2 * math.pi) + _stirling_tail(xp, shifted)
    return xp.where(low, stirling - xp.log(product), stirling)


def _lgamma_taylor(xp: Any, a: Any) -> Any:
    """``log Gamma(1 + a)`` for ``|a| <= 1/2``: ``-gamma a + sum_k (-1)^k zeta(k) a^k / k`` (DLMF 5.7.3)."""
    total = xp.zeros_like(a)
    for k in range(60, 1, -1):
        total = (total + (-1.0) ** k * _ZETA_INT[k] / k) * a
    return (total - 0.57721566490153286061) * a


def _lgamma1p(xp: Any, a: Any) -> Any:
    """``log Gamma(1 + a)``, exact near ``a = 0`` and ``a = 1`` (as Cephes' ``lgam1p``)."""
    near0, near1 = xp.abs(a) <= 0.5, xp.abs(a - 1.0) < 0.5
    t0 = _lgamma_taylor(xp, xp.where(near0, a, 0.0))
    t1 = xp.log(xp.where(near1, a, 1.0)) + _lgamma_taylor(xp, xp.where(near1, a - 1.0, 0.0))
    return xp.where(near0, t0, xp.where(near1, t1, log_gamma(xp, xp.where(near0 | near1, 2.0, 1.0 + a))))


def _log1pmx_neg(xp: Any, d: Any, lam: Any = None) -> Any:
    """``d - log1p(d)`` (``lambda - 1 - log lambda`` at ``lambda = 1 + d``), its series below ``|d| = 1/2``;
    ``log lambda`` of ``lam`` itself when given (``1 + d`` would lose a tiny ``lambda``'s digits)."""
    if lam is not None:
        small = xp.abs(d) < 0.5
        return xp.where(small, _log1pmx_neg(xp, xp.where(small, d, 0.0)), d - xp.log(xp.where(small, 1.0, lam)))
    small = xp.abs(d) < 0.5
    ds = xp.where(small, d, 0.0)
    total = xp.zeros_like(d)
    for k in range(70, 1, -1):
        total = (total + (-1.0) ** k / k) * ds
    return xp.where(small, total * ds, d - xp.log1p(xp.where(small, 0.0, d)))


def _factor(xp: Any, a: Any, x: Any) -> Any:
    """``x^a e^-x / Gamma(a)``."""
    big = a >= 10.0
    ab = xp.where(big, a, 10.0)
    scaled = xp.sqrt(ab / (2 * math.pi)) * xp.exp(-ab * _log1pmx_neg(xp, (x - ab) / ab, x / ab) - _stirling_tail(xp, ab))
    small = xp.exp(a * xp.log(x) - x - log_gamma(xp, xp.where(big, 1.0, a)))
    return xp.where(big, scaled, small)


# -- the series, the continued fraction, Temme's expansion ------------------------------------------------------------

def _p_series(xp: Any, a: Any, x: Any) -> Any:
    """``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1) ... (a+n))`` (DLMF 8.7.1), to ``eps`` of the sum."""
    r, c, total = a, xp.ones_like(a), xp.ones_like(a)
    going = xp.ones(a.shape, dtype=bool)
    for step in range(100000):
        r = r + 1.0
        c = xp.where(going, c * x / r, 0.0)
        total = total + c
        going = going & (c > _EPS * total)
        if step % 32 == 31 and not bool(xp.any(going)):
            break
    return total * _factor(xp, a, x) / a


def _q_fraction(xp: Any, a: Any, x: Any) -> Any:
    """``Q = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...))`` (DLMF 8.9.2), by
    Lentz's method, to ``eps``."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = xp.full_like(a, 1.0 / tiny)
    d = 1.0 / b
    h = d
    going = xp.ones(a.shape, dtype=bool)
    for i in range(1, 100000):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = xp.where(xp.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = xp.where(going, d * c, 1.0)
        h = h * delta
        going = going & (xp.abs(delta - 1.0) > _EPS)
        if i % 32 == 0 and not bool(xp.any(going)):
            break
    return _factor(xp, a, x) * h


def _q_small_x(xp: Any, a: Any, x: Any) -> Any:
    """``Q = 1 - x^a / Gamma(a + 1) (1 + a sum_(n>=1) (-x)^n / (n! (a + n)))`` for ``x <= 1.1``, with
    ``expm1`` and an exact ``log Gamma(1 + a)`` (DLMF 8.7.3)."""
    total, term = xp.zeros_like(a), xp.ones_like(a)
    for n in range(1, 60):
        term = term * -x / n
        total = total + term / (a + n)
    exponent = a * xp.log(x) - _lgamma1p(xp, a)
    return -xp.expm1(exponent) - xp.exp(exponent) * a * total


def _temme(xp: Any, a: Any, x: Any) -> tuple[Any, Any]:
    """``(P, Q)`` by Temme's expansion for ``a >= 1e5`` near ``x = a`` (module docstring): ``C0`` and ``C1`` by
    their Taylor series in ``eta`` below 0.01 and their closed forms above, ``C2`` its value at 0."""
    lam1 = (x - a) / a  # lambda - 1
    eta = xp.sign(lam1) * xp.sqrt(2.0 * _log1pmx_neg(xp, lam1))
    small = xp.abs(eta) < 0.01
    e = xp.where(small, eta, 0.0)
    c0_taylor = -1 / 3 + e * (1 / 12 + e * (-2 / 135 + e * (1 / 864 + e * (1 / 2835))))
    c1_taylor = -1 / 540 + e * (-1 / 288 + e * (1 / 378))
    safe_eta, safe_l = xp.where(small, 1.0, eta), xp.where(small, 1.0, lam1)
    c0 = xp.where(small, c0_taylor, 1.0 / safe_l - 1.0 / safe_eta)
    c1 = xp.where(small, c1_taylor, 1.0 / safe_eta ** 3 - 1.0 / safe_l ** 3 - 1.0 / safe_l ** 2 - 1.0 / (12.0 * safe_l))
    r = xp.exp(-0.5 * a * eta * eta) / xp.sqrt(2 * math.pi * a) * (c0 + c1 / a + (25 / 6048) / (a * a))
    t = eta * xp.sqrt(a / 2.0)
    return 0.5 * sa.erfc(xp, -t) - r, 0.5 * sa.erfc(xp, t) + r


_ZETA_INT = [0.0, 0.0] + [float(v) for v in _zeta_main(np, np.arange(2.0, 61.0), np.ones(59))]


def _p_and_q(xp: Any, a: Any, x: Any) -> tuple[Any, Any]:
    """``(P, Q)`` for finite ``a, x > 0``, each computed as PyTorch's kernel chooses (module docstring)."""
    temme = (a >= 1e5) & (xp.abs(x - a) / a < 40.0 / xp.sqrt(a))
    ok = ~temme
    # the regions of Q: the fraction, 1 - P's series, the small-x series
    use_fraction = ok & (x > 1.1) & (x >= a)
    small_x = ok & (x <= 1.1) & ~((x <= 0.5) & (-0.4 / xp.log(x) < a)) & ~((x > 0.5) & (x * 1.1 < a))
    # P: by its series unless x > 1 and x > a (then 1 - Q)
    p_by_series = ok & ~((x > 1.0) & (x > a))
    series_needed = p_by_series | (ok & ~use_fraction & ~small_x)
    ps = _p_series(xp, xp.where(series_needed, a, 1.0), xp.where(series_needed, x, 0.5))
    qf = _q_fraction(xp, xp.where(use_fraction, a, 1.0), xp.where(use_fraction, x, 2.0))
    qs = _q_small_x(xp, xp.where(small_x, a, 1.0), xp.where(small_x, x, 0.5))
    q = xp.where(use_fraction, qf, xp.where(small_x, qs, 1.0 - ps))
    p = xp.where(p_by_series, ps, 1.0 - q)
    pt, qt = _temme(xp, xp.where(temme, a, 1e6), xp.where(temme, x, 1e6))
    return xp.where(temme, pt, p), xp.where(temme, qt, q)


def _incomplete(xp: Any, a: Any, x: Any, upper: bool) -> Any:
    """``P`` (``upper`` False) or ``Q`` with PyTorch's edge rules."""
    inner = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    with np.errstate(all="ignore"):  # (the branches not taken divide by 0 and overflow, and are dropped)
        p, q = _p_and_q(xp, xp.where(inner, a, 1.0), xp.where(inner, x, 1.0))
    one, zero = (0.0, 1.0) if upper else (1.0, 0.0)  # the values of "P = 1" and of "P = 0"
    out = xp.where(xp.isnan(a) | xp.isnan(x), xp.nan, q if upper else p)
    out = xp.where(xp.isinf(x), one, out)
    out = xp.where(xp.isinf(a), xp.where(xp.isinf(x), xp.nan, zero), out)
    out = xp.where(x == 0, zero, out)
    out = xp.where(a == 0, xp.where(x > 0, one, xp.nan), out)
    return xp.where((a < 0) | (x < 0), xp.nan, out)


def gammainc(xp: Any, a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function ``P(a, x)`` of two float64 arrays of one shape."""
    return _incomplete(xp, a, x, upper=False)


def gammaincc(xp: Any, a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _incomplete(xp, a, x, upper=True)
