"""The Bessel and Airy functions of ``torch.special`` - ``bessel_j0``, ``bessel_j1``, ``bessel_y0``,
``bessel_y1``, ``modified_bessel_k0``, ``modified_bessel_k1``, their scaled ``e^x K`` and ``airy_ai`` -
written once over an array module ``xp`` (NumPy for the CPU kernels of ``ops/special_bessel.py``, CuPy for
``kernels/gpu/special.py``), each in float64, rounded once by the caller.

No coefficient table is copied from a library: every value comes from a series or an integral whose terms are
generated here, each chosen where it keeps its digits:

- ``J0``, ``J1``, ``Y0``, ``Y1`` below ``x = 2``: their power series (DLMF 10.2.2, 10.8.1; no cancellation
  there). From 2 to 20: Miller's backward recurrence ``J_(n-1) = (2n / x) J_n - J_(n+1)`` from ``n = 80``,
  normalized by ``J_0 + 2 sum J_2k = 1`` (Abramowitz and Stegun 9.1.46), with Neumann's series
  ``Y0 = (2/pi)(log(x/2) + gamma) J0 - (4/pi) sum (-1)^k J_2k / k`` (Abramowitz and Stegun 9.1.88) and its
  derivative for ``Y1 = -Y0'`` (``J_n' = (J_(n-1) - J_(n+1)) / 2``). From 20 up: Hankel's asymptotic expansion (DLMF 10.17.3, 10.17.4) in
  ``1/x``, whose smallest term there is below ``e^-40``, with PyTorch's phases ``x - pi/4`` and ``x - 3pi/4``
  rounded as its kernels round them (so that huge arguments agree).
- ``K0``, ``K1`` below ``x = 1``: DLMF 10.31.1-2. From 1 to 25: the trapezoidal rule on
  ``e^x K_nu(x) = int_0^inf e^(-x (cosh t - 1)) cosh(nu t) dt`` (DLMF 10.32.9; an even, doubly decaying
  integrand: the rule converges geometrically, here below 1e-17 with step 0.1). Above: Hankel's expansion of
  ``K_nu`` (DLMF 10.40.2).
- ``Ai`` from -10 to 3: its Maclaurin series (DLMF 9.4.1) in double-double arithmetic (Dekker's sums and
  products), so that the cancellation of ``Ai(0) f - |Ai'(0)| g`` costs nothing; ``Ai(0)`` and ``-Ai'(0)``
  (DLMF 9.2.3-4) to 32 digits. From 3: ``Ai(x) = sqrt(x/3) K_(1/3)(zeta) / pi`` (DLMF 9.6.1) with the same
  trapezoidal rule, then its asymptotic series (DLMF 9.7.5) above ``x = 11``; below -10 the oscillating
  asymptotic series (DLMF 9.7.9) with PyTorch's phase ``zeta + pi/4``; from -2.09 to 1 the series in plain
  float64 suffices. As PyTorch's: 0 above 103.892, NaN at the infinities.

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.bessel_arrays import bessel_j0
    >>> round(float(bessel_j0(np, np.array(1.0))), 12)
    0.765197686558
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai"]

_EULER = 0.57721566490153286061
_TWO_OVER_PI = 2.0 / math.pi
_SERIES_TO = 2.0  # J, Y: power series below, Miller's recurrence up to _HANKEL_FROM, Hankel's series above
_HANKEL_FROM = 20.0
_MILLER_FROM = 80
_K_SERIES_TO = 1.0  # K: power series below, the trapezoidal rule up to _K_HANKEL_FROM, Hankel's series above
_K_HANKEL_FROM = 25.0
_STEP, _NODES = 0.1, 56  # the trapezoidal rule's step and nodes (t up to 5.5)


def _hankel_terms(nu: float, count: int) -> list[float]:
    """``a_k(nu) = prod_(j<=k) (4 nu^2 - (2j - 1)^2) / (k! 8^k)``, k = 0 .. count - 1 (DLMF 10.17.1)."""
    terms, a = [], 1.0
    for k in range(count):
        if k:
            a = a * (4.0 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0)
        terms.append(a)
    return terms


def _series_j_y(xp: Any, x: Any, nu: int) -> tuple[Any, Any]:
    """``J_nu(x)``, ``Y_nu(x)`` for ``0 < x <= 2``, ``nu`` 0 or 1: DLMF 10.2.2 and 10.8.1, 30 terms."""
    q = -x * x / 4.0
    term = (x / 2.0) ** nu / math.factorial(nu)
    psi_k, psi_kn = -_EULER, -_EULER + (1.0 if nu else 0.0)  # psi(k + 1), psi(k + nu + 1)
    j, s = term, term * (psi_k + psi_kn)
    for k in range(1, 30):
        term = term * q / (k * (k + nu))
        psi_k, psi_kn = psi_k + 1.0 / k, psi_kn + 1.0 / (k + nu)
        j, s = j + term, s + term * (psi_k + psi_kn)
    y = _TWO_OVER_PI * xp.log(x / 2.0) * j - s / math.pi
    if nu:
        y = y - _TWO_OVER_PI / x
    return j, y


def _miller(xp: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    """``J0, J1, Y0, Y1`` for ``2 <= x <= 20``: Miller's backward recurrence, normalized, with Neumann's sums."""
    j_up, j = xp.zeros_like(x), xp.full_like(x, 1e-30)  # J_(n+1), J_n from n = _MILLER_FROM, unnormalized
    norm, y0_sum, y1_sum = xp.zeros_like(x), xp.zeros_like(x), xp.zeros_like(x)
    j1 = j
    for n in range(_MILLER_FROM, 0, -1):  # j becomes J_(n-1)
        j_up, j = j, (2.0 * n / x) * j - j_up
        m = n - 1
        if m % 2 == 0 and m > 0:  # J_m even: the normalization and Y0's sum; Y1's sum needs J_(m-1) - J_(m+1)
            k = m // 2
            norm = norm + 2.0 * j
            y0_sum = y0_sum + (-1.0) ** k * j / k
        if m % 2 == 1:  # J_m odd, m = 2k - 1 with k = (m + 1) / 2: + (-1)^k J_(2k-1) / k - (-1)^(k-1) J_(2k-1) / (k-1)
            k = (m + 1) // 2
            y1_sum = y1_sum + (-1.0) ** k * j / k - (0.0 if k == 1 else (-1.0) ** (k - 1) * j / (k - 1))
        if m == 1:
            j1 = j
    norm = norm + j
    j0, j1 = j / norm, j1 / norm
    log_term = xp.log(x / 2.0) + _EULER
    y0 = _TWO_OVER_PI * (log_term * j0 - 2.0 * y0_sum / norm)
    y1 = _TWO_OVER_PI * (log_term * j1 - j0 / x + y1_sum / norm)
    return j0, j1, y0, y1


def _hankel_j_y(xp: Any, x: Any, nu: int) -> tuple[Any, Any]:
    """``J_nu``, ``Y_nu`` for ``x >= 20``: ``sqrt(2/(pi x)) (P cos chi - Q sin chi)`` and
    ``(P sin chi + Q cos chi)``, ``chi = x - pi/4`` (``nu = 0``) or ``x - 3pi/4``, both rounded as PyTorch's."""
    a = _hankel_terms(float(nu), 24)
    inv = 1.0 / x
    p, q = xp.zeros_like(x), xp.zeros_like(x)
    for k in range(22, -1, -2):  # P = sum (-1)^(k/2) a_k / x^k over even k, Q over odd k
        p = p * (-inv * inv) + a[k]
        q = q * (-inv * inv) + a[k + 1]
    q = q * inv
    chi = x - (0.785398163397448309615660845819875721 if nu == 0 else 2.356194490192344928846982537459627163)
    c, s = xp.cos(chi), xp.sin(chi)
    scale = 0.797884560802865355879892119868763737 / xp.sqrt(x)
    return (p * c - q * s) * scale, (p * s + q * c) * scale


def _j_y(xp: Any, x: Any, nu: int) -> tuple[Any, Any]:
    """``J_nu(|x|)``, ``Y_nu(|x|)`` for a float64 array, each region computed on its own elements' values."""
    a = xp.abs(x)
    small, large = a < _SERIES_TO, a >= _HANKEL_FROM
    js, ys = _series_j_y(xp, xp.where(small, a, 1.0), nu)
    jm0, jm1, ym0, ym1 = _miller(xp, xp.where(small | large, 10.0, a))
    jh, yh = _hankel_j_y(xp, xp.where(large, a, 30.0), nu)
    jm, ym = (jm0, ym0) if nu == 0 else (jm1, ym1)
    j = xp.where(small, js, xp.where(large, jh, jm))
    y = xp.where(small, ys, xp.where(large, yh, ym))
    return j, y


def bessel_j0(xp: Any, x: Any) -> Any:
    """``J0(x)``, even; NaN at the infinities (PyTorch's ``cos(inf)``)."""
    return _j_y(xp, x, 0)[0]


def bessel_j1(xp: Any, x: Any) -> Any:
    """``J1(x)``, odd (``-0`` at ``-0``); NaN at the infinities."""
    j = _j_y(xp, x, 1)[0]
    return xp.where(x == 0, x, xp.where(x < 0, -j, j))


def _y(xp: Any, x: Any, nu: int) -> Any:
    y = _j_y(xp, x, nu)[1]
    return xp.where(x == 0, -xp.inf, xp.where(x < 0, xp.nan, y))


def bessel_y0(xp: Any, x: Any) -> Any:
    """``Y0(x)``: ``-inf`` at 0, NaN below."""
    return _y(xp, x, 0)


def bessel_y1(xp: Any, x: Any) -> Any:
    """``Y1(x)``: ``-inf`` at 0 (and where ``2 / (pi x)`` overflows), NaN below."""
    return _y(xp, x, 1)


def _series_k(xp: Any, x: Any, nu: int) -> Any:
    """``K_nu(x)`` for ``0 < x <= 1``, ``nu`` 0 or 1: DLMF 10.31.2 and 10.31.1, 25 terms."""
    q = x * x / 4.0
    term = (x / 2.0) ** nu / math.factorial(nu)
    psi_k, psi_kn = -_EULER, -_EULER + (1.0 if nu else 0.0)
    i, s = term, term * (psi_k + psi_kn)
    for k in range(1, 25):
        term = term * q / (k * (k + nu))
        psi_k, psi_kn = psi_k + 1.0 / k, psi_kn + 1.0 / (k + nu)
        i, s = i + term, s + term * (psi_k + psi_kn)
    if nu:
        return 1.0 / x + xp.log(x / 2.0) * i - s / 2.0
    return -xp.log(x / 2.0) * i + s / 2.0


def _trapezoid_scaled_k(xp: Any, z: Any, nu: float) -> Any:
    """``e^z K_nu(z)`` for ``z >= 2/3``: the trapezoidal rule on ``int_0^inf e^(-z (cosh t - 1)) cosh(nu t) dt``."""
    total = 0.5 * xp.ones_like(z)
    for m in range(1, _NODES):
        t = m * _STEP
        total = total + xp.exp(-z * (math.cosh(t) - 1.0)) * math.cosh(nu * t)
    return total * _STEP


def _hankel_scaled_k(xp: Any, z: Any, nu: float) -> Any:
    """``e^z K_nu(z)`` for ``z >= 25``: ``sqrt(pi / (2z)) sum_k a_k(nu) / z^k`` (DLMF 10.40.2)."""
    a = _hankel_terms(nu, 26)
    inv = 1.0 / z
    total = xp.zeros_like(z)
    for c in reversed(a):
        total = total * inv + c
    return total * xp.sqrt(math.pi / 2.0 * inv)


def _scaled_k(xp: Any, x: Any, nu: int) -> Any:
    """``e^x K_nu(x)`` of a float64 array: ``inf`` at 0 (both signs), NaN below, 0 at ``inf``."""
    small, large = x < _K_SERIES_TO, x >= _K_HANKEL_FROM
    ks = _series_k(xp, xp.where(small & (x > 0), x, 0.5), nu) * xp.exp(xp.where(small, x, 0.0))
    kt = _trapezoid_scaled_k(xp, xp.where(small | large, 2.0, x), float(nu))
    kh = _hankel_scaled_k(xp, xp.where(large, x, 30.0), float(nu))
    out = xp.where(small, ks, xp.where(large, kh, kt))
    out = xp.where(x == 0, xp.inf, xp.where(x < 0, xp.nan, out))
    return xp.where(x == xp.inf, 0.0, out)


def scaled_modified_bessel_k0(xp: Any, x: Any) -> Any:
    return _scaled_k(xp, x, 0)


def scaled_modified_bessel_k1(xp: Any, x: Any) -> Any:
    return _scaled_k(xp, x, 1)


def modified_bessel_k0(xp: Any, x: Any) -> Any:
    """``K0(x) = e^-x (e^x K0(x))``, 0 where ``e^-x`` underflows."""
    return _unscale(xp, x, _scaled_k(xp, x, 0))


def modified_bessel_k1(xp: Any, x: Any) -> Any:
    return _unscale(xp, x, _scaled_k(xp, x, 1))


def _unscale(xp: Any, x: Any, scaled: Any) -> Any:
    small = x < _K_SERIES_TO  # the series gave K itself: undo its factor exactly
    return xp.where(small, scaled * xp.exp(-xp.where(small, x, 0.0)), scaled * xp.exp(-xp.where(small, 0.0, x)))


# -- Airy's Ai -------------------------------------------------------------------------------------------------------

# Ai(0) = 1 / (3^(2/3) Gamma(2/3)) and -Ai'(0) = 1 / (3^(1/3) Gamma(1/3)) (DLMF 9.2.3-4), each as a double-double
_AI0 = (0.3550280538878172, 2.05233632436212e-17)
_AI0_SLOPE = (0.2588194037928068, -2.522243111610832e-17)
_AIRY_SERIES_FROM, _AIRY_SERIES_TO, _AIRY_ASYMPTOTIC_FROM, _AIRY_ZERO_FROM = -10.0, 3.0, 11.0, 103.892
_SPLIT = 134217729.0  # 2^27 + 1, Dekker's splitter


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def _two_prod(a: Any, b: Any) -> tuple[Any, Any]:
    p = a * b
    ah = a * _SPLIT - (a * _SPLIT - a)
    bh = b * _SPLIT - (b * _SPLIT - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_add(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    s, e = _two_sum(a[0], b[0])
    e = e + a[1] + b[1]
    return _two_sum(s, e)


def _dd_mul(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    p, e = _two_prod(a[0], b[0])
    e = e + (a[0] * b[1] + a[1] * b[0])
    return _two_sum(p, e)


def _dd_div_int(a: tuple[Any, Any], n: int) -> tuple[Any, Any]:
    """``a / n`` for a small integer ``n``, in double-double."""
    q = a[0] / n
    p, e = _two_prod(q, n * 1.0)
    r = (a[0] - p - e + a[1]) / n
    return _two_sum(q, r)


def _airy_series(xp: Any, x: Any) -> Any:
    """``Ai(x) = Ai(0) f(x) - |Ai'(0)| g(x)`` (DLMF 9.4.1) for ``-10 <= x <= 3``, in double-double: ``f``'s terms
    the last times ``x^3 / ((3k - 1) 3k)``, ``g``'s times ``x^3 / (3k (3k + 1))``."""
    zero = xp.zeros_like(x)
    cube = _dd_mul(_two_prod(x, x), (x, zero))
    f_term, g_term = (xp.ones_like(x), zero), (x, zero)
    f, g = f_term, g_term
    for k in range(1, 42):  # |x| <= 10: the terms fall below 1e-40 of the largest by k = 40
        f_term = _dd_div_int(_dd_div_int(_dd_mul(f_term, cube), 3 * k - 1), 3 * k)
        g_term = _dd_div_int(_dd_div_int(_dd_mul(g_term, cube), 3 * k), 3 * k + 1)
        f, g = _dd_add(f, f_term), _dd_add(g, g_term)
    a = _dd_mul(f, (xp.full_like(x, _AI0[0]), xp.full_like(x, _AI0[1])))
    b = _dd_mul(g, (xp.full_like(x, -_AI0_SLOPE[0]), xp.full_like(x, -_AI0_SLOPE[1])))
    s = _dd_add(a, b)
    return s[0] + s[1]


def _airy_u(count: int) -> list[float]:
    """``u_k = (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) u_(k-1)``, ``u_0 = 1`` (DLMF 9.7.2)."""
    u = [1.0]
    for k in range(1, count):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216.0 * k))
    return u


def _airy_positive(xp: Any, x: Any) -> Any:
    """``Ai(x)`` for ``x >= 3``: ``sqrt(x/3) K_(1/3)(zeta) / pi`` by the trapezoidal rule up to ``x = 11``,
    the asymptotic series ``e^-zeta / (2 sqrt(pi) x^(1/4)) sum (-1)^k u_k / zeta^k`` above."""
    zeta = 2.0 * x * xp.sqrt(x) / 3.0
    far = x >= _AIRY_ASYMPTOTIC_FROM
    near = _trapezoid_scaled_k(xp, xp.where(far, 3.0, zeta), 1.0 / 3.0) * xp.sqrt(x / 3.0) / math.pi
    u = _airy_u(24)
    inv = -1.0 / xp.where(far, zeta, 30.0)
    total = xp.zeros_like(x)
    for c in reversed(u):
        total = total * inv + c
    asymptotic = total / (2.0 * math.sqrt(math.pi) * xp.sqrt(xp.sqrt(x)))
    return xp.where(far, asymptotic, near) * xp.exp(-zeta)


def _airy_negative(xp: Any, x: Any) -> Any:
    """``Ai(x)`` for ``x <= -10``: ``(sin theta U_f - cos theta U_g) / (sqrt(pi) |x|^(1/4))``,
    ``theta = zeta + pi/4`` rounded as PyTorch's (DLMF 9.7.9)."""
    t = xp.sqrt(-x)
    zeta = -2.0 * x * t / 3.0
    u = _airy_u(30)
    inv2 = -1.0 / (zeta * zeta)
    uf, ug = xp.zeros_like(x), xp.zeros_like(x)
    for k in range(28, -1, -2):
        uf = uf * inv2 + u[k]
        ug = ug * inv2 + u[k + 1]
    ug = ug / zeta
    theta = zeta + 0.25 * math.pi
    return 5.64189583547756286948e-1 / xp.sqrt(t) * (xp.sin(theta) * uf - xp.cos(theta) * ug)


def _airy_plain_series(xp: Any, x: Any) -> Any:
    """``Ai(0) f(x) - |Ai'(0)| g(x)`` in float64 for ``-2.09 <= x <= 1`` (no cancellation to speak of there)."""
    cube = x * x * x
    f_term, g_term = xp.ones_like(x), x
    f, g = f_term, g_term
    for k in range(1, 25):
        f_term = f_term * cube / ((3 * k - 1) * 3 * k)
        g_term = g_term * cube / (3 * k * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI0[0] * f - _AI0_SLOPE[0] * g


def _on(xp: Any, mask: Any, fn: Any, x: Any) -> Any:
    """``fn(xp, x)`` computed on the elements of ``mask`` only (0 elsewhere)."""
    out = xp.zeros_like(x)
    if bool(mask.any()):
        out[mask] = fn(xp, x[mask])
    return out


def airy_ai(xp: Any, x: Any) -> Any:
    """``Ai(x)`` of a float64 array (module docstring): 0 above 103.892, NaN at the infinities, as PyTorch's. Each
    region is computed on its own elements (the double-double series is the costly one)."""
    plain = (x >= -2.09) & (x <= 1.0)
    middle = (x > _AIRY_SERIES_FROM) & (x < _AIRY_SERIES_TO) & ~plain
    right = x >= _AIRY_SERIES_TO
    left = x <= _AIRY_SERIES_FROM
    out = (_on(xp, plain, _airy_plain_series, x) + _on(xp, middle, _airy_series, x)
           + _on(xp, right & (x <= _AIRY_ZERO_FROM), _airy_positive, x) + _on(xp, left & xp.isfinite(x), _airy_negative, x))
    out = xp.where(xp.isnan(x), x, out)
    return xp.where(xp.isinf(x), xp.nan, out)
