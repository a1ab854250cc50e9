"""Optimizers (``mg.optim``): SGD with momentum, and Adam.

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
    tensor([ 0.8, -0.8], requires_grad=True)
"""

from __future__ import annotations

import abc
from typing import Any, Iterable

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor, VersionCounter
from ..tracing import bus

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]


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


def _bump(t: Tensor) -> None:
    """An in-place change of ``t``'s storage, as ``run_inplace`` records it (DESIGN §9 rule 8)."""
    if t._version is None:
        t._version = VersionCounter()
    t._version.bump()


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
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False) -> None:
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
    """Adam (Kingma & Ba), with PyTorch's defaults and bias correction."""

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0) -> None:
        name = type(self).__name__
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"{name}(): argument 'betas' must be a pair (beta1, beta2), but got {betas!r}")
        betas = (_check_hyper(name, "beta parameter at index 0", betas[0], below=1.0),
                 _check_hyper(name, "beta parameter at index 1", betas[1], below=1.0))
        eps = _check_hyper(name, "epsilon value", eps)
        weight_decay = _check_hyper(name, "weight_decay value", weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

    #: AdamW sets this: weight decay shrinks the parameter directly instead of joining the gradient.
    decoupled_weight_decay = False

    def step(self) -> None:
        with no_grad():
            for group in self.param_groups:
                lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if _array_update_ok(p, g):
                        self._adam_arrays(p, g._data, lr, b1, b2, eps, wd)
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
                    step = lr / (1 - b1**t)
                    denom = (st["exp_avg_sq"] / (1 - b2**t)).sqrt() + eps
                    p.sub_(st["exp_avg"] / denom * step)

    def _adam_arrays(self, p: Tensor, g: np.ndarray, lr: float, b1: float, b2: float, eps: float, wd: float) -> None:
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
        step = lr / (1 - b1**t)
        denom = np.sqrt(st["exp_avg_sq"]._data / (1 - b2**t)) + eps
        data -= st["exp_avg"]._data / denom * step
        if wd and self.decoupled_weight_decay:
            _bump(p)
        _bump(p)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p -= lr * wd * p`` before the Adam
    step, instead of adding ``wd * p`` to the gradient. PyTorch's defaults (``weight_decay=0.01``)."""

    decoupled_weight_decay = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2) -> None:
        super().__init__(params, lr, betas, eps, weight_decay)


from . import lr_scheduler  # noqa: E402  (schedulers adjust the groups' lr)
from .adaptive import Adadelta, Adagrad, Adamax, RMSprop  # noqa: E402

__all__ += ["RMSprop", "Adagrad", "Adadelta", "Adamax"]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
