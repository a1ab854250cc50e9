"""Operators and methods of ``Tensor``, one per op (``x.sum()``, ``x @ y``, ``x[1:]`` ...).

Kept apart from ``tensor.py`` so the Tensor class reads as the data
structure it is; every method here just calls the op of the same name.
"""

from __future__ import annotations

from typing import Any

from . import ops
from .tensor import Tensor


def _shape_args(args: tuple[Any, ...]) -> Any:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else args


def _setitem(self: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value``: an in-place write, recorded as ``where(mask, value, x)``."""
    import numpy as np

    from . import dtypes
    from .ops.shape import _normalize_index

    idx = _normalize_index("setitem", index)

    def compute() -> Tensor:
        mask_np = np.zeros(self.shape, dtype=bool)
        mask_np[idx] = True
        mask = Tensor._make(mask_np if self.device == "cpu" else _move(mask_np, self.device), dtypes.bool_, self.device)
        full: Any = value
        if isinstance(value, Tensor):
            region = np.broadcast_to(np.empty((), dtype=np.int8), self.shape)[idx].shape
            v = value if value.shape == region else ops.expand(value, region)
            full = ops.getitem_grad(v, idx, self.shape)  # scatter into a tensor of x's shape
        return ops.where(mask, full, self)

    self._inplace("setitem", compute)


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
