"""``mg.cuda.nvtx``: named ranges a profiler (Nsight Systems) shows on the timeline, over ``cupy.cuda.nvtx``.

``range_push``/``range_pop`` nest as a stack and return its depth, as PyTorch's ``torch.cuda.nvtx``
(``nvtxRangePushA``: the 0-based depth of the range started; ``nvtxRangePop``: of the range ended,
-1 when none was open). Without a GPU (or a CuPy built without NVTX) each raises PyTorch's CPU build's
``RuntimeError``.

Example:
    >>> import minigrad as mg
    >>> if mg.cuda.is_available():
    ...     with mg.cuda.nvtx.range("forward"):
    ...         pass
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from .devices import is_gpu_available

__all__ = ["range_push", "range_pop", "range", "mark"]

_DEPTH = [0]  # ranges open now (NVTX's stack is per thread; minigrad's programs push from one)


def _nvtx() -> Any:
    if is_gpu_available():
        import cupy  # noqa: PLC0415  (optional third-party package, imported on use)

        nvtx = getattr(cupy.cuda, "nvtx", None)
        if nvtx is not None and getattr(nvtx, "available", True):
            return nvtx
    raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


def range_push(msg: str) -> int:
    """Open a range named ``msg``; its 0-based depth."""
    _nvtx().RangePush(msg)
    _DEPTH[0] += 1
    return _DEPTH[0] - 1


def range_pop() -> int:
    """Close the innermost range; its 0-based depth (-1 when none was open)."""
    nvtx = _nvtx()
    if not _DEPTH[0]:
        return -1
    nvtx.RangePop()
    _DEPTH[0] -= 1
    return _DEPTH[0]


def mark(msg: str) -> None:
    """An instant marker named ``msg``."""
    _nvtx().Mark(msg)


@contextlib.contextmanager
def range(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:  # noqa: A001  (PyTorch's name)
    """A range around a ``with`` block; ``msg`` is formatted with ``args``/``kwargs`` (``str.format``)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
