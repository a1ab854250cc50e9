"""Optimizers (``mg.optim``): SGD with momentum, and Adam.

Updates run under ``no_grad`` with in-place ops, so parameters stay leaves and
their version counters record every step.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([1.0, -1.0]))
    >>> opt = mg.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8, -0.8], requires_grad=True)
"""

from __future__ import annotations

import abc
from typing import Any, Iterable

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer(abc.ABC):
    """Base class: holds the parameters and clears their gradients."""

    def __init__(self, params: Iterable[Tensor], lr: float) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError(f"{type(self).__name__}(): got an empty parameter list")
        for i, p in enumerate(self.params):
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__}(): parameter {i} is {type(p).__name__}, not a Tensor")
            if not p.requires_grad or not p.is_leaf:
                raise ValueError(f"{type(self).__name__}(): parameter {i} must be a leaf tensor that requires grad")
        if not isinstance(lr, (int, float)) or lr < 0:
            raise ValueError(f"{type(self).__name__}(): invalid learning rate {lr!r}")
        self.lr = float(lr)
        self.state: dict[int, dict[str, Any]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear gradients (set them to ``None``, or zero them in place)."""
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                with no_grad():
                    p.grad.zero_()

    @abc.abstractmethod
    def step(self) -> None:
        """Update every parameter from its ``.grad`` (each optimizer's rule)."""


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, Nesterov and weight decay (PyTorch's rule)."""

    def __init__(self, params: Iterable[Tensor], lr: float = 0.01, momentum: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False) -> None:
        super().__init__(params, lr)
        if momentum < 0 or weight_decay < 0:
            raise ValueError("SGD(): momentum and weight_decay must be non-negative")
        self.momentum, self.weight_decay, self.nesterov = momentum, weight_decay, nesterov

    def step(self) -> None:
        with no_grad():
            for p in self.params:
                g = p.grad
                if g is None:
                    continue
                if self.weight_decay:
                    g = g + self.weight_decay * p
                if self.momentum:
                    st = self.state.setdefault(p.id, {})
                    buf = st.get("momentum")
                    if buf is None:
                        buf = st["momentum"] = g.detach_copy()
                    else:
                        buf.mul_(self.momentum).add_(g)
                    g = g + self.momentum * buf if self.nesterov else buf
                p.sub_(g * self.lr)


class Adam(Optimizer):
    """Adam (Kingma & Ba), with PyTorch's defaults and bias correction."""

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0) -> None:
        super().__init__(params, lr)
        self.betas, self.eps, self.weight_decay = betas, eps, weight_decay

    def step(self) -> None:
        b1, b2 = self.betas
        with no_grad():
            for p in self.params:
                g = p.grad
                if g is None:
                    continue
                if self.weight_decay:
                    g = g + self.weight_decay * p
                st = self.state.setdefault(p.id, {"t": 0, "m": None, "v": None})
                st["t"] += 1
                t = st["t"]
                if st["m"] is None:
                    st["m"] = g * (1 - b1)
                    st["v"] = g * g * (1 - b2)
                else:
                    st["m"].mul_(b1).add_(g * (1 - b1))
                    st["v"].mul_(b2).add_(g * g * (1 - b2))
                step = self.lr / (1 - b1**t)
                denom = (st["v"] / (1 - b2**t)).sqrt() + self.eps
                p.sub_(st["m"] / denom * step)


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
