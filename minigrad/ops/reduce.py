"""Reductions: sum, mean, max, min, logsumexp over ``dim`` (all dims when ``None``), with ``keepdim``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ._checks import check_bool, check_dims
from ..autograd.formula import GRAPH_OPS
from .registry import Attr, defop, define_composite

__all__ = ["sum", "mean", "max", "min", "logsumexp"]


CPU = Backend.CPU


def _axis(x, dim):
    # A 0-d tensor takes dim 0 / -1 (InferMeta checked it): NumPy has no axis there, so reduce "all" (itself).
    return None if dim is None or x.ndim == 0 else dim


_DIM_ATTRS = (Attr("dim", None, check_dims), Attr("keepdim", False, check_bool))


def expand_back(g: Any, x_shape: tuple[int, ...], dim: Any, keepdim: bool, ops: Any = GRAPH_OPS) -> Any:
    """Broadcast a reduced gradient back to the input's shape: a composite of ``reshape`` and ``expand``."""
    dims = im.reduced_dims("sum", dim, len(x_shape))
    if not keepdim:
        g = ops.reshape(g, tuple(1 if i in dims else s for i, s in enumerate(x_shape)))
    return ops.expand(g, tuple(x_shape))


define_composite("expand_back", expand_back)


@register_kernel("sum", CPU, dtypes=ALL_DTYPES, name="cpu/sum_")  # bools count (the result is int64)
def sum_cpu(x, dim=None, keepdim=False):
    dtype = np.int64 if x.dtype.kind in "bi" else x.dtype
    # np.add.reduce is what np.sum calls, without its Python wrapper (~2 us a call).
    return np.asarray(np.add.reduce(x, axis=_axis(x, dim), dtype=dtype, keepdims=keepdim))


sum = defop(
    "sum",
    inputs=("x",),
    attrs=_DIM_ATTRS,
    infer_meta=im.reduce,
    doc="sum over dim",
    methods=("sum",),
    amp="deny",
)


@sum.def_backward
def _sum_backward(ctx, g):
    return (ctx.ops.expand_back(g, ctx.input_shape(0), ctx.attrs["dim"], ctx.attrs["keepdim"]),)


@register_kernel("mean", CPU, dtypes=FLOAT_DTYPES, name="cpu/mean")
def mean_cpu(x, dim=None, keepdim=False):
    # sum / count rather than np.mean: np.mean of an empty slice warns from inside NumPy,
    # where the kernels' warning filter (kernels/api.py) does not reach; the result is NaN either way.
    axis = _axis(x, dim)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    total = np.sum(x, axis=axis, keepdims=keepdim, dtype=x.dtype)
    return np.asarray(np.true_divide(total, count, dtype=x.dtype))


mean = defop(
    "mean",
    inputs=("x",),
    attrs=_DIM_ATTRS,
    infer_meta=im.reduce,
    doc="mean over dim",
    methods=("mean",),
    amp="deny",
)


@mean.def_backward
def _mean_backward(ctx, g):
    shape = ctx.input_shape(0)
    count = 1  # (the op ``max`` shadows the builtin in this module)
    for d in im.reduced_dims("mean", ctx.attrs["dim"], len(shape)):
        count *= shape[d]
    ops = ctx.ops
    spread = ops.expand_back(g, shape, ctx.attrs["dim"], ctx.attrs["keepdim"])
    return (ops.div(spread, float(count if count > 0 else 1)),)


def _extreme_backward(ctx, g):
    """Gradient of max/min: shared equally among the positions that attain it."""
    x, out = ctx.saved()
    ops = ctx.ops
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    out_b = ops.expand_back(out, x.shape, dim, keepdim)
    mask = ops.cast(ops.eq(x, out_b), g.dtype)
    count = ops.expand_back(ops.sum(mask, dim=dim, keepdim=keepdim), x.shape, dim, keepdim)
    return (ops.div(ops.mul(ops.expand_back(g, x.shape, dim, keepdim), mask), count),)


@register_kernel("max", CPU, dtypes=NUMERIC_DTYPES, name="cpu/max_")
def max_cpu(x, dim=None, keepdim=False):
    return np.asarray(np.max(x, axis=_axis(x, dim), keepdims=keepdim))


max = defop(
    "max",
    inputs=("x",),
    attrs=_DIM_ATTRS,
    infer_meta=im.reduce,
    save=("x", "out"),
    doc="max over dim",
    methods=("max",),
)
max.def_backward(_extreme_backward)
@register_kernel("min", CPU, dtypes=NUMERIC_DTYPES, name="cpu/min_")
def min_cpu(x, dim=None, keepdim=False):
    return np.asarray(np.min(x, axis=_axis(x, dim), keepdims=keepdim))


min = defop(
    "min",
    inputs=("x",),
    attrs=_DIM_ATTRS,
    infer_meta=im.reduce,
    save=("x", "out"),
    doc="min over dim",
    methods=("min",),
)
min.def_backward(_extreme_backward)

@register_kernel("logsumexp", CPU, dtypes=FLOAT_DTYPES, name="cpu/logsumexp")
def logsumexp_cpu(x, dim=None, keepdim=False):
    axis = _axis(x, dim)
    if x.size == 0:  # an empty sum is 0, its log -inf (as PyTorch); np.max has no identity to shift by
        return np.asarray(np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdim)), dtype=x.dtype)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    if not keepdim:
        out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return np.asarray(out, dtype=x.dtype)


logsumexp = defop(
    "logsumexp", inputs=("x",), attrs=_DIM_ATTRS, infer_meta=im.reduce, save=("x", "out"), promote="float",
    doc="log(sum(exp(x))) over dim, computed stably",
    methods=("logsumexp",), amp="deny",
)


@logsumexp.def_backward
def _logsumexp_backward(ctx, g):
    x, out = ctx.saved()
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    ops = ctx.ops
    spread = ops.expand_back(g, x.shape, dim, keepdim)
    return (ops.mul(spread, ops.exp(ops.sub(x, ops.expand_back(out, x.shape, dim, keepdim)))),)
