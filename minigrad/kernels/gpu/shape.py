"""GPU kernels of the shape and indexing ops: CuPy's own views and copies (library kernels).

These move no arithmetic, so they are not hand-written; having them on the
GPU keeps backward formulas (reshape, expand, unsqueeze, getitem_grad...)
on the device instead of falling back to the CPU.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import ALL_DTYPES
from ..key import Backend
from ..registry import register_kernel
from ..strided import concat_arrays, copy_slices_array, diagonal_view, squeeze_view, transpose_view, unfold_view

GPU = Backend.GPU


def _gpu_index(index: Any) -> Any:
    """NumPy index arrays -> CuPy arrays (the rest of an index is device-independent)."""
    if isinstance(index, tuple):
        return tuple(cupy.asarray(i) if isinstance(i, np.ndarray) else i for i in index)
    return cupy.asarray(index) if isinstance(index, np.ndarray) else index


@register_kernel("reshape", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_reshape")
def reshape(x: Any, shape: Any) -> Any:
    return x.reshape(shape)


@register_kernel("transpose", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_transpose")
def transpose(x: Any, dim0: int, dim1: int) -> Any:
    return transpose_view(cupy, x, dim0, dim1)


@register_kernel("t", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_t")
def t(x: Any) -> Any:
    return x.T  # a view, also of a 0-d or 1-d array


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
    return cupy.expand_dims(x, dim % (x.ndim + 1))


@register_kernel("diagonal", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_diagonal")
def diagonal(x: Any, offset: int) -> Any:
    return diagonal_view(cupy, x, offset)


@register_kernel("unfold", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unfold")
def unfold(x: Any, dim: int, size: int, step: int) -> Any:
    return unfold_view(cupy, x, dim, size, step)


@register_kernel("copy_slices", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_copy_slices")
def copy_slices(base: Any, src: Any, positions: Any) -> Any:
    return copy_slices_array(cupy, base, src, positions)


@register_kernel("concat", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_concat")
def concat(xs: Any, dim: int = 0) -> Any:
    return concat_arrays(cupy, xs, dim)


@register_kernel("stack", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_stack")
def stack(xs: Any, dim: int = 0) -> Any:
    return cupy.stack(xs, axis=dim)


@register_kernel("getitem", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_getitem")
def getitem(x: Any, index: Any) -> Any:
    return cupy.asarray(x[_gpu_index(index)])


@register_kernel("getitem_grad", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_getitem_grad")
def getitem_grad(grad: Any, index: Any, shape: Any) -> Any:
    import cupyx

    out = cupy.zeros(shape, dtype=grad.dtype)
    cupyx.scatter_add(out, _gpu_index(index), grad)
    return out
