"""Optimizers with per-element step sizes from running squares: ``RMSprop``, ``Adagrad``, ``Adadelta``.

Each keeps running statistics of the gradient per parameter (``self.state``, under
PyTorch's key names) and divides the step by a root of them, so a coordinate with large
gradients moves less. The rules are PyTorch's, step for step (same state, same order of
operations). Each is written once, against a path (``minigrad/optim/update.py``), and runs in
PyTorch's for-loop and ``foreach`` forms (``foreach`` by default on the GPU: one multi-tensor
launch a step of the rule for all the parameters); with a recorder every update shows as events.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from .. import ops
from ..dtypes import float16, float32, float64
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from .optimizer import (AmpTensors, Optimizer, check_flag, check_forms, check_hyper, count_fused_step, count_step,
                        device_step, on_device_step, scalar_state, zero_state)
from .update import amp_skipped, amp_unscale, bump, by_count, kernel_of, rule_gradient, run_bare

__all__ = ["RMSprop", "Adagrad", "Adadelta"]


class RMSpropScalars(NamedTuple):
    lr: float
    alpha: float
    eps: float
    weight_decay: float
    momentum: float
    centered: bool
    maximize: bool


def rmsprop_rule(k: Any, p: Any, g: Any, st: Any, s: RMSpropScalars) -> None:
    """RMSprop's update of ``p`` on the path ``k`` (every form), as PyTorch's ``_single_tensor_rmsprop``."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay)
    sq = st["square_avg"]
    k.mul_(sq, s.alpha)
    k.addcmul_(sq, g, g, 1 - s.alpha)
    if s.centered:
        m = st["grad_avg"]
        k.lerp_(m, g, 1 - s.alpha)
        avg = k.copy(k.value(sq))  # square_avg.addcmul(grad_avg, grad_avg, value=-1), then sqrt_
        k.addcmul_(avg, k.value(m), k.value(m), -1)
        k.sqrt_(avg)
    else:
        avg = k.sqrt(k.value(sq))
    k.add_(avg, s.eps)
    if s.momentum > 0:
        buf = st["momentum_buffer"]
        k.mul_(buf, s.momentum)
        k.addcdiv_(buf, g, avg)
        k.add_(p, k.value(buf), alpha=-s.lr)
    else:
        k.addcdiv_(p, g, avg, -s.lr)


class RMSprop(Optimizer):
    """RMSprop (Hinton): divide by the root of a running mean of squared gradients.

    ``v = alpha * v + (1 - alpha) * g**2``; with ``centered`` the running mean
    ``m`` of ``g`` is subtracted (``v - m**2``); then ``p -= lr * g / (sqrt(v) + eps)``,
    or through a momentum buffer ``b = momentum * b + g / (sqrt(v) + eps)``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_forms("RMSprop", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "momentum": check_hyper("RMSprop", "momentum value", momentum),
            "alpha": check_hyper("RMSprop", "alpha value", alpha),
            "eps": check_hyper("RMSprop", "epsilon value", eps),
            "centered": check_flag("RMSprop", "centered", centered),
            "weight_decay": check_hyper("RMSprop", "weight_decay value", weight_decay),
            "capturable": check_flag("RMSprop", "capturable", capturable),
            "foreach": foreach,
            "maximize": check_flag("RMSprop", "maximize", maximize),
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_forms(closure)

    _rule = staticmethod(rmsprop_rule)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state.get(p)  # (not setdefault: its default, a fill of zeros, would run at every step)
        if st is None:
            st = self.state[p] = {"step": scalar_state(0.0), "square_avg": zero_state(p)}
        # (a buffer the group's options ask for from now on - momentum set after some steps - starts at zeros)
        if group["momentum"] > 0 and "momentum_buffer" not in st:
            st["momentum_buffer"] = zero_state(p)
        if group["centered"] and "grad_avg" not in st:
            st["grad_avg"] = zero_state(p)
        return st

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> RMSpropScalars:
        count_step(st)
        return RMSpropScalars(group["lr"], group["alpha"], group["eps"], group["weight_decay"], group["momentum"],
                              group["centered"], group["maximize"])


class AdagradScalars(NamedTuple):
    clr: float  # lr / (1 + (step - 1) * lr_decay)
    eps: float
    weight_decay: float
    maximize: bool


def adagrad_rule(k: Any, p: Any, g: Any, st: Any, s: AdagradScalars) -> None:
    """Adagrad's update of ``p`` on the path ``k`` (every form), as PyTorch's ``_single_tensor_adagrad``."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay)
    k.addcmul_(st["sum"], g, g, 1)
    std = k.sqrt(k.value(st["sum"]))
    k.add_(std, s.eps)
    k.addcdiv_(p, g, std, -s.clr)


@register_kernel("_fused_adagrad_", dtypes=(float16, float32, float64), name="cpu/fused_adagrad")
def fused_adagrad(params: list[np.ndarray], grads: list[np.ndarray], state_sums: list[np.ndarray],
                  state_steps: list[np.ndarray], grad_scale: np.ndarray | None, found_inf: np.ndarray | None,
                  lr: float, lr_decay: float, weight_decay: float, eps: float, maximize: bool) -> None:
    """PyTorch's ``torch._fused_adagrad_`` on the CPU: ``adagrad_rule`` on each parameter's arrays, the sums in
    place, each with the learning rate of its own count in ``state_steps`` (already counted up). A GradScaler's
    tensors as NOTE [ A fused step reads the scaler's flag on the device ] in ``update.py``."""
    if amp_skipped(found_inf):
        return
    amp_unscale(grads, grad_scale)
    for t, idx in by_count(state_steps).items():
        s = AdagradScalars(lr / (1 + (t - 1) * lr_decay), eps, weight_decay, maximize)
        run_bare(adagrad_rule, [params[i] for i in idx], [grads[i] for i in idx],
                 {"sum": [state_sums[i] for i in idx]}, False, s)


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.): divide by the root of the sum of all squared gradients so far.

    ``s += g**2``; ``p -= lr / (1 + (step - 1) * lr_decay) * g / (sqrt(s) + eps)``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        check_forms("Adagrad", foreach, fused, differentiable)
        defaults = {
            "lr": lr,
            "lr_decay": check_hyper("Adagrad", "lr_decay value", lr_decay),
            "eps": check_hyper("Adagrad", "epsilon value", eps),
            "weight_decay": check_hyper("Adagrad", "weight_decay value", weight_decay),
            "initial_accumulator_value": check_hyper("Adagrad", "initial_accumulator value",
                                                      initial_accumulator_value),
            "foreach": foreach,
            "maximize": check_flag("Adagrad", "maximize", maximize),
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused:  # a GradScaler hands the step its scale and flag (NOTE [ A fused step reads the scaler's flag
            # on the device ] in ``update.py``)
            self._step_supports_amp_scaling = True
        # PyTorch fills the accumulators at construction (so state_dict() shows them before any step); a fused
        # group's step counts are on the parameters' device.
        for group in self.param_groups:
            for p in group["params"]:
                step = device_step(p) if group["fused"] else scalar_state(0.0)
                self.state[p] = {"step": step, "sum": ops.fill(p, group["initial_accumulator_value"]).detach()}

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_forms(closure)

    _rule = staticmethod(adagrad_rule)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return self.state[p]

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> AdagradScalars:
        step = count_step(st)
        return AdagradScalars(group["lr"] / (1 + (step - 1) * group["lr_decay"]), group["eps"], group["weight_decay"],
                              group["maximize"])

    def _fused(self, bucket: list[Tensor], group: dict[str, Any], amp: AmpTensors) -> None:
        """The fused form, as PyTorch's ``_fused_adagrad``: the step counts counted up, one ``_fused_adagrad_`` call,
        and with a GradScaler's flag the counts taken down by it. minigrad has no GPU kernel for it: there each
        parameter takes the for-loop, the flag read on the host."""
        kernel = kernel_of("_fused_adagrad_", bucket[0])
        if kernel is None:
            if not amp.skips():
                for p in bucket:
                    amp.unscale(p)
                    self._update(p, group)
            return
        states = [self.state[p] for p in bucket]
        steps = [on_device_step(st, p) for st, p in zip(states, bucket)]
        count_fused_step(steps, amp, lambda counts: kernel(
            [p._data for p in bucket], [p.grad._data for p in bucket], [st["sum"]._data for st in states], counts,
            amp.scale_data, amp.found_data, group["lr"], group["lr_decay"], group["weight_decay"], group["eps"],
            group["maximize"]))
        for t in (*bucket, *(st["sum"] for st in states), *amp.unscaled(bucket)):
            bump(t)


class AdadeltaScalars(NamedTuple):
    lr: float
    rho: float
    eps: float
    weight_decay: float
    maximize: bool


def adadelta_rule(k: Any, p: Any, g: Any, st: Any, s: AdadeltaScalars) -> None:
    """Adadelta's update of ``p`` on the path ``k`` (every form), as PyTorch's ``_single_tensor_adadelta``."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay)
    sq, acc = st["square_avg"], st["acc_delta"]
    k.mul_(sq, s.rho)
    k.addcmul_(sq, g, g, 1 - s.rho)
    std = k.value(sq) + s.eps
    k.sqrt_(std)
    delta = k.value(acc) + s.eps
    k.sqrt_(delta)
    k.div_(delta, std)
    k.mul_(delta, g)
    k.mul_(acc, s.rho)
    k.addcmul_(acc, delta, delta, 1 - s.rho)
    k.add_(p, delta, alpha=-s.lr)


class Adadelta(Optimizer):
    """Adadelta (Zeiler): a step whose size is the ratio of two running roots, so ``lr=1`` is the default.

    ``v = rho * v + (1 - rho) * g**2``; ``d = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho * u + (1 - rho) * d**2``; ``p -= lr * d``.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_forms("Adadelta", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "rho": check_hyper("Adadelta", "rho value", rho, below=1.0 + 1e-12),
            "eps": check_hyper("Adadelta", "epsilon value", eps),
            "weight_decay": check_hyper("Adadelta", "weight_decay value", weight_decay),
            "maximize": check_flag("Adadelta", "maximize", maximize),
            "capturable": check_flag("Adadelta", "capturable", capturable),
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_forms(closure)

    _rule = staticmethod(adadelta_rule)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state.get(p)
        if st is None:
            st = self.state[p] = {"step": scalar_state(0.0), "square_avg": zero_state(p), "acc_delta": zero_state(p)}
        return st

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> AdadeltaScalars:
        count_step(st)
        return AdadeltaScalars(group["lr"], group["rho"], group["eps"], group["weight_decay"], group["maximize"])
