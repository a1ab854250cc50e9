"""``Weibull(scale, concentration)``, as ``torch.distributions.Weibull``: a unit ``Exponential`` draw raised to
``1 / concentration`` and scaled (a seeded draw is PyTorch's ``exponential_`` numbers, transformed).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Weibull
    >>> Weibull(mg.tensor(2.0), mg.tensor(1.0)).mean
    tensor(2.)
"""

from __future__ import annotations

from typing import Any

from ..creation import ones_like
from ..ops import exp, lgamma, log
from ..tensor import Tensor
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution, euler_constant
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Density ``(k / lambda) (x / lambda)^(k - 1) exp(-(x / lambda)^k)`` on ``x > 0``, for ``scale`` lambda
    and ``concentration`` k."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, self._transforms(), validate_args=validate_args)

    def _transforms(self) -> list[Any]:
        return [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Weibull":
        new = self._get_checked_instance(Weibull, _instance)
        new.scale, new.concentration = self.scale.expand(batch_shape), self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        super(Weibull, new).__init__(base, new._transforms(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * exp(lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Tensor:
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (exp(lgamma(1 + 2 * self.concentration_reciprocal))
                                    - exp(2 * lgamma(1 + self.concentration_reciprocal)))

    def entropy(self) -> Tensor:
        return (euler_constant * (1 - self.concentration_reciprocal) + log(self.scale * self.concentration_reciprocal)
                + 1)
