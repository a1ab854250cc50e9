"""GPU kernels of the shape and indexing ops: CuPy's own views and copies (library kernels).

These move no arithmetic, so they are not hand-written; having them on the
GPU keeps backward formulas (reshape, expand, unsqueeze, getitem_grad...)
on the device instead of falling back to the CPU.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import ALL_DTYPES, FLOAT_DTYPES, int32, int64
from ..array_kernels import (diag_embed_arrays, embedding_bag_arrays, embedding_bag_layout_arrays,
                             frequency_scale)
from ..kept import kept
from ..key import Backend
from ..registry import register_kernel
from ..strided import (as_strided_view, concat_arrays, copy_slices_array, diagonal_view, empty_read_shape, index_target, indexed,
                       laid_out_as_torch, new_dims_strided, split_views, squeeze_view, transpose_view, unbind_views,
                       unfold_view, unsqueeze_view)
from ._runtime import upload
from .ordered import add_at, set_at

GPU = Backend.GPU


def _gpu_index(index: Any) -> Any:
    """Host (NumPy) index arrays -> CuPy arrays, each a visible copy (``_runtime.upload``); device arrays
    and the rest of an index (ints, slices) are used as they are."""
    if isinstance(index, tuple):
        return tuple(_on_device(i) for i in index)
    return _on_device(index)


#: host index arrays already on the device, by value (NOTE [ Host index arrays are uploaded once per value ])
_INDEX: dict[tuple[str, tuple[int, ...], bytes], Any] = {}
_INDEX_MAX, _INDEX_BYTES = 256, 1 << 16


# NOTE [ Host index arrays are uploaded once per value ]
#     A program that indexes a GPU tensor with host data - ``pos_emb(mg.arange(T))``,
#     ``x[[0, 2]]`` - hands the kernel a NumPy array, and copying it to the device
#     waits for the stream (a sync). The same small index comes back at every
#     step, so an index array of at most 64 KiB is uploaded once per value (dtype,
#     shape, bytes) and the device copy reused: kernels only read their index
#     operands. Larger ones are copied at each call (a ``device.copy`` event).
def _on_device(i: Any) -> Any:
    if not isinstance(i, np.ndarray) or isinstance(i, cupy.ndarray):
        return i
    if i.nbytes > _INDEX_BYTES:
        return upload(i)
    return kept(_INDEX, (i.dtype.str, i.shape, i.tobytes()), lambda: upload(i), _INDEX_MAX)


@register_kernel("reshape", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_reshape")
def reshape(x: Any, shape: Any) -> Any:
    return x.reshape(shape)


@register_kernel("view", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_view")
def view(x: Any, shape: Any) -> Any:
    return x.reshape(shape)


@register_kernel("unsafe_view", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unsafe_view")
def unsafe_view(x: Any, shape: Any) -> Any:
    return x.reshape(shape)


@register_kernel("transpose", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_transpose")
def transpose(x: Any, dim0: int, dim1: int) -> Any:
    return transpose_view(cupy, x, dim0, dim1)


@register_kernel("t", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_t")
def t(x: Any) -> Any:
    """A view, also of a 0-d or 1-d array: CuPy's ``T`` of one is the array itself (cupy/_core/core.pyx
    ``if self.ndim < 2: return self``), which the dygraph layer cannot take for a view (``base`` is unset),
    so ``view()`` (``_view``: ``base`` set) stands in for it there."""
    return x.T if x.ndim >= 2 else x.view()


@register_kernel("permute", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_permute")
def permute(x: Any, dims: Any) -> Any:
    return cupy.transpose(x, dims)


@register_kernel("expand", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_expand")
def expand(x: Any, shape: Any) -> Any:
    lead = len(shape) - x.ndim
    target = tuple(x.shape[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(shape))
    return cupy.broadcast_to(x, target)


@register_kernel("squeeze", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_squeeze")
def squeeze(x: Any, dim: Any = None) -> Any:
    return squeeze_view(cupy, x, dim)


@register_kernel("unsqueeze", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unsqueeze")
def unsqueeze(x: Any, dim: int) -> Any:
    return unsqueeze_view(cupy, x, dim % (x.ndim + 1))


# The in-place view ops (``x.squeeze_(0)``: ops/shape.py) reshape the tensor itself with the same views.
for _name, _kernel in (("squeeze_", squeeze), ("unsqueeze_", unsqueeze), ("t_", t), ("transpose_", transpose)):
    register_kernel(_name, GPU, dtypes=ALL_DTYPES, name=f"gpu/cupy_{_name}")(_kernel)


@register_kernel("diagonal", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_diagonal")
def diagonal(x: Any, offset: int, dim1: int = -2, dim2: int = -1) -> Any:
    return diagonal_view(cupy, x, offset, dim1, dim2)


@register_kernel("diagonal_copy", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_diagonal_copy")
def diagonal_copy(x: Any, offset: int, dim1: int = -2, dim2: int = -1) -> Any:
    return diagonal_view(cupy, x, offset, dim1, dim2).copy()


@register_kernel("unfold", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unfold")
def unfold(x: Any, dim: int, size: int, step: int) -> Any:
    return unfold_view(cupy, x, dim, size, step)


@register_kernel("as_strided", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_as_strided")
def as_strided(x: Any, size: Any, stride: Any, storage_offset: int, self_geometry: Any) -> Any:
    return as_strided_view(cupy, x, size, stride, storage_offset - self_geometry[2])


register_kernel("as_strided_", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_as_strided_")(as_strided)


@register_kernel("copy_slices", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_copy_slices")
def copy_slices(base: Any, src: Any, positions: Any) -> Any:
    """The view's positions in its base are host data of the view's geometry: uploaded once per value."""
    return copy_slices_array(cupy, base, src, _on_device(positions))


@register_kernel("concat", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_concat")
def concat(xs: Any, dim: int = 0) -> Any:
    return concat_arrays(cupy, xs, dim)


@register_kernel("stack", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_stack")
def stack(xs: Any, dim: int = 0) -> Any:
    return cupy.stack(xs, axis=dim)


@register_kernel("split", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_split")
def split(x: Any, split_size: int, dim: int) -> tuple[Any, ...]:
    return split_views(x, split_size, dim)


@register_kernel("split_with_sizes", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_split_with_sizes")
def split_with_sizes(x: Any, split_sizes: Any, dim: int) -> tuple[Any, ...]:
    return split_views(x, split_sizes, dim)


@register_kernel("unsafe_split", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unsafe_split")
def unsafe_split(x: Any, split_size: int, dim: int) -> tuple[Any, ...]:
    return split_views(x, split_size, dim)  # the input's memory, as on the CPU (NOTE [ Pieces that are not views ])


@register_kernel("unsafe_split_with_sizes", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unsafe_split_with_sizes")
def unsafe_split_with_sizes(x: Any, split_sizes: Any, dim: int) -> tuple[Any, ...]:
    return split_views(x, split_sizes, dim)


@register_kernel("unbind", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unbind")
def unbind(x: Any, dim: int) -> tuple[Any, ...]:
    return unbind_views(x, dim)


@register_kernel("getitem", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_getitem")
def getitem(x: Any, index: Any) -> Any:
    empty = empty_read_shape(x.shape, index)
    if empty is not None:  # no element read, so no index value checked (PyTorch's)
        return cupy.empty(empty, dtype=x.dtype)
    index = _gpu_index(index)
    return _laid_out_as_torch(x, index, cupy.asarray(indexed(x, index)))


def _laid_out_as_torch(x: Any, index: Any, r: Any) -> Any:
    """CuPy's gather ``r = x[index]`` (row-major) in PyTorch CUDA's layout (NOTE [ A gather's result is laid
    out as PyTorch's ]): copied once into its strides where they differ (``x.permute(2, 1, 0)[[1, 0, 1]]``),
    as it is where they agree (every gather from a row-major ``x``)."""
    if r.base is not None:  # a view: basic indexing, no gather (its new dimensions' strides PyTorch's)
        return new_dims_strided(cupy, x, index, r)
    return laid_out_as_torch(cupy, x, index, r, cuda=True)


@register_kernel("masked_select", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_masked_select")
def masked_select(x: Any, index: Any) -> Any:
    """A gather at the mask's True positions, made on the device before (one count read, PyTorch's sync)."""
    return getitem(x, index)


@register_kernel("index_select", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_index_select")
def index_select(x: Any, index: Any, dim: int) -> Any:
    """One gather along ``dim`` (CuPy's advanced indexing: a new row-major array); a host index goes up once
    per value, a GPU one is used where it is (its range checked on the device before)."""
    idx = _on_device(index)
    if x.ndim == 0:
        return x.reshape(1)[idx].reshape(())
    return x[(slice(None),) * dim + (idx,)]


@register_kernel("diag_embed", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_diag_embed")
def diag_embed(x: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """Zeros with ``x`` written along the diagonal, on the device (the CPU kernel's body on CuPy)."""
    return diag_embed_arrays(cupy, x, offset, dim1 % (x.ndim + 1), dim2 % (x.ndim + 1))


def _slices_at(x: Any, index: Any, dim: int) -> tuple[Any, Any]:
    """``x`` (a 0-d one as one element) and the index of its slices at ``index`` along ``dim``."""
    idx = _on_device(index)
    return (x.reshape(1), (idx,)) if x.ndim == 0 else (x, (slice(None),) * dim + (idx,))


@register_kernel("index_add", GPU, dtypes=FLOAT_DTYPES + (int32, int64), name="gpu/cupyx_index_add")
def index_add(x: Any, source: Any, index: Any, dim: int, alpha: Any = 1) -> Any:
    """A row-major copy of ``x`` with ``alpha * source`` added at the slices (CuPy's atomic scatter-add:
    repeats add up; in order under the deterministic mode: ``add_at``)."""
    out = cupy.array(x, order="C", copy=True)
    src = source if alpha == 1 else (source * alpha).astype(x.dtype, copy=False)
    target, where = _slices_at(out, index, dim)
    add_at(target, where, src.reshape(-1) if x.ndim == 0 else src)
    return out


@register_kernel("index_copy", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_index_copy")
def index_copy(x: Any, source: Any, index: Any, dim: int) -> Any:
    """A row-major copy of ``x`` with ``source`` written at the slices (a repeated index: one of the writes
    wins, as in PyTorch CUDA; the last under the deterministic mode: ``set_at``)."""
    out = cupy.array(x, order="C", copy=True)
    target, where = _slices_at(out, index, dim)
    set_at(target, where, source.reshape(-1) if x.ndim == 0 else source)
    return out


def _fill_slices(x: Any, value: Any, index: Any, dim: int) -> Any:
    out = x.copy(order="K")  # PyTorch's clone: the input's layout
    target, where = _slices_at(out, index, dim)
    target[where] = value
    return out


@register_kernel("index_fill", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_index_fill")
def index_fill(x: Any, index: Any, dim: int, value: Any = 0) -> Any:
    """A copy of ``x`` with the slices set to the number ``value`` (passed by value: no host data)."""
    return _fill_slices(x, value, index, dim)


@register_kernel("index_fill_tensor", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_index_fill_tensor")
def index_fill_tensor(x: Any, value: Any, index: Any, dim: int) -> Any:
    """A copy of ``x`` with the slices set to the 0-d ``value``, read where it is (on the device)."""
    return _fill_slices(x, value, index, dim)


@register_kernel("getitem_grad", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_getitem_grad")
def getitem_grad(grad: Any, index: Any, shape: Any) -> Any:
    out = cupy.zeros(shape, dtype=grad.dtype)
    if grad.size:
        add_at(*index_target(out, _gpu_index(index)), grad)
    return out


@register_kernel("index_put", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_index_put")
def index_put(x: Any, values: Any, index: Any, accumulate: bool = False) -> Any:
    """A copy of ``x`` with ``values`` written (one of repeated writes wins, as in PyTorch CUDA) or added
    (CuPy's atomic scatter-add) at ``index``. One bool mask over the leading dims with a 0-d value (``x[mask]
    = 0.5``) is a ``where``: CuPy's mask write would read the mask's count back (a sync). A 0-d mask comes
    from the host (``_normalize_index`` reads it there) and goes up first: CuPy's ``where``, an elementwise
    kernel, refuses a NumPy operand."""
    mask = index[0] if len(index) == 1 and getattr(index[0], "dtype", None) == np.bool_ else None
    if mask is not None and not accumulate and values.ndim == 0 and mask.ndim <= x.ndim:
        return cupy.where(_on_device(mask).reshape(mask.shape + (1,) * (x.ndim - mask.ndim)), values, x)
    out = x.copy(order="K")
    if empty_read_shape(x.shape, index) is not None:  # nothing written
        return out
    target, where = index_target(out, _gpu_index(index))
    if accumulate:
        add_at(target, where, values)
    else:
        set_at(target, where, values)
    return out


@register_kernel("embedding", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_embedding")
def embedding(weight: Any, indices: Any, padding_idx: int = -1, scale_grad_by_freq: bool = False) -> Any:
    """One gather (the indices were checked on the device before: ``devices.check_range``)."""
    return weight[indices]


@register_kernel("embedding_dense_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_embedding_dense_backward")
def embedding_dense_backward(grad: Any, indices: Any, num_weights: int, padding_idx: int = -1,
                             scale_grad_by_freq: bool = False) -> Any:
    """Zeros, then each row of ``grad`` added at its index (CuPy's atomic scatter-add); with
    ``scale_grad_by_freq`` each row divided first by its index's count (a ``bincount`` on the device); in order
    under the deterministic mode (``add_at``)."""
    dim = grad.shape[-1]
    out = cupy.zeros((num_weights, dim), dtype=grad.dtype)
    rows = grad.reshape(-1, dim)
    if scale_grad_by_freq:
        rows = rows * frequency_scale(cupy, indices, num_weights, grad.dtype)
    add_at(out, indices.reshape(-1), rows)
    if padding_idx >= 0:
        out[padding_idx] = 0
    return out


# NOTE [ A scatter max of floats goes through ordered integer keys ]
#     CuPy's ``cupyx.scatter_max``/``scatter_min`` call ``atomicMax``/``atomicMin``, which CUDA has for integers
#     only; CuPy defines its own for float and double (cupy/_core/include/cupy/atomics.cuh), comparing with
#     ``fmaxf``/``fminf`` - for double too, so every element an update reached is stored rounded to float32
#     (embedding_bag's max of float64 then found no row equal to its bag's maximum: all zeros) - and a NaN loses
#     to a number, where NumPy's ``maximum.at`` and PyTorch keep it; float16 it refuses. So a float scatter
#     max/min runs on int64 keys in the floats' order (a float64's bits, a negative one's magnitude bits
#     flipped), every NaN given the largest int64 for a maximum and the smallest for a minimum, with CUDA's
#     exact 64-bit integer atomics.
_MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)
_NAN_WINS = {"max": np.int64(np.iinfo(np.int64).max), "min": np.int64(np.iinfo(np.int64).min)}


def _order_keys(x: Any, nan_key: Any) -> Any:
    """The int64 keys of ``x``'s float values, ``a < b`` exactly where the keys are; every NaN's is ``nan_key``."""
    bits = x.astype(np.float64).view(np.int64)
    return cupy.where(cupy.isnan(x), nan_key, cupy.where(bits < 0, bits ^ _MAGNITUDE, bits))


def _from_order_keys(keys: Any, dtype: Any) -> Any:
    """The floats of ``dtype`` whose keys ``_order_keys`` gave (the flip is its own inverse; either NaN key
    decodes to a NaN, made the positive one)."""
    d = cupy.where(keys < 0, keys ^ _MAGNITUDE, keys).view(np.float64)
    return cupy.where(cupy.isnan(d), np.nan, d).astype(dtype)


class _DeviceScatter:
    """CuPy's unbuffered scatters (``cupyx.scatter_add``/``scatter_max``/``scatter_min``: atomics, one launch
    each), under the names of NumPy's ``ufunc.at`` that ``embedding_bag_arrays`` calls; a float maximum or
    minimum on ordered int64 keys (NOTE [ A scatter max of floats goes through ordered integer keys ])."""

    @staticmethod
    def add(a: Any, index: Any, v: Any) -> None:
        add_at(a, index, v)

    @staticmethod
    def maximum(a: Any, index: Any, v: Any) -> None:
        import cupyx

        _extremum(cupyx.scatter_max, _NAN_WINS["max"], a, index, v)

    @staticmethod
    def minimum(a: Any, index: Any, v: Any) -> None:
        import cupyx

        _extremum(cupyx.scatter_min, _NAN_WINS["min"], a, index, v)


def _extremum(scatter: Any, nan_key: Any, a: Any, index: Any, v: Any) -> None:
    """``scatter`` (CuPy's atomic max or min) into ``a``, through ordered int64 keys when ``a`` holds floats,
    a NaN's key ``nan_key`` (the one that wins)."""
    if a.dtype.kind != "f":
        scatter(a, index, v)
        return
    keys = _order_keys(a, nan_key)
    scatter(keys, index, _order_keys(cupy.asarray(v, dtype=a.dtype), nan_key))
    a[...] = _from_order_keys(keys, a.dtype)


@register_kernel("embedding_bag", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_embedding_bag")
def embedding_bag(weight: Any, indices: Any, offsets: Any, per_sample_weights: Any = None, mode: int = 1,
                  scale_grad_by_freq: bool = False, include_last_offset: bool = False, padding_idx: int = -1) -> Any:
    """Each index's bag by a ``searchsorted`` of the offsets, the rows gathered, one scatter into the bags."""
    return embedding_bag_arrays(cupy, _DeviceScatter, weight, indices, offsets, per_sample_weights, mode,
                                include_last_offset, padding_idx)[0]


@register_kernel("_embedding_bag_layout", GPU, dtypes=(int32, int64), name="gpu/cupy_embedding_bag_layout")
def embedding_bag_layout(indices: Any, offsets: Any, mode: int = 1, scale_grad_by_freq: bool = False,
                         include_last_offset: bool = False, padding_idx: int = -1, num_weights: int = 0) -> Any:
    bag, scale = embedding_bag_layout_arrays(cupy, indices, offsets, mode, scale_grad_by_freq, include_last_offset,
                                             padding_idx, num_weights)
    return bag.astype(np.int64), scale


@register_kernel("_embedding_bag_argmax", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_embedding_bag_argmax")
def embedding_bag_argmax(weight: Any, indices: Any, offsets: Any, include_last_offset: bool = False,
                         padding_idx: int = -1) -> Any:
    return embedding_bag_arrays(cupy, _DeviceScatter, weight, indices, offsets, None, 2, include_last_offset,
                                padding_idx)[1]
