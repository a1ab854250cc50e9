"""``LogisticNormal(loc, scale)``: a point of the simplex made from a normal vector by stick breaking, as
``torch.distributions.LogisticNormal`` (``Normal(loc, scale)`` of ``K - 1`` entries under
``StickBreakingTransform``: ``K`` probabilities).

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import LogisticNormal
    >>> LogisticNormal(mg.zeros(2), mg.ones(2)).event_shape
    minigrad.Size([3])
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Stick breaking of ``X ~ Normal(loc, scale)`` over the last dim (a number's ``Normal`` is made 1-d)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogisticNormal":
        return super().expand(batch_shape, _instance=self._get_checked_instance(LogisticNormal, _instance))

    @property
    def loc(self) -> Tensor:
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.base_dist.scale
