"""``ExponentialFamily``: distributions whose density is ``exp(<t(x), theta> - F(theta) + k(x))``; their entropy
follows from the log-normaliser ``F`` by one ``grad`` (a Bregman divergence), as PyTorch computes it."""

from __future__ import annotations

from typing import Any

from ..autograd import grad
from ..tensor import Tensor
from .distribution import Distribution
from .utils import not_defined

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of the exponential family: it gives ``_natural_params``, ``_log_normalizer`` and
    ``_mean_carrier_measure``; ``entropy`` is computed from them unless the distribution has a closed form."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise not_defined(self, "_natural_params")

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise not_defined(self, "_log_normalizer")

    @property
    def _mean_carrier_measure(self) -> Any:
        raise not_defined(self, "_mean_carrier_measure")

    def entropy(self) -> Tensor:
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]``, with the gradient taken by the engine."""
        result: Any = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        normalizer = self._log_normalizer(*params)
        gradients = grad(normalizer.sum(), params, create_graph=True)
        result = result + normalizer
        for p, g in zip(params, gradients):
            result -= (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
