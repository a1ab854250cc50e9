"""Normalization modules ``GroupNorm``, ``RMSNorm`` and ``InstanceNorm1d/2d/3d``, as PyTorch's ``torch/nn/modules/normalization.py``
and ``instancenorm.py`` (``LayerNorm`` and ``BatchNorm*`` are older and live in ``nn/layers.py``).

Example:
    >>> import minigrad as mg
    >>> gn = mg.nn.GroupNorm(2, 4)
    >>> sorted(gn.state_dict())
    ['bias', 'weight']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import ops
from ..tensor import Tensor
from . import functional as F
from .module import Module, Parameter, _on_default_device

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


def _filled(n: int, value: float, dtype: Any, device: Any) -> Tensor:
    """``n`` values ``value`` of ``dtype`` (the default float dtype when ``None``) on ``device`` (the default
    device when ``None``)."""
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float()
    return _on_default_device(Tensor._make(np.full((n,), value, dtype=dt.np), dt), device)


class GroupNorm(Module):
    """Normalise ``num_channels`` channels in ``num_groups`` groups per sample; ``weight`` (ones), ``bias`` (zeros)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = Parameter(_filled(num_channels, 1.0, dtype, device)) if affine else None
        self.bias = Parameter(_filled(num_channels, 0.0, dtype, device)) if affine and bias else None

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims (``F.rms_norm``); ``weight``
    (ones) when ``elementwise_affine``; ``eps=None`` takes the machine epsilon of the input's dtype."""

    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            dt = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float()
            self.weight = Parameter(_on_default_device(Tensor._make(np.ones(shape, dtype=dt.np), dt), device))
        else:
            self.weight = None

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


__all__ += ["RMSNorm"]


class _InstanceNorm(Module):
    spatial_dims = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(_filled(num_features, 1.0, dtype, device)) if affine else None
        self.bias = Parameter(_filled(num_features, 0.0, dtype, device)) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", _filled(num_features, 0.0, dtype, device))
            self.register_buffer("running_var", _filled(num_features, 1.0, dtype, device))
            self.register_buffer("num_batches_tracked",
                                 _on_default_device(Tensor._make(np.zeros((), np.int64), _dt.int64), device))
        else:
            self.running_mean = self.running_var = None

    def forward(self, input: Tensor) -> Tensor:
        k = self.spatial_dims
        if input.ndim not in (k + 1, k + 2):
            raise ValueError(f"expected {k + 1}D or {k + 2}D input (got {input.ndim}D input)")
        unbatched = input.ndim == k + 1
        channels = input.shape[0 if unbatched else 1]
        if channels != self.num_features and self.affine:  # (PyTorch only warns without the affine map)
            raise ValueError(f"expected input's size at dim={0 if unbatched else 1} to match num_features "
                             f"({self.num_features}), but got: {channels}.")
        x = ops.unsqueeze(input, 0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum, self.eps)
        return ops.squeeze(out, 0) if unbatched else out

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of ``(N, C, L)`` (or ``(C, L)``)."""

    spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of ``(N, C, H, W)`` (or ``(C, H, W)``): style transfer's normalization."""

    spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``)."""

    spatial_dims = 3


class LocalResponseNorm(Module):
    """AlexNet's normalisation across ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ += ["LocalResponseNorm"]
