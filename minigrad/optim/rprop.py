"""Resilient backpropagation (``torch.optim.Rprop``, Riedmiller and Braun, 1993): a step size per element that
grows while the gradient keeps its sign and shrinks when the sign flips; the step moves by the size, in the
direction against the gradient's sign, ignoring the gradient's magnitude.

The rule is PyTorch's ``_single_tensor_rprop``, step for step, on minigrad's ops under ``no_grad`` (so a
recorder shows each update as events). ``foreach=True`` gives the same values in PyTorch; minigrad runs the
for-loop for it.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([1.0, -2.0]))
    >>> opt = mg.optim.Rprop([w], lr=0.1)
    >>> for _ in range(2):
    ...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.7800, -1.7800], requires_grad=True)
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .. import ops
from ..tensor import Tensor
from .optimizer import Optimizer, check_flag, check_forms, check_hyper, count_step, scalar_state, zero_state

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: ``step_size *= etaplus`` where ``g * prev > 0``, ``*= etaminus`` where it is ``< 0`` (and that
    element's gradient counts as 0 this step), clamped to ``step_sizes``; ``p -= sign(g) * step_size``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_hyper("Rprop", "learning rate", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_forms("Rprop", foreach, None, differentiable)
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                                  "maximize": check_flag("Rprop", "maximize", maximize),
                                  "differentiable": differentiable,
                                  "capturable": check_flag("Rprop", "capturable", capturable)})

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_each(closure, self._update_one)

    def _update_one(self, p: Tensor, group: dict[str, Any]) -> None:
        st = self.state[p]
        if not st:
            st.update(step=scalar_state(0.0), prev=zero_state(p), step_size=ops.fill(p.grad, group["lr"]).detach())
        (etaminus, etaplus), (lo, hi) = group["etas"], group["step_sizes"]
        g = -p.grad if group["maximize"] else p.grad
        count_step(st)
        sign = (g * st["prev"]).sign()
        sign.masked_fill_(sign.gt(0), etaplus)
        sign.masked_fill_(sign.lt(0), etaminus)
        sign.masked_fill_(sign.eq(0), 1)
        st["step_size"].mul_(sign).clamp_(lo, hi)
        g = g.clone().masked_fill_(sign.eq(etaminus), 0)  # where the sign flipped, no step this time
        p.addcmul_(g.sign(), st["step_size"], value=-1)
        st["prev"].copy_(g)
