"""``Multinomial(total_count, probs | logits)``: the class counts of ``total_count`` categorical draws, as
``torch.distributions.Multinomial``. A draw is ``total_count`` draws of its ``Categorical`` (``multinomial``
with replacement, PyTorch's calls) counted with ``scatter_add_``, so a seeded draw is PyTorch's.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Multinomial
    >>> Multinomial(4, probs=mg.tensor([0.25, 0.75])).mean
    tensor([1., 3.])
"""

from __future__ import annotations

import math
from typing import Any

from ..creation import arange, ones_like, tensor
from ..ops import exp, lgamma, log1p
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


def _binomial_log_prob(total_count: Tensor, logits: Tensor, value: Tensor) -> Tensor:
    """``log P(k = value)`` of a binomial of ``total_count`` trials with success logits ``logits``, in the form
    PyTorch's ``Binomial.log_prob`` takes (its ``log(1 + e^l)`` written so that it cannot overflow)."""
    log_factorial_n = lgamma(total_count + 1)
    log_factorial_k = lgamma(value + 1)
    log_factorial_nmk = lgamma(total_count - value + 1)
    positive_part = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
    normalize_term = total_count * positive_part + total_count * log1p(exp(-logits.abs())) - log_factorial_n
    return value * logits - log_factorial_k - log_factorial_nmk - normalize_term


class Multinomial(Distribution):
    """Counts over the classes of ``probs``' last dim, summing to ``total_count`` (one count for every class is
    scored: ``log_prob`` does not read ``total_count``, as PyTorch's does not)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Multinomial":
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """``total_count`` categorical draws (sample dims first), moved to the back and counted per class."""
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        order = list(range(1, samples.dim())) + [0]
        samples = samples.permute(*order)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        """``n H(categorical) - log n!`` plus, for every class, ``E[log k!]`` under its binomial marginal."""
        n = tensor(self.total_count)
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        total_count, probs = broadcast_all(self.total_count, self.probs)
        total_count = total_count.type_as(probs)
        support = arange(1 + self.total_count, dtype=probs.dtype, device=probs.device)
        support = support.view((-1,) + (1,) * probs.dim())[1:]
        binomial_probs = exp(_binomial_log_prob(total_count, probs_to_logits(probs, is_binary=True), support))
        term2 = (binomial_probs * lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0  # a class that cannot occur and did not: 0 * -inf is 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
