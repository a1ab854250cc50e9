"""KernelKey = {Backend, Layout, DataType} (Paddle's ``phi::KernelKey``, paddle/phi/core/kernel_factory.h).

``Backend`` and ``Layout`` (the names) are defined with the devices, in
``minigrad/devices.py``, since a tensor carries its layout and device.

Backends and layouts are plain interned strings, so a key is a cheap tuple
that hashes fast on the hot path.
"""

from __future__ import annotations

from typing import NamedTuple

from ..devices import Backend, Layout
from ..dtypes import DType

__all__ = ["Backend", "Layout", "KernelKey"]


class KernelKey(NamedTuple):
    """The key a kernel is registered and looked up under."""

    backend: str
    layout: str
    dtype: DType

    def __str__(self) -> str:
        return f"({self.backend}, {self.layout}, {self.dtype.name})"  # Paddle's KernelKey prints bare names
