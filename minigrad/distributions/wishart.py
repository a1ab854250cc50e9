"""``Wishart(df, covariance_matrix | precision_matrix | scale_tril)``: random positive-definite matrices, as
``torch.distributions.Wishart``. A draw is Bartlett's decomposition ``(L A)(L A)^T`` - ``A`` lower triangular with
the square roots of Chi2(df - i) draws on its diagonal and standard normals below it - drawn in PyTorch's order
(the chi-squares, then the normals), so a seeded draw is PyTorch's, differentiable in ``df`` through the gamma
sampler's reparameterized gradient and in the scale through the products.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import Wishart
    >>> Wishart(mg.tensor(3.0), covariance_matrix=mg.eye(2)).mean
    tensor([[3., 0.],
            [0., 3.]])
"""

from __future__ import annotations

import math
import warnings
from numbers import Number
from typing import Any

from ..creation import arange, eye, randn, tensor
from ..dtypes import finfo
from ..ops import cholesky_solve, digamma, einsum, mvlgamma, tril_indices
from ..ops.factorization import linalg_cholesky, linalg_slogdet
from ..ops.shape import broadcast_shapes
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma ``sum_i digamma(x - i/2)``, ``i < p`` (the derivative of ``mvlgamma``)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return digamma(x.unsqueeze(-1) - arange(p, dtype=x.dtype, device=x.device).div(2).expand(x.shape + (-1,))).sum(-1)


def _bartlett_chi2(df: Tensor, scale_tril: Tensor, batch_shape: Size) -> Chi2:
    """The chi-squares of Bartlett's diagonal: ``Chi2(df - i)`` for row ``i``."""
    p = scale_tril.shape[-1]
    offsets = arange(p, dtype=scale_tril.dtype, device=scale_tril.device).expand(batch_shape + (-1,))
    return Chi2(df=df.unsqueeze(-1) - offsets)


class Wishart(ExponentialFamily):
    """Density ``|X|^((df - p - 1)/2) exp(-tr(S^-1 X)/2) / (2^(df p/2) |S|^(df/2) Gamma_p(df/2))`` over ``p x p``
    positive-definite ``X`` (``S`` the covariance, ``df > p - 1``)."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df: Any, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        given = [(n, p) for n, p in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if p is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = Size(param.shape[:-2])
            self.df = tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = Size(broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = Size(param.shape[-2:])
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for "
                          "ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg_cholesky(param)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)
        self._dist_chi2 = _bartlett_chi2(self.df, self._unbroadcasted_scale_tril, batch_shape)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Wishart":
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        new._dist_chi2 = _bartlett_chi2(new.df, new._unbroadcasted_scale_tril, batch_shape)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        identity = eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return cholesky_solve(identity, L).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self) -> Tensor:
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan  # no mode for df <= p + 1
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (V.pow(2) + einsum("...i,...j->...ij", diag_V, diag_V))

    def _bartlett_sampling(self, sample_shape: Any = Size()) -> Tensor:
        """``(L A)(L A)^T``: chi-square roots on ``A``'s diagonal (drawn first), normals below it."""
        p = self._event_shape[-1]
        root = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = root.clamp(min=finfo(root.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = tril_indices(p, p, offset=-1)
        noise[..., i, j] = randn(Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,),
                                 dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape: Any = Size(), max_try_correction: int | None = None) -> Tensor:
        """A Bartlett draw, then PyTorch's correction pass.

        PyTorch's pass flags the draws that pass ``support.check`` - the positive-definite ones, not the
        singular ones its name suggests - warns "Singular sample detected." and draws them once more (a second
        try finds none flagged). Done the same way here, so the stream of draws and the warning stay PyTorch's.
        """
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        flagged = self.support.check(sample)
        if self._batch_shape:
            flagged = flagged.amax(self._batch_dims)
        if flagged.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(flagged[flagged].shape)
                sample[flagged.clone()] = sample_new  # (the node keeps its mask; ``flagged`` changes below)
                flagged_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    flagged_new = flagged_new.amax(self._batch_dims)
                flagged[flagged.clone()] = flagged_new
                if not flagged.any():
                    break
        return sample

    def _log_det_scale(self) -> Tensor:
        """``p log(2)/2 + log|L|``: the scale's part of the normalizer, per unit of ``df``."""
        p = self._event_shape[-1]
        return p * _LOG_2 / 2 + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        trace = cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * self._log_det_scale() - mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * linalg_slogdet(value).logabsdet - trace / 2)

    def entropy(self) -> Tensor:
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * self._log_det_scale() + mvlgamma(nu / 2, p=p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
                + nu * p / 2)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg_slogdet(-2 * x).logabsdet + _LOG_2 * p) + mvlgamma(y + (p + 1) / 2, p=p)
