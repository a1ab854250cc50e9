"""Reductions: sum, mean, max, min, logsumexp, var, std over ``dim`` (all dims when ``None``), with
``keepdim``; and PyTorch's reduction forms built on them (composites).

The registered ops ``max``/``min`` (``OPS["max"]``, bound here as ``_max_op``/``_min_op``)
reduce to values only. ``mg.max``/``mg.min`` are PyTorch's forms: with an int
``dim`` they give a ``(values, indices)`` named tuple, with a Tensor second
argument the elementwise ``maximum``/``minimum``. ``var``/``std`` (with
``correction``) are ops, with PyTorch's gradients (``VarBackward0``,
``StdBackward0``). ``amax``/``amin``, ``var_mean``/``std_mean``,
``nansum``/``nanmean`` and ``aminmax`` are composites: their gradient, events and
grad nodes are those of the ops they are made of (``var_mean`` shows up in a trace
as a ``var`` and a ``mean`` node), as PyTorch's ``CompositeImplicitAutograd`` ops.

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

import numpy as np

from .. import dtypes as _dt
from ..errors import OutOfRangeError, ShapeError, warn_at_user_line
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.cascade_sum import cascade_sum, get_num_threads
from ..kernels.key import Backend
from ..kernels.registry import in_dtype, register_kernel
from ..kernels.special import row_max
from ..tensor import Tensor
from ._checks import check_bool, check_dims, check_int, check_opt_dtype, check_tensor, wrap_dim
from ..autograd.formula import GRAPH_OPS
from ..autograd.grad_mode import no_grad
from .argmax import argmax, argmin
from .math import cast, clone, div, eq, maximum, minimum, mul, ne, sqrt, sub, where
from . import _return_types as return_types
from .registry import Attr, Input, defop, define_composite, type_name
from .scatter_gather import _zeros

__all__ = ["sum", "mean", "max", "min", "logsumexp"]


CPU = Backend.CPU


def _axis(x, dim):
    # A 0-d tensor takes dim 0 / -1 (InferMeta checked it): NumPy has no axis there, so reduce "all" (itself).
    return None if dim is None or x.ndim == 0 else dim


_DIM_ATTRS = (Attr("dim", None, check_dims), Attr("keepdim", False, check_bool))
#: a reduction that reads its input in a dtype it is given (``x.sum(dtype=torch.float32)``): PyTorch's one op, whose
#: kernel casts as it reads (the kernel for the input's dtype hands the call to ``in_dtype``), and whose gradient
#: is cast back to the input's dtype (``to_input_dtype``); no ``ToCopyBackward0`` before it
_DTYPE_ATTR = Attr("dtype", None, check_opt_dtype, keyword_only=True)


def to_input_dtype(ctx: Any, g: Any) -> Any:
    """A reduction's gradient in its input's dtype (it differs where the call gave ``dtype=``), as PyTorch's
    engine casts a gradient to its input's (``validate_outputs``)."""
    if ctx.attrs.get("dtype") is None:  # (no dtype= given: the gradient has the input's dtype already)
        return g
    want = ctx.input_dtype(0)
    have = g.dtype  # (a tensor's DType in graph mode, an array's NumPy dtype in array mode)
    return g if have is want or have == want.np else ctx.ops.cast(g, want)


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
def sum_cpu(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("sum", CPU, x, dtype, dim, keepdim)
    if x.dtype.kind == "f":  # floats in PyTorch's order (NOTE [ PyTorch's sum, bit for bit ])
        return _float_sum(x, dim, keepdim, x.dtype)
    # integers are exact in any order: np.add.reduce is what np.sum calls, without its Python wrapper
    acc = np.int64 if dtype is None else dtype.np  # (int64 unless given one)
    return np.asarray(np.add.reduce(x, axis=_axis(x, dim), dtype=acc, keepdims=keepdim))


def _float_sum(x: np.ndarray, dim: Any, keepdim: bool, dtype: Any) -> np.ndarray:
    axis = _axis(x, dim)
    axes = tuple(range(x.ndim)) if axis is None else tuple(
        a % x.ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    out = cascade_sum(x, axes, dtype, get_num_threads())
    if keepdim:
        out = out.reshape(tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    return np.asarray(out)


sum = defop(
    "sum",
    inputs=("x",),
    attrs=(*_DIM_ATTRS, _DTYPE_ATTR),
    dtype_out=True,
    infer_meta=im.reduce,
    doc="sum over dim; dtype= reads the input in that dtype (still one op, as PyTorch's)",
    methods=("sum",),
    amp="deny",
)


@sum.def_backward
def _sum_backward(ctx, g):
    g = ctx.ops.expand_back(g, ctx.input_shape(0), ctx.attrs["dim"], ctx.attrs["keepdim"])
    return (g if ctx.attrs["dtype"] is None else to_input_dtype(ctx, g),)  # (every loss's backward: no call more)


# Registered for every dtype so that an integer input reaches InferMeta, which refuses it in
# PyTorch's words ("could not infer output dtype ... Got: Long"); the kernel itself sees floats only.
@register_kernel("mean", CPU, dtypes=ALL_DTYPES, name="cpu/mean")
def mean_cpu(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("mean", CPU, x, dtype, dim, keepdim)
    # sum / count rather than np.mean: np.mean of an empty slice warns from inside NumPy,
    # where the kernels' warning filter (kernels/api.py) does not reach; the result is NaN either way.
    axis = _axis(x, dim)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = math.prod(x.shape[a] for a in axes)
    if x.dtype.kind == "f":
        # PyTorch's CPU mean: the sum (of a half in float32), divided by the count, then rounded to the dtype
        acc = np.float32 if x.dtype.itemsize < 4 else x.dtype
        total = _float_sum(x if acc == x.dtype else x.astype(acc), dim, keepdim, acc)
        return np.asarray(np.true_divide(total, count, dtype=acc)).astype(x.dtype, copy=False)
    total = np.sum(x, axis=axis, keepdims=keepdim, dtype=x.dtype)
    return np.asarray(np.true_divide(total, count, dtype=x.dtype))


mean = defop(
    "mean",
    inputs=("x",),
    attrs=(*_DIM_ATTRS, _DTYPE_ATTR),
    dtype_out=True,
    infer_meta=im.reduce,
    doc="mean over dim; dtype= reads the input in that dtype (still one op, as PyTorch's)",
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
    return (to_input_dtype(ctx, ops.div(spread, float(count if count > 0 else 1))),)


def _extreme_backward(ctx, g):
    """Gradient of max/min: ``evenly_distributed``."""
    x, out = ctx.saved()
    return (evenly_distributed(ctx, g, x, out, ctx.attrs["dim"], ctx.attrs["keepdim"]),)


def evenly_distributed(ctx: Any, g: Any, x: Any, out: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """``g`` shared equally among the positions of ``x`` that attain ``out`` (max's, min's, median()'s). Of all
    elements (dim None: PyTorch's ``evenly_distribute_backward``) a NaN result is attained by the NaNs;
    over dims (``amax``, ``amin``) nothing equals a NaN, so its gradient is NaN, as PyTorch's."""
    ops = ctx.ops
    out_b = ops.expand_back(out, x.shape, dim, keepdim)
    hit = ops.eq(x, out_b)
    if dim is None:  # decided on the device (x != x: a NaN), no read of the result on the host
        hit = ops.where(ops.ne(out_b, out_b), ops.ne(x, x), hit)
    mask = ops.cast(hit, g.dtype)
    count = ops.expand_back(ops.sum(mask, dim=dim, keepdim=keepdim), x.shape, dim, keepdim)
    spread = ops.expand_back(g, x.shape, dim, keepdim)
    on_cpu = (ctx.ops.device if ctx.arrays else x.device) == "cpu"
    if dim is None and on_cpu:  # PyTorch's CPU fills the share where the max is, zeros elsewhere (a NaN
        return ops.where(hit, ops.div(spread, count), 0.0)  # gradient stays there); its CUDA multiplies
    return ops.div(ops.mul(spread, mask), count)


@register_kernel("max", CPU, dtypes=ALL_DTYPES, name="cpu/max_")  # bools too: False < True, as PyTorch
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
@register_kernel("min", CPU, dtypes=ALL_DTYPES, name="cpu/min_")
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


# -- prod, nansum, trace ---------------------------------------------------------------------------


def _int64_if_integral(dtype: Any) -> Any:
    """Integer and bool inputs reduce to int64, as PyTorch's sum and prod."""
    return np.dtype(np.int64) if dtype.kind in "biu" else dtype


def _infer_integral_reduce(op: str, x: Any, dim: Any = None, keepdim: bool = False,
                           dtype: Any = None) -> tuple[tuple[int, ...], Any]:
    """InferMeta of ``prod``/``nansum``: ``sum``'s (shape by dim and keepdim, int64 for integers, or ``dtype``)."""
    shape, out = im.reduce(op, x, dim, keepdim, dtype=dtype)
    return shape, out if dtype is not None else _int64_if_integral(out)


@register_kernel("prod", CPU, dtypes=ALL_DTYPES, name="cpu/prod")
def prod_cpu(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("prod", CPU, x, dtype, dim, keepdim)
    dtype = _int64_if_integral(x.dtype) if dtype is None else dtype.np
    acc = np.float32 if dtype.kind == "f" and dtype.itemsize < 4 else dtype  # a half multiplied in float
    out = np.multiply.reduce(x, axis=_axis(x, dim), dtype=acc, keepdims=keepdim)
    return np.asarray(out, dtype=dtype)


def _check_dim_or_none(op: str, name: str, pos: int, v: Any) -> Any:
    return None if v is None else check_int(op, name, pos, v)


_prod_op = defop("prod", inputs=("x",), attrs=(Attr("dim", None, _check_dim_or_none), Attr("keepdim", False, check_bool),
                                                _DTYPE_ATTR), dtype_out=True,
                 infer_meta=_infer_integral_reduce, save=("x", "out"), amp="deny",
                 doc="product over dim (all elements when None); integers give int64")


def _prod_safe_zeros(ops: Any, g: Any, x: Any, d: int) -> Any:
    """PyTorch's ``prod_safe_zeros_backward``: the product of the others at each position, as the running
    product before it times the running product after it (each exclusive), so a zero in ``x`` costs no
    division: ``g * cumprod([1, x[:-1]]) * flip(cumprod([1, flip(x[1:])]))`` along ``d``."""
    n = x.shape[d]
    if n == 0 or math.prod(x.shape) == 0:
        return ops.expand(g, tuple(x.shape))
    lead = (slice(None),) * d
    with no_grad():  # PyTorch's at::ones: a constant, no history back to x (CatBackward0's first edge is None)
        ones = ops.fill(ops.getitem(x, lead + (slice(0, 1),)), 1.0)
    before = ops.cumprod(ops.concat([ones, ops.getitem(x, lead + (slice(0, n - 1),))], dim=d), d)
    after_rev = ops.cumprod(ops.concat([ones, ops.flip(ops.getitem(x, lead + (slice(1, n),)), (d,))], dim=d), d)
    return ops.mul(g, ops.mul(before, ops.flip(after_rev, (d,))))


# reachable as ``ops.prod_safe_zeros`` from other ops' formulas (det's at a singular matrix, ops/inverse.py)
define_composite("prod_safe_zeros", lambda g, x, d, ops=GRAPH_OPS: _prod_safe_zeros(ops, g, x, d))


@_prod_op.def_backward
def _prod_backward(ctx, g):
    """PyTorch's ``prod_backward``: ``g * out / x`` while no element is 0; with zeros, the product of the
    others by running products (``_prod_safe_zeros``). Which one is PyTorch's own data-dependent branch: the
    zeros are counted on the host (a sync on a GPU, as PyTorch's ``nonzero``/``item``)."""
    return (to_input_dtype(ctx, _prod_grad(ctx, g)),)


def _prod_grad(ctx: Any, g: Any) -> Any:
    """``_prod_backward`` in the gradient's dtype (the input read in it, as PyTorch's ``self.to(grad's type)``)."""
    x, out = ctx.saved()
    ops = ctx.ops
    if x.dtype != g.dtype:
        x = ops.cast(x, g.dtype)
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    if x.ndim == 0:
        return ops.reshape(g, ())
    zeros = int(ops.sum(ops.eq(x, 0.0)).item())
    if dim is None:
        if zeros == 0:
            return ops.mul(g, ops.div(out, x))
        if zeros > 1 and not ctx.create_graph:  # two zeros: every product of the others has one
            return _zeros(ops, g, tuple(x.shape))
        return ops.reshape(_prod_safe_zeros(ops, g, ops.reshape(x, (-1,)), 0), tuple(x.shape))
    d = dim % x.ndim
    if not keepdim:
        g, out = ops.unsqueeze(g, d), ops.unsqueeze(out, d)
    if zeros == 0:
        return ops.mul(g, ops.div(out, x))
    return _prod_safe_zeros(ops, g, x, d)


@register_kernel("nansum", CPU, dtypes=ALL_DTYPES, name="cpu/nansum")
def nansum_cpu(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("nansum", CPU, x, dtype, dim, keepdim)
    dtype = _int64_if_integral(x.dtype) if dtype is None else dtype.np
    work = np.where(np.isnan(x), 0, x) if x.dtype.kind == "f" else x
    return np.asarray(np.add.reduce(work, axis=_axis(x, dim), dtype=dtype, keepdims=keepdim))


_nansum_op = defop("nansum", inputs=("x",), attrs=(*_DIM_ATTRS, _DTYPE_ATTR), dtype_out=True,
                   infer_meta=_infer_integral_reduce, save=("x",),
                   amp="deny", doc="sum over dim with NaN counted as 0")


@_nansum_op.def_backward
def _nansum_backward(ctx, g):
    """PyTorch's ``nansum_backward``: ``sum``'s spread of ``g``, 0 where ``x`` is NaN."""
    (x,) = ctx.saved()
    ops = ctx.ops
    spread = ops.expand_back(to_input_dtype(ctx, g), tuple(x.shape), ctx.attrs["dim"], ctx.attrs["keepdim"])
    return (ops.where(ops.isnan(x), 0.0, spread),)


def _infer_trace(op: str, x: Any) -> tuple[tuple[int, ...], Any]:
    if x.ndim != 2:
        raise RuntimeError(f"{op}: expected a matrix, but got tensor with dim {x.ndim}")
    return (), _int64_if_integral(x.dtype)


@register_kernel("trace", CPU, dtypes=NUMERIC_DTYPES, name="cpu/trace")
def trace_cpu(x):
    return np.asarray(np.trace(x, dtype=_int64_if_integral(x.dtype)))


trace_op = defop("trace", inputs=("x",), infer_meta=_infer_trace, out=False,
                 doc="the sum of the diagonal of a matrix; integers give int64")


@trace_op.def_backward
def _trace_backward(ctx, g):
    """PyTorch's ``trace_backward``: zeros of the matrix's shape with ``g`` along the diagonal."""
    shape = tuple(ctx.input_shape(0))
    n = builtins.min(shape)
    on_diagonal = (np.arange(n), np.arange(n))
    return (ctx.ops.getitem_grad(ctx.ops.expand(g, (n,)), on_diagonal, shape),)


# -- PyTorch's reduction forms (composites of the ops above) ---------------------------------------

# ``return_types``: PyTorch's named tuples (``ops/_return_types.py``), imported above


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



def _picked_meta(op: str, x: Any, indices: Any, dim: int = 0, keepdim: bool = False) -> Any:
    return tuple(indices.shape), x.dtype


def _picked(xp: Any, x: Any, indices: Any, dim: int, keepdim: bool) -> Any:
    """``x``'s elements at ``indices`` along ``dim`` (one an output position): a gather on the device that
    holds them, with no read of the indices on the host."""
    idx = indices if keepdim else xp.expand_dims(indices, dim)
    out = xp.take_along_axis(x, idx, axis=dim)
    return out if keepdim else xp.squeeze(out, axis=dim)


@register_kernel("max_values", CPU, dtypes=ALL_DTYPES, name="cpu/max_values")
def max_values_cpu(x, indices, dim=0, keepdim=False):
    return _picked(np, x, indices, dim, keepdim).copy()  # (row-major; ascontiguousarray makes a 0-d 1-d)


register_kernel("min_values", CPU, dtypes=ALL_DTYPES, name="cpu/min_values")(max_values_cpu)

_PICK_ATTRS = (Attr("dim", 0, check_dims), Attr("keepdim", False, check_bool))
_max_values = defop("max_values", inputs=("x", Input("indices", differentiable=False)), attrs=_PICK_ATTRS,
                    infer_meta=_picked_meta, save=("indices",), key_inputs=(0,), layout="contiguous",
                    doc="max(dim)'s values: x at the indices argmax picked (PyTorch's MaxBackward0)")
_min_values = defop("min_values", inputs=("x", Input("indices", differentiable=False)), attrs=_PICK_ATTRS,
                    infer_meta=_picked_meta, save=("indices",), key_inputs=(0,), layout="contiguous",
                    doc="min(dim)'s values: x at the indices argmin picked (PyTorch's MinBackward0)")


def _picked_backward(ctx, g):
    """PyTorch's ``value_selecting_reduction_backward``: the gradient goes to the picked position of each
    slice (ties are not shared, as ``amax``'s are), zeros elsewhere; only the indices are saved."""
    (indices,) = ctx.saved()
    ops = ctx.ops
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    if not ctx.input_shape(0):  # a 0-d input is its own picked value
        return ops.reshape(g, ()), None
    if not keepdim:
        indices, g = ops.unsqueeze(indices, dim), ops.unsqueeze(g, dim)
    return ops.scatter_add(_zeros(ops, g, ctx.input_shape(0)), indices, g, dim), None


_max_values.def_backward(_picked_backward)
_min_values.def_backward(_picked_backward)


def _refuse_empty(op: str, input: Any, dim: Any) -> None:
    """PyTorch's refusal of a max/min over no element: of all elements (``dim`` None or ``()``) of an empty tensor,
    or along a dim of size 0 (checked after the dims are in range, as PyTorch)."""
    if not isinstance(input, Tensor) or 0 not in input.shape:  # (a non-empty tensor: nothing to refuse here)
        return
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        if not input.numel():
            raise ShapeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                             f"reduction dim with the 'dim' argument.")
        return
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    if not all(type(d) is int for d in dims):
        return  # the op's own type errors
    wrapped = [wrap_dim(op, d, input.ndim) for d in dims]
    for d in wrapped:
        if input.ndim and input.shape[d] == 0:
            raise OutOfRangeError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _extreme(op: str, reduce_op: Any, arg_op: Any, pair_op: Any, named: Any, values_op: Any):
    def fn(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
        check_tensor(op, "input", 0, input)
        keepdim = _keepdim_alias(op, keepdim, keepdims)
        if isinstance(dim, Tensor):  # torch.max(a, b) is the elementwise maximum
            return pair_op(input, dim)
        dim = _dim_alias(op, dim, axis)
        _refuse_empty(op, input, dim)
        if dim is None or isinstance(dim, (tuple, list)):
            # All dims (PyTorch), or several dims (a minigrad extension): the values only.
            return reduce_op(input, dim=dim, keepdim=keepdim) if dim is not None else reduce_op(input)
        if type(dim) is not int or (input.ndim and input.shape[wrap_dim(op, dim, input.ndim)] == 0):
            # a bad dim, nothing to pick from along it: the op's own errors
            return named(reduce_op(input, dim=dim, keepdim=keepdim), arg_op(input, dim=dim, keepdim=keepdim))
        if input.ndim == 0:  # one element, its own extreme: a copy, as PyTorch's (nothing saved)
            wrap_dim(op, dim, 0)
            return named(clone(input), arg_op(input, dim=dim, keepdim=keepdim))
        # argmax/argmin refuse a bool tensor (PyTorch's), max/min(dim) take it: its indices are those of 0s and 1s
        indices = arg_op(cast(input, _dt.uint8) if input.dtype == _dt.bool_ else input, dim=dim, keepdim=keepdim)
        # The values are picked at the indices (PyTorch's max.dim, MaxBackward0): the gradient goes to that
        # one position, not shared among ties as amax's is, and only the indices are saved for backward.
        return named(values_op(input, indices, dim=dim % input.ndim, keepdim=keepdim), indices)

    fn.__name__ = op
    fn.__doc__ = (
        f"The {op}imum over all elements, or with ``dim`` a ``(values, indices)`` named tuple "
        f"(``torch.{op}``); ``{op}(a, b)`` with a Tensor ``b`` is ``{pair_op.name}``. "
        f"Composite (the ``{op}`` op and ``arg{op}``)."
    )
    return fn


max = _extreme("max", _max_op, argmax, maximum, return_types.max, _max_values)
min = _extreme("min", _min_op, argmin, minimum, return_types.min, _min_values)


def amax(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The largest values over ``dim`` (an int or a tuple; all dims when ``None``), values only. Composite (``max``)."""
    dim = _dim_alias("amax", dim, axis)
    _refuse_empty("amax", input, dim)
    return _max_op(input, dim=_all_dims(input, dim),
                   keepdim=_keepdim_alias("amax", keepdim, keepdims))


def amin(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The smallest values over ``dim`` (an int or a tuple; all dims when ``None``), values only.

    Composite (``min``).
    """
    dim = _dim_alias("amin", dim, axis)
    _refuse_empty("amin", input, dim)
    return _min_op(input, dim=_all_dims(input, dim),
                   keepdim=_keepdim_alias("amin", keepdim, keepdims))


def _all_dims(input: Any, dim: Any) -> Any:
    """``amax``/``amin`` over all dims names them (``dim=None`` is ``max()``/``min()`` of all elements,
    whose gradient differs at a NaN: ``_extreme_backward``)."""
    if dim is not None or not isinstance(input, Tensor):
        return dim
    return tuple(range(input.ndim)) if input.ndim else 0


def _var_cpu(x: Any, dim: Any = None, correction: float = 1.0, keepdim: bool = False) -> Any:
    """``sum((x - mean)^2) / max(N - correction, 0)``, in float32 at least (PyTorch accumulates a half's in float)."""
    work = x if x.itemsize >= 4 else x.astype(np.float32)
    axis = _axis(work, dim)
    axes = range(work.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = math.prod(work.shape[a] for a in axes)
    if count and x.dtype in (np.float32, np.float64) and work.size == count:
        return _var_one_output(x, axis, count, correction, keepdim)
    if count:  # shifted by each slice's first element: a constant slice is exactly 0 apart, so its variance is
        # exactly 0, as PyTorch's Welford gives it (sum / N of equal values need not be that value)
        first = {a % work.ndim for a in axes}
        work = work - work[tuple(slice(0, 1) if a in first else slice(None) for a in range(work.ndim))]
    with np.errstate(divide="ignore", invalid="ignore"):  # inf or NaN with no degree of freedom, as PyTorch: no NumPy warning
        centered = work - np.true_divide(np.sum(work, axis=axis, keepdims=True), count)
        total = np.sum(centered * centered, axis=axis, keepdims=keepdim)
        return np.asarray(np.true_divide(total, builtins.max(count - correction, 0)), dtype=x.dtype)


def _var_one_output(x: Any, axis: Any, count: int, correction: float, keepdim: bool) -> Any:
    """PyTorch's CPU variance of a float32/float64 reduction to one element (``std_var_all_cpu``): two passes,
    the mean first in the input's dtype (``at::mean``), then the squared deviations from it summed in float64.
    Equal values need not give 0 there (three 0.1s: 2.9e-34), where the other reductions' Welford does."""
    mean = np.float64(np.sum(x, dtype=x.dtype) / x.dtype.type(count))
    dx = x.astype(np.float64) - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.true_divide(np.sum(dx * dx, axis=axis, keepdims=keepdim), builtins.max(count - correction, 0))
    return np.asarray(var, dtype=x.dtype)


# (every dtype, as mean's: an integer input reaches InferMeta, which refuses it in PyTorch's words)
@register_kernel("var", CPU, dtypes=ALL_DTYPES, name="cpu/var")
def var_cpu(x, dim=None, correction=1.0, keepdim=False):
    return _var_cpu(x, dim, correction, keepdim)


@register_kernel("std", CPU, dtypes=ALL_DTYPES, name="cpu/std")
def std_cpu(x, dim=None, correction=1.0, keepdim=False):
    return np.asarray(np.sqrt(_var_cpu(x, dim, correction, keepdim)), dtype=x.dtype)


def _check_correction(op: str, name: str, pos: int, v: Any) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise TypeError(f"{op}(): argument 'correction' must be a number, but got {type_name(v)}")
    return float(v)


_VAR_ATTRS = (Attr("dim", None, check_dims), Attr("correction", 1.0, _check_correction),
              Attr("keepdim", False, check_bool))

_var_op = defop("var", inputs=("x",), attrs=_VAR_ATTRS, infer_meta=im.reduce, save=("x",),
                doc="variance over dim: sum((x - mean)^2) / (N - correction)")
_std_op = defop("std", inputs=("x",), attrs=_VAR_ATTRS, infer_meta=im.reduce, save=("x", "out"),
                doc="standard deviation over dim: sqrt(var)")


def _var_backward_of(ctx: Any, x: Any, g: Any) -> Any:
    """PyTorch's ``var_backward``: ``2 / (N - correction) * g * (x - mean)``. Over all elements with no
    degree of freedom left (``N <= correction``) it is ``g * where(x == mean, nan, inf)``; over ``dim``
    the factor is what the division gives (inf at ``N == correction``, negative below)."""
    ops = ctx.ops
    dim, correction, keepdim = ctx.attrs["dim"], ctx.attrs["correction"], ctx.attrs["keepdim"]
    if x.ndim == 0 or dim is None:
        dof = math.prod(x.shape) - correction
        mu = ops.mean(x)
        if dof <= 0:
            return ops.where(ops.eq(x, mu), ops.mul(g, math.nan), ops.mul(g, math.inf))
        return ops.mul(ops.mul(g, 2.0 / dof), ops.sub(x, mu))
    dims = im.reduced_dims("var", dim, x.ndim)
    if not keepdim and x.ndim > 1:
        g = ops.reshape(g, tuple(1 if d in dims else n for d, n in enumerate(x.shape)))
    dof = math.prod(x.shape[d] for d in dims) - correction
    return ops.mul(ops.mul(g, 2.0 / dof if dof else math.inf), ops.sub(x, ops.mean(x, dim=dims, keepdim=True)))


@_var_op.def_backward
def _var_backward(ctx, g):
    (x,) = ctx.saved()
    return (_var_backward_of(ctx, x, g),)


@_std_op.def_backward
def _std_backward(ctx, g):
    """PyTorch's ``std_backward``: the variance's, of ``g / (2 std)`` - 0 where the std is 0 (a constant
    input has a zero gradient, not NaN)."""
    x, out = ctx.saved()
    ops = ctx.ops
    g_var = ops.where(ops.eq(out, 0.0), 0.0, ops.div(g, ops.mul(out, 2.0)))
    return (_var_backward_of(ctx, x, g_var),)


# -- var_mean, std_mean, aminmax: two results from one node --------------------------------------------


@register_kernel("var_mean", CPU, dtypes=ALL_DTYPES, name="cpu/var_mean")
def var_mean_cpu(x, dim=None, correction=1.0, keepdim=False):
    return _var_cpu(x, dim, correction, keepdim), mean_cpu(x, dim, keepdim)


@register_kernel("std_mean", CPU, dtypes=ALL_DTYPES, name="cpu/std_mean")
def std_mean_cpu(x, dim=None, correction=1.0, keepdim=False):
    return std_cpu(x, dim, correction, keepdim), mean_cpu(x, dim, keepdim)


def _infer_moments(op: str, x: Any, dim: Any = None, correction: float = 1.0, keepdim: bool = False) -> list[Any]:
    """Two results of ``var``'s shape and dtype (float inputs only, in PyTorch's words)."""
    meta = im.reduce("var", x, dim, keepdim)
    return [meta, meta]


def _mean_backward_of(ctx: Any, x_shape: tuple[int, ...], g: Any) -> Any:
    """``mean``'s gradient: ``g`` spread over the reduced elements, divided by their count."""
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    count = math.prod(x_shape[d] for d in im.reduced_dims("mean", dim, len(x_shape)))
    return ctx.ops.div(ctx.ops.expand_back(g, x_shape, dim, keepdim), float(count if count > 0 else 1))


def _moments_grads(grads: Any) -> tuple[Any, Any]:
    return (grads[0], grads[1]) if isinstance(grads, list) else (grads, None)


_var_mean_op = defop("var_mean", inputs=("x",), attrs=_VAR_ATTRS,
                     infer_meta=_infer_moments, save=("x",), layout="contiguous",
                     doc="(var, mean) over dim, from one node")
_std_mean_op = defop("std_mean", inputs=("x",), attrs=_VAR_ATTRS,
                     infer_meta=_infer_moments, save=("x", "out"), layout="contiguous",
                     doc="(std, mean) over dim, from one node")


@_var_mean_op.def_backward
def _var_mean_backward(ctx, grads):
    """PyTorch's ``var_mean_backward``: ``var``'s gradient of the first result plus ``mean``'s of the second."""
    (x,) = ctx.saved()
    g_var, g_mean = _moments_grads(grads)
    return (ctx.ops.add(_var_backward_of(ctx, x, g_var), _mean_backward_of(ctx, tuple(x.shape), g_mean)),)


@_std_mean_op.def_backward
def _std_mean_backward(ctx, grads):
    """PyTorch's ``std_mean_backward``: ``std``'s gradient of the first result plus ``mean``'s of the second."""
    x, out = ctx.saved()
    ops = ctx.ops
    g_std, g_mean = _moments_grads(grads)
    g_var = ops.where(ops.eq(out, 0.0), 0.0, ops.div(g_std, ops.mul(out, 2.0)))
    return (ops.add(_var_backward_of(ctx, x, g_var), _mean_backward_of(ctx, tuple(x.shape), g_mean)),)


def _infer_aminmax(op: str, x: Any, dim: Any = None, keepdim: bool = False) -> list[Any]:
    if dim is None:
        if x.size == 0:
            raise RuntimeError(f"{op}(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
    else:
        d = wrap_dim(op, dim, x.ndim)
        if x.ndim and x.shape[d] == 0:
            raise OutOfRangeError(f"{op}: Expected reduction dim {d} to have non-zero size.")
    meta = im.reduce(op, x, dim, keepdim)
    return [meta, meta]


@register_kernel("aminmax", CPU, dtypes=NUMERIC_DTYPES, name="cpu/aminmax")
def aminmax_cpu(x, dim=None, keepdim=False):
    return min_cpu(x, dim, keepdim), max_cpu(x, dim, keepdim)


_aminmax_op = defop("aminmax", inputs=("x",), attrs=(Attr("dim", None, _check_dim_or_none),
                                                     Attr("keepdim", False, check_bool)),
                    infer_meta=_infer_aminmax, save=("x",), layout="contiguous",
                    doc="(min, max) over dim (all elements when None), from one node")


@_aminmax_op.def_backward
def _aminmax_backward(ctx, grads):
    """PyTorch's ``aminmax`` formula: each result's gradient shared equally among the elements equal to it
    (``scale_grad_by_count``, as ``amin``'s and ``amax``'s), the two added. The extremes are found again
    from ``x``, which is all the node keeps."""
    (x,) = ctx.saved()
    ops = ctx.ops
    dim, keepdim = ctx.attrs["dim"], ctx.attrs["keepdim"]
    dims = tuple(range(x.ndim)) if dim is None else dim
    shape = tuple(x.shape)
    total = None
    for g, extreme in zip(_moments_grads(grads), (ops.min, ops.max)):
        if g is None:
            continue
        hit = ops.cast(ops.eq(x, ops.expand_back(extreme(x, dim=dims, keepdim=keepdim), shape, dims, keepdim)),
                       g.dtype)
        count = ops.sum(hit, dim=dims, keepdim=True)
        part = ops.mul(ops.div(ops.expand_back(g, shape, dims, keepdim), count), hit)
        total = part if total is None else ops.add(total, part)
    return (total,)


def _var_args(op: str, input: Any, dim: Any, unbiased: Any, keepdim: Any, correction: Any, axis: Any,
              keepdims: Any) -> tuple[Any, float, bool]:
    """``var``/``std``'s PyTorch forms to (dim, correction, keepdim): ``unbiased=False`` is the old spelling
    of ``correction=0``, ``var(x, False)`` its positional one; ``axis``/``keepdims`` NumPy's."""
    check_tensor(op, "input", 0, input)
    dim = _dim_alias(op, dim, axis)
    keepdim = _keepdim_alias(op, keepdim, keepdims)
    if isinstance(dim, bool):  # var(x, False): the old positional 'unbiased'
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, _check_correction(op, "correction", 0, correction), keepdim


def _warn_without_dof(op: str, input: Tensor, out: Tensor, correction: float) -> None:
    """PyTorch's warning when ``N - correction <= 0`` (N: the input's elements per output element)."""
    per_output = input.numel() // out.numel() if out.numel() else 0
    if per_output - correction <= 0:
        warn_at_user_line(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                          "reduction factor (input numel divided by output numel).")


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
        axis: Any = None, keepdims: Any = None) -> Tensor:
    """Variance over ``dim``: ``sum((x - mean)^2) / (N - correction)``; ``correction=1`` (Bessel) by default.

    ``unbiased=False`` is the old spelling of ``correction=0``. One node (``VarBackward0``), with
    PyTorch's gradient, where there is no degree of freedom left too.
    """
    dim, correction, keepdim = _var_args("var", input, dim, unbiased, keepdim, correction, axis, keepdims)
    out = _var_op(input, dim=dim, correction=correction, keepdim=keepdim)
    _warn_without_dof("var", input, out, correction)
    return out


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
        axis: Any = None, keepdims: Any = None) -> Tensor:
    """Standard deviation: ``sqrt(var(...))`` with the same arguments, one node (``StdBackward0``); a
    constant input's gradient is 0, as PyTorch's."""
    dim, correction, keepdim = _var_args("std", input, dim, unbiased, keepdim, correction, axis, keepdims)
    out = _std_op(input, dim=dim, correction=correction, keepdim=keepdim)
    _warn_without_dof("std", input, out, correction)
    return out


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(var(...), mean(...))`` over the same dims (``torch.var_mean``): one node for both
    (``VarMeanBackward0``), whose gradient is the sum of the two results' gradients."""
    dim, correction, keepdim = _var_args("var_mean", input, dim, unbiased, keepdim, correction, None, None)
    out = _var_mean_op(input, dim=dim, correction=correction, keepdim=keepdim)
    _warn_without_dof("var_mean", input, out[0], correction)
    return out


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(std(...), mean(...))`` over the same dims (``torch.std_mean``): one node for both
    (``StdMeanBackward0``); a constant input's gradient is 0, as ``std``'s."""
    dim, correction, keepdim = _var_args("std_mean", input, dim, unbiased, keepdim, correction, None, None)
    out = _std_mean_op(input, dim=dim, correction=correction, keepdim=keepdim)
    _warn_without_dof("std_mean", input, out[0], correction)
    return out


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum`` with NaN counted as 0 (``torch.nansum``), one op (``NansumBackward0``): the gradient skips the
    NaN elements. ``dtype=`` reads the input in that dtype (still one op)."""
    check_tensor("nansum", "input", 0, input)
    return _nansum_op(input, dim=dim, keepdim=keepdim, dtype=dtype)


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
    """``(min, max)`` over ``dim`` (all elements when ``None``) as a named tuple (``torch.aminmax``), from one
    node (``AminmaxBackward0``): each result's gradient is shared among the elements equal to it."""
    check_tensor("aminmax", "input", 0, input)
    return return_types.aminmax(*_aminmax_op(input, dim=dim, keepdim=keepdim))


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The product of the elements over ``dim`` (all when ``None``) (``torch.prod``); integers give int64.

    One op, as PyTorch's (``ProdBackward0``, ``ProdBackward1`` with a dim), whose gradient is right where
    elements are 0. An empty product is 1. ``dtype=`` reads the input in that dtype (still one op).

    Example:
        >>> import minigrad as mg
        >>> mg.prod(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), 1).tolist()
        [2.0, 12.0]
    """
    check_tensor("prod", "input", 0, input)
    if dtype is not None and not isinstance(dtype, _dt.DType):
        raise TypeError(f"prod(): argument 'dtype' must be a minigrad dtype, but got {type_name(dtype)}")
    if dim is None and keepdim:
        raise TypeError("prod(): keepdim=True needs a dim")
    return _prod_op(input, dim=dim, keepdim=keepdim, dtype=dtype)


__all__ += ['return_types', 'amax', 'amin', 'var', 'std', 'var_mean', 'std_mean', 'nansum', 'nanmean', 'aminmax',
            'prod']
