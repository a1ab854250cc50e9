"""Elementwise ops: arithmetic, unary math, activations, comparisons, where, clip, casts.

Each op is defined once here: its CPU kernel (NumPy), API signature,
InferMeta (a shared rule from ``kernels/infer_meta.py``), backward formula,
tensor methods and operators, AMP category and GPU elementwise expression
(the CUDA templates in ``kernels/gpu/cuda_src.py`` are filled from it). Backward formulas use minigrad ops, so with
``create_graph=True`` they are themselves recorded and differentiable.
Broadcasting is undone in backward by ``sum_to`` (sum over broadcast dims).

The hot binary ops (add, sub, mul, div, maximum, minimum, where) and the
common unary ones (neg, exp, log, sqrt, tanh, sigmoid, relu) also have a
fused array formula (``def_backward_arrays``): the same NumPy calls as the
op formula's kernels, made directly on arrays, ``sum_to`` included
(``sum_to_array``), so the same bits with one Python call instead of one
dispatch per op. The engine runs it only when nothing observes the ops
(no recorder, no ``create_graph``); it declines inputs whose dtype differs
from the gradient's, where the op formula casts gradients back.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ._checks import check_number_or_none
from ..autograd.engine import GRAPH_OPS
from .registry import OPS, Attr, Input, defop

__all__ = [
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "abs", "sign", "sin", "cos", "tanh",
    "sigmoid", "relu", "gelu", "erf", "maximum", "minimum", "where", "clip", "eq", "ne", "lt", "le", "gt",
    "ge", "cast", "clone", "fill", "sum_to",
]


CPU = Backend.CPU


def _ufunc(ufunc: np.ufunc):
    """A NumPy ufunc as a kernel. Ufuncs return NumPy *scalars* for 0-d inputs, which are
    immutable (in-place ops could not write into them); kernels always return arrays."""

    def kernel(*args):
        return np.asarray(ufunc(*args))

    kernel.__name__ = ufunc.__name__
    kernel.__doc__ = f"``numpy.{ufunc.__name__}`` (0-d results as arrays)."
    return kernel


_erf = np.frompyfunc(math.erf, 1, 1)



def sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``g`` down to ``shape`` (undo broadcasting), with minigrad ops."""
    if g.shape == tuple(shape):
        return g
    # sum and reshape are defined in reduce.py and shape.py, whose backward
    # formulas use this module's ops: found by name when called.
    _sum, reshape = OPS["sum"], OPS["reshape"]
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
    )
    out = _sum(g, dim=dims, keepdim=True) if dims else g
    return reshape(out, tuple(shape))


GRAPH_OPS.define("sum_to", sum_to)  # ctx.ops.sum_to: a composite of sum and reshape


def sum_to_array(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``sum_to`` on a NumPy array, for fused backward formulas.

    The same ``np.sum`` reduction the ``sum`` op's kernel makes, over the same
    dims: the same bits as ``sum_to`` (a float sum's rounding depends on the
    order it adds in, so the reduction must be the very same one; ``keepdims``
    only shapes its result). Where ``keepdims`` alone gives ``shape`` the
    result is returned as it is, not as a reshaped view, so ``.grad`` can take
    it without a copy (NOTE [ The first .grad without a copy ]).
    """
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    inner = tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    dims = tuple(range(lead)) + inner
    if not dims:
        return g.reshape(shape)
    out = np.sum(g, axis=dims, keepdims=bool(inner), dtype=g.dtype)
    return out if out.shape == shape else out.reshape(shape)


def inputs_in_dtype(ctx: Any, dtype: np.dtype, slots: tuple[int, ...] = (0, 1)) -> bool:
    """Whether the inputs at ``slots`` all have the gradient's dtype.

    A fused formula declines (returns None) otherwise: an input promoted to
    another dtype (``x_f32 * y_f64``) gets its gradient cast back by the op
    formula (``_grads_in_input_dtypes``), and a saved input of another dtype
    would be cast before the op formula's arithmetic.
    """
    edges = ctx.node.next_edges
    for slot in slots:
        d = edges[slot][0].dtype
        if d is None or d.np is not dtype:
            return False
    return True


def _binary(name: str, **kw: Any):
    return defop(name, inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, transform_dtype=True, **kw)


# -- arithmetic ---------------------------------------------------------------

# On bools add is "or", mul is "and" (as in PyTorch); bool - bool has no kernel (PyTorch refuses it too).
register_kernel("add", CPU, dtypes=ALL_DTYPES)(_ufunc(np.add))


add = _binary(
    "add",
    doc="x + y",
    methods=("add",),
    operators=("__add__", "__radd__"),
    gpu=("binary", "a + b"),
)


@add.def_backward
def _add_backward(ctx, g):
    (x_shape, y_shape) = (e[0].shape for e in ctx.node.next_edges)
    return (sum_to(g, x_shape) if ctx.needs(0) else None, sum_to(g, y_shape) if ctx.needs(1) else None)


@add.def_backward_arrays
def _add_backward_arrays(ctx, g):
    if not inputs_in_dtype(ctx, g.dtype):
        return None
    gx = sum_to_array(g, ctx.input_shape(0)) if ctx.needs(0) else None
    gy = sum_to_array(g, ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


register_kernel("sub", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.subtract))


sub = _binary(
    "sub",
    doc="x - y",
    methods=("sub",),
    operators=("__sub__", "__rsub__"),
    gpu=("binary", "a - b"),
)


@sub.def_backward
def _sub_backward(ctx, g):
    (x_shape, y_shape) = (e[0].shape for e in ctx.node.next_edges)
    return (sum_to(g, x_shape) if ctx.needs(0) else None, sum_to(neg(g), y_shape) if ctx.needs(1) else None)


@sub.def_backward_arrays
def _sub_backward_arrays(ctx, g):
    if not inputs_in_dtype(ctx, g.dtype):
        return None
    gx = sum_to_array(g, ctx.input_shape(0)) if ctx.needs(0) else None
    gy = sum_to_array(np.negative(g), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


register_kernel("mul", CPU, dtypes=ALL_DTYPES)(_ufunc(np.multiply))


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
def _mul_backward(ctx, g):
    x, y = ctx.saved()  # x is None when y needs no gradient, and y when x needs none (save_for)
    return (
        sum_to(mul(g, y), ctx.input_shape(0)) if ctx.needs(0) else None,
        sum_to(mul(g, x), ctx.input_shape(1)) if ctx.needs(1) else None,
    )


@mul.def_backward_arrays
def _mul_backward_arrays(ctx, g):
    if not inputs_in_dtype(ctx, g.dtype):
        return None
    x, y = ctx.saved()  # x is None when y needs no gradient, and y when x needs none (save_for)
    gx = sum_to_array(np.multiply(g, y._data), ctx.input_shape(0)) if ctx.needs(0) else None
    gy = sum_to_array(np.multiply(g, x._data), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


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
    operators=("__truediv__", "__rtruediv__"),
    gpu=("binary", "a / b"),
)


@div.def_backward
def _div_backward(ctx, g):
    x, y = ctx.saved()
    gx = sum_to(div(g, y), ctx.input_shape(0)) if ctx.needs(0) else None
    gy = sum_to(neg(div(mul(g, x), mul(y, y))), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


@div.def_backward_arrays
def _div_backward_arrays(ctx, g):
    if not inputs_in_dtype(ctx, g.dtype):
        return None
    x, y = ctx.saved()  # x is None when y needs no gradient (save_for)
    gx = sum_to_array(np.divide(g, y._data), ctx.input_shape(0)) if ctx.needs(0) else None
    if ctx.needs(1):
        xa, ya = x._data, y._data
        gy = sum_to_array(np.negative(np.divide(np.multiply(g, xa), np.multiply(ya, ya))), ctx.input_shape(1))
    else:
        gy = None
    return gx, gy


@register_kernel("pow", CPU, dtypes=NUMERIC_DTYPES, name="cpu/pow_")
def pow_cpu(x, y):
    if x.dtype.kind == "i" and np.any(y < 0):
        raise ValueError("pow(): integers to negative integer powers are not allowed")
    return np.asarray(np.power(x, y))


pow = _binary(
    "pow",
    save=("x", "y", "out"),
    save_for={"out": (1,)},  # x ** y is needed for y's gradient only (PyTorch keeps it only then)
    doc="x ** y",
    methods=("pow",),
    operators=("__pow__", "__rpow__"),
    amp="deny",
    gpu=("binary", "{pow}(a, b)"),
)


@pow.def_backward
def _pow_backward(ctx, g):
    x, y, out = ctx.saved()
    # d/dx x**y = y * x**(y-1); where y == 0 the exponent is replaced by 1 so the product is
    # 0 * x = 0 (x**0 is constant), not 0 * 0**-1 = nan at x == 0.
    gx = sum_to(mul(g, mul(y, pow(x, where(eq(y, 0), 1, sub(y, 1))))), x.shape) if ctx.needs(0) else None
    # d/dy x**y = x**y * log(x).
    gy = None
    if ctx.needs(1):
        # PyTorch's rule: 0 only where x == 0 and y >= 0 (0**y is flat there); elsewhere x**y * log(x)
        # as it is, so a negative base gives nan and 0**y with y < 0 gives inf * -inf = -inf.
        at_zero = eq(x, 0)
        flat = where(at_zero, ge(y, 0), at_zero)  # x == 0 and y >= 0
        gy = sum_to(mul(g, where(flat, 0, mul(out, log(where(flat, 1, x))))), y.shape)
    return gx, gy


def _select_backward(wins: Any):
    """Backward of maximum/minimum: the gradient goes to the winning input; ties split it.

    As PyTorch: an input gets the gradient unless it strictly loses (half of it on a tie), so where
    either side is NaN (no comparison holds) both inputs get the whole gradient.
    """

    def backward(ctx, g):
        x, y = ctx.saved()
        tie = mul(cast(eq(x, y), g.dtype), 0.5)
        wx = sub(sub(1, cast(wins(y, x), g.dtype)), tie)  # 1 unless y wins, 1/2 on a tie
        wy = sub(sub(1, cast(wins(x, y), g.dtype)), tie)
        gx = sum_to(mul(g, wx), x.shape) if ctx.needs(0) else None
        gy = sum_to(mul(g, wy), y.shape) if ctx.needs(1) else None
        return gx, gy

    return backward


def _select_backward_arrays(wins: Any):
    """The fused form of ``_select_backward`` (``wins`` a NumPy comparison): each op's kernel call, in order."""

    def backward(ctx, g):
        if not inputs_in_dtype(ctx, g.dtype):
            return None
        x, y = (t._data for t in ctx.saved())
        dt = g.dtype
        one = np.asarray(1, dtype=dt)  # the Python numbers, wrapped in g's dtype as the op formula's are
        tie = np.multiply(np.equal(x, y).astype(dt), np.asarray(0.5, dtype=dt))
        gx = gy = None
        if ctx.needs(0):
            gx = sum_to_array(np.multiply(g, np.subtract(np.subtract(one, wins(y, x).astype(dt)), tie)), x.shape)
        if ctx.needs(1):
            gy = sum_to_array(np.multiply(g, np.subtract(np.subtract(one, wins(x, y).astype(dt)), tie)), y.shape)
        return gx, gy

    return backward


register_kernel("maximum", CPU, dtypes=ALL_DTYPES)(_ufunc(np.maximum))


maximum = _binary(
    "maximum",
    save=("x", "y"),
    doc="elementwise max; ties split the gradient",
    methods=("maximum",),
    gpu=("binary", "(a != a) ? a : ((b != b) ? b : (a > b ? a : b))"),
)
maximum.def_backward(_select_backward(lambda x, y: gt(x, y)))
maximum.def_backward_arrays(_select_backward_arrays(np.greater))
register_kernel("minimum", CPU, dtypes=ALL_DTYPES)(_ufunc(np.minimum))


minimum = _binary(
    "minimum",
    save=("x", "y"),
    doc="elementwise min; ties split the gradient",
    methods=("minimum",),
    gpu=("binary", "(a != a) ? a : ((b != b) ? b : (a < b ? a : b))"),
)
minimum.def_backward(_select_backward(lambda x, y: lt(x, y)))
minimum.def_backward_arrays(_select_backward_arrays(np.less))


# -- unary ----------------------------------------------------------------------

register_kernel("neg", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.negative))


neg = defop(
    "neg",
    inputs=("x",),
    infer_meta=im.same,
    doc="-x",
    methods=("neg",),
    operators=("__neg__",),
    gpu=("unary", "-a"),
)
neg.def_backward(lambda ctx, g: (neg(g),))
neg.def_backward_arrays(lambda ctx, g: (np.negative(g),))

register_kernel("exp", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.exp))


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
exp.def_backward(lambda ctx, g: (mul(g, ctx.saved()[0]),))


def _saved_array(ctx: Any, g: np.ndarray) -> np.ndarray | None:
    """The one saved tensor's array when it has the gradient's dtype (else None: the fused formula declines)."""
    a = ctx.saved()[0]._data
    return a if a.dtype is g.dtype else None


@exp.def_backward_arrays
def _exp_backward_arrays(ctx, g):
    out = _saved_array(ctx, g)
    return None if out is None else (np.multiply(g, out),)

register_kernel("log", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.log))


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
log.def_backward(lambda ctx, g: (div(g, ctx.saved()[0]),))


@log.def_backward_arrays
def _log_backward_arrays(ctx, g):
    x = _saved_array(ctx, g)
    return None if x is None else (np.divide(g, x),)

register_kernel("sqrt", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.sqrt))


sqrt = defop(
    "sqrt",
    inputs=("x",),
    infer_meta=im.same,
    save=("out",),
    promote="float",
    methods=("sqrt",),
    gpu=("unary", "{sqrt}(a)"),
)
sqrt.def_backward(lambda ctx, g: (div(g, mul(ctx.saved()[0], 2)),))


@sqrt.def_backward_arrays
def _sqrt_backward_arrays(ctx, g):
    out = _saved_array(ctx, g)
    return None if out is None else (np.divide(g, np.multiply(out, np.asarray(2, dtype=g.dtype))),)

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
sign.def_backward(lambda ctx, g: (mul(g, 0),))

register_kernel("abs", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.abs))


abs = defop(
    "abs",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    methods=("abs",),
    operators=("__abs__",),
    gpu=("unary", "{fabs}(a)"),
)
abs.def_backward(lambda ctx, g: (mul(g, sign(ctx.saved()[0])),))

register_kernel("sin", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.sin))


sin = defop(
    "sin",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    methods=("sin",),
    gpu=("unary", "{sin}(a)"),
)
sin.def_backward(lambda ctx, g: (mul(g, cos(ctx.saved()[0])),))

register_kernel("cos", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.cos))


cos = defop(
    "cos",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    methods=("cos",),
    gpu=("unary", "{cos}(a)"),
)
cos.def_backward(lambda ctx, g: (neg(mul(g, sin(ctx.saved()[0]))),))

register_kernel("tanh", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.tanh))


tanh = defop(
    "tanh",
    inputs=("x",),
    infer_meta=im.same,
    save=("out",),
    promote="float",
    methods=("tanh",),
    gpu=("unary", "{tanh}(a)"),
)
tanh.def_backward(lambda ctx, g: (mul(g, sub(1, mul(ctx.saved()[0], ctx.saved()[0]))),))


@tanh.def_backward_arrays
def _tanh_backward_arrays(ctx, g):
    """PyTorch's ``tanh_backward``: ``g * (1 - out * out)``."""
    out = _saved_array(ctx, g)
    return None if out is None else (np.multiply(g, np.subtract(np.asarray(1, dtype=g.dtype), np.multiply(out, out))),)

@register_kernel("sigmoid", CPU, dtypes=FLOAT_DTYPES, name="cpu/sigmoid")
def sigmoid_cpu(x):
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.asarray(np.where(x >= 0, 1 / (1 + e), e / (1 + e)), dtype=x.dtype)


sigmoid = defop(
    "sigmoid",
    inputs=("x",),
    infer_meta=im.same,
    save=("out",),
    promote="float",
    methods=("sigmoid",),
    gpu=("unary", "(a >= (ACC)0 ? (ACC)1 : {exp}(-{fabs}(a))) / ((ACC)1 + {exp}(-{fabs}(a)))"),
)


@sigmoid.def_backward
def _sigmoid_backward(ctx, g):
    (s,) = ctx.saved()
    return (mul(g, mul(s, sub(1, s))),)


@sigmoid.def_backward_arrays
def _sigmoid_backward_arrays(ctx, g):
    """PyTorch's ``sigmoid_backward``: ``g * out * (1 - out)``."""
    s = _saved_array(ctx, g)
    return None if s is None else (np.multiply(g, np.multiply(s, np.subtract(np.asarray(1, dtype=g.dtype), s))),)


@register_kernel("relu", CPU, dtypes=NUMERIC_DTYPES, name="cpu/relu")
def relu_cpu(x):
    return np.asarray(np.maximum(x, 0), dtype=x.dtype)


relu = defop(
    "relu",
    inputs=("x",),
    infer_meta=im.same,
    save=("out",),
    methods=("relu",),
    gpu=("unary", "(a > (ACC)0 || a != a) ? a : (ACC)0"),
)
# PyTorch's threshold_backward: the gradient passes unless x <= 0, so a NaN input passes it on.
relu.def_backward(lambda ctx, g: (mul(g, sub(1, cast(le(ctx.saved()[0], 0), g.dtype))),))
relu.def_backward_arrays(lambda ctx, g: (np.multiply(g, ~(ctx.saved()[0]._data <= 0), dtype=g.dtype),))

@register_kernel("erf", CPU, dtypes=FLOAT_DTYPES, name="cpu/erf")
def erf_cpu(x):
    return np.asarray(_erf(x), dtype=x.dtype)  # frompyfunc gives a Python float for 0-d input


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
erf.def_backward(lambda ctx, g: (mul(g, mul(exp(neg(mul(ctx.saved()[0], ctx.saved()[0]))), _TWO_OVER_SQRT_PI)),))

@register_kernel("gelu", CPU, dtypes=FLOAT_DTYPES, name="cpu/gelu")
def gelu_cpu(x):
    # Exact GELU, x * Phi(x), as PyTorch's default.
    return np.asarray(0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=x.dtype)), dtype=x.dtype)


gelu = defop(
    "gelu",
    inputs=("x",),
    infer_meta=im.same,
    save=("x",),
    promote="float",
    doc="exact GELU: x * Phi(x)",
    methods=("gelu",),
    gpu=("unary", "(ACC)0.5 * a * ((ACC)1 + {erf}(a * (ACC)0.7071067811865476))"),
)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@gelu.def_backward
def _gelu_backward(ctx, g):
    (x,) = ctx.saved()
    cdf = mul(add(erf(mul(x, _INV_SQRT2)), 1), 0.5)
    pdf = mul(exp(mul(mul(x, x), -0.5)), _INV_SQRT_2PI)
    return (mul(g, add(cdf, mul(x, pdf))),)


# -- comparisons (no gradient) ---------------------------------------------------


def _compare(name: str, **kw: Any):
    return defop(name, inputs=("x", "y"), infer_meta=im.compare, scalars=True, transform_dtype=True, **kw)


register_kernel(("eq",), CPU, dtypes=ALL_DTYPES)(_ufunc(np.equal))


eq = _compare("eq", methods=("eq",), operators=("__eq__",), gpu=("compare", "a == b"))
register_kernel(("ne",), CPU, dtypes=ALL_DTYPES)(_ufunc(np.not_equal))


ne = _compare("ne", methods=("ne",), operators=("__ne__",), gpu=("compare", "a != b"))
register_kernel(("lt",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.less))


lt = _compare("lt", methods=("lt",), operators=("__lt__",), gpu=("compare", "a < b"))
register_kernel(("le",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.less_equal))


le = _compare("le", methods=("le",), operators=("__le__",), gpu=("compare", "a <= b"))
register_kernel(("gt",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.greater))


gt = _compare("gt", methods=("gt",), operators=("__gt__",), gpu=("compare", "a > b"))
register_kernel(("ge",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.greater_equal))


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
def _where_backward(ctx, g):
    (cond,) = ctx.saved()
    x_shape, y_shape = ctx.node.next_edges[1][0].shape, ctx.node.next_edges[2][0].shape
    zero = fill(g, 0)
    gx = sum_to(where(cond, g, zero), x_shape) if ctx.needs(1) else None
    gy = sum_to(where(cond, zero, g), y_shape) if ctx.needs(2) else None
    return None, gx, gy


@where.def_backward_arrays
def _where_backward_arrays(ctx, g):
    if not inputs_in_dtype(ctx, g.dtype, (1, 2)):
        return None
    cond = ctx.saved()[0]._data
    zero = np.zeros(g.shape, dtype=g.dtype)  # fill(g, 0)'s kernel: the same +0.0 everywhere
    gx = sum_to_array(np.where(cond, g, zero), ctx.input_shape(1)) if ctx.needs(1) else None
    gy = sum_to_array(np.where(cond, zero, g), ctx.input_shape(2)) if ctx.needs(2) else None
    return None, gx, gy


def _clip_meta(op: str, x: Any, min: Any = None, max: Any = None) -> Any:
    """Like x; an integer tensor clamped to float bounds becomes float32 (as in PyTorch)."""
    if x.dtype.kind != "f" and any(isinstance(b, float) for b in (min, max)):
        return x.shape, _dt.float32.np
    return x.shape, x.dtype


@register_kernel("clip", CPU, dtypes=NUMERIC_DTYPES, name="cpu/clip")
def clip_cpu(x, min=None, max=None):
    # An integer tensor with a float bound is clamped in float32 (InferMeta says so too).
    dtype = np.float32 if x.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)) else x.dtype
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
def _clip_backward(ctx, g):
    (x,) = ctx.saved()
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    inside = g
    if lo is not None:
        inside = mul(inside, cast(ge(x, lo), g.dtype))
    if hi is not None:
        inside = mul(inside, cast(le(x, hi), g.dtype))
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
def _cast_backward(ctx, g):
    return (cast(g, ctx.node.next_edges[0][0].dtype),)


@register_kernel("clone", CPU, dtypes=ALL_DTYPES, name="cpu/clone")
def clone_cpu(x):
    return x.copy()


clone = defop("clone", inputs=("x",), infer_meta=im.same, doc="a copy that stays in the graph")
clone.def_backward(lambda ctx, g: (g,))


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
    attrs=(Attr("value", check=_check_fill_value),),
    infer_meta=im.same,
    doc="a tensor like x filled with value (the op behind zero_/fill_); its gradient w.r.t. x is 0",
)
fill.def_backward(lambda ctx, g: (mul(g, 0),))
