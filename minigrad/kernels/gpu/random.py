"""Random draws made on the GPU (NOTE [ Draws made on the GPU: Philox4x32-10 ] in ``cuda_src.py``).

Each function launches one Philox kernel that writes ``n`` draws into a new device array; ``seed`` and
``offset`` come from the device generator (``minigrad/random.py``, ``DeviceGenerator``), the numbers of
the distribution are kernel arguments (no host -> device copy, no sync). float16 is drawn in float32
and rounded on the device. The loader puts them in the GPU backend's ``made`` table, where
``random.device_draws`` finds them.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from . import cuda_src
from ._runtime import function, launch_1d

__all__ = ["MADE"]

_KERNEL_DTYPES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}


def _floats(dist: str, n: int, np_dtype: Any, seed: int, offset: int, a: float, b: float) -> Any:
    dt = np.dtype(np_dtype)
    # float16 is drawn in float32, an integer or bool output (``bernoulli`` of an int tensor) in float64
    kernel_dt = dt if dt in _KERNEL_DTYPES else np.dtype(np.float32 if dt == np.float16 else np.float64)
    out = cupy.empty((n,), dtype=kernel_dt)
    if n:
        fn = function("philox", cuda_src.philox_source, f"mg_philox_{dist}_{_KERNEL_DTYPES[kernel_dt]}")
        launch_1d(fn, n, (out, np.int64(n), np.uint64(seed), np.uint64(offset), np.float64(a), np.float64(b)))
    return out if kernel_dt == dt else out.astype(dt)


def uniform(n: int, np_dtype: Any, seed: int, offset: int, low: float = 0.0, high: float = 1.0) -> Any:
    """``n`` uniforms in ``[low, high)``."""
    return _floats("uniform", n, np_dtype, seed, offset, low, high)


def normal(n: int, np_dtype: Any, seed: int, offset: int, mean: float = 0.0, std: float = 1.0) -> Any:
    """``n`` samples of N(mean, std**2)."""
    return _floats("normal", n, np_dtype, seed, offset, mean, std)


def bernoulli(n: int, np_dtype: Any, seed: int, offset: int, p: float, value: float = 1.0) -> Any:
    """``n`` draws of ``value`` with probability ``p``, else 0 (dropout's mask: ``value = 1 / (1 - p)``)."""
    return _floats("bernoulli", n, np_dtype, seed, offset, p, value)


def randint(n: int, np_dtype: Any, seed: int, offset: int, low: int, high: int) -> Any:
    """``n`` integers in ``[low, high)`` (int64 drawn, then cast to ``np_dtype`` on the device)."""
    out = cupy.empty((n,), dtype=np.int64)
    if n:
        fn = function("philox", cuda_src.philox_source, "mg_philox_randint")
        launch_1d(fn, n, (out, np.int64(n), np.uint64(seed), np.uint64(offset), np.int64(low), np.uint64(high - low)))
    return out if np.dtype(np_dtype) == np.int64 else out.astype(np_dtype)


def _of(dist: str) -> Any:
    """Draws of ``dist`` (``exponential``, ``cauchy``, ``log_normal``, ``geometric``: one uniform, or the normal's
    two, transformed in the kernel), with the distribution's two numbers (the second unused by some)."""
    def make(n: int, np_dtype: Any, seed: int, offset: int, a: float, b: float = 0.0) -> Any:
        return _floats(dist, n, np_dtype, seed, offset, a, b)

    make.__name__ = dist
    return make


#: the backend's ``made`` entries (``devices.made_array``)
MADE = {"uniform": uniform, "normal": normal, "bernoulli": bernoulli, "randint": randint,
        **{dist: _of(dist) for dist in ("exponential", "cauchy", "log_normal", "geometric")}}
