"""``VonMises(loc, concentration)``: the circular normal on ``[-pi, pi)``, as ``torch.distributions.VonMises``.

Its normaliser is the modified Bessel function ``I0(kappa)``, computed (as PyTorch does) from the polynomial
approximations of Abramowitz & Stegun 9.8.1-9.8.4 on either side of 3.75. A draw is Best & Fisher's (1979)
rejection sampler in float64: each round draws ``rand((3,) + shape)`` and keeps the entries it accepts until
all are; the rounds and their draws are PyTorch's, so a seeded draw is PyTorch's.

Example:
    >>> import minigrad as mg
    >>> from minigrad.distributions import VonMises
    >>> VonMises(mg.tensor(0.0), mg.tensor(1.0)).log_prob(mg.tensor(0.0))
    tensor(-1.0738)
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd import no_grad
from ..creation import empty, rand, zeros
from ..dtypes import bool_, float64
from ..ops import cos, where
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

#: Abramowitz & Stegun's coefficients for I0 and I1 below 3.75 (in ``(x / 3.75)^2``) and above (in ``3.75 / x``)
_COEF_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813],
               [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411])
_COEF_LARGE = ([0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633,
                0.00392377],
               [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654,
                -0.00420059])


def _eval_poly(y: Tensor, coef: list[float]) -> Tensor:
    """``sum(coef[i] y^i)`` by Horner's rule, highest coefficient first."""
    result: Any = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """``log I_order(x)`` for ``x > 0`` and ``order`` 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = x / 3.75
    small = _eval_poly(y * y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return where(x < 3.75, small.log(), large)


def _rejection_sample(loc: Tensor, concentration: Tensor, proposal_r: Tensor, x: Tensor) -> Tensor:
    """Best & Fisher's sampler: rounds of three uniforms (an angle, an acceptance test, a sign) until every entry
    is accepted; the angle then shifted by ``loc`` and wrapped into ``[-pi, pi)``."""
    done = zeros(x.shape, dtype=bool_, device=loc.device)
    while not bool(done.all()):
        u1, u2, u3 = rand((3,) + tuple(x.shape), dtype=loc.dtype, device=loc.device).unbind()
        z = cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Density ``exp(kappa cos(x - loc)) / (2 pi I0(kappa))`` for ``concentration`` kappa; no ``rsample``."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self) -> Tensor:
        return self.loc.to(float64)

    @lazy_property
    def _concentration(self) -> Tensor:
        return self.concentration.to(float64)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        """The proposal's parameter ``r = (1 + rho^2) / (2 rho)`` (``1 / kappa + kappa`` for a tiny kappa)."""
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            x = empty(self._extended_shape(sample_shape), dtype=self._loc.dtype, device=self.loc.device)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "VonMises":
        """A new ``VonMises`` of the expanded parameters (validated again only if validation was asked for)."""
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(kappa) / I0(kappa)``."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
