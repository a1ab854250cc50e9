"""Array bodies of the shape ops whose rules are minigrad's (PyTorch's), for any array module.

``diagonal`` and ``unfold`` are views: their result shares the input's memory,
with a shape and strides of its own, so a change through the view reaches the
base (PyTorch's ``as_strided`` geometry). NumPy and CuPy both take such a
geometry (``xp.lib.stride_tricks.as_strided``), so the CPU kernels
(``ops/views.py``, ``ops/shape.py``) and the GPU kernels (``kernels/gpu/shape.py``)
run these same bodies with ``np`` or ``cupy``. A view kernel that fell back to
the CPU would return a copy on the GPU, and an in-place change through it would
be lost.

NOTE [ A view kernel's result has a base ]
The dygraph layer takes the output of a view op for a view - sharing the version
counter, rewritten through by an in-place change (``dispatch/views.py``) - when
the array's ``base`` is set; a view op whose kernel had to copy (``reshape`` of
a transposed array) returns an array that owns its memory. CuPy's
``as_strided`` builds ``ndarray(memptr=x.data, strides=...)``
(cupy/lib/stride_tricks.py): the same memory, but ``base`` is ``None``, so its
result is viewed once more (``strided``). Without that, a change through a
diagonal on the GPU reached the base's values but not its history, and the
gradient missed the change.

For the same reason ``squeeze`` with nothing to squeeze returns a new view, where
NumPy and CuPy return the input array itself (cupy/_core/_routines_manipulation.pyx,
``_ndarray_squeeze``): the output would be no view, and an in-place change
through it would skip PyTorch's checks. ``transpose`` of a 0-d tensor and ``cat``
of a 1-D empty tensor with others follow PyTorch where NumPy and CuPy refuse
(``swapaxes`` of a 0-d array, ``concatenate`` of arrays of different ranks).

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.strided import diagonal_view
    >>> x = np.arange(9.0).reshape(3, 3)
    >>> d = diagonal_view(np, x, 0)
    >>> d *= 10
    >>> x.tolist()
    [[0.0, 1.0, 2.0], [3.0, 40.0, 5.0], [6.0, 7.0, 80.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..devices import (CHANNELS_LAST, array_module, format_strides, iterator_order, strided_copy,
                      suggested_memory_format, swap_rule)
from ..devices import row_major_strides as contiguous_strides
from .infer_meta import is_legacy_empty, split_pieces
from .kept import kept

__all__ = ["as_strided_view", "channels_last_copy", "FORMAT_RULES", "format_layout", "format_of", "unsqueeze_view", "new_dims_strided", "iterator_order", "order_and_inverse", "torch_layout", "copy_in_order", "laid_out_like", "row_major", "viewable", "concat_arrays", "copy_slices_array", "diagonal_length", "diagonal_view", "split_views", "squeeze_view",
           "strided", "transpose_view", "unbind_views", "unfold_view"]


def diagonal_length(rows: int, cols: int, offset: int) -> int:
    """How many elements the diagonal ``offset`` of a ``rows x cols`` matrix has."""
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def strided(xp: Any, x: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    """A view of ``x``'s memory with its own shape and strides (bytes), whose ``base`` is set
    (NOTE [ A view kernel's result has a base ])."""
    return xp.lib.stride_tricks.as_strided(x, shape, strides).view()


# NOTE [ A new dimension's stride is PyTorch's ]
# A dimension of size 1 is never stepped along, so its stride is a free choice, and NumPy and PyTorch
# choose differently: NumPy's ``x[None]`` gives the new dimension stride 0 and ``expand_dims`` whatever its
# reshape finds, while PyTorch's ``unsqueeze(d)`` (which ``x[None]`` runs) gives it ``size(d) * stride(d)``
# of the dimension it is put in front of, or 1 at the end (``inferUnsqueezeGeometry``). Nothing computes
# differently, but ``stride()`` prints it, and a course on views prints strides: ``x[None].stride()`` of a
# (2, 3) ``x`` is ``(6, 3, 1)``, not ``(0, 3, 1)``.


def unsqueeze_view(xp: Any, x: Any, dim: int) -> Any:
    """``x`` with a new dimension of size 1 at ``dim`` (of ``x.ndim + 1``), its stride PyTorch's (NOTE [ A new
    dimension's stride is PyTorch's ])."""
    out = xp.expand_dims(x, dim)
    want = x.shape[dim] * x.strides[dim] if dim < x.ndim else x.itemsize
    if out.strides[dim] == want:
        return out
    return strided(xp, x, out.shape, out.strides[:dim] + (want,) + out.strides[dim + 1:])


def new_dims_strided(xp: Any, x: Any, index: tuple[Any, ...], out: Any) -> Any:
    """``out = x[index]`` of a basic index (integers, slices, ``None``, ``...``) with each ``None``'s dimension
    given PyTorch's stride: PyTorch applies the index item by item, a ``None`` an ``unsqueeze`` of what the
    items before it made (NOTE [ A new dimension's stride is PyTorch's ]). ``out`` itself otherwise."""
    if not any(i is None for i in index) or not all(
            i is None or i is Ellipsis or type(i) is slice or type(i) is int for i in index):
        return out
    sizes, steps = list(x.shape), list(x.strides)
    taken = sum(1 for i in index if i is not None and i is not Ellipsis)
    want, dim = list(out.strides), 0
    for item in index:
        if item is Ellipsis:
            dim += x.ndim - taken
        elif item is None:
            step = sizes[dim] * steps[dim] if dim < len(sizes) else x.itemsize
            sizes.insert(dim, 1)
            steps.insert(dim, step)
            want[dim] = step
            dim += 1
        elif type(item) is slice:
            start, stop, by = item.indices(sizes[dim])
            sizes[dim], steps[dim] = len(range(start, stop, by)), steps[dim] * by
            dim += 1
        else:  # an integer: the dimension goes
            del sizes[dim], steps[dim]
    if tuple(want) == out.strides:
        return out
    return strided(xp, out, out.shape, tuple(want))


def diagonal_view(xp: Any, x: Any, offset: int, dim1: int = -2, dim2: int = -1) -> Any:
    """The diagonal of the ``(dim1, dim2)`` planes as the last dim, the other dims in order before it (PyTorch's
    ``diagonal``), writable (NumPy's own ``diagonal`` is read-only)."""
    d1, d2 = dim1 % x.ndim, dim2 % x.ndim
    if (d1, d2) != (x.ndim - 2, x.ndim - 1):
        x = x.transpose(tuple(k for k in range(x.ndim) if k not in (d1, d2)) + (d1, d2))
    n = diagonal_length(x.shape[-2], x.shape[-1], offset)
    start = x[..., max(-offset, 0):, max(offset, 0):] if n else x
    step = x.strides[-2] + x.strides[-1]  # one row down and one column right
    return strided(xp, start, x.shape[:-2] + (n,), x.strides[:-2] + (step,))


def as_strided_view(xp: Any, x: Any, size: tuple[int, ...], stride: tuple[int, ...], shift: int) -> Any:
    """PyTorch's ``as_strided``: ``size`` elements ``stride`` apart (in elements), the first ``shift`` elements
    from ``x``'s first in their memory (before it where negative). The caller checked that they lie in the
    storage; ``x``'s own strides play no part."""
    item = x.itemsize
    if shift:  # the one-element view ``shift`` elements away: the second of a pair that far apart
        x = xp.lib.stride_tricks.as_strided(x, (2,), (shift * item,))[1:]
    return strided(xp, x, tuple(size), tuple(s * item for s in stride))


def unfold_view(xp: Any, x: Any, dim: int, size: int, step: int) -> Any:
    """Every window of ``size`` elements along ``dim``, ``step`` apart, as a new last dim."""
    shape = list(x.shape)
    strides = list(x.strides)
    shape[dim] = (shape[dim] - size) // step + 1
    strides[dim] *= step
    return strided(xp, x, tuple(shape) + (size,), tuple(strides) + (x.strides[dim],))


def transpose_view(xp: Any, x: Any, dim0: int, dim1: int) -> Any:
    """``x`` with two dims swapped; a 0-d array is its own transpose (``t()`` of a 0-d tensor, as PyTorch's)."""
    return x.view() if x.ndim == 0 else x.swapaxes(dim0, dim1)  # (the method: no module-level wrapper call)


def squeeze_view(xp: Any, x: Any, dim: Any = None) -> Any:
    """``x`` without its size-1 dims (all, or those of ``dim``, an int or a tuple; InferMeta checked them):
    always a view, never ``x`` itself."""
    if dim is None:
        out = xp.squeeze(x)
        return out if out is not x else x.view()
    if x.ndim == 0:  # squeeze(0) / squeeze(-1) of a 0-d tensor: itself, as a view
        return x.view()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    axes = tuple(d % x.ndim for d in dims if x.shape[d % x.ndim] == 1)
    return xp.squeeze(x, axis=axes) if axes else x.view()


def split_views(x: Any, split_sizes: Any, dim: int) -> tuple[Any, ...]:
    """The pieces of ``x`` along ``dim`` (``split_sizes`` a list of sizes, or one int: ``split``'s rule),
    each a view."""
    dim %= x.ndim
    if isinstance(split_sizes, int):
        split_sizes = split_pieces(x.shape[dim], split_sizes)
    lead = (slice(None),) * dim
    pieces, start = [], 0
    for s in split_sizes:
        pieces.append(x[lead + (slice(start, start + s),)])
        start += s
    return tuple(pieces)


def unbind_views(x: Any, dim: int) -> tuple[Any, ...]:
    """The slices of ``x`` along ``dim``, that dim removed, each a view (a 0-d one of a 1-d ``x``: the
    ``Ellipsis`` keeps NumPy from returning a scalar)."""
    dim %= x.ndim
    lead = (slice(None),) * dim
    return tuple(x[lead + (i, Ellipsis)] for i in range(x.shape[dim]))


def concat_arrays(xp: Any, xs: Any, dim: int) -> Any:
    """``xs`` joined along ``dim``, without the 1-D empty arrays PyTorch's ``cat`` skips wherever they stand."""
    kept = [x for x in xs if not is_legacy_empty(x.shape)] or xs[:1]
    return xp.concatenate(kept, axis=dim % max(kept[0].ndim, 1))


def copy_slices_array(xp: Any, base: Any, src: Any, positions: Any) -> Any:
    """A copy of ``base`` with the elements at the flat ``positions`` (an array of ``xp``'s) replaced by ``src``."""
    out = xp.array(base, copy=True, order="C")
    flat = out.reshape(-1)
    flat[positions.reshape(-1)] = xp.broadcast_to(src, positions.shape).reshape(-1)
    return out


# NOTE [ An elementwise result is laid out as PyTorch lays it out ]
#     PyTorch's TensorIterator does not always write row-major: it orders the
#     output's dimensions by its inputs' strides (``reorder_dimensions``), so the
#     exp of a transposed tensor is transposed too, and ``x.t().exp().view(-1)``
#     raises there as ``x.t().view(-1)`` does. The order is an insertion sort of
#     the dimensions, fastest first, where two dimensions swap when the first
#     input whose strides on them are both non-zero (not broadcast) says so: a
#     larger stride on the one meant to be faster, or, for equal strides, a
#     larger size. When every input is row-major nothing moves.
#
#     On the GPU the output is a row-major buffer of the permuted shape, seen
#     through the inverse permutation, and the kernel runs in the buffer's order
#     on the inputs permuted alike (views: nothing is copied), so the launcher's
#     contiguous, vector and by-value variants still apply
#     (``kernels/gpu/elementwise.py``). On the CPU NumPy's ufuncs lay out their
#     result by a rule of their own (order "K"), which agrees with PyTorch's
#     unless two inputs disagree: there NumPy keeps row-major and PyTorch follows
#     the first input, so ``b.t() + a`` is column-major in PyTorch, and
#     ``(b.t() + a).view(-1)`` raises. ``torch_layout`` gives an elementwise op's
#     CPU result PyTorch's layout (a copy only where the two rules disagree).
#: orders by geometry (output shape, each input's shape and strides): a program repeats a few geometries,
#: and the order is host work per call (the GPU's per-op host time of ``a.t() * b`` is measured against PyTorch's)
_ORDERS: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[int, ...]] | None] = {}
_ORDERS_MAX = 4096


def order_and_inverse(shape: tuple[int, ...], inputs: tuple[Any, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """PyTorch's order of an elementwise result's dimensions, slowest first, and its inverse permutation,
    or ``None`` for row-major (NOTE above); ``inputs``: arrays of any module (0-d ones do not vote)."""
    return kept(_ORDERS, (shape, *[(a.shape, a.strides) for a in inputs]), lambda: _order_of(shape, inputs),
                _ORDERS_MAX)


def _order_of(shape: tuple[int, ...], inputs: tuple[Any, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    nd = len(shape)
    strides = []
    for a in inputs:
        if a.ndim == 0:
            continue  # a number's operand has no strides to vote with
        lead = nd - a.ndim
        strides.append([0] * lead + [0 if size == 1 and shape[lead + d] != 1 else st
                                     for d, (size, st) in enumerate(zip(a.shape, a.strides))])

    order = iterator_order(nd, swap_rule(shape, strides))[::-1]
    if order == list(range(nd)):
        return None
    return tuple(order), tuple(int(i) for i in np.argsort(order))


def torch_layout(rule: str, out: Any, inputs: Any) -> Any:
    """``out``, an op's CPU result (or results), or a copy laid out as PyTorch lays it out: by ``rule``,
    "elementwise" (TensorIterator's order of the inputs' strides) or "contiguous" (row-major; a reduction,
    a scan, a softmax). NOTE [ An elementwise result is laid out as PyTorch lays it out ]."""
    if type(out) is tuple:
        return tuple(torch_layout(rule, o, inputs) for o in out)
    if type(out) is not np.ndarray or out.ndim < 2:  # a GPU array: its launcher lays it out
        return out
    if rule == "contiguous":
        return out if out.flags.c_contiguous else np.ascontiguousarray(out)
    for a in inputs:
        if a is not None and not row_major(a):
            break
    else:  # every input row-major, size-1 dims' strides too (PyTorch's order reads them): so is the result
        return out
    if out.size == 0:
        return out
    entry = order_and_inverse(out.shape, tuple(a for a in inputs if a is not None))  # (an optional input not given)
    if entry is None:
        return out if out.flags.c_contiguous else np.ascontiguousarray(out)
    order, inverse = entry
    if out.strides == _strides_in_order(out.shape, order, out.itemsize):
        return out
    return copy_in_order(np, out, order, inverse)


# NOTE [ A memory format passes through a CNN ]
#     PyTorch's convolution, batch and group norm, pooling, resampling and
#     padding kernels keep a channels-last input channels last: they allocate
#     their result in the input's ``suggest_memory_format()``, so
#     ``conv(x.to(memory_format=torch.channels_last))`` is channels last, and so
#     is everything after it up to the first op that makes a row-major result
#     (``flatten``, ``layer_norm``, ``softmax``). A convolution is channels last
#     when its input or its weight is (``model.to(memory_format=...)`` alone
#     converts the activations at the first layer), and ``cat`` when every
#     input is, in the same format. minigrad's kernels compute those ops on
#     any strides and write row-major results; ``format_layout`` then lays a
#     result out as PyTorch's (a copy, only where a channels-last input asks
#     for it), on the CPU and the GPU alike. The ops say which rule is theirs
#     by their ``layout`` (``FORMAT_RULES``).

#: The layout rules of ``format_layout``: the first input's format decides, the input's or the weight's
#: (a convolution), or every input's alike (``cat``), the result row-major where no channels-last format
#: does; or, for ``constant_pad_nd``, the input's channels-last format, else the kernel's own layout (a pad
#: that only crops is a clone of the cropped view, its order kept, as PyTorch's).
FORMAT_RULES = ("memory_format", "conv_memory_format", "cat_memory_format", "keep_channels_last")
_FORMATS: dict[tuple[Any, ...], str] = {}


def format_of(a: Any) -> str:
    """PyTorch's ``suggest_memory_format()`` of an array of any module (``contiguous_format`` below 4-D)."""
    if a.ndim != 4 and a.ndim != 5:
        return "contiguous_format"
    key = (a.shape, a.strides, a.itemsize)
    return kept(_FORMATS, key, lambda: suggested_memory_format(a.shape, tuple(s // a.itemsize for s in a.strides)),
                4096)


def format_layout(rule: str, out: Any, inputs: Any) -> Any:
    """``out``, an op's result (or results), laid out in the memory format PyTorch gives it by ``rule``
    (``FORMAT_RULES``; NOTE [ A memory format passes through a CNN ]): a copy in channels-last strides where
    the inputs ask for them, else the row-major layout of ``torch_layout("contiguous", ...)``."""
    if rule == "cat_memory_format":
        fmt = None
        for a in inputs[0]:
            f = format_of(a)
            if f == "contiguous_format" or fmt is not None and f != fmt:
                fmt = "contiguous_format"
                break
            fmt = f
    elif rule == "conv_memory_format":  # channels last (_3d for 5-D) where the input or the weight is
        formats = (format_of(inputs[0]), format_of(inputs[1]))
        fmt = next((f for f in formats if f != "contiguous_format"), "contiguous_format")
    else:
        fmt = format_of(inputs[0])
    if fmt == "contiguous_format":  # row-major, as these ops allocate it
        return out if rule == "keep_channels_last" else torch_layout("contiguous", out, inputs)
    return _in_format(out, fmt)


def _in_format(out: Any, fmt: str) -> Any:
    if type(out) is tuple:
        return tuple(_in_format(o, fmt) for o in out)
    if out.ndim != CHANNELS_LAST[fmt][0] or out.size == 0 or tuple(
            s // out.itemsize for s in out.strides) == format_strides(out.shape, fmt):
        return out
    return channels_last_copy(np if type(out) is np.ndarray else array_module("gpu"), out, fmt)


def channels_last_copy(xp: Any, x: Any, fmt: str) -> Any:
    """A copy of ``x`` (N, C, ...) laid out channels last (``fmt``: ``channels_last`` or ``channels_last_3d``)
    in the strides PyTorch gives a new tensor of that format (``format_strides``; a size-1 dim's too), as its
    ``clone(memory_format=torch.channels_last)``."""
    return strided_copy(xp, x, format_strides(tuple(x.shape), fmt))


def laid_out_like(xp: Any, out: Any, x: Any) -> Any:
    """``out`` (``x``'s shape) laid out as an elementwise result of ``x`` is: ``x``'s strides when it is dense,
    else dense ones in the order of ``x``'s (row-major for a row-major ``x``) - how PyTorch's ``sort`` allocates
    its values and indices, and the CPU's ``layout="elementwise"``, for a GPU kernel's result."""
    if out.ndim < 2 or row_major(x):
        return out if out.flags.c_contiguous else out.copy()  # (ascontiguousarray makes a 0-d array 1-d)
    entry = order_and_inverse(out.shape, (x,))
    if entry is None:
        return out if out.flags.c_contiguous else out.copy()
    return copy_in_order(xp, out, *entry)


def copy_in_order(xp: Any, x: Any, order: tuple[int, ...], inverse: tuple[int, ...]) -> Any:
    """A dense copy of ``x`` whose dimensions lie in memory in ``order`` (slowest first), seen in ``x``'s
    own order through ``inverse``: one copy, NumPy's or CuPy's."""
    buf = xp.empty(tuple(x.shape[d] for d in order), dtype=x.dtype)
    buf[...] = x.transpose(order)
    return buf.transpose(inverse)


def row_major(a: Any) -> bool:
    """Whether ``a``'s strides (a NumPy or CuPy array's) are the row-major ones of its shape, a size-1
    dim's too (``c_contiguous`` ignores those; PyTorch's order of an elementwise result does not)."""
    if not a.flags.c_contiguous:
        return False
    if 1 not in a.shape:  # the common case, one test: no size-1 dim whose stride could differ
        return True
    step = a.itemsize
    for n, st in zip(reversed(a.shape), reversed(a.strides)):
        if st != step:
            return False
        step *= max(n, 1)
    return True


def viewable(a: Any, shape: tuple[int, ...]) -> bool:
    """Whether ``a`` (a NumPy or CuPy array) can be seen with ``shape`` without a copy: each run of its
    dims that ``shape`` merges or splits lies in memory as one row-major block (PyTorch's
    ``computeStride``; NumPy's and CuPy's no-copy reshape decide the same, and refuse by raising)."""
    if a.flags.c_contiguous:
        return True
    probe = a.view()
    try:
        probe.shape = shape
    except AttributeError:
        return False
    return True


def _strides_in_order(shape: tuple[int, ...], order: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """The byte strides of a dense array of ``shape`` whose dimensions lie in memory in ``order``."""
    strides = [0] * len(shape)
    step = itemsize
    for d in reversed(order):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


# NOTE [ An index's integers are applied first ]
#     PyTorch applies an index in two steps: its integers, slices and ``None``s as a
#     view (``select``, ``slice``, ``unsqueeze``), then its tensors on that view.
#     NumPy takes an integer beside an array as one more array, and where a slice
#     separates the two it moves the arrays' dimensions to the front: for ``x`` of
#     shape (2, 3, 4), ``x[0, :, idx]`` is (3, 5) in PyTorch and (5, 3) in NumPy.
#     So an index with both integers and arrays is split: the basic part first, the
#     arrays (with a full slice for each dimension the basic part kept) on its
#     result. Reads, writes, adds and the shape probe all take the same two steps.

def integers_first(index: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """``(basic, rest)`` for an index holding integers and arrays (NOTE [ An index's integers are applied
    first ]), else None: ``a[basic][rest]`` is PyTorch's ``a[index]``."""
    has_int = has_array = False
    for item in index:
        if isinstance(item, (bool, np.bool_)):
            return None  # a bool scalar is NumPy's own kind of index (a new dim): left as NumPy takes it
        if isinstance(item, (int, np.integer)):
            has_int = True
        elif hasattr(item, "ndim"):
            has_array = True
    if not (has_int and has_array):
        return None
    basic: list[Any] = []
    rest: list[Any] = []
    for item in index:
        if isinstance(item, (int, np.integer)):
            basic.append(item)
        elif hasattr(item, "ndim"):  # an integer array takes one dim, a mask as many as it has
            basic.extend([slice(None)] * (item.ndim if item.dtype == np.bool_ else 1))
            rest.append(item)
        elif item is Ellipsis:
            basic.append(item)
            rest.append(item)
        else:  # a slice or None: applied by the basic part, its dim kept whole by the rest
            basic.append(item)
            rest.append(slice(None))
    return tuple(basic), tuple(rest)


def indexed(a: Any, index: tuple[Any, ...]) -> Any:
    """``a[index]`` as PyTorch reads it (NOTE [ An index's integers are applied first ])."""
    split = integers_first(index)
    return a[index] if split is None else a[split[0]][split[1]]


def index_target(a: Any, index: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Where ``a[index] = v`` writes, as PyTorch does (NOTE [ An index's integers are applied first ]):
    ``(view, rest)`` with ``view[rest] = v`` the write, ``view`` sharing ``a``'s memory."""
    split = integers_first(index)
    return (a, index) if split is None else (a[split[0]], split[1])


def empty_read_shape(shape: tuple[int, ...], index: tuple[Any, ...]) -> tuple[int, ...] | None:
    """The shape of ``x[index]`` when it has no element, whatever the index arrays' values, else None.
    PyTorch checks an index's values element by element of the result, so a result with no element checks
    none (``zeros(1, 0)[[5]]`` is (1, 0)), where NumPy refuses the value: the read, write or add of such an
    index is empty, not an error."""
    arrays = [i for i in index if hasattr(i, "ndim")]
    if not arrays or 0 not in shape and not any(i.size == 0 for i in arrays):
        return None  # a basic index reads a view (no value to check); else some element is read
    zeroed = tuple(np.zeros(i.shape, np.intp) if hasattr(i, "ndim") and i.dtype.kind in "iu" else i for i in index)
    try:
        out = indexed(np.broadcast_to(np.empty((), np.bool_), shape), zeroed).shape
    except IndexError:
        return None
    return out if 0 in out else None


# NOTE [ A gather's result is laid out as PyTorch's ]
#     PyTorch reads ``x[index]`` with index arrays through a TensorIterator (``index`` in
#     aten/src/ATen/native/TensorAdvancedIndexing.cpp): the indexed dims of ``x`` are replaced by the
#     broadcast index shape with stride 0 (``restride_src``; indexed dims that are not adjacent are moved
#     to the front first, ``transposeToFront``), each index array is viewed over the same dims
#     (``reshape_indexer``), and the output is allocated in the order ``reorder_dimensions`` finds from
#     those operands' strides: ``x.permute(2, 1, 0)[[1, 0, 1]]`` is (9, 1, 3), not row-major, on the CPU
#     and on CUDA alike (CUDA makes two or more index tensors of different strides contiguous first). CuPy's
#     gather is always row-major, so the GPU kernel copies it into this layout where the two differ
#     (``laid_out_as_torch``). NumPy's, the CPU kernel's, agrees in the common cases only (not in
#     ``x.permute(3, 0, 1, 2)[:, [0, 2, 1]]``, where it is row-major), so the CPU kernel does the same.
#: gather layouts by geometry (the array's shape and strides, each index item's, the result's shape): a
#: program gathers in a few geometries (``C[X[ix]]`` each step), and working one out is host work per call
_GATHER_LAYOUTS: dict[tuple[Any, ...], tuple[int, ...] | None] = {}
_GATHER_LAYOUTS_MAX = 4096


def _item_key(item: Any) -> Any:
    """What of an index item decides a gather's layout: an array's shape, byte strides and dtype (a mask, and
    the element size its strides are divided by); a slice's bounds; that it is a number (the layout is then
    left alone, whatever the number)."""
    if hasattr(item, "ndim"):
        return item.shape, item.strides, item.dtype
    if isinstance(item, slice):
        return "slice", item.start, item.stop, item.step
    if isinstance(item, (bool, np.bool_, int, np.integer)):
        return "number"
    return item


def gather_strides(shape: tuple[int, ...], strides: tuple[int, ...], index: tuple[Any, ...],
                   out_shape: tuple[int, ...], cuda: bool = False) -> tuple[int, ...] | None:
    """The strides, in elements, PyTorch gives ``a[index]`` (NOTE [ A gather's result is laid out as
    PyTorch's ]) for an array of ``shape`` and element ``strides`` and an ``index`` of slices, ``None``,
    ``...`` and index arrays (integers applied before: ``integers_first``) whose result has ``out_shape``;
    None where the index holds no array, an integer, a bool scalar or a 0-d array (left as it is laid out).
    ``cuda``: PyTorch CUDA's rule, which makes two or more index tensors of different strides contiguous.
    Worked out once per geometry."""
    items = index if isinstance(index, tuple) else (index,)
    key = (tuple(shape), tuple(strides), tuple(out_shape), cuda, *[_item_key(i) for i in items])
    return kept(_GATHER_LAYOUTS, key, lambda: _gather_strides_of(shape, strides, items, out_shape, cuda),
                _GATHER_LAYOUTS_MAX)


def _gather_strides_of(shape: tuple[int, ...], strides: tuple[int, ...], items: tuple[Any, ...],
                       out_shape: tuple[int, ...], cuda: bool) -> tuple[int, ...] | None:
    if not any(hasattr(i, "ndim") for i in items) or any(
            isinstance(i, (bool, np.bool_, int, np.integer)) or hasattr(i, "ndim") and i.ndim == 0 for i in items):
        return None
    viewed = _indexed_view(shape, strides, items)
    if viewed is None:
        return None
    vshape, vstrides, dims = viewed
    indexed = [d for d, i in enumerate(dims) if i is not None]
    nb = len(out_shape) - (len(vshape) - len(indexed))  # the dims of the index tensors' broadcast shape
    if nb < 0:
        return None
    if indexed != list(range(indexed[0], indexed[-1] + 1)):  # transposeToFront: the indexed dims first
        order = indexed + [d for d in range(len(vshape)) if d not in indexed]
        vshape, vstrides, dims = [vshape[d] for d in order], [vstrides[d] for d in order], [dims[d] for d in order]
    before = next(d for d, i in enumerate(dims) if i is not None)
    after = len(vshape) - before - len(indexed)
    bshape = tuple(out_shape[before:before + nb])
    tensors = [(bshape[-1:], (i[1],)) if i[0] == "mask" else i for i in dims if i is not None]
    if len({t[0] for t in tensors}) > 1:  # expand_outplace
        tensors = [(bshape, _expanded_strides(t[0], t[1], bshape)) for t in tensors]
    full = (1,) * before + bshape + (1,) * after
    reshaped = [_view_strides(t[0], t[1], full) for t in tensors]  # reshape_indexer
    if cuda and len(reshaped) >= 2 and len(set(reshaped)) > 1:
        reshaped = [contiguous_strides(full)] * len(reshaped)
    it_shape = tuple(vshape[:before]) + bshape + tuple(vshape[len(vshape) - after:])
    operands = [tuple(vstrides[:before]) + (0,) * nb + tuple(vstrides[len(vstrides) - after:])]  # restride_src
    for st in reshaped:  # TensorIterator broadcasts a size-1 dim with stride 0
        operands.append(tuple(0 if n == 1 and m != 1 else x for n, m, x in zip(full, it_shape, st)))
    return _iterator_layout(it_shape, operands)


def laid_out_as_torch(xp: Any, a: Any, index: tuple[Any, ...], r: Any, cuda: bool = False) -> Any:
    """``r``, the gather ``a[index]`` (a new array), in the layout PyTorch gives it (NOTE [ A gather's result
    is laid out as PyTorch's ]; ``cuda``: CUDA's rule): ``r`` itself where the two agree, else a copy into
    those strides, an array of its own (``empty_like`` of a prototype with them: no ``base``, as a gather's)."""
    if r.ndim < 2 or r.size == 0:
        return r
    split = integers_first(index)
    src, rest = (a, index) if split is None else (a[split[0]], split[1])
    want = gather_strides(src.shape, tuple(s // src.itemsize for s in src.strides), rest, r.shape, cuda)
    if want is None or all(n <= 1 or w * r.itemsize == s for n, w, s in zip(r.shape, want, r.strides)):
        return r
    proto = xp.lib.stride_tricks.as_strided(xp.empty(1, r.dtype), r.shape, tuple(w * r.itemsize for w in want))
    out = xp.empty_like(proto, order="K")  # (the prototype's strides are read, never its memory)
    out[...] = r
    return out


def _indexed_view(shape: tuple[int, ...], strides: tuple[int, ...], items: tuple[Any, ...]
                  ) -> tuple[list[int], list[int], list[Any]] | None:
    """The view PyTorch's ``index`` is given (``applySlicing``: slices and ``None`` applied left to right, each
    array's dims kept whole): its shape, its strides and, for each of its dims, None or the (shape, strides) of
    the index tensor over it (a k-d mask is k tensors of its count, nonzero's columns: ``("mask", k)``)."""
    def taken(item: Any) -> int:  # the input's dims an item stands for
        if hasattr(item, "ndim"):
            return item.ndim if item.dtype == np.bool_ else 1
        return 0 if item is Ellipsis or item is None else 1

    rest = len(shape) - sum(taken(i) for i in items)
    if rest < 0:
        return None
    vshape: list[int] = []
    vstrides: list[int] = []
    dims: list[Any] = []
    k = 0  # the input's next dim
    for item in items:
        if item is None:  # unsqueeze: the size times the stride of the dim it comes before
            vshape.append(1)
            vstrides.append(shape[k] * strides[k] if k < len(shape) else 1)
            dims.append(None)
            continue
        n = rest if item is Ellipsis else taken(item)
        if isinstance(item, slice):
            start, stop, step = item.indices(shape[k])
            vshape.append(len(range(start, stop, step)))
            vstrides.append(strides[k] * step)
            dims.append(None)
            k += 1
            continue
        if item is Ellipsis:
            dims.extend([None] * n)
        elif item.dtype == np.bool_:
            dims.extend([("mask", item.ndim)] * n)
        else:
            dims.append((tuple(item.shape), tuple(s // item.itemsize for s in item.strides)))
        vshape.extend(shape[k:k + n])
        vstrides.extend(strides[k:k + n])
        k += n
    vshape.extend(shape[k:])
    vstrides.extend(strides[k:])
    dims.extend([None] * (len(shape) - k))
    return vshape, vstrides, dims


def _expanded_strides(shape: tuple[int, ...], strides: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """PyTorch's ``expand`` strides (``inferExpandGeometry``): a broadcast dim has stride 0, a new leading one
    of size 1 the next dim's extent."""
    out = [0] * len(target)
    lead = len(target) - len(shape)
    for i in range(len(target) - 1, -1, -1):
        d = i - lead
        if d >= 0:
            size, stride = shape[d], strides[d]
        else:
            size, stride = 1, target[i + 1] * out[i + 1] if i + 1 < len(target) else 1
        out[i] = 0 if size == 1 and target[i] != 1 else stride
    return tuple(out)


def _view_strides(shape: tuple[int, ...], strides: tuple[int, ...], new: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of ``reshape(new)`` as a view (PyTorch's ``computeStride``: chunks of the old dims, from the
    last, each split over the new dims, a size-1 new dim taking the stride of its place); contiguous strides
    where it would copy."""
    if not shape:
        return tuple(1 for _ in new)
    out = [0] * len(new)
    view_d = len(new) - 1
    base, tensor_numel, view_numel = strides[-1], 1, 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return contiguous_strides(new)
            if d > 0:
                base, tensor_numel, view_numel = strides[d - 1], 1, 1
    return tuple(out) if view_d == -1 else contiguous_strides(new)


def _iterator_layout(shape: tuple[int, ...], operands: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The strides of a TensorIterator's allocated output over inputs of these strides: its
    ``reorder_dimensions`` (an insertion sort, fastest dim first, where a comparison an operand's stride 0
    leaves open goes to the next operand), then strides contiguous in that order."""
    perm = iterator_order(len(shape), swap_rule(shape, operands))
    out = [0] * len(shape)
    running = 1
    for d in perm:
        out[d] = running
        running *= shape[d]
    return tuple(out)
