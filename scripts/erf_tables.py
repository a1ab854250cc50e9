"""Write ``minigrad/kernels/erf_tables.py``: the piecewise polynomials of the vectorised ``erf``.

NumPy has no ``erf`` ufunc, and ``math.erf`` element by element is a Python
call per element (10 ms for one GELU activation of a small transformer). The
kernel in ``minigrad/kernels/special.py`` evaluates polynomials instead; this
script fits them, in 40-digit arithmetic with mpmath, and prints the tables.

- ``0 <= |x| < W``: ``erf(x) = x * q(x**2 - m0)`` (so tiny ``x`` keep full
  relative precision: no constant term to cancel);
- ``k*W <= |x| < (k+1)*W``, ``k = 1 .. K-1``: ``erf(x) = p_k(|x| - mid_k)``;
- ``|x| >= K*W = 6``: ``erf(x) = 1`` (``erfc(6)`` is below half an ulp of 1).

Each polynomial interpolates ``erf`` at the Chebyshev nodes of its interval
(near-minimax). Degree 13 gives float64 within 2 ulp of ``math.erf``; degree
8, rounded to float32, float32 within 2 ulp. ``python scripts/erf_tables.py``
rewrites the table module (mpmath comes with the ``dev`` extra through sympy/torch).
"""

from __future__ import annotations

from pathlib import Path

import mpmath as mp

W, K = 0.5, 12
DEGREES = {"float64": 13, "float32": 8}
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
    for name, degree in DEGREES.items():
        q, m0, mids, rows = tables(degree)
        by_power = [[row[j] for row in rows] for j in range(degree + 1)]  # [power][interval]
        lines += [
            f"# {name}: degree {degree}",
            f"Q_{name.upper()} = {q!r}",
            f"M0_{name.upper()} = {m0!r}",
            f"MIDS_{name.upper()} = {mids!r}",
            f"P_{name.upper()} = [",
            *[f"    {coeffs!r}," for coeffs in by_power],
            "]",
            "",
        ]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
