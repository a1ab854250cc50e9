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

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..kernels.backends import to_numpy
from ..kernels.infer_meta import scalar_type_name
from ..tensor import Tensor
from ._checks import check_bool, check_dims, check_tensor
from .math import abs, add, eq, gt, le, mul, ne, sub, where
from .special_values import isfinite, isnan
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
    """Elementwise ``|input - other| <= atol + |rtol * other|`` (or equal: infinities of one sign) as a bool tensor.

    Composite, as PyTorch's ``isclose``, in the inputs' dtype on their device (an integer or bool pair in the
    default float dtype): ``input == other``, or both NaN with ``equal_nan``, or a finite error within the
    allowed one. No graph: it compares values (run under ``no_grad``).
    """
    check_tensor("isclose", "input", 0, input)
    check_tensor("isclose", "other", 1, other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match {scalar_type_name(other.dtype)}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol}")
    with no_grad():
        close = eq(input, other)
        floating = input.dtype.is_floating
        if equal_nan and floating:
            close = logical_or(close, logical_and(isnan(input), isnan(other)))
        if rtol == 0 and atol == 0:
            return close
        a, b = (input, other) if floating else (input.to(_dt.get_default_dtype()), other.to(_dt.get_default_dtype()))
        allowed = add(abs(mul(b, rtol)), atol)
        actual = abs(sub(a, b))
        return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)))


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both have the same shape and the same values (``torch.equal``; NaN is never equal): one read of a
    bool from the device, as PyTorch's.

    Composite (no graph).
    """
    check_tensor("equal", "input", 0, input)
    check_tensor("equal", "other", 1, other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(to_numpy(all(eq(input.detach(), other.detach()))._data))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see ``isclose``): one read of a bool. Composite."""
    return bool(to_numpy(all(isclose(input, other, rtol, atol, equal_nan))._data))


__all__ += ['allclose', 'isclose', 'equal']
