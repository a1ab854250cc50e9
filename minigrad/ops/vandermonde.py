"""Vandermonde matrices: ``vander`` (``torch.vander``), the powers of a vector's elements, one row each.

``vander(x, N)`` has ``x[i] ** (N - 1 - j)`` in row ``i``, column ``j`` (``increasing=True``:
``x[i] ** j``), so ``vander(x, N) @ c`` evaluates the polynomial with coefficients ``c`` at
every ``x[i]``. A composite, built as PyTorch builds it: a column of ones written into an
empty matrix, ``x`` copied into the other columns, their running product (``cumprod``) copied
back over them, and the columns flipped for decreasing powers - so the graph is PyTorch's
(``FlipBackward0`` over two ``CopySlices``), in-place writes through views included.

NOTE [ vander's backward is refused, as PyTorch's ]
    The ``cumprod`` saves its input, a view of the matrix, which the copy
    of its result then overwrites: a backward through ``vander`` (of two
    columns or more) finds the saved tensor changed and raises, in PyTorch as
    here. The forward and its graph are PyTorch's; the gradient is not
    available in either.

Example:
    >>> import minigrad as mg
    >>> mg.vander(mg.tensor([1, 2, 3]), 3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from ..creation import empty
from ..tensor import Tensor
from ._checks import check_bool, check_int, check_tensor
from .cumulative import cumprod
from .flip import flip
from .indexing import select
from .shape import getitem, unsqueeze

__all__ = ["vander"]


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-D ``x`` with ``N`` columns (``len(x)`` by default): powers
    ``N - 1 .. 0`` of each element (``increasing``: ``0 .. N - 1``). Integer and bool tensors give int64,
    as ``cumprod`` makes them."""
    check_tensor("vander", "x", 0, x)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else check_int("vander", "N", 1, N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    check_bool("vander", "increasing", 2, increasing)
    dtype = x.dtype if x.dtype.is_floating else _dt.int64
    result = empty((x.shape[0], n), dtype=dtype, device=x.device)
    if n > 0:
        select(result, 1, 0).fill_(1)
    if n > 1:
        rest = (slice(None), slice(1, None))
        getitem(result, rest).copy_(unsqueeze(x, 1))
        getitem(result, rest).copy_(cumprod(getitem(result, rest), 1))
    return result if increasing else flip(result, [1])
