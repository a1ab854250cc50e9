"""Indexed reads and writes along one dim: ``gather``, ``scatter_add``, ``scatter``, ``scatter_reduce``; and the
writes of whole slices, ``index_add``, ``index_copy``, ``index_fill``, ``index_reduce``.

``gather`` picks, along ``dim``, the element that ``index`` names for every
position of ``index``; for a 2-D ``input`` and ``dim=1``::

    out[i][j] = input[i][index[i][j]]

``scatter_add`` is its adjoint: it adds ``src[i][j]`` into ``out[i][index[i][j]]``
(repeated indices accumulate), so the two are each other's backward formula:

- d gather / d input  = ``scatter_add(zeros, dim, index, grad)``,
- d scatter_add / d src = ``gather(grad, dim, index)``, and the gradient to
  ``input`` passes through unchanged.

``scatter`` writes instead of adding: the positions it overwrites get no
gradient from ``input`` (``scatter(grad, dim, index, 0)``), and ``src`` gets
``gather(grad, dim, index)``. Indices are int64 and get no gradient.

The registered ops take the tensors first (``gather(x, index, dim)``); the
public functions have PyTorch's order, ``gather(input, dim, index)``. Index
errors use PyTorch's words and class (``RuntimeError``).

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mg.gather(x, 1, mg.tensor([[0, 0], [1, 0]])).tolist()
    [[1.0, 1.0], [4.0, 3.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..devices import check_range
from ..errors import OutOfRangeError, ShapeError
from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES
from ..kernels.backends import to_numpy
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.array_kernels import scatter_arrays, scatter_reduce_arrays, spread_index
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_int, check_tensor, wrap_dim
from .registry import Attr, Input, defop, type_name
from .math import add, lt, where
from .shape import expand
from ..dispatch.amp import autocast_as

__all__ = ["gather", "scatter_add", "scatter", "scatter_reduce", "take_along_dim", "index_add", "index_fill", "index_copy",
           "index_reduce"]

CPU = Backend.CPU


# -- checks shared by the three ops (InferMeta) ---------------------------------------------


def _check_index(op: str, x: Any, index: Any, dim: int, src: Any = None) -> int:
    """PyTorch's checks in its order: ``dim`` in range, the index's dtype, ``src``'s dtype, then
    ``gather_shape_check`` / ``scatter_shape_check``; returns ``dim`` made non-negative. PyTorch names every
    scatter form ``scatter()`` in its dtype errors."""
    d = wrap_dim(op, dim, x.ndim)
    name = "gather" if op == "gather" else "scatter"
    if index.size and index.dtype not in (np.int64, np.int32):  # int32 indices are accepted, as recent PyTorch does
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index (got {_dt.from_numpy(index.dtype)})")
    if src is not None and src.dtype != x.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype "
                           f"(got {_dt.from_numpy(x.dtype)} and {_dt.from_numpy(src.dtype)})")
    if index.size == 0:
        return d
    if max(index.ndim, 1) != max(x.ndim, 1):
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as "
                           f"{'input' if op == 'gather' else 'self'} tensor "
                           f"(index has shape {tuple(index.shape)}, input {tuple(x.shape)})")
    sizes = lambda a: tuple(a.shape) if a.ndim else (1,)  # noqa: E731  (PyTorch's ensure_nonempty_size)
    ix, xs = sizes(index), sizes(x)
    for k in range(len(ix)):
        if k != d and ix[k] > xs[k]:
            if op == "gather":
                raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to be "
                                   f"no larger than self {list(x.shape)} apart from dimension {d}")
            break
    else:
        if src is None or all(i <= s for i, s in zip(ix, sizes(src))):
            return d
    tail = "" if src is None else f" and to be no larger size than src {list(src.shape)}"
    raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(x.shape)} apart from "
                       f"dimension {d}{tail}")


def _positions(op: str, x: np.ndarray, index: np.ndarray, d: int) -> tuple[Any, ...]:
    """The NumPy index of every element ``index`` names: ``index`` itself along ``d``, the element's
    own coordinate along every other dim. Out-of-range entries raise PyTorch's ``RuntimeError``."""
    size = x.shape[d] if x.ndim else 1
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = int(index[(index < 0) | (index >= size)].ravel()[0])
        raise RuntimeError(f"{op}(): index {bad} is out of bounds for dimension {d} with size {size}")
    grid = list(np.indices(index.shape, sparse=True))
    grid[d] = index
    return tuple(grid)


def _zeros(ops: Any, like: Any, shape: tuple[int, ...]) -> Any:
    """Zeros of ``like``'s dtype and device, broadcast to ``shape``: a 0-d ``fill`` of one element of ``like``,
    expanded (no creation op is needed in a backward formula; NaN or inf in ``like`` cannot leak in)."""
    zero = ops.fill(ops.sum(like), 0.0)
    return ops.expand(ops.reshape(zero, (1,) * len(shape)), shape)


def _src_grad(ops: Any, grad: Any, index: Any, dim: int, src_shape: tuple[int, ...]) -> Any:
    """``gather(grad, dim, index)``, padded with zeros where ``src`` is larger than ``index``."""
    picked = ops.gather(grad, index, dim)
    if tuple(picked.shape) == tuple(src_shape):
        return picked
    return ops.getitem_grad(picked, tuple(slice(0, s) for s in picked.shape), src_shape)


# -- gather ------------------------------------------------------------------------------------


def infer_gather(op: str, x: Any, index: Any, dim: int) -> tuple[tuple[int, ...], Any]:
    """InferMeta: the output has ``index``'s shape and ``x``'s dtype."""
    _check_index(op, x, index, dim)
    return tuple(index.shape), x.dtype


@register_kernel("gather", CPU, dtypes=ALL_DTYPES)
def gather_cpu(x: np.ndarray, index: np.ndarray, dim: int) -> np.ndarray:
    """``out[pos] = x[pos with index[pos] along dim]`` by NumPy advanced indexing."""
    d = dim % max(x.ndim, 1)
    if index.size == 0:
        return np.empty(index.shape, dtype=x.dtype)
    if x.ndim == 0:
        return np.asarray(x.reshape(1)[_positions("gather", x, index.reshape(-1), 0)].reshape(index.shape))
    return np.asarray(x[_positions("gather", x, index, d)])


gather_op = defop(
    "gather",
    inputs=("x", Input("index", differentiable=False)),
    attrs=(Attr("dim", check=check_int),),
    infer_meta=infer_gather,
    save=("index",),
    layout="contiguous",  # PyTorch allocates a gather's result row-major, whatever the index's layout
    doc="out[..., i, ...] = x[..., index[..., i, ...], ...] along dim",
)


@gather_op.def_backward
def gather_backward(ctx: Any, grad: Any) -> tuple[Any, None]:
    """Each picked element sends its gradient back to where it came from (repeats add up)."""
    (index,) = ctx.saved()
    ops = ctx.ops
    return (ops.scatter_add(_zeros(ops, grad, ctx.input_shape(0)), index, grad, ctx.attrs["dim"]), None)


# -- scatter_add and scatter ---------------------------------------------------------------------


def infer_scatter(op: str, x: Any, index: Any, src: Any, dim: int) -> tuple[tuple[int, ...], Any]:
    """InferMeta: the output has ``x``'s shape and dtype; ``src`` must have the same dtype."""
    _check_index(op, x, index, dim, src)
    return tuple(x.shape), x.dtype


def _scatter_kernel(op: str, accumulate: bool) -> Any:
    def kernel(x: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int) -> np.ndarray:
        # (np.add.at: repeated indices accumulate; the GPU kernel passes CuPy's atomic scatter_add)
        return scatter_arrays(x, index, src, dim, lambda out, idx, d: _positions(op, out, idx, d),
                              np.add.at if accumulate else None)

    kernel.__name__ = f"{op}_cpu"
    return kernel


scatter_add_cpu = register_kernel("scatter_add", CPU, dtypes=ALL_DTYPES)(_scatter_kernel("scatter_add", True))
scatter_cpu = register_kernel("scatter", CPU, dtypes=ALL_DTYPES)(_scatter_kernel("scatter", False))

_SCATTER_INPUTS = ("x", Input("index", differentiable=False), "src")

scatter_add_op = defop(
    "scatter_add",
    layout="contiguous",  # PyTorch's out-of-place scatter copies the input row-major
    inputs=_SCATTER_INPUTS,
    attrs=(Attr("dim", check=check_int),),
    infer_meta=infer_scatter,
    save=("index",),
    doc="a copy of x with src added at index along dim (repeated indices accumulate)",
)


@scatter_add_op.def_backward
def scatter_add_backward(ctx: Any, grad: Any) -> tuple[Any, None, Any]:
    """``x`` passes the gradient through; each ``src`` element gets the gradient of where it landed."""
    (index,) = ctx.saved()
    ops = ctx.ops
    gsrc = _src_grad(ops, grad, index, ctx.attrs["dim"], ctx.input_shape(2)) if ctx.needs(2) else None
    return (grad if ctx.needs(0) else None, None, gsrc)


scatter_op = defop(
    "scatter",
    layout="contiguous",  # PyTorch's out-of-place scatter copies the input row-major
    inputs=_SCATTER_INPUTS,
    attrs=(Attr("dim", check=check_int),),
    infer_meta=infer_scatter,
    save=("index",),
    doc="a copy of x with src written at index along dim",
)


@scatter_op.def_backward
def scatter_backward(ctx: Any, grad: Any) -> tuple[Any, None, Any]:
    """Overwritten positions of ``x`` get no gradient; ``src`` gets the gradient of where it landed."""
    (index,) = ctx.saved()
    ops = ctx.ops
    dim = ctx.attrs["dim"]
    gx = gsrc = None
    if ctx.needs(0):
        gx = ops.scatter(grad, index, _zeros(ops, grad, tuple(index.shape)), dim)
    if ctx.needs(2):
        gsrc = _src_grad(ops, grad, index, dim, ctx.input_shape(2))
    return (gx, None, gsrc)


def infer_scatter_value(op: str, x: Any, index: Any, dim: int, value: Any = 0) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``x``'s shape and dtype; ``index`` checked as ``scatter``'s."""
    _check_index(op, x, index, dim)
    return tuple(x.shape), x.dtype


@register_kernel("scatter_value", CPU, dtypes=ALL_DTYPES)
def scatter_value_cpu(x: np.ndarray, index: np.ndarray, dim: int, value: Any = 0) -> np.ndarray:
    """``scatter`` of ``value`` at every position ``index`` names."""
    return scatter_cpu(x, index, np.full(index.shape, value, dtype=x.dtype), dim)


scatter_value_op = defop(
    "scatter_value",
    layout="contiguous",  # PyTorch's out-of-place scatter copies the input row-major
    inputs=("x", Input("index", differentiable=False)),
    attrs=(Attr("dim", check=check_int), Attr("value", 0)),
    infer_meta=infer_scatter_value,
    save=("index",),
    doc="a copy of x with the number value written at index along dim (PyTorch's scatter.value)",
)


@scatter_value_op.def_backward
def scatter_value_backward(ctx: Any, grad: Any) -> tuple[Any, None]:
    """The overwritten positions of ``x`` get no gradient (``scatter``'s formula for ``x``)."""
    (index,) = ctx.saved()
    ops = ctx.ops
    return (ops.scatter(grad, index, _zeros(ops, grad, tuple(index.shape)), ctx.attrs["dim"]), None)


# -- PyTorch's signatures ------------------------------------------------------------------------


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """Values of ``input`` along ``dim`` at ``index`` (``torch.gather``); ``sparse_grad`` is accepted and ignored.

    Example:
        >>> import minigrad as mg
        >>> mg.gather(mg.tensor([10.0, 20.0, 30.0]), 0, mg.tensor([2, 2, 0])).tolist()
        [30.0, 30.0, 10.0]
    """
    check_tensor("gather", "input", 0, input)
    check_tensor("gather", "index", 2, index)
    return gather_op(input, index, check_int("gather", "dim", 1, dim))


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` with ``indices`` broadcast against ``input`` (``torch.take_along_dim``); ``dim=None``
    reads the flattened tensor."""
    check_tensor("take_along_dim", "input", 0, input)
    check_tensor("take_along_dim", "indices", 1, indices)
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{scalar_type_name(indices.dtype)}")
    if dim is not None and input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if dim is None:
        input, indices, d = input.reshape(-1), indices.reshape(-1), 0
    else:
        d = wrap_dim("take_along_dim", check_int("take_along_dim", "dim", 2, dim), input.ndim)
    if input.ndim:  # take_along_dim counts negative indices from the end, as NumPy does (gather does not)
        indices = where(lt(indices, 0), add(indices, input.shape[d]), indices)
    if dim is None:  # the flattened tensor: no broadcast (PyTorch's gather of the two views)
        return gather_op(input, indices, 0)
    shape = [max(a, b) for a, b in zip(input.shape, indices.shape)]
    x_shape = [s if k == d else shape[k] for k, s in enumerate(input.shape)]
    i_shape = [s if k == d else shape[k] for k, s in enumerate(indices.shape)]
    # both broadcast by expand, as PyTorch's (an ExpandBackward0 of the same shape too)
    return gather_op(expand(input, tuple(x_shape)), expand(indices, tuple(i_shape)), d)


def _src(op: str, input: Tensor, index: Tensor, src: Any, value: Any) -> Tensor:
    """``src`` as a tensor: the given one, or ``value`` broadcast to ``index``'s shape (no gradient)."""
    if src is not None and value is not None:
        raise TypeError(f"{op}(): pass either 'src' or 'value', not both")
    src = value if src is None else src
    if isinstance(src, Tensor):
        return src
    if isinstance(src, bool) or not isinstance(src, (int, float)):
        raise TypeError(f"{op}(): argument 'src' (position 3) must be Tensor or a number, but got {type_name(src)}")
    return expand(Tensor._scalar(src, input.dtype, input.device), tuple(index.shape))


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (``torch.scatter_add``).

    Example:
        >>> import minigrad as mg
        >>> mg.scatter_add(mg.zeros(3), 0, mg.tensor([0, 0, 2]), mg.tensor([1.0, 2.0, 5.0])).tolist()
        [3.0, 0.0, 5.0]
    """
    check_tensor("scatter_add", "input", 0, input)
    check_tensor("scatter_add", "index", 2, index)
    check_tensor("scatter_add", "src", 3, src)
    return scatter_add_op(input, index, src, check_int("scatter_add", "dim", 1, dim))


def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor, or a number ``value``) written at ``index`` along ``dim``
    (``torch.scatter``). ``reduce="add"`` is ``scatter_add``; ``"multiply"`` is not supported."""
    check_tensor("scatter", "input", 0, input)
    check_tensor("scatter", "index", 2, index)
    dim = check_int("scatter", "dim", 1, dim)
    number = value if src is None else src
    if reduce is None and src is not None and value is None and not isinstance(src, Tensor) or \
            reduce is None and src is None and value is not None and not isinstance(value, Tensor):
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise TypeError(f"scatter(): argument 'src' (position 3) must be Tensor or a number, but got "
                            f"{type_name(number)}")
        return scatter_value_op(input, index, dim=dim, value=number)  # scatter.value: ScatterBackward1
    s = _src("scatter", input, index, src, value)
    if reduce is None:
        return scatter_op(input, index, s, dim)
    if reduce == "add":
        return scatter_add_op(input, index, s, dim)
    raise ShapeError(f"scatter(): reduce={reduce!r} is not supported (None or 'add')")


# -- scatter_reduce: the scatter with a reduction, one op (ScatterReduceBackward0) -------------------
#
# ``scatter_reduce(input, dim, index, src, reduce, include_self=True)`` sends each ``src`` element where
# ``scatter`` would write it and reduces what arrives at one position ("sum", "prod", "mean", "amax",
# "amin"), with the position's own value when ``include_self``. Its gradients are PyTorch's
# ``scatter_reduce_backward`` (``torch/csrc/autograd/FunctionsManual.cpp``): a mean divides by the count, a
# maximum shares the gradient evenly among the elements equal to it (``self`` counted when it equals the result,
# even where ``include_self=False`` left it out - PyTorch's formula), a product divides the result by the
# factor (a zero factor: the product of the others, recomputed with that zero made 1).

#: The reductions ``scatter_reduce`` knows; "max" and "min" are accepted too as PyTorch's forward accepts them
#: (its backward then refuses them).
SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_REDUCE_ALIASES = {"max": "amax", "min": "amin"}


def infer_scatter_reduce(op: str, x: Any, index: Any, src: Any, dim: int, reduce: str = "sum",
                         include_self: bool = True) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``scatter``'s checks; a mean of bools is refused as PyTorch's CPU kernel refuses it."""
    if reduce == "mean" and x.dtype == np.bool_:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    return infer_scatter(op, x, index, src, dim)


class _HostScatter:
    """NumPy's unbuffered ``ufunc.at`` (repeated positions combine), by ufunc name."""

    add, multiply, maximum, minimum = np.add.at, np.multiply.at, np.maximum.at, np.minimum.at


@register_kernel("scatter_reduce", CPU, dtypes=ALL_DTYPES)
def scatter_reduce_cpu(x: np.ndarray, index: np.ndarray, src: np.ndarray, dim: int, reduce: str = "sum",
                       include_self: bool = True) -> np.ndarray:
    """``x`` with the ``src`` elements reduced into the positions ``index`` names (``np.<ufunc>.at``)."""
    return scatter_reduce_arrays(np, _HostScatter, x, index, src, dim, _REDUCE_ALIASES.get(reduce, reduce),
                                 include_self, lambda out, idx, d: _positions("scatter_reduce", out, idx, d))

scatter_reduce_op = defop(
    "scatter_reduce",
    layout="contiguous",  # PyTorch's out-of-place scatter copies the input row-major
    inputs=_SCATTER_INPUTS,
    attrs=(Attr("dim", check=check_int), Attr("reduce", "sum"), Attr("include_self", True)),
    infer_meta=infer_scatter_reduce,
    save=("x", "index", "src", "out"),
    doc="a copy of x with src reduced (sum, prod, mean, amax, amin) into the positions index names along dim",
)


@scatter_reduce_op.def_backward
def scatter_reduce_backward(ctx: Any, grad: Any) -> tuple[Any, None, Any]:
    """PyTorch's ``scatter_reduce_backward``, one branch per reduction (the module's notes above)."""
    x, index, src, out = ctx.saved()
    ops = ctx.ops
    dim, reduce, include_self = ctx.attrs["dim"], ctx.attrs["reduce"], ctx.attrs["include_self"]
    if reduce not in SCATTER_REDUCTIONS:
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")
    src_shape = tuple(src.shape)
    if tuple(index.shape) != src_shape:  # only the elements index names take part (PyTorch's formula breaks here)
        src = ops.getitem(src, tuple(slice(0, s) for s in index.shape))
    gx, gsrc = _SCATTER_REDUCE_GRADS[reduce](ops, grad, x, index, src, out, dim, include_self)
    if not include_self:
        gx = ops.scatter_value(gx, index, dim=dim, value=0.0)
    if ctx.needs(2) and tuple(gsrc.shape) != src_shape:
        gsrc = ops.getitem_grad(gsrc, tuple(slice(0, s) for s in gsrc.shape), src_shape)
    return (gx if ctx.needs(0) else None, None, gsrc if ctx.needs(2) else None)


def _sum_grads(ops: Any, grad: Any, x: Any, index: Any, src: Any, out: Any, dim: int, include_self: bool) -> Any:
    """Every element that took part gets the gradient of its position."""
    return grad, ops.gather(grad, index, dim)


def _mean_grads(ops: Any, grad: Any, x: Any, index: Any, src: Any, out: Any, dim: int, include_self: bool) -> Any:
    """The gradient of a position divided by its count (``self`` counted when included; 0 made 1)."""
    start = ops.fill(grad, 1.0 if include_self else 0.0)
    count = ops.scatter_add(start, index, ops.fill(src, 1.0), dim)
    count = ops.where(ops.eq(count, 0.0), 1.0, count)
    return ops.div(grad, count), ops.div(ops.gather(grad, index, dim), ops.gather(count, index, dim))


def _extreme_grads(ops: Any, grad: Any, x: Any, index: Any, src: Any, out: Any, dim: int, include_self: bool) -> Any:
    """The gradient of a position shared evenly among the elements equal to its result."""
    x_is = ops.cast(ops.eq(x, out), grad.dtype)
    src_is = ops.cast(ops.eq(src, ops.gather(out, index, dim)), grad.dtype)
    shared = ops.div(grad, ops.scatter_add(x_is, index, src_is, dim))
    return ops.mul(x_is, shared), ops.mul(src_is, ops.gather(shared, index, dim))


def _prod_grads(ops: Any, grad: Any, x: Any, index: Any, src: Any, out: Any, dim: int, include_self: bool) -> Any:
    """The result divided by the factor; for a zero factor, the product of the others, recomputed with that zero
    made 1 (where two zeros meet at a position, the others' product is 0 too)."""
    attrs = {"dim": dim, "reduce": "prod", "include_self": include_self}
    x_masked = ops.where(ops.eq(x, 0.0), 1.0, x)
    gx = ops.div(ops.mul(grad, ops.scatter_reduce(x_masked, index, src, **attrs)), x_masked)
    src_zero = ops.eq(src, 0.0)
    zeros_at = ops.scatter_add(ops.fill(x, 0.0), index, ops.cast(src_zero, grad.dtype), dim)
    single = ops.bitwise_and(src_zero, ops.eq(ops.gather(zeros_at, index, dim), 1.0))
    others = ops.scatter_reduce(x, index, ops.where(single, 1.0, src), **attrs)
    gsrc = ops.where(single, ops.gather(ops.mul(grad, others), index, dim),
                     ops.div(ops.gather(ops.mul(grad, out), index, dim), ops.where(src_zero, 1.0, src)))
    return gx, gsrc


_SCATTER_REDUCE_GRADS = {"sum": _sum_grads, "mean": _mean_grads, "amax": _extreme_grads, "amin": _extreme_grads,
                         "prod": _prod_grads}


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """A copy of ``input`` with the ``src`` elements reduced into the positions ``index`` names along ``dim``
    (``torch.scatter_reduce``): ``reduce`` is "sum", "prod", "mean" (rounding down for integers), "amax" or
    "amin"; ``include_self=False`` leaves ``input``'s own value out where something arrives. One op
    (``ScatterReduceBackward0``).

    Example:
        >>> import minigrad as mg
        >>> x = mg.tensor([1.0, 2.0, 3.0])
        >>> mg.scatter_reduce(x, 0, mg.tensor([0, 0, 2]), mg.tensor([4.0, 5.0, 6.0]), "amax").tolist()
        [5.0, 2.0, 6.0]
        >>> x.scatter_reduce(0, mg.tensor([0, 0, 2]), mg.tensor([4.0, 5.0, 6.0]), "mean", include_self=False).tolist()
        [4.5, 2.0, 6.0]
    """
    check_tensor("scatter_reduce", "input", 0, input)
    check_tensor("scatter_reduce", "index", 2, index)
    check_tensor("scatter_reduce", "src", 3, src)
    dim = check_int("scatter_reduce", "dim", 1, dim)
    if not isinstance(reduce, str):
        raise TypeError(f"scatter_reduce(): argument 'reduce' (position 4) must be str, not {type_name(reduce)}")
    if reduce not in SCATTER_REDUCTIONS and reduce not in _REDUCE_ALIASES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return scatter_reduce_op(input, index, src, dim, reduce=reduce, include_self=bool(include_self))


#: Where PyTorch's index_copy and index_add refuse a negative index (index_fill counts it from the end), and
#: the error each raises for one out of range.
_INDEX_RANGE = {
    "index_copy": (0, IndexError, "index_copy_(): "),
    "index_add": (0, RuntimeError, ""),
    "index_fill": (None, IndexError, ""),
}


def _index_along(op: str, input: Tensor, dim: Any, index: Any) -> tuple[int, Any]:
    """``dim`` made non-negative and ``index`` as a flat int64 array, checked as PyTorch checks them."""
    check_tensor(op, "input", 0, input)
    check_tensor(op, "index", 2, index)
    dim = check_int(op, "dim", 1, dim)
    if op == "index_fill" and index.dtype is not _dt.int64:  # (PyTorch checks the dtype before the dim)
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = wrap_dim(op, dim, input.ndim)
    if index.ndim > 1 and op == "index_fill":
        raise RuntimeError("Index has to be a vector/scalar")
    if index.ndim > 1 or index.dtype not in (_dt.int64, _dt.int32):
        raise IndexError(f"{op}(): Index is supposed to be a vector (1-D int64 tensor), but got {index.dtype} "
                         f"of shape {tuple(index.shape)}")
    size = input.shape[d] if input.ndim else 1
    return d, _range_checked(op, index, d, size) % max(size, 1)


def _range_checked(op: str, index: Tensor, d: int, size: int) -> Any:
    low, error, prefix = _INDEX_RANGE[op]
    return _flat_index(index, size, lambda bad: error(f"{prefix}index {bad} is out of bounds for dimension {d} with size "
                                                      f"{size}"), -size if low is None else low)


def _flat_index(index: Tensor, size: int, error: Any, low: int) -> Any:
    """``index``'s values as a flat int64 array in ``[low, size)`` (``error(bad value)`` otherwise). A GPU index stays
    on the device: its range checked there, a bad one refused at the next sync (``check_range``), as reading it on
    the host would make every call wait for the device."""
    if index._device != "cpu":
        data = index._data.reshape(-1).astype(np.int64, copy=False)
        check_range(data, index._device, low, size, lambda bad, _: error(int(bad[0])))
        return data
    idx = to_numpy(index._data).astype(np.int64).reshape(-1)
    if idx.size and (idx.min() < low or idx.max() >= size):
        raise error(int(idx[(idx < low) | (idx >= size)][0]))
    return idx


# -- index_add, index_copy, index_fill: writes of whole slices along one dim ----------------------------
#
# Each is one op, as PyTorch's (IndexAddBackward0, IndexCopyBackward0, IndexFillBackward0/1): ``index`` (1-D,
# checked by the public function, where a GPU index stays on the device) rides as an attribute, as
# ``index_select``'s does, so the node's edges are the tensors' only; each gradient is an ``index_select``
# of ``grad`` or an ``index_fill`` of it with 0.


def _slices(index: Any, dim: int, ndim: int) -> tuple[Any, ...]:
    """The slices at ``index`` along ``dim`` as an index (``index_select``'s read, the write here)."""
    return (index,) if ndim == 0 else (slice(None),) * dim + (index,)


def _infer_index_write(op: str, x: Any, source: Any = None, index: Any = None, dim: int = 0,
                       **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``x``'s shape and dtype (the public functions checked ``index`` and ``source``)."""
    return tuple(x.shape), x.dtype


@register_kernel("index_add", CPU, dtypes=ALL_DTYPES)
def index_add_cpu(x: np.ndarray, source: np.ndarray, index: Any, dim: int, alpha: Any = 1) -> np.ndarray:
    """A row-major copy of ``x`` with ``alpha * source`` added at the slices (``np.add.at``: repeats add up)."""
    out = np.array(x, order="C", copy=True)
    src = source if alpha == 1 else np.asarray(source * alpha).astype(x.dtype)
    np.add.at(out.reshape(1) if x.ndim == 0 else out, _slices(to_numpy(index), dim, x.ndim),
              src.reshape(-1) if x.ndim == 0 else src)
    return out


@register_kernel("index_copy", CPU, dtypes=ALL_DTYPES)
def index_copy_cpu(x: np.ndarray, source: np.ndarray, index: Any, dim: int) -> np.ndarray:
    """A row-major copy of ``x`` with ``source`` written at the slices (a repeated index: the last write)."""
    out = np.array(x, order="C", copy=True)
    (out.reshape(1) if x.ndim == 0 else out)[_slices(to_numpy(index), dim, x.ndim)] = \
        source.reshape(-1) if x.ndim == 0 else source
    return out


def _fill_slices(x: np.ndarray, value: Any, index: Any, dim: int) -> np.ndarray:
    out = x.copy(order="K")  # PyTorch's clone: the input's layout
    (out.reshape(1) if x.ndim == 0 else out)[_slices(to_numpy(index), dim, x.ndim)] = value
    return out


@register_kernel("index_fill", CPU, dtypes=ALL_DTYPES)
def index_fill_cpu(x: np.ndarray, index: Any, dim: int, value: Any = 0) -> np.ndarray:
    """A copy of ``x`` (in its layout) with the slices set to the number ``value``."""
    return _fill_slices(x, value, index, dim)


@register_kernel("index_fill_tensor", CPU, dtypes=ALL_DTYPES)
def index_fill_tensor_cpu(x: np.ndarray, value: np.ndarray, index: Any, dim: int) -> np.ndarray:
    """A copy of ``x`` (in its layout) with the slices set to the 0-d ``value``."""
    return _fill_slices(x, value, index, dim)


_INDEX_ATTRS = (Attr("index"), Attr("dim", 0, check_int))

index_add_op = defop("index_add", inputs=("x", "source"), attrs=_INDEX_ATTRS + (Attr("alpha", 1),),
                     infer_meta=_infer_index_write, layout="contiguous",
                     doc="x with alpha * source added at the slices index (1-D) picks along dim (repeats add up)")
index_copy_op = defop("index_copy", inputs=("x", "source"), attrs=_INDEX_ATTRS, infer_meta=_infer_index_write,
                      layout="contiguous", doc="x with source written at the slices index (1-D) picks along dim")
index_fill_op = defop("index_fill", inputs=("x",), attrs=_INDEX_ATTRS + (Attr("value", 0),),
                      infer_meta=_infer_index_write, doc="x with the slices index (1-D) picks along dim set to value")
index_fill_tensor_op = defop("index_fill_tensor", inputs=("x", "value"), attrs=_INDEX_ATTRS, key_inputs=(0,),
                             infer_meta=_infer_index_write,
                             doc="x with the slices index (1-D) picks along dim set to a 0-d tensor value")


def _picked_grad(ctx: Any, grad: Any) -> Any:
    """``grad.index_select(dim, index)``: the gradient of what was written at the slices."""
    return ctx.ops.index_select(grad, index=ctx.attrs["index"], dim=ctx.attrs["dim"])


def _unfilled_grad(ctx: Any, grad: Any) -> Any:
    """``grad.index_fill(dim, index, 0)``: nothing goes back to the slices that were overwritten."""
    return ctx.ops.index_fill(grad, index=ctx.attrs["index"], dim=ctx.attrs["dim"], value=0.0)


@index_add_op.def_backward
def index_add_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``x`` passes the gradient through; ``source`` gets ``alpha`` times the gradient at its slices."""
    alpha = ctx.attrs["alpha"]
    gsrc = None
    if ctx.needs(1):
        gsrc = _picked_grad(ctx, grad)
        gsrc = gsrc if alpha == 1 else ctx.ops.mul(gsrc, alpha)
    return (grad if ctx.needs(0) else None, gsrc)


@index_copy_op.def_backward
def index_copy_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``x`` gets the gradient outside the written slices; ``source`` the gradient at them (each row of a
    repeated index too, as PyTorch's formula gives it)."""
    return (_unfilled_grad(ctx, grad) if ctx.needs(0) else None, _picked_grad(ctx, grad) if ctx.needs(1) else None)


@index_fill_op.def_backward
def index_fill_backward(ctx: Any, grad: Any) -> tuple[Any]:
    return (_unfilled_grad(ctx, grad),)


@index_fill_tensor_op.def_backward
def index_fill_tensor_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``x`` as the number form's; the 0-d ``value`` gets the sum of the gradient over the filled slices, each
    once where the index repeats (PyTorch's ``index_select`` at the unique indices): ``grad`` less its
    unfilled part is exactly ``grad`` there and 0 elsewhere."""
    ops = ctx.ops
    unfilled = _unfilled_grad(ctx, grad)
    gvalue = None
    if ctx.needs(1):
        gvalue = ops.sum(ops.sub(grad, unfilled))
        if ctx.input_dtype(1) is not None and gvalue.dtype != ctx.input_dtype(1).np:
            gvalue = ctx.ops.cast(gvalue, ctx.input_dtype(1))
    return (unfilled if ctx.needs(0) else None, gvalue)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source[..., k, ...]`` added at position ``index[k]`` along ``dim``
    (``torch.index_add``; repeated indices accumulate): one op (``IndexAddBackward0``); ``source`` gets
    ``alpha`` times the gradient read back at ``index``.

    Example:
        >>> import minigrad as mg
        >>> mg.index_add(mg.zeros(3), 0, mg.tensor([0, 0, 2]), mg.tensor([1.0, 2.0, 5.0])).tolist()
        [3.0, 0.0, 5.0]
    """
    check_tensor("index_add", "input", 0, input)
    check_tensor("index_add", "index", 2, index)
    check_tensor("index_add", "source", 3, source)
    dim = check_int("index_add", "dim", 1, dim)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"index_add(): argument 'alpha' must be a number, but got {type_name(alpha)}")
    d = wrap_dim("index_add", dim, input.ndim)
    if index.ndim > 1:  # PyTorch's index_func_meta_impl, in its order and words
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{scalar_type_name(index.dtype.np)} and size: {list(index.shape)}")
    if index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{scalar_type_name(index.dtype.np)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_add_(): self ({scalar_type_name(input.dtype.np)}) and source "
                           f"({scalar_type_name(source.dtype.np)}) must have the same scalar type")
    if d != 0 and d >= source.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    n = index.numel()
    if n != (source.shape[d] if source.ndim else 1):
        if not source.ndim:
            raise OutOfRangeError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({source.shape[d]}), for dim: {d}")
    if tuple(source.shape) != (tuple(input.shape[:d]) + (n,) + tuple(input.shape[d + 1:]) if input.ndim else (n,)) \
            and not (input.ndim == 0 and source.ndim == 0):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    size = input.shape[d] if input.ndim else 1
    idx = _range_checked("index_add", index, d, size)
    return index_add_op(input, source, index=idx, dim=d, alpha=alpha)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with the slices ``index`` picks along ``dim`` set to ``value`` (``torch.index_fill``;
    the Annotated Transformer's label smoothing): one op, ``IndexFillBackward0`` for a number ``value`` and
    ``IndexFillBackward1`` for a 0-d tensor, which gets the sum of the gradient over the filled slices.

    Example:
        >>> import minigrad as mg
        >>> mg.index_fill(mg.ones(2, 3), 1, mg.tensor([0, 2]), 0.0).tolist()
        [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if isinstance(value, Tensor) and value.ndim != 0:  # (PyTorch checks the value first)
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    d, idx = _index_along("index_fill", input, dim, index)
    if isinstance(value, Tensor):
        return index_fill_tensor_op(input, value, index=idx, dim=d)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"index_fill(): argument 'value' (position 3) must be Number or Tensor, "
                        f"but got {type_name(value)}")
    return index_fill_op(input, index=idx, dim=d, value=value)


@autocast_as("index_copy", composite=False)
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with ``source[..., k, ...]`` written at position ``index[k]`` along ``dim``
    (``torch.index_copy``; with a repeated index, which write wins is unspecified, as in PyTorch): one op
    (``IndexCopyBackward0``); ``input`` gets the gradient outside the written slices, ``source`` the gradient
    read back at ``index``.

    Example:
        >>> import minigrad as mg
        >>> mg.index_copy(mg.zeros(3), 0, mg.tensor([2, 0]), mg.tensor([5.0, 7.0])).tolist()
        [7.0, 0.0, 5.0]
    """
    check_tensor("index_copy", "input", 0, input)
    check_tensor("index_copy", "index", 2, index)
    check_tensor("index_copy", "source", 3, source)
    _index_copy_checks(input, wrap_dim("index_copy", check_int("index_copy", "dim", 1, dim), input.ndim), index,
                       source)
    d, idx = _index_along("index_copy", input, dim, index)
    return index_copy_op(input, source, index=idx, dim=d)


def _index_copy_checks(input: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    """PyTorch's ``index_copy`` checks in its words and order: the index's rank, a scalar source's one index,
    the ranks, the index's dtype, the dtypes, the slice shapes, the number of indices."""
    n = index.numel()
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype.np)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{scalar_type_name(input.dtype.np)} and (source) {scalar_type_name(source.dtype.np)}")
    mine = list(input.shape[:d] + input.shape[d + 1:])
    theirs = list(source.shape[:d] + source.shape[d + 1:])
    if mine != theirs:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, mine))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, theirs))} at dimension 0.")
    if source.ndim and n != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")


# -- index_reduce: slices reduced into the slices index picks, one op (IndexReduceBackward0) ----------------------
#
# ``index_reduce(input, dim, index, source, reduce, include_self=True)`` is ``scatter_reduce`` of whole slices:
# ``source[..., k, ...]`` goes to ``input[..., index[k], ...]``, reduced by "prod", "mean", "amax" or "amin". Its
# kernel is ``scatter_reduce``'s with ``index`` spread over the slices; its gradients are PyTorch's
# ``index_reduce_backward``, ``scatter_reduce``'s with ``index_select``/``index_add``/``index_fill`` for
# ``gather``/``scatter_add``/``scatter``.

INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@register_kernel("index_reduce", CPU, dtypes=ALL_DTYPES)
def index_reduce_cpu(x: np.ndarray, source: np.ndarray, index: Any, dim: int, reduce: str = "prod",
                     include_self: bool = True) -> np.ndarray:
    """``scatter_reduce`` of ``source`` at ``index`` spread over its slices (``np.<ufunc>.at``)."""
    return scatter_reduce_arrays(np, _HostScatter, x, spread_index(np, to_numpy(index), source, dim), source, dim,
                                 reduce, include_self, lambda out, idx, d: _positions("index_reduce", out, idx, d))


index_reduce_op = defop(
    "index_reduce", inputs=("x", "source"),
    attrs=_INDEX_ATTRS + (Attr("reduce", "prod"), Attr("include_self", True)),
    infer_meta=_infer_index_write, layout="contiguous", save=("x", "source", "out"),
    doc="x with the slices of source reduced (prod, mean, amax, amin) into the slices index (1-D) picks along dim")


@index_reduce_op.def_backward
def index_reduce_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's ``index_reduce_backward``: ``scatter_reduce``'s branches over whole slices."""
    x, source, out = ctx.saved()
    a = ctx.attrs
    gx, gsrc = _INDEX_REDUCE_GRADS[a["reduce"]](_SliceOps(ctx.ops, a["index"], a["dim"]), grad, x, source, out,
                                                 a["include_self"])
    if not a["include_self"]:
        gx = ctx.ops.index_fill(gx, index=a["index"], dim=a["dim"], value=0.0)
    return (gx if ctx.needs(0) else None, gsrc if ctx.needs(1) else None)


class _SliceOps:
    """``scatter_reduce``'s formula reads ``gather``, ``scatter_add`` and ``scatter_reduce``: here they are the
    slice forms, ``index_select``, ``index_add`` and ``index_reduce``, at the op's ``index`` along its ``dim``."""

    def __init__(self, ops: Any, index: Any, dim: int) -> None:
        self.ops, self.index, self.dim = ops, index, dim

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ops, name)

    def gather(self, t: Any, index: Any, dim: int) -> Any:
        return self.ops.index_select(t, index=self.index, dim=self.dim)

    def scatter_add(self, t: Any, index: Any, src: Any, dim: int) -> Any:
        return self.ops.index_add(t, src, index=self.index, dim=self.dim)

    def scatter_reduce(self, t: Any, index: Any, src: Any, **attrs: Any) -> Any:
        return self.ops.index_reduce(t, src, index=self.index, dim=self.dim, reduce=attrs["reduce"],
                                     include_self=attrs["include_self"])


def _slice_grads(grads: Any) -> Any:
    def slice_grads(ops: Any, grad: Any, x: Any, source: Any, out: Any, include_self: bool) -> Any:
        return grads(ops, grad, x, None, source, out, ops.dim, include_self)

    return slice_grads


_INDEX_REDUCE_GRADS = {name: _slice_grads(_SCATTER_REDUCE_GRADS[name]) for name in INDEX_REDUCTIONS}


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """``input`` with ``source[..., k, ...]`` reduced into the slice ``index[k]`` along ``dim``
    (``torch.index_reduce``): ``reduce`` is "prod", "mean" (rounding down for integers), "amax" or "amin";
    ``include_self=False`` leaves ``input``'s own values out of the slices something arrives at. One op
    (``IndexReduceBackward0``).

    Example:
        >>> import minigrad as mg
        >>> x = mg.ones(3, 2)
        >>> src = mg.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
        >>> x.index_reduce(0, mg.tensor([0, 2, 0]), src, "prod").tolist()
        [[12.0, 21.0], [1.0, 1.0], [4.0, 5.0]]
    """
    check_tensor("index_reduce", "input", 0, input)
    check_tensor("index_reduce", "index", 2, index)
    check_tensor("index_reduce", "source", 3, source)
    d = wrap_dim("index_reduce", check_int("index_reduce", "dim", 1, dim), input.ndim)
    if not isinstance(reduce, str):
        raise TypeError(f"index_reduce(): argument 'reduce' (position 4) must be str, not {type_name(reduce)}")
    if reduce not in INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    _check_slices_of(input, index, source, d)
    size = input.shape[d] if input.ndim else 1
    idx = _flat_index(index, size, lambda bad: IndexError(
        f"index out of range in self (index_reduce(): index {bad} is out of bounds for dimension {d} with size "
        f"{size})"), 0)
    return index_reduce_op(input, source, index=idx, dim=d, reduce=reduce, include_self=bool(include_self))


def _check_slices_of(input: Tensor, index: Tensor, source: Tensor, d: int) -> None:
    """PyTorch's checks of ``index_reduce``'s index (a vector of int64 or int32) and source (one slice per index,
    each of the input's slice shape, the input's dtype; bools refused)."""
    if index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{scalar_type_name(index.dtype.np)}")
    if index.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{scalar_type_name(index.dtype.np)} and size: {list(index.shape)}")
    along = source.shape[d] if source.ndim else 1
    if index.numel() != along:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({along}), for dim: {d}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({scalar_type_name(input.dtype.np)}) and source "
                           f"({scalar_type_name(source.dtype.np)}) must have the same scalar type")
    rest = [s for k, s in enumerate(source.shape) if k != d]
    if source.ndim != input.ndim or rest != [s for k, s in enumerate(input.shape) if k != d]:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if input.dtype is _dt.bool_:
        raise NotImplementedError('"index_func_" not implemented for \'Bool\'')
