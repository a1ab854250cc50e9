"""Kernel bodies written once over the array module ``xp``: the CPU kernels pass NumPy, the GPU's CuPy.

Where CuPy's functions do what NumPy's do, one body serves both backends, so the two cannot drift apart:
the CPU kernel (in the op's file) and the GPU kernel (``kernels/gpu/library.py``) each call it with their
module and whatever differs between them (a scatter's atomic add, an index check that waits or not).
"""

from __future__ import annotations

from typing import Any, Callable

import math

import numpy as np

from ..devices import device_of_array as _device_of, filled_array, made_array, to_numpy
from ..errors import LinAlgError
from ..fma import fused_multiply_add

__all__ = ["fused_multiply_add", "singular_error", "vector_rhs", "nonzero_count", "nonzero_positions", "sorted_runs", "distinct_values", "histogram_range", "vector_norm_arrays", "pad_geometry", "scatter_arrays", "reduce_identity", "scatter_reduce_arrays", "product_at", "spread_index", "mode_positions_arrays", "searchsorted_arrays", "inclusive_scan",
           "running_extreme_positions", "log_add_exp"]


def vector_norm_arrays(xp: Any, x: Any, ord: float, dim: Any, keepdim: bool, acc: Any = None) -> Any:
    """``(sum |x|^ord)^(1/ord)`` over ``dim``; ``max |x|`` for ``inf``, ``min`` for ``-inf``, the non-zero count for
    0. A norm of no element is 0 (its shape from NumPy on the host: no data read). ``acc``: the dtype to
    accumulate in (the GPU's float32 for a half, as PyTorch's CUDA kernel), the input's when None."""
    axis = None if dim is None or x.ndim == 0 else (tuple(dim) if isinstance(dim, (list, tuple)) else dim)
    if x.size == 0:
        return xp.zeros(np.sum(np.empty(x.shape), axis=axis, keepdims=keepdim).shape, dtype=x.dtype)
    a = xp.abs(x if acc is None or x.dtype == acc else x.astype(acc))
    if ord == np.inf:
        out = xp.max(a, axis=axis, keepdims=keepdim)
    elif ord == -np.inf:
        out = xp.min(a, axis=axis, keepdims=keepdim)
    elif ord == 0:
        out = xp.sum(a != 0, axis=axis, keepdims=keepdim)
    elif ord == 1:
        out = xp.sum(a, axis=axis, keepdims=keepdim)
    elif ord == 2:
        out = xp.sqrt(xp.sum(a * a, axis=axis, keepdims=keepdim))
    else:
        out = xp.sum(a ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)
    out = xp.asarray(out).astype(x.dtype, copy=False)
    return out if out.flags.c_contiguous else out.copy()  # (ascontiguousarray would make a 0-d norm 1-d)


def pad_geometry(shape: tuple[int, ...], pad: tuple[int, ...]) -> tuple[tuple[slice, ...], list[tuple[int, int]]]:
    """``constant_pad_nd``'s crop of the input (negative amounts crop first) and the widths added on each side of
    each dim (``pad`` lists the last dim's first, as PyTorch's)."""
    crop = [slice(None)] * len(shape)
    widths = [(0, 0)] * len(shape)
    for k in range(len(pad) // 2):
        d = len(shape) - 1 - k
        lo, hi = pad[2 * k], pad[2 * k + 1]
        crop[d] = slice(max(-lo, 0), shape[d] - max(-hi, 0))
        widths[d] = (max(lo, 0), max(hi, 0))
    return tuple(crop), widths


def block_diag_arrays(xp: Any, xs: Any) -> Any:
    """The arrays (0-, 1- or 2-D) as the blocks of a block-diagonal matrix, in the dtype they promote to: zeros,
    then each block written in its place."""
    blocks = [x.reshape(1, -1) if x.ndim < 2 else x for x in xs]
    out = xp.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)),
                   dtype=np.result_type(*[x.dtype for x in xs]))
    top = left = 0
    for b in blocks:
        out[top:top + b.shape[0], left:left + b.shape[1]] = b
        top, left = top + b.shape[0], left + b.shape[1]
    return out


def column_major(xp: Any, a: Any) -> Any:
    """``a`` with each matrix laid out column-major, as LAPACK and cuSOLVER write PyTorch's ``linalg.inv`` and
    ``linalg.solve`` results (strides ``(..., 1, rows)``): so a reshape of one copies where PyTorch's does."""
    if a.ndim < 2:
        return a
    return xp.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)


def pad_source_index(mode: str, n: int, lo: int, hi: int) -> np.ndarray:
    """For each output position along one padded dim, the input position it reads (``reflect``,
    ``replicate`` or ``circular``). A negative amount crops. ``reflect`` and ``replicate`` read in the
    input's own positions; ``circular`` wraps around what is left after cropping (PyTorch's rules)."""
    if mode == "circular":
        start = max(-lo, 0)
        m = n - start - max(-hi, 0)
        return np.arange(-max(lo, 0), m + max(hi, 0)) % m + start
    i = np.arange(-lo, n + hi)
    if mode == "reflect":
        i = np.abs(i)
        return np.where(i >= n, 2 * (n - 1) - i, i)
    return np.clip(i, 0, n - 1)  # replicate


def index_pad_arrays(xp: Any, x: Any, mode: str, pad: tuple[int, ...], index: Callable[[np.ndarray], Any]) -> Any:
    """``reflect``/``replicate`` padding: each padded dim gathered at ``pad_source_index`` (``index`` puts a
    host index where the arrays live), last dim first; the result row-major."""
    out = x
    for k in range(len(pad) // 2):
        d = x.ndim - 1 - k
        out = xp.take(out, index(pad_source_index(mode, x.shape[d], pad[2 * k], pad[2 * k + 1])), axis=d)
    return xp.ascontiguousarray(out)


def index_pad_backward_arrays(xp: Any, grad: Any, mode: str, pad: tuple[int, ...], shape: tuple[int, ...],
                              index: Callable[[np.ndarray], Any], add_at: Callable[[Any, Any, Any], None]) -> Any:
    """The adjoint of ``index_pad_arrays``: along each padded dim, in reverse, every output position's gradient
    added to the input position it read (``add_at(out, index, values)`` sums repeated positions: an edge read
    twice gets both)."""
    g = grad
    for k in reversed(range(len(pad) // 2)):
        d = len(shape) - 1 - k
        idx = pad_source_index(mode, shape[d], pad[2 * k], pad[2 * k + 1])
        out = xp.zeros(g.shape[:d] + (shape[d],) + g.shape[d + 1:], dtype=g.dtype)
        add_at(out, (slice(None),) * d + (index(idx),), g)
        g = out
    return g


def _scatter_target(x: Any, index: Any, src: Any, dim: int, positions: Callable[[Any, Any, int], Any]) -> tuple[Any, ...]:
    """A scatter's copy of ``x``, the array written through (a 1-element view of a 0-d ``x``), the positions
    ``index`` names (``positions``: range-checked) and the ``src`` values sent there; positions None for an
    empty index."""
    out = x.copy()
    if index.size == 0:
        return out, out, None, None
    flat = out.reshape(-1) if out.ndim == 0 else out
    idx = index.reshape(-1) if index.ndim == 0 else index
    pos = positions(flat, idx, dim % max(x.ndim, 1))
    vals = src.reshape(-1) if src.ndim == 0 else src
    return out, flat, pos, vals[tuple(slice(0, s) for s in idx.shape)]


def scatter_arrays(x: Any, index: Any, src: Any, dim: int, positions: Callable[[Any, Any, int], Any],
                   add_at: Callable[[Any, Any, Any], None] | None,
                   set_at: Callable[[Any, Any, Any], None] | None = None) -> Any:
    """A copy of ``x`` with ``src``'s elements written (``add_at`` None; by ``set_at(out, pos, vals)`` where
    given) or added (``add_at(out, pos, vals)``, which sums repeated positions) at ``index`` along ``dim``;
    ``positions(out, index, d)`` turns the index into the array index of every element it names (checking its
    range: now on the CPU, on the device on a GPU)."""
    out, flat, pos, vals = _scatter_target(x, index, src, dim, positions)
    if pos is None:
        return out
    if add_at is not None:
        add_at(flat, pos, vals)
    elif set_at is not None:
        set_at(flat, pos, vals)
    else:
        flat[pos] = vals
    return out


def reduce_identity(reduce: str, dtype: Any) -> Any:
    """The identity of ``reduce`` in ``dtype``: 0 for sum and mean, 1 for prod, the lowest value for amax
    (``-inf``, an integer type's minimum, False) and the highest for amin."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    largest = reduce == "amin"
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    if dtype.kind == "b":
        return largest
    info = np.iinfo(dtype)
    return info.max if largest else info.min


#: Each ``scatter_reduce`` reduction's at-function, by NumPy's ufunc name (``ufunc.at``: repeated positions combine).
_AT_NAMES = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def scatter_reduce_arrays(xp: Any, at: Any, x: Any, index: Any, src: Any, dim: int, reduce: str,
                          include_self: bool, positions: Callable[[Any, Any, int], Any]) -> Any:
    """A copy of ``x`` where every position ``index`` names along ``dim`` holds the reduction (``reduce``) of
    the ``src`` elements sent there, and of its own value when ``include_self``; a position nothing is sent to
    keeps ``x``'s value. ``at`` holds the unbuffered ``add``/``multiply``/``maximum``/``minimum`` at-functions of
    ``xp`` (``np.add.at``...); ``positions`` as ``scatter_arrays``'. A mean divides by the count (self counted
    once when included), rounding down for integers, as PyTorch's ``scatter_reduce``."""
    out, flat, pos, vals = _scatter_target(x, index, src, dim, positions)
    if pos is None:
        return out
    if not include_self:
        flat[pos] = reduce_identity(reduce, x.dtype)
    getattr(at, _AT_NAMES[reduce])(flat, pos, vals)
    if reduce == "mean":
        count = xp.full(flat.shape, 1 if include_self else 0, dtype=x.dtype)
        at.add(count, pos, xp.ones(vals.shape, dtype=x.dtype))
        count = xp.where(count == 0, xp.ones((), dtype=x.dtype), count)
        flat[...] = flat / count if x.dtype.kind == "f" else flat // count
    return out


def spread_index(xp: Any, index: Any, source: Any, dim: int) -> Any:
    """``index`` (1-D, one entry per slice of ``source`` along ``dim``) repeated over each slice: the index of
    ``scatter_reduce`` that sends ``source``'s slices where ``index_reduce`` sends them."""
    if source.ndim == 0:
        return index.reshape(-1)
    return xp.broadcast_to(index.reshape(tuple(-1 if k == dim else 1 for k in range(source.ndim))), source.shape)


def product_at(xp: Any, a: Any, pos: tuple[Any, ...], v: Any) -> None:
    """``np.multiply.at(a, pos, v)`` with no atomics (CuPy has no ``scatter_mul``): the values sorted by the flat
    position they go to, a segmented product scan over the runs of one position (NOTE [ A running op on a GPU
    is a parallel scan ]), and the last of each run multiplied in - the other elements of the run write to one
    slot past the end, so each position is written once and nothing is read back on the host."""
    strides = np.cumprod((a.shape[1:] + (1,))[::-1])[::-1]  # row-major strides, in elements
    target = sum(p * int(s) for p, s in zip(pos, strides))
    target = xp.broadcast_to(target, v.shape).reshape(-1)
    order = target.argsort(kind="stable")  # a run multiplies in index order, as np.multiply.at does
    keys, values = target[order], v.reshape(-1)[order]

    def combine(left: list[Any], right: list[Any]) -> list[Any]:
        (lk, lv), (rk, rv) = left, right
        return [rk, xp.where(lk == rk, lv * rv, rv)]

    products = inclusive_scan(xp, combine, [keys, values], 0)[1]
    last = xp.concatenate([keys[1:] != keys[:-1], xp.ones(1, dtype=bool)])
    factors = xp.ones(a.size + 1, dtype=a.dtype)
    factors[xp.where(last, keys, a.size)] = products
    a *= factors[:a.size].reshape(a.shape)


def mode_positions_arrays(xp: Any, x: Any, axis: int) -> Any:
    """``mode``'s positions along ``axis`` (kept, of size 1), int64, with no loop over the slices: a stable sort,
    the runs of equal values (a NaN is a run of its own: NaN != NaN), the length of each run at its last element
    (a running maximum of the run starts, NOTE [ A running op on a GPU is a parallel scan ]), and the first
    longest run - the smallest value among the most frequent, as PyTorch's kernel - whose last element in the
    stable order is the largest position holding that value."""
    rows = xp.moveaxis(x, axis, -1)
    n = rows.shape[-1]
    order = rows.argsort(axis=-1, kind="stable")
    ordered = xp.take_along_axis(rows, order, axis=-1)
    k = xp.broadcast_to(xp.arange(n, dtype=np.int64), ordered.shape)
    starts = xp.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = xp.ones(ordered.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]

    def later(left: list[Any], right: list[Any]) -> list[Any]:
        return [xp.maximum(left[0], right[0])]

    run_start = inclusive_scan(xp, later, [xp.where(starts, k, 0)], rows.ndim - 1)[0]
    lengths = xp.where(ends, k - run_start + 1, 0)
    best = lengths.argmax(axis=-1)[..., None]
    return xp.moveaxis(xp.take_along_axis(order, best, axis=-1).astype(np.int64, copy=False), -1, axis)


def searchsorted_arrays(xp: Any, seq: Any, values: Any, right: bool) -> Any:
    """Where each of ``values`` goes in the sorted last dim of ``seq`` (int64): one search for a 1-D ``seq``,
    one a row for a batched one (its leading dims are ``values``')."""
    side = "right" if right else "left"
    if seq.ndim <= 1:
        return xp.asarray(xp.searchsorted(seq.reshape(-1), values, side=side), dtype=np.int64)
    out = xp.empty(values.shape, dtype=np.int64)
    for row in np.ndindex(*seq.shape[:-1]):  # one sorted row per leading index
        out[row] = xp.searchsorted(seq[row], values[row], side=side)
    return out


# NOTE [ A running op on a GPU is a parallel scan ]
#     NumPy computes ``cummax`` or ``logcumsumexp`` with ``ufunc.accumulate``: one
#     loop along the dim, each element combined with the total before it. A GPU
#     has no such loop (CuPy's ufuncs have no ``accumulate``), so the GPU kernels
#     scan in ``ceil(log2 n)`` steps instead (Hillis and Steele's scan): after the
#     step of width ``w``, every position holds the combination of the ``2w``
#     positions that end at it, each step one elementwise pass over the whole
#     array. The combination must be associative: the running maximum with its
#     position (``running_extreme_positions``), PyTorch's log-add-exp.
#     The sums are grouped differently from the loop's, so a floating result can
#     differ from the CPU's in its last bits, as PyTorch CUDA's (a scan too) does.


def inclusive_scan(xp: Any, combine: Callable[[list[Any], list[Any]], list[Any]], arrays: list[Any],
                   axis: int) -> list[Any]:
    """Copies of ``arrays`` (one shape) scanned along ``axis`` with the associative ``combine(left, right)``
    (lists of arrays in, a list out): NOTE [ A running op on a GPU is a parallel scan ]."""
    arrays = [a.copy() for a in arrays]
    n = arrays[0].shape[axis]
    lead = (slice(None),) * axis
    width = 1
    while width < n:
        left = [a[lead + (slice(0, n - width),)] for a in arrays]
        right = [a[lead + (slice(width, n),)] for a in arrays]
        for a, merged in zip(arrays, combine(left, right)):
            a[lead + (slice(width, n),)] = merged
        width *= 2
    return arrays


def running_extreme_positions(xp: Any, x: Any, axis: int, largest: bool) -> Any:
    """``cummax``'s (``largest``) or ``cummin``'s indices along ``axis``, int64: the latest position among
    ties, and once a NaN is met the latest NaN, as PyTorch's rule ``x >= best or isnan(x)`` gives."""
    if x.ndim == 0:
        return xp.zeros((), dtype=np.int64)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    positions = xp.broadcast_to(xp.arange(x.shape[axis], dtype=np.int64).reshape(shape), x.shape)
    nan = x.dtype.kind in "fc"

    def combine(left: list[Any], right: list[Any]) -> list[Any]:
        (lv, li), (rv, ri) = left, right
        take = (rv >= lv) if largest else (rv <= lv)  # the right part's extreme replaces an equal one
        if nan:
            take = take | xp.isnan(rv)
        return [xp.where(take, rv, lv), xp.where(take, ri, li)]

    return inclusive_scan(xp, combine, [x, positions], axis)[1]


def log_add_exp(xp: Any, a: Any, b: Any) -> Any:
    """``log(exp(a) + exp(b))`` as PyTorch's ``_log_add_exp_helper``: the larger plus ``log1p(exp(-gap))``,
    and equal infinities give themselves (``inf - inf`` would make NaN; CuPy's ``logaddexp`` gives NaN there)."""
    hi, lo = xp.maximum(a, b), xp.minimum(a, b)
    return xp.where((lo != hi) | xp.isfinite(lo), hi + xp.log1p(xp.exp(lo - hi)), a)


def histogram_range(low: float, high: float, data_range: Callable[[], tuple[float, float]]) -> tuple[float, float]:
    """``histc``'s range: ``[low, high]``, or the data's own (``data_range()``, read only then) where they are
    equal, widened by 1 each way where it is still one point. A range that is not finite (a NaN in the data,
    an infinite bound) is refused in PyTorch's words."""
    if low == high:
        low, high = data_range()
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    if low == high:
        low, high = low - 1, high + 1
    return low, high


def nonzero_count(array: Any) -> int:
    """The number of non-zero elements of ``array``, read on the host: from a GPU, one int64 copied back and
    a sync - the wait PyTorch's ``nonzero`` (and so ``x[mask]``, ``masked_select``) makes too."""
    if type(array) is np.ndarray:
        return int(np.count_nonzero(array))
    return int(to_numpy((array != 0).sum()))


def nonzero_positions(array: Any, device: str, count: int | None = None) -> Any:
    """The ``(count, ndim)`` int64 coordinates of ``array``'s non-zero elements in row-major order, made where
    ``array`` is once their number is known (``nonzero_count``, read unless given): each non-zero element's
    rank among them (a running sum) is its row, the rest write to a spare row; a row's flat position is then
    split into coordinates. Nothing else is read back."""
    if count is None:
        count = nonzero_count(array)
    flat = (array != 0).reshape(-1)
    kept = flat.astype(np.int64)
    slot = (flat.cumsum(dtype=np.int64) - 1) * kept + count * (1 - kept)
    order = made_array("arange", device, 0, flat.size, 1, dtype=np.int64) if device != "cpu" else None
    linear = filled_array((count + 1,), 0, np.int64, device)
    linear[slot] = np.arange(flat.size, dtype=np.int64) if order is None else order
    linear = linear[:count]
    out = filled_array((count, array.ndim), 0, np.int64, device)
    for d in range(array.ndim - 1, -1, -1):
        out[:, d] = linear % array.shape[d]
        linear = linear // array.shape[d]
    return out


# NOTE [ unique sorts, then marks where the value changes ]
#     ``unique`` without ``dim`` is a stable sort of the flattened input and a mark at
#     every position whose value differs from the one before it: each mark starts a
#     run of equal values, the runs are the distinct values in order, a running sum of
#     the marks gives every sorted element its run (scattered back through the sort's
#     order: the inverse map) and the distances between the marks are the counts. NaN
#     differs from everything, itself included, so each NaN is a run of its own, as in
#     PyTorch (NumPy's ``unique`` folds them into one). How many runs there are sizes
#     the result: it is read on the host (``nonzero_count`` of the marks), and on a GPU
#     everything else stays on the device.


def sorted_runs(x: Any) -> tuple[Any, Any, Any]:
    """``x`` flattened and stably sorted: ``(order, sorted values, marks)``, a mark (True) where a run of equal
    values starts (NOTE [ unique sorts, then marks where the value changes ])."""
    flat = x.reshape(-1)
    order = flat.argsort(kind="stable")
    ordered = flat[order]
    marks = filled_array((flat.size,), True, np.bool_, _device_of(flat))
    if flat.size > 1:
        marks[1:] = ordered[1:] != ordered[:-1]  # NaN != NaN: every NaN starts a run
    return order, ordered, marks


def distinct_values(x: Any, device: str, count: int) -> tuple[Any, Any, Any]:
    """``unique``'s ``(values, inverse, counts)`` without ``dim`` for the ``count`` runs ``sorted_runs`` finds (read
    by the caller): the first value of each run, each element's run, each run's length."""
    order, ordered, marks = sorted_runs(x)
    starts = nonzero_positions(marks, device, count).reshape(-1)
    runs = marks.cumsum(dtype=np.int64) - 1
    inverse = filled_array((ordered.size,), 0, np.int64, device)
    inverse[order] = runs
    ends = filled_array((count,), ordered.size, np.int64, device)
    ends[:-1] = starts[1:]
    return ordered[starts], inverse.reshape(x.shape), ends - starts


# -- linear systems: what the CPU's and the GPU's inv/solve share ----------------------------------------


def lu_transposed_solve_arrays(xp: Any, a: Any, d: Any, perturb: bool) -> Any:
    """``X = A^{-T} D`` for each matrix, as PyTorch's ``det`` and ``slogdet`` backwards compute it (its
    ``linalg_lu_factor`` of ``A.mT``, then ``linalg_lu_solve``), so a singular ``A`` gives PyTorch's inf and
    NaN, not an error.

    The LU is LAPACK's ``getf2``: partial pivoting on the first largest ``|value|`` of a column, the column
    scaled by the pivot's reciprocal, a zero column left as it is; the solve is ``getrs``'s: the row swaps, the
    unit-lower and the upper triangle, no zero skipped (a zero pivot divides: inf, and NaN from inf - inf or
    0 * inf). ``perturb``: a zero pivot is ``eps`` instead (PyTorch's ``det``, whose right side is 0 there).
    Where the factors come out of rounding (a rank-deficient matrix of non-integers) the last bits, and
    so which pivot is exactly 0, may differ from PyTorch's LAPACK."""
    n = a.shape[-1]
    shape = np.broadcast_shapes(a.shape, d.shape)
    if math.prod(shape) == 0:  # 0x0 matrices, or none: nothing to solve
        return xp.zeros(shape, dtype=a.dtype)
    lu = xp.ascontiguousarray(xp.broadcast_to(xp.swapaxes(a, -1, -2), shape)).reshape(-1, n, n).copy()
    x = xp.ascontiguousarray(xp.broadcast_to(d, shape)).reshape(-1, n, n).copy()
    rows = xp.arange(lu.shape[0])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in range(n):
            p = k + xp.argmax(xp.abs(lu[:, k:, k]), axis=1)
            for m in (lu, x):  # getrf's swap of the factor's rows, and getrs's of the right side's
                row = m[rows, k].copy()
                m[rows, k] = m[rows, p]
                m[rows, p] = row
            pivot = lu[:, k, k]
            zero = pivot == 0
            col = lu[:, k + 1:, k] * (1 / xp.where(zero, 1, pivot))[:, None]
            lu[:, k + 1:, k] = xp.where(zero[:, None], lu[:, k + 1:, k], col)
            lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k][:, :, None] * lu[:, k, None, k + 1:]
        if perturb:
            at = xp.arange(n)
            diag = lu[:, at, at]
            lu[:, at, at] = xp.where(diag == 0, np.finfo(lu.dtype).eps, diag)
        for k in range(n):  # L y = P d, column by column
            x[:, k + 1:] -= x[:, k, None, :] * lu[:, k + 1:, k][:, :, None]
        for k in range(n - 1, -1, -1):  # U x = y
            x[:, k] = x[:, k] / lu[:, k, k][:, None]
            x[:, :k] -= x[:, k, None, :] * lu[:, :k, k][:, :, None]
    return x.reshape(shape)


def nan_where_a_holds_nan(xp: Any, a: Any, out: Any) -> Any:
    """``out`` with NaN everywhere in the result of each matrix of ``a`` that holds a NaN, as PyTorch's
    ``linalg.inv`` and ``linalg.solve`` give: its LAPACK LU (``idamax`` passing over a NaN) carries the NaN
    into every factor. NumPy's LAPACK may pivot around one (``inv([[nan, 2], [3, 4]])`` keeps a finite row)
    and cuSOLVER's LU reads a NaN of the column it eliminates as 0 (pytorch/pytorch#173638: finite numbers,
    or inf from a zero pivot). ``out``'s batch dims broadcast with ``a``'s; nothing is read back."""
    holds = xp.isnan(a).any(axis=(-2, -1))
    return xp.where(holds[..., None, None], out.dtype.type(np.nan), out)


def first_zero_pivots(a: Any) -> np.ndarray:
    """``_first_zero_pivot`` of each matrix of the (batch of) matrices ``a``: LAPACK's ``info``, of the batch's
    shape."""
    flat = np.asarray(to_numpy(a)).reshape((-1,) + tuple(a.shape[-2:]))
    return np.array([_first_zero_pivot(m) for m in flat], dtype=np.int32).reshape(tuple(a.shape[:-2]))


def _first_zero_pivot(m: np.ndarray) -> int:
    """The 1-based position of the first zero on the diagonal of ``m``'s LU factorization with partial pivoting
    (LAPACK's ``getrf`` ``info``), 0 if none."""
    u = np.array(m, dtype=np.float64)
    n = u.shape[-1]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return 0


def singular_error(op: str, a: Any) -> LinAlgError:
    """``inv``'s and ``solve``'s refusal of the singular (batch of) matrices ``a``, in PyTorch's words: the first
    singular matrix of the batch, and for ``inv`` the position of the zero its LU factorization met."""
    pivots = first_zero_pivots(a).reshape(-1).tolist()
    first = next((k for k, p in enumerate(pivots) if p), 0)
    where = f"(Batch element {first}): " if len(a.shape) > 2 else ""
    if "solve" in op:
        return LinAlgError(f"torch.{op}: {where}The solver failed because the input matrix is singular.")
    return LinAlgError(f"{op}: {where}The diagonal element {pivots[first] or a.shape[-1]} is zero, the inversion could "
                       f"not be completed because the input matrix is singular.")


def vector_rhs(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> bool:
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when it is 1-D or has ``A``'s shape minus the last dim."""
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and tuple(b_shape) == tuple(a_shape[:-1]))


def rot90_steps(xp: Any, x: Any, k: int, dims: Any) -> Any:
    """PyTorch's ``rot90`` on an array of module ``xp``: a quarter turn is a flip of one dim, copied, then
    the two dims swapped (a transposed view of the copy, as PyTorch's result); a half turn flips both."""
    d0, d1 = (d % x.ndim for d in dims)
    k %= 4
    if k == 0:  # PyTorch's clone to a contiguous tensor
        return xp.array(x, order="C", copy=True)
    flipped = xp.ascontiguousarray(xp.flip(x, axis=(d0, d1) if k == 2 else (d1 if k == 1 else d0)))
    return flipped if k == 2 else xp.swapaxes(flipped, d0, d1)


def row_differences(xp: Any, x1: Any, x2: Any) -> Any:
    """``x1[..., i, None, :] - x2[..., None, j, :]``: every row of ``x1`` less every row of ``x2``."""
    return xp.expand_dims(x1, -2) - xp.expand_dims(x2, -3)


def euclidean_dist_arrays(xp: Any, x1: Any, x2: Any) -> Any:
    """PyTorch's ``_euclidean_dist``: the distances of the rows by one matrix product,
    ``[-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T = |x1|^2 - 2 x1.x2 + |x2|^2``, clamped at 0, square-rooted (the
    cancellation of the sum where rows are close is PyTorch's too)."""
    n1 = xp.sum(x1 * x1, axis=-1, keepdims=True)
    n2 = xp.sum(x2 * x2, axis=-1, keepdims=True)
    a = xp.concatenate([x1 * x1.dtype.type(-2), n1, xp.ones_like(n1)], axis=-1)
    b = xp.concatenate([x2, xp.ones_like(n2), n2], axis=-1)
    return xp.sqrt(xp.maximum(xp.matmul(a, xp.swapaxes(b, -1, -2)), x1.dtype.type(0)))


def diag_embed_arrays(xp: Any, x: Any, offset: int, dim1: int, dim2: int) -> Any:
    """PyTorch's ``diag_embed``: zeros with ``x``'s last dim written along diagonal ``offset`` of the planes
    ``(dim1, dim2)`` of the result (one more dim than ``x``), row-major."""
    n = x.shape[-1] + abs(offset)
    out = xp.zeros(tuple(x.shape[:-1]) + (n, n), dtype=x.dtype)
    k = xp.arange(x.shape[-1])
    out[..., k + max(-offset, 0), k + max(offset, 0)] = x
    return xp.ascontiguousarray(xp.moveaxis(out, (-2, -1), (dim1, dim2)))


__all__ += ["rot90_steps", "row_differences", "euclidean_dist_arrays", "diag_embed_arrays"]


def pixel_shuffle_arrays(xp: Any, x: Any, r: int) -> Any:
    """``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``: channel ``c r^2 + i r + j`` becomes pixel ``(h r + i, w r + j)``
    of channel ``c``; one copy, row-major."""
    *lead, c, h, w = x.shape
    n = len(lead)
    v = x.reshape(*lead, c // (r * r), r, r, h, w)
    v = v.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (*, C, H, r, W, r)
    return xp.ascontiguousarray(v).reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle_arrays(xp: Any, x: Any, r: int) -> Any:
    """The inverse of ``pixel_shuffle_arrays``: ``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``."""
    *lead, c, h, w = x.shape
    n = len(lead)
    v = x.reshape(*lead, c, h // r, r, w // r, r)
    v = v.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # (*, C, r, r, H, W)
    return xp.ascontiguousarray(v).reshape(*lead, c * r * r, h // r, w // r)


__all__ += ["pixel_shuffle_arrays", "pixel_unshuffle_arrays"]


def frequency_scale(xp: Any, indices: Any, num_weights: int, dtype: Any) -> Any:
    """``1 / count`` of each index among ``indices``, a column for the rows of an embedding's gradient
    (``scale_grad_by_freq``: PyTorch's ``1.0 / counts[k]`` in double, then the gradient's dtype)."""
    flat = indices.reshape(-1) % num_weights
    counts = xp.bincount(flat, minlength=num_weights)
    return (1.0 / counts[flat]).astype(dtype)[:, None]


__all__ += ["frequency_scale"]


def trilinear_arrays(xp: Any, i1: Any, i2: Any, i3: Any, expand1: Any, expand2: Any, expand3: Any,
                     sumdim: Any) -> Any:
    """ATen's ``_trilinear``: each array given size-1 dims at its ``expand`` positions (all three then have
    one rank), the three multiplied and summed over ``sumdim`` - one ``einsum``, whose letters are the
    positions each array spans (its InferMeta checked that two arrays spanning one position agree)."""
    rank = i1.ndim + len(expand1)
    spans = [[d for d in range(rank) if d not in expand] for expand in (expand1, expand2, expand3)]
    sizes = {d: n for a, span in zip((i1, i2, i3), spans) for d, n in zip(span, a.shape)}
    kept = [d for d in range(rank) if d not in sumdim]
    letters = lambda dims: "".join(chr(97 + d) for d in dims)  # noqa: E731
    spec = ",".join(letters(span) for span in spans) + "->" + letters([d for d in kept if d in sizes])
    out = xp.einsum(spec, i1, i2, i3, optimize=True) if xp is np else xp.einsum(spec, i1, i2, i3)
    return out.reshape([sizes.get(d, 1) for d in kept]).astype(i1.dtype, copy=False)


__all__ += ["trilinear_arrays"]


# -- embedding_bag: bags of rows summed, averaged or maxed ---------------------------------------------------

def embedding_bag_layout_arrays(xp: Any, indices: Any, offsets: Any, mode: int, scale_grad_by_freq: bool,
                                include_last_offset: bool, padding_idx: int, num_weights: int) -> tuple[Any, Any]:
    """Each index's bag (``offset2bag``: the last offset at or before its position; 0 where it is in no bag)
    and its weight in the bag's gradient: 0 for ``padding_idx`` (and with no bag at all), ``1 / count`` of its
    bag in mean mode, ``1 / count`` of its index among all with ``scale_grad_by_freq`` (ATen's
    ``_embedding_bag_dense_backward``); ``xp`` is NumPy or CuPy."""
    n = indices.shape[0]
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    # Past the last offset is the last bag, with include_last_offset too (ATen's offset2bag on the CPU).
    bag = xp.minimum(xp.searchsorted(offsets, xp.arange(n), side="right") - 1, bags - 1)
    valid = (bag >= 0) & (indices != padding_idx)
    bag = xp.where(valid, bag, 0)
    scale = valid.astype(np.float64)
    if mode == 1:
        counts = xp.bincount(bag, weights=scale, minlength=max(bags, 1))
        scale = scale / xp.maximum(counts, 1.0)[bag]
    if scale_grad_by_freq:
        scale = scale / xp.maximum(xp.bincount(indices % max(num_weights, 1), minlength=num_weights), 1)[indices % max(num_weights, 1)]
    return bag, scale


def embedding_bag_arrays(xp: Any, scatter: Any, weight: Any, indices: Any, offsets: Any, per_sample_weights: Any,
                         mode: int, include_last_offset: bool, padding_idx: int) -> tuple[Any, Any]:
    """The bags' rows combined (mode 0 sum, 1 mean, 2 max; an empty bag gives zeros) and, in max mode,
    for each output element the flat position ``row * D + feature`` of the row that gave it (``B * D`` past
    the table, ``weight.size``, for an empty bag; the first row wins a tie, as ATen's loop). ``scatter``
    holds the unbuffered ``add``/``maximum``/``minimum`` at-functions of ``xp``."""
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    dim = weight.shape[1]
    bag, valid = embedding_bag_layout_arrays(xp, indices, offsets, 1 if mode == 1 else 0, False,
                                             include_last_offset, padding_idx, weight.shape[0])
    inside = valid > 0
    rows = weight[indices % max(weight.shape[0], 1)] if indices.shape[0] else xp.zeros((0, dim), weight.dtype)
    if mode != 2:
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[:, None]
        rows = xp.where(inside[:, None], rows * valid.astype(weight.dtype)[:, None], 0)
        out = xp.zeros((bags, dim), dtype=weight.dtype)
        scatter.add(out, bag, rows)
        return out, None
    out = xp.full((bags, dim), -xp.inf, dtype=weight.dtype)
    scatter.maximum(out, bag, xp.where(inside[:, None], rows, -xp.inf))
    position = xp.arange(indices.shape[0])[:, None] * dim + xp.arange(dim)[None, :]
    flat = (indices % max(weight.shape[0], 1))[:, None] * dim + xp.arange(dim)[None, :]
    first = xp.full((bags, dim), indices.shape[0] * dim, dtype=np.int64)
    scatter.minimum(first, bag, xp.where(inside[:, None] & (rows == out[bag]), position, indices.shape[0] * dim))
    empty = first == indices.shape[0] * dim
    argmax = xp.where(empty, weight.size, flat.reshape(-1)[xp.where(empty, 0, first)] if flat.size else 0)
    return xp.where(empty, 0, out).astype(weight.dtype), argmax.astype(np.int64)


__all__ += ["embedding_bag_layout_arrays", "embedding_bag_arrays"]


def lstm_layer_arrays(xp: Any, x: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, hx: Any, cx: Any,
                      reverse: bool) -> tuple[Any, Any, Any]:
    """One LSTM layer in one direction over ``x`` (L, N, H_in), oneDNN's fused layer as PyTorch's CPU runs a
    float32 LSTM (``mkldnn_rnn_layer``): the output of every step (in time order), the last h and c."""
    hidden = w_hh.shape[1]
    projected = xp.matmul(x, w_ih.T)
    if b_ih is not None:
        projected = projected + b_ih + b_hh
    out = xp.empty(x.shape[:2] + (hidden,), dtype=x.dtype)
    h, c = hx, cx
    sigmoid = lambda v: 1 / (1 + xp.exp(-v))  # noqa: E731
    for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
        gates = projected[t] + xp.matmul(h, w_hh.T)
        i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * xp.tanh(g)
        h = sigmoid(o) * xp.tanh(c)
        out[t] = h
    return out, h.astype(x.dtype, copy=False), c.astype(x.dtype, copy=False)


__all__ += ["lstm_layer_arrays"]


def weight_norm_arrays(xp: Any, v: Any, g: Any, dim: int) -> Any:
    """``v * (g / ||v||)``, the norm over every dim but ``dim`` (PyTorch's ``_weight_norm_interface``), a half
    accumulated in float32 as PyTorch's kernel."""
    acc = np.float32 if v.dtype.itemsize < 4 else v.dtype
    vf = v.astype(acc, copy=False)
    norm = xp.sqrt(xp.sum(vf * vf, axis=tuple(d for d in range(v.ndim) if d != dim), keepdims=True))
    return (vf * (g.astype(acc, copy=False).reshape(norm.shape) / norm)).astype(v.dtype, copy=False)


__all__ += ["weight_norm_arrays"]


# -- writing a source into part of a copy: the view scatters, masked_scatter, put (ops/view_scatter.py,
#    ops/indexing.py); and channel_shuffle, renorm, pdist (ops/upsampling.py, ops/norm.py, ops/linalg.py)


def slice_index(dim: int, start: int, end: int, step: int) -> tuple[Any, ...]:
    """``x[index]`` is ``x.slice(dim, start, end, step)``."""
    return (slice(None),) * dim + (slice(start, end, step),)


def select_index(dim: int, index: int) -> tuple[Any, ...]:
    """``x[index]`` is ``x.select(dim, index)`` (the ``...`` keeps a 1-D array's one element a 0-d view)."""
    return (slice(None),) * dim + (index, Ellipsis)


def scattered_into(xp: Any, x: Any, src: Any, view: Callable[[Any], Any]) -> Any:
    """A copy of ``x`` whose ``view(copy)`` (a writable view of it: a slice, a selected slice, a diagonal) holds
    ``src``: the body of ``slice_scatter``, ``select_scatter`` and ``diagonal_scatter``."""
    out = xp.array(x, copy=True)
    view(out)[...] = src
    return out


def masked_scatter_arrays(xp: Any, x: Any, mask: Any, source: Any) -> Any:
    """A row-major copy of ``x`` (broadcast with ``mask``) whose True positions take ``source``'s first elements in
    row-major order: the ``k``-th True position the running count of the mask says is ``k``. No boolean indexing,
    so nothing is read back on a device (the caller checks that ``source`` has enough elements)."""
    shape = x.shape if x.shape == mask.shape else np.broadcast_shapes(x.shape, mask.shape)
    where = xp.broadcast_to(mask, shape)
    flat = source.reshape(-1)
    if flat.size == 0:  # nothing to take: no True position (checked), x as it is
        return xp.array(xp.broadcast_to(x, shape), order="C")
    taken = xp.clip(xp.cumsum(where.reshape(-1), dtype=np.int64) - 1, 0, flat.size - 1)
    return xp.ascontiguousarray(xp.where(where, flat[taken].reshape(shape), x))


#: PyTorch's words when a mask has more True positions than masked_scatter's source has elements
SOURCE_TOO_SMALL = "Number of elements of source < number of ones in mask"


def mask_count(xp: Any, mask: Any, shape: tuple[int, ...]) -> Any:
    """How many True positions ``mask`` has once broadcast to ``shape`` (a 1-element array, left on its device)."""
    return xp.count_nonzero(xp.broadcast_to(mask, shape)).reshape(1)


def masked_scatter_backward_arrays(xp: Any, grad: Any, mask: Any, sizes: tuple[int, ...]) -> Any:
    """PyTorch's ``masked_scatter_backward``: ``grad`` at the mask's True positions, in order, then zeros, in
    ``source``'s shape ``sizes``. Each True position writes its slot of the running count; the False ones a spare
    last slot, dropped."""
    n = int(np.prod(sizes, dtype=np.int64))
    where = xp.broadcast_to(mask, grad.shape).reshape(-1)
    running = xp.cumsum(where, dtype=np.int64) - 1
    out = xp.zeros(n + 1, dtype=grad.dtype)
    out[xp.where(where & (running < n), running, n)] = grad.reshape(-1)
    return out[:n].reshape(sizes)


def put_arrays(xp: Any, x: Any, source: Any, index: Any, accumulate: bool, add_at: Callable[..., None],
               set_at: Callable[..., None]) -> Any:
    """A row-major copy of ``x`` with ``source``'s elements written (``accumulate``: added, repeats adding up) at the
    flat positions ``index`` (non-negative, checked); ``add_at``/``set_at`` the backend's scatters."""
    out = xp.array(x, order="C")
    (add_at if accumulate else set_at)(out.reshape(-1), index, source.reshape(-1))
    return out


def channel_shuffle_arrays(xp: Any, x: Any, groups: int) -> Any:
    """``(N, C, *)`` with its channels read as ``(groups, C / groups)`` and transposed: channel ``i C/g + j`` moves
    to ``j g + i``; row-major, as PyTorch's result."""
    n, c, *rest = x.shape
    grouped = x.reshape(n, groups, c // groups, *rest)
    return xp.ascontiguousarray(xp.swapaxes(grouped, 1, 2)).reshape(x.shape)


def renorm_arrays(xp: Any, x: Any, p: float, dim: int, maxnorm: float, acc: Any = None) -> Any:
    """``x`` with each slice along ``dim`` whose ``p``-norm is above ``maxnorm`` scaled by ``maxnorm / (norm + 1e-7)``
    (PyTorch's ``renorm`` and its ``renorm_scale_factor`` kernel)."""
    dims = tuple(k for k in range(x.ndim) if k != dim)
    norm = vector_norm_arrays(xp, x, p, dims, True, acc)
    factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(x.dtype)
    return xp.ascontiguousarray(x * factor)


def pdist_slope(xp: Any, d: Any, dist: Any, p: float) -> Any:
    """d ||d||_p / d d for each pair's difference ``d`` (a row each) and distance ``dist`` (a column): PyTorch's
    ``_pdist_backward`` cases - 0 for ``p = 0`` and where the distance is 0 (for ``p < 1`` also where ``d`` is 0),
    ``sign(d)`` for 1, ``d / dist`` for 2, ``sign(d)`` where ``|d|`` attains the distance for inf,
    ``sign(d) |d|^(p-1) / dist^(p-1)`` otherwise."""
    if p == 0:
        return xp.zeros_like(d)
    if p == 1:
        return xp.sign(d)
    if p == math.inf:
        return (xp.sign(d) * (xp.abs(d) == dist)).astype(d.dtype)
    far = dist != 0
    safe = xp.where(far, dist, 1)
    if p == 2:
        slope = d / safe
    else:
        a = xp.abs(d)
        with np.errstate(divide="ignore", invalid="ignore"):  # |d|^(p-1) at d = 0 for p < 1: masked below
            slope = xp.sign(d) * a ** (p - 1) / safe ** (p - 1)
        if p < 1:
            far = far & (a != 0)
    return xp.where(far, slope, 0).astype(d.dtype)


def pdist_arrays(xp: Any, x: Any, p: float, acc: Any = None) -> Any:
    """The ``p``-norm distance of every pair of rows ``i < j`` (row-major order of the pairs)."""
    i, j = xp.triu_indices(x.shape[0], 1)
    return xp.ascontiguousarray(vector_norm_arrays(xp, x[i] - x[j], p, -1, False, acc)).reshape(i.shape[0])


def pdist_backward_arrays(xp: Any, grad: Any, x: Any, pdist: Any, p: float, add_at: Callable[..., None]) -> Any:
    """Each pair's ``grad`` times the slope of its distance, added to its first row and taken from its second."""
    i, j = xp.triu_indices(x.shape[0], 1)
    each = grad[:, None] * pdist_slope(xp, x[i] - x[j], pdist[:, None], p)
    result = xp.zeros_like(x)
    add_at(result, i, each)
    add_at(result, j, -each)
    return result


__all__ += ["slice_index", "select_index", "scattered_into", "masked_scatter_arrays", "SOURCE_TOO_SMALL", "mask_count", "masked_scatter_backward_arrays", "put_arrays",
            "channel_shuffle_arrays", "renorm_arrays", "pdist_slope", "pdist_arrays", "pdist_backward_arrays"]


def packed_groups(lengths: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The steps of a packed sequence in runs of one batch size, as ATen's ``_pack_padded_sequence`` takes
    them: ``(first step, end step, sequences)``, from the first step on; ``lengths`` in decreasing order."""
    groups, prev, n = [], 0, len(lengths)
    for i in range(n):
        length = lengths[n - 1 - i]
        if length > prev:
            groups.append((prev, length, n - i))
            prev = length
    return groups


def pack_padded_arrays(xp: Any, x: Any, lengths: tuple[int, ...], batch_first: bool) -> Any:
    """``_pack_padded_sequence``'s data: each step's elements of the sequences still running, step after
    step (``x[t, :n_t]``, time-major; ``x`` is batch-major with ``batch_first``)."""
    if batch_first:
        x = x.swapaxes(0, 1)
    rest = x.shape[2:]
    return xp.concatenate([x[start:end, :n].reshape((-1,) + rest) for start, end, n in packed_groups(lengths)])


def pack_padded_backward_arrays(xp: Any, grad: Any, input_size: tuple[int, ...], lengths: tuple[int, ...],
                                batch_first: bool) -> Any:
    """The adjoint of ``pack_padded_arrays``: zeros of the input's shape, each packed row's gradient where
    its element came from."""
    steps, batch = (input_size[1], input_size[0]) if batch_first else (input_size[0], input_size[1])
    rest = tuple(input_size[2:])
    out = xp.zeros((steps, batch) + rest, dtype=grad.dtype)
    offset = 0
    for start, end, n in packed_groups(lengths):
        rows = (end - start) * n
        out[start:end, :n] = grad[offset:offset + rows].reshape((end - start, n) + rest)
        offset += rows
    return xp.ascontiguousarray(out.swapaxes(0, 1)) if batch_first else out


__all__ += ["packed_groups", "pack_padded_arrays", "pack_padded_backward_arrays"]
