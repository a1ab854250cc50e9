"""How a floating-point number is made: ``frexp`` takes it apart into a mantissa and a power of two, ``ldexp``
puts one together, ``nextafter`` steps to the neighbouring representable number.

Each is an op with PyTorch's node: ``FrexpBackward0`` on the mantissa (the
exponent, an int32 tensor, takes no gradient), ``LdexpBackward0`` and
``NextafterBackward0``. ``frexp`` is two ops, the exponent's (no gradient) and
the mantissa's, which finds the exponent again in its backward; the public
``frexp`` returns both as ``return_types.frexp``.

NOTE [ ldexp of an integer exponent is exact ]
    PyTorch's ``ldexp(x, e)`` with an integer ``e`` scales by ``2^e``
    without forming ``2^e``: ``ldexp(1e-300, 1100)`` is ``1.36e31``, where
    ``1e-300 * 2.0**1100`` would be inf. With a floating ``e`` it is
    ``x * exp2(e)``, as the formula reads (``ldexp(3, 2.5)``: ``3 * 2^2.5``).

Example:
    >>> import minigrad as mg
    >>> mantissa, exponent = mg.frexp(mg.tensor([3.0, -0.5, 8.0]))
    >>> mantissa.tolist(), exponent.tolist()
    ([0.75, -0.5, 0.5], [2, 0, 4])
    >>> mg.ldexp(mantissa, exponent).tolist()
    [3.0, -0.5, 8.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import is_grad_enabled
from ..dtypes import ALL_DTYPES, bfloat16
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from . import _return_types as return_types
from ._checks import check_tensor, refuse_unless_floating
from .registry import Attr, defop

__all__ = ["nextafter", "frexp", "ldexp"]

CPU = Backend.CPU
_LN2 = math.log(2.0)


def _opmath(dtype: np.dtype) -> np.dtype:
    """The dtype PyTorch computes a reduced-precision float in (float32 for float16 and bfloat16)."""
    return dtype if dtype.itemsize >= 4 else np.dtype(np.float32)


# -- nextafter ----------------------------------------------------------------------------------------


@register_kernel("nextafter", CPU, dtypes=tuple(d for d in ALL_DTYPES if d is not bfloat16))
def nextafter_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """NumPy's ``nextafter``: the representable number after ``x`` in the direction of ``y``."""
    refuse_unless_floating("nextafter_cpu", x, y)
    return np.asarray(np.nextafter(x, y))


@register_kernel("nextafter", CPU, dtypes=(bfloat16,))
def nextafter_bfloat16_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The step between bfloat16 numbers (the kernel layer hands a bfloat16 kernel float32 arrays, whose step is
    finer): taken on the bfloat16 values, given back in float32, which holds them exactly."""
    return np.asarray(np.nextafter(x.astype(bfloat16.np), y.astype(bfloat16.np)).astype(np.float32))


nextafter = defop("nextafter", inputs=("input", "other"), infer_meta=im.broadcast, transform_dtype=True,
                  save=("input", "other"), save_for={"input": (0,), "other": (0,)}, methods=("nextafter",),
                  doc="the next representable number after input towards other")


@nextafter.def_backward
def _nextafter_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's: the gradient passes to ``input`` (the step is below its resolution) except where ``input``
    equals ``other`` (the result is then ``other``, and neither gets one); ``other`` gets zeros."""
    x, y = ctx.saved()
    ops = ctx.ops
    return (ops.sum_to(ops.masked_fill(grad, ops.eq(x, y), 0.0), ctx.input_shape(0)) if ctx.needs(0) else None,
            ops.sum_to(ops.fill(grad, 0.0), ctx.input_shape(1)) if ctx.needs(1) else None)


# -- frexp ---------------------------------------------------------------------------------------------


def _infer_exponent(op: str, x: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape), np.dtype(np.int32)


@register_kernel("frexp_exponent", CPU, dtypes=ALL_DTYPES)
def frexp_exponent_cpu(x: np.ndarray) -> np.ndarray:
    """The ``e`` of ``x = m * 2^e`` with ``0.5 <= |m| < 1`` (0 for zero, inf and NaN), as int32."""
    return np.asarray(np.frexp(x)[1], dtype=np.int32)


@register_kernel("frexp", CPU, dtypes=ALL_DTYPES)
def frexp_cpu(x: np.ndarray) -> np.ndarray:
    """The ``m`` of ``x = m * 2^e`` (``x`` itself for zero, inf and NaN), in ``x``'s dtype."""
    return np.asarray(np.frexp(x)[0], dtype=x.dtype)


_frexp_exponent = defop("frexp_exponent", inputs=("input",), infer_meta=_infer_exponent, differentiable=False,
                        doc="frexp's exponent: the power of two of each element (int32)")
_frexp_mantissa = defop("frexp", inputs=("input",), infer_meta=im.same, save=("input",),
                        doc="frexp's mantissa: each element over its power of two, in [0.5, 1) in magnitude")


@_frexp_mantissa.def_backward
def _frexp_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``grad / exponent.exp2()``: the exponent found again from the saved input (its ``exp2`` is
    float32, as PyTorch's of an int32 tensor)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.exp2(ops.frexp_exponent(x))),)


def frexp(input: Tensor) -> Any:
    """``input`` as ``mantissa * 2 ** exponent`` (``torch.frexp``): ``return_types.frexp(mantissa, exponent)``,
    the mantissa in ``input``'s dtype (``FrexpBackward0``), the exponent int32."""
    check_tensor("frexp", "input", 0, input)
    if not input.dtype.is_floating:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(_frexp_mantissa(input), _frexp_exponent(input))


# -- ldexp ---------------------------------------------------------------------------------------------


@register_kernel("ldexp", CPU, dtypes=ALL_DTYPES)
def ldexp_cpu(x: np.ndarray, e: np.ndarray, exponent_dtype: str = "") -> np.ndarray:
    """``x * 2^e`` (NOTE [ ldexp of an integer exponent is exact ]: ``exponent_dtype`` names the integer dtype
    the exponent had before it was cast to ``x``'s, "" for a floating one); float16 and bfloat16 in float32,
    then rounded (the op casts an integer ``x`` to float32 first)."""
    work = _opmath(x.dtype)
    if exponent_dtype:  # past +-2^20 every result is 0 or inf already (and inf, from a float16 cast, an int again)
        steps = np.clip(e.astype(work), -(1 << 20), 1 << 20).astype(np.int32)
        return np.asarray(np.ldexp(x.astype(work), steps).astype(x.dtype))
    with np.errstate(over="ignore"):
        return np.asarray((x.astype(work) * np.exp2(e.astype(work))).astype(x.dtype))


def _check_dtype_name(op: str, name: str, pos: int, v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be str, but got {type(v).__name__}")
    return v


_ldexp = defop("ldexp", inputs=("input", "other"), attrs=(Attr("exponent_dtype", "", _check_dtype_name),),
               infer_meta=im.broadcast, promote="float", save=("other", "out"), save_for={"out": (1,)},
               doc="input * 2^other, in the floating dtype the two promote to (exponent_dtype: the integer dtype "
                   "other had, '' for a floating one)")


def _integer_power_of_two(ops: Any, scaled: Any, e: Any, dtype: str) -> Any:
    """``scaled`` (``g * 2^e``) as ``g * (2 ** e)`` with ``2 ** e`` computed in the integer ``dtype``, as PyTorch's
    gradient computes it: 0 for a negative ``e`` (integer division), 0 past the dtype's bits, and the top bit of
    a signed type its most negative value (a wrapped ``2^63``)."""
    bits = np.dtype(dtype).itemsize * 8
    out = ops.where(ops.lt(e, 0.0), 0.0, ops.where(ops.ge(e, float(bits)), 0.0, scaled))
    return ops.where(ops.eq(e, float(bits - 1)), ops.neg(out), out) if np.dtype(dtype).kind == "i" else out


@_ldexp.def_backward
def _ldexp_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's: ``d input = grad * 2 ** other`` (in integers for an integer ``other``), ``d other = grad * result
    * ln 2``."""
    other, out = ctx.saved()
    ops = ctx.ops
    gx = gy = None
    if ctx.needs(0):
        kind = ctx.attrs["exponent_dtype"]
        gx = ops.ldexp(grad, other, kind)
        gx = ops.sum_to(_integer_power_of_two(ops, gx, other, kind) if kind else gx, ctx.input_shape(0))
    if ctx.needs(1):
        gy = ops.sum_to(ops.mul(ops.mul(grad, out), _LN2), ctx.input_shape(1))
    return gx, gy


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other`` (``torch.ldexp``; ``LdexpBackward0``), in the dtype the two promote to, made
    floating (two integer tensors: float32)."""
    check_tensor("ldexp", "input", 0, input)
    check_tensor("ldexp", "other", 1, other)
    if other.dtype is _dt.bool_ and input.requires_grad and is_grad_enabled():
        # PyTorch computes the gradient's 2 ** other when it records the node; its integer power has no bool case
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    return _ldexp(input, other, "" if other.dtype.is_floating else other.dtype.name)
