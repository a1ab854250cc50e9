"""``Bernoulli(probs=... | logits=...)``: a coin per entry, as ``torch.distributions.Bernoulli``.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Bernoulli
    >>> Bernoulli(probs=mg.tensor([0.25])).log_prob(mg.tensor([1.0]))
    tensor([-1.3863])
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd import no_grad
from ..creation import arange, bernoulli
from ..ops import logit
from ..nn.functional import binary_cross_entropy_with_logits
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import BinaryParams, broadcast_all, probs_or_logits

__all__ = ["Bernoulli"]


class Bernoulli(BinaryParams, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), 0 otherwise."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        self._param, batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Bernoulli":
        new = self._expand_params(Bernoulli, batch_shape, ("probs", "logits"), _instance)
        new._param = new.__dict__.get("logits", new.__dict__.get("probs"))  # (PyTorch's order)
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan  # a fair coin has no mode
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            return bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (logit(self.probs),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.exp().log1p()


