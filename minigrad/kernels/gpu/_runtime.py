"""Compiling and launching the CUDA sources with CuPy (imported only on the GPU path)."""

from __future__ import annotations

from typing import Any, Callable

import cupy
import numpy as np

from . import cuda_src

__all__ = ["function", "dtype_name", "launch_1d", "strides_meta", "block_for"]

_modules: dict[tuple[str, str], Any] = {}

#: NumPy dtype -> minigrad dtype name of the hand-written kernels
_NAMES = {np.dtype(np.float16): "float16", np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}


def dtype_name(dt: Any) -> str:
    return _NAMES[np.dtype(dt)]


#: when a list, every launch made through ``function()`` is also appended to it as (kernel, grid, block, args)
recording: list[tuple[Any, tuple, tuple, tuple]] | None = None


class _Recorded:
    """A kernel that notes each launch in ``recording`` (used by ``bench/gpu_kernels.py`` to time kernels alone)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        self.fn(grid, block, args)
        if recording is not None:
            recording.append((self.fn, grid, block, args))


def function(label: str, make_source: Callable[[], str], name: str, options: tuple[str, ...] = ()) -> Any:
    """The kernel ``name`` of the module ``label`` (compiled once with NVRTC and ``options``, then cached)."""
    fn = _modules.get((label, name))
    if fn is None:
        mod = _modules.get((label, ""))
        if mod is None:
            mod = cupy.RawModule(code=make_source(), options=options)
            _modules[(label, "")] = mod
        fn = _modules[(label, name)] = mod.get_function(name)
    return fn if recording is None else _Recorded(fn)


_SM_COUNT: list[int] = []


def launch_1d(fn: Any, n: int, args: tuple[Any, ...], threads: int = 256) -> None:
    """A grid-stride launch: enough blocks to fill the device, at most one per ``threads`` elements."""
    if not _SM_COUNT:
        _SM_COUNT.append(cupy.cuda.Device().attributes["MultiProcessorCount"])
    blocks = max(1, min((n + threads - 1) // threads, _SM_COUNT[0] * 32))
    fn((blocks,), (threads,), args)


def strides_meta(out_shape: tuple[int, ...], *arrays: Any) -> Any:
    """Output shape then each input's element strides (0 on broadcast dims), as a device int64 array."""
    nd = len(out_shape)
    rows = [list(out_shape)]
    for a in arrays:
        lead = nd - a.ndim
        st = [0] * lead
        for d, (size, stride) in enumerate(zip(a.shape, a.strides)):
            st.append(0 if size == 1 and out_shape[lead + d] != 1 else stride // a.itemsize)
        rows.append(st)
    return cupy.asarray(np.asarray(rows, dtype=np.int64).reshape(-1))


def block_for(cols: int) -> int:
    """Threads per row-block: a power of two in [32, 256] covering ``cols``."""
    b = 32
    while b < cols and b < 256:
        b *= 2
    return b


# Re-export for the kernel modules.
sources = cuda_src
