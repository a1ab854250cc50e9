"""Channel-wise and alpha dropout modules, as PyTorch's ``torch/nn/modules/dropout.py``
(``Dropout`` itself is in ``nn/__init__.py``).

``Dropout1d/2d/3d`` zero whole channels in training mode; ``AlphaDropout`` and
``FeatureAlphaDropout`` keep a SELU network's mean and variance. In ``eval()`` each is the
identity. The masks are PyTorch's for the same seed (NOTE [ The same masks as PyTorch ]
in ``ops/dropout.py``).

Example:
    >>> import minigrad as mg
    >>> m = mg.nn.Dropout2d(p=0.25)
    >>> m
    Dropout2d(p=0.25, inplace=False)
    >>> m.eval()(mg.ones(1, 2, 3, 3)).sum().item()
    18.0
"""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """``p`` and ``inplace``, checked as PyTorch checks them."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` inputs with probability ``p``, scale the rest by ``1/(1-p)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` inputs with probability ``p``, scale the rest by ``1/(1-p)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` inputs with probability ``p``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks: dropped units go to SELU's saturation, mean and variance kept."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
