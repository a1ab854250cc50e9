"""``LKJCholesky(dim, concentration)``: Cholesky factors ``L`` of random correlation matrices ``L L^T`` with density
proportional to ``det(L L^T)^(concentration - 1)``, as ``torch.distributions.LKJCholesky``. A draw is the onion
method (Lewandowski, Kurowicka and Joe, 2009, Sec. 3.2), vectorised over the rows: a Beta draw per row for its
squared length below the diagonal, then normals for its direction - PyTorch's order, so a seeded draw is PyTorch's.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import LKJCholesky
    >>> LKJCholesky(3, 0.5).event_shape
    minigrad.Size([3, 3])
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd import no_grad
from ..creation import arange, randn
from ..dtypes import finfo
from ..ops import cat, clamp, diag_embed, lgamma, mvlgamma, sqrt
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .dirichlet import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution over ``dim x dim`` correlation Cholesky factors; ``concentration == 1`` is uniform over
    correlation matrices."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # Row i's squared length below the diagonal is Beta(i/2, conc + (dim - 2)/2 - i/2) (row 0's unused)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LKJCholesky":
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """Row ``i``: ``sqrt(y_i)`` times a random unit direction in its first ``i`` entries, then the diagonal
        entry that makes the row a unit vector."""
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
            u_hypersphere[..., 0, :].fill_(0.0)  # row 0 has no entries below the diagonal (0/0 above)
            w = sqrt(y) * u_hypersphere
            diag_elems = clamp(1 - (w ** 2).sum(dim=-1), min=finfo(w.dtype).tiny).sqrt()
            w += diag_embed(diag_elems)
            return w

    def log_prob(self, value: Tensor) -> Tensor:
        """``sum_i (2 (conc - 1) + dim - i) log L_ii`` (the density of ``L L^T`` times the Jacobian of ``L -> L L^T``),
        less the normaliser (page 1999 of the paper)."""
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)  # the paper's D(D-1)/4 log(pi) less mvlgamma's (D-1)(D-2)/4
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
