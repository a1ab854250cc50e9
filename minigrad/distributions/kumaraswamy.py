"""``Kumaraswamy(concentration1, concentration0)``: a Beta-like distribution on ``[0, 1]`` whose CDF inverts in
closed form, as ``torch.distributions.Kumaraswamy`` - a uniform draw through ``(1 - u^(1/b))^(1/a)``.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Kumaraswamy
    >>> Kumaraswamy(mg.tensor(1.0), mg.tensor(1.0)).mean
    tensor(0.5000)
"""

from __future__ import annotations

import math
from typing import Any

from ..creation import full_like
from ..ops import digamma, exp, lgamma, log
from ..tensor import Tensor
from . import constraints
from .transformed_distribution import TransformedDistribution, euler_constant
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moments(a: Tensor, b: Tensor, n: int) -> Tensor:
    """The ``n``-th raw moment: ``b B(1 + n / a, b)``, with the Beta function through ``lgamma``."""
    arg1 = 1 + n / a
    return b * exp(lgamma(arg1) + lgamma(b) - lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """Density ``a b x^(a - 1) (1 - x^a)^(b - 1)`` on ``[0, 1]`` for ``concentration1`` a and
    ``concentration0`` b."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(full_like(self.concentration0, 0), full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Kumaraswamy":
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """PyTorch's formula, NaN where either concentration is below 1 (no interior mode)."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self) -> Tensor:
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - log(self.concentration1) - log(self.concentration0)
