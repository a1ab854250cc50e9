"""``Pareto(scale, alpha)``: the power law of type I, as ``torch.distributions.Pareto`` - an ``Exponential(alpha)``
draw pushed through ``scale * exp(x)`` (so a seeded draw is PyTorch's ``exponential_`` numbers, transformed).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Pareto
    >>> Pareto(mg.tensor(1.0), mg.tensor(3.0)).mean
    tensor(1.5000)
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Density ``alpha scale^alpha / x^(alpha + 1)`` on ``x >= scale``; the mean is infinite for ``alpha <= 1``
    and the variance for ``alpha <= 2`` (their formulas clamp ``alpha`` there, as PyTorch's do)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Pareto":
        new = self._get_checked_instance(Pareto, _instance)
        new.scale, new.alpha = self.scale.expand(batch_shape), self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
