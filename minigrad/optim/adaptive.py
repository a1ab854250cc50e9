"""Optimizers with per-element step sizes: ``RMSprop``, ``Adagrad``, ``Adadelta``, ``Adamax``.

Each keeps running statistics of the gradient per parameter (``self.state``,
under PyTorch's key names) and divides the step by a root of them, so a
coordinate with large gradients moves less. The rules are PyTorch's, step for
step (same state, same order of operations); they run as in-place tensor ops
under ``no_grad``, so with a recorder every update shows as events.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([1.0, -2.0]))
    >>> opt = mg.optim.RMSprop([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> [round(v, 4) for v in w.tolist()]
    [0.0, -1.0]
"""

from __future__ import annotations

from typing import Any, Iterable

from .. import ops
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import Optimizer, _check_hyper

__all__ = ["RMSprop", "Adagrad", "Adadelta", "Adamax"]


def _zeros_like(p: Tensor) -> Tensor:
    return ops.fill(p, 0.0).detach()


def _check_flag(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}(): argument '{name}' must be bool, but got {type(value).__name__}")
    return value


def _grad(p: Tensor, group: dict[str, Any]) -> Tensor:
    """The gradient a rule works with: negated for ``maximize``, plus ``weight_decay * p`` (L2)."""
    g = p.grad
    if group["maximize"]:
        g = ops.neg(g)
    if group["weight_decay"]:
        g = ops.add(g, ops.mul(p, group["weight_decay"]))
    return g


class RMSprop(Optimizer):
    """RMSprop (Hinton): divide by the root of a running mean of squared gradients.

    ``v = alpha * v + (1 - alpha) * g**2``; with ``centered`` the running mean
    ``m`` of ``g`` is subtracted (``v - m**2``); then ``p -= lr * g / (sqrt(v) + eps)``,
    or through a momentum buffer ``b = momentum * b + g / (sqrt(v) + eps)``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False,
                 *, maximize: bool = False) -> None:
        defaults = {
            "lr": lr,
            "alpha": _check_hyper("RMSprop", "alpha value", alpha),
            "eps": _check_hyper("RMSprop", "epsilon value", eps),
            "weight_decay": _check_hyper("RMSprop", "weight_decay value", weight_decay),
            "momentum": _check_hyper("RMSprop", "momentum value", momentum),
            "centered": _check_flag("RMSprop", "centered", centered),
            "maximize": _check_flag("RMSprop", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group in self.param_groups:
                alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = _grad(p, group)
                    st = self.state.setdefault(p.id, {"step": 0, "square_avg": _zeros_like(p)})
                    st["step"] += 1
                    sq = st["square_avg"].mul_(alpha).add_(ops.mul(ops.mul(g, g), 1 - alpha))
                    if group["centered"]:
                        m = st.setdefault("grad_avg", _zeros_like(p))
                        m.add_(ops.mul(ops.sub(g, m), 1 - alpha))  # lerp towards g
                        avg = ops.sqrt(ops.sub(sq, ops.mul(m, m)))
                    else:
                        avg = ops.sqrt(sq)
                    avg = ops.add(avg, eps)
                    if momentum > 0:
                        buf = st.setdefault("momentum_buffer", _zeros_like(p))
                        buf.mul_(momentum).add_(ops.div(g, avg))
                        p.sub_(ops.mul(buf, group["lr"]))
                    else:
                        p.sub_(ops.mul(ops.div(g, avg), group["lr"]))


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.): divide by the root of the sum of all squared gradients so far.

    ``s += g**2``; ``p -= lr / (1 + (step - 1) * lr_decay) * g / (sqrt(s) + eps)``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *, maximize: bool = False) -> None:
        defaults = {
            "lr": lr,
            "lr_decay": _check_hyper("Adagrad", "lr_decay value", lr_decay),
            "weight_decay": _check_hyper("Adagrad", "weight_decay value", weight_decay),
            "initial_accumulator_value": _check_hyper("Adagrad", "initial_accumulator value",
                                                      initial_accumulator_value),
            "eps": _check_hyper("Adagrad", "epsilon value", eps),
            "maximize": _check_flag("Adagrad", "maximize", maximize),
        }
        super().__init__(params, defaults)
        # PyTorch fills the accumulators at construction (so state_dict() shows them before any step).
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p.id] = {"step": 0, "sum": ops.fill(p, group["initial_accumulator_value"]).detach()}

    def step(self) -> None:
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = _grad(p, group)
                    st = self.state[p.id]
                    st["step"] += 1
                    clr = group["lr"] / (1 + (st["step"] - 1) * group["lr_decay"])
                    st["sum"].add_(ops.mul(g, g))
                    std = ops.add(ops.sqrt(st["sum"]), group["eps"])
                    p.sub_(ops.mul(ops.div(g, std), clr))


class Adadelta(Optimizer):
    """Adadelta (Zeiler): a step whose size is the ratio of two running roots, so ``lr=1`` is the default.

    ``v = rho * v + (1 - rho) * g**2``; ``d = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho * u + (1 - rho) * d**2``; ``p -= lr * d``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0.0, *, maximize: bool = False) -> None:
        defaults = {
            "lr": lr,
            "rho": _check_hyper("Adadelta", "rho value", rho, below=1.0 + 1e-12),
            "eps": _check_hyper("Adadelta", "epsilon value", eps),
            "weight_decay": _check_hyper("Adadelta", "weight_decay value", weight_decay),
            "maximize": _check_flag("Adadelta", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group in self.param_groups:
                rho, eps = group["rho"], group["eps"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = _grad(p, group)
                    st = self.state.setdefault(p.id, {"step": 0, "square_avg": _zeros_like(p),
                                                      "acc_delta": _zeros_like(p)})
                    st["step"] += 1
                    sq = st["square_avg"].mul_(rho).add_(ops.mul(ops.mul(g, g), 1 - rho))
                    std = ops.sqrt(ops.add(sq, eps))
                    delta = ops.mul(ops.div(ops.sqrt(ops.add(st["acc_delta"], eps)), std), g)
                    st["acc_delta"].mul_(rho).add_(ops.mul(ops.mul(delta, delta), 1 - rho))
                    p.sub_(ops.mul(delta, group["lr"]))


class Adamax(Optimizer):
    """Adamax (Kingma & Ba): Adam with the infinity norm in place of the second moment.

    ``m = b1 * m + (1 - b1) * g``; ``u = max(b2 * u, |g| + eps)``;
    ``p -= lr / (1 - b1**step) * m / u``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, *, maximize: bool = False) -> None:
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"Adamax(): argument 'betas' must be a pair (beta1, beta2), but got {betas!r}")
        defaults = {
            "lr": lr,
            "betas": (_check_hyper("Adamax", "beta parameter at index 0", betas[0], below=1.0),
                      _check_hyper("Adamax", "beta parameter at index 1", betas[1], below=1.0)),
            "eps": _check_hyper("Adamax", "epsilon value", eps),
            "weight_decay": _check_hyper("Adamax", "weight_decay value", weight_decay),
            "maximize": _check_flag("Adamax", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group in self.param_groups:
                (b1, b2), eps = group["betas"], group["eps"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = _grad(p, group)
                    st = self.state.setdefault(p.id, {"step": 0, "exp_avg": _zeros_like(p),
                                                      "exp_inf": _zeros_like(p)})
                    st["step"] += 1
                    m = st["exp_avg"]
                    m.add_(ops.mul(ops.sub(g, m), 1 - b1))  # lerp towards g
                    st["exp_inf"] = ops.maximum(ops.mul(st["exp_inf"], b2), ops.add(ops.abs(g), eps))
                    clr = group["lr"] / (1 - b1 ** st["step"])
                    p.sub_(ops.mul(ops.div(m, st["exp_inf"]), clr))
