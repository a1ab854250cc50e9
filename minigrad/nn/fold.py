"""``mg.nn.Unfold`` and ``mg.nn.Fold`` (im2col and col2im as layers), as PyTorch's ``torch/nn/modules/fold.py``.

Example:
    >>> import minigrad as mg
    >>> mg.nn.Unfold(kernel_size=2)(mg.ones(1, 3, 4, 4)).shape
    minigrad.Size([1, 12, 9])
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["Unfold", "Fold"]


class Unfold(Module):
    """Every ``kernel_size`` window of ``(N, C, H, W)`` as a column of ``(N, C * kH * kW, L)``."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class Fold(Module):
    """Columns ``(N, C * kH * kW, L)`` summed back into ``(N, C, *output_size)``."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
