"""``NegativeBinomial(total_count, probs | logits)``: successes before ``total_count`` failures, as
``torch.distributions.NegativeBinomial``. A draw is PyTorch's gamma-Poisson mixture, ``poisson(Gamma(total_count,
exp(-logits)).sample())``, so a seeded draw is PyTorch's (NOTE [ PyTorch's gamma draws ] and NOTE [ PyTorch's
Poisson draws ] in ``ops/distributions.py``).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import NegativeBinomial
    >>> NegativeBinomial(4.0, probs=mg.tensor([0.5])).mean
    tensor([4.])
"""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..nn.functional import logsigmoid
from ..ops import exp, lgamma, sigmoid
from ..ops.distributions import poisson
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .binomial import _count_and_param, _expand_count_and_param
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryParams, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParams, Distribution):
    """``P(k) = C(k + r - 1, k) p^k (1 - p)^r`` (``r`` the ``total_count``, any real ``>= 0``; ``p`` the
    probability of a success)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._param = _count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        return _expand_count_and_param(self, NegativeBinomial, batch_shape, _instance)

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.total_count * exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / sigmoid(-self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        # not validated: a total_count of 0 is allowed here, and is no Gamma concentration
        return Gamma(concentration=self.total_count, rate=exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        log_unnormalized_prob = r * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -lgamma(r + value) + lgamma(1.0 + value) + lgamma(r)
        # r = 0 and value = 0 is certain, though lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(r + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
