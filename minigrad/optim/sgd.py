"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

import numpy as np

from ..dtypes import float16, float32, float64
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from .optimizer import AmpTensors, Optimizer, check_forms, check_hyper, zero_state
from .update import amp_skipped, amp_unscale, bump, kernel_of, rule_gradient, run_bare

__all__ = ["SGD"]


class SGDScalars(NamedTuple):
    """The numbers of one SGD step (the fused kernels take them in this order)."""

    lr: float
    momentum: float
    dampening: float
    weight_decay: float
    nesterov: bool
    maximize: bool


def sgd_rule(k: Any, p: Any, g: Any, st: Any, s: SGDScalars) -> None:
    """SGD's update of ``p`` from its gradient ``g`` on the path ``k`` (the one formula of every form), as
    PyTorch's ``_single_tensor_sgd`` writes it (NOTE [ An optimizer's step is PyTorch's, bit for bit ])."""
    g = rule_gradient(k, p, g, s.maximize, s.weight_decay)
    if s.momentum:
        buf = st.get("momentum_buffer")
        if buf is None:
            buf = st["momentum_buffer"] = k.keep(k.copy(g), p)
        else:
            k.mul_(buf, s.momentum)
            k.add_(buf, g, alpha=1 - s.dampening)
        g = k.add(g, k.value(buf), s.momentum) if s.nesterov else k.value(buf)
    k.add_(p, g, alpha=-s.lr)


@register_kernel("_fused_sgd_", dtypes=(float16, float32, float64), name="cpu/fused_sgd")
def fused_sgd(params: list[np.ndarray], grads: list[np.ndarray], momentum_buffers: list[np.ndarray] | None,
              grad_scale: np.ndarray | None, found_inf: np.ndarray | None, first: bool, *scalars: Any,
              path: Any = None) -> None:
    """PyTorch's ``torch._fused_sgd_`` on the CPU: ``sgd_rule`` on each parameter's arrays, in place (on
    ``path``: ``run_bare``'s). A GradScaler's tensors as NOTE [ A fused step reads the scaler's flag on the
    device ] in ``update.py``."""
    if amp_skipped(found_inf):
        return
    amp_unscale(grads, grad_scale)
    s = SGDScalars(*scalars)
    run_bare(sgd_rule, params, grads, {"momentum_buffer": momentum_buffers} if s.momentum else {}, first, s, path)


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and
    ``maximize`` (PyTorch's rule, step for step).

    With ``g`` the gradient (negated when ``maximize``) plus ``weight_decay * p``::

        buf = g                                   (first step)
        buf = momentum * buf + (1 - dampening) * g (later steps)
        g = g + momentum * buf if nesterov else buf
        p = p - lr * g

    The rule is written once (``sgd_rule``) and runs in PyTorch's three forms: a for-loop
    over the parameters (as ops, or on the arrays: ``minigrad/optim/update.py``), ``foreach``
    (the default on the GPU) and ``fused`` (NOTE [ One rule, three forms ] in ``update.py``).
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        momentum = check_hyper("SGD", "momentum value", momentum)
        weight_decay = check_hyper("SGD", "weight_decay value", weight_decay)
        if isinstance(dampening, bool) or not isinstance(dampening, (int, float)):
            raise TypeError(f"SGD(): argument 'dampening' must be a number, but got {type(dampening).__name__}")
        for nm, flag in (("nesterov", nesterov), ("maximize", maximize)):
            if not isinstance(flag, bool):
                raise TypeError(f"SGD(): argument '{nm}' must be bool, but got {type(flag).__name__}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD(): Nesterov momentum requires a momentum and zero dampening")
        check_forms("SGD", foreach, fused, differentiable)
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                                  "foreach": foreach, "differentiable": differentiable, "fused": fused})
        if fused:  # a GradScaler hands the step its scale and flag (NOTE [ A fused step reads the scaler's flag
            # on the device ] in ``update.py``)
            self._step_supports_amp_scaling = True

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_forms(closure)

    _rule = staticmethod(sgd_rule)

    def _state_of(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return self.state[p] if group["momentum"] else {}

    @staticmethod
    def _begin(group: dict[str, Any], st: Any) -> SGDScalars:
        return SGDScalars(group["lr"], group["momentum"], group.get("dampening", 0.0), group["weight_decay"],
                          group["nesterov"], group.get("maximize", False))

    def _fused(self, bucket: list[Tensor], group: dict[str, Any], amp: AmpTensors) -> None:
        """The fused form: one ``_fused_sgd_`` call updates the bucket (momentum buffers made on the first step:
        zeros, where PyTorch's are left unwritten when a GradScaler skips that step)."""
        s = self._begin(group, None)
        bufs, first, states = None, False, []
        if s.momentum:
            states = [self._state_of(p, group) for p in bucket]
            first = states[0].get("momentum_buffer") is None
            if first:
                for p, st in zip(bucket, states):
                    st["momentum_buffer"] = zero_state(p)
            bufs = [st["momentum_buffer"]._data for st in states]
        kernel_of("_fused_sgd_", bucket[0])([p._data for p in bucket], [p.grad._data for p in bucket], bufs,
                                            amp.scale_data, amp.found_data, first, *s)
        for t in (*bucket, *(st["momentum_buffer"] for st in states), *amp.unscaled(bucket)):
            bump(t)
