"""Adafactor (``torch.optim.Adafactor``, Shazeer and Stern, 2018): Adam's second moment kept in factored form.

For a matrix gradient (or a stack of matrices: the last two dims) the running mean of ``g * g`` is stored as
one value per row (``row_var``) and one per column (``col_var``) instead of one per element; their outer
product over the mean row value estimates the full matrix, so the optimizer's memory grows with
``rows + cols``, not ``rows * cols``. A vector keeps the full estimate (``variance``). The step size is
relative: ``alpha = max(eps2, RMS(p)) * min(lr, 1 / sqrt(step))``, and the update is clipped to an RMS of at
most ``d``. ``beta2`` is not a constant but ``1 - step ** beta2_decay``.

The rule is PyTorch's ``_single_tensor_adafactor`` (torch/optim/_adafactor.py), step for step, on minigrad's
ops under ``no_grad``; ``foreach=True`` is PyTorch's ``_multi_tensor_adafactor``, which differs in one
rounding: it scales the update and then adds it (two roundings) where the for-loop adds with ``alpha``
(one fused multiply-add). Both are reproduced, so each form equals PyTorch's own. On a GPU the rule runs as it
is, except that the two norms PyTorch reads with ``.item()`` (a wait for the device, twice a parameter) stay
0-d tensors on the device (``clamped_ratio``): a step makes no copy to the host and no sync.

NOTE [ Adafactor's norms are PyTorch's ]
    The rule reads four 2-norms (the parameter's and the update's, as numbers; the gradient's per row and
    per column). Their last bits depend on the order of the additions, and ``alpha`` and the clipping move
    every element of the step, so ``norm2`` adds in PyTorch's CPU order (aten/src/ATen/native/cpu/
    ReduceOpsKernel.cpp ``norm_kernel_tensor_iterator_impl``): along a contiguous dim, AVX2 vectors of
    running sums of squares (4 doubles, 8 floats; a bfloat16 vector is 16 values added as two float
    halves), the lanes added in order, then the leftover elements one by one (fused multiply-adds, except
    the first four of a float tail of four or more: squared, then added); along a strided dim, one running
    sum per output, plain adds. Checked against PyTorch for every row length to 40 in the three dtypes
    (tests/test_optim_adafactor_muon.py). (The CPU kernel of ``vector_norm`` adds pairwise, NumPy's order,
    and refuses bfloat16: ``norm2`` is the one to move there.)

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([[1.0, -2.0], [3.0, 0.5]]))
    >>> opt = mg.optim.Adafactor([w], lr=0.01)
    >>> (w * w).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['col_var', 'row_var', 'step']
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import ml_dtypes
import numpy as np

from ..autograd.grad_mode import no_grad
from ..dtypes import bfloat16, finfo
from ..fma import fused_multiply_add
from ..ops.norm import vector_norm
from ..tensor import Tensor
from .optimizer import Optimizer, count_step, scalar_state, zero_state

__all__ = ["Adafactor"]


# -- the 2-norm in PyTorch's order (NOTE [ Adafactor's norms are PyTorch's ]) ---------------------

_LANES = {np.dtype(np.float64): 4}  # AVX2 lanes of the accumulator: 8 for float32 (and bfloat16's float)


def _norm_along_last(x: np.ndarray) -> np.ndarray:
    """PyTorch's vectorised norm of each row of ``x`` (its last dim contiguous), in ``x``'s dtype."""
    acc_t = np.float64 if x.dtype == np.float64 else np.float32
    lanes = _LANES.get(x.dtype, 8)
    width = 16 if x.dtype == ml_dtypes.bfloat16 else lanes  # one load: a bfloat16 vector holds two float halves
    n = x.shape[-1]
    full = n - n % width
    acc = np.zeros(x.shape[:-1] + (lanes,), acc_t)
    for start in range(0, full, lanes):
        chunk = x[..., start:start + lanes].astype(acc_t)
        acc = acc + chunk * chunk
    total = acc[..., 0]
    for j in range(1, lanes):
        total = total + acc[..., j]
    plain = 4 if acc_t is np.float32 and n - full >= 4 else 0  # (the compiled tail: 4 floats square-then-add)
    for i in range(full, n):
        v = x[..., i].astype(acc_t)
        total = total + v * v if i < full + plain else fused_multiply_add(v, v, total)
    return np.sqrt(total).astype(x.dtype)


def norm2_array(x: np.ndarray, dim: int | None = None) -> np.ndarray:
    """The 2-norm of a contiguous array over all elements (``dim=None``) or over ``dim`` (kept as size 1),
    added in PyTorch's CPU order: the vectorised path when ``dim`` is contiguous once size-1 dims are
    dropped, else one running sum per output."""
    if dim is None:
        return _norm_along_last(np.ascontiguousarray(x).reshape(-1))
    dim %= x.ndim
    if all(s == 1 for s in x.shape[dim + 1:]):
        moved = np.ascontiguousarray(np.moveaxis(x, dim, -1))
        return np.expand_dims(_norm_along_last(moved), dim)
    acc_t = np.float64 if x.dtype == np.float64 else np.float32
    wide = x.astype(acc_t)
    sums = np.add.accumulate(wide * wide, axis=dim)  # (NumPy accumulates in order: PyTorch's running sum)
    last = np.take(sums, [x.shape[dim] - 1], axis=dim)
    return np.sqrt(last).astype(x.dtype)


def norm2(t: Tensor, dim: int | None = None) -> Tensor:
    """``t.norm(2)`` (``dim=None``) or ``t.norm(2, dim, keepdim=True)``, as PyTorch's CPU kernel adds it; on
    another device, ``vector_norm``'s."""
    data = t._data
    if type(data) is not np.ndarray:  # (bfloat16 in float32, as PyTorch accumulates it)
        wide = t.float() if t._dtype is bfloat16 else t
        return vector_norm(wide, 2, dim, dim is not None).to(t._dtype)
    return Tensor._make(np.asarray(norm2_array(data, dim)), t._dtype)


def clamped_ratio(norm: Tensor, divisor: float, low: float) -> float | Tensor:
    """``max(low, norm / divisor)``. PyTorch reads the norm with ``.item()``: so does the CPU, giving a Python
    number; on a device it stays a 0-d tensor, so that the step waits for nothing (no copy to the host)."""
    if type(norm._data) is np.ndarray:
        return max(low, norm.item() / divisor)
    return norm.div(divisor).clamp(min=low)  # (out of place: an in-place write of a 0-d device tensor reads it back)


# -- the optimizer ------------------------------------------------------------------------------

class Adafactor(Optimizer):
    """Adafactor with PyTorch's arguments and defaults.

    Per step ``t`` (``G`` the gradient, negated for ``maximize``)::

        alpha = max(eps2, RMS(p)) * min(lr, 1 / sqrt(t));   p *= 1 - lr * weight_decay
        matrix: row_var.lerp_(mean of G^2 over the last dim, t ** beta2_decay), col_var likewise over dim -2
                V = row_var @ col_var / max(mean(row_var), eps1)
        vector: variance.lerp_(G^2, t ** beta2_decay);  V = variance
        U = G / sqrt(max(V, eps1^2));   p -= alpha * U / max(1, RMS(U) / d)

    ``eps1=None`` is the parameters' dtype's machine epsilon (the group's first parameter's, as PyTorch's).
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize})

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adafactor step for every parameter with a gradient; returns the ``closure``'s loss."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                eps1 = group["eps"][0]
                if eps1 is None and params:  # PyTorch's: the first parameter's dtype decides, for the whole group
                    eps1 = finfo(params[0].dtype).eps
                for p in params:
                    self._update_one(p, group, eps1)
        return loss

    def _state_of(self, p: Tensor) -> dict[str, Any]:
        """PyTorch's state: ``step``, then ``row_var`` and ``col_var`` (a gradient of 2 dims or more, with the
        last dim, or the one before it, reduced to 1) or ``variance`` (a vector or a number)."""
        st = self.state[p]
        if not st:
            st["step"] = scalar_state(0.0)
            g = p.grad
            if g.dim() > 1:
                st["row_var"] = g.new_zeros([*g.shape[:-1], 1])
                st["col_var"] = g.new_zeros([*g.shape[:-2], 1, g.shape[-1]])
            else:
                st["variance"] = zero_state(g)
        return st

    def _update_one(self, p: Tensor, group: dict[str, Any], eps1: float) -> None:
        """PyTorch's ``_single_tensor_adafactor`` for one parameter (``_multi_tensor_adafactor``'s last two
        roundings with ``foreach=True``)."""
        st = self._state_of(p)
        lr, d = group["lr"], group["d"]
        grad = -p.grad if group["maximize"] else p.grad
        step = count_step(st)
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / (step ** 0.5))
        alpha = clamped_ratio(norm2(p), p.numel() ** 0.5, group["eps"][1]) * rho
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = st["row_var"], st["col_var"]
            row_var.lerp_(norm2(grad, -1).square_().div_(grad.size(-1)), one_minus_beta2)
            col_var.lerp_(norm2(grad, -2).square_().div_(grad.size(-2)), one_minus_beta2)
            estimate = row_var @ col_var
            estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            st["variance"].lerp_(grad * grad, one_minus_beta2)
            estimate = st["variance"].clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        clip = clamped_ratio(norm2(update), (update.numel() ** 0.5) * d, 1.0)
        step = -alpha / clip
        if group["foreach"] or isinstance(step, Tensor):  # PyTorch's foreach form: ``_foreach_mul_``, ``_foreach_add_``
            p.add_(update.mul_(step))
        else:
            p.add_(update, alpha=step)
