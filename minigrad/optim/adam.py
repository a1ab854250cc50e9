"""The Adam family: ``Adam``, ``AdamW``, ``Adamax``, ``NAdam``, ``RAdam``.

Each keeps running estimates of the gradient's first moment (``exp_avg``) and second
moment (``exp_avg_sq``, or Adamax's infinity norm ``exp_inf``) per parameter, under
PyTorch's state names, and follows PyTorch's rule step for step. Each rule is written once
(``adam_rule``, ``adamax_rule``, ``nadam_rule``, ``radam_rule``) and runs in PyTorch's for-loop and
foreach forms, ``Adam``'s and ``AdamW``'s in the fused form too (``minigrad/optim/update.py``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from ..dtypes import float16, float32, float64
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from .optimizer import (AmpTensors, Optimizer, check_betas, check_flag, check_forms, check_hyper, count_fused_step,
                        count_step, device_step, on_device_step, read_scalar, scalar_state, scale_scalar, zero_state)
from .update import amp_skipped, amp_unscale, bump, by_count, kernel_of, rule_gradient, run_bare

__all__ = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam"]


class AdamScalars(NamedTuple):
    """The numbers of one Adam/AdamW step (the fused kernels take them in this order)."""

    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    decay: float  # 1 - lr * weight_decay: AdamW's shrink of the parameter
    step_size: float  # lr / (1 - beta1**step)
    bias_correction2_sqrt: float  # (1 - beta2**step) ** 0.5
    amsgrad: bool
    maximize: bool
    decoupled: bool


def adam_rule(k: Any, p: Any, g: Any, st: Any, s: AdamScalars) -> None:
    """Adam's update of ``p`` from its gradient ``g`` on the path ``k`` (the one formula of every form), as
    PyTorch's ``_single_tensor_adam`` writes it (NOTE [ An optimizer's step is PyTorch's, bit for bit ]);
    ``st`` holds the moments (zeros before the first step), already one step further (``step``)."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay, s.decay if s.decoupled else None)
    m, v = st["exp_avg"], st["exp_avg_sq"]
    k.lerp_(m, g, 1 - s.beta1)
    k.mul_(v, s.beta2)
    k.addcmul_(v, g, g, 1 - s.beta2)
    if s.amsgrad:
        k.maximum_(st["max_exp_avg_sq"], v)
        v = st["max_exp_avg_sq"]
    denom = k.sqrt(k.value(v))
    k.div_(denom, s.bias_correction2_sqrt)
    k.add_(denom, s.eps)
    k.addcdiv_(p, m, denom, -s.step_size)


class FusedAdamNumbers(NamedTuple):
    """The numbers a fused Adam/AdamW kernel takes (PyTorch's ``_fused_adam_`` arguments): each parameter's
    step count comes from its own step tensor, so the bias corrections are the kernel's (``adam_scalars``)."""

    lr: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    amsgrad: bool
    maximize: bool
    decoupled: bool


def adam_scalars(n: FusedAdamNumbers, t: float) -> AdamScalars:
    """The numbers of step ``t`` (the count after this step), as PyTorch's for-loop computes them on the host."""
    return AdamScalars(n.beta1, n.beta2, n.eps, n.weight_decay, 1 - n.lr * n.weight_decay, n.lr / (1 - n.beta1**t),
                       (1 - n.beta2**t) ** 0.5, n.amsgrad, n.maximize, n.decoupled)


@register_kernel("_fused_adam_", dtypes=(float16, float32, float64), name="cpu/fused_adam")
def fused_adam(params: list[np.ndarray], grads: list[np.ndarray], exp_avgs: list[np.ndarray],
               exp_avg_sqs: list[np.ndarray], max_exp_avg_sqs: list[np.ndarray] | None, state_steps: list[np.ndarray],
               grad_scale: np.ndarray | None, found_inf: np.ndarray | None, *numbers: Any, counts_upto: int = 0,
               path: Any = None) -> None:
    """PyTorch's ``torch._fused_adam_``/``_fused_adamw_`` on the CPU: ``adam_rule`` on each parameter's
    arrays, the moments (zeros before the first step) in place (on ``path``: ``run_bare``'s), each with the
    bias corrections of its own count in ``state_steps`` (already counted up; ``counts_upto``, the GPU kernel's
    bound on them, is not needed here). A GradScaler's tensors as NOTE [ A fused step reads the scaler's flag
    on the device ] in ``update.py``."""
    if amp_skipped(found_inf):
        return
    amp_unscale(grads, grad_scale)
    n = FusedAdamNumbers(*numbers)
    names = {"exp_avg": exp_avgs, "exp_avg_sq": exp_avg_sqs, **({"max_exp_avg_sq": max_exp_avg_sqs} if n.amsgrad else {})}
    for t, idx in by_count(state_steps).items():
        run_bare(adam_rule, [params[i] for i in idx], [grads[i] for i in idx],
                 {nm: [bufs[i] for i in idx] for nm, bufs in names.items()}, False, adam_scalars(n, t), path)


class Adam(Optimizer):
    """Adam (Kingma & Ba), with PyTorch's defaults and bias correction; ``amsgrad`` keeps the running
    maximum of the second moment (Reddi et al.); ``maximize`` ascends.

    The rule is written once (``adam_rule``) and runs in PyTorch's three forms: a for-loop over the
    parameters, ``foreach`` (the default on the GPU) and ``fused`` (NOTE [ One rule, three forms ] in
    ``minigrad/optim/update.py``).
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        name = type(self).__name__
        betas = check_betas(name, betas)
        eps = check_hyper(name, "epsilon value", eps)
        weight_decay = check_hyper(name, "weight_decay value", weight_decay)
        for nm, flag in (("amsgrad", amsgrad), ("maximize", maximize), ("capturable", capturable)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name}(): argument '{nm}' must be bool, but got {type(flag).__name__}")
        check_forms(name, foreach, fused, differentiable)
        # Adam(decoupled_weight_decay=True) is AdamW; AdamW's groups say so too, as PyTorch's do.
        decoupled = check_flag(name, "decoupled_weight_decay", decoupled_weight_decay) or self.decoupled_weight_decay
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable, "fused": fused,
                                  "decoupled_weight_decay": decoupled})
        if fused:  # a GradScaler hands the step its scale and flag (NOTE [ A fused step reads the scaler's flag
            # on the device ] in ``update.py``)
            self._step_supports_amp_scaling = True

    #: AdamW sets this: weight decay shrinks the parameter directly instead of joining the gradient.
    decoupled_weight_decay = False

    #: no step count is above this (None: unknown since a state was loaded); the fused kernel's table of bias
    #: corrections covers it, so the device's counts are never read on the host
    _counts_upto: int | None = 0

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        if self._counts_upto is None:
            self._counts_upto = int(max((read_scalar(st, "step") for st in self.state.values() if "step" in st),
                                        default=0))
        self._counts_upto += 1
        return self._step_forms(closure)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        self._counts_upto = None

    _rule = staticmethod(adam_rule)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state.get(p)  # (not setdefault: its default, fills of zeros, would run at every step)
        if st is None:  # PyTorch's: the moments start at zeros; a fused step's count lives on the device
            step = device_step(p) if group.get("fused") else scalar_state(0.0)
            st = self.state[p] = {"step": step, "exp_avg": zero_state(p), "exp_avg_sq": zero_state(p)}
        if group.get("amsgrad") and "max_exp_avg_sq" not in st:
            st["max_exp_avg_sq"] = zero_state(p)
        return st

    def _begin(self, group: dict[str, Any], st: Any) -> AdamScalars:
        """Count one more step in ``st`` and return the step's numbers."""
        return adam_scalars(self._numbers(group), count_step(st))

    def _numbers(self, group: dict[str, Any]) -> FusedAdamNumbers:
        (b1, b2) = group["betas"]
        return FusedAdamNumbers(group["lr"], b1, b2, group["eps"], group["weight_decay"], group.get("amsgrad", False),
                                group.get("maximize", False),
                                group.get("decoupled_weight_decay", self.decoupled_weight_decay))

    def _fused(self, bucket: list[Tensor], group: dict[str, Any], amp: AmpTensors) -> None:
        """The fused form, as PyTorch's ``_fused_adam``: the step counts (tensors on the device) counted up in
        one multi-tensor call, one ``_fused_adam_`` call over the bucket, and with a GradScaler's flag the
        counts taken down by it (NOTE [ A fused step reads the scaler's flag on the device ])."""
        states = [self._state_of(p, group) for p in bucket]
        steps = [on_device_step(st, p) for st, p in zip(states, bucket)]
        n = self._numbers(group)
        names = ["exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if n.amsgrad else [])
        bufs = [[st[nm]._data for st in states] for nm in names]
        count_fused_step(steps, amp, lambda counts: kernel_of("_fused_adam_", bucket[0])(
            [p._data for p in bucket], [p.grad._data for p in bucket], bufs[0], bufs[1], bufs[2] if n.amsgrad else None,
            counts, amp.scale_data, amp.found_data, *n, counts_upto=self._counts_upto))
        for t in (*bucket, *(st[nm] for st in states for nm in names), *amp.unscaled(bucket)):
            bump(t)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p -= lr * wd * p`` before the Adam
    step, instead of adding ``wd * p`` to the gradient. PyTorch's defaults (``weight_decay=0.01``)."""

    decoupled_weight_decay = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused)



class MomentScalars(NamedTuple):
    """The numbers NAdam's and RAdam's first steps share (``adam_moments``)."""

    beta1: float
    beta2: float
    weight_decay: float
    decay: float  # 1 - lr * weight_decay: the decoupled shrink of the parameter
    decoupled: bool
    maximize: bool


def adam_moments(k: Any, p: Any, g: Any, st: Any, s: MomentScalars) -> tuple[Any, Any, Any]:
    """The first steps NAdam and RAdam share, on the path ``k``, as PyTorch writes them: the gradient (negated
    for ``maximize``), decoupled weight decay on ``p`` or L2 on ``g``, then ``exp_avg.lerp_(g, 1 - b1)`` and
    ``exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2)``. Returns ``(g, m, v)``, the last two as values."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay, s.decay if s.decoupled else None)
    m, v = st["exp_avg"], st["exp_avg_sq"]
    k.lerp_(m, g, 1 - s.beta1)
    k.mul_(v, s.beta2)
    k.addcmul_(v, g, g, 1 - s.beta2)
    return g, k.value(m), k.value(v)


def _moment_scalars(group: dict[str, Any]) -> MomentScalars:
    (b1, b2), lr, wd = group["betas"], group["lr"], group["weight_decay"]
    return MomentScalars(b1, b2, wd, 1 - lr * wd, group["decoupled_weight_decay"], group["maximize"])


class _MomentsOptimizer(Optimizer):
    """NAdam's and RAdam's common part: their state (PyTorch's keys, made once) and the three-forms step."""

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_forms(closure)

    #: extra numbers a parameter's state starts with (NAdam's ``mu_product``)
    _extra_state: dict[str, Any] = {}

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state.get(p)  # (not setdefault: its default, two fills of zeros, would run at every step)
        if st is None:
            st = self.state[p] = {"step": scalar_state(0.0), **{k: scalar_state(v) for k, v in self._extra_state.items()},
                                  "exp_avg": zero_state(p),
                                     "exp_avg_sq": zero_state(p)}
        return st


class AdamaxScalars(NamedTuple):
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    clr: float  # lr / (1 - beta1**step)
    maximize: bool


def adamax_rule(k: Any, p: Any, g: Any, st: Any, s: AdamaxScalars) -> None:
    """Adamax's update of ``p`` on the path ``k`` (every form), as PyTorch's ``_single_tensor_adamax``:
    ``exp_avg`` lerps towards ``g``, ``exp_inf`` becomes the larger of ``b2 * exp_inf`` and ``|g| + eps``."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay)
    m, u = st["exp_avg"], st["exp_inf"]
    k.lerp_(m, g, 1 - s.beta1)
    k.mul_(u, s.beta2)
    bound = k.abs(g)
    k.add_(bound, s.eps)
    k.maximum_(u, bound)
    k.addcdiv_(p, m, u, -s.clr)


class Adamax(Optimizer):
    """Adamax (Kingma & Ba): Adam with the infinity norm in place of the second moment.

    ``m = b1 * m + (1 - b1) * g``; ``u = max(b2 * u, |g| + eps)``;
    ``p -= lr / (1 - b1**step) * m / u``. The rule (``adamax_rule``) runs in the for-loop and ``foreach``
    forms (``foreach`` by default on the GPU).
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        check_forms("Adamax", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "betas": check_betas("Adamax", betas),
            "eps": check_hyper("Adamax", "epsilon value", eps),
            "weight_decay": check_hyper("Adamax", "weight_decay value", weight_decay),
            "foreach": foreach,
            "maximize": check_flag("Adamax", "maximize", maximize),
            "differentiable": differentiable,
            "capturable": check_flag("Adamax", "capturable", capturable),
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_forms(closure)

    _rule = staticmethod(adamax_rule)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        st = self.state.get(p)  # (not setdefault: its default, two fills of zeros, would run at every step)
        if st is None:
            st = self.state[p] = {"step": scalar_state(0.0), "exp_avg": zero_state(p), "exp_inf": zero_state(p)}
        return st

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> AdamaxScalars:
        step = count_step(st)
        (b1, b2) = group["betas"]
        return AdamaxScalars(b1, b2, group["eps"], group["weight_decay"], group["lr"] / (1 - b1**step),
                             group["maximize"])


class NAdamScalars(NamedTuple):
    moments: MomentScalars
    eps: float
    bias_correction2: float  # 1 - beta2**step
    grad_step: float  # lr * (1 - mu) / (1 - mu_product)
    momentum_step: float  # lr * mu_next / (1 - mu_product * mu_next), in PyTorch's order


def nadam_rule(k: Any, p: Any, g: Any, st: Any, s: NAdamScalars) -> None:
    """NAdam's update of ``p`` on the path ``k`` (every form), as PyTorch's ``_single_tensor_nadam``: a step
    along the gradient and one along the momentum, each with its own schedule."""
    g, m, v = adam_moments(k, p, g, st, s.moments)
    denom = v / s.bias_correction2
    k.sqrt_(denom)
    k.add_(denom, s.eps)
    k.addcdiv_(p, g, denom, -s.grad_step)
    k.addcdiv_(p, m, denom, -s.momentum_step)


class NAdam(_MomentsOptimizer):
    """Adam with Nesterov momentum (Dozat): the step mixes the current gradient and the momentum,
    each with its own schedule ``mu_t = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``. The rule
    (``nadam_rule``) runs in the for-loop and ``foreach`` forms (``foreach`` by default on the GPU)."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        check_forms("NAdam", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "betas": check_betas("NAdam", betas),
            "eps": check_hyper("NAdam", "epsilon value", eps),
            "weight_decay": check_hyper("NAdam", "weight_decay value", weight_decay),
            "momentum_decay": check_hyper("NAdam", "momentum_decay value", momentum_decay),
            "decoupled_weight_decay": check_flag("NAdam", "decoupled_weight_decay", decoupled_weight_decay),
            "maximize": check_flag("NAdam", "maximize", maximize),
            "foreach": foreach,
            "capturable": check_flag("NAdam", "capturable", capturable),
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    _rule = staticmethod(nadam_rule)
    _extra_state = {"mu_product": 1.0}

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> NAdamScalars:
        t = count_step(st)
        lr, (b1, b2) = group["lr"], group["betas"]
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * group["momentum_decay"]))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * group["momentum_decay"]))
        # PyTorch keeps this product as a 0-d tensor of the scalar dtype (float32): so do we.
        product = scale_scalar(st, "mu_product", mu)
        # (PyTorch negates lr first: -lr * x / y is -(lr * x / y) bit for bit)
        return NAdamScalars(_moment_scalars(group), group["eps"], 1 - b2**t, lr * (1.0 - mu) / (1.0 - product),
                            (lr * mu_next) / (1.0 - product * mu_next))


class RAdamScalars(NamedTuple):
    moments: MomentScalars
    eps: float
    bias_correction1: float  # 1 - beta1**step
    lr: float
    rectified: bool  # rho_t > 5: the variance estimate is old enough
    bias_correction2_sqrt: float  # (1 - beta2**step) ** 0.5
    rect: float  # the rectification term


def radam_rule(k: Any, p: Any, g: Any, st: Any, s: RAdamScalars) -> None:
    """RAdam's update of ``p`` on the path ``k`` (every form), as PyTorch's ``_single_tensor_radam``; its
    ``bias_correction2 ** 0.5 / exp_avg_sq_sqrt`` is a number over a tensor, which PyTorch computes as the
    tensor's reciprocal times the number."""
    _, m, v = adam_moments(k, p, g, st, s.moments)
    step = m / s.bias_correction1 * s.lr
    if s.rectified:
        root = k.sqrt(v)
        k.add_(root, s.eps)
        step = step * (k.reciprocal(root) * s.bias_correction2_sqrt) * s.rect
    k.add_(p, step, alpha=-1.0)


class RAdam(_MomentsOptimizer):
    """Rectified Adam (Liu et al.): plain momentum SGD while the second moment's estimate is too young
    (``rho_t <= 5``), then Adam's step scaled by a variance rectification term. The rule (``radam_rule``)
    runs in the for-loop and ``foreach`` forms (``foreach`` by default on the GPU)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_forms("RAdam", foreach, None, differentiable)
        defaults = {
            "lr": lr,
            "betas": check_betas("RAdam", betas),
            "eps": check_hyper("RAdam", "epsilon value", eps),
            "weight_decay": check_hyper("RAdam", "weight_decay value", weight_decay),
            "maximize": check_flag("RAdam", "maximize", maximize),
            "foreach": foreach,
            "capturable": check_flag("RAdam", "capturable", capturable),
            "decoupled_weight_decay": check_flag("RAdam", "decoupled_weight_decay", decoupled_weight_decay),
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    _rule = staticmethod(radam_rule)

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> RAdamScalars:
        t = count_step(st)
        b1, b2 = group["betas"]
        bc2 = 1 - b2**t
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * (b2**t) / bc2
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 if rho_t > 5.0 else 0.0
        return RAdamScalars(_moment_scalars(group), group["eps"], 1 - b1**t, group["lr"], rho_t > 5.0, bc2**0.5, rect)
