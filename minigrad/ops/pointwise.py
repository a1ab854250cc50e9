"""Elementwise formulas PyTorch names: the ops ``lerp``, ``addcmul``, ``addcdiv``, ``sgn``, ``rsqrt``, ``frac``,
``nan_to_num``, ``erfinv``, ``erfc``, ``hypot``, ``fmax``, ``fmin``, ``logaddexp2``, ``deg2rad``, ``rad2deg``; the
composites ``square`` (PyTorch's ``pow(x, 2)``), ``heaviside``, ``float_power``; and NumPy's names for the
arithmetic and comparison ops (``multiply``, ``subtract``, ``divide``, ``true_divide``, ``greater`` ...,
``absolute``, ``negative``, ``positive``).

Each op makes the one node PyTorch makes (``LerpBackward0``, ``AddcmulBackward0`` ...), with the
formula of ``tools/autograd/derivatives.yaml``:

=============================  ==============================================================
``lerp(x, end, w)``            ``x + w (end - x)``; ``dx = grad (1 - w)``, ``dend = grad w``,
                               ``dw = grad (end - x)`` (a tensor ``w``: ``LerpBackward1``)
``addcmul(x, t1, t2, value)``  ``x + value t1 t2``; ``dt1 = grad (t2 value)``
``addcdiv(x, t1, t2, value)``  ``x + value t1 / t2``; ``dt1 = grad value / t2``,
                               ``dt2 = -grad value t1 / t2^2``
``sgn(x)``                     the sign; its gradient is 0
``rsqrt(x)``                   ``1 / sqrt(x)``; ``dx = -grad out^3 / 2``
``frac(x)``                    ``x - trunc(x)``; ``dx = grad``
``nan_to_num(x)``              NaN, +inf, -inf replaced; ``dx = grad`` where ``x`` is finite, else 0
``erfinv(x)``                  ``erf``'s inverse; ``dx = grad sqrt(pi) / 2 exp(erfinv(x)^2)``
``erfc(x)``                    ``1 - erf(x)``; ``dx = -grad 2 / sqrt(pi) exp(-x^2)``
``hypot(x, y)``                ``sqrt(x^2 + y^2)``; ``dx = grad x / out``
``fmax(x, y)``, ``fmin``       the larger (smaller), ignoring NaN; the gradient goes to the one taken
``logaddexp2(x, y)``           ``log2(2^x + 2^y)``; ``dx = grad / (1 + 2^(y - x))``
``deg2rad(x)``, ``rad2deg``    ``x pi / 180`` (``x 180 / pi``); ``dx = grad pi / 180``
=============================  ==============================================================

``addcmul`` and ``addcdiv`` are the update steps optimizers write; ``lerp`` is
the first moment's. (``xlogy``, ``logit`` and ``logaddexp`` are ops, in
``ops/logarithm.py``; ``reciprocal`` in ``ops/division.py``.)

Example:
    >>> import minigrad as mg
    >>> mg.lerp(mg.tensor([0.0, 10.0]), mg.tensor([10.0, 20.0]), 0.5).tolist()
    [5.0, 15.0]
    >>> mg.lerp(mg.tensor([0.0, 10.0], requires_grad=True), mg.tensor([10.0, 20.0]), 0.5).grad_fn.name()
    'LerpBackward0'
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, cpp_type_name, is_floating_np
from ..kernels import infer_meta as im
from ..kernels import special
from ..kernels.array_kernels import fused_multiply_add as _fma
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_tensor, refuse_unless_floating
from .division import div as _div_modes
from .math import abs as _abs
from .math import cast, div, eq, ge, gt, le, lt, mul, ne, neg, pow, where, zero_backward
from .math import sub_form as _sub_form
from .registry import Attr, call_with_out, defop, type_name

__all__ = ["square", "rsqrt", "lerp", "addcmul", "addcdiv", "logaddexp2", "hypot", "sgn",
           "frac", "fmax", "fmin", "nan_to_num", "erfinv", "heaviside", "erfc", "float_power", "deg2rad", "rad2deg",
           "multiply", "subtract", "divide", "true_divide", "greater", "greater_equal", "less", "less_equal",
           "not_equal", "absolute", "negative", "positive"]

CPU = Backend.CPU


def _number(op: str, name: str, v: Any) -> Any:
    """A Python number (a bool is the 0 or 1 it stands for, as PyTorch takes it)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (np.number, np.bool_)):
        v = v.item()
    if not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, but got {type_name(v)}")
    return v


def _number_attr(op: str, name: str, pos: int, v: Any) -> Any:
    """``Attr`` check: ``_number``."""
    return _number(op, name, v)


def _opmath(a: np.ndarray) -> np.ndarray:
    """``a`` in the type PyTorch's CPU kernels compute in: float16 widened to float32 (bfloat16 arrives
    widened already: ``kernels/registry.py``'s ``in_float32``)."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _broadcast3(op: str, x: Any, y: Any, z: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta of a three-input elementwise op: the three shapes broadcast, the first input's dtype (the
    others have it: promoted, or checked by the public function)."""
    return im.broadcast_shapes(op, im.broadcast_shapes(op, x.shape, y.shape), z.shape), x.dtype


# -- lerp: a number weight (LerpBackward0) or a tensor one (LerpBackward1) -------------------------

@register_kernel("lerp", CPU, dtypes=ALL_DTYPES)
def lerp_cpu(x: np.ndarray, end: np.ndarray, weight: Any) -> np.ndarray:
    """PyTorch's two-sided formula: ``x + w (end - x)`` for ``|w| < 0.5``, else ``end - (end - x) (1 - w)``,
    so that ``w = 0`` gives ``x`` and ``w = 1`` gives ``end`` exactly; each a fused multiply-add, as there."""
    refuse_unless_floating("lerp_kernel_scalar", x, end)
    a, b = _opmath(x), _opmath(end)
    w = np.full((), weight, dtype=a.dtype)
    out = _fma(w, b - a, a) if abs(weight) < 0.5 else _fma(a - b, np.asarray(1, dtype=a.dtype) - w, b)
    return np.asarray(out).astype(x.dtype, copy=False)


@register_kernel("lerp_tensor", CPU, dtypes=ALL_DTYPES)
def lerp_tensor_cpu(x: np.ndarray, end: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``lerp_cpu``'s formula, with the side chosen per element."""
    refuse_unless_floating("lerp_kernel_tensor", x, end, weight)
    a, b, w = _opmath(x), _opmath(end), _opmath(weight)
    out = np.where(np.abs(w) < 0.5, _fma(w, b - a, a), _fma(a - b, np.asarray(1, dtype=a.dtype) - w, b))
    return np.asarray(out).astype(x.dtype, copy=False)


_lerp_op = defop("lerp", inputs=("input", "end"), attrs=(Attr("weight", check=_number_attr),),
                 infer_meta=im.broadcast, doc="input + weight * (end - input) for a number weight (lerp.Scalar; "
                 "mg.lerp runs lerp_tensor for a tensor one)",
                 gpu=("param", "{fabs}((ACC)p0) < (ACC)0.5 ? a + (ACC)p0 * (b - a) : b - (b - a) * ((ACC)1 - (ACC)p0)"))
_lerp_tensor_op = defop("lerp_tensor", inputs=("input", "end", "weight"), infer_meta=_broadcast3,
                        save=("input", "end", "weight"), save_for={"input": (2,), "end": (2,), "weight": (0, 1)},
                        layout="elementwise", doc="input + weight * (end - input) for a tensor weight (lerp.Tensor)",
                        gpu=("ternary", "{fabs}(c) < (ACC)0.5 ? a + c * (b - a) : b - (b - a) * ((ACC)1 - c)"))


@_lerp_op.def_backward
def _lerp_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``d input = grad (1 - weight)``, ``d end = grad weight``, each summed back to its shape."""
    w = ctx.attrs["weight"]
    ops = ctx.ops
    return (ops.sum_to(ops.mul_scalar(grad, other=1.0 - w), ctx.input_shape(0)) if ctx.needs(0) else None,
            ops.sum_to(ops.mul_scalar(grad, other=w), ctx.input_shape(1)) if ctx.needs(1) else None)


@_lerp_tensor_op.def_backward
def _lerp_tensor_backward(ctx: Any, grad: Any) -> tuple[Any, Any, Any]:
    """As ``lerp``'s, with ``d weight = grad (end - input)``."""
    x, end, w = ctx.saved()
    ops = ctx.ops
    return (ops.sum_to(ops.mul(grad, ops.sub(1.0, w)), ctx.input_shape(0)) if ctx.needs(0) else None,
            ops.sum_to(ops.mul(grad, w), ctx.input_shape(1)) if ctx.needs(1) else None,
            ops.sum_to(ops.mul(grad, ops.sub(end, x)), ctx.input_shape(2)) if ctx.needs(2) else None)


def _same_dtype(op: str, input: Tensor, other: Tensor, name: str) -> None:
    if other.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {cpp_type_name(input.dtype)} for `{name}` but got dtype "
                           f"{cpp_type_name(other.dtype)}")


def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Tensor | None = None) -> Tensor:
    """``input + weight * (end - input)``, ``weight`` a number or a tensor (``torch.lerp``); all tensors of one
    floating dtype, as PyTorch asks."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("lerp", out, lerp, (input, end, weight))
    check_tensor("lerp", "input", 0, input)
    check_tensor("lerp", "end", 1, end)
    _same_dtype("lerp", input, end, "end")
    if isinstance(weight, Tensor):
        _same_dtype("lerp", input, weight, "weight")
        return _lerp_tensor_op(input, end, weight)
    return _lerp_op(input, end, weight=_number("lerp", "weight", weight))


# -- addcmul, addcdiv -------------------------------------------------------------------------------

@register_kernel("addcmul", CPU, dtypes=ALL_DTYPES)
def addcmul_cpu(x: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: Any = 1) -> np.ndarray:
    """``x + (value * t1) * t2`` in PyTorch's order, the last step a fused multiply-add; ``value`` in the
    tensors' type (an integer tensor takes ``int(value)``, as C++'s cast does)."""
    if x.dtype == np.bool_:
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    a, b, c = _opmath(x), _opmath(t1), _opmath(t2)
    v = a.dtype.type(value if is_floating_np(a.dtype) else int(value))
    return np.asarray(_fma(v * b, c, a)).astype(x.dtype, copy=False)


@register_kernel("addcdiv", CPU, dtypes=FLOAT_DTYPES)
def addcdiv_cpu(x: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: Any = 1) -> np.ndarray:
    """``x + value * t1 / t2`` in PyTorch's order."""
    a, b, c = _opmath(x), _opmath(t1), _opmath(t2)
    return np.asarray(a + a.dtype.type(value) * b / c).astype(x.dtype, copy=False)


def _addc(name: str, sign: str) -> Any:
    # On the GPU, PyTorch CUDA's order (aten/src/ATen/native/cuda/PointwiseOpsKernel.cu): ``a + value * (b op c)``,
    # a fused multiply-add after the product or quotient, where its CPU kernel (above) computes ``(value * b) op c``
    # first: the two round differently, and each device follows PyTorch's own.
    return defop(name, inputs=("input", "tensor1", "tensor2"), attrs=(Attr("value", 1, _number_attr),),
                 infer_meta=_broadcast3, transform_dtype=True, save=("tensor1", "tensor2"),
                 save_for={"tensor1": (1, 2) if sign == "/" else (2,), "tensor2": (1, 2) if sign == "/" else (1,)},
                 layout="elementwise", doc=f"input + value * tensor1 {sign} tensor2",
                 gpu=("ternary", f"a + (ACC)p0 * (b {sign} c)"))


_addcmul_op = _addc("addcmul", "*")
_addcdiv_op = _addc("addcdiv", "/")


@_addcmul_op.def_backward
def _addcmul_backward(ctx: Any, grad: Any) -> tuple[Any, Any, Any]:
    """``d input = grad``, ``d tensor1 = grad (tensor2 value)``, ``d tensor2 = grad (tensor1 value)``."""
    t1, t2 = ctx.saved()
    v = ctx.attrs["value"]
    ops = ctx.ops
    return (ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None,
            ops.sum_to(ops.mul(grad, ops.mul_scalar(t2, other=v)), ctx.input_shape(1)) if ctx.needs(1) else None,
            ops.sum_to(ops.mul(grad, ops.mul_scalar(t1, other=v)), ctx.input_shape(2)) if ctx.needs(2) else None)


@_addcdiv_op.def_backward
def _addcdiv_backward(ctx: Any, grad: Any) -> tuple[Any, Any, Any]:
    """``d input = grad``, ``d tensor1 = grad (value / tensor2)``, ``d tensor2 = -grad (tensor1 value) /
    tensor2^2``."""
    t1, t2 = ctx.saved()
    v = ctx.attrs["value"]
    ops = ctx.ops
    g1 = g2 = None
    if ctx.needs(1):
        g1 = ops.sum_to(ops.mul(grad, ops.div(v, t2)), ctx.input_shape(1))
    if ctx.needs(2):
        g2 = ops.sum_to(ops.mul(ops.neg(grad), ops.div(ops.mul_scalar(t1, other=v), ops.mul(t2, t2))),
                        ctx.input_shape(2))
    return (ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None), g1, g2


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``): one op, ``AddcmulBackward0``."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("addcmul", out, addcmul, (input, tensor1, tensor2), {"value": value})
    for pos, (name, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        check_tensor("addcmul", name, pos, t)
    return _addcmul_op(input, tensor1, tensor2, value=_number("addcmul", "value", value))


_ADDCDIV_INTEGERS = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                     "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
                     "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                     "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                     "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``): one op, ``AddcdivBackward0``; integer
    ``tensor1`` and ``tensor2`` together are refused, as PyTorch refuses integer division there."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("addcdiv", out, addcdiv, (input, tensor1, tensor2), {"value": value})
    for pos, (name, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        check_tensor("addcdiv", name, pos, t)
    value = _number("addcdiv", "value", value)
    if not tensor1.dtype.is_floating and not tensor2.dtype.is_floating:
        raise RuntimeError(_ADDCDIV_INTEGERS)
    return _addcdiv_op(input, tensor1, tensor2, value=value)


# -- unary ops: sgn, rsqrt, frac, nan_to_num, erfinv -------------------------------------------------

@register_kernel("sgn", CPU, dtypes=ALL_DTYPES)
def sgn_cpu(x: np.ndarray) -> np.ndarray:
    """The sign of a real number (of a bool: itself; of NaN: 0, as ``sign``)."""
    if x.dtype == np.bool_:
        return x.copy()
    out = np.sign(x)
    return np.asarray(np.where(np.isnan(out), 0, out) if out.dtype.kind == "f" else out, dtype=x.dtype)


sgn = defop("sgn", inputs=("input",), infer_meta=im.same, methods=("sgn",),
            doc="the sign of input (of a real tensor: sign's); its gradient is 0",
            gpu=("unary", "(ACC)((a > (ACC)0) - (a < (ACC)0))"))
sgn.def_backward(zero_backward)


@register_kernel("rsqrt", CPU, dtypes=FLOAT_DTYPES)
def rsqrt_cpu(x: np.ndarray) -> np.ndarray:
    """``1 / sqrt(x)`` (float16 in float32, rounded once)."""
    a = _opmath(x)
    return np.asarray(a.dtype.type(1) / np.sqrt(a)).astype(x.dtype, copy=False)


rsqrt = defop("rsqrt", inputs=("input",), infer_meta=im.same, save=("out",), promote="float", methods=("rsqrt",),
              amp="deny", doc="1 / sqrt(input) (integer tensors give float32)", gpu=("unary", "{rsqrt}(a)"))


@rsqrt.def_backward
def _rsqrt_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``-0.5 * grad * out^3``, from the saved result."""
    (out,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(ops.mul_scalar(grad, other=-0.5), ops.pow(out, 3)),)


@register_kernel("frac", CPU, dtypes=ALL_DTYPES)
def frac_cpu(x: np.ndarray) -> np.ndarray:
    """``x - trunc(x)``: the fractional part, with ``x``'s sign (floating tensors only, as PyTorch's)."""
    refuse_unless_floating("frac_cpu", x)
    return np.asarray(x - np.trunc(x))


frac = defop("frac", inputs=("input",), infer_meta=im.same, methods=("frac",),
             doc="input - trunc(input), the fractional part with its sign; its gradient is 1",
             gpu=("unary", "a - {trunc}(a)"))


@frac.def_backward
def _frac_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``d input = grad``."""
    return (grad,)


@register_kernel("nan_to_num", CPU, dtypes=ALL_DTYPES)
def nan_to_num_cpu(x: np.ndarray, nan: float = 0.0, posinf: float = 0.0, neginf: float = 0.0) -> np.ndarray:
    """NaN, +inf and -inf replaced by the numbers given (in ``x``'s dtype); an integer or bool tensor holds
    none of them: a copy."""
    if not is_floating_np(x.dtype):
        return x.copy()
    t = x.dtype.type
    with np.errstate(over="ignore"):  # a replacement beyond the dtype's range is an infinity, as in PyTorch
        out = np.where(x == np.inf, t(posinf), np.where(x == -np.inf, t(neginf), x))
        return np.asarray(np.where(np.isnan(x), t(nan), out))


def _float_attr(op: str, name: str, pos: int, v: Any) -> float:
    return float(_number(op, name, v))


_nan_to_num_op = defop(
    "nan_to_num", inputs=("input",),
    attrs=(Attr("nan", check=_float_attr), Attr("posinf", check=_float_attr), Attr("neginf", check=_float_attr)),
    infer_meta=im.same, save=("input",), doc="NaN, +inf and -inf replaced by the numbers given",
    gpu=("param", "a != a ? (ACC)p0 : (a == mg_inf(a) ? (ACC)p1 : (a == -mg_inf(a) ? (ACC)p2 : a))"))


@_nan_to_num_op.def_backward
def _nan_to_num_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``grad * isfinite(input)``: 0 where the input was replaced."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.isfinite(x)),)


def nan_to_num(input: Tensor, nan: Any = 0.0, posinf: Any = None, neginf: Any = None, *,
               out: Tensor | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (the dtype's largest / lowest finite
    value by default) (``torch.nan_to_num``): one op, ``NanToNumBackward0``, whose gradient reaches only the
    finite elements. An integer tensor comes back as a copy."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("nan_to_num", out, nan_to_num, (input, nan, posinf, neginf))
    check_tensor("nan_to_num", "input", 0, input)
    info = ml_dtypes.finfo(input.dtype.np) if input.dtype.is_floating else None  # bfloat16's too
    big = (float(info.max) if info is not None else 0.0) if posinf is None else posinf
    low = (float(info.min) if info is not None else 0.0) if neginf is None else neginf
    return _nan_to_num_op(input, nan=0.0 if nan is None else nan, posinf=big, neginf=low)


@register_kernel("erfinv", CPU, dtypes=FLOAT_DTYPES)
def erfinv_cpu(x: np.ndarray) -> np.ndarray:
    """The inverse error function (``kernels/special.py``: NumPy has none)."""
    return special.erfinv(x)


erfinv = defop("erfinv", inputs=("input",), infer_meta=im.same, save=("input",), promote="float",
               methods=("erfinv",), amp="deny", doc="the inverse error function: erf(erfinv(y)) = y on [-1, 1]",
               gpu=("unary", "{erfinv}(a)"))
_HALF_SQRT_PI = 0.5 * math.sqrt(math.pi)


@erfinv.def_backward
def _erfinv_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``0.5 * sqrt(pi) * exp(erfinv(input)^2) * grad`` (the input saved, ``erfinv`` run again)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(ops.mul_scalar(ops.exp(ops.pow(ops.erfinv(x), 2)), other=_HALF_SQRT_PI), grad),)


# -- binary ops: hypot, fmax, fmin -------------------------------------------------------------------

@register_kernel("hypot", CPU, dtypes=ALL_DTYPES)
def hypot_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``numpy.hypot``: ``sqrt(x^2 + y^2)`` without overflow, inf where either side is infinite (NaN or not)."""
    refuse_unless_floating("hypot_cpu", x, y)
    return np.asarray(np.hypot(x, y))


hypot = defop("hypot", inputs=("input", "other"), infer_meta=im.broadcast, transform_dtype=True,
              save=("input", "other", "out"), save_for={"input": (0,), "other": (1,)}, methods=("hypot",),
              doc="sqrt(input^2 + other^2)", gpu=("binary", "{hypot}(a, b)"))


@hypot.def_backward
def _hypot_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``d input = grad input / out``, ``d other = grad other / out`` (NaN at the origin, as PyTorch's)."""
    x, y, out = ctx.saved()
    ops = ctx.ops
    return (ops.sum_to(ops.div(ops.mul(grad, x), out), ctx.input_shape(0)) if ctx.needs(0) else None,
            ops.sum_to(ops.div(ops.mul(grad, y), out), ctx.input_shape(1)) if ctx.needs(1) else None)


def _nan_ignoring(name: str, ufunc: Any, takes: str, cmp: str) -> Any:
    """``fmax``/``fmin`` (``cmp``: ``>=``/``<=``): ``input`` where ``input cmp other`` holds or ``other`` is
    NaN, else ``other`` (so NaN comes out only where both are NaN)."""
    register_kernel(name, CPU, dtypes=ALL_DTYPES)(ufunc)
    op = defop(name, inputs=("input", "other"), infer_meta=im.broadcast, transform_dtype=True,
               save=("input", "other"), methods=(name,), doc=f"the {takes} of the two, ignoring NaN (ties: input)",
               gpu=("binary", f"(b != b || a {cmp} b) ? a : b"))

    @op.def_backward
    def backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
        """The gradient to the input taken, as PyTorch's ``masked_fill``s: to ``input`` where ``input cmp other``
        holds or ``other`` is NaN, to ``other`` elsewhere (where ``input`` loses, or is NaN against a number)."""
        x, y = ctx.saved()
        ops = ctx.ops
        y_nan = ops.ne(y, y)
        gx = gy = None
        if ctx.needs(0):
            loses = ops.where(ops.ne(x, x), True, getattr(ops, "lt" if cmp == ">=" else "gt")(x, y))
            gx = ops.sum_to(ops.masked_fill(grad, ops.where(y_nan, False, loses), 0.0), ctx.input_shape(0))
        if ctx.needs(1):
            first = ops.where(y_nan, True, getattr(ops, "ge" if cmp == ">=" else "le")(x, y))
            gy = ops.sum_to(ops.masked_fill(grad, first, 0.0), ctx.input_shape(1))
        return gx, gy

    backward.__name__ = f"_{name}_backward"
    return op


fmax = _nan_ignoring("fmax", np.fmax, "larger", ">=")
fmin = _nan_ignoring("fmin", np.fmin, "smaller", "<=")


# -- logaddexp2, erfc, deg2rad, rad2deg --------------------------------------------------------------

@register_kernel("logaddexp2", CPU, dtypes=ALL_DTYPES)
def logaddexp2_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``numpy.logaddexp2``: ``log2(2^x + 2^y)`` without overflow (floating tensors only, as PyTorch's)."""
    refuse_unless_floating("logaddexp2_cpu", x, y)
    return np.asarray(np.logaddexp2(x, y))


logaddexp2 = defop("logaddexp2", inputs=("input", "other"), infer_meta=im.broadcast, transform_dtype=True,
                   save=("input", "other"), methods=("logaddexp2",), doc="log2(2^input + 2^other)",
                   gpu=("binary", "(a == b && mg_isinf(a)) ? a : (a > b ? a : b) + {log1p}({exp2}(-{fabs}(a - b))) "
                                  "* (ACC)1.4426950408889634"))


@logaddexp2.def_backward
def _logaddexp2_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's ``grad / (1 + 2^(other - input))`` and ``grad / (1 + 2^(input - other))``."""
    x, y = ctx.saved()
    ops = ctx.ops
    return (ops.sum_to(ops.div(grad, ops.add(ops.pow(2.0, ops.sub(y, x)), 1.0)), ctx.input_shape(0))
            if ctx.needs(0) else None,
            ops.sum_to(ops.div(grad, ops.add(ops.pow(2.0, ops.sub(x, y)), 1.0)), ctx.input_shape(1))
            if ctx.needs(1) else None)


@register_kernel("erfc", CPU, dtypes=FLOAT_DTYPES)
def erfc_cpu(x: np.ndarray) -> np.ndarray:
    """``1 - erf(x)`` with its relative digits where it is small (``kernels/special.py``)."""
    return special.erfc(x)


erfc = defop("erfc", inputs=("input",), infer_meta=im.same, save=("input",), promote="float", methods=("erfc",),
             doc="the complementary error function, 1 - erf(input)", gpu=("unary", "{erfc}(a)"))
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@erfc.def_backward
def _erfc_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``-2 / sqrt(pi) * exp(-input^2) * grad``."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(ops.mul_scalar(ops.exp(ops.neg(ops.pow(x, 2))), other=-_TWO_OVER_SQRT_PI), grad),)


def _scale_op(name: str, factor: float, doc: str) -> Any:
    """``deg2rad``/``rad2deg``: ``input * factor`` (PyTorch multiplies by the factor in the input's type, a
    float16 one in float32); its gradient is ``grad * factor``."""
    @register_kernel(name, CPU, dtypes=FLOAT_DTYPES)
    def kernel(x: np.ndarray) -> np.ndarray:
        a = _opmath(x)
        return np.asarray(a * a.dtype.type(factor)).astype(x.dtype, copy=False)

    kernel.__name__ = f"{name}_cpu"
    op = defop(name, inputs=("input",), infer_meta=im.same, promote="float", methods=(name,), doc=doc,
               gpu=("unary", f"a * (ACC){factor!r}"))

    @op.def_backward
    def backward(ctx: Any, grad: Any) -> tuple[Any]:
        """``grad * factor``."""
        return (ctx.ops.mul_scalar(grad, other=factor),)

    backward.__name__ = f"_{name}_backward"
    return op


deg2rad = _scale_op("deg2rad", math.pi / 180.0, "degrees to radians, input * pi / 180")
rad2deg = _scale_op("rad2deg", 180.0 / math.pi, "radians to degrees, input * 180 / pi")


# -- composites ----------------------------------------------------------------------------------------

def square(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``input ** 2``, PyTorch's ``pow(input, 2)`` (``PowBackward0``); integer tensors stay integer, a bool
    tensor gives int64, as in PyTorch."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("square", out, square, (input,))
    check_tensor("square", "input", 0, input)
    return pow(cast(input, _dt.int64) if input.dtype is _dt.bool_ else input, 2)


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


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64 (``torch.float_power``)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        check_tensor("float_power", "input", 0, input)
    up = [cast(t, _dt.float64) if isinstance(t, Tensor) and t.dtype is not _dt.float64 else
          (float(t) if not isinstance(t, Tensor) else t) for t in (input, exponent)]
    return pow(up[0], up[1])


# NumPy's names for the arithmetic and comparison ops (PyTorch accepts both spellings).
multiply = mul
subtract = _sub_form
divide = _div_modes
true_divide = div
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
absolute, negative = _abs, neg


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+x``)."""
    return check_tensor("positive", "input", 0, input)
