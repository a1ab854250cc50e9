"""The gamma, Dirichlet and Poisson samplers and the reparameterized gradients, as PyTorch's
``ATen/native/Distributions.cpp`` (``_s_gamma_cpu``, ``_s_dirichlet_cpu``, ``_s_poisson_cpu``) and
``Distributions.h``. They have CPU kernels only: on a GPU tensor they fall back to them visibly
(``kernel.select`` with ``fallback_cpu``), drawing from the CPU generator.

==========================  ==================================================  =====================================
op                          what                                                gradient
==========================  ==================================================  =====================================
``_standard_gamma``         one Gamma(alpha, 1) draw per element                ``grad * _standard_gamma_grad(a, x)``
``_standard_gamma_grad``    ``dx/dalpha`` of a draw held at its CDF value       not implemented (as PyTorch)
``_sample_dirichlet``       gamma draws normalised over the last dim           not implemented (as PyTorch)
``_dirichlet_grad``         the Beta marginal's ``dx/dalpha`` (scaled)          not implemented (as PyTorch)
``poisson``                 one Poisson(rate) count per element                 zeros (``PoissonBackward0``)
==========================  ==================================================  =====================================

NOTE [ PyTorch's gamma draws ]
    Marsaglia and Tsang's method (2000), boosted for ``alpha < 1`` by ``x * u^(1/alpha)`` with ``alpha + 1``.
    The CPU kernel walks the elements serially, in the row-major order of its fresh result (a transposed
    ``alpha`` draws as its contiguous copy would); each sampler call draws a double uniform
    (``uniform_real_distribution<double>``) or a double standard normal (``normal_distribution<double>``,
    the generator's cached Box-Muller twin first). The arithmetic is double, except that ``alpha`` stays in
    the tensor's type for ``alpha + 1`` and ``alpha - 1/3`` (float32 for a float32 tensor), and the float
    literals (``1/3``, ``0.0331``) are float32 constants. The result is cast to the dtype and clamped below
    at its smallest normal number. Python floats are C doubles and ``math.log``/``math.pow`` call the C
    library, so the draws here equal PyTorch's bit for bit. The gradients follow ``Distributions.h`` in its
    types too (``dirichlet_grad_one`` computes parts in the tensor's type); a float32 ``_dirichlet_grad`` in the
    rational-approximation branch can still differ from PyTorch's in the last bit.

NOTE [ PyTorch's Poisson draws ]
    ``sample_poisson`` in ``Distributions.cpp`` (NumPy's algorithm): below rate 10, multiply double uniforms
    until the product falls to ``exp(-rate)`` (Knuth); from 10 on, Hoermann's transformed rejection (PTRS), two
    uniforms a try. Serial, in row-major order, in double from the rate cast to double.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)
    >>> mg._standard_gamma(mg.tensor([1.0, 4.0], dtype=mg.float64)).tolist()
    [2.8824327826406577, 3.1330045918745917]
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..random import Generator, generator_arg
from ..tensor import Tensor
from ._checks import check_tensor
from .registry import Attr, Input, defop

# (private in PyTorch: _standard_gamma, _standard_gamma_grad, _sample_dirichlet, _dirichlet_grad are bound in
# minigrad/__init__.py, as torch._standard_gamma ...)
__all__ = ["poisson"]

_F = np.float32
_THIRD_F = float(_F(1.0) / _F(3.0))  # 1.0f / 3.0f, promoted
_SQUEEZE_F = float(_F(0.0331))


# -- the sampler ------------------------------------------------------------------------------------------

def _boost(alpha: Any, gen: Generator) -> tuple[float, Any]:
    """``alpha < 1``: the factor ``u^(1/alpha)`` and ``alpha + 1`` (both in ``alpha``'s own type)."""
    one = type(alpha)(1.0)
    return math.pow(1.0 - float(gen.uniform_double(1)[0]), float(one / alpha)), alpha + one


def gamma_one(alpha: Any, gen: Generator) -> float:
    """One Gamma(alpha, 1) draw (NOTE [ PyTorch's gamma draws ]); ``alpha`` a NumPy float32/float64 scalar."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0:
            return 0.0
        scale, alpha = _boost(alpha, gen)
    d = float(alpha - type(alpha)(_THIRD_F)) if type(alpha) is _F else float(alpha) - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = gen.normal_double()
        y = 1.0 + c * x
        if y <= 0:
            continue
        v = y * y * y
        u = 1.0 - float(gen.uniform_double(1)[0])
        xx = x * x
        if u < 1.0 - _SQUEEZE_F * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma_values(alpha: np.ndarray, gen: Generator, dtype: Any = None) -> np.ndarray:
    """A draw per element of ``alpha`` (row-major order), cast to ``dtype`` and clamped at its smallest normal."""
    dtype = np.dtype(dtype or alpha.dtype)
    flat = np.ascontiguousarray(alpha).reshape(-1)
    out = np.array([gamma_one(a, gen) for a in flat], np.float64).astype(dtype)
    return np.maximum(out, np.finfo(dtype).tiny).reshape(alpha.shape)


def dirichlet_values(alpha: np.ndarray, gen: Generator) -> np.ndarray:
    """PyTorch's ``_s_dirichlet_cpu``: gamma draws in float64, normalised over the last dim, cast back and
    clamped into ``[tiny, nextafter(1, 0)]``."""
    g = standard_gamma_values(alpha.astype(np.float64), gen)
    x = (g / g.sum(-1, keepdims=True)).astype(alpha.dtype)
    return np.clip(x, np.finfo(alpha.dtype).tiny, np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0)))


def _ptrs(lam: float, gen: Generator) -> int:
    """Hoermann's transformed rejection with squeeze (rate >= 10): a box around the hat, then the exact test."""
    slam, loglam = math.sqrt(lam), math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = float(gen.uniform_double(1)[0]) - 0.5
        v = float(gen.uniform_double(1)[0])
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            return k
        if k < 0 or (us < 0.013 and v > us):
            continue
        if math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1.0):
            return k


def poisson_one(lam: float, gen: Generator) -> int:
    """One Poisson(lam) count (NOTE [ PyTorch's Poisson draws ])."""
    if lam >= 10:
        return _ptrs(lam, gen)
    if lam == 0:
        return 0
    enlam, count, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= float(gen.uniform_double(1)[0])
        if prod <= enlam:
            return count
        count += 1


# -- the reparameterized gradients (Distributions.h) ------------------------------------------------------

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
for _name in ("logf", "powf", "tanf"):
    getattr(_LIBM, _name).restype = ctypes.c_float
    getattr(_LIBM, _name).argtypes = [ctypes.c_float] * (2 if _name == "powf" else 1)


def _log(x: Any) -> Any:
    """``std::log`` of ``x``'s own type (``logf`` for float32, as compiled code calls it)."""
    return _F(_LIBM.logf(float(x))) if type(x) is _F else math.log(x)


def _pow(x: Any, y: Any) -> Any:
    return _F(_LIBM.powf(float(x), float(y))) if type(x) is _F else math.pow(x, y)


def _tan(x: Any) -> Any:
    return _F(_LIBM.tanf(float(x))) if type(x) is _F else math.tan(x)


_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def digamma_one(x: Any) -> Any:
    """``digamma_one<scalar_t, double>``: the Cephes digamma, ``x`` pushed to 10 in its own type."""
    T = type(x)
    if x == 0:
        return T(math.inf)
    extra = 0.0
    if x < 0:
        if x == math.floor(x):
            return T(math.inf)
        pi = T(math.pi)
        extra = float(-pi / _tan(pi * x))
        x = T(1) - x
    result = 0.0
    while x < 10:
        result -= float(T(1) / x)
        x = x + T(1)
    if x == 10:
        return T(result + _PSI_10 + extra)
    y = 0.0
    if x < float(_F(1.0e17)):
        z = 1.0 / float(x * x)
        poly = 0.0
        for a in _DIGAMMA_A:
            poly = poly * z + a
        y = z * poly
    return T(result + float(_log(x)) - float(T(0.5) / x) - y + extra)


def _gamma_grad_small_x(x: float, alpha: float) -> float:
    """A Taylor series of the incomplete gamma function, for ``x < 0.8``."""
    numer, denom = 1.0, alpha
    series1, series2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer *= -x / i
        denom += 1
        series1 += numer / denom
        series2 += numer / (denom * denom)
    pow_x_alpha = math.pow(x, alpha)
    pdf = math.pow(x, alpha - 1) * math.exp(-x)
    cdf = pow_x_alpha * series1
    cdf_alpha = (math.log(x) - float(digamma_one(alpha))) * cdf - pow_x_alpha * series2
    result = -cdf_alpha / pdf
    return 0.0 if math.isnan(result) else result


def _gamma_grad_large_alpha(x: float, alpha: float) -> float:
    """Rice's saddle-point expansion, for ``alpha > 8``."""
    if float(_F(0.9)) * alpha <= x <= float(_F(1.1)) * alpha:
        numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
        numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
        return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
    denom = math.sqrt(8 * alpha)
    term2 = denom / (alpha - x)
    term3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
    term23 = term2 - term3 if x < alpha else term2 + term3
    term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    return -stirling * (x * term1) / denom


_GAMMA_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
             (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
              -0.00058392623),
             (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
              -1.5247877e-07))


def standard_gamma_grad_one(alpha: float, x: float) -> float:
    """``-(d/dalpha CDF(x; alpha)) / pdf(x; alpha)`` in double: a series, a saddle point or a rational fit."""
    if x < float(_F(0.8)):
        return _gamma_grad_small_x(x, alpha)
    if alpha > 8.0:
        return _gamma_grad_large_alpha(x, alpha)
    u, v = math.log(x / alpha), math.log(alpha)
    c = [_GAMMA_UV[0][i] + u * (_GAMMA_UV[1][i] + u * _GAMMA_UV[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return math.exp(p / q)


# -- the Dirichlet gradient: a Beta(alpha, total - alpha) marginal (dirichlet_grad_one) --------------------

def _beta_grad_alpha_small(x: Any, alpha: Any, beta: Any) -> Any:
    """A Taylor expansion near ``x = 0``, in the tensor's own type."""
    T = type(x)
    factor = digamma_one(alpha) - digamma_one(alpha + beta) - T(_log(x))
    numer = T(1)
    series = numer / alpha * (factor + T(1) / alpha)
    for i in range(1, 11):
        ci = T(i)
        numer = numer * ((ci - beta) * x / ci)
        denom = alpha + ci
        series = series + numer / denom * (factor + T(1) / denom)
    result = x * T(_pow(T(1) - x, -beta)) * series
    return T(0) if np.isnan(result) else result


def _beta_grad_beta_small(x: Any, alpha: Any, beta: Any) -> Any:
    """A Taylor expansion of the gradient wrt ``beta`` near ``x = 0``, in the tensor's own type."""
    T = type(x)
    factor = digamma_one(alpha + beta) - digamma_one(beta)
    numer, betas, dbetas, series = T(1), T(1), T(0), factor / alpha
    for i in range(1, 9):
        ci = T(i)
        numer = numer * (-x / ci)
        dbetas = dbetas * (beta - ci) + betas
        betas = betas * (beta - ci)
        series = series + numer / (alpha + ci) * (dbetas + factor * betas)
    result = -T(_pow(T(1) - x, T(1) - beta)) * series
    return T(0) if np.isnan(result) else result


def _beta_grad_alpha_mid(x: float, alpha: float, beta: float) -> float:
    """Rice's saddle-point expansion for large ``alpha`` and ``beta``, in double."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:  # away from the singularity at the mean
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (math.sqrt(2 * alpha / beta) * math.pow(total, 1.5) * axbx * axbx)
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = math.pow(beta * math.log(beta / (total * (1 - x))) + alpha * math.log(alpha / (total * x)), -1.5)
    return stirling * prefactor * (term1 + term2 * (term3 + (term4 if x < mean else -term4)))


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]]).tolist()


def _dirichlet_rational(x: Any, alpha: Any, total: Any) -> float:
    """A rational correction to an analytic approximation, in double."""
    u = math.log(float(x))
    a = math.log(float(alpha)) - u
    b = math.log(float(total)) - a
    pow_u, pow_a = (1.0, u, u * u), (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
            p += ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = float(x) * (float(digamma_one(total)) - float(digamma_one(alpha))) / (float(total) - float(alpha))
    return p / q * approx


def dirichlet_grad_one(x: Any, alpha: Any, total: Any) -> Any:
    """``-(d/dalpha CDF) / pdf / (1 - x)`` of a Beta(alpha, total - alpha) draw ``x``; the branch is chosen in
    the tensor's own type (NumPy float32/float64 scalars), as PyTorch's ``dirichlet_grad_one``."""
    T = type(x)
    beta = total - alpha
    boundary = total * x * (T(1) - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(T(1) - x, beta, alpha)
    if alpha > 6 and beta > 6:
        return T(_beta_grad_alpha_mid(float(x), float(alpha), float(total) - float(alpha)))
    return T(_dirichlet_rational(x, alpha, total))


# -- the kernels and ops --------------------------------------------------------------------------------

_SAMPLED = (np.float32, np.float64)


def _floating_only(kernel: str, t: Any) -> None:
    if t.dtype.np.type not in _SAMPLED:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{im.scalar_type_name(t.dtype.np)}\'')


@register_kernel("_standard_gamma", Backend.CPU, dtypes=FLOAT_DTYPES)
def standard_gamma_cpu(alpha: np.ndarray, generator: Any = None) -> np.ndarray:
    return standard_gamma_values(alpha, generator_arg("_standard_gamma", generator))


@register_kernel("poisson", Backend.CPU, dtypes=FLOAT_DTYPES)
def poisson_cpu(rate: np.ndarray, generator: Any = None) -> np.ndarray:
    gen = generator_arg("poisson", generator)
    flat = np.ascontiguousarray(rate).reshape(-1).astype(np.float64)
    if not (flat >= 0).all():  # (NaN too)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return np.array([poisson_one(float(v), gen) for v in flat], np.float64).astype(rate.dtype).reshape(rate.shape)


@register_kernel("_standard_gamma_grad", Backend.CPU, dtypes=FLOAT_DTYPES)
def standard_gamma_grad_cpu(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    a, v = np.broadcast_arrays(alpha.astype(np.float64), x.astype(np.float64))
    out = [standard_gamma_grad_one(float(ai), float(xi)) for ai, xi in zip(a.reshape(-1), v.reshape(-1))]
    return np.array(out, np.float64).astype(alpha.dtype).reshape(a.shape)


@register_kernel("_sample_dirichlet", Backend.CPU, dtypes=FLOAT_DTYPES)
def sample_dirichlet_cpu(alpha: np.ndarray, generator: Any = None) -> np.ndarray:
    return dirichlet_values(alpha, generator_arg("_sample_dirichlet", generator))


@register_kernel("_dirichlet_grad", Backend.CPU, dtypes=FLOAT_DTYPES)
def dirichlet_grad_cpu(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    xs, al, to = np.broadcast_arrays(x, alpha.astype(x.dtype), total.astype(x.dtype))
    out = [dirichlet_grad_one(*v) for v in zip(xs.reshape(-1), al.reshape(-1), to.reshape(-1))]
    return np.array(out, x.dtype).reshape(xs.shape)


def _check_generator(op: str, name: str, pos: int, value: Any) -> Any:
    generator_arg(op, value)
    return value


_GENERATOR = Attr("generator", None, _check_generator)


def _drawn_meta(op: str, alpha: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """A draw has its concentration's shape and dtype, laid out row-major (PyTorch's ``at::zeros`` result),
    whatever the concentration's strides."""
    return tuple(alpha.shape), alpha.dtype


def _dirichlet_grad_meta(op: str, x: Any, alpha: Any, total: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape), x.dtype


_standard_gamma_op = defop("_standard_gamma", inputs=("alpha",), attrs=(_GENERATOR,), infer_meta=_drawn_meta,
                           save=("alpha", "out"), doc="a Gamma(alpha, 1) draw per element (Marsaglia and Tsang)")
_poisson_op = defop("poisson", inputs=("input",), attrs=(_GENERATOR,), infer_meta=_drawn_meta,
                    doc="a Poisson(rate) count per element, in the rate's dtype")
_standard_gamma_grad_op = defop("_standard_gamma_grad", inputs=("alpha", Input("x", differentiable=False)),
                                infer_meta=im.broadcast,
                                doc="the reparameterized gradient d x / d alpha of standard gamma draws x")
_sample_dirichlet_op = defop("_sample_dirichlet", inputs=("alpha",), attrs=(_GENERATOR,), infer_meta=_drawn_meta,
                             doc="Dirichlet(alpha) draws along the last dim (gamma draws, normalised)")
_dirichlet_grad_op = defop("_dirichlet_grad", inputs=("x", "alpha", "total"), infer_meta=_dirichlet_grad_meta,
                           doc="the reparameterized gradient of Dirichlet draws x wrt alpha (a Beta marginal's)")


@_standard_gamma_op.def_backward
def _standard_gamma_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's reparameterized gradient: ``grad * _standard_gamma_grad(alpha, result)``."""
    alpha, out = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops._standard_gamma_grad(alpha, out)),)


@_poisson_op.def_backward
def _poisson_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """A count does not move with its rate: zeros (PyTorch's ``zeros_like(self)``)."""
    return (ctx.ops.fill(grad, 0.0),)


# PyTorch has no derivative for the gradients and for the Dirichlet draw: their nodes refuse, in PyTorch's words.
@_standard_gamma_grad_op.def_backward
def _standard_gamma_grad_backward(ctx: Any, grad: Any) -> tuple[Any, None]:
    raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


@_sample_dirichlet_op.def_backward
def _sample_dirichlet_backward(ctx: Any, grad: Any) -> tuple[Any]:
    raise RuntimeError("derivative for aten::_sample_dirichlet is not implemented")


@_dirichlet_grad_op.def_backward
def _dirichlet_grad_backward(ctx: Any, grad: Any) -> tuple[Any, Any, Any]:
    raise NotImplementedError("the derivative for '_dirichlet_grad' is not implemented.")


def _standard_gamma(alpha: Tensor, generator: Generator | None = None) -> Tensor:
    """``torch._standard_gamma``: a Gamma(alpha, 1) draw per element, PyTorch's numbers on the CPU (NOTE
    [ PyTorch's gamma draws ]); differentiable through the reparameterized gradient (``StandardGammaBackward0``)."""
    check_tensor("_standard_gamma", "self", 0, alpha)
    _floating_only("gamma_cpu", alpha)
    return _standard_gamma_op(alpha, generator)


def _standard_gamma_grad(alpha: Tensor, output: Tensor) -> Tensor:
    """``torch._standard_gamma_grad``: ``d output / d alpha`` of standard gamma draws (``standard_gamma_grad_one``)."""
    check_tensor("_standard_gamma_grad", "self", 0, alpha)
    _floating_only("_standard_gamma_grad_cpu", alpha)
    return _standard_gamma_grad_op(alpha, output)


def _sample_dirichlet(alpha: Tensor, generator: Generator | None = None) -> Tensor:
    """``torch._sample_dirichlet``: one Dirichlet draw per row of the last dim (PyTorch's ``_s_dirichlet_cpu``)."""
    check_tensor("_sample_dirichlet", "self", 0, alpha)
    _floating_only("dirichlet", alpha)
    return _sample_dirichlet_op(alpha, generator)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """``torch._dirichlet_grad``: the reparameterized gradient of Dirichlet draws ``x`` (``dirichlet_grad_one``)."""
    check_tensor("_dirichlet_grad", "x", 0, x)
    _floating_only("_dirichlet_grad_cpu", x)
    return _dirichlet_grad_op(x, alpha, total)


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """``torch.poisson``: a Poisson count per element of the rates ``input`` (PyTorch's numbers on the CPU: NOTE
    [ PyTorch's Poisson draws ]), in ``input``'s dtype; its gradient is zeros (``PoissonBackward0``).

    Example:
        >>> import minigrad as mg
        >>> mg.poisson(mg.tensor([0.0, 4.0, 50.0]), generator=mg.Generator().manual_seed(0)).tolist()
        [0.0, 7.0, 52.0]
    """
    check_tensor("poisson", "input", 0, input)
    if not input.dtype.is_floating:
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{im.scalar_type_name(input.dtype.np)}\'')
    return _poisson_op(input, generator)
