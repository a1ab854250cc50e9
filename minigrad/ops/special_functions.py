"""The ``torch.special`` functions of the normal distribution, entropy and scaled Bessel families, each an op with
PyTorch's node: ``entr`` (``SpecialEntrBackward0``), ``ndtri``, ``log_ndtr``, ``erfcx``, ``xlog1py``, ``i0e`` and
``i1e``; ``ndtr`` and ``round``, composites as PyTorch's are; and, without a derivative as PyTorch's,
``spherical_bessel_j0``, ``modified_bessel_i0`` and ``modified_bessel_i1``.

====================  ==================================  =============================================
function              value                               derivative (PyTorch's formula)
====================  ==================================  =============================================
``entr(x)``           ``-x log x`` (0 at 0, -inf below)   ``-(1 + log x)``
``ndtr(x)``           ``(1 + erf(x / sqrt 2)) / 2``        composite: ``MulBackward1`` over ``erf``
``ndtri(p)``          ``x`` with ``ndtr(x) = p``           ``sqrt(2 pi) e^(ndtri(p)^2 / 2)``
``log_ndtr(x)``       ``log ndtr(x)``                      ``e^(-(log_ndtr(x) + x^2 / 2)) / sqrt(2 pi)``
``erfcx(x)``          ``e^(x^2) erfc(x)``                  ``2 x erfcx(x) - 2 / sqrt(pi)``
``xlog1py(x, y)``     ``x log1p(y)``, 0 where ``x = 0``    ``log1p(y)``; ``x / (1 + y)``
``i0e(x)``            ``e^-|x| I0(x)``                     ``i1e(x) - sgn(x) i0e(x)``
``i1e(x)``            ``e^-|x| I1(x)``                     ``i0e(x) - i1e(x) (sgn(x) + 1/x)``, 1/2 at 0
====================  ==================================  =============================================

The kernels are ``kernels/special_arrays.py``'s, over NumPy here and over CuPy on the GPU
(``kernels/gpu/special.py``); integer inputs are computed in the default float dtype, as PyTorch's.

Example:
    >>> import minigrad as mg
    >>> round(mg.special.ndtri(mg.tensor(0.975)).item(), 4), round(mg.special.erfcx(mg.tensor(0.0)).item(), 4)
    (1.96, 1.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels import special_arrays as sa
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from .bessel import i0_cpu, special_i1_cpu
from .math import add_scalar, erf, mul_scalar
from .registry import defop
from .rounding import round as _round

__all__: list[str] = []  # torch.special only: minigrad/special.py names them

CPU = Backend.CPU


def _unary(name: str, fn: Any, doc: str) -> Any:
    """The op ``special_<name>``: ``fn`` of ``kernels/special_arrays.py`` as its CPU kernel, its result saved."""
    def kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(sa.in_float64(np, fn, x))

    kernel.__name__ = f"special_{name}_cpu"
    kernel.__doc__ = f"``kernels/special_arrays.py``'s ``{fn.__name__}`` over NumPy, in float64, rounded once."
    register_kernel(f"special_{name}", CPU, dtypes=FLOAT_DTYPES)(kernel)
    return defop(f"special_{name}", inputs=("input",), infer_meta=im.same, save=("input", "out"), promote="float",
                 doc=doc)


def _i0e_values(xp: Any, x: Any) -> Any:
    return sa.bessel_ie(xp, x, 0)


def _i1e_values(xp: Any, x: Any) -> Any:
    return sa.bessel_ie(xp, x, 1)


special_entr = _unary("entr", sa.entr, "-x log x, the entropy term (0 at 0, -inf below)")
special_ndtri = _unary("ndtri", sa.ndtri, "the inverse of the standard normal CDF")
special_log_ndtr = _unary("log_ndtr", sa.log_ndtr, "log of the standard normal CDF")
special_erfcx = _unary("erfcx", sa.erfcx, "the scaled complementary error function e^(x^2) erfc(x)")
special_i0e = _unary("i0e", _i0e_values, "the exponentially scaled Bessel function e^-|x| I0(x)")
special_i1e = _unary("i1e", _i1e_values, "the exponentially scaled Bessel function e^-|x| I1(x)")


@special_entr.def_backward
def _entr_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad * -(1 + log x)``."""
    x, _ = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.neg(ops.add(ops.log(x), 1.0))),)


@special_ndtri.def_backward
def _ndtri_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad * sqrt(2 pi) * e^(out^2 / 2)``."""
    _, out = ctx.saved()
    ops = ctx.ops
    return (ops.mul(ops.mul(grad, math.sqrt(2 * math.pi)), ops.exp(ops.div(ops.mul(out, out), 2.0))),)


@special_log_ndtr.def_backward
def _log_ndtr_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad / sqrt(2 pi) * e^(-(out + x^2 / 2))``: the density over the CDF."""
    x, out = ctx.saved()
    ops = ctx.ops
    exponent = ops.neg(ops.add(out, ops.div(ops.mul(x, x), 2.0)))
    return (ops.mul(ops.div(grad, math.sqrt(2 * math.pi)), ops.exp(exponent)),)


@special_erfcx.def_backward
def _erfcx_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``(2 x out - 2 / sqrt(pi)) * grad``."""
    x, out = ctx.saved()
    ops = ctx.ops
    return (ops.mul(ops.sub(ops.mul(ops.mul(x, 2.0), out), 2.0 / math.sqrt(math.pi)), grad),)


@special_i0e.def_backward
def _i0e_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad * (i1e(x) - sgn(x) * out)``."""
    x, out = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.sub(ops.special_i1e(x), ops.mul(ops.sign(x), out))),)


@special_i1e.def_backward
def _i1e_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad * (i0e(x) - out * (sgn(x) + 1 / x))``, and ``grad / 2`` (the limit at 0) wherever ``|x|`` is not
    above the dtype's epsilon - NaN included -, as PyTorch's ``i1e_backward``."""
    x, out = ctx.saved()
    ops = ctx.ops
    eps = float(np.finfo(ctx.input_dtype(0).np).eps)
    away = ops.gt(ops.abs(x), eps)
    safe = ops.where(away, x, eps)
    slope = ops.sub(ops.special_i0e(safe), ops.mul(out, ops.add(ops.sign(safe), ops.reciprocal(safe))))
    return (ops.mul(grad, ops.where(away, slope, 0.5)),)


# -- xlog1py: x log1p(y), a binary op with PyTorch's three overloads ---------------------------------------------

@register_kernel("special_xlog1py", CPU, dtypes=FLOAT_DTYPES)
def special_xlog1py_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x log1p(y)``, 0 where ``x == 0`` and ``y`` is not NaN (``kernels/special_arrays.py``)."""
    with np.errstate(all="ignore"):
        return np.asarray(sa.xlog1py(np, x, y), dtype=np.result_type(x, y))


special_xlog1py = defop("special_xlog1py", inputs=("input", "other"), infer_meta=im.broadcast, scalars=True,
                        promote="float", save=("input", "other"), doc="x * log1p(y), 0 where x == 0")


@special_xlog1py.def_backward
def _xlog1py_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dx = xlog1py(grad, y)`` (0 where ``x == 0`` and ``y <= -1``), ``dy = grad * x / (y + 1)``."""
    x, y = ctx.saved()
    ops = ctx.ops
    gx = gy = None
    if ctx.needs(0):
        flat = ops.where(ops.eq(x, 0.0), ops.le(y, -1.0), False)
        gx = ops.sum_to(ops.where(flat, 0.0, ops.special_xlog1py(grad, y)), ctx.input_shape(0))
    if ctx.needs(1):
        gy = ops.sum_to(ops.div(ops.mul(grad, x), ops.add(y, 1.0)), ctx.input_shape(1))
    return gx, gy


# -- the composites -------------------------------------------------------------------------------------------------

def special_ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF ``(1 + erf(x / sqrt 2)) / 2``. Composite, as PyTorch's: ``MulBackward1`` over
    ``AddBackward1`` over ``ErfBackward0`` over ``MulBackward1``.

    Example:
        >>> import minigrad as mg
        >>> mg.special.ndtr(mg.tensor(0.0)).item()
        0.5
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"special_ndtr(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not (input.dtype.is_floating or input.dtype.is_complex):
        input = input.float()
    return mul_scalar(add_scalar(erf(mul_scalar(input, math.sqrt(0.5))), 1.0), 0.5)


def special_round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """``torch.special.round``: ``round(input, decimals=decimals)`` (``RoundBackward1``: the decimals overload,
    even for 0).

    Example:
        >>> import minigrad as mg
        >>> mg.special.round(mg.tensor(2.5)).item()
        2.0
    """
    return _round(input, decimals=decimals)


# -- the Bessel functions of torch.special without a derivative ------------------------------------------------------

def _spherical_j0_values(xp: Any, x: Any) -> Any:
    """``sin(x) / x``: its Taylor polynomial to ``x^12`` below ``|x| = 1/2`` (no cancellation at 0), 0 at the
    infinities."""
    q = x * x
    near = 1 + q * (-1 / 6 + q * (1 / 120 + q * (-1 / 5040 + q * (1 / 362880 + q * (-1 / 39916800
                                                                                    + q * (1 / 6227020800))))))
    far = xp.sin(x) / xp.where(x == 0, 1.0, x)
    return xp.where(xp.isinf(x), 0.0, xp.where(xp.abs(x) < 0.5, near, far))


def _no_derivative(name: str, kernel: Any, doc: str) -> Any:
    """The op ``special_<name>`` with the CPU ``kernel`` of one array, and no derivative, as PyTorch's."""
    register_kernel(f"special_{name}", CPU, dtypes=FLOAT_DTYPES)(kernel)
    return defop(f"special_{name}", inputs=("input",), infer_meta=im.same, promote="float", differentiable=False,
                 doc=doc)


def special_spherical_bessel_j0_cpu(x: np.ndarray) -> np.ndarray:
    """``_spherical_j0_values`` in float64, rounded once."""
    return np.asarray(sa.in_float64(np, _spherical_j0_values, x))


def special_modified_bessel_i0_cpu(x: np.ndarray) -> np.ndarray:
    """``torch.i0``'s kernel (``ops/bessel.py``): PyTorch's ``modified_bessel_i0`` gives the same values."""
    return i0_cpu(x)


def special_modified_bessel_i1_cpu(x: np.ndarray) -> np.ndarray:
    """``torch.special.i1``'s kernel (``ops/bessel.py``): PyTorch's ``modified_bessel_i1`` agrees with it."""
    return special_i1_cpu(x)


special_spherical_bessel_j0 = _no_derivative("spherical_bessel_j0", special_spherical_bessel_j0_cpu,
                                             "the spherical Bessel function of the first kind, order 0: sin(x) / x")
special_modified_bessel_i0 = _no_derivative("modified_bessel_i0", special_modified_bessel_i0_cpu,
                                            "the modified Bessel function of the first kind, order 0")
special_modified_bessel_i1 = _no_derivative("modified_bessel_i1", special_modified_bessel_i1_cpu,
                                            "the modified Bessel function of the first kind, order 1")
