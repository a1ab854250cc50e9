"""Elementwise ops: arithmetic, unary math, activations, comparisons, where, clip, casts.

Each op is defined once here (API signature, InferMeta, backward formula);
its kernels are registered under the same name in ``kernels/cpu`` (and
``kernels/gpu``). Backward formulas use minigrad ops, so with
``create_graph=True`` they are themselves recorded and differentiable.
Broadcasting is undone in backward by ``sum_to`` (sum over broadcast dims).
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as _dt
from ..kernels import infer_meta as im
from ._checks import check_number_or_none
from .registry import Attr, Input, defop

__all__ = [
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "abs", "sign", "sin", "cos", "tanh",
    "sigmoid", "relu", "gelu", "erf", "maximum", "minimum", "where", "clip", "eq", "ne", "lt", "le", "gt",
    "ge", "cast", "clone", "fill", "sum_to",
]


def sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``g`` down to ``shape`` (undo broadcasting), with minigrad ops."""
    if g.shape == tuple(shape):
        return g
    from .reduce import sum as _sum
    from .shape import reshape

    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
    )
    out = _sum(g, dim=dims, keepdim=True) if dims else g
    return reshape(out, tuple(shape))


def _binary(name: str, **kw: Any):
    return defop(name, inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, transform_dtype=True, **kw)


# -- arithmetic ---------------------------------------------------------------

add = _binary("add", doc="x + y")


@add.def_backward
def _add_backward(ctx, g):
    (x_shape, y_shape) = (e[0].shape for e in ctx.node.next_edges)
    return (sum_to(g, x_shape) if ctx.needs(0) else None, sum_to(g, y_shape) if ctx.needs(1) else None)


sub = _binary("sub", doc="x - y")


@sub.def_backward
def _sub_backward(ctx, g):
    (x_shape, y_shape) = (e[0].shape for e in ctx.node.next_edges)
    return (sum_to(g, x_shape) if ctx.needs(0) else None, sum_to(neg(g), y_shape) if ctx.needs(1) else None)


mul = _binary("mul", save=("x", "y"), doc="x * y")


@mul.def_backward
def _mul_backward(ctx, g):
    x, y = ctx.saved()
    return (sum_to(mul(g, y), x.shape) if ctx.needs(0) else None, sum_to(mul(g, x), y.shape) if ctx.needs(1) else None)


div = _binary("div", save=("x", "y"), promote="float", doc="x / y (true division)")


@div.def_backward
def _div_backward(ctx, g):
    x, y = ctx.saved()
    gx = sum_to(div(g, y), x.shape) if ctx.needs(0) else None
    gy = sum_to(neg(div(mul(g, x), mul(y, y))), y.shape) if ctx.needs(1) else None
    return gx, gy


pow = _binary("pow", save=("x", "y", "out"), doc="x ** y")


@pow.def_backward
def _pow_backward(ctx, g):
    x, y, out = ctx.saved()
    # d/dx x**y = y * x**(y-1); where y == 0 the exponent is replaced by 1 so the product is
    # 0 * x = 0 (x**0 is constant), not 0 * 0**-1 = nan at x == 0.
    gx = sum_to(mul(g, mul(y, pow(x, where(eq(y, 0), 1, sub(y, 1))))), x.shape) if ctx.needs(0) else None
    # d/dy x**y = x**y * log(x); taken as 0 where x == 0 (as PyTorch does).
    gy = None
    if ctx.needs(1):
        safe_log = log(where(gt(x, 0), x, 1))
        gy = sum_to(mul(g, mul(out, safe_log)), y.shape)
    return gx, gy


def _select_backward(wins: Any):
    """Backward of maximum/minimum: the gradient goes to the winning input; ties split it."""

    def backward(ctx, g):
        x, y = ctx.saved()
        wx = add(cast(wins(x, y), g.dtype), mul(cast(eq(x, y), g.dtype), 0.5))
        gx = sum_to(mul(g, wx), x.shape) if ctx.needs(0) else None
        gy = sum_to(mul(g, sub(1, wx)), y.shape) if ctx.needs(1) else None
        return gx, gy

    return backward


maximum = _binary("maximum", save=("x", "y"), doc="elementwise max; ties split the gradient")
maximum.def_backward(_select_backward(lambda x, y: gt(x, y)))
minimum = _binary("minimum", save=("x", "y"), doc="elementwise min; ties split the gradient")
minimum.def_backward(_select_backward(lambda x, y: lt(x, y)))


# -- unary ----------------------------------------------------------------------

neg = defop("neg", inputs=("x",), infer_meta=im.same, doc="-x")
neg.def_backward(lambda ctx, g: (neg(g),))

exp = defop("exp", inputs=("x",), infer_meta=im.same, save=("out",), promote="float")
exp.def_backward(lambda ctx, g: (mul(g, ctx.saved()[0]),))

log = defop("log", inputs=("x",), infer_meta=im.same, save=("x",), promote="float")
log.def_backward(lambda ctx, g: (div(g, ctx.saved()[0]),))

sqrt = defop("sqrt", inputs=("x",), infer_meta=im.same, save=("out",), promote="float")
sqrt.def_backward(lambda ctx, g: (div(g, mul(ctx.saved()[0], 2)),))

sign = defop("sign", inputs=("x",), infer_meta=im.same, doc="sign of x; its derivative is 0")
sign.def_backward(lambda ctx, g: (mul(g, 0),))

abs = defop("abs", inputs=("x",), infer_meta=im.same, save=("x",))
abs.def_backward(lambda ctx, g: (mul(g, sign(ctx.saved()[0])),))

sin = defop("sin", inputs=("x",), infer_meta=im.same, save=("x",), promote="float")
sin.def_backward(lambda ctx, g: (mul(g, cos(ctx.saved()[0])),))

cos = defop("cos", inputs=("x",), infer_meta=im.same, save=("x",), promote="float")
cos.def_backward(lambda ctx, g: (neg(mul(g, sin(ctx.saved()[0]))),))

tanh = defop("tanh", inputs=("x",), infer_meta=im.same, save=("out",), promote="float")
tanh.def_backward(lambda ctx, g: (mul(g, sub(1, mul(ctx.saved()[0], ctx.saved()[0]))),))

sigmoid = defop("sigmoid", inputs=("x",), infer_meta=im.same, save=("out",), promote="float")


@sigmoid.def_backward
def _sigmoid_backward(ctx, g):
    (s,) = ctx.saved()
    return (mul(g, mul(s, sub(1, s))),)


relu = defop("relu", inputs=("x",), infer_meta=im.same, save=("out",))
relu.def_backward(lambda ctx, g: (mul(g, cast(gt(ctx.saved()[0], 0), g.dtype)),))

erf = defop("erf", inputs=("x",), infer_meta=im.same, save=("x",), promote="float")
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
erf.def_backward(lambda ctx, g: (mul(g, mul(exp(neg(mul(ctx.saved()[0], ctx.saved()[0]))), _TWO_OVER_SQRT_PI)),))

gelu = defop("gelu", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", doc="exact GELU: x * Phi(x)")
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@gelu.def_backward
def _gelu_backward(ctx, g):
    (x,) = ctx.saved()
    cdf = mul(add(erf(mul(x, _INV_SQRT2)), 1), 0.5)
    pdf = mul(exp(mul(mul(x, x), -0.5)), _INV_SQRT_2PI)
    return (mul(g, add(cdf, mul(x, pdf))),)


# -- comparisons (no gradient) ---------------------------------------------------


def _compare(name: str):
    return defop(name, inputs=("x", "y"), infer_meta=im.compare, scalars=True, transform_dtype=True)


eq = _compare("eq")
ne = _compare("ne")
lt = _compare("lt")
le = _compare("le")
gt = _compare("gt")
ge = _compare("ge")

# -- selection ----------------------------------------------------------------------

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


def _clip_meta(op: str, x: Any, min: Any = None, max: Any = None) -> Any:
    """Like x; an integer tensor clamped to float bounds becomes float32 (as in PyTorch)."""
    if x.dtype.kind != "f" and any(isinstance(b, float) for b in (min, max)):
        return x.shape, _dt.float32.np
    return x.shape, x.dtype


clip = defop(
    "clip",
    inputs=("x",),
    attrs=(Attr("min", None, check_number_or_none), Attr("max", None, check_number_or_none)),
    infer_meta=_clip_meta,
    save=("x",),
    doc="clamp x into [min, max]",
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


cast = defop("cast", inputs=("x",), attrs=(Attr("dtype", check=_check_dtype),), infer_meta=_cast_meta,
             save=(), key_inputs=(0,), doc="convert to another dtype")


@cast.def_backward
def _cast_backward(ctx, g):
    return (cast(g, ctx.node.next_edges[0][0].dtype),)


clone = defop("clone", inputs=("x",), infer_meta=im.same, doc="a copy that stays in the graph")
clone.def_backward(lambda ctx, g: (g,))

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
