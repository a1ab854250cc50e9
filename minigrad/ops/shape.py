"""Shape ops and indexing: reshape, transpose, permute, expand, squeeze, unsqueeze,
concat, stack, getitem (basic and integer-array indexing), split, split_with_sizes and unbind (one
node with an output per piece); and PyTorch's joining and splitting forms: ``cat`` (PyTorch's name for
``concat``), ``chunk`` (a ``split``), ``tensor_split``/``hsplit``/``vsplit``/``dsplit`` (``getitem``
slices, as PyTorch's) and ``t``."""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from ..errors import IndexTypeError, OutOfRangeError, ShapeError
from ..dtypes import ALL_DTYPES, bool_ as _BOOL, scalar_type_name
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..devices import check_range, device_of_array, made_array
from ..kernels.strided import (concat_arrays, empty_read_shape, index_target, indexed, laid_out_as_torch, new_dims_strided,
                               split_views, squeeze_view, transpose_view, unbind_views, unsqueeze_view, viewable)
from ..kernels.array_kernels import nonzero_positions
from ..kernels.backends import to_numpy
from ..size import Size
from ..tensor import Tensor
from ._checks import check_dims, check_int, check_shape, check_tensor, wrap_dim
from .registry import OPS, Attr, Input, call_with_out, defop, type_name

__all__ = ["reshape", "view", "unsafe_view", "transpose", "permute", "expand", "squeeze", "unsqueeze", "concat", "stack", "getitem", "getitem_grad", "flatten"]


CPU = Backend.CPU


def _owned(out, x):
    """``out`` if it is a view of ``x``; otherwise an array that owns its data.

    When NumPy has to copy (reshaping a non-contiguous array, fancy indexing
    with slices) it returns a view of a private temporary, whose ``.base`` is
    set; the dygraph layer and in-place checks would take that for a view of
    ``x`` (shared version counter, "in-place change of a view" refused).
    """
    base = out.base
    if base is None or base is x or (base is x.base and base is not None) or out.size == 0 \
            or np.may_share_memory(out, x):
        return out  # (an empty array shares no memory with anything: a view still, as PyTorch's)
    return out.copy()


@register_kernel("reshape", CPU, dtypes=ALL_DTYPES, name="cpu/reshape")
def reshape_cpu(x, shape):
    return _owned(x.reshape(shape), x)


def _reshape_meta(op: str, x: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    """The shared rule (``im.reshape``); where it refuses, PyTorch's words for the refusal (``_reshape_refusal``).
    The checks in PyTorch's order run only then: a reshape or a view is on every step's hot path."""
    try:
        return im.reshape(op, x, shape)
    except ShapeError:
        _reshape_refusal(x, shape)
        raise


def _reshape_refusal(x: Any, shape: tuple[int, ...]) -> None:
    """PyTorch's ``infer_size`` checks in its words and order (a second ``-1``, a size below ``-1``, the
    ambiguous ``-1`` beside a 0 in a shape for 0 elements); returns if none fails."""
    inferred = False
    for i, s in enumerate(shape):
        if s == -1:
            if inferred:
                raise ShapeError("only one dimension can be inferred")
            inferred = True
        elif s < 0:
            raise ShapeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if inferred and 0 in shape and math.prod(x.shape) == 0:
        raise ShapeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified "
                         f"dimension size -1 can be any value and is ambiguous")


reshape = defop(
    "reshape",
    inputs=("x",),
    attrs=(Attr("shape", check=check_shape),),
    infer_meta=_reshape_meta,
    view=True,
)


@reshape.def_backward
def _reshape_backward(ctx, g):
    return (ctx.ops.reshape(g, ctx.input_shape(0)),)


@reshape.def_decomposition
def _reshape_decomposition(inputs: list[Any], attrs: dict[str, Any]) -> Any:
    """PyTorch's ``reshape``: the ``reshape`` op where the layout allows a view (``ViewBackward0``, or
    ``ReshapeAliasBackward0`` for a non-contiguous input); otherwise the elements copied to row-major
    order (``clone``, ``CloneBackward0``) and the copy seen with the new shape (``unsafe_view``,
    ``UnsafeViewBackward0``): two nodes, and a result that is no view of the input."""
    x = inputs[0]
    flags = getattr(x._data, "flags", None)
    if flags is None or flags.c_contiguous:
        return None  # the common call: a view
    try:
        shape = _reshape_meta("reshape", x._data, attrs["shape"])[0]
    except ShapeError:
        return None  # refused by the op itself, in its own layers
    if viewable(x._data, shape):
        return None
    return unsafe_view(OPS["clone"](x, memory_format="contiguous_format"), shape)  # (ops/math.py imports this module)


@register_kernel("view", CPU, dtypes=ALL_DTYPES, name="cpu/view")
def view_cpu(x, shape):
    return _owned(x.reshape(shape), x)


view = defop("view", inputs=("x",), attrs=(Attr("shape", check=check_shape),), infer_meta=_reshape_meta, view=True,
             doc="the same elements seen with another shape, sharing storage (``Tensor.view``; refused, before "
                 "the op, where the layout needs a copy)")


@view.def_backward
def _view_backward(ctx, g):
    return (ctx.ops.reshape(g, ctx.input_shape(0)),)


@register_kernel("unsafe_view", CPU, dtypes=ALL_DTYPES, name="cpu/unsafe_view")
def unsafe_view_cpu(x, shape):
    return x.reshape(shape)


unsafe_view = defop("unsafe_view", inputs=("x",), attrs=(Attr("shape", check=check_shape),), infer_meta=_reshape_meta,
                    out=False, doc="PyTorch's ``_unsafe_view``: a row-major tensor seen with another shape, the "
                                   "result no view for autograd (``reshape``'s copy, ``matmul``'s folded result)")


@unsafe_view.def_backward
def _unsafe_view_backward(ctx, g):
    return (ctx.ops.reshape(g, ctx.input_shape(0)),)


@register_kernel("transpose", CPU, dtypes=ALL_DTYPES, name="cpu/transpose")
def transpose_cpu(x, dim0, dim1):
    return transpose_view(np, x, dim0, dim1)


transpose = defop("transpose", inputs=("x",), attrs=(Attr("dim0", check=check_int), Attr("dim1", check=check_int)),
                  infer_meta=im.transpose, view=True, doc="swap two dimensions", methods=("transpose",))


@transpose.def_backward
def _transpose_backward(ctx, g):
    return (ctx.ops.transpose(g, ctx.attrs["dim0"], ctx.attrs["dim1"]),)  # a swap is its own inverse


@register_kernel("permute", CPU, dtypes=ALL_DTYPES, name="cpu/permute")
def permute_cpu(x, dims):
    return np.transpose(x, dims)


def _permute_meta(op: str, x: Any, dims: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    """The shared rule (``im.permute``); where it refuses, PyTorch's checks in its words and order: the number
    of dims, then each dim in range and not seen before (only then: a permute is on the hot path)."""
    try:
        return im.permute(op, x, dims)
    except (ShapeError, OutOfRangeError):
        _permute_refusal(op, x, dims)
        raise


def _permute_refusal(op: str, x: Any, dims: tuple[int, ...]) -> None:
    if len(dims) != x.ndim:
        raise ShapeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                         f"the desired ordering of dimensions i.e. input.dim() = {x.ndim} is not equal to "
                         f"len(dims) = {len(dims)}")
    seen = set()
    for d in dims:
        d = wrap_dim(op, d, x.ndim)
        if d in seen:
            raise ShapeError("permute(): duplicate dims are not allowed.")
        seen.add(d)


permute = defop("permute", inputs=("x",), attrs=(Attr("dims", check=check_shape),), infer_meta=_permute_meta, view=True,
                doc="reorder dimensions")


@permute.def_backward
def _permute_backward(ctx, g):
    n = len(ctx.attrs["dims"])
    dims = [d % n for d in ctx.attrs["dims"]]
    inverse = tuple(sorted(range(n), key=dims.__getitem__))  # where each dim went
    return (ctx.ops.permute(g, inverse),)


@register_kernel("expand", CPU, dtypes=ALL_DTYPES, name="cpu/expand")
def expand_cpu(x, shape):
    lead = len(shape) - x.ndim
    if -1 in shape:  # keep a dimension's size
        shape = tuple(x.shape[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(shape))
    # A writable view (np.broadcast_to's is read-only); in-place ops refuse its overlapping elements.
    strides = (0,) * lead + tuple(0 if n != s else st for n, s, st in zip(x.shape, shape[lead:], x.strides))
    return np.lib.stride_tricks.as_strided(x, shape, strides)


def _expand_meta(op: str, x: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    """The shared rule (``im.expand``) for sizes of at least -1; where it refuses, or a size is below -1,
    PyTorch's checks in its words and order (``_expand_refusal``; only then: an expand is on the hot path)."""
    if shape and min(shape) < -1:
        _expand_refusal(x, shape)
    try:
        return im.expand(op, x, shape)
    except ShapeError:
        _expand_refusal(x, shape)
        raise


def _expand_refusal(x: Any, shape: tuple[int, ...]) -> None:
    """PyTorch's ``infer_expand_geometry`` in its words and order: the number of sizes, then each size from the
    last dim (a new leading dim takes no negative size; an existing one keeps its size for -1, or matches, or
    is 1); a size below -1 for a dim of size 1 passes there and fails PyTorch's count of elements."""
    if len(shape) < x.ndim:
        kind = f"torch.{'cuda.' if device_of_array(x) != 'cpu' else ''}{scalar_type_name(x.dtype)}Tensor"
        raise ShapeError(f"expand({kind}{{{list(x.shape)}}}, size={list(shape)}): the number of sizes provided "
                         f"({len(shape)}) must be greater or equal to the number of dimensions in the tensor "
                         f"({x.ndim})")
    lead = len(shape) - x.ndim
    negative = False
    for i in range(len(shape) - 1, -1, -1):
        s = shape[i]
        if i < lead:
            if s < 0:
                raise ShapeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                 f"dimension {i}")
            continue
        have = x.shape[i - lead]
        if s != -1 and have != s and have != 1:
            raise ShapeError(f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                             f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                             f"{list(x.shape)}")
        negative = negative or s < -1
    if negative:
        raise ShapeError("numel: integer multiplication overflow")


expand = defop("expand", inputs=("x",), attrs=(Attr("shape", check=check_shape),), infer_meta=_expand_meta, view=True,
               doc="broadcast size-1 dimensions to a larger shape (no copy)")


@expand.def_backward
def _expand_backward(ctx, g):
    return (ctx.ops.sum_to(g, ctx.input_shape(0)),)  # summed over the copies expand made


@register_kernel("squeeze", CPU, dtypes=ALL_DTYPES, name="cpu/squeeze")
def squeeze_cpu(x, dim=None):
    return squeeze_view(np, x, dim)


squeeze = defop(
    "squeeze",
    inputs=("x",),
    attrs=(Attr("dim", None, check_dims),),
    infer_meta=im.squeeze,
    view=True,
    methods=("squeeze",),
)


@squeeze.def_backward
def _squeeze_backward(ctx, g):
    """PyTorch's ``unsqueeze_to``: ``g`` unsqueezed at each squeezed dim of size 1, in increasing order (one
    ``UnsqueezeBackward0`` each in a double backward)."""
    shape, dim = tuple(ctx.input_shape(0)), ctx.attrs["dim"]
    dims = range(len(shape)) if dim is None else dim if isinstance(dim, (tuple, list)) else (dim,)
    for d in sorted({d % len(shape) for d in dims} if shape else ()):
        if shape[d] == 1:
            g = ctx.ops.unsqueeze(g, d)
    return (g,)


@register_kernel("unsqueeze", CPU, dtypes=ALL_DTYPES, name="cpu/unsqueeze")
def unsqueeze_cpu(x, dim):
    return unsqueeze_view(np, x, dim % (x.ndim + 1))


unsqueeze = defop(
    "unsqueeze",
    inputs=("x",),
    attrs=(Attr("dim", check=check_int),),
    infer_meta=im.unsqueeze,
    view=True,
    methods=("unsqueeze",),
)


@unsqueeze.def_backward
def _unsqueeze_backward(ctx, g):
    """PyTorch's ``grad.squeeze(dim)`` (``SqueezeBackward1`` in a double backward)."""
    return (ctx.ops.squeeze(g, ctx.attrs["dim"]),)


@register_kernel("concat", CPU, dtypes=ALL_DTYPES, name="cpu/concat")
def concat_cpu(xs, dim=0):
    return concat_arrays(np, xs, dim)


concat = defop("concat", inputs=(Input("xs", is_list=True, empty=(ValueError, "torch.cat(): expected a non-empty list of Tensors")),), attrs=(Attr("dim", 0, check_int),), infer_meta=im.concat,
               transform_dtype=True, layout="cat_memory_format", doc="join tensors along an existing dimension")


@concat.def_backward
def _concat_backward(ctx, g):
    d = ctx.attrs["dim"] % g.ndim
    pieces, start = [], 0
    for rank, shape in enumerate(ctx.input_shapes(0)):
        skipped = im.is_legacy_empty(shape) and tuple(shape) != tuple(g.shape)  # cat skipped it: no slice of g
        size = 0 if skipped else shape[d]
        if ctx.needs(0, rank):
            index = (slice(None),) * d + (slice(start, start + size),)
            piece = ctx.ops.getitem(g, index)
            pieces.append(ctx.ops.reshape(piece, (0,)) if skipped else piece)
        else:
            pieces.append(None)
        start += size
    return (pieces,)


@register_kernel("stack", CPU, dtypes=ALL_DTYPES, name="cpu/stack")
def stack_cpu(xs, dim=0):
    return np.stack(xs, axis=dim)


stack = defop("stack", inputs=(Input("xs", is_list=True),), attrs=(Attr("dim", 0, check_int),), infer_meta=im.stack,
              transform_dtype=True, doc="join tensors along a new dimension")


@stack.def_backward
def _stack_backward(ctx, g):
    d = ctx.attrs["dim"] % g.ndim
    return ([ctx.ops.getitem(g, (slice(None),) * d + (i,)) if ctx.needs(0, i) else None
             for i in range(len(ctx.input_shapes(0)))],)


def flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    """Merge dims ``start_dim..end_dim`` into one (a reshape)."""
    check_tensor("flatten", "x", 0, x)
    start_dim = check_int("flatten", "start_dim", 1, start_dim)
    end_dim = check_int("flatten", "end_dim", 2, end_dim)
    nd = x.ndim
    wrap_dim("flatten", start_dim, nd)
    wrap_dim("flatten", end_dim, nd)
    if nd == 0:
        return reshape(x, (1,))
    if start_dim % nd > end_dim % nd:
        raise ShapeError("flatten() has invalid args: start_dim cannot come after end_dim")
    s, e = start_dim % max(nd, 1), end_dim % max(nd, 1)
    merged = 1  # the merged size spelled out, not -1: a zero-size tensor leaves -1 ambiguous
    for size in x.shape[s : e + 1]:
        merged *= size
    return reshape(x, x.shape[:s] + (merged,) + x.shape[e + 1 :])


# -- indexing ------------------------------------------------------------------


class LoneSlice(tuple):
    """A normalized ``x[a:b]``, one slice given alone (no tuple): PyTorch's Python indexing applies it as a
    ``slice`` even where it keeps the whole dim (``x[:]`` and ``v[:n]`` of ``n`` elements are ``SliceBackward0``,
    where ``x[:, :]`` and ``x[...]`` are aliases)."""

    __slots__ = ()
    lone_slice = True  # (read by the node's namer, tracing/node_names.py)


def slice_dim(x: Tensor, dim: int, start: int, end: int) -> Tensor:
    """PyTorch's ``aten::slice`` of ``dim`` (what ``narrow`` and ``F.pad`` call): a view whose node is
    ``SliceBackward0`` even where it keeps the whole dim (a ``LoneSlice`` index is one step, named a slice; the
    index ``x[:, 0:n]`` would be an alias)."""
    return getitem(x, LoneSlice((slice(None),) * dim + (slice(start, end),)))


def _normalize_index(op: str, index: Any, keep_device: bool = False, shape: tuple[int, ...] | None = None) -> Any:
    """Turn a Python index (ints, slices, None, Ellipsis, lists, int/bool tensors) into a NumPy index.

    With ``keep_device``, integer tensors on the GPU stay there (their arrays are the index) when every
    item of the index takes one dimension (ints, slices, integer arrays): reading them on the host would
    make it wait for the device; ``_getitem_meta`` checks their range on the device instead.

    With the indexed tensor's ``shape``, each bool mask's shape is checked against the dims it covers, in
    PyTorch's words, and with ``keep_device`` a GPU mask becomes the integer arrays of its True positions,
    made on the device (``kernels.array_kernels.nonzero_positions``)."""
    items = index if isinstance(index, tuple) else (index,)
    if shape is not None and any(_is_mask(i) for i in items):
        items = _masks_checked(items, tuple(shape), keep_device)
    device = _index_device(items) if keep_device else None
    out = []
    for pos, item in enumerate(items):
        if isinstance(item, Tensor):
            if item._dtype.is_floating:
                raise IndexTypeError(f"tensors used as indices must be long, int, byte or bool tensors ({op}(): "
                                     f"index {pos} is {item.dtype})")
            if device is not None and item._device != "cpu":
                out.append(item._data)
            elif item.ndim == 0 and item._dtype is not _BOOL:
                # a 0-d integer tensor indexes as its int (PyTorch's select); on the GPU it stays an index
                # array: reading its value would make the host wait
                out.append(int(to_numpy(item._data)))
            else:
                out.append(to_numpy(item._data))
        elif hasattr(item, "shape") and device_of_array(item) != "cpu":
            # a device array: an index normalized before (the saved index of getitem, which its backward's
            # getitem_grad is given); CuPy's arrays are no NumPy arrays, and np.asarray of one refuses
            out.append(item if device is not None else to_numpy(item))
        elif isinstance(item, range) and device is not None:  # beside a GPU index (C[range(n), ix]): made there
            made = made_array("arange", device, item.start, item.stop, item.step, dtype=np.int64)
            out.append(made if made is not None else np.asarray(item, dtype=np.int64))
        elif isinstance(item, (list, np.ndarray, range)):  # range: lecture code's C[range(n), ix]
            # (an empty list indexes as an empty int64 tensor, as in PyTorch; NumPy would make it float64)
            as_int = isinstance(item, range) or (isinstance(item, list) and not item)
            arr = np.asarray(item, dtype=np.int64) if as_int else np.asarray(item)
            if arr.dtype.kind not in "biu":
                raise TypeError(f"{op}(): index {pos} must hold integers or bools, but got {arr.dtype}")
            out.append(arr)
        elif isinstance(item, (bool, np.bool_)):
            out.append(bool(item))
        elif isinstance(item, (int, np.integer)):
            out.append(int(item))
        elif item is None or item is Ellipsis or isinstance(item, slice):
            if isinstance(item, slice):
                item = _slice_of_ints(op, item)
            out.append(item)
        else:
            raise TypeError(
                f"{op}(): only integers, slices, None, Ellipsis, and integer or bool tensors/lists are valid indices "
                f"(got {type_name(item)} at position {pos})"
            )
    return LoneSlice(out) if isinstance(index, slice) or type(index) is LoneSlice else tuple(out)


def _is_mask(item: Any) -> bool:
    """Whether an index item is a bool mask of one or more dims (a tensor, a NumPy array or a list of bools)."""
    if isinstance(item, Tensor):
        return item._dtype is _BOOL and item.ndim > 0
    if isinstance(item, np.ndarray):
        return item.dtype == np.bool_ and item.ndim > 0
    return isinstance(item, list) and len(item) > 0 and all(isinstance(v, (bool, np.bool_)) for v in item)


def _dims_taken(item: Any) -> int | None:
    """How many dims of the indexed tensor an index item covers (None for ``...``: what the rest leave)."""
    if item is Ellipsis:
        return None
    if item is None or isinstance(item, (bool, np.bool_)):
        return 0
    if _is_mask(item):
        return len(item.shape) if hasattr(item, "shape") else 1
    if isinstance(item, Tensor) and item._dtype is _BOOL:  # a 0-d mask: a new dim, as ``None``
        return 0
    return 1


def _masks_checked(items: tuple[Any, ...], shape: tuple[int, ...], keep_device: bool) -> tuple[Any, ...]:
    """``items`` with each mask's shape checked against the dims it covers (PyTorch's ``IndexError``); with
    ``keep_device`` a GPU mask is replaced by the integer arrays of its True positions (``nonzero_positions``)."""
    taken = [_dims_taken(i) for i in items]
    rest = len(shape) - sum(t for t in taken if t is not None)
    out: list[Any] = []
    dim = 0
    for item, t in zip(items, taken):
        t = max(rest, 0) if t is None else t
        if _is_mask(item):
            mask_shape = tuple(item.shape) if hasattr(item, "shape") else (len(item),)
            for k, size in enumerate(mask_shape):
                if dim + k < len(shape) and size != shape[dim + k]:
                    raise OutOfRangeError(f"The shape of the mask {list(mask_shape)} at index {k} does not match the "
                                          f"shape of the indexed tensor {list(shape)} at index {dim + k}")
            if keep_device and isinstance(item, Tensor) and item._device != "cpu" and dim + len(mask_shape) <= len(shape):
                positions = nonzero_positions(item._data, item._device)
                out.extend(in_range(positions[:, k]) for k in range(item.ndim))
                dim += t
                continue
        out.append(item)
        dim += t
    return tuple(out)


def _slice_of_ints(op: str, item: slice) -> slice:
    """``item`` with Python ints as bounds: an integer 0-d tensor (``data[i:i + block_size]`` with ``i``
    from ``randint``) counts through its ``__index__``, as in Python's own sequences."""
    parts = (item.start, item.stop, item.step)
    if all(p is None or type(p) is int for p in parts):
        if item.step is not None and item.step <= 0:
            _refuse_step(item.step)
        return item
    fixed = []
    for part in parts:
        if part is None or isinstance(part, (int, np.integer)):
            fixed.append(part)
        elif isinstance(part, Tensor) and not part._dtype.is_floating and part.numel() == 1:
            fixed.append(part.__index__())
        else:
            raise TypeError(f"{op}(): slice indices must be integers or None or have an __index__ method, "
                            f"but got {type_name(part)}")
    if fixed[2] is not None and fixed[2] <= 0:
        _refuse_step(fixed[2])
    return slice(*fixed)


def _refuse_step(step: int) -> None:
    """PyTorch's refusal of a slice that steps backwards (``x[::-1]``: a tensor has no negative strides; use
    ``x.flip(0)``), or by 0."""
    raise ValueError("slice step cannot be zero" if step == 0 else "step must be greater than zero")


_probes: dict[tuple[Any, Any], np.ndarray] = {}


def _probe(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A read-only array of ``shape`` over one element (every stride 0): indexing it gives the
    result's shape, or NumPy's IndexError, without touching ``x``. One per (shape, dtype)."""
    key = (shape, dtype)
    probe = _probes.get(key)
    if probe is None:
        if len(_probes) >= 256:
            _probes.clear()
        probe = _probes[key] = np.broadcast_to(np.empty((), dtype=dtype), shape)
    return probe


def _one_dim_item(item: Any) -> bool:
    """Whether an index item takes exactly one dimension of the indexed tensor (an int, a slice, a range, an
    integer tensor), so an integer array at position ``k`` indexes dimension ``k``."""
    if isinstance(item, Tensor):
        return item._dtype.is_integer
    if hasattr(item, "dtype") and hasattr(item, "shape"):  # an integer array normalized before (a saved index)
        return item.dtype.kind in "iu"
    return isinstance(item, (int, np.integer, slice, range)) and not isinstance(item, bool)


def _index_device(items: tuple[Any, ...]) -> str | None:
    """The device of the index's GPU integer tensors (or arrays), where they can stay: every item takes one
    dimension (``_one_dim_item``). ``None`` where there is none, or where the index is read on the host."""
    device = None
    for item in items:
        if isinstance(item, Tensor) and item._device != "cpu":
            device = item._device
        elif not isinstance(item, Tensor) and hasattr(item, "shape") and device_of_array(item) != "cpu":
            device = device_of_array(item)
    return device if device is not None and all(_one_dim_item(i) for i in items) else None


def _device_items(index: tuple[Any, ...]) -> list[int]:
    """The positions of ``index`` (a normalized one) that hold device arrays."""
    return [k for k, i in enumerate(index) if hasattr(i, "shape") and device_of_array(i) != "cpu"]


def _probe_index(index: tuple[Any, ...], on_device: list[int]) -> tuple[Any, ...]:
    """``index`` with its device arrays replaced by host zeros of their shapes: what the result's shape
    needs, read without waiting for the device (their values are checked there, ``_check_device_index``)."""
    return tuple(np.zeros(i.shape, np.intp) if k in on_device else i for k, i in enumerate(index))


def _getitem_meta(op: str, x: Any, index: Any) -> Any:
    try:
        return index_region(x.shape, index), x.dtype
    except IndexError as exc:
        if x.ndim == 0 and len(index) == 1 and isinstance(index[0], int) and not isinstance(index[0], bool):
            raise OutOfRangeError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number") from None
        if x.ndim == 0 and len(index) == 1 and isinstance(index[0], slice):
            raise OutOfRangeError("slice() cannot be applied to a 0-dim tensor.") from None
        raise OutOfRangeError(_index_error_words(str(exc), x.ndim)) from None


#: id -> a GPU index array made in range (a mask's True positions): its range is not checked on the device
#: (a launch, and a flag read at the next sync). Bounded: emptied when full, which only costs checks again.
_IN_RANGE: dict[int, Any] = {}


def in_range(array: Any) -> Any:
    """``array``, a GPU index made in range by construction, remembered so that ``index_region`` does not check
    it again."""
    if len(_IN_RANGE) >= 256:
        _IN_RANGE.clear()
    _IN_RANGE[id(array)] = array
    return array


def index_region(shape: tuple[int, ...], index: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape of ``x[index]`` for a tensor of ``shape`` (NumPy's ``IndexError`` for a bad index), a GPU
    index array's range checked on the device and refused at the next sync (unless made in range: ``in_range``)."""
    on_device = _device_items(index)
    try:
        region = indexed(_probe(tuple(shape), np.bool_), _probe_index(index, on_device)).shape
    except IndexError:
        region = empty_read_shape(tuple(shape), index)  # a read of no element checks no value, as PyTorch's
        if region is None:
            raise
        return region
    if 0 in region:
        return region
    for k in on_device:
        if _IN_RANGE.get(id(index[k])) is not index[k]:
            _check_device_index(index[k], k, shape[k])
    return region


def _check_device_index(index: Any, dim: int, size: int) -> None:
    """PyTorch's out-of-bounds error for a GPU index array, reported at the next sync (``check_range``)."""
    def error(bad: np.ndarray, values: np.ndarray) -> OutOfRangeError:
        return OutOfRangeError(f"index {bad[0]} is out of bounds for dimension {dim} with size {size}")

    check_range(index, device_of_array(index), -size, size, error)


def _host_index(index: Any) -> Any:
    """``index`` with any device arrays read back to the host (a CPU kernel given a GPU index tensor)."""
    if not any(hasattr(i, "shape") and device_of_array(i) != "cpu" for i in index):
        return index
    return tuple(to_numpy(i) if hasattr(i, "shape") and device_of_array(i) != "cpu" else i for i in index)


def _index_error_words(numpy_words: str, ndim: int) -> str:
    """NumPy's IndexError in PyTorch's words ("index 5 is out of bounds for dimension 0 with size 3")."""
    if numpy_words.startswith("too many indices"):
        return f"too many indices for tensor of dimension {ndim}"
    return numpy_words.replace(" for axis ", " for dimension ")


def _show_index(index: Any) -> str:
    parts = []
    for item in index:
        if hasattr(item, "shape"):  # a NumPy or a device array: its shape, never its values
            parts.append(f"array{tuple(item.shape)}")
        elif isinstance(item, slice):
            parts.append(f"{'' if item.start is None else item.start}:{'' if item.stop is None else item.stop}"
                         + ("" if item.step is None else f":{item.step}"))
        else:
            parts.append(repr(item))
    return "[" + ", ".join(parts) + "]"


def _check_index(op: str, name: str, pos: int, v: Any) -> Any:
    return _normalize_index(op, v, keep_device=True)


@register_kernel("getitem", CPU, dtypes=ALL_DTYPES, name="cpu/getitem")
def getitem_cpu(x, index):
    index = _host_index(index)
    empty = empty_read_shape(x.shape, index)
    if empty is not None:  # no element read, so no index value checked (PyTorch's)
        return np.empty(empty, dtype=x.dtype)
    out = indexed(x, index)
    if not isinstance(out, np.ndarray):  # integers only: NumPy gives a scalar; PyTorch a 0-d view
        return x[index + (Ellipsis,)]
    out = _owned(out, x)
    # a gather in PyTorch's layout (NOTE [ A gather's result is laid out as PyTorch's ]); a view with its new
    # dimensions' strides PyTorch's
    return new_dims_strided(np, x, index, out) if np.may_share_memory(out, x) else laid_out_as_torch(np, x, index, out)


getitem = defop("getitem", inputs=("x",), attrs=(Attr("index", check=_check_index),), infer_meta=_getitem_meta,
                view=True, doc="x[index]: basic slicing (a view) and integer/bool-array indexing (a copy)", operators=("__getitem__",))


@getitem.def_decomposition
def _getitem_decomposition(inputs: list[Any], attrs: dict[str, Any]) -> Any:
    """PyTorch applies an index one item at a time, left to right (``applySlicing`` in
    ``aten/src/ATen/TensorIndexing.h``): each integer is a ``select``, each slice other than ``:`` a
    ``slice``, each ``None`` an ``unsqueeze``, and the index arrays, all together, one ``index`` last. So
    ``x[0, 1:]`` is ``SliceBackward0`` over ``SelectBackward0``, and ``x[1:, idx]`` ``IndexBackward0`` over
    ``SliceBackward0``: one ``getitem`` op per step here too. An index of one step is the op itself. The whole
    index is checked first (its shape and host values), so a refused index makes no node."""
    x, index = inputs[0], attrs["index"]
    steps = _index_steps(tuple(x.shape), index)
    if steps is None:
        return None
    try:
        indexed(_probe(tuple(x.shape), np.bool_), _probe_index(index, _device_items(index)))
    except IndexError:
        return None  # refused (or an empty read PyTorch allows) by the op itself, in its own layers
    for step in steps:
        x = getitem.direct(x, step)
    return x


def _index_steps(shape: tuple[int, ...], index: tuple[Any, ...]) -> list[tuple[Any, ...]] | None:
    """The single-item indexes PyTorch applies for ``index`` (a normalized one), or None when it is the one
    step ``index`` itself. ``dim`` counts the result's dims already passed (an integer removes its dim, so it
    does not move on); ``sizes`` are the result's sizes as the steps leave them. A slice that keeps a whole
    dim (``0:n``, ``::1``) is no step, as in PyTorch; an index of no step at all is an alias of ``x``."""
    if type(index) is LoneSlice:
        return None  # one slice given alone: one step, the op itself, even where it keeps the whole dim
    if any(isinstance(i, (bool, np.bool_)) or (hasattr(i, "ndim") and i.ndim == 0 and i.dtype == np.bool_)
           for i in index):
        return None  # a bool item (a new dim, kept or emptied): the op itself
    specified = sum(0 if i is None or i is Ellipsis else i.ndim if hasattr(i, "dtype") and i.dtype == np.bool_
                    else 1 for i in index)
    sizes = list(shape)
    steps: list[tuple[Any, ...]] = []
    arrays: list[tuple[int, Any]] = []
    dim, changed = 0, False
    for item in index:
        if item is not None and item is not Ellipsis and dim >= len(sizes):
            return None  # too many indices: the op refuses them
        if item is Ellipsis:
            dim += len(shape) - specified
        elif item is None:
            steps.append((slice(None),) * dim + (None,))
            sizes.insert(dim, 1)
            dim += 1
        elif isinstance(item, int):
            steps.append((slice(None),) * dim + (item,))
            del sizes[dim]
        elif isinstance(item, slice):
            if item.start in (None, 0) and item.step in (None, 1) and (item.stop is None or item.stop >= sizes[dim]):
                changed = changed or item != slice(None)
            else:
                steps.append((slice(None),) * dim + (item,))
                sizes[dim] = len(range(*item.indices(sizes[dim])))
            dim += 1
        else:  # an index array
            arrays.append((dim, item))
            dim += item.ndim if item.dtype == np.bool_ else 1
    if arrays:
        last: list[Any] = []
        covered = 0  # dims the items so far index (a mask covers as many as it has)
        for d, a in arrays:
            last += [slice(None)] * (d - covered) + [a]
            covered = d + (a.ndim if a.dtype == np.bool_ else 1)
        steps.append(tuple(last))
    if len(steps) > 1 or changed:
        return steps or [()]
    return None


@getitem.def_backward
def _getitem_backward(ctx, g):
    index = ctx.attrs["index"]
    if _is_alias(index):  # x[:, :], x[...]: PyTorch's AliasBackward0, whose gradient is the incoming one itself
        return (g,)
    return (ctx.ops.getitem_grad(g, index, ctx.input_shape(0)),)


def _is_alias(index: Any) -> bool:
    """Whether a normalized index keeps every element where it is (only ``:`` and ``...``, not given alone)."""
    parts = index if isinstance(index, tuple) else (index,)
    return type(index) is not LoneSlice and all(p is Ellipsis or (isinstance(p, slice) and p == slice(None))
                                                for p in parts)


def _getitem_grad_meta(op: str, grad: Any, index: Any, shape: tuple[int, ...]) -> Any:
    return tuple(shape), grad.dtype


@register_kernel("getitem_grad", CPU, dtypes=ALL_DTYPES, name="cpu/getitem_grad")
def getitem_grad_cpu(grad, index, shape):
    out = np.zeros(shape, dtype=grad.dtype)
    if grad.size == 0:  # nothing to add (and the index's values were never checked: an empty read)
        return out
    target, index = index_target(out, _host_index(index))
    if not any(isinstance(i, np.ndarray) and i.dtype.kind != "b" for i in index):
        # slices, integers and masks pick each element at most once
        target[index] = grad
    elif len(index) == 1 and target.ndim >= 1:  # rows picked by one integer array: an embedding's backward
        add_rows(target, index[0], grad)
    else:  # add.at accumulates repeated integer indices (x[[0, 0]] gets both gradients)
        np.add.at(target, index, grad)
    return out


def add_rows(out: np.ndarray, rows: np.ndarray, grad: np.ndarray) -> None:
    """``out[rows[i]] += grad[i]`` for every ``i``: one stable sort and one ``add.reduceat`` (``np.add.at``, one
    element at a time, is 4x slower for an embedding). reduceat sums a row's repeats in an order of its own, not
    one by one as ``np.add.at``: the same bits every run, a last bit apart from a sequential sum."""
    if rows.size == 0:
        return
    picked = rows.reshape(-1) % out.shape[0]  # a negative index counts from the end
    order = np.argsort(picked, kind="stable")
    picked = picked[order]
    starts = np.flatnonzero(np.concatenate(([True], picked[1:] != picked[:-1])))
    width = math.prod(out.shape[1:])
    sums = np.add.reduceat(grad.reshape(picked.size, width)[order], starts, axis=0)
    out.reshape(out.shape[0], width)[picked[starts]] = sums


getitem_grad = defop(
    "getitem_grad",
    inputs=("grad",),
    attrs=(Attr("index", check=_check_index), Attr("shape", check=check_shape)),
    infer_meta=_getitem_grad_meta,
    doc="scatter-add grad into zeros(shape) at index (the adjoint of getitem)",
)


@getitem_grad.def_backward
def _getitem_grad_backward(ctx, g):
    return (ctx.ops.getitem(g, ctx.attrs["index"]),)  # the adjoint of a scatter-add is a gather


# -- PyTorch's joining and splitting forms (composites) --------------------------------------------

def cat(tensors: Sequence[Tensor], dim: int = 0, *, axis: Any = None, out: Any = None) -> Tensor:
    """Join tensors along an existing dim (PyTorch's name for the ``concat`` op). Composite (``concat``)."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("cat", out, cat, (tensors, dim), {"axis": axis})
    return concat(tensors, dim=axis if axis is not None else dim)


def concatenate(tensors: Sequence[Tensor], dim: int = 0, *, axis: Any = None) -> Tensor:
    """NumPy's name for ``cat`` (``torch.concatenate``). Composite (``concat``)."""
    return cat(tensors, dim, axis=axis)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    """``input`` expanded to ``size`` (``torch.broadcast_to``: ``expand``'s rules, -1 keeps a dim); a view.
    Composite (``expand``)."""
    check_tensor("broadcast_to", "input", 0, input)
    if isinstance(size, int) or not isinstance(size, (tuple, list)):
        raise TypeError(f"broadcast_to(): argument 'size' (position 1) must be tuple of ints, not {type_name(size)}")
    return expand(input, check_shape("broadcast_to", "size", 1, size))


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape the given shapes broadcast to (``torch.broadcast_shapes``; an int is a 1-d shape), without
    making a tensor; PyTorch's ``RuntimeError`` naming the first shape that does not fit.

    Example:
        >>> import minigrad as mg
        >>> mg.broadcast_shapes((2, 1), (3,))
        minigrad.Size([2, 3])
    """
    given = [(s,) if isinstance(s, (int, np.integer)) else s for s in shapes if s is not None]
    for s in given:
        if not isinstance(s, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    common = [1] * max((len(s) for s in given), default=0)
    for index, s in enumerate(given):
        for d in range(-1, -1 - len(s), -1):
            if s[d] == common[d]:
                continue
            if common[d] == 1:
                if s[d] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[d] = s[d]
            elif s[d] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[d]} at {d}! Mismatching argument "
                                   f"at index {index} had {s}; but expected shape should be broadcastable to {common}")
    return Size(common)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (``torch.broadcast_tensors``); views.
    Composite (``expand``). A tensor that already has that shape is returned itself, as PyTorch's
    ``expand_outplace`` returns it: no ``ExpandBackward0`` in its graph."""
    ts = [check_tensor("broadcast_tensors", "tensors", i, t) for i, t in enumerate(tensors)]
    shape: tuple[int, ...] = ()
    for t in ts:
        shape = im.broadcast_shapes("broadcast_tensors", shape, tuple(t.shape), ("a", "b"))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in ts)


# -- split, chunk, unbind: one node with an output per piece ---------------------------------------

@register_kernel("split", CPU, dtypes=ALL_DTYPES, name="cpu/split")
def split_cpu(x, split_size, dim):
    return split_views(x, split_size, dim)


@register_kernel("split_with_sizes", CPU, dtypes=ALL_DTYPES, name="cpu/split_with_sizes")
def split_with_sizes_cpu(x, split_sizes, dim):
    return split_views(x, split_sizes, dim)


@register_kernel("unbind", CPU, dtypes=ALL_DTYPES, name="cpu/unbind")
def unbind_cpu(x, dim):
    return unbind_views(x, dim)


def _piece_index(x: Tensor, sizes: Sequence[int], dim: int, k: int) -> tuple[Any, ...]:
    """The ``getitem`` index of piece ``k`` (its view function, NOTE [ One node for the pieces ])."""
    start = builtins.sum(sizes[:k])
    return (slice(None),) * (dim % x.ndim) + (slice(start, start + sizes[k]),)


# NOTE [ One node for the pieces ]
#     ``q, k, v = qkv.split(C, dim=2)`` makes one node, ``SplitBackward0``, with an output per piece,
#     as PyTorch's: each piece's gradient reaches it at its own rank and the node's formula joins them
#     with one ``cat`` (the engine fills a piece that got no gradient with zeros first). Made of three
#     ``getitem`` slices instead, the backward would scatter each piece's gradient into a zero tensor
#     of the whole input and add the three (three full-size buffers, two additions). Each piece is a
#     view of the input; it records the ``getitem`` that makes it (``output_index``) as its view
#     function, so that a view of a piece replays as any other view. PyTorch refuses to change a piece
#     in place when autograd is involved (``mark_multi_output``): its node could not run the change.
split_op = defop("split", inputs=("x",), attrs=(Attr("split_size", check=check_int), Attr("dim", 0, check_int)),
                 infer_meta=im.split, view=True,
                 output_index=lambda x, attrs, k: _piece_index(
                     x, im.split_pieces(x.shape[attrs["dim"]], attrs["split_size"]), attrs["dim"], k),
                 doc="the pieces of x along dim, split_size long (the last may be shorter); views")
split_with_sizes = defop("split_with_sizes", inputs=("x",),
                         attrs=(Attr("split_sizes", check=check_shape), Attr("dim", 0, check_int)),
                         infer_meta=im.split_with_sizes, view=True,
                         output_index=lambda x, attrs, k: _piece_index(x, attrs["split_sizes"], attrs["dim"], k),
                         doc="the pieces of x along dim, of the listed sizes; views")
unbind_op = defop("unbind", inputs=("x",), attrs=(Attr("dim", 0, check_int),), infer_meta=im.unbind, view=True,
                  output_index=lambda x, attrs, k: (slice(None),) * (attrs["dim"] % x.ndim) + (k,),
                  doc="the slices of x along dim, dim removed; views")


def _join_pieces(ctx, grads):
    gs = grads if isinstance(grads, list) else [grads]
    return (ctx.ops.concat(gs, dim=ctx.attrs["dim"]),)


split_op.def_backward(_join_pieces)
split_with_sizes.def_backward(_join_pieces)


# NOTE [ Pieces that are not views ]
#     ``unsafe_split`` (``unsafe_chunk``, ``unsafe_split_with_sizes``) cuts as ``split`` does and its
#     pieces share the input's memory, as PyTorch's, but autograd does not know them as views: no shared
#     version counter, no view function, no refusal of an in-place change. ATen's recurrent cells
#     (aten/src/ATen/native/RNN.cpp) cut their gates so and then change them in place (``sigmoid_``,
#     ``add_``). The node, ``UnsafeSplitBackward0``, joins the pieces' gradients as ``split``'s does. As
#     PyTorch warns, changing both the input and a piece in place makes the gradients silently wrong.
@register_kernel("unsafe_split", CPU, dtypes=ALL_DTYPES, name="cpu/unsafe_split")
def unsafe_split_cpu(x, split_size, dim):
    return split_views(x, split_size, dim)


@register_kernel("unsafe_split_with_sizes", CPU, dtypes=ALL_DTYPES, name="cpu/unsafe_split_with_sizes")
def unsafe_split_with_sizes_cpu(x, split_sizes, dim):
    return split_views(x, split_sizes, dim)


unsafe_split_op = defop("unsafe_split", inputs=("x",),
                        attrs=(Attr("split_size", check=check_int), Attr("dim", 0, check_int)),
                        infer_meta=im.split, out=False,
                        doc="split's pieces, not views to autograd (NOTE [ Pieces that are not views ])")
unsafe_split_with_sizes_op = defop("unsafe_split_with_sizes", inputs=("x",),
                                   attrs=(Attr("split_sizes", check=check_shape), Attr("dim", 0, check_int)),
                                   infer_meta=im.split_with_sizes, out=False,
                                   doc="split_with_sizes's pieces, not views to autograd")
unsafe_split_op.def_backward(_join_pieces)
unsafe_split_with_sizes_op.def_backward(_join_pieces)


@unbind_op.def_backward
def _unbind_backward(ctx, grads):
    return (ctx.ops.stack(grads if isinstance(grads, list) else [grads], dim=ctx.attrs["dim"]),)


def _split_dim(fn: str, t: Tensor, dim: Any, pos: int) -> int:
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{fn}(): argument 'dim' (position {pos}) must be int, but got {type_name(dim)}")
    return im.normalize_dims(fn, dim, t.ndim)[0]


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``tensor`` along ``dim``: of size ``split_size`` each (the last may be smaller), or of the
    listed sizes; views, the outputs of one node (``SplitBackward0``, ``SplitWithSizesBackward0``).
    NOTE [ One node for the pieces ]."""
    check_tensor("split", "tensor", 0, tensor)
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _split_dim("split", tensor, dim, 2)
    sections = split_size_or_sections
    if isinstance(sections, int) and not isinstance(sections, bool):
        return split_op(tensor, sections, d)
    if isinstance(sections, (list, tuple)):
        for k, s in enumerate(sections):
            if not isinstance(s, int) or isinstance(s, bool):
                raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
                                f"but found element of type {type_name(s)} at pos {k}")
        return split_with_sizes(tensor, list(sections), d)
    raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
                    f"not {type_name(sections)}")


def _chunk_size(op: str, input: Tensor, chunks: Any, dim: Any, error: type) -> tuple[int, int]:
    """``chunk``'s checks (``error``: the class of its "greater than 0") and its dim and piece size,
    ``ceil(size / chunks)``; a size of 0 for a dim of size 0 (``chunks`` empty pieces)."""
    check_tensor(op, "input", 0, input)
    if not isinstance(chunks, int) or isinstance(chunks, bool):
        raise TypeError(f"{op}(): argument 'chunks' (position 1) must be int, not {type_name(chunks)}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise error(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _split_dim(op, input, dim, 2)
    return d, -(-input.shape[d] // chunks)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunks`` pieces of (nearly) equal size along ``dim``, as ``torch.chunk``: ``split`` with
    ``ceil(size / chunks)``; a dim of size 0 gives ``chunks`` empty pieces."""
    d, size = _chunk_size("chunk", input, chunks, dim, ShapeError)
    return split_op(input, size, d) if size else split_with_sizes(input, [0] * chunks, d)


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``split`` by one size whose pieces autograd does not treat as views (``torch.unsafe_split``): one
    node, ``UnsafeSplitBackward0``; a piece may be changed in place. NOTE [ Pieces that are not views ]."""
    check_tensor("unsafe_split", "tensor", 0, tensor)
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not {type_name(split_size)}")
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return unsafe_split_op(tensor, split_size, _split_dim("unsafe_split", tensor, dim, 3))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``split_with_sizes`` whose pieces autograd does not treat as views (``torch.unsafe_split_with_sizes``):
    one node, ``UnsafeSplitWithSizesBackward0``. NOTE [ Pieces that are not views ]."""
    check_tensor("unsafe_split_with_sizes", "input", 0, input)
    if not isinstance(split_sizes, (list, tuple)) or any(not isinstance(s, int) or isinstance(s, bool)
                                                         for s in split_sizes):
        raise TypeError(f"unsafe_split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
                        f"not {type_name(split_sizes)}")
    if input.ndim == 0:
        raise RuntimeError("split_with_sizes expects at least a 1-dimensional tensor")
    return unsafe_split_with_sizes_op(input, list(split_sizes), _split_dim("unsafe_split_with_sizes", input, dim, 3))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunk`` whose pieces autograd does not treat as views (``torch.unsafe_chunk``): ``unsafe_split``
    by ``ceil(size / chunks)``, or ``chunks`` empty pieces of a dim of size 0 (``unsafe_split_with_sizes``).
    PyTorch's recurrent cells cut their gates with it. NOTE [ Pieces that are not views ]."""
    d, size = _chunk_size("unsafe_chunk", input, chunks, dim, RuntimeError)
    return unsafe_split_op(input, size, d) if size else unsafe_split_with_sizes_op(input, [0] * chunks, d)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``input`` along ``dim``, that dim removed (``torch.unbind``); views, the outputs of one
    node (``UnbindBackward0``), whose backward stacks their gradients."""
    check_tensor("unbind", "input", 0, input)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"unbind(): argument 'dim' (position 1) must be int, but got {type_name(dim)}")
    if input.ndim == 0:
        raise OutOfRangeError("Dimension specified as 0 but tensor has no dimensions")
    d = im.normalize_dims("unbind", dim, input.ndim)[0]
    if input.shape[d] == 0:
        return ()
    return unbind_op(input, d)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim`` into ``n`` pieces of sizes differing by at most one (the first ones
    larger), or at the given indices (``torch.tensor_split``); each piece a ``getitem`` slice
    (``SliceBackward0``, as PyTorch's)."""
    check_tensor("tensor_split", "input", 0, input)
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _split_dim("tensor_split", input, dim, 2)
    size = input.shape[d]
    spec = indices_or_sections
    if isinstance(spec, Tensor):  # PyTorch reads it on the host: it must be there already
        where = "tensor_split expected tensor_indices_or_sections to"
        if spec.device != "cpu":
            raise RuntimeError(f"{where} be on cpu, but it's on {spec.device.type}:{spec.device.index}")
        if spec._dtype.is_floating or spec._dtype.name == "bool":
            raise RuntimeError(f"{where} have dtype of long, but got {im.scalar_type_name(spec._dtype)}")
        if spec.ndim > 1:
            raise RuntimeError(f"{where} be a zero-dimensional or one-dimensional tensor, but got a tensor with "
                               f"{spec.ndim} dims")
        spec = int(spec.item()) if spec.ndim == 0 else [int(v) for v in spec.tolist()]
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        small, extra = divmod(size, spec)
        bounds = [k * small + builtins.min(k, extra) for k in range(spec + 1)]
    elif isinstance(spec, (list, tuple)):
        bounds = [0] + [int(i) for i in spec] + [size]
    else:
        raise TypeError(f"tensor_split(): argument 'indices' (position 2) must be tuple of ints, not "
                        f"{type_name(spec)}")
    lead = (slice(None),) * d
    pieces = []
    for lo, hi in zip(bounds, bounds[1:]):
        lo = builtins.min(builtins.max(lo + size if lo < 0 else lo, 0), size)
        hi = builtins.min(builtins.max(hi + size if hi < 0 else hi, 0), size)
        pieces.append(getitem(input, lead + (slice(lo, builtins.max(lo, hi)),)))
    return tuple(pieces)


def _split_along(fn: str, input: Tensor, spec: Any, dim: int, min_ndim: int) -> tuple[Tensor, ...]:
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim``, an int needing an even split."""
    check_tensor(fn, "input", 0, input)
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{fn} requires a tensor with at least {min_ndim} dimension, but got a tensor with "
                           f"{input.ndim} dimensions!")
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec == 0 or input.shape[dim] % spec:
            raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{input.shape[dim]} is not divisible by the split_size {spec}!")
    return tensor_split(input, spec, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 1 (dim 0 of a 1-d tensor), as ``torch.hsplit``."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims, as ``torch.vsplit``."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims, as ``torch.dsplit``."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


@register_kernel("t", CPU, dtypes=ALL_DTYPES, name="cpu/t")
def t_cpu(x):
    return x.T  # a view, also of a 0-d or 1-d array


t_op = defop("t", inputs=("x",), infer_meta=im.t, view=True,
             doc="transpose of a tensor with at most 2 dims (PyTorch's node: TBackward0)")


@t_op.def_backward
def _t_backward(ctx, g):
    return (ctx.ops.t(g),)


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor with at most 2 dims; of a 1-D or 0-D tensor, a new view with the same
    values (a tensor of its own, with a grad node, as PyTorch's: never ``input`` itself)."""
    check_tensor("t", "input", 0, input)
    if input.ndim > 2:
        raise ShapeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return t_op(input)


# -- in-place view ops: squeeze_, unsqueeze_, t_, transpose_ ------------------------------------------
#
# PyTorch's in-place view ops change a tensor's shape, not its elements: the tensor keeps its storage,
# its version moves, and its node becomes the op's, under the overload's own name (``x.squeeze_(0)``
# is ``SqueezeBackward4`` where ``x.squeeze(0)`` is ``SqueezeBackward1``). ``matmul`` of a vector and
# a matrix ends with one (``mm(...).squeeze_(0)``). Each op is its out-of-place twin's kernel and
# formula; ``Tensor.squeeze_`` and the others run it through ``run_inplace_view``.

for _name, _kernel in (("squeeze_", squeeze_cpu), ("unsqueeze_", unsqueeze_cpu), ("t_", t_cpu),
                       ("transpose_", transpose_cpu)):
    register_kernel(_name, CPU, dtypes=ALL_DTYPES, name=f"cpu/{_name}")(_kernel)

squeeze_ = defop("squeeze_", inputs=("x",), attrs=(Attr("dim", None, check_dims),), infer_meta=im.squeeze, view=True,
                 doc="drop size-1 dims of the tensor itself (``Tensor.squeeze_``)")
unsqueeze_ = defop("unsqueeze_", inputs=("x",), attrs=(Attr("dim", check=check_int),), infer_meta=im.unsqueeze,
                   view=True, doc="insert a size-1 dim into the tensor itself (``Tensor.unsqueeze_``)")
t_ = defop("t_", inputs=("x",), infer_meta=im.t, view=True,
           doc="transpose the tensor itself, of at most 2 dims (``Tensor.t_``)")
transpose_ = defop("transpose_", inputs=("x",), attrs=(Attr("dim0", check=check_int), Attr("dim1", check=check_int)),
                   infer_meta=im.transpose, view=True, doc="swap two dims of the tensor itself (``Tensor.transpose_``)")

squeeze_.def_backward(_squeeze_backward)
unsqueeze_.def_backward(_unsqueeze_backward)
t_.def_backward(_t_backward)
transpose_.def_backward(_transpose_backward)


__all__ += ['cat', 'concatenate', 'broadcast_to', 'broadcast_tensors', 'broadcast_shapes', 'split', 'split_with_sizes', 'chunk', 'unbind',
            'unsafe_split', 'unsafe_split_with_sizes', 'unsafe_chunk',
            'tensor_split', 'hsplit', 'vsplit', 'dsplit', 't']
