"""Truth values: ``logical_not/and/or/xor``, ``all``, ``any``; and comparing whole tensors: ``isclose``,
``allclose``, ``equal`` (no gradient: they compare values).

Every element counts as True when it is non-zero. The results are bool
tensors with no gradient; the functions are composites of ``ne``, ``eq``,
``where`` and ``sum``.

Example:
    >>> import minigrad as mg
    >>> mg.logical_and(mg.tensor([1, 0, 2]), mg.tensor([True, True, False])).tolist()
    [True, False, False]
    >>> mg.tensor([[1, 0], [1, 1]]).all(dim=1).tolist()
    [False, True]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..kernels.backends import to_numpy
from ..tensor import Tensor
from ._checks import check_bool, check_dims, check_tensor
from ._constants import constant
from .math import eq, gt, ne, where
from .reduce import sum as _sum

__all__ = ["logical_not", "logical_and", "logical_or", "logical_xor", "all", "any"]


def _truth(op: str, name: str, pos: int, v: Any) -> Tensor:
    """``v != 0`` as a bool tensor (``v`` itself if it is one)."""
    check_tensor(op, name, pos, v)
    return v if v.dtype is _dt.bool_ else ne(v, 0)


def logical_not(input: Tensor) -> Tensor:
    """True where ``input`` is zero."""
    return eq(_truth("logical_not", "input", 0, input), False)


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    """True where both are non-zero (broadcasting)."""
    a, b = _truth("logical_and", "input", 0, input), _truth("logical_and", "other", 1, other)
    return where(a, b, False)


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    """True where either is non-zero (broadcasting)."""
    a, b = _truth("logical_or", "input", 0, input), _truth("logical_or", "other", 1, other)
    return where(a, True, b)


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """True where exactly one is non-zero (broadcasting)."""
    a, b = _truth("logical_xor", "input", 0, input), _truth("logical_xor", "other", 1, other)
    return ne(a, b)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether every element (over ``dim``; all when ``None``) is non-zero, as a bool tensor."""
    t = _truth("all", "input", 0, input)
    dim, keepdim = check_dims("all", "dim", 1, dim), check_bool("all", "keepdim", 2, keepdim)
    return eq(_sum(logical_not(t), dim=dim, keepdim=keepdim), 0)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Whether some element (over ``dim``; all when ``None``) is non-zero, as a bool tensor."""
    t = _truth("any", "input", 0, input)
    dim, keepdim = check_dims("any", "dim", 1, dim), check_bool("any", "keepdim", 2, keepdim)
    return gt(_sum(t, dim=dim, keepdim=keepdim), 0)


# -- comparing whole tensors: isclose, equal, allclose ---------------------------------------------

def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` as a bool tensor (no gradient).

    Composite (no graph: it compares values).
    """
    check_tensor("isclose", "input", 0, input)
    check_tensor("isclose", "other", 1, other)
    res = np.isclose(to_numpy(input._data), to_numpy(other._data), rtol=rtol, atol=atol, equal_nan=equal_nan)
    return constant(res, input, _dt.bool_)


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both have the same shape and the same values (``torch.equal``; NaN is never equal).

    Composite (no graph).
    """
    check_tensor("equal", "input", 0, input)
    check_tensor("equal", "other", 1, other)
    return tuple(input.shape) == tuple(other.shape) and bool(np.array_equal(to_numpy(input._data), to_numpy(other._data)))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see ``isclose``). Composite (``isclose``)."""
    return bool(np.all(to_numpy(isclose(input, other, rtol, atol, equal_nan)._data)))


__all__ += ['allclose', 'isclose', 'equal']
