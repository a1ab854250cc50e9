"""``MixtureSameFamily(mixture, components)``: a mixture of distributions of one family (a Gaussian mixture:
``MixtureSameFamily(Categorical(weights), Normal(means, stds))``), as ``torch.distributions``'; the last batch
dim of the components is the mixture's."""

from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..ops import gather, log_softmax, logsumexp
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Pick a component with ``mixture_distribution`` (a ``Categorical`` over the last batch dim of
    ``component_distribution``), then draw from it; ``log_prob`` sums the components' densities in log space."""

    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        mdbs, cdbs = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km, kc = mixture_distribution.logits.shape[-1], component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch_shape=cdbs, event_shape=component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MixtureSameFamily":
        batch_shape = Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(tuple(batch_shape) + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(batch_shape=batch_shape,
                                               event_shape=new._component_distribution.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> Any:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(dim=-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """The law of total variance: the mean of the variances plus the variance of the means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = (probs * self.component_distribution.variance).sum(dim=-1 - self._event_ndims)
        var_cond_mean = (probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(
            dim=-1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x: Tensor) -> Tensor:
        return (self.component_distribution.cdf(self._pad(x)) * self.mixture_distribution.probs).sum(dim=-1)

    def log_prob(self, x: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))  # [S, B, k]
        log_mix_prob = log_softmax(self.mixture_distribution.logits, dim=-1)  # [B, k]
        return logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """A component index per draw, a draw of every component, and the chosen one gathered."""
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1)).repeat((1,) * len(mix_shape) + (1,) + es)
            return gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
