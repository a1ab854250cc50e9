"""Averaged stochastic gradient descent (``torch.optim.ASGD``, Polyak and Juditsky, 1992): SGD with a decaying
step ``eta`` and a running average ``ax`` of the iterates, which starts after ``t0`` steps.

The rule is PyTorch's ``_single_tensor_asgd``, step for step, on minigrad's ops under ``no_grad``. The state's
numbers ``step``, ``eta`` and ``mu`` are 0-d tensors of the scalar dtype (float32), as PyTorch's, so ``eta``
is read rounded to float32 as there. ``foreach=True`` gives the same values in PyTorch; minigrad runs the
for-loop for it.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([1.0, -2.0]))
    >>> opt = mg.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8000, -1.6000], requires_grad=True)
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ..tensor import Tensor
from .optimizer import (Optimizer, check_flag, check_forms, check_hyper, count_step, read_scalar, scalar_state,
                        write_scalar, zero_state)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD: ``p = p * (1 - lambd * eta) - eta * g``; ``ax`` follows ``p`` until step ``t0``, then averages it
    (``ax += (p - ax) * mu``, ``mu = 1 / (step - t0)``); ``eta = lr / (1 + lambd * lr * step) ** alpha``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_hyper("ASGD", "learning rate", lr)
        check_hyper("ASGD", "weight_decay value", weight_decay)
        check_forms("ASGD", foreach, None, differentiable)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": check_flag("ASGD", "maximize", maximize),
                                  "differentiable": differentiable,
                                  "capturable": check_flag("ASGD", "capturable", capturable)})

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_each(closure, self._update_one)

    def _update_one(self, p: Tensor, group: dict[str, Any]) -> None:
        st = self.state[p]
        if not st:
            st.update(step=scalar_state(0.0), eta=scalar_state(group["lr"]), mu=scalar_state(1.0), ax=zero_state(p))
        lr, lambd = group["lr"], group["lambd"]
        g = -p.grad if group["maximize"] else p.grad
        step = count_step(st)
        if group["weight_decay"] != 0:
            g = g.add(p, alpha=group["weight_decay"])
        eta = read_scalar(st, "eta")
        p.mul_(1 - lambd * eta)
        p.add_(g, alpha=-eta)
        mu = read_scalar(st, "mu")
        if mu != 1:
            st["ax"].add_(p.sub(st["ax"]).mul_(mu))
        else:
            st["ax"].copy_(p)
        write_scalar(st, "eta", lr / ((1 + lambd * lr * step) ** group["alpha"]))
        write_scalar(st, "mu", 1 / max(1, step - group["t0"]))
