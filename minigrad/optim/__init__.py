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


def _check_hyper(owner: str, what: str, value: Any, *, low: float = 0.0, below: float | None = None) -> float:
    """A hyper-parameter as PyTorch validates it: a real number, ``>= low`` (and ``< below``).

    Raises ``ValueError`` in PyTorch's words (``Adam(): Invalid beta parameter at index 0: 1.5``),
    so a typo fails at construction instead of as NaN weights many steps later.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{owner}(): Invalid {what}: {value!r} (expected a number)")
    if value < low or (below is not None and value >= below):
        bound = f"in [{low}, {below})" if below is not None else f">= {low}"
        raise ValueError(f"{owner}(): Invalid {what}: {value!r} (must be {bound})")
    return float(value)


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
        self.lr = _check_hyper(type(self).__name__, "learning rate", lr)
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
        momentum = _check_hyper("SGD", "momentum value", momentum)
        weight_decay = _check_hyper("SGD", "weight_decay value", weight_decay)
        if not isinstance(nesterov, bool):
            raise TypeError(f"SGD(): argument 'nesterov' must be bool, but got {type(nesterov).__name__}")
        if nesterov and momentum <= 0:
            raise ValueError("SGD(): Nesterov momentum requires a momentum and zero dampening")
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
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"Adam(): argument 'betas' must be a pair (beta1, beta2), but got {betas!r}")
        betas = (_check_hyper("Adam", "beta parameter at index 0", betas[0], below=1.0),
                 _check_hyper("Adam", "beta parameter at index 1", betas[1], below=1.0))
        eps = _check_hyper("Adam", "epsilon value", eps)
        weight_decay = _check_hyper("Adam", "weight_decay value", weight_decay)
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
