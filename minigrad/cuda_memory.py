"""``mg.cuda``'s memory statistics, read from CuPy's default memory pool (PyTorch's ``torch/cuda/memory.py``).

Every GPU array minigrad makes comes from CuPy's default memory pool, which, as PyTorch's caching
allocator, keeps freed blocks for reuse instead of giving them back to the driver:

- *allocated* bytes are those of live arrays (``pool.used_bytes()``; CuPy rounds each request up
  to 512 bytes, as PyTorch does);
- *reserved* bytes are allocated plus cached (``pool.total_bytes()``); ``empty_cache()`` gives the
  cached blocks back (``pool.free_all_blocks()``).

NOTE [ The peak starts at the first question ] CuPy's pool keeps no peak. minigrad tracks it with a
CuPy memory hook (``cupy.cuda.MemoryHook``) installed by the first call that needs it
(``max_memory_allocated``, ``max_memory_reserved``, ``reset_peak_memory_stats``, ``memory_stats``,
``memory_summary``), not from program start: a hook is a Python call on every allocation, which
would slow every op that PyTorch CUDA runs without one. So a peak is honest from that first call on
- call ``mg.cuda.reset_peak_memory_stats()`` before the code to measure, as a course does anyway -
and a peak reached before it is not seen (PyTorch's counts from the program's start). CuPy's hooks
are per thread: allocations of another thread are not in the peak.

Without a GPU each answers as PyTorch's CPU-only build: the byte counts are 0, ``memory_stats()`` is
empty, and the rest raise what that build raises.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any

from .devices import is_gpu_available

__all__ = [
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
    "reset_max_memory_allocated", "empty_cache", "mem_get_info", "memory_stats", "memory_summary",
]

NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _cupy() -> Any:
    import cupy  # noqa: PLC0415  (optional third-party package, imported on use)

    return cupy


class _Peak:
    """Peaks of allocated and reserved bytes, kept by a CuPy memory hook (NOTE [ The peak starts at the
    first question ]). The hook object itself is made by ``_hook_class``, as its base class is CuPy's."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.reset()

    def reset(self) -> None:
        self.allocated = self.peak_allocated = int(self.pool.used_bytes())
        self.reserved = self.peak_reserved = int(self.pool.total_bytes())
        self.allocations = self.frees = 0  # counted since the hook was installed

    def on_malloc(self, mem_size: int) -> None:
        self.allocated += mem_size
        self.allocations += 1
        if self.allocated > self.peak_allocated:
            self.peak_allocated = self.allocated

    def on_free(self, mem_size: int) -> None:
        self.allocated -= mem_size
        self.frees += 1

    def on_grow(self, mem_size: int) -> None:
        self.reserved += mem_size
        if self.reserved > self.peak_reserved:
            self.peak_reserved = self.reserved

    def refresh(self) -> None:
        """Take the pool's own counts (``empty_cache`` shrinks the reserved bytes, which no hook sees)."""
        self.allocated = int(self.pool.used_bytes())
        self.reserved = int(self.pool.total_bytes())
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        self.peak_reserved = max(self.peak_reserved, self.reserved)


def _hook_class(cupy: Any) -> type:
    """A ``cupy.cuda.MemoryHook`` that reports each pool allocation (``malloc_postprocess``), each block given
    back to the pool (``free_postprocess``) and each growth of the pool (``alloc_postprocess``) to a ``_Peak``."""

    class PeakHook(cupy.cuda.MemoryHook):
        name = "minigrad.cuda.peak"

        def __init__(self, peak: _Peak) -> None:
            self.peak = peak

        def malloc_postprocess(self, **kw: Any) -> None:
            self.peak.on_malloc(kw["mem_size"])

        def free_postprocess(self, **kw: Any) -> None:
            self.peak.on_free(kw["mem_size"])

        def alloc_postprocess(self, **kw: Any) -> None:
            self.peak.on_grow(kw["mem_size"])

    return PeakHook


_PEAK: list[_Peak] = []  # the tracker, once a statistic that needs it was asked for


def _peak() -> _Peak:
    if not _PEAK:
        cupy = _cupy()
        peak = _Peak(cupy.get_default_memory_pool())
        _hook_class(cupy)(peak).__enter__()  # installed for good: the peak counts from here on
        _PEAK.append(peak)
    _PEAK[0].refresh()
    return _PEAK[0]


def memory_allocated(device: Any = None) -> int:
    """Bytes held by live GPU arrays (0 without a GPU)."""
    return int(_cupy().get_default_memory_pool().used_bytes()) if is_gpu_available() else 0


def memory_reserved(device: Any = None) -> int:
    """Bytes the pool holds from the driver: allocated plus cached (0 without a GPU)."""
    return int(_cupy().get_default_memory_pool().total_bytes()) if is_gpu_available() else 0


def max_memory_allocated(device: Any = None) -> int:
    """The peak of ``memory_allocated()`` since the last ``reset_peak_memory_stats()``, or since the first
    memory statistic was asked for (NOTE [ The peak starts at the first question ]); 0 without a GPU.

    Example:
        >>> import minigrad as mg
        >>> if mg.cuda.is_available():
        ...     mg.cuda.reset_peak_memory_stats()
        ...     x = mg.ones(1024, device="cuda"); del x
        ...     assert mg.cuda.max_memory_allocated() >= 4096
    """
    return _peak().peak_allocated if is_gpu_available() else 0


def max_memory_reserved(device: Any = None) -> int:
    """The peak of ``memory_reserved()``, counted as ``max_memory_allocated`` is; 0 without a GPU."""
    return _peak().peak_reserved if is_gpu_available() else 0


def reset_peak_memory_stats(device: Any = None) -> None:
    """Start the peaks again from the present bytes (and start tracking them, on the first call)."""
    if not is_gpu_available():  # PyTorch's CPU build has no binding for it
        raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")
    _peak().reset()


def reset_max_memory_allocated(device: Any = None) -> None:
    """PyTorch's older name: resets every peak, with PyTorch's ``FutureWarning`` saying so."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Give the pool's cached blocks back to the driver (live arrays keep theirs); nothing without a GPU."""
    if is_gpu_available():
        _cupy().get_default_memory_pool().free_all_blocks()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """``(free, total)`` bytes of the GPU, as the driver counts them (``cudaMemGetInfo``)."""
    if not is_gpu_available():
        raise AssertionError(NOT_COMPILED)
    free, total = _cupy().cuda.runtime.memGetInfo()
    return int(free), int(total)


def memory_stats(device: Any = None) -> collections.OrderedDict:
    """PyTorch's ``memory_stats`` keys for what minigrad measures, sorted as PyTorch sorts them (empty
    without a GPU). ``allocation.all.allocated``/``freed`` count since the peak hook was installed."""
    if not is_gpu_available():
        return collections.OrderedDict()
    p = _peak()
    stats = {
        "allocated_bytes.all.current": p.allocated, "allocated_bytes.all.peak": p.peak_allocated,
        "active_bytes.all.current": p.allocated, "active_bytes.all.peak": p.peak_allocated,
        "reserved_bytes.all.current": p.reserved, "reserved_bytes.all.peak": p.peak_reserved,
        "allocation.all.allocated": p.allocations, "allocation.all.freed": p.frees,
        "num_alloc_retries": 0, "num_ooms": 0,
    }
    return collections.OrderedDict(sorted(stats.items()))


def _size(n: int) -> str:
    """Bytes as PyTorch's summary prints them (``_format_size``: B, KiB, MiB, GiB...)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:6d} {unit:3s}" if unit == "B" else f"{n:6.0f} {unit}"
        n /= 1024
    return str(n)


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """A table of ``memory_stats()``: the bytes now and at their peak (PyTorch's CPU build, having no stats,
    raises its ``KeyError``)."""
    stats = memory_stats(device)
    if not stats:
        raise KeyError("allocated_bytes.all.current")
    rule = "|" + "=" * 60 + "|"
    rows = [("Allocated memory", "allocated_bytes"), ("Active memory", "active_bytes"),
            ("GPU reserved memory", "reserved_bytes")]
    lines = [rule, "|" + " minigrad CUDA memory summary (CuPy's default pool), device 0".ljust(60) + "|",
             "|" + " peaks since the first memory statistic asked for, or the last reset".ljust(60) + "|", rule,
             "|" + "        Metric          |   Cur Usage   |   Peak Usage   ".ljust(60) + "|", rule]
    for title, key in rows:
        cur, peak = stats[f"{key}.all.current"], stats[f"{key}.all.peak"]
        lines.append(f"| {title:<22s} | {_size(cur):>13s} | {_size(peak):>14s} ".ljust(61) + "|")
    cached = stats["reserved_bytes.all.current"] - stats["allocated_bytes.all.current"]
    lines.append(f"| {'Cached (empty_cache)':<22s} | {_size(cached):>13s} | {'':>14s} ".ljust(61) + "|")
    lines.append(rule)
    for key in ("num_alloc_retries", "num_ooms"):
        lines.append(f"| {key:<22s} | {stats[key]:>13d} |".ljust(61) + "|")
    lines.append(rule)
    return "\n".join(lines) + "\n"


def memory_cached(device: Any = None) -> int:
    """PyTorch's old name of ``memory_reserved``, with its ``FutureWarning``."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device: Any = None) -> int:
    """PyTorch's old name of ``max_memory_reserved``, with its ``FutureWarning``."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`", FutureWarning,
                  stacklevel=2)
    return max_memory_reserved(device)


def reset_max_memory_cached(device: Any = None) -> None:
    """PyTorch's older name: resets every peak, with PyTorch's ``FutureWarning`` saying so."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Zero the allocation and free counts of ``memory_stats()`` (the bytes and peaks stay)."""
    if not is_gpu_available():  # PyTorch's CPU build has no binding for it
        raise AttributeError("module 'torch._C' has no attribute '_cuda_resetAccumulatedMemoryStats'")
    p = _peak()
    p.allocations = p.frees = 0


def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
    """``memory_stats()`` with its dotted keys as nested dicts (``{"allocated_bytes": {"all": {...}}}``)."""
    nested: dict[str, Any] = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


__all__ += ["memory_cached", "max_memory_cached", "reset_max_memory_cached", "reset_accumulated_memory_stats",
            "memory_stats_as_nested_dict"]
