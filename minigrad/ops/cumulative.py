"""Running totals along one dim: ``cumsum``, ``cumprod`` and ``logcumsumexp`` (ops); ``diff``, ``cummax`` and
``cummin`` (composites).

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

``logcumsumexp``: ``out[j] = log(sum_{i <= j} exp(x[i]))``, so
``dx[i] = sum_{j >= i} grad[j] exp(x[i] - out[j])``: a reversed running sum,
shifted by the slice's largest ``out`` so the exponentials stay in range.

``cummax``/``cummin`` find the position of the running extreme with an index op
(``argcummax``/``argcummin``, no gradient; the latest position among ties, as
PyTorch) and read the values there with an op of their own (``cummax_values``,
PyTorch's ``CummaxBackward0``), whose backward sends each gradient to that
position.

``diff`` (the differences of neighbours, the inverse of ``cumsum``) is two
slices and a ``sub``.

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

from ..errors import OutOfRangeError
from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import in_dtype, register_kernel
from ..tensor import Tensor
from ._checks import check_int, check_opt_dtype, check_tensor, wrap_dim
from .math import cast, ne, sub
from .sort import _picked_values_op
from .shape import concat, getitem
from .reduce import return_types, to_input_dtype
from .registry import Attr, defop, type_name

__all__ = ["cumsum", "cumprod", "logcumsumexp", "diff", "cummax", "cummin"]


def infer_cumulative(op: str, x: Any, dim: int, dtype: Any = None) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``x``'s shape; integer and bool inputs accumulate in int64, or in ``dtype`` where given."""
    wrap_dim(op, dim, x.ndim)
    if dtype is not None:
        return tuple(x.shape), dtype.np
    return tuple(x.shape), (np.dtype(np.int64) if x.dtype.kind in "biu" else x.dtype)


def _cumulative_kernel(ufunc: np.ufunc, name: str) -> Any:
    def kernel(x: np.ndarray, dim: int, dtype: Any = None) -> np.ndarray:
        if dtype is not None and dtype.np != x.dtype:  # ``dtype=``: that dtype's kernel on x cast to it
            return in_dtype(name, Backend.CPU, x, dtype, dim)
        dtype = (np.int64 if x.dtype.kind in "biu" else x.dtype) if dtype is None else dtype.np
        if x.ndim == 0:
            return np.array(x, dtype=dtype)
        return np.asarray(ufunc.accumulate(x, axis=dim, dtype=dtype))

    kernel.__name__ = f"{name}_cpu"
    kernel.__doc__ = f"``numpy.{ufunc.__name__}.accumulate`` along dim (int64 for integer and bool inputs)."
    return kernel


register_kernel("cumsum", Backend.CPU, dtypes=ALL_DTYPES)(_cumulative_kernel(np.add, "cumsum"))
register_kernel("cumprod", Backend.CPU, dtypes=ALL_DTYPES)(_cumulative_kernel(np.multiply, "cumprod"))

_DIM = (Attr("dim", check=check_int),)
#: cumsum's and cumprod's: the dtype to read the input in and to return (``dtype=``)
_DIM_DTYPE = (*_DIM, Attr("dtype", None, check_opt_dtype, keyword_only=True))

cumsum_op = defop("cumsum", inputs=("x",), attrs=_DIM_DTYPE, dtype_out=True, infer_meta=infer_cumulative, layout="contiguous",
                  doc="running sum along dim", amp="deny")
cumprod_op = defop("cumprod", inputs=("x",), attrs=_DIM_DTYPE, dtype_out=True, infer_meta=infer_cumulative, layout="contiguous",
                   save=("x", "out"),
                   doc="running product along dim", amp="deny")


def _rcumsum(ops: Any, v: Any, dim: int) -> Any:
    """The sum from each position to the end of ``dim``: ``flip(cumsum(flip(v)))``."""
    if v.ndim == 0:
        return v
    return ops.flip(ops.cumsum(ops.flip(v, (dim,)), dim), (dim,))


@cumsum_op.def_backward
def cumsum_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``x[i]`` is in every ``out[j]`` with ``j >= i``: the reversed running sum of the gradient (in the input's
    dtype, as PyTorch's ``cumsum_backward(grad.to(self's type))``)."""
    return (_rcumsum(ctx.ops, to_input_dtype(ctx, grad), ctx.attrs["dim"]),)


@cumprod_op.def_backward
def cumprod_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``rcumsum(grad * out) / x`` before the first zero, the zero's own sum at it, 0 after it (the gradient taken
    in the input's dtype first, as PyTorch's ``cumprod_backward(grad.to(self's type), ...)``)."""
    return (to_input_dtype(ctx, _cumprod_grad(ctx, to_input_dtype(ctx, grad))),)


def _cumprod_grad(ctx: Any, grad: Any) -> Any:
    x, out = ctx.saved()
    ops = ctx.ops
    dim = ctx.attrs["dim"]
    if x.ndim == 0:
        return grad
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
    return ops.where(before, g_before, ops.where(first, g_first, zero))


def _check(op: str, input: Any, dtype: Any) -> Tensor:
    check_tensor(op, "input", 0, input)
    if dtype is not None and not isinstance(dtype, _dt.DType):
        raise TypeError(f"{op}(): argument 'dtype' must be a minigrad dtype, but got {type_name(dtype)}")
    return input


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running sum along ``dim`` (``torch.cumsum``); integer and bool inputs give int64, ``dtype=`` reads the input
    in that dtype (one op, as PyTorch's).

    Example:
        >>> import minigrad as mg
        >>> mg.cumsum(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=0).tolist()
        [[1.0, 2.0], [4.0, 6.0]]
    """
    x = _check("cumsum", input, dtype)
    return cumsum_op(x, check_int("cumsum", "dim", 1, dim), dtype=dtype)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim`` (``torch.cumprod``); its gradient is right at zeros too.

    Example:
        >>> import minigrad as mg
        >>> mg.cumprod(mg.tensor([2, 0, 3]), 0).tolist()
        [2, 0, 0]
    """
    x = _check("cumprod", input, dtype)
    return cumprod_op(x, check_int("cumprod", "dim", 1, dim), dtype=dtype)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``x[1:] - x[:-1]``, applied ``n`` times (``torch.diff``);
    ``prepend``/``append`` are joined on first. Bool tensors give ``!=`` of neighbours, as PyTorch's."""
    check_tensor("diff", "input", 0, input)
    n = check_int("diff", "n", 1, n)
    d = check_int("diff", "dim", 2, dim)
    if input.ndim == 0:
        raise RuntimeError("diff(): expects input to be at least one-dimensional")
    if not -input.ndim <= d < input.ndim:
        raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but got {d})")
    if n < 0:
        raise RuntimeError(f"diff(): order must be non-negative but got {n}")
    d %= input.ndim
    if n == 0:  # no difference taken: the input itself, prepend/append not joined (PyTorch's rule)
        return input
    x = input
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = concat([t if isinstance(t, Tensor) else Tensor._scalar(t, input.dtype, input.device) for t in parts], dim=d)
    lead = (slice(None),) * d
    for _ in range(n):
        if x.shape[d] == 0:
            break
        hi, lo = getitem(x, lead + (slice(1, None),)), getitem(x, lead + (slice(None, -1),))
        x = ne(hi, lo) if x.dtype is _dt.bool_ else sub(hi, lo)
    return x


def _argcum_kernel(ufunc: np.ufunc, name: str) -> Any:
    def kernel(x: np.ndarray, dim: int) -> np.ndarray:
        if x.ndim == 0:
            return np.zeros((), dtype=np.int64)
        running = ufunc.accumulate(x, axis=dim)
        # A position is a record when it equals the running extreme (or is NaN, which wins from then on);
        # the index at j is the latest record up to j.
        record = (x == running) | (np.isnan(x) if x.dtype.kind == "f" else False)
        shape = [1] * x.ndim
        shape[dim] = x.shape[dim]
        positions = np.arange(x.shape[dim], dtype=np.int64).reshape(shape)
        return np.maximum.accumulate(np.where(record, positions, 0), axis=dim)

    kernel.__name__ = f"{name}_cpu"
    kernel.__doc__ = f"The latest position of the running {'maximum' if ufunc is np.maximum else 'minimum'} along dim."
    return kernel


def _infer_argcum(op: str, x: Any, dim: int) -> tuple[tuple[int, ...], Any]:
    infer_cumulative(op, x, dim)
    return tuple(x.shape), np.dtype(np.int64)


register_kernel("argcummax", Backend.CPU, dtypes=ALL_DTYPES)(_argcum_kernel(np.maximum, "argcummax"))
register_kernel("argcummin", Backend.CPU, dtypes=ALL_DTYPES)(_argcum_kernel(np.minimum, "argcummin"))
argcummax = defop("argcummax", inputs=("x",), attrs=_DIM, infer_meta=_infer_argcum, layout="contiguous",
                  differentiable=False, doc="the position of the running maximum along dim (int64)")
argcummin = defop("argcummin", inputs=("x",), attrs=_DIM, infer_meta=_infer_argcum, layout="contiguous",
                  differentiable=False,
                  doc="the position of the running minimum along dim (int64)")


# the values at argcummax's/argcummin's positions, with PyTorch's node (``cummaxmin_backward``: each gradient
# goes to the position it was read from, summed where several outputs read one)
cummax_values = _picked_values_op("cummax_values", "contiguous", "cummax's values: x at the positions argcummax "
                                                                 "found (PyTorch's CummaxBackward0)")
cummin_values = _picked_values_op("cummin_values", "contiguous", "cummin's values: x at the positions argcummin "
                                                                 "found (PyTorch's CumminBackward0)")


def _cumextreme(op: str, arg_op: Any, values_op: Any, input: Tensor, dim: int) -> Any:
    check_tensor(op, "input", 0, input)
    d = check_int(op, "dim", 1, dim)
    indices = arg_op(input, d)
    named = getattr(return_types, op)
    return named(values_op(input, indices, d % max(input.ndim, 1)), indices)


def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)`` of the running maximum along ``dim`` (``torch.cummax``).

    Example:
        >>> import minigrad as mg
        >>> mg.cummax(mg.tensor([1.0, 3.0, 2.0, 5.0]), 0).values.tolist()
        [1.0, 3.0, 3.0, 5.0]
    """
    return _cumextreme("cummax", argcummax, cummax_values, input, dim)


def cummin(input: Tensor, dim: int) -> Any:
    """``(values, indices)`` of the running minimum along ``dim`` (``torch.cummin``)."""
    return _cumextreme("cummin", argcummin, cummin_values, input, dim)


@register_kernel("logcumsumexp", Backend.CPU, dtypes=_dt.FLOAT_DTYPES)
def logcumsumexp_cpu(x: np.ndarray, dim: int) -> np.ndarray:
    """``numpy.logaddexp.accumulate``: each step adds in log space, so nothing overflows."""
    if x.ndim == 0:
        return np.array(x, copy=True)
    return np.asarray(np.logaddexp.accumulate(x, axis=dim), dtype=x.dtype)


logcumsumexp_op = defop("logcumsumexp", inputs=("x",), attrs=_DIM, infer_meta=infer_cumulative, layout="contiguous", save=("x", "out"),
                        promote="float", doc="log of the running sum of exp(x) along dim", amp="deny")


@logcumsumexp_op.def_backward
def logcumsumexp_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``dx[i] = exp(x[i] - m) * rcumsum(grad * exp(m - out))[i]`` with ``m`` the slice's last ``out`` (its
    largest): the shift keeps both exponentials in range unless ``out`` spans more than ~700 within a slice."""
    x, out = ctx.saved()
    ops = ctx.ops
    dim = ctx.attrs["dim"]
    if x.ndim == 0:
        return (grad,)
    d = dim % x.ndim
    last = ops.getitem(out, (slice(None),) * d + (slice(-1, None),))  # keeps the dim: broadcasts along it
    last = ops.where(ops.eq(last, float("-inf")), 0.0, last)  # an all -inf slice: no shift (its gradient is 0)
    tail = _rcumsum(ops, ops.mul(grad, ops.exp(ops.sub(last, out))), d)
    return (ops.mul(ops.exp(ops.sub(x, last)), tail),)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))`` computed stably (``torch.logcumsumexp``).

    Example:
        >>> import minigrad as mg
        >>> round(mg.logcumsumexp(mg.tensor([0.0, 0.0]), 0)[1].item(), 4)
        0.6931
    """
    check_tensor("logcumsumexp", "input", 0, input)
    return logcumsumexp_op(input, check_int("logcumsumexp", "dim", 1, dim))
