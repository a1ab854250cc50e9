"""More creation functions with PyTorch's spelling: ``from_numpy``, ``eye``, ``linspace``, ``randint``,
``randperm``, ``multinomial`` (the random ones draw from the generator ``manual_seed`` seeds).

Example:
    >>> import minigrad as mg
    >>> mg.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from .kernels.backends import to_numpy
from .tensor import Tensor, _check_device, _dtype_arg, _finish, _shape_arg, generator

__all__ = ["from_numpy", "eye", "linspace", "randint", "randperm", "multinomial"]


def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor that shares memory with ``array`` (writes to one show in the other), keeping its dtype."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy(): expected np.ndarray, but got {type(array).__name__}")
    return _finish("from_numpy", array, _dt.from_numpy(array.dtype), "cpu", False)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: str = "cpu", requires_grad: bool = False) -> Tensor:
    """The ``n x m`` identity matrix (``m`` defaults to ``n``)."""
    dt = _dtype_arg("eye", dtype, _dt.float32)
    return _finish("eye", np.eye(n, n if m is None else m, dtype=dt.np), dt, _check_device("eye", device), requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: str = "cpu",
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"linspace(): argument 'steps' must be a non-negative int, but got {steps!r}")
    dt = _dtype_arg("linspace", dtype, _dt.float32)
    data = np.linspace(start, end, steps).astype(dt.np)
    return _finish("linspace", data, dt, _check_device("linspace", device), requires_grad)


def randint(low: int, high: int | None = None, size: Any = None, *, dtype: Any = None, device: str = "cpu") -> Tensor:
    """Random integers in ``[low, high)`` of shape ``size``; ``randint(high, size)`` starts at 0 (int64)."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint(): expected randint(low, high, size) or randint(high, size)")
    shape = _shape_arg("randint", tuple(size) if isinstance(size, (tuple, list)) else (size,))
    if high <= low:
        raise ValueError(f"randint(): 'high' ({high}) must be greater than 'low' ({low})")
    dt = _dtype_arg("randint", dtype, _dt.int64)
    data = generator().integers(low, high, size=shape).astype(dt.np)
    return _finish("randint", data, dt, _check_device("randint", device), False)


def randperm(n: int, *, dtype: Any = None, device: str = "cpu") -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"randperm(): argument 'n' must be a non-negative int, but got {n!r}")
    dt = _dtype_arg("randperm", dtype, _dt.int64)
    return _finish("randperm", generator().permutation(n).astype(dt.np), dt, _check_device("randperm", device), False)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False) -> Tensor:
    """Indices drawn from the categorical distribution in each row of ``input`` (weights, not necessarily
    normalised); 1-D input gives ``(num_samples,)``, 2-D input ``(rows, num_samples)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 0) must be Tensor, but got {type(input).__name__}")
    if input.ndim not in (1, 2):
        raise ValueError(f"multinomial(): input must be 1-D or 2-D, but got shape {tuple(input.shape)}")
    w = to_numpy(input._data).astype(np.float64)
    rows = w.reshape(1, -1) if w.ndim == 1 else w
    if np.any(rows < 0) or np.any(~np.isfinite(rows)) or np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("multinomial(): probabilities must be finite, non-negative and not all zero in a row")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError(f"multinomial(): cannot draw {num_samples} samples without replacement from {rows.shape[1]} categories")
    rng = generator()
    out = np.stack([rng.choice(rows.shape[1], size=num_samples, replace=replacement, p=r / r.sum()) for r in rows])
    out = out.astype(np.int64)
    return _finish("multinomial", out[0] if w.ndim == 1 else out, _dt.int64, input.device, False)
