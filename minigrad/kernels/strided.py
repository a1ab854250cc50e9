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

from .infer_meta import is_legacy_empty, split_pieces

__all__ = ["concat_arrays", "copy_slices_array", "diagonal_length", "diagonal_view", "split_views", "squeeze_view",
           "strided", "transpose_view", "unbind_views", "unfold_view"]


def diagonal_length(rows: int, cols: int, offset: int) -> int:
    """How many elements the diagonal ``offset`` of a ``rows x cols`` matrix has."""
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def strided(xp: Any, x: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    """A view of ``x``'s memory with its own shape and strides (bytes), whose ``base`` is set
    (NOTE [ A view kernel's result has a base ])."""
    return xp.lib.stride_tricks.as_strided(x, shape, strides).view()


def diagonal_view(xp: Any, x: Any, offset: int) -> Any:
    """The diagonal of the last two dims as the last dim, writable (NumPy's own ``diagonal`` is read-only)."""
    n = diagonal_length(x.shape[-2], x.shape[-1], offset)
    start = x[..., max(-offset, 0):, max(offset, 0):] if n else x
    step = x.strides[-2] + x.strides[-1]  # one row down and one column right
    return strided(xp, start, x.shape[:-2] + (n,), x.strides[:-2] + (step,))


def unfold_view(xp: Any, x: Any, dim: int, size: int, step: int) -> Any:
    """Every window of ``size`` elements along ``dim``, ``step`` apart, as a new last dim."""
    shape = list(x.shape)
    strides = list(x.strides)
    shape[dim] = (shape[dim] - size) // step + 1
    strides[dim] *= step
    return strided(xp, x, tuple(shape) + (size,), tuple(strides) + (x.strides[dim],))


def transpose_view(xp: Any, x: Any, dim0: int, dim1: int) -> Any:
    """``x`` with two dims swapped; a 0-d array is its own transpose (``t()`` of a 0-d tensor, as PyTorch's)."""
    return x.view() if x.ndim == 0 else xp.swapaxes(x, dim0, dim1)


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
    """A copy of ``base`` with the elements at the flat ``positions`` (a NumPy array) replaced by ``src``."""
    out = xp.array(base, copy=True, order="C")
    flat = out.reshape(-1)
    flat[xp.asarray(positions.reshape(-1))] = xp.broadcast_to(src, positions.shape).reshape(-1)
    return out
