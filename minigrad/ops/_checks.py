"""Attribute checkers for the API layer: normalise or raise ``TypeError``/``ValueError``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import DType, is_floating_np
from ..errors import OutOfRangeError, ShapeError
from ..kernels.infer_meta import scalar_type_name
from ..tensor import Tensor
from .registry import type_name


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def check_bool(op: str, name: str, pos: int, v: Any) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be bool, but got {type_name(v)}")
    return v


def check_opt_dtype(op: str, name: str, pos: int, v: Any) -> Any:
    """A reduction's ``dtype=``: None, or the dtype to read the input in and to return."""
    if v is not None and not isinstance(v, DType):
        raise TypeError(f"{op}(): argument '{name}' must be a minigrad dtype, but got {type_name(v)}")
    return v


def check_int(op: str, name: str, pos: int, v: Any) -> int:
    if type(v) is int:
        return v
    if not _is_int(v):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be int, but got {type_name(v)}")
    return int(v)


def _got(v: Any) -> str:
    """``str``, or for a sequence the first element that is not an int (``tuple with element 1 of type str``)."""
    if isinstance(v, (tuple, list)):
        for i, d in enumerate(v):
            if not _is_int(d):
                return f"{type_name(v)} with element {i} of type {type_name(d)}"
    return type_name(v)


def _plain_ints(v: Any) -> bool:
    """Whether ``v`` is a tuple of Python ints (no bool, no NumPy integer): the common call, kept as it is."""
    if type(v) is not tuple:
        return False
    for d in v:
        if type(d) is not int:
            return False
    return True


def check_dims(op: str, name: str, pos: int, v: Any) -> Any:
    """``None``, an int, or a tuple/list of ints (kept as a tuple)."""
    if v is None or type(v) is int or _plain_ints(v):
        return v
    if _is_int(v):
        return int(v)
    if isinstance(v, (tuple, list)) and all(_is_int(d) for d in v):
        return tuple(int(d) for d in v)
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be None, int or a tuple of ints, but got {_got(v)}")


def check_shape(op: str, name: str, pos: int, v: Any) -> tuple[int, ...]:
    if _plain_ints(v):
        return v
    if _is_int(v):
        return (int(v),)
    if isinstance(v, (tuple, list)) and all(_is_int(d) for d in v):
        return tuple(int(d) for d in v)
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a tuple of ints, but got {_got(v)}")


def check_pair(op: str, name: str, pos: int, v: Any) -> tuple[int, int]:
    if _is_int(v):
        return (int(v), int(v))
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(_is_int(d) for d in v):
        return (int(v[0]), int(v[1]))
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be an int or a pair of ints, but got {v!r}")


def check_positive_pair(op: str, name: str, pos: int, v: Any) -> tuple[int, int]:
    p = check_pair(op, name, pos, v)
    if p[0] <= 0 or p[1] <= 0:
        raise RuntimeError(f"{op}(): argument '{name}' (position {pos}) must be positive, but got {v!r}")
    return p


def check_nonneg_pair(op: str, name: str, pos: int, v: Any) -> tuple[int, int]:
    p = check_pair(op, name, pos, v)
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"{op}(): argument '{name}' (position {pos}) must be non-negative, but got {v!r}")
    return p


def check_number_or_none(op: str, name: str, pos: int, v: Any) -> Any:
    if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)):
        return v
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number or None, but got {type_name(v)}")


def check_reduction(op: str, name: str, pos: int, v: Any) -> str:
    if v not in ("mean", "sum", "none"):
        raise ShapeError(f"{v} is not a valid value for reduction")  # PyTorch's words (a ValueError there)
    return v


def check_tensor(op: str, name: str, pos: int, v: Any) -> Tensor:
    """``v``, or ``TypeError`` unless it is a Tensor (``max(): argument 'input' (position 0) must be Tensor, ...``)."""
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, but got {type_name(v)}")
    return v


def check_tensors(op: str, **named: Any) -> None:
    """``check_tensor`` for each named argument, positions counted from 0 in the order given."""
    for pos, (name, v) in enumerate(named.items()):
        check_tensor(op, name, pos, v)


def wrap_dim(op: str, dim: int, ndim: int) -> int:
    """``dim`` of an ``ndim``-D tensor as an axis in ``[0, ndim)``, a negative one counted from the end.

    A 0-d tensor takes ``dim`` 0 and -1, as in PyTorch. Outside that range
    ``ValueError``, in PyTorch's words.

    Example:
        >>> wrap_dim("sum", -1, 3), wrap_dim("sum", 0, 0)
        (2, 0)
    """
    nd = max(ndim, 1)
    if not -nd <= dim < nd:
        raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return dim % nd


def refuse_unless_floating(kernel_name: str, *arrays: np.ndarray) -> None:
    """PyTorch's refusal of a dtype its kernel has no case for (``"frac_cpu" not implemented for 'Long'``)."""
    for a in arrays:
        if not is_floating_np(a.dtype):
            raise NotImplementedError(f'"{kernel_name}" not implemented for \'{scalar_type_name(a.dtype)}\'')
