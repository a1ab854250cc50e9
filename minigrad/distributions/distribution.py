"""``Distribution``: the base of minigrad's probability distributions, as ``torch.distributions.Distribution``.

A distribution holds tensors (its parameters); ``batch_shape`` is the shape over which they are batched,
``event_shape`` the shape of one draw. ``sample`` draws without gradient, ``rsample`` through the
reparameterisation (a function of the parameters, so ``backward`` reaches them), ``log_prob`` scores a value
with ordinary ops (their nodes are PyTorch's, since the formulas are its formulas). With validation on (the
default, as Python's ``assert``), a parameter outside its constraint and a value outside the support are
refused with PyTorch's ``ValueError``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..autograd import no_grad
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .utils import lazy_property, not_defined

__all__ = ["Distribution"]


class Distribution:
    """The base class: shapes, validation, and the methods each distribution defines."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions made from now on without ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = Size(), event_shape: Any = Size(), validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                          "or initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # a parameter not given is computed from the other one: nothing to check yet
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                                 f"but found invalid values:\n{value}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        """The distribution with its parameters expanded (views, no copy) to ``batch_shape``."""
        raise not_defined(self, "expand")

    @property
    def batch_shape(self) -> Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one draw."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Each parameter's constraint, by name."""
        raise not_defined(self, "arg_constraints")

    @property
    def support(self) -> Any:
        """The constraint every draw satisfies."""
        raise not_defined(self, "support")

    @property
    def mean(self) -> Tensor:
        raise not_defined(self, "mean")

    @property
    def mode(self) -> Tensor:
        raise not_defined(self, "mode")

    @property
    def variance(self) -> Tensor:
        raise not_defined(self, "variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """A draw of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        """A draw as a differentiable function of the parameters (the reparameterisation trick)."""
        raise not_defined(self, "rsample")

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))`` (deprecated in PyTorch)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the density (or mass) at ``value``."""
        raise not_defined(self, "log_prob")

    def cdf(self, value: Tensor) -> Tensor:
        raise not_defined(self, "cdf")

    def icdf(self, value: Tensor) -> Tensor:
        raise not_defined(self, "icdf")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete distribution along dim 0 (then the batch dims, expanded unless ``expand=False``)."""
        raise not_defined(self, "enumerate_support")

    def entropy(self) -> Tensor:
        raise not_defined(self, "entropy")

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Any = Size()) -> Size:
        """``sample_shape + batch_shape + event_shape``: the shape of a draw."""
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        """Refuse a value to score whose shape does not fit, or that lies outside the support (PyTorch's words)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {Size(expected)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please initialize "
                          "the distribution with `validate_args=False` to turn off validation.", stacklevel=3)
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, "
                             f"but found invalid values:\n{value}")

    def _expand_params(self, cls: type, batch_shape: Any, names: tuple[str, ...], _instance: Any = None) -> Any:
        """``expand``'s common body: a blank ``cls`` whose parameters ``names`` (those this one holds) are this
        one's expanded to ``batch_shape`` (views), validated as this one is."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
        super(cls, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        """A blank instance for ``expand``: a subclass with its own ``__init__`` must bring its own ``expand``."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        params = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in params)
        return f"{type(self).__name__}({args})"
