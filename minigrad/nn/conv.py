"""Convolution modules (``mg.nn.Conv1d``, ``mg.nn.ConvTranspose2d`` ...), as PyTorch's ``torch/nn/modules/conv.py``.

The parameters have PyTorch's names, shapes and initialisation, so a
PyTorch ``state_dict`` loads as is: ``weight`` is ``(out, in / groups, *k)``
for a convolution and ``(in, out / groups, *k)`` for a transposed one, both
drawn from ``U(-b, b)`` with ``b = 1 / sqrt(fan_in)`` (``fan_in`` = ``weight``'s
dim 1 times the kernel size: PyTorch's ``kaiming_uniform_(a=sqrt(5))``), as is
``bias``. ``padding_mode`` other than ``"zeros"`` pads with ``F.pad`` first, as
PyTorch does.

Example:
    >>> import minigrad as mg
    >>> mg.manual_seed(0)
    >>> mg.nn.ConvTranspose2d(8, 4, kernel_size=4, stride=2, padding=1)(mg.ones(1, 8, 5, 5)).shape
    minigrad.Size([1, 4, 10, 10])
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, _new_parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(v: Any, n: int, name: str) -> tuple[int, ...]:
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * n
    if isinstance(v, (tuple, list)) and len(v) == n and all(isinstance(i, int) for i in v):
        return tuple(v)
    raise TypeError(f"argument '{name}' must be an int or a tuple of {n} ints, but got {v!r}")


class _ConvNd(Module):
    """What every convolution module holds: sizes as tuples, ``weight`` and ``bias`` parameters."""

    n: int = 1
    transposed: bool = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 output_padding: Any = 0, dtype: Any = None, device: Any = None) -> None:
        super().__init__()
        n = self.n
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"{type(self).__name__}(): groups must be a positive integer, but got {groups!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{type(self).__name__}(): in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by groups ({groups})")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"{type(self).__name__}(): padding_mode must be one of 'zeros', 'reflect', 'replicate' or "
                             f"'circular', but got {padding_mode!r}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _ntuple(kernel_size, n, "kernel_size")
        self.stride, self.dilation = _ntuple(stride, n, "stride"), _ntuple(dilation, n, "dilation")
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n, "padding")
        self.output_padding = _ntuple(output_padding, n, "output_padding")
        self.padding_mode = padding_mode
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = _new_parameter(shape, dtype, device=device)
        self.bias = _new_parameter((out_channels,), dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's initialisation (Kaiming-uniform weight, ``a=sqrt(5)``; bias from 1/sqrt(fan_in)), drawn
        from the default generator in PyTorch's order."""
        init._linear_default_(self.weight, self.bias)

    def _padded(self, input: Tensor) -> tuple[Tensor, Any]:
        """The input padded by ``padding_mode`` (and the padding left for the convolution)."""
        if self.padding_mode == "zeros" or self.padding == "valid":
            return input, self.padding
        if self.padding == "same":  # PyTorch's split: the odd element of d * (k - 1) on the right
            sides = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(self.dilation, self.kernel_size)]
        else:
            sides = [(p, p) for p in self.padding]
        amounts = tuple(a for pair in reversed(sides) for a in pair)
        return F.pad(input, amounts, mode=self.padding_mode), (0,) * self.n

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self.n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _ConvForwardNd(_ConvNd):
    """``Conv1d``'s and ``Conv2d``'s constructor: PyTorch's arguments, without a transposed one's
    ``output_padding``."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         dtype=dtype, device=device)


class Conv1d(_ConvForwardNd):
    """1-D convolution over ``(N, C_in, L)``: weight ``(C_out, C_in / groups, k)``."""

    def forward(self, input: Tensor) -> Tensor:
        x, padding = self._padded(input)
        return F.conv1d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv2d(_ConvForwardNd):
    """2-D convolution over ``(N, C_in, H, W)``: weight ``(C_out, C_in / groups, kh, kw)``, with PyTorch's
    ``dilation``, ``groups``, string ``padding`` and ``padding_mode``."""

    n = 2

    def forward(self, input: Tensor) -> Tensor:
        x, padding = self._padded(input)
        if self.dilation == (1, 1) and self.groups == 1:
            return F.conv2d(x, self.weight, self.bias, self.stride, padding)
        return F.conv2d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv3d(_ConvForwardNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` (or unbatched ``(C_in, D, H, W)``): weight
    ``(C_out, C_in / groups, kD, kH, kW)``, with PyTorch's ``dilation``, ``groups``, string ``padding`` and
    ``padding_mode``."""

    n = 3

    def forward(self, input: Tensor) -> Tensor:
        x, padding = self._padded(input)
        return F.conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, dtype=dtype, device=device)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...]:
        """``output_size`` (the wanted spatial size) picks the output padding, as PyTorch's does."""
        if output_size is None:
            return self.output_padding
        want = tuple(output_size)[-self.n:]
        spatial = tuple(input.shape)[-self.n:]
        pads = []
        for i in range(self.n):
            least = ((spatial[i] - 1) * self.stride[i] - 2 * self.padding[i]
                     + self.dilation[i] * (self.kernel_size[i] - 1) + 1)
            extra = want[i] - least
            if not 0 <= extra < max(self.stride[i], self.dilation[i]):
                raise ValueError(f"{type(self).__name__}: requested an output size of {want}, but valid sizes range "
                                 f"from {least} to {least + max(self.stride[i], self.dilation[i]) - 1} in dim {i}")
            pads.append(extra)
        return tuple(pads)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution over ``(N, C_in, L)``: weight ``(C_in, C_out / groups, k)``."""

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution over ``(N, C_in, H, W)`` (a learnt upsampling, DCGAN's generator layer)."""

    n = 2

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution over ``(N, C_in, D, H, W)``: weight ``(C_in, C_out / groups, kD, kH, kW)`` (a learnt
    upsampling of volumes)."""

    n = 3

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)
