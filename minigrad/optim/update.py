"""The two ways one update rule runs: as tensor ops, or on a CPU parameter's arrays.

An optimizer's rule (``SGD``'s momentum, ``Adam``'s moments) is written once, against a
*path* ``k``: ``k.value(t)`` is what the rule computes with, ``k.mul_``/``k.add_``/``k.sub_``
change a parameter or a state buffer in place, ``k.keep`` turns a computed value into a
state tensor. The rule's arithmetic uses Python operators, which both paths share.

- ``OPS``: every step is a minigrad op under ``no_grad``; a recorder sees each one
  (``api.call`` ... ``tensor.update``). Any device, any dtype.
- ``ARRAYS``: the same arithmetic on the NumPy arrays behind the tensors, in the same
  order, so the same bits (float32/float64 on the CPU); each in-place write bumps the
  tensor's version counter as the op would. PyTorch's fused optimizers skip per-op
  dispatch for the same reason: a step touches every parameter, and a dispatch per
  element-wise op costs more than the arithmetic on small tensors.

``path_for(p, g)`` picks ``ARRAYS`` only when no recorder listens, so a recorded step
shows every update as events, and only for a parameter without views: an in-place op gives
each view of the changed tensor a fresh grad node (``dispatch/views.py``), which a bare
array write would not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..tensor import Tensor, VersionCounter, live_views
from ..tracing import bus

__all__ = ["OPS", "ARRAYS", "path_for", "array_path_ok"]

#: float16/bfloat16 arithmetic may differ between kernels and raw NumPy: those keep the op path.
_ARRAY_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def array_path_ok(p: Tensor, g: Tensor) -> bool:
    """Whether ``p`` may be updated on its array: no recorder, a CPU array, ``g`` alike."""
    data = p._data
    return (
        bus.recorder is None
        and type(data) is np.ndarray
        and type(g._data) is np.ndarray
        and g._dtype is p._dtype
        and data.dtype in _ARRAY_DTYPES
        and g._data.shape == data.shape
        and data.flags.writeable
        and not live_views(p)  # a live view of ``p`` must get a fresh grad node: the op path's in-place ops make it
    )


class _OpPath:
    """Each step an op: ``value`` is the tensor itself, in-place steps are the tensor's ``*_`` methods."""

    @staticmethod
    def value(t: Tensor) -> Tensor:
        return t

    @staticmethod
    def keep(v: Tensor, p: Tensor) -> Tensor:
        return v

    @staticmethod
    def copy(v: Tensor) -> Tensor:
        return v.detach_copy()

    @staticmethod
    def sqrt(v: Tensor) -> Tensor:
        return v.sqrt()

    @staticmethod
    def maximum(a: Tensor, b: Tensor) -> Tensor:
        return ops.maximum(a, b)

    @staticmethod
    def mul_(t: Tensor, v: Any) -> None:
        t.mul_(v)

    @staticmethod
    def add_(t: Tensor, v: Any) -> None:
        t.add_(v)

    @staticmethod
    def sub_(t: Tensor, v: Any) -> None:
        t.sub_(v)


def _bump(t: Tensor) -> None:
    """Record an in-place change of ``t``'s storage on its version counter, as an in-place op does."""
    if t._vc is None:
        t._vc = VersionCounter()
    t._vc.bump()


class _ArrayPath:
    """The same steps on the arrays behind the tensors; each in-place write bumps the version."""

    @staticmethod
    def value(t: Tensor) -> np.ndarray:
        return t._data

    @staticmethod
    def keep(v: np.ndarray, p: Tensor) -> Tensor:
        return Tensor._make(v, p._dtype)

    @staticmethod
    def copy(v: np.ndarray) -> np.ndarray:
        return v.copy()

    @staticmethod
    def sqrt(v: np.ndarray) -> np.ndarray:
        return np.sqrt(v)

    @staticmethod
    def maximum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.maximum(a, b)

    @staticmethod
    def mul_(t: Tensor, v: Any) -> None:
        t._data *= v
        _bump(t)

    @staticmethod
    def add_(t: Tensor, v: Any) -> None:
        t._data += v
        _bump(t)

    @staticmethod
    def sub_(t: Tensor, v: Any) -> None:
        t._data -= v
        _bump(t)


OPS = _OpPath()
ARRAYS = _ArrayPath()


def path_for(p: Tensor, g: Tensor) -> _OpPath | _ArrayPath:
    """``ARRAYS`` when ``p`` may be updated on its array (``array_path_ok``), else ``OPS``."""
    return ARRAYS if array_path_ok(p, g) else OPS
