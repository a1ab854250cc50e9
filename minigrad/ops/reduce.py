"""Reductions: sum, mean, max, min, logsumexp over ``dim`` (all dims when ``None``), with ``keepdim``."""

from __future__ import annotations

from typing import Any

from ..kernels import infer_meta as im
from ._checks import check_bool, check_dims
from .math import cast, div, eq, exp, mul, sub
from .registry import Attr, defop

__all__ = ["sum", "mean", "max", "min", "logsumexp", "expand_back"]

_DIM_ATTRS = (Attr("dim", None, check_dims), Attr("keepdim", False, check_bool))


def expand_back(g: Any, x_shape: tuple[int, ...], dim: Any, keepdim: bool) -> Any:
    """Broadcast a reduced gradient back to the input's shape (differentiably)."""
    from .shape import expand, reshape

    dims = im.normalize_dims("sum", dim, len(x_shape))
    if not keepdim:
        g = reshape(g, tuple(1 if i in dims else s for i, s in enumerate(x_shape)))
    return expand(g, tuple(x_shape))


sum = defop("sum", inputs=("x",), attrs=_DIM_ATTRS, infer_meta=im.reduce, doc="sum over dim")


@sum.def_backward
def _sum_backward(ctx, g):
    shape = ctx.node.next_edges[0][0].shape
    return (expand_back(g, shape, ctx.attrs["dim"], ctx.attrs["keepdim"]),)


mean = defop("mean", inputs=("x",), attrs=_DIM_ATTRS, infer_meta=im.reduce, doc="mean over dim")


@mean.def_backward
def _mean_backward(ctx, g):
    shape = ctx.node.next_edges[0][0].shape
    dims = im.normalize_dims("mean", ctx.attrs["dim"], len(shape))
    count = 1  # (the op ``max`` shadows the builtin in this module)
    for d in dims:
        count *= shape[d]
    return (div(expand_back(g, shape, ctx.attrs["dim"], ctx.attrs["keepdim"]), float(count if count > 0 else 1)),)


def _extreme_backward(ctx, g):
    """Gradient of max/min: shared equally among the positions that attain it."""
    x, out = ctx.saved()
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    out_b = expand_back(out, x.shape, dim, keepdim)
    mask = cast(eq(x, out_b), g.dtype)
    count = expand_back(sum(mask, dim=dim, keepdim=keepdim), x.shape, dim, keepdim)
    return (div(mul(expand_back(g, x.shape, dim, keepdim), mask), count),)


max = defop("max", inputs=("x",), attrs=_DIM_ATTRS, infer_meta=im.reduce, save=("x", "out"), doc="max over dim")
max.def_backward(_extreme_backward)
min = defop("min", inputs=("x",), attrs=_DIM_ATTRS, infer_meta=im.reduce, save=("x", "out"), doc="min over dim")
min.def_backward(_extreme_backward)

logsumexp = defop(
    "logsumexp", inputs=("x",), attrs=_DIM_ATTRS, infer_meta=im.reduce, save=("x", "out"), promote="float",
    doc="log(sum(exp(x))) over dim, computed stably",
)


@logsumexp.def_backward
def _logsumexp_backward(ctx, g):
    x, out = ctx.saved()
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    return (mul(expand_back(g, x.shape, dim, keepdim), exp(sub(x, expand_back(out, x.shape, dim, keepdim)))),)
