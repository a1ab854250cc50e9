"""``Binomial(total_count, probs | logits)``: successes in ``total_count`` coin flips, as
``torch.distributions.Binomial``. A draw is ``binomial`` (PyTorch's numbers for the same seed, NOTE
[ PyTorch's binomial draws ] in ``ops/binomial.py``); the score is the one ``Multinomial.entropy`` uses.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Binomial
    >>> Binomial(10, mg.tensor([0.25, 0.5])).mean
    tensor([2.5000, 5.0000])
"""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..creation import arange
from ..ops.binomial import binomial
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .multinomial import _binomial_log_prob
from .utils import BinaryParams, broadcast_all

__all__ = ["Binomial"]


class Binomial(BinaryParams, Distribution):
    """``P(k) = C(n, k) p^k (1 - p)^(n - k)`` for ``k = 0 .. n`` (``n`` the ``total_count``, broadcast with
    ``probs`` or ``logits`` and cast to their dtype)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._param = _count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        return _expand_count_and_param(self, Binomial, batch_shape, _instance)

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return _binomial_log_prob(self.total_count, self.logits, value)

    def entropy(self) -> Tensor:
        """``-sum p log p`` over the support: every entry must have the same ``total_count``."""
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = self._homogeneous_count("enumerate_support")
        values = arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count


def _count_and_param(dist: Any, total_count: Any, probs: Any, logits: Any) -> Tensor:
    """Set ``dist.total_count`` and ``dist.probs`` (or ``.logits``), broadcast together, the count in the
    parameter's dtype; return the parameter (the binomial and negative binomial share this)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, given = ("probs", probs) if probs is not None else ("logits", logits)
    total_count, param = broadcast_all(total_count, given)
    dist.total_count = total_count.type_as(param)
    setattr(dist, name, param)
    return param


def _expand_count_and_param(dist: Any, cls: type, batch_shape: Any, _instance: Any) -> Any:
    """``expand`` of a distribution made by ``_count_and_param``."""
    new = dist._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    new.total_count = dist.total_count.expand(batch_shape)
    for name in ("probs", "logits"):  # (PyTorch's order: logits is the parameter when both are known)
        if name in dist.__dict__:
            setattr(new, name, getattr(dist, name).expand(batch_shape))
            new._param = getattr(new, name)
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = dist._validate_args
    return new
