"""``mg.cpu``: PyTorch's ``torch.cpu`` - the CPU as a device module, for device-agnostic programs.

Code that runs on either device asks the device's module its questions: ``mg.get_device_module(device)``
(or ``getattr(torch, device_type)``) gives ``mg.cuda`` for the GPU and this module for the CPU, which has
one device, always there, and nothing to wait for. Its streams and events exist so that such code runs
unchanged; each does nothing, as PyTorch's do. ``mg.cpu.amp`` holds the older spelling of CPU mixed
precision (``mg.cpu.amp.autocast()`` is ``mg.autocast("cpu")``, with PyTorch's deprecation warning).

Example:
    >>> import minigrad as mg
    >>> mg.get_device_module("cpu") is mg.cpu, mg.cpu.device_count(), mg.cpu.current_device()
    (True, 1, 'cpu')
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any

from . import dtypes as _dt
from .amp import GradScaler as _GradScaler
from .amp import autocast as _autocast

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device", "synchronize",
           "current_stream", "stream", "Stream", "Event", "StreamContext", "amp"]


def is_available() -> bool:
    """Always True: the CPU is always there."""
    return True


def is_initialized() -> bool:
    """Always True: the CPU needs no initialization."""
    return True


def device_count() -> int:
    """One: minigrad, as PyTorch, treats the CPU as one device."""
    return 1


def current_device() -> str:
    """``"cpu"``."""
    return "cpu"


def set_device(device: Any) -> None:
    """Does nothing: the CPU is the only CPU device."""


def synchronize(device: Any = None) -> None:
    """Does nothing: CPU work is done when its call returns."""


class Stream:
    """A CPU stream, which exists for device-agnostic code: its methods do nothing (PyTorch's too)."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream: Any) -> None:
        """Nothing to wait for."""

    def record_event(self) -> None:
        """Nothing to record."""

    def wait_event(self, event: Any) -> None:
        """Nothing to wait for."""


class Event:
    """A CPU event: always complete."""

    def query(self) -> bool:
        """True: the work before it is done."""
        return True

    def record(self, stream: Any = None) -> None:
        """Nothing to record."""

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, stream: Any = None) -> None:
        """Nothing to wait for."""


_DEFAULT_STREAM = Stream()
_CURRENT: list[Stream] = [_DEFAULT_STREAM]


def current_stream(device: Any = None) -> Stream:
    """The stream set by the innermost ``mg.cpu.stream(...)`` block, else the default one."""
    return _CURRENT[-1]


class StreamContext:
    """``with mg.cpu.stream(s):``: ``s`` is the current stream inside the block."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    def __enter__(self) -> None:
        _CURRENT.append(self.stream)

    def __exit__(self, *exc: Any) -> None:
        _CURRENT.pop()


def stream(stream: Stream) -> StreamContext:
    """A context in which ``stream`` is the current CPU stream."""
    return StreamContext(stream)


# -- torch.cpu.amp: the older spelling of CPU mixed precision ------------------------------------------------


class _CpuAutocast(_autocast):
    """``torch.cpu.amp.autocast(...)``: ``autocast("cpu", ...)`` (deprecated in PyTorch)."""

    __slots__ = ()

    def __init__(self, enabled: bool = True, dtype: Any = _dt.bfloat16, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype, enabled, cache_enabled)


class _CpuGradScaler(_GradScaler):
    """``torch.cpu.amp.GradScaler(...)``: ``GradScaler("cpu", ...)`` (deprecated in PyTorch)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


_CpuAutocast.__name__ = _CpuAutocast.__qualname__ = "autocast"
_CpuGradScaler.__name__ = _CpuGradScaler.__qualname__ = "GradScaler"

#: ``mg.cpu.amp`` (importable as ``minigrad.cpu.amp``, as ``torch.cpu.amp`` is).
amp = types.ModuleType(f"{__name__}.amp", "torch.cpu.amp's names: autocast and GradScaler, fixed to the CPU.")
amp.autocast = _CpuAutocast  # type: ignore[attr-defined]
amp.GradScaler = _CpuGradScaler  # type: ignore[attr-defined]
amp.__all__ = ["autocast", "GradScaler"]  # type: ignore[attr-defined]
sys.modules[amp.__name__] = amp


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
