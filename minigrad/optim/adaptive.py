"""Optimizers with per-element step sizes from running squares: ``RMSprop``, ``Adagrad``, ``Adadelta``.

Each keeps running statistics of the gradient per parameter (``self.state``, under
PyTorch's key names) and divides the step by a root of them, so a coordinate with large
gradients moves less. The rules are PyTorch's, step for step (same state, same order of
operations); they run as in-place tensor ops under ``no_grad``, so with a recorder every
update shows as events.
"""

from __future__ import annotations

from typing import Any, Iterable

from .. import ops
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, check_flag, check_hyper, rule_grad, zero_state

__all__ = ["RMSprop", "Adagrad", "Adadelta"]


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
            "alpha": check_hyper("RMSprop", "alpha value", alpha),
            "eps": check_hyper("RMSprop", "epsilon value", eps),
            "weight_decay": check_hyper("RMSprop", "weight_decay value", weight_decay),
            "momentum": check_hyper("RMSprop", "momentum value", momentum),
            "centered": check_flag("RMSprop", "centered", centered),
            "maximize": check_flag("RMSprop", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group, p in self._params_with_grad():
                alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
                g = rule_grad(p, group)
                st = self.state.setdefault(p.id, {"step": 0, "square_avg": zero_state(p)})
                st["step"] += 1
                sq = st["square_avg"].mul_(alpha).add_(ops.mul(ops.mul(g, g), 1 - alpha))
                if group["centered"]:
                    m = st.setdefault("grad_avg", zero_state(p))
                    m.add_(ops.mul(ops.sub(g, m), 1 - alpha))  # lerp towards g
                    avg = ops.sqrt(ops.sub(sq, ops.mul(m, m)))
                else:
                    avg = ops.sqrt(sq)
                avg = ops.add(avg, eps)
                if momentum > 0:
                    buf = st.setdefault("momentum_buffer", zero_state(p))
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
            "lr_decay": check_hyper("Adagrad", "lr_decay value", lr_decay),
            "weight_decay": check_hyper("Adagrad", "weight_decay value", weight_decay),
            "initial_accumulator_value": check_hyper("Adagrad", "initial_accumulator value",
                                                      initial_accumulator_value),
            "eps": check_hyper("Adagrad", "epsilon value", eps),
            "maximize": check_flag("Adagrad", "maximize", maximize),
        }
        super().__init__(params, defaults)
        # PyTorch fills the accumulators at construction (so state_dict() shows them before any step).
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p.id] = {"step": 0, "sum": ops.fill(p, group["initial_accumulator_value"]).detach()}

    def step(self) -> None:
        with no_grad():
            for group, p in self._params_with_grad():
                g = rule_grad(p, group)
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
            "rho": check_hyper("Adadelta", "rho value", rho, below=1.0 + 1e-12),
            "eps": check_hyper("Adadelta", "epsilon value", eps),
            "weight_decay": check_hyper("Adadelta", "weight_decay value", weight_decay),
            "maximize": check_flag("Adadelta", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group, p in self._params_with_grad():
                rho, eps = group["rho"], group["eps"]
                g = rule_grad(p, group)
                st = self.state.setdefault(p.id, {"step": 0, "square_avg": zero_state(p),
                                                  "acc_delta": zero_state(p)})
                st["step"] += 1
                sq = st["square_avg"].mul_(rho).add_(ops.mul(ops.mul(g, g), 1 - rho))
                std = ops.sqrt(ops.add(sq, eps))
                delta = ops.mul(ops.div(ops.sqrt(ops.add(st["acc_delta"], eps)), std), g)
                st["acc_delta"].mul_(rho).add_(ops.mul(ops.mul(delta, delta), 1 - rho))
                p.sub_(ops.mul(delta, group["lr"]))
