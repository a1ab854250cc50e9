"""Reductions: sum, mean, max, min, logsumexp over ``dim`` (all dims when ``None``), with ``keepdim``; and
PyTorch's reduction forms built on them (composites).

The registered ops ``max``/``min`` (``OPS["max"]``, bound here as ``_max_op``/``_min_op``)
reduce to values only. ``mg.max``/``mg.min`` are PyTorch's forms: with an int
``dim`` they give a ``(values, indices)`` named tuple, with a Tensor second
argument the elementwise ``maximum``/``minimum``. ``amax``/``amin``, ``var``/``std``
(with ``correction``), ``var_mean``/``std_mean``, ``nansum``/``nanmean`` and
``aminmax`` are composites: their gradient, events and grad nodes are those of
the ops they are made of (``var`` shows up in a trace as ``mean``, ``sub``,
``mul``, ``sum`` and ``div`` nodes), as PyTorch's ``CompositeImplicitAutograd`` ops.

Example:
    >>> import minigrad as mg
    >>> v, i = mg.max(mg.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)
    >>> v.tolist(), i.tolist()
    ([5.0, 7.0], [1, 0])
"""

from __future__ import annotations

from typing import Any

import builtins
import math
from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.backends import to_numpy
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.special import row_max
from ..tensor import Tensor
from ._checks import check_bool, check_dims, check_tensor, wrap_dim
from ..autograd.formula import GRAPH_OPS
from .argmax import argmax, argmin
from .math import cast, clone, div, eq, maximum, minimum, mul, ne, sqrt, sub, where
from .registry import Attr, defop, define_composite, type_name
from .shape import getitem

__all__ = ["sum", "mean", "max", "min", "logsumexp"]


CPU = Backend.CPU


def _axis(x, dim):
    # A 0-d tensor takes dim 0 / -1 (InferMeta checked it): NumPy has no axis there, so reduce "all" (itself).
    return None if dim is None or x.ndim == 0 else dim


_DIM_ATTRS = (Attr("dim", None, check_dims), Attr("keepdim", False, check_bool))


def expand_back(g: Any, x_shape: tuple[int, ...], dim: Any, keepdim: bool, ops: Any = GRAPH_OPS) -> Any:
    """Broadcast a reduced gradient back to the input's shape: a composite of ``reshape`` and ``expand``."""
    if not keepdim:
        dims = im.reduced_dims("sum", dim, len(x_shape))
        kept = []
        for i, s in enumerate(x_shape):
            kept.append(1 if i in dims else s)
        g = ops.reshape(g, tuple(kept))
    return ops.expand(g, tuple(x_shape))


define_composite("expand_back", expand_back)


@register_kernel("sum", CPU, dtypes=ALL_DTYPES, name="cpu/sum_")  # bools count (the result is int64)
def sum_cpu(x, dim=None, keepdim=False):
    dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
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


# Registered for every dtype so that an integer input reaches InferMeta, which refuses it in
# PyTorch's words ("could not infer output dtype ... Got: Long"); the kernel itself sees floats only.
@register_kernel("mean", CPU, dtypes=ALL_DTYPES, name="cpu/mean")
def mean_cpu(x, dim=None, keepdim=False):
    # sum / count rather than np.mean: np.mean of an empty slice warns from inside NumPy,
    # where the kernels' warning filter (kernels/api.py) does not reach; the result is NaN either way.
    axis = _axis(x, dim)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = math.prod(x.shape[a] for a in axes)
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
    """Gradient of max/min: shared equally among the positions that attain it. Of all elements
    (``max()``, dim None: PyTorch's ``evenly_distribute_backward``) a NaN result is attained by the NaNs;
    over dims (``amax``, ``amin``) nothing equals a NaN, so its gradient is NaN, as PyTorch's."""
    x, out = ctx.saved()
    ops = ctx.ops
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    out_b = ops.expand_back(out, x.shape, dim, keepdim)
    hit = ops.eq(x, out_b)
    if dim is None:  # decided on the device (x != x: a NaN), no read of the result on the host
        hit = ops.where(ops.ne(out_b, out_b), ops.ne(x, x), hit)
    mask = ops.cast(hit, g.dtype)
    count = ops.expand_back(ops.sum(mask, dim=dim, keepdim=keepdim), x.shape, dim, keepdim)
    return (ops.div(ops.mul(ops.expand_back(g, x.shape, dim, keepdim), mask), count),)


@register_kernel("max", CPU, dtypes=NUMERIC_DTYPES, name="cpu/max_")
def max_cpu(x, dim=None, keepdim=False):
    return np.asarray(np.max(x, axis=_axis(x, dim), keepdims=keepdim))


_max_op = defop(
    "max",
    inputs=("x",),
    attrs=_DIM_ATTRS,
    infer_meta=im.reduce,
    save=("x", "out"),
    doc="max over dim",
    methods=("max",),
)
_max_op.def_backward(_extreme_backward)
@register_kernel("min", CPU, dtypes=NUMERIC_DTYPES, name="cpu/min_")
def min_cpu(x, dim=None, keepdim=False):
    return np.asarray(np.min(x, axis=_axis(x, dim), keepdims=keepdim))


_min_op = defop(
    "min",
    inputs=("x",),
    attrs=_DIM_ATTRS,
    infer_meta=im.reduce,
    save=("x", "out"),
    doc="min over dim",
    methods=("min",),
)
_min_op.def_backward(_extreme_backward)

@register_kernel("logsumexp", CPU, dtypes=FLOAT_DTYPES, name="cpu/logsumexp")
def logsumexp_cpu(x, dim=None, keepdim=False):
    axis = _axis(x, dim)
    if x.size == 0:  # an empty sum is 0, its log -inf (as PyTorch); np.max has no identity to shift by
        return np.asarray(np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdim)), dtype=x.dtype)
    m = row_max(x, axis)
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


# -- PyTorch's reduction forms (composites of the ops above) ---------------------------------------

class return_types:
    """Named tuples returned by ``max``/``min`` with a ``dim`` (PyTorch's ``torch.return_types``)."""

    max = namedtuple("max", ["values", "indices"])
    min = namedtuple("min", ["values", "indices"])
    sort = namedtuple("sort", ["values", "indices"])
    topk = namedtuple("topk", ["values", "indices"])
    kthvalue = namedtuple("kthvalue", ["values", "indices"])
    median = namedtuple("median", ["values", "indices"])
    cummax = namedtuple("cummax", ["values", "indices"])
    cummin = namedtuple("cummin", ["values", "indices"])
    aminmax = namedtuple("aminmax", ["min", "max"])


def _dim_alias(op: str, dim: Any, axis: Any) -> Any:
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}(): pass either 'dim' or its alias 'axis', not both")
        return axis
    return dim


def _keepdim_alias(op: str, keepdim: Any, keepdims: Any) -> Any:
    # NumPy's spelling, which PyTorch accepts too: x.max(1, keepdims=True)
    if keepdims is not None:
        if keepdim:
            raise TypeError(f"{op}(): pass either 'keepdim' or its alias 'keepdims', not both")
        return keepdims
    return keepdim



def _extreme(op: str, reduce_op: Any, arg_op: Any, pair_op: Any, named: Any):
    def fn(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
        check_tensor(op, "input", 0, input)
        keepdim = _keepdim_alias(op, keepdim, keepdims)
        if isinstance(dim, Tensor):  # torch.max(a, b) is the elementwise maximum
            return pair_op(input, dim)
        dim = _dim_alias(op, dim, axis)
        if dim is None or isinstance(dim, (tuple, list)):
            # All dims (PyTorch), or several dims (a minigrad extension): the values only.
            return reduce_op(input, dim=dim, keepdim=keepdim) if dim is not None else reduce_op(input)
        if input.numel() == 0 or type(dim) is not int:  # nothing to pick from, a bad dim: the op's own errors
            return named(reduce_op(input, dim=dim, keepdim=keepdim), arg_op(input, dim=dim, keepdim=keepdim))
        if input.ndim == 0:  # one element, its own extreme: a copy, as PyTorch's (nothing saved)
            wrap_dim(op, dim, 0)
            return named(clone(input), arg_op(input, dim=dim, keepdim=keepdim))
        indices = arg_op(input, dim=dim, keepdim=keepdim)
        # The values are picked at the indices (PyTorch's max.dim): the gradient goes to that one
        # position, not shared among ties as amax's is, and the input is not saved for backward.
        return named(getitem(input, _index_at(to_numpy(indices._data), input.ndim, dim % input.ndim, keepdim)), indices)

    fn.__name__ = op
    fn.__doc__ = (
        f"The {op}imum over all elements, or with ``dim`` a ``(values, indices)`` named tuple "
        f"(``torch.{op}``); ``{op}(a, b)`` with a Tensor ``b`` is ``{pair_op.name}``. "
        f"Composite (the ``{op}`` op and ``arg{op}``)."
    )
    return fn


def _index_at(picked: np.ndarray, ndim: int, d: int, keepdim: bool) -> tuple[np.ndarray, ...]:
    """An advanced index selecting ``picked[...]`` along dim ``d`` of every other position (``gather``'s)."""
    shape = picked.shape if keepdim else picked.shape[:d] + (1,) + picked.shape[d:]
    grid = np.indices(shape, sparse=True)
    idx = [g for g in grid]
    idx[d] = picked if keepdim else picked.reshape(shape)
    if not keepdim:
        idx = [np.squeeze(np.broadcast_to(i, shape), axis=d) for i in idx]
    return tuple(idx)


max = _extreme("max", _max_op, argmax, maximum, return_types.max)
min = _extreme("min", _min_op, argmin, minimum, return_types.min)


def amax(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The largest values over ``dim`` (an int or a tuple; all dims when ``None``), values only. Composite (``max``)."""
    return _max_op(input, dim=_all_dims(input, _dim_alias("amax", dim, axis)),
                   keepdim=_keepdim_alias("amax", keepdim, keepdims))


def amin(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The smallest values over ``dim`` (an int or a tuple; all dims when ``None``), values only.

    Composite (``min``).
    """
    return _min_op(input, dim=_all_dims(input, _dim_alias("amin", dim, axis)),
                   keepdim=_keepdim_alias("amin", keepdim, keepdims))


def _all_dims(input: Any, dim: Any) -> Any:
    """``amax``/``amin`` over all dims names them (``dim=None`` is ``max()``/``min()`` of all elements,
    whose gradient differs at a NaN: ``_extreme_backward``)."""
    if dim is not None or not isinstance(input, Tensor):
        return dim
    return tuple(range(input.ndim)) if input.ndim else 0


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
        axis: Any = None, keepdims: Any = None) -> Tensor:
    """Variance over ``dim``: ``sum((x - mean)^2) / (N - correction)``; ``correction=1`` (Bessel) by default.
    Composite (``mean``, ``sub``, ``mul``, ``sum``, ``div``).

    ``unbiased=False`` is the old spelling of ``correction=0``.
    """
    check_tensor("var", "input", 0, input)
    dim = _dim_alias("var", dim, axis)
    keepdim = _keepdim_alias("var", keepdim, keepdims)
    if isinstance(dim, bool):  # var(x, False): the old positional 'unbiased'
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if not isinstance(correction, (int, float)) or isinstance(correction, bool):
        raise TypeError(f"var(): argument 'correction' must be a number, but got {type_name(correction)}")
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if input.ndim == 0:  # a 0-d tensor takes dim 0 / -1 (checked here) and reduces nothing
        dims = im.reduced_dims("var", dims, 0)
    n = 1
    for d in dims:
        n *= input.shape[d]
    centered = sub(input, mean(input, dim=dims, keepdim=True))
    return div(sum(mul(centered, centered), dim=dims, keepdim=keepdim), float(builtins.max(n - correction, 0)))


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
        axis: Any = None, keepdims: Any = None) -> Tensor:
    """Standard deviation: ``sqrt(var(...))`` with the same arguments. Composite (``var``, ``sqrt``)."""
    return sqrt(var(input, dim, unbiased, keepdim, correction=correction, axis=axis, keepdims=keepdims))


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(var(...), mean(...))`` over the same dims (``torch.var_mean``). Composite (``var``, ``mean``)."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, bool) else dim
    return v, mean(input, dim=d, keepdim=keepdim)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(std(...), mean(...))`` over the same dims (``torch.std_mean``). Composite (``var``, ``sqrt``, ``mean``)."""
    v, m = var_mean(input, dim, unbiased, keepdim, correction=correction)
    return sqrt(v), m


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum`` with NaN counted as 0 (``torch.nansum``); the gradient skips the NaN elements.

    Composite (``ne``, ``where``, ``sum``).
    """
    check_tensor("nansum", "input", 0, input)
    x = input if dtype is None else input.astype(dtype)
    if x.dtype.is_floating:
        x = where(ne(x, x), Tensor._scalar(0, x.dtype, x.device), x)
    return sum(x, dim=dim, keepdim=keepdim)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``mean`` over the elements that are not NaN (``torch.nanmean``; NaN where all are).

    Composite (``nansum``, ``eq``, ``sum``, ``div``).
    """
    check_tensor("nanmean", "input", 0, input)
    if not input.dtype.is_floating and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {input.dtype}")
    x = input if dtype is None else input.astype(dtype)
    present = cast(eq(x, x), x.dtype)
    return div(nansum(x, dim, keepdim), sum(present, dim=dim, keepdim=keepdim))


def aminmax(input: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    """``(min, max)`` over ``dim`` (all elements when ``None``) as a named tuple (``torch.aminmax``).

    Composite (``min``, ``max``).
    """
    check_tensor("aminmax", "input", 0, input)
    return return_types.aminmax(amin(input, dim, keepdim), amax(input, dim, keepdim))


__all__ += ['return_types', 'amax', 'amin', 'var', 'std', 'var_mean', 'std_mean', 'nansum', 'nanmean', 'aminmax']
