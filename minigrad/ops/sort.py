"""Ordering along one dim: ``argsort`` (an op, no gradient), and the composites ``sort``, ``topk``,
``kthvalue``, ``median``, ``nanmedian``, ``mode``, ``quantile``, ``nanquantile``.

``argsort`` is the one sorting kernel: the int64 positions that put ``input``
in order along ``dim``. ``sort``, ``topk``, ``kthvalue`` and ``median(dim)``
read the values at those positions with an op each (``sort_values``...: one
gather), whose backward sends every value's gradient back to the position it
came from - PyTorch's ``value_selecting_reduction_backward`` - under PyTorch's
node name (``SortBackward0``, ``TopkBackward0``, ``KthvalueBackward0``,
``MedianBackward1``; ``mode``'s positions come from an op of their own, ``ModeBackward0``). ``sort``'s values and indices keep a dense input's
layout, as PyTorch's.

Order rules, as PyTorch's: NaN sorts above every number (last ascending,
first descending); ``stable=True`` keeps equal elements in their original
order; ``stable=False`` (the default) gives equal elements in the order PyTorch's
CPU sort leaves them, ``std::sort``'s (on a GPU, the stable order).

Example:
    >>> import minigrad as mg
    >>> v, i = mg.sort(mg.tensor([3.0, 1.0, 2.0]), descending=True)
    >>> v.tolist(), i.tolist()
    ([3.0, 2.0, 1.0], [0, 2, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..creation import full_like
from ..errors import OutOfRangeError, ShapeError
from ..dtypes import ALL_DTYPES
from ..kernels.array_kernels import mode_positions_arrays
from ..kernels.key import Backend
from ..kernels.quick_select import quick_select_position
from ..kernels.std_sort import nth_element, sorted_positions, std_sort, topk_positions
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_int, check_tensor, wrap_dim
from .argmax import argmax
from .logical import any as any_
from .math import cast, where
from .registry import Attr, Input, defop, type_name
from .shape import getitem, reshape, squeeze
from .reduce import _picked_backward, _picked_meta, evenly_distributed, max_values_cpu, return_types
from .special_values import isnan
from ..dispatch.amp import autocast_as

__all__ = ["argsort", "sort", "topk", "msort", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile"]


def infer_argsort(op: str, x: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """InferMeta: int64 positions of ``x``'s shape; ``dim`` must name one of ``x``'s dims."""
    wrap_dim(op, dim, x.ndim)
    return tuple(x.shape), np.dtype(np.int64)


@register_kernel("argsort", Backend.CPU, dtypes=ALL_DTYPES)
def argsort_cpu(x: np.ndarray, dim: int = -1, descending: bool = False, stable: bool = False) -> np.ndarray:
    """A stable NumPy argsort; descending order sorts the reversed array and reverses back, which keeps
    ties in their original order and puts NaN first. Without ``stable``, PyTorch's CPU sort is ``std::sort``:
    where a slice longer than 16 (below that, an insertion sort: stable) holds ties, or NaNs, that algorithm
    orders them, run here in Python (``std_sort.sorted_positions``), as ``mode`` runs it."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if not descending:
        order = np.argsort(x, axis=dim, kind="stable").astype(np.int64, copy=False)
    else:
        n = x.shape[dim]
        rev = np.flip(x, axis=dim)
        order = np.ascontiguousarray(n - 1 - np.flip(np.argsort(rev, axis=dim, kind="stable"), axis=dim),
                                     dtype=np.int64)
    if stable or x.shape[dim] <= 16 or x.size == 0:
        return order
    return _std_sort_order(x, order, dim % x.ndim, descending)


def _std_sort_order(x: np.ndarray, order: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """``order`` (stable) with each slice that holds equal values, or two NaNs, put in ``std::sort``'s order."""
    n = x.shape[d]
    rows = np.moveaxis(x, d, -1).reshape(-1, n)
    positions = np.moveaxis(order, d, -1).reshape(-1, n).copy()
    ordered = np.take_along_axis(rows, positions, axis=1)
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if x.dtype.kind == "f":
        tied |= np.isnan(rows).sum(axis=1) > 1
    if not tied.any():
        return order
    for r in np.flatnonzero(tied):
        positions[r] = sorted_positions(rows[r].tolist(), descending)
    shape = tuple(s for k, s in enumerate(x.shape) if k != d) + (n,)
    return np.ascontiguousarray(np.moveaxis(positions.reshape(shape), -1, d))


argsort_op = defop(
    "argsort",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int), Attr("descending", False, check_bool), Attr("stable", False, check_bool)),
    infer_meta=infer_argsort,
    layout="elementwise",  # the input's layout (a dense one's strides), as PyTorch's sort gives its indices
    differentiable=False,
    doc="the int64 positions that sort x along dim (stable; NaN counts as the largest value)",
)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The positions that sort ``input`` along ``dim`` (``torch.argsort``), int64, no gradient.

    Example:
        >>> import minigrad as mg
        >>> mg.argsort(mg.tensor([3.0, 1.0, 2.0])).tolist()
        [1, 2, 0]
    """
    check_tensor("argsort", "input", 0, input)
    return argsort_op(input, dim, descending, stable)


# -- the values at the positions argsort found: one op per function, for PyTorch's node names ------------


def _picked_values_cpu(x: np.ndarray, indices: np.ndarray, dim: int = 0, keepdim: bool = True) -> np.ndarray:
    """``max(dim)``'s gather (``reduce.max_values_cpu``); a 0-d ``x`` is its own value."""
    return x.copy() if x.ndim == 0 else max_values_cpu(x, indices, dim, keepdim)


def _picked_values_op(name: str, layout: str, doc: str) -> Any:
    register_kernel(name, Backend.CPU, dtypes=ALL_DTYPES, name=f"cpu/{name}")(_picked_values_cpu)
    op = defop(name, inputs=("x", Input("indices", differentiable=False)),
               attrs=(Attr("dim", 0, check_int), Attr("keepdim", True, check_bool)), infer_meta=_picked_meta,
               save=("indices",), key_inputs=(0,), layout=layout, doc=doc)
    op.def_backward(_picked_backward)  # PyTorch's value_selecting_reduction_backward, as max(dim)'s
    return op


# sort's values keep the input's layout (a dense one's strides), as PyTorch's meta function gives them
sort_values = _picked_values_op("sort_values", "elementwise", "sort's values: x at the positions argsort found "
                                                              "(PyTorch's SortBackward0)")
topk_values = _picked_values_op("topk_values", "contiguous", "topk's values: x at the positions topk_indices "
                                                             "found (PyTorch's TopkBackward0)")
kthvalue_values = _picked_values_op("kthvalue_values", "contiguous", "kthvalue's values: x at the position "
                                                                     "kthvalue_indices found (PyTorch's KthvalueBackward0)")
median_values = _picked_values_op("median_values", "contiguous", "median(dim)'s values: x at the middle position "
                                                                 "argsort found (PyTorch's MedianBackward1)")


def _flat_value_cpu(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The element of ``x`` at the flat position ``index`` (a 1-element int64 array), as a 0-d array."""
    return x.reshape(-1)[index.reshape(-1)].reshape(())


def _median_all_backward(ctx: Any, g: Any) -> tuple[Any, None]:
    """PyTorch's ``evenly_distribute_backward``: the gradient shared among the elements equal to the median
    (the NaNs, when it is NaN), zeros elsewhere."""
    x, out = ctx.saved()
    return evenly_distributed(ctx, g, x, out), None


register_kernel("median_all", Backend.CPU, dtypes=ALL_DTYPES, name="cpu/median_all")(_flat_value_cpu)
median_all = defop("median_all", inputs=("x", Input("index", differentiable=False)),
                   infer_meta=lambda op, x, index: ((), x.dtype), save=("x", "out"), key_inputs=(0,),
                   doc="median()'s value: the element of x at the flat position found (PyTorch's "
                       "MedianBackward0)")
median_all.def_backward(_median_all_backward)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """``(values, indices)`` of ``input`` sorted along ``dim`` (``torch.sort``): ``argsort``, then the values
    read at its positions (``sort_values``, whose backward puts each value's gradient back where the value came
    from)."""
    check_tensor("sort", "input", 0, input)
    indices = argsort_op(input, dim, descending, stable)
    d = dim % max(input.ndim, 1)
    return return_types.sort(sort_values(input, indices, d, True), indices)


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values`` (``torch.msort``)."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements along ``dim``
    (``torch.topk``). Composite: the positions (``topk_indices``: among ties, and in the order of
    ``sorted=False``, those PyTorch's CPU kernel gives; on a GPU, the stable order's first ``k``), then
    ``gather``.

    Example:
        >>> import minigrad as mg
        >>> mg.topk(mg.tensor([1.0, 5.0, 3.0, 4.0]), 2).indices.tolist()
        [1, 3]
    """
    check_tensor("topk", "input", 0, input)
    k = check_int("topk", "k", 1, k)
    dim = check_int("topk", "dim", 2, dim)
    check_bool("topk", "largest", 3, largest)
    check_bool("topk", "sorted", 4, sorted)
    d = wrap_dim("topk", dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk(): selected index k out of range (k={k}, size {size} along dim {dim})")
    if input.ndim == 0:
        order = argsort_op(input, d, largest, True)
        if k != size:
            order = getitem(order, (slice(None),) * d + (slice(0, k),))
    else:
        order = topk_indices_op(input, k, d, largest, sorted)
    return return_types.topk(topk_values(input, order, d, True), order)


def infer_topk_indices(op: str, x: Any, k: int = 1, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """InferMeta: int64 positions of ``x``'s shape with ``k`` along ``dim``."""
    d = wrap_dim(op, dim, x.ndim)
    return tuple(k if j == d else s for j, s in enumerate(x.shape)), np.dtype(np.int64)


@register_kernel("topk_indices", Backend.CPU, dtypes=ALL_DTYPES)
def topk_indices_cpu(x: np.ndarray, k: int = 1, dim: int = -1, largest: bool = True, sorted: bool = True) -> np.ndarray:
    """Per slice, the positions of the ``k`` largest (smallest) values: the stable order's first ``k``, which are
    PyTorch's wherever its result is in sorted order and no value among the first ``k + 1`` is tied; elsewhere
    (ties, or an unsorted result: ``sorted=False`` with ``k * 64 > n``) PyTorch's ``partial_sort``/``nth_element``
    decide, run here in Python (``std_sort.topk_positions``)."""
    d = dim % x.ndim
    n = x.shape[d]
    order = argsort_cpu(x, d, largest, True)
    found = np.take(order, np.arange(k), axis=d)
    if k == 0 or x.size == 0:
        return np.ascontiguousarray(found)
    rows = np.moveaxis(x, d, -1).reshape(-1, n)
    positions = np.moveaxis(found, d, -1).reshape(-1, k).copy()
    if sorted or k == 1 or k * 64 <= n:  # a result in sorted order: only ties among the first k + 1 move it
        first = np.moveaxis(np.take(order, np.arange(min(k + 1, n)), axis=d), d, -1).reshape(len(rows), -1)
        head = np.take_along_axis(rows, first, axis=1)
        need = (head[:, 1:] == head[:, :-1]).any(axis=1)
        if x.dtype.kind == "f":
            need |= np.isnan(head).sum(axis=1) > 1
    else:
        need = np.ones(len(rows), dtype=bool)
    for r in np.flatnonzero(need):
        positions[r] = topk_positions(rows[r].tolist(), k, largest, sorted)
    shape = tuple(s for j, s in enumerate(x.shape) if j != d) + (k,)
    return np.ascontiguousarray(np.moveaxis(positions.reshape(shape), -1, d))


topk_indices_op = defop(
    "topk_indices",
    inputs=("x",),
    attrs=(Attr("k", 1, check_int), Attr("dim", -1, check_int), Attr("largest", True, check_bool),
           Attr("sorted", True, check_bool)),
    infer_meta=infer_topk_indices,
    differentiable=False,
    doc="int64 positions, per slice along dim, of the k largest (smallest) values (PyTorch's CPU choice and order "
        "among ties)",
)


def infer_kth_indices(op: str, x: Any, k: int = 1, dim: int = -1) -> Any:
    """InferMeta: int64 positions of ``x``'s shape with ``dim`` kept, of size 1."""
    d = wrap_dim(op, dim, x.ndim)
    return tuple(1 if j == d else s for j, s in enumerate(x.shape)), np.dtype(np.int64)


@register_kernel("kthvalue_indices", Backend.CPU, dtypes=ALL_DTYPES)
def kthvalue_indices_cpu(x: np.ndarray, k: int = 1, dim: int = -1) -> np.ndarray:
    """Per slice, the position of the ``k``-th smallest value: the stable order's ``k``-th, which is PyTorch's
    wherever the value is not tied; where it is (or is one of several NaNs), PyTorch's quickselect decides,
    run here in Python (``kernels/quick_select.py``)."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    d = dim % x.ndim
    found = np.take(np.argsort(x, axis=d, kind="stable"), [k - 1], axis=d).astype(np.int64, copy=False)
    n = x.shape[d]
    rows = np.moveaxis(x, d, -1).reshape(-1, n)
    positions = np.moveaxis(found, d, -1).reshape(-1).copy()
    value = rows[np.arange(len(rows)), positions]
    same = rows == value[:, None]
    if x.dtype.kind == "f":
        same |= np.isnan(rows) & np.isnan(value)[:, None]
    for r in np.flatnonzero(same.sum(axis=1) > 1):
        positions[r] = quick_select_position(rows[r].tolist(), k - 1)
    return np.ascontiguousarray(np.moveaxis(positions.reshape(found.shape[:d] + found.shape[d + 1:] + (1,)), -1, d))


kthvalue_indices_op = defop(
    "kthvalue_indices",
    inputs=("x",),
    attrs=(Attr("k", 1, check_int), Attr("dim", -1, check_int)),
    infer_meta=infer_kth_indices,
    differentiable=False,
    doc="int64 position, per slice along dim (kept), of the k-th smallest value (PyTorch's CPU choice among ties)",
)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)`` of the ``k``-th smallest element (1-based) along ``dim`` (``torch.kthvalue``).

    Composite: the position (``kthvalue_indices``: among equal values, the one PyTorch's CPU quickselect
    returns), then ``gather``; the gradient goes to that element.
    """
    check_tensor("kthvalue", "input", 0, input)
    k = check_int("kthvalue", "k", 1, k)
    dim = check_int("kthvalue", "dim", 2, dim)
    check_bool("kthvalue", "keepdim", 3, keepdim)
    d = wrap_dim("kthvalue", dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if size == 0:
        raise OutOfRangeError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} (k={k}, size {size})")
    return return_types.kthvalue(*_kth(kthvalue_values, input, kthvalue_indices_op(input, k, d), d, keepdim))


def _kth(values_op: Any, input: Tensor, order: Tensor, d: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    """The values at the one position per slice in ``order`` (kept along ``d``), and the positions, ``d``
    dropped from both unless ``keepdim``."""
    if not keepdim and input.ndim:
        order = squeeze(order, d)
    return values_op(input, order, d, keepdim or not input.ndim), order


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median (``torch.median``): of all elements (a 0-d tensor) when ``dim`` is None, else
    ``(values, indices)`` along ``dim``. Composite: the stable order's ``(n + 1) // 2``-th position (PyTorch's
    CPU kernel breaks ties by position), or, where there is a NaN, the first NaN's: the median is NaN, as
    PyTorch's. The gradient of ``median()`` is shared among the elements equal to it (PyTorch's
    ``evenly_distribute_backward``), of ``median(dim)`` goes to the position returned."""
    check_tensor("median", "input", 0, input)
    if dim is None:
        n = input.numel()
        if n == 0:
            raise RuntimeError("median(): cannot compute the median of an empty tensor")
        flat = reshape(input, (-1,))
        order = _first_nan_else(flat, 0, getitem(argsort_op(flat, 0, False, True), (slice((n - 1) // 2, (n + 1) // 2),)))
        return median_all(input, order)
    d = check_int("median", "dim", 1, dim)
    check_bool("median", "keepdim", 2, keepdim)
    axis = wrap_dim("median", d, input.ndim)
    n = input.shape[axis] if input.ndim else 1
    if n == 0:
        raise OutOfRangeError(f"median(): Expected reduction dim {axis} to have non-zero size.")
    k = (n + 1) // 2
    order = argsort_op(input, axis, False, True)
    if input.ndim:
        order = _first_nan_else(input, axis, getitem(order, (slice(None),) * axis + (slice(k - 1, k),)))
    return return_types.median(*_kth(median_values, input, order, axis, keepdim))


# -- nanmedian: the lower median of the numbers, NaN left out ----------------------------------------------------
#
# ``nanmedian_indices`` finds one position per slice (no gradient), as PyTorch's CPU kernel does: the
# ``(n - 1) // 2``-th of the numbers in the order that breaks ties by position (the stable order; NaN after every
# number). A slice of NaN only has no such order: libstdc++'s ``nth_element`` at 0 decides, run in Python
# (``kernels/std_sort.py``). ``nanmedian_values`` reads the values there (``NanmedianBackward1``),
# ``nanmedian_all`` the one value of ``nanmedian()`` (``NanmedianBackward0``).


def _all_nan_position(n: int) -> int:
    """Where ``std::nth_element`` leaves position 0 of ``n`` elements that all compare equivalent (NaN under
    PyTorch's nanmedian comparator)."""
    pairs = [(0, i) for i in range(n)]
    nth_element(pairs, 0)
    return pairs[0][1]


@register_kernel("nanmedian_indices", Backend.CPU, dtypes=ALL_DTYPES)
def nanmedian_indices_cpu(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """Per slice along ``dim`` (kept, size 1), the position of the lower median of its numbers."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    d = dim % x.ndim
    n = x.shape[d]
    rows = np.moveaxis(x, d, -1).reshape(-1, n)
    order = np.argsort(rows, axis=1, kind="stable")  # NaN last, in position order
    valid = n - (np.isnan(rows).sum(axis=1) if x.dtype.kind == "f" else 0)
    k = np.maximum(valid - 1, 0) // 2
    positions = order[np.arange(len(rows)), k] if len(rows) else np.zeros(0, dtype=np.int64)
    if np.any(valid == 0):
        positions = np.where(valid == 0, _all_nan_position(n), positions)
    shape = tuple(s for j, s in enumerate(x.shape) if j != d) + (1,)
    return np.ascontiguousarray(np.moveaxis(positions.astype(np.int64).reshape(shape), -1, d))


nanmedian_indices_op = defop(
    "nanmedian_indices",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int),),
    infer_meta=infer_kth_indices,  # (its k left at 1: one position per slice)
    differentiable=False,
    doc="int64 position, per slice along dim (kept), of the lower median of its non-NaN values (PyTorch's CPU "
        "choice)",
)
nanmedian_values = _picked_values_op("nanmedian_values", "contiguous", "nanmedian(dim)'s values: x at the "
                                                                       "positions nanmedian_indices found "
                                                                       "(PyTorch's NanmedianBackward1)")
register_kernel("nanmedian_all", Backend.CPU, dtypes=ALL_DTYPES, name="cpu/nanmedian_all")(_flat_value_cpu)
nanmedian_all = defop("nanmedian_all", inputs=("x", Input("index", differentiable=False)),
                      infer_meta=lambda op, x, index: ((), x.dtype), save=("x", "out"), key_inputs=(0,),
                      doc="nanmedian()'s value: the element of x at the flat position found (PyTorch's "
                          "NanmedianBackward0)")
nanmedian_all.def_backward(_median_all_backward)  # shared among the elements equal to it, as median()'s


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median of the values that are not NaN (``torch.nanmedian``): of all elements (a 0-d tensor;
    NaN when every element is) when ``dim`` is None, else ``(values, indices)`` along ``dim``. As ``median``,
    a composite: the position (``nanmedian_indices``), then the value read there; the gradient of
    ``nanmedian()`` is shared among the elements equal to it, of ``nanmedian(dim)`` goes to the position returned.

    Example:
        >>> import minigrad as mg
        >>> mg.nanmedian(mg.tensor([2.0, float("nan"), 1.0, 3.0])).item()
        2.0
    """
    check_tensor("nanmedian", "input", 0, input)
    if dim is None:
        if input.numel() == 0:  # PyTorch's nanmedian of nothing is NaN, with no node
            return Tensor._scalar(float("nan"), input.dtype, input.device)
        flat = reshape(input, (-1,))
        return nanmedian_all(input, nanmedian_indices_op(flat, 0))
    d = check_int("nanmedian", "dim", 1, dim)
    check_bool("nanmedian", "keepdim", 2, keepdim)
    axis = wrap_dim("nanmedian", d, input.ndim)
    if input.ndim and input.shape[axis] == 0:
        raise OutOfRangeError(f"median(): Expected reduction dim {axis} to have non-zero size.")
    return return_types.nanmedian(*_kth(nanmedian_values, input, nanmedian_indices_op(input, axis), axis, keepdim))


def _first_nan_else(input: Tensor, axis: int, order: Tensor) -> Tensor:
    """``order`` (a position per slice along ``axis``, kept), or where a slice holds NaN the first NaN's: PyTorch's
    median is NaN there (its CPU kernel returns the first NaN it finds)."""
    if not input.dtype.is_floating_point:
        return order
    nan = isnan(input)
    return where(any_(nan, axis, keepdim=True), argmax(cast(nan, _dt.uint8), axis, True), order)


# -- mode: the most frequent value along a dim, at the position PyTorch's CPU kernel returns ------------------
#
# ``mode_indices`` finds one position per slice (no gradient, as ``argsort``); ``mode_values`` reads the values
# there, ``ModeBackward0``, whose gradient goes back to that position (``value_selecting_reduction_backward``).


def infer_mode_indices(op: str, x: Any, dim: int = -1) -> Any:
    """InferMeta: int64 positions of ``x``'s shape with ``dim`` kept, of size 1."""
    d = wrap_dim(op, dim, x.ndim)
    return tuple(1 if k == d else s for k, s in enumerate(x.shape)), np.dtype(np.int64)


def _mode_position(row: list[Any]) -> int:
    """PyTorch's CPU scan of one slice: the pairs sorted by ``std::sort``, the last pair of the first longest run."""
    pairs = list(zip(row, range(len(row))))
    std_sort(pairs)
    best, position, run = 0, 0, 0
    for i, (value, at) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or value != pairs[i + 1][0]:
            if run > best:
                best, position = run, at
            run = 0
    return position


@register_kernel("mode_indices", Backend.CPU, dtypes=ALL_DTYPES)
def mode_indices_cpu(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """Per slice, the position of the most frequent value (the smallest of the most frequent). The vectorised
    stable-sort scan finds it wherever the choice is not ``std::sort``'s to make: a slice whose values are all
    different, or one of at most 16 elements (that sort is then an insertion sort, stable). A slice with ties
    or NaN in it, longer than that, runs ``std::sort`` itself (``kernels/std_sort.py``), in Python."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    d = dim % x.ndim
    found = mode_positions_arrays(np, x, d)
    n = x.shape[d]
    rows = np.moveaxis(x, d, -1).reshape(-1, n)
    nan = np.isnan(rows).any(axis=1) if x.dtype.kind == "f" else np.zeros(len(rows), dtype=bool)
    if n <= 16 and not nan.any():
        return found
    positions = np.moveaxis(found, d, -1).reshape(-1)
    mode_value = rows[np.arange(len(rows)), positions]
    for r in np.flatnonzero(nan | ((rows == mode_value[:, None]).sum(axis=1) > 1)):
        positions[r] = _mode_position(rows[r].tolist())
    return np.moveaxis(positions.reshape(found.shape[:d] + found.shape[d + 1:] + (1,)), -1, d)


mode_indices_op = defop(
    "mode_indices",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int),),
    infer_meta=infer_mode_indices,
    differentiable=False,
    doc="int64 position, per slice along dim (kept), of the most frequent value (PyTorch's CPU choice among ties)",
)
mode_values = _picked_values_op("mode_values", "contiguous", "mode's values: x at the positions mode_indices "
                                                             "found (PyTorch's ModeBackward0)")


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` and a position holding it (``torch.mode``).
    Among equally frequent values the smallest; among its positions, the one PyTorch's CPU kernel returns
    (its ``std::sort`` decides; on a GPU, the last). The gradient goes to that position (``ModeBackward0``).

    Example:
        >>> import minigrad as mg
        >>> values, indices = mg.mode(mg.tensor([[3.0, 1.0, 3.0, 1.0, 2.0]]))
        >>> values.tolist(), indices.tolist()
        ([1.0], [3])
    """
    check_tensor("mode", "input", 0, input)
    d = check_int("mode", "dim", 1, dim)
    check_bool("mode", "keepdim", 2, keepdim)
    axis = wrap_dim("mode", d, input.ndim)
    if input.ndim and input.shape[axis] == 0:
        raise OutOfRangeError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    return return_types.mode(*_kth(mode_values, input, mode_indices_op(input, axis), axis, keepdim))


@autocast_as("quantile")
def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """The ``q``-quantiles (``q`` a number or a 1-D tensor in [0, 1]) along ``dim`` (of all elements when
    None), with ``interpolation`` ``'linear'``, ``'lower'``, ``'higher'``, ``'nearest'`` or ``'midpoint'``
    (``torch.quantile``); NaN where a slice holds NaN. Composite, PyTorch's ops (``_quantile_compute``): ``sort``,
    then the neighbouring order statistics mixed by ``lerp_``, so the gradient goes to the two elements that make
    each quantile (and to a ``q`` that requires grad)."""
    return _quantile_compute("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


# -- quantile and nanquantile, as PyTorch's quantile_compute ------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_q(op: str, input: Tensor, q: Any) -> Tensor:
    """``q`` as a tensor of ``input``'s dtype (a number wrapped, as PyTorch wraps it), after PyTorch's checks."""
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.device == "cpu" and q.numel() and not bool(((q >= 0) & (q <= 1)).all()):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
        return q
    if isinstance(q, bool) or not isinstance(q, (int, float)):
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({type_name(q)}), but expected "
                        "one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "
                        "\"linear\")\n * (float q, int dim = None, bool keepdim = False, *, str interpolation = "
                        "\"linear\")")
    if not 0.0 <= q <= 1.0:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    return Tensor._scalar(float(q), input.dtype, input.device)


def _quantile_compute(op: str, input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str,
                      ignore_nan: bool) -> Tensor:
    """PyTorch's ``quantile_compute`` (``aten/src/ATen/native/Sorting.cpp``), step for step, so the graph is its
    graph: sort (the reduced dim last), the rank of each quantile among the sorted values (for ``ignore_nan``
    among the numbers only, NaN when there are none), the values at the ranks below and above ``gather``-ed and
    mixed by ``lerp_``, then ``squeeze_`` (``SqueezeBackward4``). The ranks are made of ``q``, so a ``q`` that
    requires grad gets one."""
    check_tensor(op, "input", 0, input)
    if input.dtype.name not in ("float32", "float64"):  # PyTorch's: no float16 or bfloat16 quantiles
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    qt = _quantile_q(op, input, q)
    check_bool(op, "keepdim", 3, keepdim)
    if interpolation not in _INTERPOLATIONS:  # (a ShapeError, a RuntimeError that is also the ValueError it was)
        raise ShapeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                         f"but got {interpolation}")
    d = None if dim is None else wrap_dim(op, check_int(op, "dim", 2, dim), input.ndim)
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if d is None:
        out_shape = [1] * input.ndim if keepdim else []
        values = sort(reshape(input, (-1,))).values
    else:
        out_shape = [1 if k == d else s for k, s in enumerate(input.shape) if keepdim or k != d]
        # (a 0-d input takes the second way, as PyTorch's: a one-element row)
        values = sort(input).values if d == input.ndim - 1 else sort(input.unsqueeze(-1).transpose(d, -1)).values
    out_shape.insert(0, qt.numel())
    values = values.view(tuple(out_shape[1:]) + (values.shape[-1],))
    if ignore_nan:  # the rank among the numbers; a slice of NaN only gets rank 0, whose value is NaN
        ranks = qt * (values.isnan().logical_not().sum(-1, keepdim=True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:  # where a slice holds NaN the last rank, whose value is NaN
        last = values.shape[-1] - 1
        ranks = (qt * last).masked_fill(values.isnan().any(-1, keepdim=True), last)
    ranks = {"lower": ranks.floor, "higher": ranks.ceil, "nearest": ranks.round}.get(interpolation, lambda: ranks)()
    below = ranks.long()
    result = values.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        result.lerp_(values.gather(-1, ranks.ceil().long()), weights)
    if qt.ndim == 0:
        return result.squeeze_(-1)
    return result.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


@autocast_as("nanquantile")
def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """The ``q``-quantiles of the values that are not NaN (``torch.nanquantile``; ``q`` a number or a 1-D tensor
    in [0, 1]) along ``dim`` (of all elements when None), with ``interpolation`` ``'linear'``, ``'lower'``,
    ``'higher'``, ``'nearest'`` or ``'midpoint'``; NaN where a slice holds no number. Composite, PyTorch's ops
    (``_quantile_compute``): the gradient goes to the one or two elements that make each quantile.

    Example:
        >>> import minigrad as mg
        >>> mg.nanquantile(mg.tensor([1.0, float("nan"), 3.0, 2.0]), 0.5).item()
        2.0
    """
    return _quantile_compute("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)
