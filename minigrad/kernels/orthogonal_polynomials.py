"""The classical orthogonal polynomials of ``torch.special`` - Chebyshev's ``T``, ``U``, ``V``, ``W`` and their
shifted forms on ``[0, 1]``, Hermite's ``H`` (physicists') and ``He`` (probabilists'), Laguerre's ``L`` and
Legendre's ``P`` - evaluated at ``x`` for degrees ``n``, elementwise over an array module ``xp`` (NumPy for the
CPU kernels of ``ops/orthogonal_polynomials.py``).

Each is its three-term recurrence ``p_(k+1) = (a_k x + b_k) p_k - c_k p_(k-1)`` run up to the largest degree,
each element keeping the value at its own degree, with PyTorch's rules around it (``aten/src/ATen/native/Math.h``):
a negative degree gives 0 (the degree is truncated to an integer first, NaN counting as negative); at the ends of the interval
(``x = +-1``, or ``0`` and ``1`` for the shifted forms) the closed values; and for the Chebyshev kinds of high
degree inside the interval, the trigonometric forms (``T_n(cos t) = cos(n t)``,
``U_n(cos t) = sin((n+1) t) / sin t``, ``V_n(cos t) = cos((n+1/2) t) / cos(t/2)``,
``W_n(cos t) = sin((n+1/2) t) / sin(t/2)``), as PyTorch switches to them. Every dtype is computed in float64.

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.orthogonal_polynomials import polynomial
    >>> float(polynomial(np, "legendre_polynomial_p", np.array(0.5), np.array(2.0)))
    -0.125
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["polynomial", "POLYNOMIALS"]


def _run(xp: Any, n: Any, first: Any, step: Any, need: Any = None) -> Any:
    """The recurrence: ``first`` is ``p_1``, ``step(k, p_(k-1), p_k)`` gives ``p_(k+1)``; each element keeps the
    value at its degree ``n`` (0 and 1 included), run up to the largest degree among the elements that ``need``
    it (all by default; NaN and infinite degrees aside)."""
    wanted = xp.isfinite(n) if need is None else xp.isfinite(n) & need
    top = int(xp.max(xp.where(wanted, n, 0))) if n.size else 0
    prev, cur = xp.ones_like(first), first
    out = xp.where(n == 0, prev, xp.where(n == 1, cur, 0.0))
    for k in range(1, top):
        prev, cur = cur, step(k, prev, cur)
        out = xp.where(n == k + 1, cur, out)
        if k % 64 == 0 and _settled(xp, n, cur, wanted, k):
            out = xp.where(n > k + 1, xp.nan, out)
            break
    return out


def _settled(xp: Any, n: Any, cur: Any, wanted: Any, k: int) -> bool:
    """Whether every element still to reach its degree has run into NaN (an overflow, ``inf - inf``): the
    recurrence keeps it NaN, so it may stop there (PyTorch's loop stops at NaN too)."""
    return not bool(xp.any(wanted & (n > k + 1) & ~xp.isnan(cur)))


def _ends(xp: Any, n: Any, at_one: Any, at_minus_even: Any, at_minus_odd: Any) -> tuple[Any, Any]:
    """The values at ``x = 1`` and ``x = -1`` (by the parity of ``n``)."""
    return at_one, xp.where(n % 2 == 0, at_minus_even, at_minus_odd)


def _chebyshev(xp: Any, kind: str, x: Any, n: Any, high: int) -> Any:
    """Chebyshev's polynomial of ``kind`` (t, u, v, w) at ``x`` (already shifted for the shifted forms)."""
    two_x = x + x
    first = {"t": x, "u": two_x, "v": two_x - 1, "w": two_x + 1}[kind]
    trig_form = (n > high) & (xp.abs(x) < 1)
    out = _run(xp, n, first, lambda k, p, q: two_x * q - p, need=~trig_form & (xp.abs(x) != 1))
    with np.errstate(all="ignore"):
        theta = xp.arccos(xp.clip(x, -1.0, 1.0))
        trig = {"t": lambda: xp.cos(n * theta),
                "u": lambda: xp.where(xp.sin(theta) != 0, xp.sin((n + 1) * theta) / xp.sin(theta),
                                      (n + 1) * xp.cos((n + 1) * theta) / x),
                "v": lambda: xp.where(xp.sin(theta / 2) != 1, xp.cos((n + 0.5) * theta) / xp.cos(theta / 2),
                                      xp.where(n % 2 == 0, n + n + 1, -(n + n + 1))),
                "w": lambda: xp.where(xp.cos(theta / 2) != 1, xp.sin((n + 0.5) * theta) / xp.sin(theta / 2),
                                      n + n + 1)}[kind]()
    out = xp.where(trig_form, trig, out)
    ends = {"t": (1.0, 1.0, -1.0), "u": (n + 1, n + 1, -(n + 1)), "v": (1.0, n + n + 1, -(n + n + 1)),
            "w": (n + n + 1, 1.0, -1.0)}[kind]
    at_one, at_minus = _ends(xp, n, *ends)
    return xp.where(x == 1, at_one, xp.where(x == -1, at_minus, out))


def _hermite_h(xp: Any, x: Any, n: Any) -> Any:
    return _run(xp, n, x + x, lambda k, p, q: (x + x) * q - (2 * k) * p)


def _hermite_he(xp: Any, x: Any, n: Any) -> Any:
    return _run(xp, n, x, lambda k, p, q: x * q - k * p)


def _laguerre_l(xp: Any, x: Any, n: Any) -> Any:
    out = _run(xp, n, 1 - x, lambda k, p, q: ((k + k + (1 - x)) * q - k * p) / (k + 1))
    return xp.where(x == 0, 1.0, out)


def _legendre_p(xp: Any, x: Any, n: Any) -> Any:
    out = _run(xp, n, x, lambda k, p, q: ((k + k + 1) * x * q - k * p) / (k + 1))
    return xp.where(x == 1, 1.0, xp.where(x == -1, xp.where(n % 2 == 0, 1.0, -1.0), out))


#: PyTorch's degree above which each Chebyshev kind inside the interval takes its trigonometric form
_HIGH = {"t": 6, "u": 8, "v": 8, "w": 8}
_SHIFTED_HIGH = {"t": 6, "u": 6, "v": 6, "w": 4}

POLYNOMIALS = ([f"chebyshev_polynomial_{k}" for k in "tuvw"] + [f"shifted_chebyshev_polynomial_{k}" for k in "tuvw"]
               + ["hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"])


def polynomial(xp: Any, name: str, x: Any, n: Any) -> Any:
    """The polynomial ``name`` (one of ``POLYNOMIALS``) of degree ``n`` at ``x``, float64 arrays broadcast
    together: 0 for a negative degree (NaN and infinite ones too: PyTorch's cast to int64 makes them negative),
    NaN where ``x`` is NaN."""
    x, n = xp.broadcast_arrays(x, n)
    # PyTorch casts the degree to int64: NaN, infinities and degrees past 2^63 become the most negative int64
    n = xp.where(xp.isfinite(n) & (xp.abs(n) < 2.0 ** 63), xp.trunc(n), -1.0)
    if name.startswith("shifted_chebyshev"):
        kind = name[-1]
        out = _chebyshev(xp, kind, x + x - 1, n, _SHIFTED_HIGH[kind])
    elif name.startswith("chebyshev"):
        out = _chebyshev(xp, name[-1], x, n, _HIGH[name[-1]])
    else:
        out = {"hermite_polynomial_h": _hermite_h, "hermite_polynomial_he": _hermite_he,
               "laguerre_polynomial_l": _laguerre_l, "legendre_polynomial_p": _legendre_p}[name](xp, x, n)
    out = xp.where(n < 0, 0.0, out)
    return xp.where(xp.isnan(x) & (n >= 0), xp.nan, out)
