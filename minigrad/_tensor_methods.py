"""Operators and methods of ``Tensor``, one per op (``x.sum()``, ``x @ y``, ``x[1:]`` ...).

Kept apart from ``tensor.py`` so the Tensor class reads as the data
structure it is; every method here just calls the op of the same name.
"""

from __future__ import annotations

from typing import Any

from . import dtypes, ops
from .tensor import Tensor


def _shape_args(args: tuple[Any, ...]) -> Any:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _setitem(self: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value``: an in-place write, recorded as ``where(mask, source, x)``.

    ``source`` gathers, for every position of ``x``, the element of ``value``
    written there, so repeated indices behave as in NumPy and PyTorch (the
    last write wins) and the gradient reaches ``value`` through a getitem.
    ``value`` is cast to ``x``'s dtype (``int_tensor[0] = 2.7`` stores 2).
    """
    import numpy as np

    from .ops.shape import _normalize_index

    idx = _normalize_index("setitem", index)
    if not isinstance(value, (Tensor, int, float, bool)):
        raise TypeError(f"setitem(): the value must be a Tensor or a Python number, but got {type(value).__name__}")

    def compute() -> Tensor:
        try:
            src = np.full(self.shape, -1, dtype=np.int64)
            region = src[idx].shape
            src[idx] = np.arange(int(np.prod(region, dtype=np.int64))).reshape(region)
        except IndexError as exc:
            raise ValueError(f"setitem(): index is invalid for a tensor of shape {tuple(self.shape)}: {exc}") from None
        mask = Tensor._make(_on(src >= 0, self.device), dtypes.bool_, self.device)
        if not isinstance(value, Tensor):
            return ops.where(mask, Tensor._scalar(value, self._dtype, self._device), self)
        v = value if value._dtype is self._dtype else ops.cast(value, self._dtype)
        vshape = tuple(v.shape)
        while len(vshape) > len(region) and vshape[0] == 1:  # PyTorch drops leading size-1 dims
            vshape = vshape[1:]
        try:
            np.broadcast_shapes(vshape, region)
            if len(vshape) > len(region):
                raise ValueError
        except ValueError:
            raise ValueError(
                f"setitem(): value of shape {tuple(value.shape)} cannot be broadcast to the indexed region "
                f"of shape {tuple(region)}"
            ) from None
        if vshape != tuple(v.shape):
            v = ops.reshape(v, vshape)
        if vshape != region:
            v = ops.expand(v, region)
        gather = Tensor._make(_on(np.maximum(src, 0), self.device), dtypes.int64, self.device)
        source = ops.getitem(ops.reshape(v, (-1,)), gather) if v.numel() else ops.fill(self, 0)
        return ops.where(mask, source, self)

    self._inplace("setitem", compute)


def _on(arr: Any, device: str) -> Any:
    return arr if device == "cpu" else _move(arr, device)


def _move(arr: Any, device: str) -> Any:
    from .kernels.backends import move_array

    return move_array(arr, "cpu", device)


_METHODS = {
    # arithmetic
    "add": ops.add, "sub": ops.sub, "mul": ops.mul, "div": ops.div, "pow": ops.pow, "neg": ops.neg,
    "exp": ops.exp, "log": ops.log, "sqrt": ops.sqrt, "abs": ops.abs, "sign": ops.sign, "sin": ops.sin,
    "cos": ops.cos, "tanh": ops.tanh, "sigmoid": ops.sigmoid, "relu": ops.relu, "gelu": ops.gelu, "erf": ops.erf,
    "maximum": ops.maximum, "minimum": ops.minimum, "clip": ops.clip, "clamp": ops.clip,
    "eq": ops.eq, "ne": ops.ne, "lt": ops.lt, "le": ops.le, "gt": ops.gt, "ge": ops.ge,
    # reductions
    "sum": ops.sum, "mean": ops.mean, "max": ops.max, "min": ops.min, "logsumexp": ops.logsumexp,
    # linear algebra, nn
    "matmul": ops.matmul, "softmax": ops.softmax, "log_softmax": ops.log_softmax,
    # shape
    "transpose": ops.transpose, "squeeze": ops.squeeze, "unsqueeze": ops.unsqueeze, "flatten": ops.flatten,
}


def _make_method(fn: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = getattr(fn, "name", getattr(fn, "__name__", "op"))
    method.__doc__ = f"Same as ``minigrad.{method.__name__}(self, ...)``."
    return method


for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _make_method(_fn))


def _reshape(self: Tensor, *shape: Any) -> Tensor:
    return ops.reshape(self, _shape_args(shape))


def _permute(self: Tensor, *dims: Any) -> Tensor:
    return ops.permute(self, _shape_args(dims))


def _expand(self: Tensor, *shape: Any) -> Tensor:
    return ops.expand(self, _shape_args(shape))


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return ops.expand(self, other.shape)


Tensor.reshape = _reshape  # type: ignore[attr-defined]
Tensor.view = _reshape  # type: ignore[attr-defined]
Tensor.permute = _permute  # type: ignore[attr-defined]
Tensor.expand = _expand  # type: ignore[attr-defined]
Tensor.expand_as = _expand_as  # type: ignore[attr-defined]

# Operators (Python scalars work on either side).
Tensor.__add__ = lambda self, o: ops.add(self, o)  # type: ignore[assignment]
Tensor.__radd__ = lambda self, o: ops.add(o, self)  # type: ignore[assignment]
Tensor.__sub__ = lambda self, o: ops.sub(self, o)  # type: ignore[assignment]
Tensor.__rsub__ = lambda self, o: ops.sub(o, self)  # type: ignore[assignment]
Tensor.__mul__ = lambda self, o: ops.mul(self, o)  # type: ignore[assignment]
Tensor.__rmul__ = lambda self, o: ops.mul(o, self)  # type: ignore[assignment]
Tensor.__truediv__ = lambda self, o: ops.div(self, o)  # type: ignore[assignment]
Tensor.__rtruediv__ = lambda self, o: ops.div(o, self)  # type: ignore[assignment]
Tensor.__pow__ = lambda self, o: ops.pow(self, o)  # type: ignore[assignment]
Tensor.__rpow__ = lambda self, o: ops.pow(o, self)  # type: ignore[assignment]
Tensor.__matmul__ = lambda self, o: ops.matmul(self, o)  # type: ignore[assignment]
Tensor.__rmatmul__ = lambda self, o: ops.matmul(o, self)  # type: ignore[assignment]
Tensor.__neg__ = lambda self: ops.neg(self)  # type: ignore[assignment]
Tensor.__abs__ = lambda self: ops.abs(self)  # type: ignore[assignment]
Tensor.__eq__ = lambda self, o: ops.eq(self, o)  # type: ignore[assignment]
Tensor.__ne__ = lambda self, o: ops.ne(self, o)  # type: ignore[assignment]
Tensor.__lt__ = lambda self, o: ops.lt(self, o)  # type: ignore[assignment]
Tensor.__le__ = lambda self, o: ops.le(self, o)  # type: ignore[assignment]
Tensor.__gt__ = lambda self, o: ops.gt(self, o)  # type: ignore[assignment]
Tensor.__ge__ = lambda self, o: ops.ge(self, o)  # type: ignore[assignment]
Tensor.__getitem__ = lambda self, index: ops.getitem(self, index)  # type: ignore[assignment]
Tensor.__setitem__ = _setitem  # type: ignore[assignment]
Tensor.__hash__ = object.__hash__  # type: ignore[assignment]
