"""Running totals along one dim: ``cumsum`` and ``cumprod``.

``out[i] = x[0] + ... + x[i]`` (``cumsum``) or ``x[0] * ... * x[i]``
(``cumprod``). Integer and bool inputs give int64, as in PyTorch; ``dtype=``
casts the input first.

Backward formulas, with ``rcumsum(v) = flip(cumsum(flip(v)))`` (the sum from
``i`` to the end):

- ``cumsum``: every ``out[j]`` with ``j >= i`` contains ``x[i]`` once, so
  ``dx = rcumsum(grad)``;
- ``cumprod``: ``d out[j] / d x[i] = out[j] / x[i]`` for ``j >= i`` while no
  ``x`` is 0, so ``dx = rcumsum(grad * out) / x`` up to the first zero. At the
  first zero ``z`` the division is undefined; there
  ``dx[z] = prod(x[:z]) * sum_{j >= z} grad[j] * prod(x[z+1 : j+1])``, and
  every position after it gets 0 (each of its products contains ``x[z] = 0``).
  Both parts are written with ops, so the formula is itself differentiable.

Example:
    >>> import minigrad as mg
    >>> mg.cumsum(mg.tensor([1, 2, 3]), 0).tolist()
    [1, 3, 6]
    >>> mg.cumprod(mg.tensor([1.0, 2.0, 3.0]), 0).tolist()
    [1.0, 2.0, 6.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_int
from .math import cast
from .registry import Attr, defop, type_name

__all__ = ["cumsum", "cumprod"]


def infer_cumulative(op: str, x: Any, dim: int) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``x``'s shape; integer and bool inputs accumulate in int64."""
    nd = max(x.ndim, 1)
    if not -nd <= dim < nd:
        raise ValueError(f"{op}(): dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return tuple(x.shape), (np.dtype(np.int64) if x.dtype.kind in "biu" else x.dtype)


def _cumulative_kernel(ufunc: np.ufunc, name: str) -> Any:
    def kernel(x: np.ndarray, dim: int) -> np.ndarray:
        dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
        if x.ndim == 0:
            return np.array(x, dtype=dtype)
        return np.asarray(ufunc.accumulate(x, axis=dim, dtype=dtype))

    kernel.__name__ = f"{name}_cpu"
    kernel.__doc__ = f"``numpy.{ufunc.__name__}.accumulate`` along dim (int64 for integer and bool inputs)."
    return kernel


register_kernel("cumsum", Backend.CPU, dtypes=ALL_DTYPES)(_cumulative_kernel(np.add, "cumsum"))
register_kernel("cumprod", Backend.CPU, dtypes=ALL_DTYPES)(_cumulative_kernel(np.multiply, "cumprod"))

_DIM = (Attr("dim", check=check_int),)

cumsum_op = defop("cumsum", inputs=("x",), attrs=_DIM, infer_meta=infer_cumulative,
                  doc="running sum along dim", amp="deny")
cumprod_op = defop("cumprod", inputs=("x",), attrs=_DIM, infer_meta=infer_cumulative, save=("x", "out"),
                   doc="running product along dim", amp="deny")


def _rcumsum(ops: Any, v: Any, dim: int) -> Any:
    """The sum from each position to the end of ``dim``: ``flip(cumsum(flip(v)))``."""
    if v.ndim == 0:
        return v
    return ops.flip(ops.cumsum(ops.flip(v, (dim,)), dim), (dim,))


@cumsum_op.def_backward
def cumsum_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``x[i]`` is in every ``out[j]`` with ``j >= i``: the reversed running sum of the gradient."""
    return (_rcumsum(ctx.ops, grad, ctx.attrs["dim"]),)


@cumprod_op.def_backward
def cumprod_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``rcumsum(grad * out) / x`` before the first zero, the zero's own sum at it, 0 after it."""
    x, out = ctx.saved()
    ops = ctx.ops
    dim = ctx.attrs["dim"]
    if x.ndim == 0:
        return (grad,)
    is_zero = ops.eq(x, 0.0)
    zeros_seen = ops.cumsum(is_zero, dim)  # int64: how many zeros up to and including i
    before = ops.eq(zeros_seen, 0)  # no zero at or before i
    none_before = ops.eq(ops.sub(zeros_seen, ops.cast(is_zero, _dt.int64)), 0)  # no zero strictly before i
    first = ops.where(is_zero, none_before, False)  # the first zero itself
    one = ops.fill(x, 1.0)
    # Up to the first zero: out[j] / x[i] is the product without x[i].
    x_safe = ops.where(before, x, one)
    g_before = ops.div(_rcumsum(ops, ops.mul(grad, out), dim), x_safe)
    # At the first zero z: prod(x[:z]) * sum_{j >= z} grad[j] * prod(x[z+1 : j+1]).
    prefix = ops.cumprod(x_safe, dim)  # prod(x[:z]) at z (x[z] counts as 1 there)
    after = ops.cumprod(ops.where(none_before, one, x), dim)  # prod(x[z+1 : j+1]) for j >= z
    tail = _rcumsum(ops, ops.where(before, ops.mul(one, 0.0), ops.mul(grad, after)), dim)
    g_first = ops.mul(prefix, tail)
    zero = ops.mul(one, 0.0)
    return (ops.where(before, g_before, ops.where(first, g_first, zero)),)


def _check(op: str, input: Any, dtype: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 0) must be Tensor, but got {type_name(input)}")
    if dtype is not None and not isinstance(dtype, _dt.DType):
        raise TypeError(f"{op}(): argument 'dtype' must be a minigrad dtype, but got {type_name(dtype)}")
    return input if dtype is None or dtype is input.dtype else cast(input, dtype)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running sum along ``dim`` (``torch.cumsum``); integer and bool inputs give int64, ``dtype=`` casts first.

    Example:
        >>> import minigrad as mg
        >>> mg.cumsum(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=0).tolist()
        [[1.0, 2.0], [4.0, 6.0]]
    """
    x = _check("cumsum", input, dtype)
    return cumsum_op(x, check_int("cumsum", "dim", 1, dim))


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim`` (``torch.cumprod``); its gradient is right at zeros too.

    Example:
        >>> import minigrad as mg
        >>> mg.cumprod(mg.tensor([2, 0, 3]), 0).tolist()
        [2, 0, 0]
    """
    x = _check("cumprod", input, dtype)
    return cumprod_op(x, check_int("cumprod", "dim", 1, dim))
