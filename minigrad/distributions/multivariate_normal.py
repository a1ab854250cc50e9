"""``MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)``, as
``torch.distributions.MultivariateNormal``: the Gaussian of a vector, kept as the Cholesky factor ``L`` of its
covariance (``Sigma = L L^T``); a draw is ``loc + L eps``, a score solves with ``L`` (never an inverse).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import MultivariateNormal
    >>> m = MultivariateNormal(mg.zeros(2), covariance_matrix=mg.tensor([[2.0, 0.0], [0.0, 0.5]]))
    >>> m.log_prob(mg.zeros(2))
    tensor(-1.8379)
"""

from __future__ import annotations

import math
from typing import Any

from ..creation import eye
from ..ops import cholesky_inverse, flip, matmul, transpose
from ..ops.factorization import linalg_cholesky, linalg_solve_triangular
from ..ops.shape import broadcast_shapes
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    """A batch of matrices times a batch of vectors, the batch dims broadcast."""
    return matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """``x^T (L L^T)^-1 x`` for each vector of ``bx``: the squared norm of ``L^-1 x``. ``bx``'s batch dims are
    laid out against ``bL``'s so that one triangular solve covers every vector (PyTorch's layout, so the same
    ops and nodes)."""
    n = bx.size(-1)
    bx_batch_shape = tuple(bx.shape[:-1])
    bL_batch_dims = bL.dim() - 2
    outer = len(bx_batch_shape) - bL_batch_dims
    old_batch_dims = outer + bL_batch_dims
    new_batch_dims = outer + 2 * bL_batch_dims
    # split each of x's batch dims matched with L's into (copies, L's size): x then lines up with L
    new_shape = tuple(bx.shape[:outer])
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer:-1]):
        new_shape += (sx // sL, sL)
    bx = bx.reshape(new_shape + (n,))
    order = (list(range(outer)) + list(range(outer, new_batch_dims, 2)) + list(range(outer + 1, new_batch_dims, 2))
             + [new_batch_dims])
    bx = bx.permute(order)
    flat_L = bL.reshape(-1, n, n)
    flat_x_swap = bx.reshape(-1, flat_L.size(0), n).permute(1, 2, 0)  # b x n x c: a column per vector
    M = linalg_solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2).t()
    inverse_order = list(range(outer))
    for i in range(bL_batch_dims):
        inverse_order += [outer + i, old_batch_dims + i]
    return M.reshape(tuple(bx.shape[:-1])).permute(inverse_order).reshape(bx_batch_shape)


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    """The lower Cholesky factor of ``P^-1`` without inverting ``P``: the factor of ``P`` with rows and columns
    reversed gives an upper-triangular ``L^-T``, whose triangular solve against the identity is ``L``."""
    Lf = linalg_cholesky(flip(P, (-2, -1)))
    L_inv = transpose(flip(Lf, (-2, -1)), -2, -1)
    return linalg_solve_triangular(L_inv, eye(P.shape[-1], dtype=P.dtype, device=P.device), upper=False)


class MultivariateNormal(Distribution):
    """A Gaussian over vectors of ``loc``'s last dim; exactly one of ``covariance_matrix``, ``precision_matrix``
    or ``scale_tril`` (the covariance's lower Cholesky factor) gives its shape."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {"scale_tril": scale_tril, "covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix}
        if sum(v is not None for v in given.values()) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = next((k, v) for k, v in given.items() if v is not None)
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch dimensions"
                             if name == "scale_tril" else
                             f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg_cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MultivariateNormal":
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        eps = _standard_normal(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> Tensor:
        """``log |L|``: half the log-determinant of the covariance."""
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self) -> Tensor:
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
