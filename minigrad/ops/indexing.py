"""Reading parts of a tensor by position: ``index_select``, ``masked_select``, ``take``, ``narrow``,
``select``, ``diagonal``, ``diag``, ``unfold`` (sliding windows, ``Tensor.unfold``) - composites of
``getitem`` (and ``where`` for ``diag`` of a vector); the index tables ``tril_indices``/``triu_indices``;
and writing by mask: the ops ``masked_fill`` (and ``masked_fill_tensor``, for a tensor value),
``tril`` and ``triu``, PyTorch's.

Each one builds the NumPy-style index that picks the elements and calls the
``getitem`` op, so its backward is ``getitem``'s: the gradient is added back
at the positions that were read (repeats accumulate), which is PyTorch's
``index_select``/``masked_select``/``take`` backward (an ``index_add``).

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([[1, 2, 3], [4, 5, 6]])
    >>> mg.index_select(x, 1, mg.tensor([2, 0])).tolist()
    [[3, 1], [6, 4]]
    >>> mg.diagonal(x).tolist()
    [1, 5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.views import PARTIAL_OVERLAP
from ..devices import any_overlap, check_range
from ..dispatch.dygraph import run_inplace
from ..errors import OutOfRangeError, ShapeError
from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES, cpp_type_name
from ..kernels import infer_meta as im
from ..kernels.array_kernels import (SOURCE_TOO_SMALL, diag_embed_arrays, mask_count, masked_scatter_arrays,
                                     masked_scatter_backward_arrays, nonzero_positions, put_arrays)
from ..kernels.backends import move_array, to_numpy
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.strided import empty_read_shape, index_target
from ..tensor import Tensor, storage_array
from ._checks import check_bool, check_int, check_shape, check_tensor, wrap_dim
from .registry import OPS, Attr, Input, defop, type_name
from .scatter_gather import _zeros
from .shape import (_getitem_meta, _host_index, _index_error_words, _normalize_index, expand, getitem, getitem_cpu,
                    in_range, index_region, reshape, slice_dim, view)

__all__ = ["index_select", "masked_select", "take", "narrow", "select", "diagonal", "diag", "diag_embed", "diagflat",
           "tril_indices", "triu_indices", "as_strided"]

CPU = Backend.CPU


def _dim(op: str, dim: Any, ndim: int, pos: int = 1) -> int:
    return wrap_dim(op, check_int(op, "dim", pos, dim), ndim)


def _int_index(op: str, index: Tensor, size: int, what: str, error: type = IndexError,
               words: Any = None, low: int | None = None) -> Any:
    """The index values as an int64 array, checked against ``[low, size)`` (``low`` -size unless given), the
    error PyTorch's class for the op, in ``words(bad)`` or minigrad's. An index on a GPU stays there: checked
    on the device, the error raised at the next sync (``check_range``)."""
    if index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index, but got {index.dtype}")
    low = -size if low is None else low
    if words is None:
        words = lambda bad: f"{op}(): index {bad} is out of range for {what} of size {size}"  # noqa: E731
    if index._device != "cpu":
        check_range(index._data, index._device, low, size, lambda bad, _: error(words(int(bad[0]))))
        return index._data.astype(np.int64, copy=False)
    idx = to_numpy(index._data).astype(np.int64, copy=False)
    if idx.size and (idx.min() < low or idx.max() >= size):
        raise error(words(int(idx[(idx < low) | (idx >= size)].ravel()[0])))
    return idx


def _index_select_index(input: Tensor, d: int, index: Tensor) -> Any:
    """``index_select``'s index, checked as PyTorch's CPU checks it: values in ``[0, size)`` (no negative one);
    along dim 1 of a tensor of two or more dims its ``RuntimeError`` ("INDICES element is out of DATA
    bounds"), else its ``IndexError`` ("index out of range in self")."""
    size = input.shape[d] if input.ndim else 1
    if size == 0 and index.numel():  # any value is out of range: refused now, on any device (nothing read)
        if input.ndim > 1:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        raise IndexError(f"index out of range in self (index_select(): dimension {d} has size 0)")
    if input.ndim > 1 and d == 1:
        return _int_index("index_select", index, size, "", RuntimeError, low=0,
                          words=lambda bad: f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    return _int_index("index_select", index, size, "", IndexError, low=0, words=lambda bad: (
        f"index out of range in self (index_select(): index {bad} along dimension {d} of size {size})"))


def _index_select_meta(op: str, x: Any, index: Any, dim: int) -> Any:
    if x.ndim == 0:
        return (), x.dtype
    return tuple(x.shape[:dim]) + (index.size,) + tuple(x.shape[dim + 1:]), x.dtype


def select_index(dim: int, index: Any, ndim: int) -> tuple[Any, ...]:
    """``index_select``'s read as an index: ``index`` (1-D) along ``dim`` (a 0-d input read as one element)."""
    return (index,) if ndim == 0 else (slice(None),) * dim + (index,)


@register_kernel("index_select", CPU, dtypes=ALL_DTYPES, name="cpu/index_select")
def index_select_cpu(x, index, dim):
    """One gather along ``dim`` into a new row-major array (``np.take``); a 0-d input's one element."""
    idx = to_numpy(index)
    if x.ndim == 0:
        return x.reshape(1)[idx].reshape(())
    return np.take(x, idx, axis=dim)


index_select_op = defop(
    "index_select",
    inputs=("x",),
    attrs=(Attr("index"), Attr("dim")),  # (checked by index_select: a 1-D int64 array, its values in range)
    infer_meta=_index_select_meta,
    doc="the slices of x at index (1-D) along dim: PyTorch's index_select (IndexSelectBackward0)",
)


@index_select_op.def_backward
def _index_select_backward(ctx, g):
    """PyTorch's ``index_select_backward``: ``g`` added into zeros at ``index`` along ``dim`` (repeats summed)."""
    ops, shape = ctx.ops, ctx.input_shape(0)
    index = select_index(ctx.attrs["dim"], ctx.attrs["index"], len(shape))
    if not shape:  # a 0-d input: its one element
        return (ops.reshape(ops.getitem_grad(ops.reshape(g, (1,)), index, (1,)), ()),)
    return (ops.getitem_grad(g, index, shape),)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` at ``index`` (1-D) along ``dim`` (``torch.index_select``): one op,
    ``IndexSelectBackward0``, whose gradient is added back at ``index`` (repeats summed)."""
    check_tensor("index_select", "input", 0, input)
    check_tensor("index_select", "index", 2, index)
    d = _dim("index_select", dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, but got shape {tuple(index.shape)}")
    if input.ndim == 0 and index.numel() != 1:  # a 0-d input reads its one element, and stays 0-d
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if index.dtype not in (_dt.int64, _dt.int32):
        raise ShapeError("index_select(): Expected dtype int32 or int64 for index")
    idx = _index_select_index(input, d, index)
    return index_select_op(input, index=idx.reshape(-1), dim=d)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` (broadcast with it) is True, as a 1-D tensor (``torch.masked_select``)."""
    check_tensor("masked_select", "input", 0, input)
    check_tensor("masked_select", "mask", 1, mask)
    if mask.dtype is not _dt.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = im.broadcast_shapes("masked_select", tuple(mask.shape), tuple(input.shape))  # (PyTorch's a: the mask)
    x = input if tuple(input.shape) == shape else expand(input, shape)
    m = mask if tuple(mask.shape) == shape else expand(mask, shape)
    if not shape:  # a 0-d input and mask: read as one element
        x, m = reshape(x, (1,)), reshape(m, (1,))
    if m.device == "cpu":
        index: tuple[Any, ...] = (to_numpy(m._data),)
    else:  # the True positions made on the device, one count read back (PyTorch's sync here)
        positions = nonzero_positions(m._data, m.device)
        index = tuple(in_range(positions[:, k]) for k in range(m.ndim))
    return masked_select_op(x, index=index)  # 1-D (a 0-d input was read as one element): a new tensor, no view


@register_kernel("masked_select", CPU, dtypes=ALL_DTYPES, name="cpu/masked_select")
def masked_select_cpu(x, index):
    return getitem_cpu(x, index)


masked_select_op = defop(
    "masked_select",
    inputs=("x",),
    attrs=(Attr("index"),),  # (made by masked_select: the mask on the CPU, its True positions on a GPU)
    infer_meta=_getitem_meta,
    doc="the elements of x at a mask's True positions, 1-D: PyTorch's masked_select (MaskedSelectBackward0)",
)


@masked_select_op.def_backward
def _masked_select_backward(ctx, g):
    """PyTorch's ``masked_select_backward``: ``g`` written back at the mask's positions, zeros elsewhere."""
    return (ctx.ops.getitem_grad(g, ctx.attrs["index"], ctx.input_shape(0)),)


def _take_meta(op: str, x: Any, index: Any) -> Any:
    return tuple(index.shape), x.dtype


@register_kernel("take", CPU, dtypes=ALL_DTYPES, name="cpu/take")
def take_cpu(x, index):
    return np.take(x.reshape(-1), to_numpy(index))


take_op = defop("take", inputs=("x",), attrs=(Attr("index"),), infer_meta=_take_meta,
                doc="x read as 1-D at index (any shape): PyTorch's take (TakeBackward0)")


@take_op.def_backward
def _take_backward(ctx, g):
    """PyTorch's: ``g`` added into zeros of the flattened input at ``index`` (repeats summed), reshaped back."""
    ops, shape = ctx.ops, tuple(ctx.input_shape(0))
    n = int(np.prod(shape, dtype=np.int64))
    flat = ops.getitem_grad(ops.reshape(g, (-1,)), (ctx.attrs["index"].reshape(-1),), (n,))
    return (ops.reshape(flat, shape),)


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as 1-D at ``index`` (any shape; the result has ``index``'s shape) (``torch.take``):
    one op, ``TakeBackward0``."""
    check_tensor("take", "input", 0, input)
    check_tensor("take", "index", 1, index)
    if index.dtype is not _dt.int64:
        raise ShapeError(f"take(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    size = input.numel()
    if size == 0 and index.numel():
        raise OutOfRangeError("take(): tried to take from an empty tensor")
    idx = _int_index("take", index, size, "the flattened input",
                     words=lambda bad: f"out of range: tried to access index {bad} on a tensor of {size} elements.")
    return take_op(input, index=idx)


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """``length`` elements from ``start`` along ``dim`` (``torch.narrow``; a view, PyTorch's ``slice``)."""
    check_tensor("narrow", "input", 0, input)
    if isinstance(start, Tensor):
        start = int(start.item())
    dim = check_int("narrow", "dim", 1, dim)
    start = check_int("narrow", "start", 2, start)
    length = check_int("narrow", "length", 3, length)
    if input.ndim == 0:  # PyTorch's checks in its order: the rank, the length, the dim, the start, the end
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _dim("narrow", dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise OutOfRangeError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(input, d, start, start + length)  # SliceBackward0, whole dim or not (PyTorch's slice)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, that dim removed (``torch.select``; ``x[:, index]`` for dim 1)."""
    check_tensor("select", "input", 0, input)
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim("select", dim, input.ndim)
    index = check_int("select", "index", 2, index)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {tuple(input.shape)} at dimension {d}")
    return getitem(input, (slice(None),) * d + (index,))


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the ``(dim1, dim2)`` planes, shifted by ``offset``, as the last dim (``torch.diagonal``)."""
    check_tensor("diagonal", "input", 0, input)
    offset = check_int("diagonal", "offset", 1, offset)
    d1 = _dim("diagonal", dim1, input.ndim, 2)  # PyTorch wraps the dims first: a 1-D input fails here
    d2 = _dim("diagonal", dim2, input.ndim, 3)
    if d1 == d2:  # (a 0-d or 1-d input wraps both dims to 0: refused here, in PyTorch's words)
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return OPS["diagonal"](input, offset, d1, d2)  # a view (ops/views.py)


def _infer_diag_embed(op: str, x: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """InferMeta: one more dim than ``x``, the two of ``(dim1, dim2)`` of size ``x.shape[-1] + |offset|``."""
    if x.ndim == 0:
        raise RuntimeError(f"{op}(): expected a tensor with at least 1 dimension, but got a 0-d tensor")
    d1, d2 = wrap_dim(op, dim1, x.ndim + 1), wrap_dim(op, dim2, x.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(offset)
    shape = list(x.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    return tuple(shape), x.dtype


@register_kernel("diag_embed", CPU, dtypes=ALL_DTYPES, name="cpu/diag_embed")
def diag_embed_cpu(x, offset=0, dim1=-2, dim2=-1):
    return diag_embed_arrays(np, x, offset, dim1 % (x.ndim + 1), dim2 % (x.ndim + 1))


diag_embed_op = defop("diag_embed", inputs=("x",), attrs=(Attr("offset", 0, check_int), Attr("dim1", -2, check_int),
                                                          Attr("dim2", -1, check_int)),
                      infer_meta=_infer_diag_embed, methods=("diag_embed",),
                      doc="zeros with x's last dim along diagonal offset of the planes (dim1, dim2)")


@diag_embed_op.def_backward
def _diag_embed_backward(ctx, g):
    """PyTorch's formula: the gradient's diagonal where ``x`` was written."""
    a = ctx.attrs
    nd = len(ctx.input_shape(0)) + 1
    return (ctx.ops.diagonal(g, a["offset"], a["dim1"] % nd, a["dim2"] % nd),)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.diag_embed``: a tensor whose ``(dim1, dim2)`` planes hold ``input``'s last dim on diagonal
    ``offset``, zeros elsewhere: one op (``DiagEmbedBackward0``), whose gradient is that diagonal.

    Example:
        >>> import minigrad as mg
        >>> mg.diag_embed(mg.tensor([1.0, 2.0])).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    check_tensor("diag_embed", "input", 0, input)
    return diag_embed_op(input, offset, dim1, dim2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """``torch.diagflat``: the elements of ``input``, flattened, on diagonal ``offset`` of a square matrix
    (PyTorch's ``diag_embed`` of ``contiguous().view(-1)``)."""
    check_tensor("diagflat", "input", 0, input)
    return diag_embed_op(view(input.contiguous(), (input.numel(),)), check_int("diagflat", "offset", 1, offset), 0, 1)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """``torch.diag``: of a 2-D tensor a copy of its diagonal (``diagonal_copy``); of a 1-D tensor the square matrix
    with it on diagonal ``diagonal`` (``diag_embed``, ``DiagEmbedBackward0`` as PyTorch's)."""
    check_tensor("diag", "input", 0, input)
    k = check_int("diag", "diagonal", 1, diagonal)
    if input.ndim == 2:  # a new tensor, not a view (PyTorch's diagonal_copy)
        return OPS["diagonal_copy"](input, k, 0, 1)
    if input.ndim != 1:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return diag_embed_op(input, k, 0, 1)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last
    dim (the windowed dim shrinks to the number of windows): a view, as PyTorch's; overlapping windows add
    their gradients back.

    Example:
        >>> import minigrad as mg
        >>> mg.arange(5).unfold(0, 2, 2).tolist()
        [[0, 1], [2, 3]]
    """
    check_tensor("unfold", "input", 0, input)
    size = check_int("unfold", "size", 2, size)
    step = check_int("unfold", "step", 3, step)
    if step <= 0:
        raise RuntimeError(f"unfold(): step is {step} but must be > 0")
    x = reshape(input, (1,)) if input.ndim == 0 else input
    d = _dim("unfold", dimension, x.ndim)
    n = x.shape[d]
    if size < 0 or size > n:
        raise RuntimeError(f"unfold(): maximum size for tensor at dimension {d} is {n} but size is {size}")
    picked = OPS["unfold"](x, d, size, step)  # a view (ops/views.py)
    return reshape(picked, (size,)) if input.ndim == 0 else picked


def as_strided_args(op: str, input: Tensor, size: Any, stride: Any, storage_offset: int | None) -> tuple[Any, ...]:
    """The checked attributes of ``as_strided`` (and ``as_strided_``): size, stride, storage offset (``input``'s
    own by default) and ``input``'s geometry, or PyTorch's refusals in its words."""
    check_tensor(op, "input", 0, input)
    size = check_shape(op, "size", 1, size)
    stride = check_shape(op, "stride", 2, stride)
    own = input.storage_offset()
    offset = own if storage_offset is None else check_int(op, "storage_offset", 3, storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if all(size):  # the last element read lies in the storage (PyTorch's setStorage check)
        item, storage = input._data.itemsize, storage_array(input).size
        need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if need > storage:
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                               f"itemsize {item} requiring a storage size of {need * item} are out of bounds for "
                               f"storage of size {storage * item}")
    geometry = (tuple(input.shape), tuple(input.stride()), own)
    return tuple(size), tuple(stride), offset, geometry


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the geometry given: ``size`` elements ``stride`` apart along each
    dimension (in elements), starting ``storage_offset`` elements into the storage (``input``'s own offset
    by default) - what ``stride()`` and ``storage_offset()`` print, taken as an instruction. ``input``'s
    strides play no part, and the view may read elements twice (``stride`` 0) or elements ``input`` does not
    show; the gradient adds up what each storage element's readings received (``torch.as_strided``).

    Example:
        >>> import minigrad as mg
        >>> x = mg.arange(6.0)
        >>> mg.as_strided(x, (2, 3), (1, 2)).tolist()
        [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
        >>> x.as_strided((3, 2), (1, 1)).tolist()  # overlapping windows: unfold(0, 2, 1)
        [[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]
    """
    return OPS["as_strided"](input, *as_strided_args("as_strided", input, size, stride, storage_offset))  # a view


def _triangle_indices(op: str, row: int, col: int, offset: int, lower: bool, dtype: Any, device: str) -> Tensor:
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        check_int(op, name, 0, v)
    r, c = np.indices((row, col))
    keep = (c - r <= offset) if lower else (c - r >= offset)
    data = np.stack([r[keep], c[keep]]).astype(np.int64)
    dt = _dt.int64 if dtype is None else dtype
    data = data.astype(dt.np)
    return Tensor._make(data if device == "cpu" else move_array(data, "cpu", device), dt, device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: str = "cpu") -> Tensor:
    """The ``(2, N)`` coordinates of the lower triangle of a ``row x col`` matrix (diagonal ``offset`` and
    below), row by row (``torch.tril_indices``). A table of positions, no op: it has no tensor input."""
    return _triangle_indices("tril_indices", row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: str = "cpu") -> Tensor:
    """The ``(2, N)`` coordinates of the upper triangle (diagonal ``offset`` and above) (``torch.triu_indices``)."""
    return _triangle_indices("triu_indices", row, col, offset, False, dtype, device)


# -- writing by mask: masked_fill, tril, triu (ops, as PyTorch's) ----------------------------------

def _masked_fill_meta(op: str, x: Any, mask: Any, *rest: Any, **attrs: Any) -> Any:
    """``x`` broadcast with ``mask`` (PyTorch's ``expand_outplace``), in ``x``'s dtype."""
    if mask.dtype != np.bool_:
        raise ShapeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                         f"{cpp_type_name(np.dtype(mask.dtype))}")
    if rest and rest[0].ndim != 0:
        raise ShapeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                         f"{rest[0].ndim} dimension(s).")
    shape = x.shape if x.shape == mask.shape else im.broadcast_shapes(op, mask.shape, x.shape, ("mask", "x"))
    return tuple(shape), x.dtype


def _check_value(op: str, name: str, pos: int, v: Any) -> Any:
    if not isinstance(v, (bool, int, float)):
        raise TypeError(f"{op}(): argument 'value' (position 2) must be a number or a 0-d Tensor, but got "
                        f"{type_name(v)}")
    return v


def _filled(x: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    """A row-major copy of ``x`` (broadcast with ``mask``) with ``value`` where ``mask`` holds (PyTorch's
    ``clone(contiguous)`` then ``masked_fill_``)."""
    shape = x.shape if x.shape == mask.shape else np.broadcast_shapes(x.shape, mask.shape)
    out = np.array(np.broadcast_to(x, shape), order="C")
    if out.size:
        out[np.broadcast_to(mask, shape)] = value
    return out


@register_kernel("masked_fill", CPU, dtypes=ALL_DTYPES, name="cpu/masked_fill")
def masked_fill_cpu(x, mask, value):
    return _filled(x, mask, np.asarray(value).astype(x.dtype))


masked_fill_op = defop(
    "masked_fill",
    inputs=("x", Input("mask", differentiable=False)),
    attrs=(Attr("value", check=_check_value),),
    infer_meta=_masked_fill_meta,
    save=("mask",),
    layout="contiguous",
    doc="x with value (a number) where mask is True (mask broadcasts; no gradient to mask)",
)


def _unfilled_grad(ctx: Any, g: Any, mask: Any) -> Any:
    """The input's gradient of a ``masked_fill``: ``g`` where nothing was filled, summed back over the dims
    the mask broadcast it to."""
    return ctx.ops.sum_to(ctx.ops.masked_fill(g, mask, 0.0), ctx.input_shape(0))


@masked_fill_op.def_backward
def _masked_fill_backward(ctx, g):
    (mask,) = ctx.saved()
    return _unfilled_grad(ctx, g, mask), None


@register_kernel("masked_fill_tensor", CPU, dtypes=ALL_DTYPES, name="cpu/masked_fill_tensor")
def masked_fill_tensor_cpu(x, mask, value):
    return _filled(x, mask, value.astype(x.dtype))


masked_fill_tensor = defop(
    "masked_fill_tensor",
    inputs=("x", Input("mask", differentiable=False), "value"),
    infer_meta=_masked_fill_meta,
    save=("mask",),
    key_inputs=(0,),
    layout="contiguous",
    doc="x with value (a 0-d tensor) where mask is True: PyTorch's masked_fill.Tensor (MaskedFillBackward1)",
)


@masked_fill_tensor.def_backward
def _masked_fill_tensor_backward(ctx, g):
    """``x`` as ``masked_fill``'s; the value gets the gradient of every position it filled, summed."""
    (mask,) = ctx.saved()
    ops = ctx.ops
    gx = _unfilled_grad(ctx, g, mask) if ctx.needs(0) else None
    gv = ops.sum(ops.where(mask, g, ops.fill(g, 0))) if ctx.needs(2) else None
    return gx, None, gv


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` where ``mask`` is True, ``input`` elsewhere (``mask`` broadcasts; no gradient to ``mask``).

    One op, as PyTorch's: ``masked_fill`` for a number (``MaskedFillBackward0``), ``masked_fill_tensor``
    for a 0-d tensor value (``MaskedFillBackward1``, whose gradient reaches the value too). The result is
    row-major and has ``input``'s dtype.
    """
    check_tensor("masked_fill", "input", 0, input)
    check_tensor("masked_fill", "mask", 1, mask)
    if isinstance(value, Tensor):
        return masked_fill_tensor(input, mask, value)
    return masked_fill_op(input, mask, value=_check_value("masked_fill", "value", 2, value))


def _tri_meta(op: str, x: Any, diagonal: int = 0) -> Any:
    if x.ndim < 2:
        raise ShapeError(f"{op}: input tensor must have at least 2 dimensions")
    return tuple(x.shape), x.dtype


@register_kernel("tril", CPU, dtypes=ALL_DTYPES, name="cpu/tril")
def tril_cpu(x, diagonal=0):
    return np.ascontiguousarray(np.tril(x, diagonal))


@register_kernel("triu", CPU, dtypes=ALL_DTYPES, name="cpu/triu")
def triu_cpu(x, diagonal=0):
    return np.ascontiguousarray(np.triu(x, diagonal))


tril_op = defop("tril", inputs=("x",), attrs=(Attr("diagonal", 0, check_int),), infer_meta=_tri_meta,
                layout="contiguous", doc="the lower triangle of the last two dims (elements above diagonal set to 0)")
triu_op = defop("triu", inputs=("x",), attrs=(Attr("diagonal", 0, check_int),), infer_meta=_tri_meta,
                layout="contiguous", doc="the upper triangle of the last two dims (elements below diagonal set to 0)")


@tril_op.def_backward
def _tril_backward(ctx, g):
    return (ctx.ops.tril(g, ctx.attrs["diagonal"]),)


@triu_op.def_backward
def _triu_backward(ctx, g):
    return (ctx.ops.triu(g, ctx.attrs["diagonal"]),)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dims (elements above ``diagonal`` set to 0): one op, as PyTorch's
    (``TrilBackward0``; its gradient is the gradient's lower triangle)."""
    check_tensor("tril", "input", 0, input)
    return tril_op(input, diagonal=diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dims (elements below ``diagonal`` set to 0): one op
    (``TriuBackward0``)."""
    check_tensor("triu", "input", 0, input)
    return triu_op(input, diagonal=diagonal)


# -- writing at an index: x[index] = values -------------------------------------------------------

def _index_put_meta(op: str, x: Any, values: Any, index: Any, accumulate: bool = False) -> Any:
    return tuple(x.shape), x.dtype


def _check_index(op: str, name: str, pos: int, v: Any) -> Any:
    """An index normalized before (``_normalize_index``: arrays, ints, slices; a GPU mask kept on the device)
    as it is, any other made so."""
    if type(v) is tuple and not any(isinstance(i, (Tensor, list, range)) for i in v):
        return v
    return _normalize_index(op, v, keep_device=True)


@register_kernel("index_put", CPU, dtypes=ALL_DTYPES, name="cpu/index_put")
def index_put_cpu(x, values, index, accumulate=False):
    """A copy of ``x`` in its layout (PyTorch's ``clone`` then ``index_put_``) with ``values`` written, or
    added, at ``index``: repeated positions keep the last write, or sum every one (``np.add.at``)."""
    out = x.copy(order="K")
    index = _host_index(index)
    if empty_read_shape(x.shape, index) is not None:  # nothing written (and no index value checked)
        return out
    target, index = index_target(out, index)
    if accumulate:
        np.add.at(target, index, values)
    else:
        target[index] = values
    return out


index_put_op = defop(
    "index_put",
    inputs=("x", "values"),
    attrs=(Attr("index", check=_check_index),
           Attr("accumulate", False)),
    infer_meta=_index_put_meta,
    key_inputs=(0,),
    doc="x with values written (accumulate=False) or added at x[index]: PyTorch's index_put (IndexPutBackward0)",
)


@index_put_op.def_backward
def _index_put_backward(ctx, g):
    """PyTorch's formula: ``x`` gets ``g`` with the written positions zeroed (all of ``g`` when adding);
    ``values`` gets ``g`` read back at the index, every repeat included, summed to its shape."""
    ops, index = ctx.ops, ctx.attrs["index"]
    gx = gv = None
    if ctx.needs(0):
        gx = g if ctx.attrs["accumulate"] else ops.index_put(g, _zeros(ops, g, ()), index=index, accumulate=False)
    if ctx.needs(1):
        gv = ops.sum_to(ops.getitem(g, index), ctx.input_shape(1))
    return gx, gv


def fitted_shape(values_shape: tuple[int, ...], region: tuple[int, ...], words: str | None = None) -> tuple[int, ...]:
    """The shape ``values`` are written with into the indexed ``region``: their leading size-1 dims dropped,
    as PyTorch drops them; a ``ShapeError`` where they do not broadcast to it, in ``words`` or ``index_put``'s."""
    vshape = tuple(values_shape)
    while len(vshape) > len(region) and vshape[0] == 1:
        vshape = vshape[1:]
    try:
        if len(vshape) > len(region) or np.broadcast_shapes(vshape, region) != region:
            raise ValueError
    except ValueError:
        raise ShapeError(words or f"shape mismatch: value tensor of shape {list(values_shape)} cannot be broadcast "
                                  f"to indexing result of shape {list(region)}") from None
    return vshape


def refuse_overlap(target: Tensor, values: Any, setitem: bool = False) -> None:
    """``index_put_``'s first refusal (``assert_no_overlap``), in PyTorch's words: values that are the tensor
    written or share its memory (``x[idx] = x``, ``x[idx] = x[0]``), an empty one too. ``setitem``: PyTorch's
    ``x[idx] = v`` writes a view of ``v`` without its leading size-1 dims, no longer the tensor itself."""
    if not isinstance(values, Tensor) or values._device != target._device or values._dtype is not target._dtype:
        return  # (a value of another dtype is written through a cast copy)
    data = values._data
    if setitem and data.ndim and data.shape[0] == 1:
        lead = next((k for k, n in enumerate(data.shape) if n != 1), data.ndim)
        data = data.reshape(data.shape[lead:])
    if any_overlap(target._data, data):
        raise RuntimeError(PARTIAL_OVERLAP)


def put_values(input: Tensor, index: tuple[Any, ...], values: Tensor, accumulate: bool = False,
               region: tuple[int, ...] | None = None) -> Tensor:
    """``index_put_op`` on a normalized ``index`` (``_normalize_index`` with the tensor's shape), ``values``
    of ``input``'s dtype, fitted to the indexed ``region`` (``index_region``, computed when not given)."""
    if region is None:
        try:
            region = index_region(tuple(input.shape), index)
        except IndexError as exc:
            raise OutOfRangeError(_index_error_words(str(exc), input.ndim)) from None
    vshape = fitted_shape(tuple(values.shape), region)
    if vshape != tuple(values.shape):
        values = reshape(values, vshape)
    return index_put_op(input, values, index=index, accumulate=accumulate)


def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """``index_put`` written into ``input`` (``Tensor.index_put_``): ``IndexPutBackward0`` becomes its node;
    ``values`` that share its memory are refused, as PyTorch refuses them (``assert_no_overlap``)."""
    def compute() -> Tensor:
        refuse_overlap(input, values)
        return _index_put("index_put_", input, indices, values, accumulate)

    return run_inplace(input, "index_put_", compute, operands=(values,))


def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` written at ``input[indices]`` (``torch.index_put``; ``accumulate=True``
    adds them, repeated positions summed). ``indices``: a tuple of integer or bool tensors, one per leading
    dim. One op, ``IndexPutBackward0``: the gradient reaches ``input`` where nothing was written and
    ``values`` at every position it was written to (a repeated index included, as in PyTorch).

    Example:
        >>> import minigrad as mg
        >>> mg.index_put(mg.zeros(3), (mg.tensor([0, 2]),), mg.tensor([5.0, 7.0])).tolist()
        [5.0, 0.0, 7.0]
        >>> mg.zeros(3).index_put((mg.tensor([1, 1]),), mg.tensor(2.0), accumulate=True).tolist()
        [0.0, 4.0, 0.0]
    """
    return _index_put("index_put", input, indices, values, accumulate)


def _index_put(name: str, input: Tensor, indices: Any, values: Tensor, accumulate: bool) -> Tensor:
    check_tensor(name, "input", 0, input)
    if not isinstance(indices, (tuple, list)) or not all(isinstance(i, Tensor) for i in indices):
        got = type_name(indices) if not isinstance(indices, (tuple, list)) else "a tuple with " + ", ".join(
            type_name(i) for i in indices if not isinstance(i, Tensor))
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not {got}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 2) must be Tensor, not {type_name(values)}")
    if not isinstance(accumulate, bool):
        raise TypeError(f"{name}(): argument 'accumulate' (position 3) must be bool, not {type_name(accumulate)}")
    if not indices:
        raise IndexError(f"{name}(): at least one index tensor is needed")
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{scalar_type_name(input.dtype)} for the destination and "
                           f"{scalar_type_name(values.dtype)} for the source.")
    index = _normalize_index(name, tuple(indices), keep_device=input.device != "cpu", shape=tuple(input.shape))
    return put_values(input, index, values, accumulate)


__all__ += ['masked_fill', 'tril', 'triu', 'index_put', 'index_put_']


# -- writing a source's elements in order: masked_scatter (by mask) and put (at flat positions) -----------------


def _masked_scatter_meta(op: str, x: Any, mask: Any, source: Any) -> Any:
    """``x`` broadcast with ``mask`` (PyTorch's ``expand_outplace``), in ``x``'s dtype; ``source`` of that dtype."""
    if mask.dtype != np.bool_:
        raise ShapeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                         f"{scalar_type_name(mask.dtype)}")
    if source.dtype != x.dtype:  # (PyTorch's words, without the space after "got")
        raise ShapeError(f"masked_scatter: expected self and source to have same dtypes but got"
                         f"{scalar_type_name(x.dtype)} and {scalar_type_name(source.dtype)}")
    shape = x.shape if x.shape == mask.shape else im.broadcast_shapes(op, mask.shape, x.shape, ("mask", "x"))
    return tuple(shape), x.dtype


@register_kernel("masked_scatter", CPU, dtypes=ALL_DTYPES, name="cpu/masked_scatter")
def masked_scatter_cpu(x, mask, source):
    shape = x.shape if x.shape == mask.shape else np.broadcast_shapes(x.shape, mask.shape)
    if int(mask_count(np, mask, shape)[0]) > source.size:
        raise RuntimeError(SOURCE_TOO_SMALL)
    return masked_scatter_arrays(np, x, mask, source)


@register_kernel("masked_scatter_backward", CPU, dtypes=ALL_DTYPES, name="cpu/masked_scatter_backward")
def masked_scatter_backward_cpu(grad, mask, sizes):
    return masked_scatter_backward_arrays(np, grad, mask, sizes)


masked_scatter_op = defop(
    "masked_scatter",
    inputs=("x", Input("mask", differentiable=False), "source"),
    infer_meta=_masked_scatter_meta,
    save=("mask",),
    key_inputs=(0,),
    layout="contiguous",
    doc="x with source's elements, in order, where mask is True (mask broadcasts): PyTorch's MaskedScatterBackward0",
)
masked_scatter_backward_op = defop(
    "masked_scatter_backward",
    inputs=("grad", Input("mask", differentiable=False)),
    attrs=(Attr("sizes"),),
    infer_meta=lambda op, grad, mask, sizes: (tuple(sizes), grad.dtype),
    save=("mask",),
    key_inputs=(0,),
    doc="source's gradient of masked_scatter: grad at the mask's True positions, zero-padded to source's shape",
)


@masked_scatter_op.def_backward
def _masked_scatter_backward(ctx, g):
    """PyTorch's: ``x`` gets ``g`` where the mask is False (summed back over broadcast dims), ``source`` the
    values of ``g`` at the True positions, in the order they were taken."""
    (mask,) = ctx.saved()
    gx = _unfilled_grad(ctx, g, mask) if ctx.needs(0) else None
    gs = ctx.ops.masked_scatter_backward(g, mask, sizes=tuple(ctx.input_shape(2))) if ctx.needs(2) else None
    return gx, None, gs


@masked_scatter_backward_op.def_backward
def _masked_scatter_backward_backward(ctx, gg):
    """The gradient's own: ``gg``'s elements put back where the mask took them (masked_scatter into zeros)."""
    (mask,) = ctx.saved()
    ops = ctx.ops
    zeros = _zeros(ops, gg, tuple(ctx.input_shape(0)))
    return ops.masked_scatter(zeros, mask, gg), None


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with ``source``'s elements, in row-major order, written where ``mask`` is True
    (``torch.masked_scatter``; ``mask`` and ``input`` broadcast together). One op, ``MaskedScatterBackward0``:
    ``input`` gets the gradient where nothing was written, ``source`` the gradient of each position its
    elements went to.

    Example:
        >>> import minigrad as mg
        >>> m = mg.tensor([True, False, True])
        >>> mg.masked_scatter(mg.zeros(3), m, mg.tensor([7.0, 8.0, 9.0])).tolist()
        [7.0, 0.0, 8.0]
    """
    check_tensor("masked_scatter", "input", 0, input)
    check_tensor("masked_scatter", "mask", 1, mask)
    check_tensor("masked_scatter", "source", 2, source)
    return masked_scatter_op(input, mask, source)


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In place (``Tensor.masked_scatter_``): ``mask`` must expand to ``self``'s shape (PyTorch's
    ``expand_inplace``, refused in its words), then ``masked_scatter``'s values are written into ``self``
    (``MaskedScatterBackward0``)."""
    check_tensor("masked_scatter_", "mask", 1, mask)
    check_tensor("masked_scatter_", "source", 2, source)
    target, have = list(self.shape), list(mask.shape)
    if len(have) > len(target):
        raise RuntimeError(f"expand({'CPU' if mask.device == 'cpu' else 'CUDA'}BoolType{{{have}}}, size={target}): "
                           f"the number of sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(have)})")
    lead = len(target) - len(have)
    for k, n in enumerate(have):
        if n != 1 and n != target[lead + k]:
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + k]}) must match the existing size "
                               f"({n}) at non-singleton dimension {lead + k}.  Target sizes: {target}.  Tensor sizes: "
                               f"{have}")
    return run_inplace(self, "masked_scatter_", lambda: masked_scatter_op(self, mask, source), operands=(mask, source))


def _put_index(input: Tensor, index: Any, source: Any) -> Any:
    """``put``'s flat positions as a non-negative int64 array, after PyTorch's checks, in its order and words."""
    check_tensor("put", "index", 1, index)
    check_tensor("put", "source", 2, source)
    if index.dtype is not _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{scalar_type_name(input.dtype)} and source.dtype = {scalar_type_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    size = input.numel()
    if size == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    idx = _int_index("put", index, size, "", IndexError,
                     words=lambda bad: f"out of range: tried to access index {bad} on a tensor of {size} elements.")
    return (idx % max(size, 1)).reshape(-1)


def _set_at(target: np.ndarray, where: Any, values: np.ndarray) -> None:
    target[where] = values  # of repeated positions the last write stays, as PyTorch's CPU kernel leaves it


@register_kernel("put", CPU, dtypes=ALL_DTYPES, name="cpu/put")
def put_cpu(x, source, index, accumulate=False):
    return put_arrays(np, x, source, index, accumulate, np.add.at, _set_at)


put_op = defop(
    "put", inputs=("x", "source"), attrs=(Attr("index"), Attr("accumulate", False)),
    infer_meta=lambda op, x, source, **attrs: (tuple(x.shape), x.dtype), key_inputs=(0,),
    doc="x read as 1-D with source's elements written (accumulate: added) at index: PyTorch's put (PutBackward0)")


@put_op.def_backward
def _put_backward(ctx, g):
    """PyTorch's: ``x`` gets ``g`` (with ``accumulate``) or ``g`` with zeros put at ``index``; ``source`` the
    values of ``g`` at ``index``, in ``source``'s shape."""
    ops, index = ctx.ops, ctx.attrs["index"]
    gx = gs = None
    if ctx.needs(0):
        gx = g if ctx.attrs["accumulate"] else ops.put(g, _zeros(ops, g, tuple(ctx.input_shape(1))), index=index)
    if ctx.needs(1):
        gs = ops.reshape(ops.take(g, index=index), tuple(ctx.input_shape(1)))
    return gx, gs


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` (read as 1-D) with ``source``'s elements written at the flat positions ``index``
    (``torch.put``; with ``accumulate`` added, repeated positions adding up). One op, ``PutBackward0``.

    Example:
        >>> import minigrad as mg
        >>> mg.put(mg.zeros(2, 2), mg.tensor([0, 3, 3]), mg.tensor([1.0, 2.0, 3.0]), accumulate=True).tolist()
        [[1.0, 0.0], [0.0, 5.0]]
    """
    check_tensor("put", "input", 0, input)
    accumulate = check_bool("put", "accumulate", 3, accumulate)
    return put_op(input, source, index=_put_index(input, index, source), accumulate=accumulate)


__all__ += ["masked_scatter", "put"]
