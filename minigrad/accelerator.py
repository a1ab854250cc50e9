"""``mg.accelerator``: PyTorch's device-neutral questions about the accelerator (``torch.accelerator``),
answered for minigrad's one, the CUDA GPU that CuPy drives (``mg.cuda`` answers the CUDA-named ones).

PyTorch's tutorials open with it:

Example:
    >>> import minigrad as mg
    >>> device = mg.accelerator.current_accelerator().type if mg.accelerator.is_available() else "cpu"
    >>> mg.ones(2, device=device).device.type in ("cpu", "cuda")
    True
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from . import cuda
from .devices import device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count", "device_index",
           "empty_cache", "is_available", "set_device_idx", "set_device_index", "synchronize"]


def is_available() -> bool:
    """True when a GPU can be used (CuPy imports and a CUDA device is present); never raises."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> device | None:
    """``device(type='cuda')``, the accelerator minigrad can drive; None when ``check_available`` is true and
    no GPU is present (PyTorch answers None on a build without one; minigrad's GPU backend is always built)."""
    if check_available and not is_available():
        return None
    return device("cuda")


def device_count() -> int:
    """How many accelerators minigrad can use: 1 with a GPU, else 0."""
    return cuda.device_count()


def current_device_index() -> int:
    """The index of the accelerator in use: 0 (minigrad drives one GPU)."""
    return cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device: Any, /) -> None:
    """Select the accelerator by index: only 0 (or None, or ``"cuda"``/``"cuda:0"``) names minigrad's GPU."""
    index = _index(device)
    if index not in (None, 0, -1):
        raise RuntimeError(f"Invalid device index {index}: minigrad drives one GPU (index 0)")


set_device_idx = set_device_index


@contextmanager
def device_index(device: Any, /) -> Iterator[None]:
    """A context in which ``device`` is the current accelerator (minigrad's one GPU: nothing to switch)."""
    set_device_index(device)
    yield


def synchronize(device: Any = None, /) -> None:
    """Wait for the accelerator's queued work (a ``device.sync`` event, as ``mg.cuda.synchronize``)."""
    cuda.synchronize(device)


def empty_cache() -> None:
    """Give the memory the GPU's pool holds but no tensor uses back to the device (nothing without one)."""
    if is_available():
        import cupy  # noqa: PLC0415  (optional third-party package, imported on use)

        cupy.get_default_memory_pool().free_all_blocks()


def _index(value: Any) -> int | None:
    """The device index ``value`` names (``1``, ``"cuda:1"``, ``mg.device("cuda", 1)``); 0 for ``"cuda"``."""
    if value is None or isinstance(value, int):
        return value
    return device(value).index or 0
