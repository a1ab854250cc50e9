"""``ContinuousBernoulli(probs | logits)``: a density on ``[0, 1]`` proportional to ``p^x (1 - p)^(1 - x)``, as
``torch.distributions.ContinuousBernoulli`` (Loaiza-Ganem & Cunningham, 2019: the likelihood a VAE on pixel
intensities should have used). Its normaliser is ``2 atanh(1 - 2p) / (1 - 2p)``, which is 0/0 at ``p = 1/2``:
inside ``lims`` (``(0.499, 0.501)``) every formula switches to its Taylor expansion about 1/2.

A draw is the inverse CDF of a uniform (``rand``), as PyTorch's, so it is reparameterised.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import ContinuousBernoulli
    >>> ContinuousBernoulli(probs=mg.tensor(0.5)).mean
    tensor(0.5000)
"""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

from ..autograd import no_grad
from ..creation import ones_like, rand, zeros_like
from ..nn.functional import binary_cross_entropy_with_logits
from ..ops import abs as abs_, expm1, ge, gt, le, log, log1p, maximum, pow as pow_, where
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli of parameter ``probs`` (clamped inside ``(0, 1)``) or ``logits``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            # PyTorch checks the raw probabilities only when validate_args is given (True or False)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        given = probs if probs is not None else logits
        self._lims = lims
        super().__init__(Size() if isinstance(given, Number) else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ContinuousBernoulli":
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def _outside_unstable_region(self) -> Tensor:
        return maximum(le(self.probs, self._lims[0]), gt(self.probs, self._lims[1]))

    def _cut_probs(self) -> Tensor:
        """``probs`` with the unstable ones replaced by ``lims[0]`` (their value is taken from the Taylor branch)."""
        return where(self._outside_unstable_region(), self.probs, self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Tensor:
        """The log of the normaliser ``C(p)``; ``log 2 + (4/3 + 104/45 x) x`` with ``x = (p - 1/2)^2`` near 1/2."""
        cut = self._cut_probs()
        below_half = where(le(cut, 0.5), cut, zeros_like(cut))
        above_half = where(ge(cut, 0.5), cut, ones_like(cut))
        log_norm = log(abs_(log1p(-cut) - log(cut))) - where(le(cut, 0.5), log1p(-2.0 * below_half),
                                                               log(2.0 * above_half - 1.0))
        x = pow_(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (log1p(-cut) - log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * pow_(x, 2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        variances = cut * (cut - 1.0) / pow_(1.0 - 2.0 * cut, 2) + 1.0 / pow_(log1p(-cut) - log(cut), 2)
        x = pow_(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), variances, taylor)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (pow_(cut, value) * pow_(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(le(value, 0.0), zeros_like(value), where(ge(value, 1.0), ones_like(value), unbounded))

    def icdf(self, value: Tensor) -> Tensor:
        cut = self._cut_probs()
        inverse = (log1p(-cut + value * (2.0 * cut - 1.0)) - log1p(-cut)) / (log(cut) - log1p(-cut))
        return where(self._outside_unstable_region(), inverse, value)

    def entropy(self) -> Tensor:
        log_probs0, log_probs1 = log1p(-self.probs), log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        """The log-normaliser in the natural parameter (the logit), with its Taylor branch near 0."""
        unstable = maximum(le(x, self._lims[0] - 0.5), gt(x, self._lims[1] - 0.5))
        cut = where(unstable, x, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = log(abs_(expm1(cut))) - log(abs_(cut))
        taylor = 0.5 * x + pow_(x, 2) / 24.0 - pow_(x, 4) / 2880.0
        return where(unstable, log_norm, taylor)
