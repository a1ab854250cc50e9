"""Truth values: ``logical_not/and/or/xor``, ``all``, ``any``.

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

from .. import dtypes as _dt
from ..tensor import Tensor
from ._checks import check_bool, check_dims
from .math import eq, gt, ne, where
from .reduce import sum as _sum
from .registry import type_name

__all__ = ["logical_not", "logical_and", "logical_or", "logical_xor", "all", "any"]


def _truth(op: str, name: str, pos: int, v: Any) -> Tensor:
    """``v != 0`` as a bool tensor (``v`` itself if it is one)."""
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, but got {type_name(v)}")
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
