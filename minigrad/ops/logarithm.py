"""Logarithms to base 2 and 10, ``log2`` and ``log10``, ``exp2`` (the inverse of ``log2``), ``xlogy``,
``logit`` and ``logaddexp``, each an op.

``log_b(x) = ln(x) / ln(b)``, so ``d log_b(x) / dx = 1 / (x ln b)``. Integer
inputs are computed in the default float dtype, as ``log``. ``exp2(x) = 2^x`` has
the derivative ``ln 2 * 2^x``.

``xlogy(x, y) = x log(y)``, defined as 0 where ``x = 0`` (unless ``y`` is NaN),
as entropy formulas need; ``d/dx = log(y)`` (0 where ``x = 0`` and ``y <= 0``),
``d/dy = x / y``. ``logit(p) = log(p / (1 - p))``, ``d/dp = 1 / (p (1 - p))``;
with ``eps`` the input is clamped into ``[eps, 1 - eps]`` and the gradient is 0
outside, without it the gradient is NaN outside ``[0, 1]`` (PyTorch's rules).
``logaddexp(a, b) = log(exp(a) + exp(b))`` (NumPy's stable kernel), with
``d/da = sigmoid(a - b)``: 1 for ``a = inf > b``, NaN where both are the same
infinity, as PyTorch. (``ln`` itself is
the ``log`` op of ``ops/math.py``; ``log1p`` has a file of its own.)

Example:
    >>> import minigrad as mg
    >>> mg.log2(mg.tensor([1.0, 8.0])).tolist()
    [0.0, 3.0]
    >>> mg.tensor([100.0]).log10().tolist()
    [2.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import Attr, defop, type_name

__all__ = ["log2", "log10", "exp2", "xlogy", "logit", "logaddexp"]


@register_kernel("log2", Backend.CPU, dtypes=FLOAT_DTYPES)
def log2_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.log2`` (exact at powers of two)."""
    return np.asarray(np.log2(x))


@register_kernel("log10", Backend.CPU, dtypes=FLOAT_DTYPES)
def log10_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.log10``, through float64 for the narrower dtypes: NumPy's float32 ``log10(100)`` is one ulp
    above 2 (PyTorch's is 2 exactly)."""
    if x.dtype == np.float64:
        return np.asarray(np.log10(x))
    return np.asarray(np.log10(x.astype(np.float64)), dtype=x.dtype)


log2 = defop("log2", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("log2",), amp="deny",
             doc="logarithm to base 2", gpu=("unary", "{log2}(a)"))
log10 = defop("log10", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("log10",),
              amp="deny", doc="logarithm to base 10", gpu=("unary", "{log10}(a)"))


@log2.def_backward
def log2_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d log2(x) / dx = 1 / (x ln 2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.mul(x, math.log(2.0))),)


@log10.def_backward
def log10_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d log10(x) / dx = 1 / (x ln 10)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.mul(x, math.log(10.0))),)


@register_kernel("exp2", Backend.CPU, dtypes=FLOAT_DTYPES)
def exp2_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.exp2`` (exact at integers)."""
    return np.asarray(np.exp2(x))


exp2 = defop("exp2", inputs=("x",), infer_meta=im.same, save=("out",), promote="float", methods=("exp2",),
             doc="2 to the power x", gpu=("unary", "{exp2}(a)"))


@exp2.def_backward
def exp2_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d 2^x / dx = ln 2 * 2^x."""
    (out,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.mul(out, math.log(2.0))),)


@register_kernel("xlogy", Backend.CPU, dtypes=FLOAT_DTYPES)
def xlogy_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x * log(y)``, 0 where ``x == 0`` and ``y`` is not NaN."""
    return np.asarray(np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y)), dtype=np.result_type(x, y))


xlogy = defop("xlogy", inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, promote="float", save=("x", "y"),
              methods=("xlogy",), doc="x * log(y), 0 where x == 0",
              gpu=("binary", "mg_xlogy(a, b)"))


@xlogy.def_backward
def xlogy_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dx = xlogy(grad, y)`` (0 where ``x == 0`` and ``y <= 0``), ``dy = grad * x / y``."""
    x, y = ctx.saved()
    ops = ctx.ops
    gx = gy = None
    if ctx.needs(0):
        flat = ops.where(ops.eq(x, 0.0), ops.le(y, 0.0), False)
        gx = ops.sum_to(ops.where(flat, 0.0, ops.xlogy(grad, y)), ctx.input_shape(0))
    if ctx.needs(1):
        gy = ops.sum_to(ops.div(ops.mul(grad, x), y), ctx.input_shape(1))
    return gx, gy


def _check_eps(op: str, name: str, pos: int, v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number or None, but got {type_name(v)}")
    return float(v)


@register_kernel("logit", Backend.CPU, dtypes=FLOAT_DTYPES)
def logit_cpu(x: np.ndarray, eps: Any = None) -> np.ndarray:
    """PyTorch's: ``eps`` clamps for ``eps >= 0`` only (it passes ``eps.value_or(-1)``)."""
    p = x if eps is None or eps < 0 else np.clip(x, eps, 1 - eps)
    return np.asarray(np.log(p / (1 - p)), dtype=x.dtype)


logit = defop("logit", inputs=("x",), attrs=(Attr("eps", None, _check_eps),), infer_meta=im.same, save=("x",),
              promote="float", methods=("logit",), gpu=("param", "mg_logit(a, p0)"),
              doc="log(p / (1 - p)), p clamped into [eps, 1 - eps] if eps >= 0 is given")


@logit.def_backward
def logit_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad / (p (1 - p))``; outside ``[eps, 1 - eps]`` 0 (with ``eps``) or NaN outside ``[0, 1]`` (without)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    eps = ctx.attrs["eps"]
    slope = ops.div(grad, ops.mul(x, ops.sub(1.0, x)))
    if eps is None or eps < 0:
        outside = ops.where(ops.lt(x, 0.0), True, ops.gt(x, 1.0))
        return (ops.where(outside, float("nan"), slope),)
    outside = ops.where(ops.lt(x, eps), True, ops.gt(x, 1.0 - eps))
    return (ops.where(outside, 0.0, slope),)


@register_kernel("logaddexp", Backend.CPU, dtypes=FLOAT_DTYPES)
def logaddexp_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``numpy.logaddexp``: ``log(exp(x) + exp(y))`` without overflow."""
    return np.asarray(np.logaddexp(x, y))


logaddexp = defop("logaddexp", inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, promote="float",
                  save=("x", "y"), methods=("logaddexp",), doc="log(exp(x) + exp(y)), computed stably",
                  gpu=("binary", "mg_logaddexp(a, b)"))


@logaddexp.def_backward
def logaddexp_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dx = grad * sigmoid(x - y)``, ``dy = grad * sigmoid(y - x)``, summed back over broadcast dims."""
    x, y = ctx.saved()
    ops = ctx.ops
    gx = ops.sum_to(ops.mul(grad, ops.sigmoid(ops.sub(x, y))), ctx.input_shape(0)) if ctx.needs(0) else None
    gy = ops.sum_to(ops.mul(grad, ops.sigmoid(ops.sub(y, x))), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy
