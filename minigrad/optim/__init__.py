"""Optimizers (``mg.optim``): SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam.

Updates run under ``no_grad`` with in-place ops, so parameters stay leaves and
their version counters record every step. With no recorder, a CPU parameter
whose gradient has its dtype and shape is updated on its array directly (the
same arithmetic in the same order, so the same bits), as PyTorch's fused
optimizers do: no op dispatch per parameter. With a recorder every update runs
as ops and emits its events.

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([1.0, -1.0]))
    >>> opt = mg.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8000, -0.8000], requires_grad=True)
"""

from __future__ import annotations

import abc
from typing import Any, Iterable, Iterator

import numpy as np

from .. import ops
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor, VersionCounter
from ..tracing import bus

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "lr_scheduler"]


def _check_hyper(owner: str, what: str, value: Any, *, low: float = 0.0, below: float | None = None) -> float:
    """A hyper-parameter as PyTorch validates it: a real number, ``>= low`` (and ``< below``).

    Raises ``ValueError`` in PyTorch's words (``Adam(): Invalid beta parameter at index 0: 1.5``),
    so a typo fails at construction instead of as NaN weights many steps later.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{owner}(): Invalid {what}: {value!r} (expected a number)")
    if value < low or (below is not None and value >= below):
        bound = f"in [{low}, {below})" if below is not None else f">= {low}"
        raise ValueError(f"{owner}(): Invalid {what}: {value!r} (must be {bound})")
    return float(value)


#: float16/bfloat16 arithmetic may differ between kernels and raw NumPy: those keep the op path.
_ARRAY_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _array_update_ok(p: Tensor, g: Tensor) -> bool:
    """Whether ``p`` may be updated on its array: no recorder, a CPU array, ``g`` alike."""
    data = p._data
    return (
        bus.recorder is None
        and type(data) is np.ndarray
        and type(g._data) is np.ndarray
        and g._dtype is p._dtype
        and data.dtype in _ARRAY_DTYPES
        and g._data.shape == data.shape
        and data.flags.writeable
    )


def _check_betas(owner: str, betas: Any) -> tuple[float, float]:
    """``(beta1, beta2)`` as PyTorch validates them: a pair, each in ``[0, 1)``."""
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"{owner}(): argument 'betas' must be a pair (beta1, beta2), but got {betas!r}")
    return (_check_hyper(owner, "beta parameter at index 0", betas[0], below=1.0),
            _check_hyper(owner, "beta parameter at index 1", betas[1], below=1.0))


def _bump(t: Tensor) -> None:
    """An in-place change of ``t``'s storage, as ``run_inplace`` records it (DESIGN §9 rule 8)."""
    if t._vc is None:
        t._vc = VersionCounter()
    t._vc.bump()


class Optimizer(abc.ABC):
    """Base class: parameter groups with their own options, per-parameter state, ``zero_grad``.

    ``params`` is an iterable of tensors (one group) or of dicts, each with a
    ``"params"`` list and options that override the defaults for that group
    (``[{"params": body}, {"params": head, "lr": 1e-2}]``), as in PyTorch.
    ``state_dict()``/``load_state_dict()`` save and restore the options and
    the per-parameter state, parameters numbered in group order.
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        defaults = {**defaults, "lr": _check_hyper(type(self).__name__, "learning rate", defaults.get("lr"))}
        self.defaults = dict(defaults)
        self.param_groups: list[dict[str, Any]] = []
        self.state: dict[int, dict[str, Any]] = {}
        items = list(params)
        if not items:
            raise ValueError(f"{type(self).__name__}(): got an empty parameter list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (missing ones take the defaults)."""
        if not isinstance(param_group, dict) or "params" not in param_group:
            raise TypeError(f"{type(self).__name__}(): a parameter group must be a dict with a 'params' key")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__}(): parameter {i} is {type(p).__name__}, not a Tensor")
            if not p.requires_grad or not p.is_leaf:
                raise ValueError(f"{type(self).__name__}(): parameter {i} must be a leaf tensor that requires grad")
            if id(p) in seen:
                raise ValueError(f"{type(self).__name__}(): a parameter appears in more than one group")
            seen.add(id(p))
        unknown = set(param_group) - set(self.defaults) - {"params", "initial_lr"}
        if unknown:
            raise TypeError(f"{type(self).__name__}(): unknown option(s) in a parameter group: {sorted(unknown)}")
        group = {**self.defaults, **param_group, "params": params}
        self.param_groups.append(group)

    @property
    def params(self) -> list[Tensor]:
        """Every parameter, in group order."""
        return [p for g in self.param_groups for p in g["params"]]

    @property
    def lr(self) -> float:
        """The first group's learning rate (set it to change every group's)."""
        return self.param_groups[0]["lr"]

    @lr.setter
    def lr(self, value: float) -> None:
        for g in self.param_groups:
            g["lr"] = float(value)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear gradients (set them to ``None``, or zero them in place)."""
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                with no_grad():
                    p.grad.zero_()

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {name: value}}, "param_groups": [options + "params": [indices]]}`` (PyTorch's layout)."""
        index = {id(p): i for i, p in enumerate(self.params)}
        state = {}
        for p in self.params:
            st = self.state.get(p.id)
            if st:
                state[index[id(p)]] = {k: (v.detach_copy() if isinstance(v, Tensor) else v) for k, v in st.items()}
        groups = [{**{k: v for k, v in g.items() if k != "params"}, "params": [index[id(p)] for p in g["params"]]}
                  for g in self.param_groups]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore options and state saved by ``state_dict`` (the groups must hold as many parameters)."""
        groups = state_dict.get("param_groups") if isinstance(state_dict, dict) else None
        if groups is None or "state" not in state_dict:
            raise ValueError("load_state_dict(): expected a dict with 'state' and 'param_groups'")
        if len(groups) != len(self.param_groups) or any(
            len(g["params"]) != len(mine["params"]) for g, mine in zip(groups, self.param_groups)
        ):
            raise ValueError("load_state_dict(): the saved parameter groups do not match this optimizer's groups in size")
        params = self.params
        self.state = {}
        for i, st in state_dict["state"].items():
            p = params[int(i)]
            restored = {}
            for k, v in st.items():
                if isinstance(v, Tensor):
                    v = Tensor._make(v.numpy().astype(p.dtype.np, copy=True), p.dtype)
                    if p.device != "cpu":
                        v = v.to(p.device)
                restored[k] = v
            self.state[p.id] = restored
        for g, mine in zip(groups, self.param_groups):
            for k, v in g.items():
                if k != "params":
                    mine[k] = v

    @abc.abstractmethod
    def step(self) -> None:
        """Update every parameter from its ``.grad`` (each optimizer's rule)."""

    def _params_with_grad(self) -> Iterator[tuple[dict[str, Any], Tensor]]:
        """Every ``(group, parameter)`` that has a gradient, group by group: what one ``step`` updates."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    yield group, p


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and
    ``maximize`` (PyTorch's rule, step for step).

    With ``g`` the gradient (negated when ``maximize``) plus ``weight_decay * p``::

        buf = g                                   (first step)
        buf = momentum * buf + (1 - dampening) * g (later steps)
        g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, fused: bool | None = None) -> None:
        momentum = _check_hyper("SGD", "momentum value", momentum)
        weight_decay = _check_hyper("SGD", "weight_decay value", weight_decay)
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
        with no_grad():
            for group in self.param_groups:
                lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
                dampening = group.get("dampening", 0.0)
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if _array_update_ok(p, g):
                        self._sgd_arrays(p, g._data, group)
                        continue
                    if group.get("maximize", False):
                        g = -g
                    if weight_decay:
                        g = g + weight_decay * p
                    if momentum:
                        st = self.state.setdefault(p.id, {})
                        buf = st.get("momentum_buffer")
                        if buf is None:
                            buf = st["momentum_buffer"] = g.detach_copy()
                        else:
                            buf.mul_(momentum).add_(g * (1 - dampening) if dampening else g)
                        g = g + momentum * buf if group["nesterov"] else buf
                    p.sub_(g * lr)

    def _sgd_arrays(self, p: Tensor, g: np.ndarray, group: dict[str, Any]) -> None:
        """``step`` for one parameter on arrays: the op path's arithmetic, in its order."""
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        dampening = group.get("dampening", 0.0)
        if group.get("maximize", False):
            g = -g
        if weight_decay:
            g = g + p._data * weight_decay
        if momentum:
            st = self.state.setdefault(p.id, {})
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = st["momentum_buffer"] = Tensor._make(g.copy(), p._dtype)
            else:
                buf._data *= momentum
                buf._data += g * (1 - dampening) if dampening else g
                _bump(buf)
            g = g + buf._data * momentum if group["nesterov"] else buf._data
        p._data -= g * lr
        _bump(p)


class Adam(Optimizer):
    """Adam (Kingma & Ba), with PyTorch's defaults and bias correction; ``amsgrad`` keeps the running
    maximum of the second moment (Reddi et al.); ``maximize`` ascends."""

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        # ``foreach``/``fused`` choose PyTorch's kernels, not the arithmetic: accepted, no effect here.
        name = type(self).__name__
        betas = _check_betas(name, betas)
        eps = _check_hyper(name, "epsilon value", eps)
        weight_decay = _check_hyper(name, "weight_decay value", weight_decay)
        for nm, flag in (("amsgrad", amsgrad), ("maximize", maximize)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name}(): argument '{nm}' must be bool, but got {type(flag).__name__}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize})
        if decoupled_weight_decay:
            self.decoupled_weight_decay = True  # Adam(decoupled_weight_decay=True) is AdamW

    #: AdamW sets this: weight decay shrinks the parameter directly instead of joining the gradient.
    decoupled_weight_decay = False

    def step(self) -> None:
        with no_grad():
            for group in self.param_groups:
                lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
                amsgrad = group.get("amsgrad", False)
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if group.get("maximize", False):
                        g = -g
                    if _array_update_ok(p, g):
                        self._adam_arrays(p, g._data, lr, b1, b2, eps, wd, amsgrad)
                        continue
                    if wd and self.decoupled_weight_decay:
                        p.mul_(1 - lr * wd)
                    elif wd:
                        g = g + wd * p
                    st = self.state.setdefault(p.id, {"step": 0, "exp_avg": None, "exp_avg_sq": None})
                    st["step"] += 1
                    t = st["step"]
                    if st["exp_avg"] is None:
                        st["exp_avg"] = g * (1 - b1)
                        st["exp_avg_sq"] = g * g * (1 - b2)
                    else:
                        st["exp_avg"].mul_(b1).add_(g * (1 - b1))
                        st["exp_avg_sq"].mul_(b2).add_(g * g * (1 - b2))
                    second = st["exp_avg_sq"]
                    if amsgrad:
                        prev = st.get("max_exp_avg_sq")
                        second = st["max_exp_avg_sq"] = second.detach_copy() if prev is None else \
                            ops.maximum(prev, second)
                    step = lr / (1 - b1**t)
                    denom = (second / (1 - b2**t)).sqrt() + eps
                    p.sub_(st["exp_avg"] / denom * step)

    def _adam_arrays(self, p: Tensor, g: np.ndarray, lr: float, b1: float, b2: float, eps: float, wd: float,
                     amsgrad: bool = False) -> None:
        """``step`` for one parameter on arrays: the op path's arithmetic, in its order."""
        data = p._data
        if wd and self.decoupled_weight_decay:
            data *= 1 - lr * wd
        elif wd:
            g = g + data * wd
        st = self.state.setdefault(p.id, {"step": 0, "exp_avg": None, "exp_avg_sq": None})
        st["step"] += 1
        t = st["step"]
        if st["exp_avg"] is None:
            st["exp_avg"] = Tensor._make(g * (1 - b1), p._dtype)
            st["exp_avg_sq"] = Tensor._make(g * g * (1 - b2), p._dtype)
        else:
            m, v = st["exp_avg"], st["exp_avg_sq"]
            m._data *= b1
            m._data += g * (1 - b1)
            v._data *= b2
            v._data += g * g * (1 - b2)
            _bump(m)
            _bump(v)
        second = st["exp_avg_sq"]._data
        if amsgrad:
            prev = st.get("max_exp_avg_sq")
            second = second.copy() if prev is None else np.maximum(prev._data, second)
            st["max_exp_avg_sq"] = Tensor._make(second, p._dtype)
        step = lr / (1 - b1**t)
        denom = np.sqrt(second / (1 - b2**t)) + eps
        data -= st["exp_avg"]._data / denom * step
        if wd and self.decoupled_weight_decay:
            _bump(p)
        _bump(p)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p -= lr * wd * p`` before the Adam
    step, instead of adding ``wd * p`` to the gradient. PyTorch's defaults (``weight_decay=0.01``)."""

    decoupled_weight_decay = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


# -- optimizers with per-element step sizes: RMSprop, Adagrad, Adadelta, Adamax ---------------
#
# Each keeps running statistics of the gradient per parameter (``self.state``, under
# PyTorch's key names) and divides the step by a root of them, so a coordinate with large
# gradients moves less. The rules are PyTorch's, step for step (same state, same order of
# operations); they run as in-place tensor ops under ``no_grad``, so with a recorder every
# update shows as events.

def _zeros_like(p: Tensor) -> Tensor:
    return ops.fill(p, 0.0).detach()


def _check_flag(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}(): argument '{name}' must be bool, but got {type(value).__name__}")
    return value


def _adam_moments(state: dict[int, Any], p: Tensor, group: dict[str, Any],
                  **extra_state: Any) -> tuple[dict[str, Any], Tensor, Tensor, Tensor]:
    """The first steps NAdam and RAdam share: ``(state, g, m, v)`` after one more step.

    The gradient (negated for ``maximize``), decoupled weight decay on ``p`` or L2 on ``g``,
    then ``m`` lerps towards ``g`` and ``v = b2 * v + (1 - b2) * g**2``.
    """
    lr, (b1, b2), wd = group["lr"], group["betas"], group["weight_decay"]
    g = ops.neg(p.grad) if group["maximize"] else p.grad
    st = state.setdefault(p.id, {"step": 0, **extra_state, "exp_avg": _zeros_like(p), "exp_avg_sq": _zeros_like(p)})
    st["step"] += 1
    if wd and group["decoupled_weight_decay"]:
        p.mul_(1 - lr * wd)
    elif wd:
        g = ops.add(g, ops.mul(p, wd))
    m = st["exp_avg"]
    m.add_(ops.mul(ops.sub(g, m), 1 - b1))  # lerp towards g
    v = st["exp_avg_sq"].mul_(b2).add_(ops.mul(ops.mul(g, g), 1 - b2))
    return st, g, m, v


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
            for group, p in self._params_with_grad():
                alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
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
            for group, p in self._params_with_grad():
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
            for group, p in self._params_with_grad():
                rho, eps = group["rho"], group["eps"]
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
        defaults = {
            "lr": lr,
            "betas": _check_betas("Adamax", betas),
            "eps": _check_hyper("Adamax", "epsilon value", eps),
            "weight_decay": _check_hyper("Adamax", "weight_decay value", weight_decay),
            "maximize": _check_flag("Adamax", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group, p in self._params_with_grad():
                (b1, b2), eps = group["betas"], group["eps"]
                g = _grad(p, group)
                st = self.state.setdefault(p.id, {"step": 0, "exp_avg": _zeros_like(p),
                                                  "exp_inf": _zeros_like(p)})
                st["step"] += 1
                m = st["exp_avg"]
                m.add_(ops.mul(ops.sub(g, m), 1 - b1))  # lerp towards g
                st["exp_inf"] = ops.maximum(ops.mul(st["exp_inf"], b2), ops.add(ops.abs(g), eps))
                clr = group["lr"] / (1 - b1 ** st["step"])
                p.sub_(ops.mul(ops.div(m, st["exp_inf"]), clr))


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat): the step mixes the current gradient and the momentum,
    each with its own schedule ``mu_t = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        defaults = {
            "lr": lr,
            "betas": _check_betas("NAdam", betas),
            "eps": _check_hyper("NAdam", "epsilon value", eps),
            "weight_decay": _check_hyper("NAdam", "weight_decay value", weight_decay),
            "momentum_decay": _check_hyper("NAdam", "momentum_decay value", momentum_decay),
            "decoupled_weight_decay": _check_flag("NAdam", "decoupled_weight_decay", decoupled_weight_decay),
            "maximize": _check_flag("NAdam", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group, p in self._params_with_grad():
                lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
                st, g, m, v = _adam_moments(self.state, p, group, mu_product=1.0)
                t = st["step"]
                mu = b1 * (1.0 - 0.5 * 0.96 ** (t * group["momentum_decay"]))
                mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * group["momentum_decay"]))
                # PyTorch keeps this product as a 0-d tensor of the default dtype (float32): so do we.
                st["mu_product"] = float(np.float32(st["mu_product"]) * np.float32(mu))
                denom = ops.add(ops.sqrt(ops.div(v, 1 - b2**t)), eps)
                p.sub_(ops.mul(ops.div(g, denom), lr * (1.0 - mu) / (1.0 - st["mu_product"])))
                p.sub_(ops.mul(ops.div(m, denom), lr * mu_next / (1.0 - st["mu_product"] * mu_next)))


class RAdam(Optimizer):
    """Rectified Adam (Liu et al.): plain momentum SGD while the second moment's estimate is too young
    (``rho_t <= 5``), then Adam's step scaled by a variance rectification term."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        defaults = {
            "lr": lr,
            "betas": _check_betas("RAdam", betas),
            "eps": _check_hyper("RAdam", "epsilon value", eps),
            "weight_decay": _check_hyper("RAdam", "weight_decay value", weight_decay),
            "decoupled_weight_decay": _check_flag("RAdam", "decoupled_weight_decay", decoupled_weight_decay),
            "maximize": _check_flag("RAdam", "maximize", maximize),
        }
        super().__init__(params, defaults)

    def step(self) -> None:
        with no_grad():
            for group, p in self._params_with_grad():
                lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
                st, _, m, v = _adam_moments(self.state, p, group)
                t = st["step"]
                bc2 = 1 - b2**t
                m_hat = ops.div(m, 1 - b1**t)
                rho_inf = 2 / (1 - b2) - 1
                rho_t = rho_inf - 2 * t * (b2**t) / bc2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = ops.div(bc2**0.5, ops.add(ops.sqrt(v), eps))
                    p.sub_(ops.mul(ops.mul(ops.mul(m_hat, lr), adaptive), rect))
                else:
                    p.sub_(ops.mul(m_hat, lr))


from . import lr_scheduler  # noqa: E402  (schedulers adjust the groups' lr)


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
