"""Positions of the non-zero elements: ``nonzero`` (an op, no gradient), ``argwhere``, ``count_nonzero``,
and the one-argument form ``where(condition)``; and ``unravel_index``, which turns flat positions (an
``argmax`` of a flattened tensor) into coordinates.

``nonzero(x)`` is an int64 ``(count, ndim)`` tensor, one row of coordinates
per non-zero element in row-major order; ``as_tuple=True`` gives one 1-D
tensor per dim instead, which is what ``where(condition)`` returns and what
indexing takes (``x[mg.nonzero(m, as_tuple=True)]`` is ``x[m]``). The count
depends on the values, so it is read on the host first and given to the op
(PyTorch synchronises with the GPU here as well); on a GPU the rows are then
filled on the device, nothing else read back.

Example:
    >>> import minigrad as mg
    >>> mg.nonzero(mg.tensor([[0, 3], [5, 0]])).tolist()
    [[0, 1], [1, 0]]
    >>> [t.tolist() for t in mg.where(mg.tensor([0.0, 2.0, 1.0]) > 0.5)]
    [[1, 2]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from .. import dtypes as _dt
from ..kernels.array_kernels import nonzero_count
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_dims, check_int, check_tensor
from ._constants import constant
from .division import floor_divide, remainder
from .math import ne
from .math import where as _where_op
from .reduce import sum as _sum
from .registry import Attr, defop
from .shape import getitem, unbind, unsqueeze

__all__ = ["nonzero", "argwhere", "count_nonzero", "where", "unravel_index"]


def infer_nonzero(op: str, x: Any, count: int) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``(count, ndim)``, int64 - the number of non-zero elements, read by the caller."""
    return (count, x.ndim), np.dtype(np.int64)


@register_kernel("nonzero", Backend.CPU, dtypes=ALL_DTYPES)
def nonzero_cpu(x: np.ndarray, count: int) -> np.ndarray:
    return np.argwhere(x).astype(np.int64, copy=False)


nonzero_op = defop("nonzero", inputs=("x",), attrs=(Attr("count", 0, check_int),), infer_meta=infer_nonzero,
                   differentiable=False, doc="the coordinates of the count non-zero elements, one row each (int64)")


def _coordinates(op: str, input: Tensor) -> Tensor:
    """The ``nonzero`` op, given the number of non-zero elements read first (``nonzero_count``: from a GPU one
    int64 copied back, the sync PyTorch's ``nonzero`` makes) so that the GPU kernel fills that many rows on
    the device without reading anything else."""
    check_tensor(op, "input", 0, input)
    return nonzero_op(input, nonzero_count(input._data))


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """``torch.nonzero``: an ``(n, ndim)`` int64 tensor of coordinates, or with ``as_tuple=True`` a tuple
    of ``ndim`` 1-D tensors (a 0-d input counts as 1-D there, as in PyTorch)."""
    coords = _coordinates("nonzero", input)
    if not as_tuple:
        return coords
    if input.ndim == 0:  # one position, 0, if the scalar is non-zero
        return (constant(np.zeros(coords.shape[0], dtype=np.int64), input, _dt.int64),)
    return tuple(getitem(coords, (slice(None), k)) for k in range(input.ndim))


def argwhere(input: Tensor) -> Tensor:
    """``torch.argwhere``: the same as ``nonzero(input)``."""
    return _coordinates("argwhere", input)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """``torch.count_nonzero``: the number of non-zero elements over ``dim`` (all when ``None``), int64."""
    check_tensor("count_nonzero", "input", 0, input)
    dim = check_dims("count_nonzero", "dim", 1, dim)
    return _sum(ne(input, 0), dim=dim)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """``torch.where``: ``input`` where ``condition`` else ``other`` (the ``where`` op), or with the condition
    alone its non-zero positions, ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(check_tensor("where", "input", 0, condition), as_tuple=True)
    if input is None or other is None:
        raise TypeError("where(): expected both 'input' and 'other', or neither (where(condition))")
    return _where_op(condition, input, other)


where.name = "where"  # type: ignore[attr-defined]  (as the op's, for code that reads it)


def _unravel_shape(shape: Any) -> tuple[int, ...]:
    """``unravel_index``'s ``shape``: an int or a sequence of ints, none negative, refused in PyTorch's words."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, Sequence):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(int(d) for d in shape)}")
    return tuple(int(d) for d in shape)


def unravel_index(indices: Tensor, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of ``shape`` of each flat (row-major) index (``torch.unravel_index``): one
    int64 tensor per dim of ``shape``, each of ``indices``' shape. Composite, as PyTorch's: ``indices //
    strides % shape`` on a new last dim, then unbound - so an index past the end, or a negative one, wraps
    around as the arithmetic makes it."""
    if not isinstance(indices, Tensor):  # PyTorch's first look at it is indices.is_complex()
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.dtype.is_floating or indices.dtype is _dt.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    dims = _unravel_shape(shape)
    if 0 in dims and indices.numel():  # (PyTorch's integer division by a zero stride or size)
        raise RuntimeError("ZeroDivisionError")
    strides = [int(np.prod(dims[k + 1:], dtype=np.int64)) for k in range(len(dims))] or [1]
    step = constant(np.maximum(np.array(strides, dtype=np.int64), 1), indices, _dt.int64)
    sizes = constant(np.maximum(np.array(dims, dtype=np.int64), 1), indices, _dt.int64)  # (1 for a 0: nothing to map)
    return unbind(remainder(floor_divide(unsqueeze(indices, -1), step), sizes), -1)
