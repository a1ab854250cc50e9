"""``nn.LinearCrossEntropyLoss``: a ``Linear`` head and the cross entropy of its logits as one module (PyTorch 2.13).

The function it calls, ``F.linear_cross_entropy``, and its chunked form with ``nn.LinearCrossEntropyOptions`` are
``ops/linear_loss.py``.
"""

from __future__ import annotations

import math
from typing import Any

from ..ops.linear_loss import LinearCrossEntropyOptions, linear_cross_entropy
from ..tensor import Tensor
from .layers import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


# -- nn.LinearCrossEntropyLoss (torch/nn/modules/loss.py) -----------------------------------------------------------


class LinearCrossEntropyLoss(_WeightedLoss):
    """A ``Linear(in_features, C * d1 * ... * dK)`` head and the cross entropy of its logits, as one module.

    The weight is stored flat in ``self.linear`` (``linear.weight``, ``linear.bias`` in the state dict) and viewed as
    ``(C, d1, ..., dK, in_features)`` in ``forward``. The class ``weight`` is a buffer.

    Example:
        >>> import minigrad as mg
        >>> _ = mg.manual_seed(0)
        >>> loss = mg.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
        >>> loss(mg.randn(2, 5), mg.randint(0, 10, (2, 4, 3))).shape
        minigrad.Size([])
    """

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple[int, ...] = (), bias: bool = False,
                 device: Any = None, dtype: Any = None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        linear_weight = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        linear_bias = (None if self.linear.bias is None
                       else self.linear.bias.reshape((self.num_classes, *self.out_features)))
        return linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                    reduction=self.reduction, ignore_index=self.ignore_index,
                                    label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")

