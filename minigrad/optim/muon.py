"""Muon (``torch.optim.Muon``, Jordan et al., 2024): momentum SGD whose step is orthogonalised.

The momentum (Nesterov's by default) of a weight matrix is replaced by the nearest semi-orthogonal matrix,
approximately: ``newton_schulz`` runs a few steps of a quintic Newton-Schulz iteration
``X <- a X + (b A + c A^2) X`` with ``A = X X^T``, in bfloat16, starting from the momentum scaled to norm 1.
Every singular value is pushed towards 1, so each direction of the matrix moves by about the same amount.
Muon is for 2-D parameters (hidden layers); biases and embeddings belong to another optimizer (AdamW).

The rule is PyTorch's ``_single_tensor_muon`` (torch/optim/_muon.py), step for step, on minigrad's ops under
``no_grad``; PyTorch has no foreach form (``muon(foreach=True)`` refuses) and neither does minigrad.
The norm of the bfloat16 start is added in PyTorch's order (``norm2``, NOTE [ Adafactor's norms are
PyTorch's ] in ``adafactor.py``).

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([[1.0, -2.0, 0.5], [3.0, 0.5, -1.0]]))
    >>> opt = mg.optim.Muon([w], lr=0.02)
    >>> (w * w).sum().backward(); opt.step()
    >>> list(opt.state[w])
    ['momentum_buffer']
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

from ..autograd.grad_mode import no_grad
from ..ops.blas import addmm
from ..tensor import Tensor
from .adafactor import norm2
from .optimizer import Optimizer, zero_state

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def newton_schulz(grad: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float) -> Tensor:
    """The orthogonalised ``grad`` (PyTorch's ``_zeropower_via_newtonschulz``): ``ns_steps`` quintic
    Newton-Schulz steps in bfloat16 on the wide orientation (a tall matrix is transposed, so ``X X^T`` is
    the small Gram matrix), from ``grad / max(||grad||, eps)``. The result is bfloat16, with singular values
    near 1 (roughly in [0.5, 1.5]: the coefficients favour speed over convergence)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.bfloat16()
    if tall:
        x = x.T
    # (clamped in float32: bfloat16's clamp kernels disagree with their InferMeta; the norm is a bfloat16
    # value, so only a norm below eps could round differently)
    x.div_(norm2(x).float().clamp(min=eps).bfloat16())
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = addmm(gram, gram, gram, beta=b, alpha=c)  # b A + c A^2
        x = addmm(x, gram_update, x, beta=a)  # a X + (b A + c A^2) X
    return x.T if tall else x


def adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape: Any) -> float:
    """The learning rate for a ``rows x cols`` matrix: ``"original"`` (Keller Jordan's, the default)
    ``lr * sqrt(max(1, rows / cols))``; ``"match_rms_adamw"`` (Moonshot's) ``lr * 0.2 * sqrt(max(rows, cols))``,
    which gives the update AdamW's RMS, so AdamW's learning rate and weight decay carry over."""
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon with PyTorch's arguments and defaults. Per step (``g`` the gradient)::

        buf.lerp_(g, 1 - momentum)                        (B = momentum * B + (1 - momentum) * g)
        u = g.lerp(buf, momentum) if nesterov else buf
        p *= 1 - lr * weight_decay;  p -= adjust_lr(lr) * newton_schulz(u)

    Every parameter must be 2-D, checked at construction as PyTorch does.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                                  "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                                  "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn})
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{str(p.size()).replace('minigrad.', 'torch.')}")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Muon step for every parameter with a gradient; returns the ``closure``'s loss."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                for p in params:  # PyTorch makes every buffer before the first update
                    if "momentum_buffer" not in self.state[p]:
                        self.state[p]["momentum_buffer"] = zero_state(p.grad)
                for p in params:
                    self._update_one(p, group)
        return loss

    def _update_one(self, p: Tensor, group: dict[str, Any]) -> None:
        """PyTorch's ``_single_tensor_muon`` for one parameter."""
        grad = p.grad
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf = self.state[p]["momentum_buffer"]
        momentum, lr = group["momentum"], group["lr"]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if group["nesterov"] else buf
        update = newton_schulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        p.mul_(1 - lr * group["weight_decay"])
        p.add_(update, alpha=-adjust_lr(lr, group["adjust_lr_fn"], p.shape))
