"""Pooling modules (``mg.nn.AvgPool2d``, ``mg.nn.AdaptiveAvgPool2d`` ...), as PyTorch's ``torch/nn/modules/pooling.py``.

Each keeps its options and calls the function of ``functional``; none has
parameters. ``MaxPool2d`` is older and lives in ``nn/__init__.py``.

Example:
    >>> import minigrad as mg
    >>> mg.nn.AdaptiveAvgPool2d((1, 1))(mg.ones(2, 3, 5, 5)).shape
    minigrad.Size([2, 3, 1, 1])
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d"]


class AvgPool1d(Module):
    """Average over windows of ``kernel_size`` along the last dim of ``(N, C, L)``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={_one(self.kernel_size)}, stride={_one(self.stride)}, padding={_one(self.padding)}"


class _AvgPoolNd(Module):
    """Average pooling over ``kernel_size`` windows (``pool``, the functional form); ``stride`` defaults to
    ``kernel_size`` (PyTorch's ``_AvgPoolNd``)."""

    pool: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride if stride is not None else kernel_size, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self).pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                               self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Average over ``kernel_size`` windows of ``(N, C, H, W)``; ``stride`` defaults to ``kernel_size``."""

    pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """Average over ``kernel_size`` windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; ``stride`` defaults to
    ``kernel_size``."""

    pool = staticmethod(F.avg_pool3d)


class AdaptiveAvgPool1d(Module):
    """Average pooling of ``(N, C, L)`` to ``output_size`` positions."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    """Average pooling of ``(N, C, H, W)`` to ``output_size`` (``(1, 1)``: global average pooling)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


def _one(v: Any) -> Any:
    """PyTorch shows a 1-D pool's sizes as 1-tuples."""
    return (v,) if isinstance(v, int) else tuple(v)


class MaxPool1d(Module):
    """The maximum over windows of ``kernel_size`` along the last dim of ``(N, C, L)``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AdaptiveMaxPool1d(Module):
    """The maximum of each of ``output_size`` adaptive windows of ``(N, C, L)``."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(AdaptiveMaxPool1d):
    """The maximum of each adaptive window of ``(N, C, H, W)`` (``1``: global max pooling)."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(AdaptiveMaxPool1d):
    """The maximum of each adaptive window of ``(N, C, D, H, W)``."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


__all__ += ["MaxPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"]


class MaxPool3d(MaxPool1d):
    """The maximum over ``kernel_size`` windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (``F.max_pool3d``; its
    indices, with ``return_indices``, are what ``MaxUnpool3d`` takes)."""

    def forward(self, input: Tensor) -> Any:
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """Average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to ``output_size`` (``F.adaptive_avg_pool3d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


__all__ += ["MaxPool3d", "AdaptiveAvgPool3d"]


class _MaxUnpoolNd(Module):
    """Max unpooling: the input written at ``indices`` (a max pool's) in zero planes."""

    _dims = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        k = self._dims

        def n_tuple(v: Any) -> tuple[int, ...]:
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * k
        self.kernel_size = n_tuple(kernel_size)
        self.stride = n_tuple(stride if stride is not None else kernel_size)
        self.padding = n_tuple(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        fn = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[self._dims]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The inverse of ``MaxPool1d`` where its maxima were: zeros elsewhere."""

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The inverse of ``MaxPool2d`` where its maxima were: zeros elsewhere."""

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The inverse of ``MaxPool3d`` where its maxima were: zeros elsewhere."""

    _dims = 3


__all__ += ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _LPPoolNd(Module):
    """Power-average pooling: the ``norm_type``-norm of each window."""

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """``(sum x^p)^(1/p)`` over windows of the last dim of ``(N, C, L)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """``(sum x^p)^(1/p)`` over windows of the last two dims of ``(N, C, H, W)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """``(sum x^p)^(1/p)`` over windows of the last three dims of ``(N, C, D, H, W)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


__all__ += ["LPPool1d", "LPPool2d", "LPPool3d"]


class _FractionalMaxPoolNd(Module):
    """PyTorch's ``FractionalMaxPool2d``/``3d``: ``output_size`` or ``output_ratio`` (one of them, a ratio in
    ``(0, 1)``), ``return_indices``, and ``_random_samples`` kept as a buffer (drawn per call when ``None``)."""

    _k = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        name, k = type(self).__name__, self._k
        self.kernel_size = _ntuple(kernel_size, k)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, k) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, k) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = F.fractional_max_pool2d if self._k == 2 else F.fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling (``F.fractional_max_pool2d``) of ``(N, C, H, W)`` or ``(C, H, W)``."""


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling (``F.fractional_max_pool3d``) of ``(N, C, T, H, W)`` or ``(C, T, H, W)``."""

    _k = 3


def _ntuple(v: Any, k: int) -> tuple[Any, ...]:
    """PyTorch's ``_pair``/``_triple``: an iterable as a tuple, anything else repeated ``k`` times."""
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * k


__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
