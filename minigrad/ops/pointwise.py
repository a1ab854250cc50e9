"""Elementwise formulas PyTorch names: ``square``, ``rsqrt``, ``reciprocal``, ``lerp``, ``addcmul``, ``addcdiv``,
``logaddexp2``, ``hypot``, ``sgn``, ``frac``, ``fmax``, ``fmin``, ``heaviside``, ``erfc``, ``float_power``, ``deg2rad``, ``rad2deg``, and NumPy's names for the arithmetic and
comparison ops (``multiply``, ``subtract``, ``divide``, ``true_divide``, ``greater`` ..., ``absolute``,
``negative``, ``positive``).

Composites of ``mul``, ``div``, ``pow``, ``sqrt``, ``add`` and ``sub``; their
gradients are those ops' (``square``'s is ``2 x``, ``rsqrt``'s
``-x^(-3/2) / 2``, ``reciprocal``'s ``-1/x^2``, as PyTorch's). ``addcmul`` and
``addcdiv`` are the update steps optimizers write:
``input + value * t1 * t2`` and ``input + value * t1 / t2``. ``logaddexp2`` is
the ``logaddexp`` op (``ops/logarithm.py``) in base 2; ``fmax``/``fmin`` ignore NaN (the other argument
wins). (``xlogy`` and ``logit`` are ops, in ``ops/logarithm.py``.)

Example:
    >>> import minigrad as mg
    >>> mg.lerp(mg.tensor([0.0, 10.0]), mg.tensor([10.0, 20.0]), 0.5).tolist()
    [5.0, 15.0]
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..tensor import Tensor
import math

from ._checks import check_tensor
from .math import abs as _abs
from .logarithm import logaddexp
from .math import add, cast, div, eq, erf, exp, ge, gt, le, log, lt, maximum, mul, ne, neg, pow, sign, sin, sqrt
from .math import sub, where
from .math import add_alpha as _add_alpha
from .division import div as _div_modes
from .math import sub_alpha as _sub_alpha
from .rounding import trunc
from .registry import type_name

__all__ = ["square", "rsqrt", "lerp", "addcmul", "addcdiv", "logaddexp2", "hypot", "sgn",
           "frac", "fmax", "fmin", "heaviside", "erfc", "float_power", "deg2rad", "rad2deg",
           "multiply", "subtract", "divide", "true_divide", "greater", "greater_equal", "less", "less_equal",
           "not_equal", "absolute", "negative", "positive"]


def _number(op: str, name: str, v: Any) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, but got {type_name(v)}")
    return v


def square(input: Tensor) -> Tensor:
    """``input * input`` (integer tensors stay integer, as in PyTorch)."""
    check_tensor("square", "input", 0, input)
    return mul(input, input)


def _as_float(x: Tensor) -> Tensor:
    return x if x.dtype.is_floating else cast(x, _dt.float32)


def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(input)`` (integer tensors give float32)."""
    check_tensor("rsqrt", "input", 0, input)
    return div(1.0, sqrt(_as_float(input)))


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)``, ``weight`` a number or a tensor (``torch.lerp``)."""
    check_tensor("lerp", "input", 0, input)
    check_tensor("lerp", "end", 1, end)
    if not isinstance(weight, Tensor):
        _number("lerp", "weight", weight)
    return add(input, mul(sub(end, input), weight))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``)."""
    for pos, (name, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        check_tensor("addcmul", name, pos, t)
    _number("addcmul", "value", value)
    prod = mul(tensor1, tensor2)
    return add(input, prod if value == 1 else mul(prod, value))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``; integer ``tensor1``/``tensor2`` are refused,
    as PyTorch refuses integer division there)."""
    for pos, (name, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        check_tensor("addcdiv", name, pos, t)
    _number("addcdiv", "value", value)
    if not tensor1.dtype.is_floating and not tensor2.dtype.is_floating:
        raise RuntimeError("addcdiv(): Integer division with addcdiv is no longer supported; use floating tensors")
    quot = div(tensor1, tensor2)
    return add(input, quot if value == 1 else mul(quot, value))


def _pair(op: str, input: Any, other: Any) -> None:
    check_tensor(op, "input", 0, input)
    if not isinstance(other, Tensor):
        check_tensor(op, "other", 1, other)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2^input + 2^other)``: ``logaddexp`` in base 2."""
    _pair("logaddexp2", input, other)
    ln2 = math.log(2.0)
    return div(logaddexp(mul(input, ln2), mul(other, ln2)), ln2)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input^2 + other^2)`` (the gradient at the origin is NaN, as PyTorch's)."""
    _pair("hypot", input, other)
    out = sqrt(add(mul(input, input), mul(other, other)))
    # IEEE's hypot: an infinite side makes the result inf even when the other side is NaN (a constant there).
    either_inf = where(eq(_abs(input), math.inf), True, eq(_abs(other), math.inf))
    return where(either_inf, math.inf, out)


def sgn(input: Tensor) -> Tensor:
    """The sign, for real tensors (``sign``)."""
    check_tensor("sgn", "input", 0, input)
    return sign(input)


def frac(input: Tensor) -> Tensor:
    """The fractional part, ``input - trunc(input)`` (with its sign); its gradient is 1."""
    check_tensor("frac", "input", 0, input)
    return sub(input, trunc(input))


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """The larger of the two, ignoring NaN: where one is NaN, the other (``torch.fmax``; ties go to ``input``)."""
    _pair("fmax", input, other)
    take_input = where(ne(other, other), True, ge(input, other))
    return where(take_input, input, other)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """The smaller of the two, ignoring NaN (``torch.fmin``; ties go to ``input``)."""
    _pair("fmin", input, other)
    take_input = where(ne(other, other), True, le(input, other))
    return where(take_input, input, other)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 below 0, 1 above, ``values`` at 0 (``torch.heaviside``; no gradient, as PyTorch
    has none)."""
    check_tensor("heaviside", "input", 0, input)
    check_tensor("heaviside", "values", 1, values)
    if input.dtype is not values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes "
                           f"({input.dtype} and {values.dtype})")
    step = cast(gt(input, 0), input.dtype)
    return where(eq(input, 0), values, step).detach()


def erfc(input: Tensor) -> Tensor:
    """The complementary error function, ``1 - erf(x)``."""
    check_tensor("erfc", "input", 0, input)
    return sub(1.0, erf(_as_float(input)))


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64 (``torch.float_power``)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        check_tensor("float_power", "input", 0, input)
    up = [cast(t, _dt.float64) if isinstance(t, Tensor) and t.dtype is not _dt.float64 else
          (float(t) if not isinstance(t, Tensor) else t) for t in (input, exponent)]
    return pow(up[0], up[1])


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians, ``x * pi / 180``."""
    check_tensor("deg2rad", "input", 0, input)
    return mul(_as_float(input), math.pi / 180.0)


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees, ``x * 180 / pi``."""
    check_tensor("rad2deg", "input", 0, input)
    return mul(_as_float(input), 180.0 / math.pi)


# NumPy's names for the arithmetic and comparison ops (PyTorch accepts both spellings).
multiply = mul
subtract = _sub_alpha
divide = _div_modes
true_divide = div
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
absolute, negative = _abs, neg


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+x``)."""
    return check_tensor("positive", "input", 0, input)
