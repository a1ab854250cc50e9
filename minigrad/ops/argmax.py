"""``argmax`` and ``argmin``: the index of the largest / smallest element (no gradient), in one place.

With ``dim=None`` the index is into the flattened tensor, as in PyTorch; ties
give the first occurrence.

Example:
    >>> import minigrad as mg
    >>> mg.argmax(mg.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1).tolist()
    [1, 0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OutOfRangeError
from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ._checks import check_bool, wrap_dim
from .registry import Attr, defop, type_name

__all__ = ["argmax", "argmin"]


def _check_dim(op: str, name: str, pos: int, v: Any) -> Any:
    if v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool)):
        return None if v is None else int(v)
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be None or int, but got {type_name(v)}")


def infer_arg_reduce(op: str, x: Any, dim: Any = None, keepdim: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta: int64 indices; the reduced dim is dropped (kept as 1 with ``keepdim``). A bool tensor is
    refused, as PyTorch refuses it (``max(dim)`` of one gives indices: ``reduce.py`` casts it first)."""
    if x.dtype == np.bool_:
        raise RuntimeError(f"{op}(): does not support bool input")
    if x.size == 0 and dim is None:
        raise OutOfRangeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
    if dim is None:
        return ((1,) * x.ndim if keepdim else ()), np.dtype(np.int64)
    d = wrap_dim(op, dim, x.ndim)
    if x.size == 0 and x.shape[d] == 0:  # an empty tensor reduces over a dim that has elements (PyTorch)
        raise OutOfRangeError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    if x.ndim == 0:
        return (), np.dtype(np.int64)
    shape = tuple(1 if i == d else s for i, s in enumerate(x.shape)) if keepdim else tuple(
        s for i, s in enumerate(x.shape) if i != d
    )
    return shape, np.dtype(np.int64)


def _arg_kernel(fn: Any) -> Any:
    def kernel(x: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        if dim is None or x.ndim == 0:
            out = np.asarray(fn(x.reshape(-1)), dtype=np.int64)
            return out.reshape((1,) * x.ndim) if keepdim else out
        return np.asarray(fn(x, axis=dim, keepdims=keepdim), dtype=np.int64)

    kernel.__name__ = f"{fn.__name__}_cpu"
    return kernel


register_kernel("argmax", Backend.CPU, dtypes=ALL_DTYPES)(_arg_kernel(np.argmax))
register_kernel("argmin", Backend.CPU, dtypes=ALL_DTYPES)(_arg_kernel(np.argmin))

_ATTRS = (Attr("dim", None, _check_dim), Attr("keepdim", False, check_bool))
argmax = defop("argmax", inputs=("x",), attrs=_ATTRS, infer_meta=infer_arg_reduce, differentiable=False,
               doc="index of the largest element (over dim, or of the flattened tensor)")
argmin = defop("argmin", inputs=("x",), attrs=_ATTRS, infer_meta=infer_arg_reduce, differentiable=False,
               doc="index of the smallest element (over dim, or of the flattened tensor)")
