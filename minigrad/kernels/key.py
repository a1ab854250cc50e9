"""KernelKey = {Backend, Layout, DataType} (seed 002 §"KernelKey").

Backends and layouts are plain interned strings, so a key is a cheap tuple
that hashes fast on the hot path.
"""

from __future__ import annotations

from typing import NamedTuple

from ..dtypes import DType

__all__ = ["Backend", "Layout", "KernelKey"]


class Backend:
    """Backend names. ``GPUDNN`` is the library-accelerated GPU variant (cuBLAS/cuDNN)."""

    CPU = "CPU"
    GPU = "GPU"
    GPUDNN = "GPUDNN"
    #: An argument def that accepts any backend (PrepareData does not move it).
    ALL_BACKEND = "ALL_BACKEND"


class Layout:
    """Data layouts. Tensors default to ``NCHW`` (as Paddle's DenseTensor does);
    most kernels are registered for ``ALL_LAYOUT``."""

    ALL_LAYOUT = "ALL_LAYOUT"
    NCHW = "NCHW"
    NHWC = "NHWC"


class KernelKey(NamedTuple):
    """The key a kernel is registered and looked up under."""

    backend: str
    layout: str
    dtype: DType

    def __str__(self) -> str:
        return f"({self.backend}, {self.layout}, {self.dtype})"
