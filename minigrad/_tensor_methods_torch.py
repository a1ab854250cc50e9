"""Tensor methods with PyTorch's names for the functions of ``ops/torch_forms.py``, ``ops/log1p.py``,
``ops/argmax.py`` and the like (``x.var()``, ``x.masked_fill(m, v)``, ``x.mT`` ...).

Kept apart from ``_tensor_methods.py`` (one method per registered op) because
these are compositions; each method calls the function of the same name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import ops
from .nn import functional as F
from .ops import torch_forms as tf
from .dispatch.dygraph import run_inplace
from .ops.indexing import unfold as _unfold
from .ops.inverse import matrix_power as _matrix_power
from .ops.repeat import repeat as _repeat
from .tensor import Tensor

_METHODS = {
    "log1p": ops.log1p, "expm1": ops.expm1, "argmax": ops.argmax, "argmin": ops.argmin,
    "max": tf.max, "min": tf.min, "amax": tf.amax, "amin": tf.amin, "var": tf.var, "std": tf.std, "masked_fill": tf.masked_fill,
    "tril": tf.tril, "triu": tf.triu, "clamp": tf.clamp, "clip": tf.clamp, "clamp_min": tf.clamp_min,
    "clamp_max": tf.clamp_max, "split": tf.split, "chunk": tf.chunk, "t": tf.t, "bmm": tf.bmm,
    "allclose": tf.allclose, "isclose": tf.isclose, "add": tf.add, "sub": tf.sub, "div": tf.div,
    "softmax": F.softmax, "log_softmax": F.log_softmax,
    "floor": ops.floor, "ceil": ops.ceil, "trunc": ops.trunc, "round": ops.round,
}


#: method name -> the registered op that defines it (``clamp`` -> ``clip``): its doc names that op
_OWNER = {m: op_name for op_name, op in ops.OPS.items() for m in op.methods}


def _make_method(fn: Any, name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"Same as ``minigrad.{_OWNER.get(name, name)}(self, ...)``."
    return method


for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _make_method(_fn, _name))


def _view(self: Tensor, *shape: Any) -> Tensor:
    """``reshape`` that must share storage, as PyTorch's ``view``: an error where the memory layout
    cannot be viewed with the new shape (e.g. after a transpose), instead of a silent copy."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if isinstance(self._data, np.ndarray):
        probe = self._data.view()
        try:
            probe.shape = shape
        except AttributeError:
            raise RuntimeError(
                f"view(): view size {tuple(shape)} is not compatible with the input tensor's memory layout "
                f"(shape {tuple(self.shape)}, not contiguous); use .reshape(...) instead"
            ) from None
        except (ValueError, TypeError) as exc:
            raise ValueError(f"view(): shape {tuple(shape)} is invalid for a tensor of shape {tuple(self.shape)}: {exc}") from None
    return ops.reshape(self, tuple(shape))


def _mT(self: Tensor) -> Tensor:
    """The last two dimensions swapped (batched matrix transpose)."""
    if self.ndim < 2:
        raise ValueError(f"mT: expects a tensor with at least 2 dimensions, but got {self.ndim}")
    return ops.transpose(self, -2, -1)


def _contiguous(self: Tensor) -> Tensor:
    """A tensor with C-contiguous storage (``self`` when it already is)."""
    data = self._data
    if getattr(data, "flags", None) is None or data.flags["C_CONTIGUOUS"]:
        return self
    return ops.clone(self)


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    return self.astype(other.dtype)


Tensor.view = _view  # type: ignore[attr-defined]
Tensor.mT = property(_mT)  # type: ignore[attr-defined]
Tensor.contiguous = _contiguous  # type: ignore[attr-defined]
Tensor.type_as = _type_as  # type: ignore[attr-defined]


# In-place sampling (ops/sampling.py): x.normal_(), x.uniform_(), x.random_(), x.bernoulli_(), x.exponential_().
from .ops import sampling as _sampling  # noqa: E402

for _name in _sampling.METHODS:
    setattr(Tensor, _name, getattr(_sampling, _name))


# PyTorch's new_* (creation.py) and type().
from . import creation as _creation  # noqa: E402
from . import dtypes as _dtypes  # noqa: E402

for _name, _fn in _creation.TENSOR_METHODS.items():
    setattr(Tensor, _name, _fn)

#: dtype -> PyTorch's legacy tensor type name, as ``x.type()`` returns it
_TYPE_NAMES = {_dtypes.float32: "FloatTensor", _dtypes.float64: "DoubleTensor", _dtypes.float16: "HalfTensor",
               _dtypes.int64: "LongTensor", _dtypes.int32: "IntTensor", _dtypes.bool_: "BoolTensor",
               _dtypes.uint8: "ByteTensor"}


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """``x.type()``: PyTorch's type name (``'torch.FloatTensor'``, ``'torch.cuda.FloatTensor'`` on the GPU);
    ``x.type(dtype)`` (a dtype or such a name): ``x`` cast to it."""
    if dtype is None:
        prefix = "torch.cuda." if self._device == "gpu" else "torch."
        return prefix + _TYPE_NAMES[self.dtype]
    if isinstance(dtype, str) and dtype.endswith("Tensor"):
        by_name = {v: k for k, v in _TYPE_NAMES.items()}
        short = dtype.rsplit(".", 1)[-1]
        if short not in by_name:
            raise ValueError(f"invalid type: '{dtype}'")
        out = self.to(by_name[short])
        return out.to("gpu") if ".cuda." in dtype else out
    return self.to(dtype)


Tensor.type = _type  # type: ignore[attr-defined]


# -- the torch.* tensor ops of issue 23 (ordering, indexing, cumulative, norms, products, pointwise) --------
_METHODS_TORCH_OPS = {
    # ordering, searching and counting
    "sort": ops.sort, "argsort": ops.argsort, "topk": ops.topk, "msort": ops.msort, "kthvalue": ops.kthvalue,
    "median": ops.median, "quantile": ops.quantile, "unique": ops.unique, "bincount": ops.bincount,
    "nonzero": ops.nonzero, "argwhere": ops.argwhere, "count_nonzero": ops.count_nonzero,
    # indexed reads and writes
    "gather": ops.gather, "scatter_add": ops.scatter_add, "scatter": ops.scatter, "take_along_dim": ops.take_along_dim,
    "index_add": ops.index_add, "index_select": ops.index_select, "masked_select": ops.masked_select,
    "take": ops.take, "narrow": ops.narrow, "select": ops.select, "diagonal": ops.diagonal, "diag": ops.diag,
    "unfold": _unfold,
    # running totals and reductions
    "cumsum": ops.cumsum, "cumprod": ops.cumprod, "logcumsumexp": ops.logcumsumexp, "cummax": ops.cummax,
    "cummin": ops.cummin, "prod": ops.prod, "diff": ops.diff, "all": ops.all, "any": ops.any,
    "nansum": tf.nansum, "nanmean": tf.nanmean, "aminmax": tf.aminmax, "equal": tf.equal,
    # moving, copying and reshaping
    "fliplr": ops.fliplr, "flipud": ops.flipud, "rot90": ops.rot90, "repeat": _repeat, "tile": ops.tile,
    "repeat_interleave": ops.repeat_interleave, "unbind": tf.unbind, "movedim": ops.movedim,
    "moveaxis": ops.moveaxis, "swapaxes": ops.swapaxes, "swapdims": ops.swapdims, "unflatten": ops.unflatten,
    "ravel": ops.ravel,
    # norms and products
    "norm": ops.norm, "outer": ops.outer, "ger": ops.ger, "addmm": ops.addmm, "addmv": ops.addmv,
    "baddbmm": ops.baddbmm, "addbmm": ops.addbmm, "dot": ops.dot, "vdot": ops.vdot, "mv": ops.mv, "mm": ops.mm,
    "kron": ops.kron, "cross": ops.cross, "inverse": ops.inverse, "det": ops.det, "matrix_power": _matrix_power,
    # pointwise formulas, NumPy's names
    "square": ops.square, "rsqrt": ops.rsqrt, "reciprocal": ops.reciprocal, "lerp": ops.lerp,
    "addcmul": ops.addcmul, "addcdiv": ops.addcdiv, "logical_not": ops.logical_not,
    "logical_and": ops.logical_and, "logical_or": ops.logical_or, "logical_xor": ops.logical_xor,
    "nan_to_num": ops.nan_to_num, "logaddexp2": ops.logaddexp2, "hypot": ops.hypot,
    "sgn": ops.sgn, "frac": ops.frac, "fmax": ops.fmax, "fmin": ops.fmin,
    "heaviside": ops.heaviside, "erfc": ops.erfc, "float_power": ops.float_power, "deg2rad": ops.deg2rad,
    "rad2deg": ops.rad2deg, "multiply": ops.multiply, "subtract": ops.subtract, "divide": ops.divide,
    "true_divide": ops.true_divide, "greater": ops.greater, "greater_equal": ops.greater_equal, "less": ops.less,
    "less_equal": ops.less_equal, "not_equal": ops.not_equal, "absolute": ops.absolute, "negative": ops.negative,
    "positive": ops.positive,
}
for _name, _fn in _METHODS_TORCH_OPS.items():
    setattr(Tensor, _name, _make_method(_fn, _name))


def _flip(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """``x.flip(0, 1)``, ``x.flip([0, 1])`` or ``x.flip(dims=(0,))``: ``minigrad.flip``."""
    if not dims and "dims" in kwargs:
        return ops.flip(self, kwargs.pop("dims"), **kwargs)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return ops.flip(self, tuple(dims))


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.view(other.shape)`` (``Tensor.view_as``)."""
    return _view(self, tuple(other.shape))


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.reshape(other.shape)`` (``Tensor.reshape_as``)."""
    return ops.reshape(self, tuple(other.shape))


def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    """``x.where(condition, y)``: ``minigrad.where(condition, x, y)``."""
    return ops.where(condition, self, other)


def _trace_method(self: Tensor) -> Tensor:
    """``x.trace()``: the sum of the diagonal of a 2-D tensor (``Tensor.trace``; ``minigrad.trace`` is the
    recorder, so the matrix trace is a method only). Composite: ``diagonal`` and ``sum``."""
    if self.ndim != 2:
        raise RuntimeError(f"trace(): expected a matrix, but got tensor with dim {self.ndim}")
    return ops.sum(ops.diagonal(self))


Tensor.flip = _flip  # type: ignore[attr-defined]
Tensor.view_as = _view_as  # type: ignore[attr-defined]
Tensor.reshape_as = _reshape_as  # type: ignore[attr-defined]
Tensor.where = _where_method  # type: ignore[attr-defined]
Tensor.trace = _trace_method  # type: ignore[attr-defined]


# In place (DESIGN §9 rule 8): the out-of-place result written back by run_inplace.
def _inplace(name: str, fn: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return run_inplace(self, name, lambda: fn(self, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = f"In place: ``self = minigrad.{name[:-1]}(self, ...)`` (bumps the version counter)."
    return method


_INPLACE_TORCH_OPS = {
    "scatter_": ops.scatter, "scatter_add_": ops.scatter_add, "index_add_": ops.index_add,
    "masked_fill_": tf.masked_fill, "clamp_": tf.clamp, "clip_": tf.clamp,
}
for _name, _fn in _INPLACE_TORCH_OPS.items():
    setattr(Tensor, _name, _inplace(_name, _fn))
