"""``Gamma(concentration, rate)``, ``Chi2(df)`` and ``InverseGamma(concentration, rate)``, as
``torch.distributions``': a draw is ``_standard_gamma(concentration) / rate`` (PyTorch's numbers for the same
seed, NOTE [ PyTorch's gamma draws ] in ``ops/distributions.py``), differentiable through the reparameterized
gradient.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Gamma
    >>> Gamma(mg.tensor(2.0), mg.tensor(4.0)).mean
    tensor(0.5000)
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from ..dtypes import finfo
from ..ops import digamma, igamma, lgamma, log, where, xlogy
from ..ops.distributions import _standard_gamma
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform
from .utils import broadcast_all

__all__ = ["Gamma", "Chi2", "InverseGamma"]


class Gamma(ExponentialFamily):
    """Density ``rate^a x^(a - 1) exp(-rate x) / Gamma(a)`` on ``x >= 0`` (``a`` the concentration)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        numbers = isinstance(concentration, Number) and isinstance(rate, Number)
        super().__init__(Size() if numbers else self.concentration.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        return self._expand_params(Gamma, batch_shape, ("concentration", "rate"), _instance)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        """``_standard_gamma(concentration) / rate``, kept above the dtype's smallest normal (in place, as PyTorch)."""
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value) - self.rate * value
                - lgamma(self.concentration))

    def cdf(self, value: Any) -> Tensor:
        """The regularized lower incomplete gamma function ``P(concentration, rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return igamma(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - log(self.rate) + lgamma(c) + (1.0 - c) * digamma(c)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return lgamma(x + 1) + (x + 1) * log(-y.reciprocal())


class Chi2(Gamma):
    """The sum of ``df`` squared standard normals: ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Chi2":
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2


class InverseGamma(TransformedDistribution):
    """``1 / X`` for ``X ~ Gamma(concentration, rate)``; mean infinite for ``concentration <= 1``, variance for
    ``concentration <= 2``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "InverseGamma":
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self) -> Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        result = self.rate / (self.concentration - 1)
        return where(self.concentration > 1, result, float("inf"))

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        result = self.rate.square() / ((c - 1).square() * (c - 2))
        return where(c > 2, result, float("inf"))

    def entropy(self) -> Tensor:
        c = self.concentration
        return c + self.rate.log() + lgamma(c) - (1 + c) * digamma(c)
