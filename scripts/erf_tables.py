"""Write ``minigrad/kernels/erf_tables.py``: the polynomials of the vectorised ``erf``.

NumPy has no ``erf`` ufunc, and ``math.erf`` element by element is a Python
call per element (10 ms for one GELU activation of a small transformer). The
kernel in ``minigrad/kernels/special.py`` evaluates polynomials instead; this
script fits them, in 40-digit arithmetic with mpmath, and prints the tables.

float64, piecewise (degree 13, within 2 ulp of ``math.erf``):

- ``0 <= |x| < W``: ``erf(x) = x * q(x**2 - m0)`` (so tiny ``x`` keep full
  relative precision: no constant term to cancel);
- ``k*W <= |x| < (k+1)*W``, ``k = 1 .. K-1``: ``erf(x) = p_k(|x| - mid_k)``;
- ``|x| >= K*W = 6``: ``erf(x) = 1`` (``erfc(6)`` is below half an ulp of 1).

float32, two smooth pieces and no per-element table lookups (within 2 ulp,
evaluated in float32 as PyTorch evaluates float32 GELU):

- ``0 <= |x| < 0.75``: ``erf(x) = x * q(x**2 - m0)``, degree 6;
- ``0.75 <= |x| < 4``: ``erf(x) = 1 - exp(-x**2) * r(v - mid)`` with
  ``v = 1 / (1 + |x|)``, degree 7. ``r(v)`` is ``erfcx(x) = exp(x**2) * erfc(x)``,
  smooth and slowly varying where ``erfc`` itself falls by seven orders of
  magnitude, and nearly a polynomial in ``v`` (``erfcx(x)`` behaves as
  ``1 / (sqrt(pi) * x)`` for large ``x``): degree 13 in ``|x|`` gives what
  degree 7 in ``v`` gives. ``1 - ...`` loses nothing there because
  ``erfc(x) < erf(x)``;
- ``|x| >= 4``: ``erf(x) = 1`` (``erfc(4)`` is below half a float32 ulp of 1).

The float32 normal CDF of GELU, one smooth piece for every ``x`` (no
``1 + erf``, whose cancellation loses the small values for negative ``x``):

- ``Phi(-|x|) = exp(-x**2 / 2) * h(v - mid)`` with ``v = 1 / (1 + |x| / sqrt(2))``,
  ``h`` half of ``erfcx`` at ``|x| / sqrt(2)``, degree 10 over ``|x| <= 14``
  (beyond, ``exp(-x**2 / 2)`` is below float32's smallest number);
  ``Phi(|x|) = 1 - Phi(-|x|)``.

Each polynomial interpolates its function at the Chebyshev nodes of its
interval (near-minimax). ``python scripts/erf_tables.py`` rewrites the table
module (mpmath comes with the ``dev`` extra through sympy/torch).
"""

from __future__ import annotations

from pathlib import Path

import mpmath as mp

W, K = 0.5, 12
FLOAT64_DEGREE = 13
SPLIT, TOP = 0.75, 4.0  # float32: where the two pieces meet, and where erf rounds to 1
FLOAT32_DEGREES = (6, 7)  # x * q(x**2 - m0), then r(1 / (1 + |x|) - mid)
PHI_DEGREE, PHI_TOP = 10, 14  # the float32 normal CDF: h(v - mid) over |x| <= PHI_TOP
OUT = Path(__file__).resolve().parent.parent / "minigrad" / "kernels" / "erf_tables.py"


def chebyshev_fit(f, a, b, degree):
    """Monomial coefficients in ``t = x - mid`` of the polynomial interpolating ``f`` at Chebyshev nodes."""
    n = degree + 1
    mid, half = (a + b) / 2, (b - a) / 2
    xs = [mid + half * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vandermonde = mp.matrix([[(x - mid) ** j for j in range(n)] for x in xs])
    coeffs = mp.lu_solve(vandermonde, mp.matrix([f(x) for x in xs]))
    return [coeffs[j] for j in range(n)], mid


def erf_over_x(s):
    """``erf(sqrt(s)) / sqrt(s)``, the function the first interval fits in ``s = x**2``."""
    return 2 / mp.sqrt(mp.pi) if s == 0 else mp.erf(mp.sqrt(s)) / mp.sqrt(s)


def erfcx_of_v(v):
    """``exp(x**2) * erfc(x)`` at ``x = 1/v - 1``: the smooth factor of ``erfc`` the float32 table fits above ``SPLIT``."""
    x = 1 / v - 1
    return mp.exp(x * x) * mp.erfc(x)


def half_erfcx_of_v(v):
    """``exp(z**2) * erfc(z) / 2`` at ``z = 1/v - 1``: ``Phi(-|x|) / exp(-x**2 / 2)`` for ``|x| = sqrt(2) * z``."""
    z = 1 / v - 1
    return mp.exp(z * z) * mp.erfc(z) / 2


def tables(degree):
    """``(q, m0, mids, rows)``: the first interval's ``q`` and the other intervals' polynomials."""
    q, m0 = chebyshev_fit(erf_over_x, mp.mpf(0), mp.mpf(W) ** 2, degree)
    mids, rows = [0.0], [[0.0] * (degree + 1)]  # row 0: the first interval, handled by q
    for k in range(1, K):
        coeffs, mid = chebyshev_fit(mp.erf, mp.mpf(k * W), mp.mpf((k + 1) * W), degree)
        mids.append(float(mid))
        rows.append([float(c) for c in coeffs])
    mids.append(0.0)
    rows.append([1.0] + [0.0] * degree)  # |x| >= 6: erf = 1
    return [float(c) for c in q], float(m0), mids, rows


def main() -> None:
    mp.mp.dps = 40
    lines = [
        '"""Tables of the vectorised ``erf`` (``kernels/special.py``), written by ``scripts/erf_tables.py``: do not edit."""',
        "",
        f"W = {W!r}  # interval width",
        f"K = {K!r}  # intervals; |x| >= K * W gives 1",
        "",
    ]
    q, m0, mids, rows = tables(FLOAT64_DEGREE)
    by_power = [[row[j] for row in rows] for j in range(FLOAT64_DEGREE + 1)]  # [power][interval]
    lines += [
        f"# float64: degree {FLOAT64_DEGREE}, piecewise",
        f"Q_FLOAT64 = {q!r}",
        f"M0_FLOAT64 = {m0!r}",
        f"MIDS_FLOAT64 = {mids!r}",
        "P_FLOAT64 = [",
        *[f"    {coeffs!r}," for coeffs in by_power],
        "]",
        "",
    ]
    q, m0 = chebyshev_fit(erf_over_x, mp.mpf(0), mp.mpf(SPLIT) ** 2, FLOAT32_DEGREES[0])
    r, mid = chebyshev_fit(erfcx_of_v, 1 / (1 + mp.mpf(TOP)), 1 / (1 + mp.mpf(SPLIT)), FLOAT32_DEGREES[1])
    lines += [
        "# float32: x * q(x**2 - m0) below SPLIT, 1 - exp(-x**2) * r(1 / (1 + |x|) - MID_R) up to TOP, 1 above",
        f"SPLIT = {SPLIT!r}",
        f"TOP = {TOP!r}",
        f"Q_FLOAT32 = {[float(c) for c in q]!r}",
        f"M0_FLOAT32 = {float(m0)!r}",
        f"R_FLOAT32 = {[float(c) for c in r]!r}",
        f"MID_R_FLOAT32 = {float(mid)!r}",
        "",
    ]
    h, mid = chebyshev_fit(half_erfcx_of_v, 1 / (1 + PHI_TOP / mp.sqrt(2)), mp.mpf(1), PHI_DEGREE)
    lines += [
        "# float32 normal CDF: Phi(-|x|) = exp(-x**2 / 2) * h(1 / (1 + |x| / sqrt(2)) - MID_H), Phi(|x|) = 1 - Phi(-|x|)",
        f"H_FLOAT32 = {[float(c) for c in h]!r}",
        f"MID_H_FLOAT32 = {float(mid)!r}",
        "",
    ]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
