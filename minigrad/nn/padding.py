"""Padding modules (``ZeroPad2d``, ``ReflectionPad2d`` ...), as PyTorch's ``torch/nn/modules/padding.py``:
``F.pad`` with a fixed mode and amounts (an int pads every side by it).

Example:
    >>> import minigrad as mg
    >>> mg.nn.ReflectionPad2d(1)(mg.ones(1, 1, 3, 3)).shape
    minigrad.Size([1, 1, 5, 5])
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d",
    "ConstantPad3d", "ZeroPad3d", "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d",
]


class _Pad(Module):
    mode = "constant"
    sides = 2

    def __init__(self, padding: Any, value: float | None = None) -> None:
        super().__init__()
        self.padding = (padding,) * self.sides if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != self.sides:
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple of {self.sides} ints, "
                             f"but got {padding!r}")
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode, self.value)

    def extra_repr(self) -> str:
        if type(self).__name__.startswith("ConstantPad"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


class ConstantPad1d(_Pad):
    """Pad the last dim with ``value``."""

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    """Pad the last two dims with ``value``."""

    sides = 4


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)


class ZeroPad2d(ZeroPad1d):
    """Pad the last two dims with zeros."""

    sides = 4


class ReflectionPad1d(_Pad):
    """Pad the last dim with its reflection (the edge not repeated)."""

    mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    """Pad the last two dims with their reflection."""

    sides = 4


class ReplicationPad1d(_Pad):
    """Pad the last dim by repeating its edge values."""

    mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pad the last two dims by repeating their edges."""

    sides = 4


class CircularPad1d(_Pad):
    """Pad the last dim by wrapping around."""

    mode = "circular"


class CircularPad2d(CircularPad1d):
    """Pad the last two dims by wrapping around."""

    sides = 4


class ConstantPad3d(ConstantPad1d):
    """Pad the last three dims with ``value`` (``padding``: left, right, top, bottom, front, back)."""

    sides = 6


class ZeroPad3d(ZeroPad1d):
    """Pad the last three dims with zeros."""

    sides = 6


class ReflectionPad3d(ReflectionPad1d):
    """Pad the last three dims with their reflection (``ReflectionPad3DBackward0``)."""

    sides = 6


class ReplicationPad3d(ReplicationPad1d):
    """Pad the last three dims by repeating their edges (``ReplicationPad3DBackward0``)."""

    sides = 6


class CircularPad3d(CircularPad1d):
    """Pad the last three dims by wrapping around."""

    sides = 6
