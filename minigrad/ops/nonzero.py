"""Positions of the non-zero elements: ``nonzero`` (an op, no gradient), ``argwhere``, ``count_nonzero``,
and the one-argument form ``where(condition)``.

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
from .math import ne
from .math import where as _where_op
from .reduce import sum as _sum
from .registry import Attr, defop
from .shape import getitem

__all__ = ["nonzero", "argwhere", "count_nonzero", "where"]


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
