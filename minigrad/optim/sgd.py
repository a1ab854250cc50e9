"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from typing import Any, Iterable

from ..tensor import Tensor
from .optimizer import Optimizer, check_hyper
from .update import path_for

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and
    ``maximize`` (PyTorch's rule, step for step).

    With ``g`` the gradient (negated when ``maximize``) plus ``weight_decay * p``::

        buf = g                                   (first step)
        buf = momentum * buf + (1 - dampening) * g (later steps)
        g = g + momentum * buf if nesterov else buf
        p = p - lr * g

    The rule is written once (``_update``) and runs as ops or on the arrays
    (``minigrad/optim/update.py``).
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, fused: bool | None = None) -> None:
        momentum = check_hyper("SGD", "momentum value", momentum)
        weight_decay = check_hyper("SGD", "weight_decay value", weight_decay)
        if isinstance(dampening, bool) or not isinstance(dampening, (int, float)):
            raise TypeError(f"SGD(): argument 'dampening' must be a number, but got {type(dampening).__name__}")
        for nm, flag in (("nesterov", nesterov), ("maximize", maximize)):
            if not isinstance(flag, bool):
                raise TypeError(f"SGD(): argument '{nm}' must be bool, but got {type(flag).__name__}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD(): Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": float(dampening),
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize})

    def step(self) -> None:
        self._update_each()

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        k = path_for(p, p.grad)
        g = k.value(p.grad)
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        dampening = group.get("dampening", 0.0)
        if group.get("maximize", False):
            g = -g
        if weight_decay:
            g = g + k.value(p) * weight_decay
        if momentum:
            st = self.state.setdefault(p.id, {})
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = st["momentum_buffer"] = k.keep(k.copy(g), p)
            else:
                k.mul_(buf, momentum)
                k.add_(buf, g * (1 - dampening) if dampening else g)
            g = g + k.value(buf) * momentum if group["nesterov"] else k.value(buf)
        k.sub_(p, g * lr)
