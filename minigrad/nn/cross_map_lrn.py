"""PyTorch's legacy cross-channel local response normalization: ``nn.CrossMapLRN2d`` and its custom autograd Function
(``torch/nn/modules/normalization.py`` and ``torch/nn/_functions.py``, from Lua Torch's ``SpatialCrossMapLRN``).

Each value is divided by ``(k + alpha / size * sum of squares over nearby channels) ** beta``. Unlike
``F.local_response_norm`` (``nn.LocalResponseNorm``, made of ops), this is one hand-written Function, node
``CrossMapLRN2dBackward``, with the legacy kernel's quirks kept as PyTorch keeps them: the channel window is a running
sum that adds ``size // 2 + 1`` channels ahead and drops a channel only past ``pre_pad`` (so it is not symmetric), and
the backward is the legacy one (its ``accum_ratio`` window starts ``size - (size - 1) / 2`` rows into the padded
ratios), not the exact derivative of the forward. It runs on the host in NumPy, as a Function may.

Example:
    >>> import minigrad as mg
    >>> lrn = mg.nn.CrossMapLRN2d(3, alpha=1.5, beta=1.0, k=1.0)
    >>> lrn(mg.ones(1, 2, 1, 1)).flatten().tolist()  # 1 / (1 + 1.5 / 3 * (1 + 1))
    [0.5, 0.5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..creation import as_tensor
from ..tensor import Tensor
from .module import Module

__all__ = ["CrossMapLRN2d"]


def _host(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


class CrossMapLRN2dFunction(Function):
    """The legacy kernel: forward and backward over NumPy arrays of an ``(N, C, H, W)`` input."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = _host(input)
        square = x * x
        channels = x.shape[1]
        pre_pad = int((size - 1) / 2 + 1)
        scale = np.zeros_like(x)
        for c in range(min(pre_pad, channels)):  # the first channel's window
            scale[:, 0] += square[:, c]
        for c in range(1, channels):  # each next window: the previous, one channel added ahead, one dropped behind
            scale[:, c] = scale[:, c - 1]
            if c < channels - pre_pad + 1:
                scale[:, c] += square[:, c + pre_pad - 1]
            if c > pre_pad:
                scale[:, c] -= square[:, c - pre_pad]
        scale = scale * x.dtype.type(alpha / size) + x.dtype.type(k)
        out = np.power(scale, x.dtype.type(-beta)) * x
        ctx.size, ctx.alpha, ctx.beta, ctx.k, ctx.scale = size, alpha, beta, k, scale
        output = as_tensor(out, dtype=input.dtype, device=input.device)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Any, ...]:
        input, output = ctx.saved_tensors
        x, y, g, scale, size = _host(input), _host(output), _host(grad_output), ctx.scale, ctx.size
        batch, channels = x.shape[:2]
        padded = np.zeros((channels + size - 1,) + x.shape[2:], dtype=x.dtype)
        cache_ratio = x.dtype.type(2 * ctx.alpha * ctx.beta / size)
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad = np.power(scale, x.dtype.type(-ctx.beta)) * g
        for n in range(batch):
            padded[inverse_pre_pad:inverse_pre_pad + channels] = g[n] * y[n] / scale[n]
            accum = padded[:size - 1].sum(axis=0)
            for c in range(channels):
                accum += padded[c + size - 1]
                grad[n, c] += -cache_ratio * x[n, c] * accum
                accum -= padded[c]
        return as_tensor(grad, dtype=input.dtype, device=input.device), None, None, None, None


CrossMapLRN2dFunction.__name__ = CrossMapLRN2dFunction.__qualname__ = "CrossMapLRN2d"  # its node: CrossMapLRN2dBackward


class CrossMapLRN2d(Module):
    """Cross-channel local response normalization of ``(N, C, H, W)`` inputs, PyTorch's legacy module."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
