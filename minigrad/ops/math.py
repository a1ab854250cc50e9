"""Elementwise ops: arithmetic, unary math, comparisons, where, clip, casts (activations: ``activation.py``).

Each op is defined once here: its CPU kernel (NumPy), API signature,
InferMeta (a shared rule from ``kernels/infer_meta.py``), backward formula,
tensor methods and operators, AMP category and GPU elementwise expression
(the CUDA templates in ``kernels/gpu/cuda_src.py`` are filled from it). Backward formulas use minigrad ops, so with
``create_graph=True`` they are themselves recorded and differentiable.
Broadcasting is undone in backward by ``sum_to`` (sum over broadcast dims).

Every formula computes with ``ctx.ops`` only, so the engine can run it on
minigrad's ops (graph mode: recorded, differentiable) or on the same ops'
kernels over arrays (array mode), with the same bits either way (NOTE [ One
formula, two modes ] in ``autograd/formula.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ShapeError
from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels import array_kernels
from ..kernels import infer_meta as im
from ..kernels import special
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.strided import channels_last_copy, torch_layout
from ..devices import CHANNELS_LAST, check_memory_format_rank
from ..tensor import Tensor
from ._checks import check_number_or_none
from ..autograd.formula import GRAPH_OPS
from ._checks import check_tensor
from .registry import Attr, Input, call_with_out, defop, define_composite, type_name, wrap_scalar

__all__ = [
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "abs", "sign", "sin", "cos", "erf",
    "maximum", "minimum", "where", "clip", "eq", "ne", "lt", "le", "gt", "ge", "cast", "clone", "to_copy", "fill",
    "sum_to",
]


CPU = Backend.CPU


# A NumPy ufunc is registered as the kernel itself (``np.add`` ...): ``launch`` in ``kernels/api.py``
# makes the NumPy scalar a ufunc returns for 0-d inputs a 0-d array.


def sum_to(g: Any, shape: tuple[int, ...], ops: Any = GRAPH_OPS) -> Any:
    """Sum ``g`` down to ``shape`` (undo broadcasting): a composite of ``sum`` and ``reshape``.

    ``ops`` is the namespace it computes with (``ctx.ops.sum_to`` passes the
    formula's own, so it runs in array mode too).
    """
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    inner = tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    dims = tuple(range(lead)) + inner
    # Summing the leading dims away and keeping the inner ones (as 1s) often gives ``shape``
    # itself, a fresh array that ``.grad`` can take without a copy; otherwise a reshape follows.
    out = ops.sum(g, dim=dims, keepdim=bool(inner)) if dims else g
    return out if tuple(out.shape) == shape else ops.reshape(out, shape)


define_composite("sum_to", sum_to)


def _binary(name: str, **kw: Any):
    return defop(name, inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, transform_dtype=True, **kw)


# -- arithmetic ---------------------------------------------------------------

# On bools add is "or", mul is "and" (as in PyTorch); bool - bool has no kernel (PyTorch refuses it too).
register_kernel("add", CPU, dtypes=ALL_DTYPES)(np.add)


add = _binary(
    "add",
    doc="x + y",
    methods=("add",),
    operators=("__add__", "__radd__"),
    gpu=("binary", "a + b"),
)


@add.def_backward
def add_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """d(x + y) = grad for each, summed over the dimensions broadcasting added (``sum_to``)."""
    ops = ctx.ops
    return (
        ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None,
        ops.sum_to(grad, ctx.input_shape(1)) if ctx.needs(1) else None,
    )


def _refuse_bool_subtraction(both: bool) -> None:
    """PyTorch's ``sub_check``: a bool operand cannot be subtracted (nor subtracted from)."""
    if both:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                       "invert a mask, use the `~` or `logical_not()` operator instead.")


register_kernel("sub", CPU, dtypes=ALL_DTYPES)(np.subtract)  # bool: refused by the meta, in PyTorch's words


def _sub_meta(op: str, x: Any, y: Any) -> tuple[tuple[int, ...], Any]:
    shape, dtype = im.broadcast(op, x, y)
    if dtype == np.bool_:
        _refuse_bool_subtraction(True)
    return shape, dtype


sub = defop(
    "sub",
    inputs=("x", "y"),
    infer_meta=_sub_meta,
    scalars=True,
    transform_dtype=True,
    doc="x - y",
    methods=("sub",),
    operators=("__sub__", "__rsub__"),
    gpu=("binary", "a - b"),
)


@sub.def_backward
def sub_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """d(x - y): grad for x, -grad for y, each summed back to its shape."""
    ops = ctx.ops
    return (
        ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None,
        ops.sum_to(ops.neg(grad), ctx.input_shape(1)) if ctx.needs(1) else None,
    )


register_kernel("mul", CPU, dtypes=ALL_DTYPES)(np.multiply)


mul = _binary(
    "mul",
    save=("x", "y"),
    save_for={"x": (1,), "y": (0,)},
    doc="x * y",
    methods=("mul",),
    operators=("__mul__", "__rmul__"),
    gpu=("binary", "a * b"),
)


@mul.def_backward
def mul_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """d(x * y): grad * y for x, grad * x for y, each summed back to its shape."""
    x, y = ctx.saved()  # x is None when y needs no gradient, and y when x needs none (save_for)
    ops = ctx.ops
    return (
        ops.sum_to(ops.mul(grad, y), ctx.input_shape(0)) if ctx.needs(0) else None,
        ops.sum_to(ops.mul(grad, x), ctx.input_shape(1)) if ctx.needs(1) else None,
    )


@register_kernel("div", CPU, dtypes=FLOAT_DTYPES, name="cpu/div")
def div_cpu(x, y):
    return np.asarray(np.divide(x, y))


div = _binary(
    "div",
    save=("x", "y"),
    save_for={"x": (1,), "y": (0, 1)},
    promote="float",
    doc="x / y (true division)",
    methods=("div",),
    operators=("__truediv__",),  # number / x is reciprocal(x) * number (_tensor_methods.py), as in PyTorch
    gpu=("binary", "a / b"),
)


@div.def_backward
def div_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """d(x / y): grad / y for x, -grad * x / y**2 for y, each summed back to its shape."""
    x, y = ctx.saved()  # x is None when y needs no gradient (save_for)
    ops = ctx.ops
    gx = ops.sum_to(ops.div(grad, y), ctx.input_shape(0)) if ctx.needs(0) else None
    gy = ops.sum_to(ops.neg(ops.div(ops.mul(grad, x), ops.mul(y, y))), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


# -- mul.Scalar, div.Scalar: the number overloads PyTorch's C++ composites call (MulBackward1, DivBackward1) --
# A program's ``x * 0.5`` wraps the number as a 0-d tensor (mul.Tensor, MulBackward0, two next functions); the
# composites PyTorch writes in C++ (label smoothing's ``(1 - s) * nll``) call the Scalar overload, whose node
# has one next function. The composites here that mirror them call these.


def _check_number(op: str, name: str, pos: int, v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type_name(v)}")


def _scalar_overload_meta(op: str, x: Any, other: Any = 1.0) -> Any:
    if x.dtype.kind != "f" and x.dtype != _dt.bfloat16.np:
        raise TypeError(f"{op}(): expected a floating point tensor, but got {x.dtype}")
    return tuple(x.shape), x.dtype


def _by_number(ufunc: Any) -> Any:
    def kernel(x: np.ndarray, other: Any = 1.0) -> np.ndarray:
        """In the op math of PyTorch's kernels: a half (or bfloat16) and the number in float, rounded once."""
        acc = np.float32 if x.dtype.itemsize < 4 else x.dtype.type
        return np.asarray(ufunc(x.astype(acc, copy=False), acc(other))).astype(x.dtype, copy=False)
    return kernel


def _scalar_overload(name: str, ufunc: Any, sign: str, overload: str) -> Any:
    """The op ``name``: ``x <sign> other`` for a number ``other`` (PyTorch's ``overload``), its CPU kernel in the op
    math of PyTorch's kernels and its GPU expression."""
    register_kernel(name, CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(_by_number(ufunc))
    return defop(name, inputs=("x",), attrs=(Attr("other", check=_check_number),), infer_meta=_scalar_overload_meta,
                 doc=f"x {sign} other for a number other (PyTorch's {overload})", gpu=("param", f"a {sign} (ACC)p0"))


mul_scalar = _scalar_overload("mul_scalar", np.multiply, "*", "mul.Scalar")
div_scalar = _scalar_overload("div_scalar", np.divide, "/", "div.Scalar")
#: ``add.Scalar`` and ``sub.Scalar``: ``x1 - x2 + eps`` in pairwise_distance, ``cos - margin`` in
#: cosine_embedding_loss. One edge, ``AddBackward1`` / ``SubBackward1``, where ``x + 0.5`` from Python is
#: ``add.Tensor`` (``AddBackward0``, the number a second edge).
add_scalar = _scalar_overload("add_scalar", np.add, "+", "add.Scalar")
sub_scalar = _scalar_overload("sub_scalar", np.subtract, "-", "sub.Scalar")


@add_scalar.def_backward
@sub_scalar.def_backward
def _shifted_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``x + c`` and ``x - c`` pass the gradient on unchanged."""
    return (grad,)


@mul_scalar.def_backward
def _mul_scalar_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``grad * other``."""
    return (ctx.ops.mul_scalar(grad, other=ctx.attrs["other"]),)


@div_scalar.def_backward
def _div_scalar_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``grad / other``."""
    return (ctx.ops.div_scalar(grad, other=ctx.attrs["other"]),)


@register_kernel("pow", CPU, dtypes=tuple(d for d in NUMERIC_DTYPES if d is not _dt.bfloat16), name="cpu/pow_")
def pow_cpu(x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise ShapeError("pow(): integers to negative integer powers are not allowed")
    if y.ndim == 0 and _dt.is_floating_np(x.dtype):
        return _pow_scalar(x, y)
    return np.asarray(np.power(x, y))


@register_kernel("pow", CPU, dtypes=(_dt.bfloat16,), name="cpu/pow_")
def pow_cpu_bfloat16(x, y):
    """bfloat16 ``pow``: given float32 arrays and rounded to bfloat16 once at the end, as every bfloat16 kernel
    (``kernels/registry.py``'s ``in_float32``), except that a product PyTorch rounds on the way rounds here too."""
    if y.ndim == 0:
        return _pow_scalar(x, y, _to_bfloat16_and_back)
    return np.asarray(np.power(x, y))


def _to_bfloat16_and_back(a: np.ndarray) -> np.ndarray:
    return a.astype(_dt.bfloat16.np).astype(np.float32)


# NOTE [ pow by a scalar takes PyTorch's paths ]
#     PyTorch's CPU ``pow(tensor, scalar)`` is not one formula but a table of them, and each
#     rounds differently, so minigrad follows the table to get PyTorch's bits
#     (``aten/src/ATen/native/Pow.cpp``, then ``aten/src/ATen/native/cpu/PowKernel.cpp``):
#
#     exponent | float32, float64         | bfloat16 (in float32)              | float16
#     ---------|--------------------------|------------------------------------|---------------
#     0        | ones                     | ones                               | ones
#     1        | a copy                   | a copy                             | a copy
#     0.5      | sqrt(x)                  | sqrt(x)                            | pow in float32
#     -0.5     | 1 / sqrt(x)  (rsqrt)     | 1 / sqrt(x)                        | pow in float32
#     -1       | 1 / x  (reciprocal)      | 1 / x                              | pow in float32
#     2, 3     | x * x, x * x * x         | the same, each product rounded to  | pow in float32
#     -2       | 1 / (x * x)              | bfloat16 (bfloat16 arithmetic)     | pow in float32
#     other    | pow (float32: in float64,| pow in float32                     | pow in float32
#              | rounded once)            |                                    |
#
#     What is left is not the formula but the library under it: PyTorch's float32 sqrt is MKL's
#     (within 1 ulp; ``x ** 0.5`` equals ``x.sqrt()`` in both frameworks, bit for bit), its
#     vectorised pow is SLEEF's (within 1 ulp), and its bfloat16 tail elements (past the last full
#     vector) take a scalar rsqrt that rounds twice. tests/test_pow_bits.py lists each.
def _pow_scalar(x: np.ndarray, y: np.ndarray, rounded: Any = None) -> np.ndarray:
    """``x ** y`` for a floating ``x`` and a 0-d ``y``, by the table of NOTE [ pow by a scalar takes PyTorch's
    paths ]; ``rounded`` rounds a product PyTorch rounds on the way (bfloat16 arithmetic)."""
    e = float(y)
    if e == 0:
        return np.ones_like(x)
    if e == 1:
        return x.copy()
    if x.dtype == np.float16:
        return np.asarray(np.power(x, y))
    one = x.dtype.type(1)
    rounded = rounded or (lambda a: a)
    if e == 0.5:
        return np.sqrt(x)
    if e == -0.5:
        return one / np.sqrt(x)
    if e == -1:
        return one / x
    if e == 2:
        return x * x
    if e == 3:
        return rounded(x * x) * x
    if e == -2:
        return one / rounded(x * x)
    if x.dtype == np.float32 and rounded is not _to_bfloat16_and_back:
        return np.power(x.astype(np.float64), e).astype(np.float32)
    return np.asarray(np.power(x, y))


pow = _binary(
    "pow",
    save=("x", "y", "out"),
    save_for={"out": (1,)},  # x ** y is needed for y's gradient only (PyTorch keeps it only then)
    doc="x ** y",
    methods=("pow",),
    operators=("__pow__", "__rpow__"),
    amp="deny",
    # PyTorch's CUDA paths for a scalar exponent (aten/src/ATen/native/cuda/PowKernel.cu), the CPU table's
    # first rows (NOTE [ pow by a scalar takes PyTorch's paths ]); b is the same in every element then.
    gpu=("binary", "b == (ACC)2 ? a * a : b == (ACC)3 ? a * a * a : b == (ACC)-2 ? (ACC)1 / (a * a) "
                   ": b == (ACC)0.5 ? {sqrt}(a) : b == (ACC)-0.5 ? {rsqrt}(a) : b == (ACC)-1 ? (ACC)1 / a : {pow}(a, b)"),
)


@pow.def_backward
def pow_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """d(x ** y): grad * y * x ** (y - 1) for x, grad * x ** y * log(x) for y (0 where x = 0 and y >= 0)."""
    x, y, out = ctx.saved()
    ops = ctx.ops
    # d/dx x**y = y * x**(y-1); where y == 0 the exponent is replaced by 1 so the product is
    # 0 * x = 0 (x**0 is constant), not 0 * 0**-1 = nan at x == 0.
    gx = None
    if ctx.needs(0):
        slope = ops.mul(y, ops.pow(x, ops.where(ops.eq(y, 0), 1, ops.sub(y, 1))))
        gx = ops.sum_to(ops.mul(grad, slope), ctx.input_shape(0))
    # d/dy x**y = x**y * log(x).
    gy = None
    if ctx.needs(1):
        # PyTorch's rule: 0 only where x == 0 and y >= 0 (0**y is flat there); elsewhere x**y * log(x)
        # as it is, so a negative base gives nan and 0**y with y < 0 gives inf * -inf = -inf.
        at_zero = ops.eq(x, 0)
        flat = ops.where(at_zero, ops.ge(y, 0), at_zero)  # x == 0 and y >= 0
        slope = ops.where(flat, 0, ops.mul(out, ops.log(ops.where(flat, 1, x))))
        gy = ops.sum_to(ops.mul(grad, slope), ctx.input_shape(1))
    return gx, gy


def _select_backward(wins: str):
    """Backward of maximum/minimum: the gradient goes to the winning input; ties split it.

    As PyTorch: an input gets the gradient unless it strictly loses (half of it on a tie), so where
    either side is NaN (no comparison holds) both inputs get the whole gradient. ``wins`` names
    the comparison (``"gt"`` for maximum).
    """

    def backward(ctx, g):
        x, y = ctx.saved()
        ops = ctx.ops
        win = getattr(ops, wins)
        tie = ops.mul(ops.cast(ops.eq(x, y), g.dtype), 0.5)
        gx = gy = None
        if ctx.needs(0):
            wx = ops.sub(ops.sub(1, ops.cast(win(y, x), g.dtype)), tie)  # 1 unless y wins, 1/2 on a tie
            gx = ops.sum_to(ops.mul(g, wx), ctx.input_shape(0))
        if ctx.needs(1):
            wy = ops.sub(ops.sub(1, ops.cast(win(x, y), g.dtype)), tie)
            gy = ops.sum_to(ops.mul(g, wy), ctx.input_shape(1))
        return gx, gy

    return backward


register_kernel("maximum", CPU, dtypes=ALL_DTYPES)(np.maximum)


maximum = _binary(
    "maximum",
    save=("x", "y"),
    doc="elementwise max; ties split the gradient",
    methods=("maximum",),
    gpu=("binary", "(a != a) ? a : ((b != b) ? b : (a > b ? a : b))"),
)
maximum.def_backward(_select_backward("gt"))
register_kernel("minimum", CPU, dtypes=ALL_DTYPES)(np.minimum)


minimum = _binary(
    "minimum",
    save=("x", "y"),
    doc="elementwise min; ties split the gradient",
    methods=("minimum",),
    gpu=("binary", "(a != a) ? a : ((b != b) ? b : (a < b ? a : b))"),
)
minimum.def_backward(_select_backward("lt"))


# -- unary ----------------------------------------------------------------------

register_kernel("neg", CPU, dtypes=ALL_DTYPES)(np.negative)  # bool: refused by the meta, in PyTorch's words


def _neg_meta(op: str, x: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    if x.dtype == np.bool_:  # PyTorch's neg meta
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return im.same(op, x)


neg = defop(
    "neg",
    inputs=("x",),
    infer_meta=_neg_meta,
    layout="elementwise",
    doc="-x",
    methods=("neg",),
    operators=("__neg__",),
    gpu=("unary", "-a"),
)
@neg.def_backward
def neg_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d(-x)/dx = -1."""
    return (ctx.ops.neg(grad),)

register_kernel("exp", CPU, dtypes=FLOAT_DTYPES)(np.exp)


exp = defop(
    "exp",
    inputs=("x",),
    infer_meta=im.same,
    save=("out",),
    promote="float",
    methods=("exp",),
    amp="deny",
    gpu=("unary", "{exp}(a)"),
)
@exp.def_backward
def exp_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d exp(x)/dx = exp(x): the saved output."""
    return (ctx.ops.mul(grad, ctx.saved()[0]),)

register_kernel("log", CPU, dtypes=FLOAT_DTYPES)(np.log)


log = defop(
    "log",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    methods=("log",),
    amp="deny",
    gpu=("unary", "{log}(a)"),
)
@log.def_backward
def log_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d log(x)/dx = 1 / x."""
    return (ctx.ops.div(grad, ctx.saved()[0]),)

register_kernel("sqrt", CPU, dtypes=FLOAT_DTYPES)(np.sqrt)


sqrt = defop(
    "sqrt",
    inputs=("x",),
    infer_meta=im.same,
    save=("out",),
    promote="float",
    methods=("sqrt",),
    gpu=("unary", "{sqrt}(a)"),
)
@sqrt.def_backward
def sqrt_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d sqrt(x)/dx = 1 / (2 sqrt(x)): the saved output."""
    return (ctx.ops.div(grad, ctx.ops.mul(ctx.saved()[0], 2)),)

def zero_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """The gradient of an op whose output does not change with its input (a step function, ``fill``):
    zeros shaped as ``grad``, as PyTorch's ``zeros_like(grad)``. ``fill``, not ``grad * 0``: that would
    give -0 where ``grad`` is negative and NaN where it is infinite."""
    return (ctx.ops.fill(grad, 0),)


@register_kernel("sign", CPU, dtypes=NUMERIC_DTYPES, name="cpu/sign")
def sign_cpu(x):
    # sign(nan) is 0 as in PyTorch (np.sign gives nan), so abs' gradient at NaN is 0 as well.
    out = np.sign(x)
    return np.asarray(np.where(np.isnan(out), 0, out) if out.dtype.kind == "f" else out, dtype=x.dtype)


sign = defop(
    "sign",
    inputs=("x",),
    infer_meta=im.same,
    doc="sign of x; its derivative is 0",
    methods=("sign",),
    gpu=("unary", "(ACC)((a > (ACC)0) - (a < (ACC)0))"),  # NaN compares false: 0
)
sign.def_backward(zero_backward)

register_kernel("abs", CPU, dtypes=NUMERIC_DTYPES)(np.abs)


abs = defop(
    "abs",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    methods=("abs",),
    operators=("__abs__",),
    gpu=("unary", "{fabs}(a)"),
)
@abs.def_backward
def abs_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d|x|/dx = sgn(x) (0 at 0), PyTorch's ``grad * self.sgn()``."""
    return (ctx.ops.mul(grad, ctx.ops.sgn(ctx.saved()[0])),)

register_kernel("sin", CPU, dtypes=FLOAT_DTYPES)(np.sin)


sin = defop(
    "sin",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    methods=("sin",),
    gpu=("unary", "{sin}(a)"),
)
@sin.def_backward
def sin_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d sin(x)/dx = cos(x)."""
    return (ctx.ops.mul(grad, ctx.ops.cos(ctx.saved()[0])),)

register_kernel("cos", CPU, dtypes=FLOAT_DTYPES)(np.cos)


cos = defop(
    "cos",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    methods=("cos",),
    gpu=("unary", "{cos}(a)"),
)
@cos.def_backward
def cos_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d cos(x)/dx = -sin(x)."""
    return (ctx.ops.neg(ctx.ops.mul(grad, ctx.ops.sin(ctx.saved()[0]))),)

@register_kernel("erf", CPU, dtypes=FLOAT_DTYPES, name="cpu/erf")
def erf_cpu(x):
    return special.erf(x)  # NumPy has no erf ufunc: kernels/special.py


erf = defop(
    "erf",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    methods=("erf",),
    gpu=("unary", "{erf}(a)"),
)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
@erf.def_backward
def erf_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """d erf(x)/dx = 2 / sqrt(pi) * exp(-x**2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.mul(ops.exp(ops.neg(ops.mul(x, x))), _TWO_OVER_SQRT_PI)),)

# -- comparisons (no gradient) ---------------------------------------------------


def _compare(name: str, **kw: Any):
    return defop(name, inputs=("x", "y"), infer_meta=im.compare, scalars=True, transform_dtype=True, **kw)


register_kernel(("eq",), CPU, dtypes=ALL_DTYPES)(np.equal)


eq = _compare("eq", methods=("eq",), operators=("__eq__",), gpu=("compare", "a == b"))
register_kernel(("ne",), CPU, dtypes=ALL_DTYPES)(np.not_equal)


ne = _compare("ne", methods=("ne",), operators=("__ne__",), gpu=("compare", "a != b"))
register_kernel(("lt",), CPU, dtypes=ALL_DTYPES)(np.less)  # bools too (False < True)


lt = _compare("lt", methods=("lt",), operators=("__lt__",), gpu=("compare", "a < b"))
register_kernel(("le",), CPU, dtypes=ALL_DTYPES)(np.less_equal)  # bools too (False < True)


le = _compare("le", methods=("le",), operators=("__le__",), gpu=("compare", "a <= b"))
register_kernel(("gt",), CPU, dtypes=ALL_DTYPES)(np.greater)  # bools too (False < True)


gt = _compare("gt", methods=("gt",), operators=("__gt__",), gpu=("compare", "a > b"))
register_kernel(("ge",), CPU, dtypes=ALL_DTYPES)(np.greater_equal)  # bools too (False < True)


ge = _compare("ge", methods=("ge",), operators=("__ge__",), gpu=("compare", "a >= b"))

# -- selection ----------------------------------------------------------------------

@register_kernel("where", CPU, dtypes=ALL_DTYPES, name="cpu/where")
def where_cpu(condition, x, y):
    return np.where(condition, x, y)


where = defop(
    "where",
    inputs=(Input("condition", differentiable=False), Input("x", scalar_ok=True), Input("y", scalar_ok=True)),
    infer_meta=im.where,
    save=("condition",),
    key_inputs=(1, 2),
    transform_dtype=True,
    doc="x where condition else y",
)


@where.def_backward
def where_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """The gradient goes to x where ``cond`` holds and to y elsewhere; ``cond`` gets none."""
    (cond,) = ctx.saved()
    ops = ctx.ops
    zero = ops.fill(grad, 0)
    gx = ops.sum_to(ops.where(cond, grad, zero), ctx.input_shape(1)) if ctx.needs(1) else None
    gy = ops.sum_to(ops.where(cond, zero, grad), ctx.input_shape(2)) if ctx.needs(2) else None
    return None, gx, gy


def _clip_meta(op: str, x: Any, min: Any = None, max: Any = None) -> Any:
    """Like x; an integer tensor clamped to float bounds becomes float32 (as in PyTorch)."""
    if not _dt.is_floating_np(x.dtype) and any(isinstance(b, float) for b in (min, max)):
        return x.shape, _dt.float32.np
    return x.shape, x.dtype


@register_kernel("clip", CPU, dtypes=NUMERIC_DTYPES, name="cpu/clip")
def clip_cpu(x, min=None, max=None):
    # An integer tensor with a float bound is clamped in float32 (InferMeta says so too).
    dtype = np.float32 if not _dt.is_floating_np(x.dtype) and (isinstance(min, float) or isinstance(max, float)) else x.dtype
    return np.asarray(np.clip(x.astype(dtype, copy=False), min, max), dtype=dtype)


clip = defop(
    "clip",
    inputs=("x",),
    attrs=(Attr("min", None, check_number_or_none), Attr("max", None, check_number_or_none)),
    infer_meta=_clip_meta,
    save=("x",),
    doc="clamp x into [min, max]",
    methods=("clip", "clamp"),
)


@clip.def_backward
def clip_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """PyTorch's ``clamp_backward``: grad where min <= x <= max, else 0."""
    (x,) = ctx.saved()
    ops = ctx.ops
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    # PyTorch's clamp_backward: the gradient where min <= x <= max, else 0 (a +0, not grad * 0:
    # no -0 from a negative grad, no NaN from an infinite one; a NaN x takes none).
    inside = grad
    if lo is not None:
        inside = ops.where(ops.ge(x, lo), inside, 0.0)
    if hi is not None:
        inside = ops.where(ops.le(x, hi), inside, 0.0)
    return (inside,)


# -- casts and copies -------------------------------------------------------------


def _check_dtype(op: str, name: str, pos: int, v: Any) -> Any:
    return _dt.as_dtype(v, f"{op}(): argument '{name}' (position {pos})")


def _cast_meta(op: str, x: Any, dtype: Any) -> Any:
    return x.shape, dtype.np


@register_kernel("cast", CPU, dtypes=ALL_DTYPES, name="cpu/cast")
def cast_cpu(x, dtype):
    return x.astype(dtype.np)


cast = defop("cast", inputs=("x",), attrs=(Attr("dtype", check=_check_dtype),), infer_meta=_cast_meta,
             save=(), key_inputs=(0,), doc="convert to another dtype", amp="never")


@cast.def_backward
def cast_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """The gradient cast back to the input's dtype."""
    return (ctx.ops.cast(grad, ctx.input_dtype(0)),)


@register_kernel("clone", CPU, dtypes=ALL_DTYPES, name="cpu/clone")
def clone_cpu(x, memory_format="preserve_format"):
    # preserve_format: the input's order of strides, where a broadcast (stride 0) dim has no say (PyTorch's
    # empty_like; NumPy's order "K" would make it the fastest)
    if memory_format in CHANNELS_LAST:
        return channels_last_copy(np, x, memory_format)
    out = np.copy(x, order="C" if memory_format == "contiguous_format" else "K")
    return out if memory_format == "contiguous_format" else torch_layout("elementwise", out, (x,))


def _check_memory_format(op: str, name: str, pos: int, v: Any) -> str:
    if v not in ("preserve_format", "contiguous_format", *CHANNELS_LAST) or not isinstance(v, str):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be minigrad.memory_format "
                        f"(minigrad.preserve_format, contiguous_format, channels_last or channels_last_3d), not {v!r}")
    return str.__str__(v)  # the plain string, for events


def _clone_meta(op: str, x: Any, memory_format: str = "preserve_format") -> Any:
    check_memory_format_rank(memory_format, len(x.shape))
    return im.same(op, x)


clone = defop("clone", inputs=("x",), out=False, attrs=(Attr("memory_format", "preserve_format", _check_memory_format),),
              infer_meta=_clone_meta,
              doc="a copy that stays in the graph, in the input's order of strides (or row-major: contiguous_format; "
                  "channels last: channels_last, channels_last_3d)")
@clone.def_backward
def clone_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """The gradient passes through unchanged."""
    return (grad,)


def _to_copy_meta(op: str, x: Any, dtype: Any, memory_format: str) -> Any:
    check_memory_format_rank(memory_format, len(x.shape))
    return x.shape, dtype.np


@register_kernel("to_copy", CPU, dtypes=ALL_DTYPES, name="cpu/to_copy")
def to_copy_cpu(x, dtype, memory_format):
    return clone_cpu(x.astype(dtype.np, copy=False), memory_format)


#: PyTorch's ``_to_copy``: ``x.to(dtype, memory_format=...)`` in one copy and one node (``ToCopyBackward0``),
#: where ``cast`` alone keeps the layout and ``clone`` alone the dtype. ``Tensor.to`` calls it for a memory format.
to_copy = defop("to_copy", inputs=("x",), out=False,
                attrs=(Attr("dtype", check=_check_dtype), Attr("memory_format", "preserve_format", _check_memory_format)),
                infer_meta=_to_copy_meta, key_inputs=(0,),
                doc="a copy in another dtype and memory format (Tensor.to(dtype, memory_format=...))")


@to_copy.def_backward
def _to_copy_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """The gradient in the input's dtype (itself where the dtype did not change), its layout as it came."""
    dtype = ctx.input_dtype(0)
    return (grad if ctx.attrs["dtype"] is dtype else ctx.ops.cast(grad, dtype),)


@register_kernel("fill", CPU, dtypes=ALL_DTYPES, name="cpu/fill")
def fill_cpu(x, value):
    return np.full(x.shape, value, dtype=x.dtype)


def _check_fill_value(op: str, name: str, pos: int, v: Any) -> Any:
    """A number; a bool is the number it stands for (``x.fill_(True)`` writes 1), as in PyTorch."""
    if isinstance(v, bool):
        return int(v)
    return check_number_or_none(op, name, pos, v)


fill = defop(
    "fill",
    inputs=("x",),
    out=False,  # PyTorch's fill takes no out=
    attrs=(Attr("value", check=_check_fill_value),),
    infer_meta=im.same,
    doc="a tensor like x filled with value (the op behind zero_/fill_); its gradient w.r.t. x is 0",
)
fill.def_backward(zero_backward)


# -- zero_, fill_ and copy_: each an overload of its own in PyTorch, with its own node ----------------------
# ``Tensor.zero_``/``fill_``/``copy_`` run these through ``run_inplace``; the out-of-place op ``fill`` is
# ``torch.fill``'s (FillBackward0), which the backward formulas call too. Named as in-place ops are here
# (``unsqueeze_``), so no public name is taken.

def _check_zero_dim_value(op: str, x: Any, value: Any) -> Any:
    if value.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
    return tuple(x.shape), x.dtype


@register_kernel("zero_", CPU, dtypes=ALL_DTYPES, name="cpu/zero_")
def zero_cpu(x):
    return np.zeros(x.shape, dtype=x.dtype)


register_kernel("fill_", CPU, dtypes=ALL_DTYPES, name="cpu/fill_")(fill_cpu)


@register_kernel("fill_tensor_", CPU, dtypes=ALL_DTYPES, name="cpu/fill_tensor_")
def fill_tensor_cpu(x, value):
    return np.full(x.shape, value, dtype=x.dtype)


@register_kernel("copy_", CPU, dtypes=ALL_DTYPES, name="cpu/copy_")
def copy_cpu(x, src):
    return np.broadcast_to(src, x.shape).astype(x.dtype)  # a new array: the values cast and broadcast


zero_op = defop("zero_", inputs=("x",), out=False, infer_meta=im.same,
                doc="zeros like x: the op of x.zero_() (ZeroBackward0); its gradient w.r.t. x is 0")
fill_op = defop("fill_", inputs=("x",), out=False, attrs=(Attr("value", check=_check_fill_value),), infer_meta=im.same,
                doc="x filled with the number value: the op of x.fill_(value) (fill_.Scalar, FillBackward2)")
fill_tensor_op = defop("fill_tensor_", inputs=("x", "value"), out=False, infer_meta=_check_zero_dim_value,
                       doc="x filled with the 0-d tensor value: the op of x.fill_(value) (fill_.Tensor, FillBackward3)")
copy_op = defop("copy_", inputs=("x", "src"), out=False, infer_meta=lambda op, x, src: (tuple(x.shape), x.dtype),
                doc="src broadcast to x's shape and cast to x's dtype: the op of x.copy_(src) (CopyBackwards)")
zero_op.def_backward(zero_backward)
fill_op.def_backward(zero_backward)


@fill_tensor_op.def_backward
def _fill_tensor_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's: ``self`` gets zeros, ``value`` the sum of the gradient (every element took its value)."""
    ops = ctx.ops
    gx = ops.fill(grad, 0) if ctx.needs(0) else None
    gv = ops.cast(ops.sum(grad), ctx.input_dtype(1)) if ctx.needs(1) else None
    return gx, gv


@copy_op.def_backward
def _copy_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's: ``self``'s old values get zeros; ``src`` the gradient, summed over the dims it was broadcast
    along and cast back to its dtype."""
    ops = ctx.ops
    gx = ops.fill(grad, 0) if ctx.needs(0) else None
    gs = ops.sum_to(ops.cast(grad, ctx.input_dtype(1)), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gs


# -- PyTorch's add/sub with alpha=: ``add.Tensor(self, other, alpha)`` -----------------------------------

# ``mg.add``/``mg.sub`` and the methods of the same name are the forms below (exported by minigrad/__init__);
# the operators (``x + y``) and minigrad's own formulas call the registered ops ``add``/``sub`` directly. An
# ``alpha`` other than 1 with a tensor ``other`` is the op ``add_alpha``/``sub_alpha``: one kernel
# ``x + alpha * y`` (a fused multiply-add on the CPU, as PyTorch's vectorised kernel), one node named as
# PyTorch's (``AddBackward0``), where a ``mul`` and then the op made two of each.

_HALF_MAX = {"float16": ("c10::Half", 65504.0), "bfloat16": ("c10::BFloat16", 3.3895313892515355e38)}


def _check_alpha(dtype: Any, alpha: Any) -> None:
    """PyTorch's ``alpha_check`` on the result's dtype, then the conversion of ``alpha`` to it."""
    if isinstance(alpha, bool):
        if dtype != np.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and (dtype.kind in "iub"):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    half = _HALF_MAX.get(getattr(dtype, "name", str(dtype)))
    if half is not None and not -half[1] <= alpha <= half[1] and math.isfinite(alpha):
        raise RuntimeError(f"value cannot be converted to type {half[0]} without overflow")


def _check_alpha_attr(op: str, name: str, pos: int, v: Any) -> Any:
    if isinstance(v, (int, float)):  # a bool too: PyTorch's alpha for bool results
        return v
    raise TypeError(f"{op}(): argument '{name}' must be a number, but got {type_name(v)}")


def _number_result_dtype(input: Tensor, other: Any) -> Any:
    """The dtype ``input <op> other`` has for a number ``other`` (a bool stays in the tensor's kind, an int
    makes a bool tensor's int64, a float an integer tensor's default float)."""
    dtype = input._dtype.np
    if isinstance(other, bool) or dtype.kind == "f" or dtype == _dt.bfloat16.np:
        return dtype
    if isinstance(other, int):
        return np.dtype(np.int64) if dtype == np.bool_ else dtype
    return _dt.get_default_dtype().np


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool) or (isinstance(v, Tensor) and v._dtype is _dt.bool_)


def _check_subtraction(input: Any, other: Any) -> None:
    """PyTorch's ``sub_check`` before any kernel: a bool tensor or a bool number on either side is refused
    (``b - 1`` too, which promotion would otherwise turn into an int64 subtraction)."""
    a, b = _is_bool(input), _is_bool(other)
    if a or b:
        _refuse_bool_subtraction(a and b)


sub.operator_check = _check_subtraction  # ``x - y`` and ``y - x``: _tensor_methods.py calls it first


def _alpha_meta(op: str, x: Any, y: Any, alpha: Any = 1) -> tuple[tuple[int, ...], Any]:
    shape, dtype = im.broadcast(op, x, y)
    if op == "sub_alpha" and dtype == np.bool_:
        _refuse_bool_subtraction(True)
    _check_alpha(dtype, alpha)
    return shape, dtype


def _by_alpha(sign: int) -> Any:
    def kernel(x: np.ndarray, y: np.ndarray, alpha: Any = 1) -> np.ndarray:
        """``x + alpha * y`` in PyTorch's op math: ``alpha`` in the inputs' dtype first (a half's rounds), a half
        computed in float32, a float one multiply-add rounded once; integers exact, bools as "or"."""
        if x.dtype == np.bool_:
            return np.asarray(x | (y & bool(alpha)))
        if x.dtype.kind in "iu":
            return np.asarray(x + y * np.asarray(sign * alpha, np.int64).astype(x.dtype))  # wraps, as C++
        acc = np.float32 if x.dtype.itemsize < 4 else x.dtype.type
        a = acc(x.dtype.type(sign * alpha))
        out = array_kernels.fused_multiply_add(np.asarray(y, acc), np.full((), a, acc), np.asarray(x, acc))
        return np.asarray(out).astype(x.dtype, copy=False)
    return kernel


add_alpha_cpu = register_kernel("add_alpha", CPU, dtypes=ALL_DTYPES, name="cpu/add_alpha")(_by_alpha(1))
_SUB_BY_ALPHA = _by_alpha(-1)
register_kernel("sub_alpha", CPU, dtypes=ALL_DTYPES, name="cpu/sub_alpha")(_SUB_BY_ALPHA)  # bool: the meta refuses it
add_alpha_op = defop("add_alpha", inputs=("x", "y"), attrs=(Attr("alpha", check=_check_alpha_attr),),
                     infer_meta=_alpha_meta, transform_dtype=True, doc="x + alpha * y (add.Tensor with alpha)",
                     gpu=("param", "a + (ACC)p0 * b"))
sub_alpha_op = defop("sub_alpha", inputs=("x", "y"), attrs=(Attr("alpha", check=_check_alpha_attr),),
                     infer_meta=_alpha_meta, transform_dtype=True, doc="x - alpha * y (sub.Tensor with alpha)",
                     gpu=("param", "a - (ACC)p0 * b"))


@add_alpha_op.def_backward
@sub_alpha_op.def_backward
def _alpha_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's: ``grad`` for ``x``, ``grad * alpha`` (``-grad * alpha`` for sub) for ``y``, each summed back to
    its shape."""
    ops = ctx.ops
    gy = None
    if ctx.needs(1):
        gy = grad if ctx.node.op_name == "add_alpha" else ops.neg(grad)
        gy = ops.sum_to(ops.mul_scalar(gy, other=ctx.attrs["alpha"]), ctx.input_shape(1))
    return ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None, gy


def _alpha_form(op: Any, scaled: Any) -> Any:
    def fn(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
        if out is not None:  # NOTE [ out= ] in ops/registry.py
            return call_with_out(op.name, out, fn, (input, other), {"alpha": alpha})
        _check_alpha_attr(op.name, "alpha", 2, alpha)
        if op is sub and isinstance(input, Tensor):
            _check_subtraction(input, other)
        if alpha == 1 and not isinstance(alpha, bool):
            return op(input, other)
        if isinstance(other, Tensor):
            return scaled(input, other, alpha=alpha)
        # a number ``other`` is scaled here, as PyTorch wraps it (one edge): checked on the result's dtype first
        dtype = _number_result_dtype(input, other)
        _check_alpha(dtype, alpha)
        return op(input, bool(other * alpha) if dtype == np.bool_ else other * alpha)

    fn.__name__ = fn.__qualname__ = op.name
    fn.name = op.name  # type: ignore[attr-defined]  (as the op's, for code that reads it)
    fn.__doc__ = f"``input {'+' if op.name == 'add' else '-'} alpha * other`` (the ``{op.name}`` op; ``alpha`` defaults to 1)."
    return fn


add_form = _alpha_form(add, add_alpha_op)
sub_form = _alpha_form(sub, sub_alpha_op)


def _rsub_kernel(x: np.ndarray, y: np.ndarray, alpha: Any = 1) -> np.ndarray:
    """``y - alpha * x``: sub-with-alpha's kernel, operands swapped."""
    return _SUB_BY_ALPHA(y, x, alpha)


register_kernel("rsub", CPU, dtypes=ALL_DTYPES, name="cpu/rsub")(_rsub_kernel)  # bool: refused before the call
rsub_op = defop("rsub", inputs=("input", "other"), attrs=(Attr("alpha", default=1, check=_check_alpha_attr),),
                infer_meta=_alpha_meta, transform_dtype=True, doc="other - alpha * input (rsub.Tensor)",
                gpu=("param", "b - (ACC)p0 * a"))


@rsub_op.def_backward
def _rsub_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's ``RsubBackward0``: ``-grad * alpha`` for ``input`` (no product when alpha is 1), ``grad`` for
    ``other``, each summed back to its shape."""
    ops = ctx.ops
    gx = None
    if ctx.needs(0):
        alpha = ctx.attrs["alpha"]
        gx = ops.neg(grad) if alpha == 1 and not isinstance(alpha, bool) else ops.mul_scalar(ops.neg(grad), other=alpha)
        gx = ops.sum_to(gx, ctx.input_shape(0))
    return gx, ops.sum_to(grad, ctx.input_shape(1)) if ctx.needs(1) else None


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``torch.rsub``): ``RsubBackward0`` for a tensor ``other``, ``RsubBackward1``
    (``other - input``, one edge) for a number."""
    check_tensor("rsub", "input", 0, input)
    _check_alpha_attr("rsub", "alpha", 2, alpha)
    _check_subtraction(input, other)
    if isinstance(other, Tensor):
        return rsub_op(input, other, alpha=alpha)
    if alpha == 1 and not isinstance(alpha, bool):
        return sub(other, input)
    _check_alpha(_number_result_dtype(input, other), alpha)
    return sub_alpha_op(wrap_scalar(other, input), input, alpha=alpha)  # RsubBackward1: the number's slot has no edge


def number_minus(value: float, x: Tensor) -> Tensor:
    """``value - x`` as PyTorch's C++ ``operator-(Scalar, Tensor)`` computes it: a tensor like ``x`` filled with
    ``value``, minus ``x`` (``SubBackward0``, its first edge None), where Python's ``value - x`` is ``rsub``."""
    return sub(fill(x.detach(), float(value)), x)
