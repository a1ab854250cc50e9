"""``Poisson(rate)``, as ``torch.distributions.Poisson``: counts drawn by ``poisson`` (PyTorch's numbers for the
same seed, NOTE [ PyTorch's Poisson draws ] in ``ops/distributions.py``).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Poisson
    >>> Poisson(mg.tensor([2.0, 3.5])).mode
    tensor([2., 3.])
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from ..autograd import no_grad
from ..ops import exp, log
from ..ops.distributions import poisson
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Counts of events at ``rate``: ``P(k) = rate^k exp(-rate) / k!``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, Number) else self.rate.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Poisson":
        return self._expand_params(Poisson, batch_shape, ("rate",), _instance)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (log(self.rate),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return exp(x)
