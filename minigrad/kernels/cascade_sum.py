"""The sum of floating-point values, bit for bit as PyTorch's CPU kernel adds them.

Float addition is not associative: the same values added in another order give another last bit. NumPy
adds a row pairwise (eight running sums, then a tree), PyTorch's CPU ``sum`` in its own order, so a loss
printed with ``loss.item()`` showed other digits than PyTorch's (``50.97850799560547`` for
``50.978511810302734`` in PyTorch's polynomial tutorial). minigrad adds in PyTorch's order
(aten/src/ATen/native/cpu/SumKernel.cpp), so the digits a student prints are PyTorch's.

NOTE [ PyTorch's sum, bit for bit ]
    PyTorch lays a reduction out as TensorIterator does: size-1 dims dropped, the reduced dims first
    (fastest-varying first), then the kept ones, neighbours merged where memory allows. The first two dims
    make a 2-D loop; any further dims are loops around it, each adding its result into the output (in the
    output's dtype: a half rounds at every store). The 2-D loop takes one of four paths:

    - *inner* (the reduced dim contiguous and at least one vector long): each row is read as 32-byte
      vectors (8 floats, 4 doubles; 16 halves, added in pairs into 8 floats), the vectors summed by
      ``row_sum``, then the row's leftover elements added to 0 one by one, then the vector's lanes;
    - *outer* (the kept dim contiguous and at least one vector wide): columns in groups of 32 (4 vectors)
      summed down the rows by ``cascade``, the rest by ``row_sum``;
    - otherwise each reduced row by ``row_sum`` (or, reduced rows strided wider than kept ones, groups of
      four columns by ``cascade`` and the rest by ``row_sum``).

    ``cascade`` adds rows into a running sum, and every ``L`` rows (``L = 2**max(4, ceil(log2 n) / 4)``)
    moves that sum into a second level, every ``L`` of those into a third, then a fourth; at the end the
    levels are added lowest first. ``row_sum`` reads its rows as groups of four, four running sums
    (``cascade`` over the groups), the leftover rows added into the first, then the four added in order.

    A full reduction of at least 32,768 elements is split among the threads (``mg.get_num_threads()``,
    PyTorch's count: the CPU's cores), each summing its part, the parts added in order - so the bits
    equal PyTorch's run with the same number of threads. Vectors are AVX2's (PyTorch's default build on
    x86); bfloat16 arrives here as float32 and is added in float32's order. Integer sums are exact in any
    order and stay NumPy's.
"""

from __future__ import annotations

import math
import os
from typing import Any, NamedTuple

import numpy as np

from .strided import iterator_order

__all__ = ["cascade_sum", "GRAIN_SIZE", "get_num_threads", "set_num_threads"]

#: Below this many elements PyTorch's reduction runs in one thread (``at::internal::GRAIN_SIZE``).
GRAIN_SIZE = 32768
_VECTOR_BYTES = 32  # one AVX2 register
_NUM_LEVELS = 4


def _physical_cores() -> int:
    """PyTorch's default thread count: ``OMP_NUM_THREADS`` (or ``MKL_NUM_THREADS``) when set, else the CPU's
    physical cores (Linux's /proc/cpuinfo; the logical count elsewhere)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        with open("/proc/cpuinfo") as f:
            cores, physical = set(), "0"
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "physical id":
                    physical = value.strip()
                elif key.strip() == "core id":
                    cores.add((physical, value.strip()))
        if cores:
            return len(cores)
    except OSError:
        pass
    return os.cpu_count() or 1


_THREADS = [0]  # 0: not read yet


def get_num_threads() -> int:
    """The number of threads PyTorch's CPU kernels would use (``torch.get_num_threads``). minigrad computes in
    one thread; the count decides how a large sum is split, so its bits equal PyTorch's with that count."""
    if not _THREADS[0]:
        _THREADS[0] = _physical_cores()
    return _THREADS[0]


def set_num_threads(num: int) -> None:
    """Set the count ``get_num_threads`` returns (``torch.set_num_threads``)."""
    if isinstance(num, bool) or not isinstance(num, int):
        raise TypeError(f"set_num_threads(): argument 'int' (position 1) must be int, not {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _THREADS[0] = num


def _running(a: np.ndarray) -> np.ndarray:
    """The sum of ``a`` along axis 0 added one row at a time (from 0: the caller's ``+ 0`` or later adds make
    a lone -0.0 +0.0). NumPy reduces the innermost axis pairwise, but an outer one row by row: so
    ``add.reduce`` where another axis is the inner loop (strided narrower, at least two elements a row),
    else a loop of adds (wide rows) or ``add.accumulate`` (sequential; its loop runs along axis 0)."""
    n = a.shape[0]
    if n == 1:
        return a[0]
    row = a.size // n if n else 0
    if row >= 2 and any(abs(st) < abs(a.strides[0]) for st, m in zip(a.strides[1:], a.shape[1:]) if m > 1):
        return np.add.reduce(a, axis=0)
    if a.size >= 20 * n * n:
        out = a[0] + a[1]
        for i in range(2, n):
            out += a[i]
        return out
    return np.add.accumulate(a, axis=0)[-1]


def _swap01(a: np.ndarray) -> np.ndarray:
    return a.swapaxes(0, 1)


def cascade(rows: np.ndarray) -> np.ndarray:
    """PyTorch's ``multi_row_sum``: the rows (axis 0) added in four levels of ``L``-row chunks, every
    trailing position (a lane, a column, a batch) on its own. An empty level is left out of the final sum:
    adding its 0 changes only the sign of a zero, which the output's own ``0 +`` settles."""
    n = rows.shape[0]
    rest = rows.shape[1:]
    log2 = 1 if n <= 2 else (n - 1).bit_length()
    step = 1 << max(4, log2 // _NUM_LEVELS)
    if n < step:  # one level: the running sum
        return _running(rows)
    levels: list[Any] = [None, None, None, None]
    chunk_sums = None
    full = n // step
    if full:
        chunk_sums = _running(_swap01(rows[:full * step].reshape((full, step) + rest)))
    # level 1 collects chunk sums, and every ``step`` of them moves on to level 2, and so on; level 3 keeps all
    for level in (1, 2):
        if chunk_sums is None:
            break
        groups = chunk_sums.shape[0] // step
        if chunk_sums.shape[0] % step:
            levels[level] = _running(chunk_sums[groups * step:])
        chunk_sums = (_running(_swap01(chunk_sums[:groups * step].reshape((groups, step) + rest)))
                      if groups else None)
    if chunk_sums is not None:
        levels[3] = _running(chunk_sums)
    if n % step:
        levels[0] = _running(rows[full * step:])
    out = None
    for value in levels:
        if value is not None:
            out = value if out is None else out + value
    return out


def row_sum(rows: np.ndarray) -> np.ndarray:
    """PyTorch's ``row_sum``: the rows (axis 0) as groups of four running sums (``cascade``), the leftover
    rows added into the first, then the four added in order."""
    n = rows.shape[0]
    groups = n // 4
    if groups:
        part = cascade(rows[:groups * 4].reshape((groups, 4) + rows.shape[1:]))
        first = part[0]
        for i in range(groups * 4, n):
            first = first + rows[i]
        return ((first + part[1]) + part[2]) + part[3]
    out = rows[0]
    for i in range(1, n):
        out = out + rows[i]
    return out if n else np.zeros(rows.shape[1:], rows.dtype)


def _inner(x: np.ndarray, acc: Any) -> np.ndarray:
    """Rows along axis 0 (contiguous in memory, at least one vector long), a batch in the trailing axes: the
    vectorised inner sum of each."""
    n = x.shape[0]
    per_vector = _VECTOR_BYTES // x.dtype.itemsize
    lanes = _VECTOR_BYTES // np.dtype(acc).itemsize
    vectors = n // per_vector
    body = x[:vectors * per_vector].reshape((vectors, lanes, per_vector // lanes) + x.shape[1:]).astype(acc, copy=False)
    if per_vector > lanes:  # halves: each float lane takes two neighbours, 0 + a + b
        body = body[:, :, 0] + body[:, :, 1]
    else:
        body = body[:, :, 0]
    lane_sums = row_sum(body)
    tail = x[vectors * per_vector:].astype(acc, copy=False)
    final = _running(tail) if tail.shape[0] else np.zeros(x.shape[1:], acc)
    for k in range(lanes):
        final = final + lane_sums[k]
    return final


def _outer(x: np.ndarray, acc: Any, group: int | None = None) -> np.ndarray:
    """Reduced rows along axis 0, kept columns along axis 1, a batch in any further axes: columns in groups of
    ``group`` summed down the rows by ``cascade``, the rest by ``row_sum``. ``group`` is four vectors where the
    columns are contiguous (PyTorch's vectorised outer sum); four columns where they are not and the rows are
    strided wider than the columns (its scalar outer sum, ``group=4``)."""
    if group is None:
        group = 4 * (_VECTOR_BYTES // np.dtype(acc).itemsize)
    a = x.astype(acc, copy=False)
    grouped = (x.shape[1] // group) * group
    if grouped == x.shape[1]:
        return cascade(a)
    if grouped == 0:
        return row_sum(a)
    return np.concatenate([cascade(a[:, :grouped]), row_sum(a[:, grouped:])], axis=0)


class _Plan(NamedTuple):
    """How one call's array is read: TensorIterator's merged dims (``[size, input stride, output stride,
    reduced, original axes]``, fastest first), and the moves that turn the array into the 2-D loop's rows
    and the values back into the output."""

    dims: list[list[Any]]
    #: the array's axes in an order that makes it C-contiguous, and the merged dims' sizes in that order;
    #: None when no order does (then ``as_strided``)
    contiguous: tuple[tuple[int, ...], tuple[int, ...]] | None
    #: the transpose of that reshape into rows: (dims[0], dims[k], ..., dims[1])
    rows_perm: tuple[int, ...]
    #: the kept axes' sizes slowest-first in iterator order, and the transpose back to the input's order
    kept_sizes: tuple[int, ...]
    out_perm: tuple[int, ...]
    reduced: int


_PLANS: dict[tuple[Any, ...], Any] = {}


def _plan(x: np.ndarray, axes: tuple[int, ...]) -> _Plan | None:
    key = (x.shape, x.strides, x.dtype.itemsize, axes)
    found = _PLANS.get(key)
    if found is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        found = _PLANS[key] = _make_plan(x, axes)
    return found


def _make_plan(x: np.ndarray, axes: tuple[int, ...]) -> _Plan | None:
    """TensorIterator's dims for reducing ``axes`` of ``x``: reduced dims first, then by the output's strides
    and the input's (its insertion sort with ambiguous comparisons), merged where memory allows. None for
    negative strides (a PyTorch tensor has none)."""
    item = x.dtype.itemsize
    if any(st < 0 for st in x.strides):
        return None
    out_strides, s = {}, 1
    for d in reversed([d for d in range(x.ndim) if d not in axes]):  # the output: row-major over kept dims
        out_strides[d] = s
        s *= x.shape[d]
    strides = [(out_strides.get(d, 0), x.strides[d] // item) for d in range(x.ndim)]

    def should_swap(d0: int, d1: int) -> int:
        for k in (0, 1):  # the output, then the input
            s0, s1 = strides[d0][k], strides[d1][k]
            if k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if x.shape[d0] > x.shape[d1]:
                return 1
        return 0

    perm = iterator_order(x.ndim, should_swap)
    merged: list[list[Any]] = []
    for d in perm:
        dd = [x.shape[d], strides[d][1], strides[d][0], d in axes, [d]]
        if merged:
            last = merged[-1]
            if last[0] == 1 or dd[0] == 1 or (dd[1] == last[0] * last[1] and dd[2] == last[0] * last[2]):
                if last[0] == 1:
                    last[1:4] = dd[1:4]
                last[0] *= dd[0]
                last[4] = last[4] + [d]
                continue
        merged.append(dd)
    dims = [dd for dd in merged if dd[0] != 1]
    for dd in dims:
        dd[3] = dd[2] == 0
    if not dims or not dims[0][3]:  # nothing to reduce: the caller adds 0
        return _Plan(dims, None, (), (), (), 0)
    # the array as rows: its axes sorted by stride, slowest first, make it C-contiguous when it is dense
    by_stride = sorted(range(x.ndim), key=lambda d: (-x.strides[d], d))
    contiguous = None
    expected = item
    for d in reversed(by_stride):
        if x.shape[d] != 1 and x.strides[d] != expected:
            break
        expected *= x.shape[d]
    else:
        # each merged dim is a run of axes that are neighbours in that order: its place is its slowest axis's
        position = {d: i for i, d in enumerate(by_stride)}
        groups = sorted(range(len(dims)), key=lambda i: min(position[d] for d in dims[i][4]))
        contiguous = (tuple(by_stride), tuple(dims[i][0] for i in groups))
        if any(sorted(position[d] for d in dims[i][4]) != list(range(min(position[d] for d in dims[i][4]),
               min(position[d] for d in dims[i][4]) + len(dims[i][4]))) for i in range(len(dims))):
            contiguous = None  # a merged dim that skips an axis of size > 1 cannot be a reshape
    if contiguous is not None:
        wanted = [0] + list(range(len(dims) - 1, 0, -1))  # rows: dims[0], then dims[k] ... dims[1]
        rows_perm = tuple(groups.index(i) for i in wanted)
    else:
        rows_perm = ()
    order = [d for d in perm if d not in axes and x.shape[d] != 1]
    kept_now = list(reversed(order))
    kept_sizes = tuple(x.shape[d] for d in kept_now)
    out_perm = tuple(kept_now.index(d) for d in sorted(kept_now))
    return _Plan(dims, contiguous, rows_perm, kept_sizes, out_perm, sum(1 for d in dims if d[3]))


def _rows(x: np.ndarray, plan: _Plan) -> np.ndarray:
    """``x`` as the 2-D loop reads it: (dims[0], dims[k], ..., dims[1]), without a copy."""
    if plan.contiguous is not None:
        order, sizes = plan.contiguous
        return x.transpose(order).reshape(sizes).transpose(plan.rows_perm)
    dims = plan.dims
    wanted = [dims[0]] + dims[:0:-1]
    item = x.dtype.itemsize
    return np.lib.stride_tricks.as_strided(x, shape=[d[0] for d in wanted], strides=[d[1] * item for d in wanted])


def _last_to(a: np.ndarray, position: int) -> np.ndarray:
    axes = list(range(a.ndim - 1))
    axes.insert(position, a.ndim - 1)
    return a.transpose(axes)


def _first_to_last(a: np.ndarray) -> np.ndarray:
    return a.transpose(tuple(range(1, a.ndim)) + (0,))


def _two_dim(rows: np.ndarray, dims: list[list[Any]], acc: Any, per_vector: int) -> np.ndarray:
    """The 2-D loop over ``dims[0]`` (reduced) and ``dims[1]`` (or a single row), batched over the middle axes
    of ``rows`` (dims[0], dims[k], ..., dims[1]): one value per row of dims[1], in ``acc``."""
    size0, s0 = dims[0][0], dims[0][1]
    size1, s1 = (dims[1][0], dims[1][1]) if len(dims) > 1 else (1, 0)
    if s0 == 1 and size0 >= per_vector:
        return _inner(rows, acc)
    if size1 > 1 and s1 == 1 and size1 >= per_vector:
        return _first_to_last(_outer(_last_to(rows, 1), acc))
    if size1 == 1 or s0 < s1:
        return row_sum(rows.astype(acc, copy=False))
    return _first_to_last(_outer(_last_to(rows, 1), acc, group=4))


def cascade_sum(x: np.ndarray, axes: tuple[int, ...], dtype: Any, threads: int = 1) -> np.ndarray:
    """``x`` (floating) summed over ``axes`` as PyTorch's CPU kernel adds it (NOTE [ PyTorch's sum, bit for
    bit ]), without the reduced dims, in ``dtype``; float16 is added in float32 and rounded at each store."""
    dtype = np.dtype(dtype)
    acc = np.float32 if dtype.itemsize < 4 else dtype.type
    if x.size == 0:
        return np.zeros(tuple(n for d, n in enumerate(x.shape) if d not in axes), dtype)
    if x.dtype != dtype:
        x = x.astype(dtype)
    if x.flags.c_contiguous and dtype.itemsize >= 4:
        fast = _contiguous_sum(x, axes, acc, threads)
        if fast is not None:
            return fast
    plan = _plan(x, axes)
    if plan is None:
        x = np.ascontiguousarray(x)
        plan = _plan(x, axes)
    dims = plan.dims
    if not dims or not dims[0][3]:  # nothing is reduced (only size-1 dims): 0 + x
        return (x.astype(acc) + acc(0)).astype(dtype).reshape(tuple(n for d, n in enumerate(x.shape) if d not in axes))
    if dtype.itemsize == 2 and len(dims) >= 2 and dims[1][3]:
        # two reduced dims would add the second's rows in half precision: PyTorch sums a float32 copy instead
        # (``should_use_acc_buffer``) and rounds once
        return cascade_sum(x.astype(np.float32), axes, np.float32, threads).astype(dtype)
    per_vector = _VECTOR_BYTES // dtype.itemsize
    rows = _rows(x, plan)
    if len(dims) == 1 and threads > 1 and dims[0][0] >= GRAIN_SIZE:
        out = _split_among_threads(rows, dims[0][1], dtype, acc, per_vector, threads)
        return out.reshape(tuple(n for d, n in enumerate(x.shape) if d not in axes))
    values = _two_dim(rows, dims, acc, per_vector)  # (outer dims..., size1) or (outer dims...)
    if plan.reduced > 1:
        # dims[1] is reduced too: its rows, and any further reduced dims, add into one output in turn
        values = values.reshape(values.shape[:values.ndim - (plan.reduced - 1)] + (-1,))
        out = np.zeros(values.shape[:-1], dtype)
        for k in range(values.shape[-1]):
            out = (out.astype(acc) + values[..., k]).astype(dtype)
    else:
        out = (values + acc(0)).astype(dtype)  # the output, filled with 0, plus the value
    # ``out`` holds the kept dims slowest first (reversed iterator order); put them back in the input's order
    if len(plan.out_perm) > 1:
        out = out.reshape(plan.kept_sizes).transpose(plan.out_perm)
    return out.reshape(tuple(n for d, n in enumerate(x.shape) if d not in axes))


def _contiguous_sum(x: np.ndarray, axes: tuple[int, ...], acc: Any, threads: int) -> np.ndarray | None:
    """The layouts most sums have, read without the general plan: a C-contiguous float32/float64 array summed
    over its leading dims (a bias's gradient: the outer path), its trailing dims (the inner path) or all of
    them; None for any other call. The same paths the plan would take, so the same bits."""
    nd, k = x.ndim, len(axes)
    if not k or k > nd:
        return None
    per_vector = _VECTOR_BYTES // x.dtype.itemsize
    if k == nd and axes == tuple(range(nd)):
        n = x.size
        if n < per_vector or (threads > 1 and n >= GRAIN_SIZE):
            return None
        return np.asarray(_inner(x.reshape(n), acc) + acc(0))
    lead = math.prod(x.shape[:k]) if axes == tuple(range(k)) else 0
    if lead:
        cols = x.size // lead
        if lead > 1 and cols >= per_vector:
            return (_outer(x.reshape(lead, cols), acc) + acc(0)).reshape(x.shape[k:])
        return None
    if axes == tuple(range(nd - k, nd)):
        rows = math.prod(x.shape[:nd - k])
        n = x.size // rows if rows else 0
        if rows > 1 and n >= per_vector:
            return (_inner(x.reshape(rows, n).T, acc) + acc(0)).reshape(x.shape[:nd - k])
    return None


def _split_among_threads(flat: np.ndarray, stride: int, dtype: Any, acc: Any, per_vector: int,
                         threads: int) -> np.ndarray:
    """A full reduction of one merged dim in PyTorch's two passes: ``parallel_for``'s equal parts, each
    summed from 0, then the parts added in order."""
    n = flat.shape[0]
    parts = min(threads, math.ceil(n / GRAIN_SIZE))
    size = math.ceil(n / parts)
    out = np.zeros((), dtype)
    for begin in range(0, n, size):
        part = flat[begin:begin + size]
        value = _inner(part, acc) if stride == 1 and part.shape[0] >= per_vector else row_sum(part.astype(acc))
        out = (out.astype(acc) + (np.zeros((), acc) + value).astype(dtype)).astype(dtype)
    return out
