"""``GeneralizedPareto(loc, scale, concentration)``: the law of exceedances over a high threshold, as
``torch.distributions.GeneralizedPareto``; the draw is the inverse CDF of a uniform (``rand``), so it is
reparameterised. A ``concentration`` of 0 (within ``isclose``) is the exponential limit; every formula takes
that branch with a safe stand-in for 0 on the other, so that neither branch's gradient is NaN.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import GeneralizedPareto
    >>> GeneralizedPareto(mg.tensor(0.0), mg.tensor(1.0), mg.tensor(0.0)).mean
    tensor(1.)
"""

from __future__ import annotations

import math
from numbers import Number, Real
from typing import Any

from ..creation import ones_like, rand, zeros_like
from ..ops import broadcast_to, exp, expm1, isclose, log, log1p, where
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


def _safe(concentration: Tensor, zero: Tensor) -> tuple[Tensor, Tensor]:
    """Where ``concentration`` is (close to) 0, and the concentration with those entries set to 1."""
    eq_zero = isclose(concentration, zero)
    return eq_zero, where(eq_zero, ones_like(concentration), concentration)


class GeneralizedPareto(Distribution):
    """Survival ``(1 + xi z)^(-1/xi)`` for ``z = (x - loc) / scale`` and ``concentration`` xi (``exp(-z)`` at 0);
    the support is ``[loc, loc - scale / xi]`` for a negative xi, ``[loc, inf)`` otherwise."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = all(isinstance(v, Number) for v in (loc, scale, concentration))
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "GeneralizedPareto":
        return self._expand_params(GeneralizedPareto, batch_shape, ("loc", "scale", "concentration"), _instance)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = _safe(self.concentration, zeros_like(self.concentration))
        y = 1 / safe_conc + ones_like(z)
        where_nonzero = where(y == 0, y, y * log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = _safe(self.concentration, zeros_like(self.concentration))
        return where(eq_zero, -z, -log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value: Tensor) -> Tensor:
        return log1p(-exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        return exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        eq_zero, safe_conc = _safe(self.concentration, zeros_like(self.concentration))
        logu = log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * expm1(-safe_conc * logu)
        return where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        safe_conc = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        safe_conc = where(valid, self.concentration, 0.25)
        return where(valid, self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc)), math.nan)

    def entropy(self) -> Tensor:
        return broadcast_to(log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        upper = where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
