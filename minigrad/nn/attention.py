"""``torch.nn.attention``: which kernels ``F.scaled_dot_product_attention`` may run (``sdpa_kernel``).

Example:
    >>> import minigrad as mg
    >>> from minigrad.nn.attention import SDPBackend, sdpa_kernel
    >>> q = mg.ones(1, 2, 4, 8, requires_grad=True)
    >>> type(mg.nn.functional.scaled_dot_product_attention(q, q, q).grad_fn).__name__
    'ScaledDotProductFlashAttentionForCpuBackward0'
    >>> with sdpa_kernel(SDPBackend.MATH):  # PyTorch's math path: a composite of ops
    ...     type(mg.nn.functional.scaled_dot_product_attention(q, q, q).grad_fn).__name__
    'UnsafeViewBackward0'
"""

from __future__ import annotations

import contextlib
import enum
from typing import Any, Iterator

from ..backends import SDP_ENABLED

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch has (its numbering)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


#: each backend's switch in ``backends.SDP_ENABLED`` (ERROR and OVERRIDEABLE have none: never viable here)
_SWITCH = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash", SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
           SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[dict[str, Any]]:
    """Only ``backends`` (one ``SDPBackend`` or a list) may run inside the block; the previous switches after it.
    ``set_priority`` is taken and has no effect (minigrad's choice among the kernels left is PyTorch's default)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    before = dict(SDP_ENABLED)
    SDP_ENABLED.update({switch: backend in chosen for backend, switch in _SWITCH.items()})
    try:
        yield {}
    finally:
        SDP_ENABLED.update(before)
