"""``CosineSimilarity`` and ``PairwiseDistance``, as PyTorch's ``torch/nn/modules/distance.py``.

Example:
    >>> import minigrad as mg
    >>> mg.nn.CosineSimilarity(dim=0)(mg.tensor([1.0, 0.0]), mg.tensor([2.0, 0.0])).item()
    1.0
"""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` along the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
