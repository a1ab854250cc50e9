"""The gamma family: ``lgamma``, ``digamma``, ``polygamma(n, x)`` and ``mvlgamma(x, p)``, each an op with
PyTorch's node (``LgammaBackward0``, ``DigammaBackward0``, ``PolygammaBackward0``, ``MvlgammaBackward0``):

========== ================================================  ==========================================
op         value                                             d op / dx
========== ================================================  ==========================================
lgamma     log |Gamma(x)|                                    digamma(x)
digamma    Gamma'(x) / Gamma(x)                              polygamma(1, x)
polygamma  the n-th derivative of digamma                    polygamma(n + 1, x)
mvlgamma   p(p-1)/4 log(pi) + sum_j lgamma(x - j/2), j < p   sum_j digamma(x - j/2)
========== ================================================  ==========================================

The values follow PyTorch's CPU formulas, computed in float64 and rounded to the tensor's dtype:
``lgamma`` is C's ``lgamma`` (Python's ``math.lgamma``; ``inf`` at the poles 0, -1, -2 ...);
``digamma`` pushes ``x`` up to 10 by ``psi(x) = psi(x + 1) - 1 / x`` and adds the asymptotic series in
the Bernoulli numbers there, reflecting a negative ``x`` (``psi(1 - x) - pi / tan(pi x)``; NaN at the
negative integers, ``-inf`` at +0 and ``inf`` at -0); ``polygamma(1, x)`` is the trigamma series the same
way; higher orders are ``(-1)^(n+1) n! zeta(n + 1, x)``, the Hurwitz zeta by Euler-Maclaurin summation.
An integer tensor is computed in the default float dtype, as PyTorch does.

Example:
    >>> import minigrad as mg
    >>> round(mg.lgamma(mg.tensor(5.0)).item(), 4), round(mg.digamma(mg.tensor(1.0)).item(), 4)
    (3.1781, -0.5772)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_tensor
from .registry import Attr, defop, type_name

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma"]


def _bernoulli(count: int) -> list[Fraction]:
    """B_0 .. B_{count - 1} (B_1 = -1/2), from the recurrence sum_k C(m + 1, k) B_k = 0."""
    b: list[Fraction] = []
    for m in range(count):
        b.append(Fraction(1) if m == 0 else -sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(26)
#: digamma's asymptotic series: B_2k / (2k), k = 1 .. 7, in powers of 1 / x^2
_PSI_SERIES = tuple(float(_B[2 * k] / (2 * k)) for k in range(1, 8))
#: the Euler-Maclaurin terms of the Hurwitz zeta: (2k)! / B_2k, k = 1 .. 12
_ZETA_TERMS = tuple(float(math.factorial(2 * k) / _B[2 * k]) for k in range(1, 13))
_EPS = float(np.finfo(np.float64).eps) / 2
#: below -_SHORT_HEAD, zeta's terms under -10 are summed as a difference of two zetas of positive arguments
_SHORT_HEAD = 64
_PSI_10 = 2.25175258906672110764  # psi(10) = 1 + 1/2 + ... + 1/9 - Euler's gamma, where the push up stops exactly


def _lgamma_one(v: float) -> float:
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # a pole (0, -1, -2 ...) or beyond the float range
        return math.inf


_lgamma_each = np.frompyfunc(_lgamma_one, 1, 1)


def lgamma_values(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)| in float64, element by element (C's ``lgamma``, as PyTorch's CPU kernel)."""
    flat = np.asarray(x, dtype=np.float64)
    return np.asarray(_lgamma_each(flat), dtype=np.float64).reshape(flat.shape)


def digamma_values(x: np.ndarray) -> np.ndarray:
    """psi(x) in float64 (module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        negative = x < 0
        shifted = np.where(negative, 1.0 - x, x)  # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
        result = np.zeros_like(shifted)
        for _ in range(10):  # up to x >= 10: psi(x) = psi(x + 1) - 1 / x
            low = shifted < 10
            result = np.where(low, result - 1.0 / np.where(low, shifted, 1.0), result)
            shifted = np.where(low, shifted + 1.0, shifted)
        z = 1.0 / (shifted * shifted)
        series = np.zeros_like(z)
        for c in reversed(_PSI_SERIES):
            series = series * z + c
        series = np.where(shifted < 1e17, z * series, 0.0)
        out = np.where(shifted == 10, result + _PSI_10, result + np.log(shifted) - 0.5 / shifted - series)
        fraction = x - np.trunc(x)  # tan(pi r) of the fractional part is the more accurate one
        out = np.where(negative, out - np.pi / np.tan(np.pi * fraction), out)
        out = np.where(negative & (x == np.trunc(x)), np.nan, out)  # the poles, and -inf
        return np.where(x == 0, np.copysign(np.inf, -x), out)


def trigamma_values(x: np.ndarray) -> np.ndarray:
    """psi'(x) in float64: reflected below 1/2, pushed up by six steps of 1 / x^2, then the asymptotic series."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        sin_pi_x = np.sin(np.pi * x)
        result = np.where(reflect, -(np.pi * np.pi) / (sin_pi_x * sin_pi_x), 0.0)
        v = np.where(reflect, 1.0 - x, x)
        for _ in range(6):
            result = result + 1.0 / (v * v)
            v = v + 1.0
        ixx = 1.0 / (v * v)
        result = result + (1.0 + 1.0 / (2.0 * v) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / v
        return np.where(reflect, -result, result)


def zeta_values(s: float, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta sum_k (q + k)^-s for an integer ``s`` >= 2, in float64: the first terms summed until
    ``q + k > 9`` (and at least nine of them; early where a term no longer counts), then the Euler-Maclaurin
    tail; ``inf`` at q = 0, -1, -2 ... (Far below 0 the terms under -10 are ``(-1)^s`` times the zeta of their
    absolute values, a difference of two zetas of positive arguments, instead of millions of terms one by one.)"""
    shape = np.shape(q)
    q = np.asarray(q, dtype=np.float64).ravel()
    far = np.isfinite(q) & (q < -_SHORT_HEAD) & (q != np.trunc(q))
    if far.any():  # split off the terms below -10, a difference of two zetas of positive arguments (fast)
        out = np.empty_like(q)
        out[~far] = zeta_values(s, q[~far])
        qf = q[far]
        count = np.floor(-qf - 10.0)  # the terms (q + k)^-s = (-1)^s u^-s, u = -q - k from -q down to -q - count + 1
        sign = -1.0 if int(s) % 2 else 1.0
        below = sign * (zeta_values(s, -qf - count + 1.0) - zeta_values(s, 1.0 - qf))
        out[far] = below + zeta_values(s, qf + count)
        return out.reshape(shape)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.trunc(q))
        finite = np.isfinite(q) & ~pole
        # the terms summed before the tail: at least nine, and until q + k > 9
        need = np.where(finite, np.maximum(9.0, np.floor(9.0 - np.where(finite, q, 0.0)) + 1.0), 9.0).astype(np.int64)
        total, a, b = np.power(q, -s), q.copy(), np.zeros_like(q)
        converged = np.zeros(q.shape, dtype=bool)
        going = np.ones(q.shape, dtype=bool)
        for i in range(1, int(need.max(initial=0)) + 1):  # term by term, as the series' loop
            a = np.where(going, a + 1.0, a)
            b = np.where(going, np.power(a, -s), b)
            total = np.where(going, total + b, total)
            converged |= going & (-_EPS * total < b) & (b < _EPS * total)
            going &= ~converged & (i < need)
        w = a
        tail = total + b * w / (s - 1) - 0.5 * b
        factor, k, term_b = 1.0, 0.0, b
        stopped = converged.copy()
        for c in _ZETA_TERMS:
            factor = factor * (s + k)
            term_b = term_b / w
            t = factor * term_b / c
            tail = np.where(stopped, tail, tail + t)
            stopped |= np.abs(t / tail) < _EPS
            k += 1.0
            factor = factor * (s + k)
            term_b = term_b / w
            k += 1.0
        out = np.where(converged, total, tail)
        return np.where(pole, np.inf, out).reshape(shape)


def polygamma_values(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma at ``x``, in float64."""
    if n == 0:
        return digamma_values(x)
    if n == 1:
        return trigamma_values(x)
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(all="ignore"):
        return sign * math.exp(math.lgamma(n + 1.0)) * zeta_values(n + 1.0, x)


def mvlgamma_values(x: np.ndarray, p: int) -> np.ndarray:
    """log of the multivariate gamma function of dimension ``p``, in float64."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, p * (p - 1) / 4 * math.log(math.pi))
    for j in range(p):
        out = out + lgamma_values(x - j / 2)
    return out


# -- the ops ----------------------------------------------------------------------------------------------------

@register_kernel("lgamma", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/lgamma")
def lgamma_cpu(x: np.ndarray) -> np.ndarray:
    return lgamma_values(x).astype(x.dtype)


@register_kernel("digamma", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/digamma")
def digamma_cpu(x: np.ndarray) -> np.ndarray:
    return digamma_values(x).astype(x.dtype)


@register_kernel("polygamma", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/polygamma")
def polygamma_cpu(x: np.ndarray, n: Any) -> np.ndarray:
    return polygamma_values(int(n), x).astype(x.dtype)  # (the GPU stand-in passes n as a double)


@register_kernel("mvlgamma", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/mvlgamma")
def mvlgamma_cpu(x: np.ndarray, p: Any) -> np.ndarray:
    return mvlgamma_values(x, int(p)).astype(x.dtype)


def _check_order(op: str, name: str, pos: int, v: Any) -> int:
    if type(v) is not int:
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type_name(v)}")
    if v < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return v


def _check_dimension(op: str, name: str, pos: int, v: Any) -> int:
    if type(v) is not int:
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type_name(v)}")
    if v < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return v


lgamma = defop("lgamma", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("lgamma",),
               gpu=("unary", "{lgamma}(a)"), doc="log |Gamma(x)| (inf at 0, -1, -2 ...)")
digamma = defop("digamma", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("digamma",),
                gpu=("unary", "mg_digamma(a)"), doc="the logarithmic derivative of Gamma, Gamma'(x) / Gamma(x)")
_polygamma_op = defop("polygamma", inputs=("x",), attrs=(Attr("n", 0, _check_order),), infer_meta=im.same,
                      save=("x",), promote="float", methods=("polygamma",), gpu=("param", "mg_polygamma(p0, a)"),
                      doc="the n-th derivative of digamma (x.polygamma(n); mg.polygamma(n, x))")
mvlgamma = defop("mvlgamma", inputs=("x",), attrs=(Attr("p", check=_check_dimension),), infer_meta=im.same,
                 save=("x",), promote="float", methods=("mvlgamma",), gpu=("param", "mg_mvlgamma(a, p0)"),
                 doc="the log of the multivariate gamma function of dimension p")


#: ``x.polygamma_(n)``: PyTorch's in-place overload, a node of its own (``PolygammaBackward1``), the same formula
_polygamma_inplace_op = defop("polygamma_", inputs=("x",), attrs=(Attr("n", 0, _check_order),), infer_meta=im.same,
                              save=("x",), promote="float", gpu=("param", "mg_polygamma(p0, a)"),
                              doc="polygamma's values, for the in-place x.polygamma_(n) (PolygammaBackward1)")
register_kernel("polygamma_", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/polygamma_")(polygamma_cpu)


@lgamma.def_backward
def _lgamma_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d lgamma / dx = digamma(x)."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.digamma(x)),)


@digamma.def_backward
def _digamma_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d digamma / dx = polygamma(1, x)."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.polygamma(x, 1)),)


@_polygamma_inplace_op.def_backward
@_polygamma_op.def_backward
def _polygamma_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d polygamma(n, x) / dx = polygamma(n + 1, x)."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.polygamma(x, ctx.attrs["n"] + 1)),)


@mvlgamma.def_backward
def _mvlgamma_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d mvlgamma(x, p) / dx = sum_j digamma(x - j/2), j = 0 .. p - 1."""
    (x,) = ctx.saved()
    ops = ctx.ops
    slope = ops.digamma(x)
    for j in range(1, ctx.attrs["p"]):
        slope = ops.add(slope, ops.digamma(ops.sub(x, j / 2)))
    return (ops.mul(grad, slope),)


def polygamma(n: int, input: Tensor) -> Tensor:
    """``torch.polygamma(n, input)``: the n-th derivative of digamma (``PolygammaBackward0``; the order comes
    first, as in PyTorch; the method is ``x.polygamma(n)``)."""
    check_tensor("polygamma", "input", 1, input)
    return _polygamma_op(input, n)
