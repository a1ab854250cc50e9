"""Array bodies of the strided views and of the write through a view, for any array module.

``diagonal`` and ``unfold`` are views: their result shares the input's memory,
with a shape and strides of its own, so a change through the view reaches the
base (PyTorch's ``as_strided`` geometry). NumPy and CuPy both take such a
geometry (``xp.lib.stride_tricks.as_strided``), so the CPU kernels
(``ops/views.py``) and the GPU kernels (``kernels/gpu/shape.py``) run these same
bodies with ``np`` or ``cupy``. A view kernel that fell back to the CPU would
return a copy on the GPU, and an in-place change through it would be lost.

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

__all__ = ["copy_slices_array", "diagonal_length", "diagonal_view", "unfold_view"]


def diagonal_length(rows: int, cols: int, offset: int) -> int:
    """How many elements the diagonal ``offset`` of a ``rows x cols`` matrix has."""
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def diagonal_view(xp: Any, x: Any, offset: int) -> Any:
    """The diagonal of the last two dims as the last dim, writable (NumPy's own ``diagonal`` is read-only)."""
    n = diagonal_length(x.shape[-2], x.shape[-1], offset)
    start = x[..., max(-offset, 0):, max(offset, 0):] if n else x
    step = x.strides[-2] + x.strides[-1]  # one row down and one column right
    return xp.lib.stride_tricks.as_strided(start, x.shape[:-2] + (n,), x.strides[:-2] + (step,))


def unfold_view(xp: Any, x: Any, dim: int, size: int, step: int) -> Any:
    """Every window of ``size`` elements along ``dim``, ``step`` apart, as a new last dim."""
    shape = list(x.shape)
    strides = list(x.strides)
    shape[dim] = (shape[dim] - size) // step + 1
    strides[dim] *= step
    return xp.lib.stride_tricks.as_strided(x, tuple(shape) + (size,), tuple(strides) + (x.strides[dim],))


def copy_slices_array(xp: Any, base: Any, src: Any, positions: Any) -> Any:
    """A copy of ``base`` with the elements at the flat ``positions`` (a NumPy array) replaced by ``src``."""
    out = xp.array(base, copy=True, order="C")
    flat = out.reshape(-1)
    flat[xp.asarray(positions.reshape(-1))] = xp.broadcast_to(src, positions.shape).reshape(-1)
    return out
