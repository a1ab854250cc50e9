"""``minigrad.distributions``: probability distributions for course programs, as ``torch.distributions``.

A policy-gradient loop, a VAE's KL term, a noisy regression: the distributions a course reaches first, written
with minigrad's ops, so their graphs are PyTorch's (``Normal.log_prob`` builds ``SubBackward0``,
``PowBackward0``, ``DivBackward0`` ... as PyTorch's formula does) and, on the CPU, a seeded program draws
PyTorch's numbers (``Categorical.sample`` is ``multinomial``, ``Normal.sample`` is ``normal``,
``Normal.rsample`` is ``empty(...).normal_()``).

Here: ``Distribution``, ``ExponentialFamily``, ``Normal``, ``MultivariateNormal``, ``Exponential``,
``Laplace``, ``Bernoulli``, ``Categorical``, ``OneHotCategorical`` (and its straight-through form),
``Uniform``, ``Independent``, ``MixtureSameFamily``, ``kl_divergence``/``register_kl`` with the pairs among them, and
``constraints``; ``TransformedDistribution`` with the common transforms (``ExpTransform``, ``AffineTransform``,
``TanhTransform``, ``SigmoidTransform`` ...), ``LogNormal``, ``HalfNormal``, ``HalfCauchy``, ``Gumbel``;
``Cauchy``, ``Geometric``; the relaxed (Gumbel-softmax) ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical``;
``Pareto``, ``Weibull``, ``Kumaraswamy``, ``LogisticNormal``, ``GeneralizedPareto``, ``ContinuousBernoulli``,
``LowRankMultivariateNormal``, ``Multinomial``, ``VonMises``; the structural transforms (``StickBreakingTransform``,
``CorrCholeskyTransform``, ``CatTransform`` ...) and ``biject_to``/``transform_to``; those drawn from PyTorch's
gamma sampler (``ops/distributions.py``): ``Gamma``, ``Chi2``, ``InverseGamma``, ``Beta``, ``Dirichlet``,
``StudentT``, ``FisherSnedecor``, ``Wishart``, ``LKJCholesky``; ``Poisson`` (PyTorch's ``poisson`` sampler),
``NegativeBinomial`` (a gamma-Poisson mixture) and ``Binomial`` (``ops/binomial.py``, PyTorch's BTRS and inversion
sampler).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(mg.tensor(0.0), mg.tensor(1.0)), Normal(mg.tensor(1.0), mg.tensor(2.0)))
    tensor(0.4431)
"""

from . import constraint_registry, constraints, transforms
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .cauchy import Cauchy, Geometric
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential, Laplace
from .gamma import Chi2, Gamma, InverseGamma
from .generalized_pareto import GeneralizedPareto
from .independent import Independent
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .student_t import FisherSnedecor, StudentT
from .relaxed import ExpRelaxedCategorical, LogitRelaxedBernoulli, RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed_distribution import Gumbel, HalfCauchy, HalfNormal, LogNormal, TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform, CorrCholeskyTransform,
                         CumulativeDistributionTransform, ExpTransform, IndependentTransform, LowerCholeskyTransform,
                         PositiveDefiniteTransform, PowerTransform, ReshapeTransform, SigmoidTransform,
                         SoftmaxTransform, SoftplusTransform, StackTransform, StickBreakingTransform, TanhTransform,
                         Transform, identity_transform)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = [
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "IndependentTransform", "LogNormal",
    "PowerTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "TanhTransform", "Transform",
    "TransformedDistribution", "identity_transform", "transforms",
    "ExpRelaxedCategorical", "LogitRelaxedBernoulli", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "Bernoulli", "Categorical", "Cauchy", "Distribution", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Exponential", "ExponentialFamily", "Independent", "Laplace", "MixtureSameFamily", "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Uniform", "constraints", "kl_divergence", "register_kl",
    "ContinuousBernoulli", "GeneralizedPareto", "Kumaraswamy", "LogisticNormal", "LowRankMultivariateNormal",
    "Multinomial", "Pareto", "VonMises", "Weibull",
    "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "ReshapeTransform", "StackTransform", "StickBreakingTransform",
    "biject_to", "constraint_registry", "transform_to",
    "Beta", "Chi2", "Dirichlet", "FisherSnedecor", "Gamma", "InverseGamma", "Poisson", "StudentT",
    "Binomial", "LKJCholesky", "NegativeBinomial", "Wishart",
]
