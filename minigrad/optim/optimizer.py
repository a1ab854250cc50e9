"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

Every optimizer in this package is a subclass whose ``step`` applies its update rule
to each parameter with a gradient. The hyper-parameter checks here raise PyTorch's
errors at construction, so a typo fails at once instead of as NaN weights later.
"""

from __future__ import annotations

import abc
from typing import Any, Iterable, Iterator

from .. import ops
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ..tracing import bus
from .update import StateList, TensorList, bucket_key, list_path, multi_tensor_ok, path_for

__all__ = ["Optimizer"]


def check_hyper(owner: str, what: str, value: Any, *, low: float = 0.0, below: float | None = None) -> float:
    """A hyper-parameter as PyTorch validates it: a real number, ``>= low`` (and ``< below``).

    Raises ``ValueError`` in PyTorch's words (``Adam(): Invalid beta parameter at index 0: 1.5``),
    so a typo fails at construction instead of as NaN weights many steps later.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{owner}(): Invalid {what}: {value!r} (expected a number)")
    if value < low or (below is not None and value >= below):
        bound = f"in [{low}, {below})" if below is not None else f">= {low}"
        raise ValueError(f"{owner}(): Invalid {what}: {value!r} (must be {bound})")
    return value  # as given: PyTorch keeps ``lr=1`` an int in the group (and prints it so)




def check_betas(owner: str, betas: Any) -> tuple[float, float]:
    """``(beta1, beta2)`` as PyTorch validates them: a pair, each in ``[0, 1)``."""
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"{owner}(): argument 'betas' must be a pair (beta1, beta2), but got {betas!r}")
    return (check_hyper(owner, "beta parameter at index 0", betas[0], below=1.0),
            check_hyper(owner, "beta parameter at index 1", betas[1], below=1.0))



def check_flag(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}(): argument '{name}' must be bool, but got {type(value).__name__}")
    return value


def check_forms(owner: str, foreach: Any, fused: Any, differentiable: Any) -> None:
    """``foreach``/``fused``/``differentiable`` as PyTorch checks them at construction, in its words."""
    check_flag(owner, "differentiable", differentiable)
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


#: the devices with fused kernels, as PyTorch's error names them
_FUSED_DEVICES = ["cpu", "cuda"]


class Optimizer(abc.ABC):
    """Base class: parameter groups with their own options, per-parameter state, ``zero_grad``.

    ``params`` is an iterable of tensors (one group) or of dicts, each with a
    ``"params"`` list and options that override the defaults for that group
    (``[{"params": body}, {"params": head, "lr": 1e-2}]``), as in PyTorch.
    ``state_dict()``/``load_state_dict()`` save and restore the options and
    the per-parameter state, parameters numbered in group order.
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        defaults = {**defaults, "lr": check_hyper(type(self).__name__, "learning rate", defaults.get("lr"))}
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

    def __repr__(self) -> str:
        """PyTorch's: the class, then each group's options in name order (``print(optimizer)``)."""
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):  # a blank line between groups, as PyTorch's
            text += f"\nParameter Group {i}\n" + "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"

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

    def _step_forms(self) -> None:
        """``step`` of a rule with the three forms (SGD, Adam, AdamW; NOTE [ One rule, three forms ] in
        ``update.py``): per group, the for-loop, foreach or fused form, under ``no_grad``.

        The subclass gives the rule (``_rule(k, p, g, state, scalars)``), a parameter's state
        (``_state_of``), the step's scalars (``_begin``, which also counts the step) and the fused call
        (``_fused``). Every group's form is settled, and PyTorch's refusals raised, before any update.
        With a recorder every form runs the for-loop on ops, so a trace shows each update as events.
        In the foreach and fused forms, parameters are bucketed by device, dtype and state; one that
        cannot join a multi-tensor call (a live view, a non-contiguous array, bfloat16) runs the for-loop.
        """
        plans = []
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            plans.append((group, params, self._form(group, params)))
        with no_grad():
            for group, params, form in plans:
                buckets: dict[tuple, list[Tensor]] = {}
                for p in params:
                    if form != "for-loop" and multi_tensor_ok(p, p.grad):
                        buckets.setdefault(bucket_key(p, self._state_of(p, group)), []).append(p)
                    else:
                        self._update(p, group)
                for bucket in buckets.values():
                    if form == "fused":
                        self._fused(bucket, group)
                    else:
                        self._foreach(bucket, group)

    def _form(self, group: dict[str, Any], params: list[Tensor]) -> str:
        """``"for-loop"``, ``"foreach"`` or ``"fused"``, and PyTorch's refusals, before any change.

        As PyTorch (torch/optim/optimizer.py ``_default_to_fused_or_foreach``): ``foreach=None`` means
        foreach when every parameter is on the GPU, else the for-loop; ``fused`` only when asked.
        """
        if group.get("differentiable") and params:
            # minigrad's parameters are leaves that require grad: PyTorch's differentiable step refuses them
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if group.get("fused"):
            for p in params:
                if not p._dtype.is_floating or p._device not in ("cpu", "gpu"):
                    raise RuntimeError(f"`fused=True` requires all the params to be floating point Tensors of "
                                       f"supported devices: {_FUSED_DEVICES} but {p._dtype} and {p.device.type}")
        elif group.get("capturable") and any(not p.is_cuda for p in params):
            raise AssertionError("If capturable=True, params and state_steps must be on supported devices: ['cuda'].")
        if bus.recorder is not None or not params:
            return "for-loop"
        if group.get("fused"):
            return "fused"
        foreach = group.get("foreach")
        if foreach is None:
            foreach = all(p.is_cuda for p in params)
        return "foreach" if foreach else "for-loop"

    def _foreach(self, bucket: list[Tensor], group: dict[str, Any]) -> None:
        """The foreach form: the rule once over the bucket, each step one multi-tensor call."""
        st = StateList([self._state_of(p, group) for p in bucket])
        scalars = self._begin(group, st)
        self._rule(list_path(bucket[0]), TensorList(bucket), TensorList(p.grad for p in bucket), st, scalars)

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        """The for-loop form for one parameter: the rule on ``OPS`` or ``ARRAYS`` (``path_for``)."""
        st = self._state_of(p, group)
        self._rule(path_for(p, p.grad), p, p.grad, st, self._begin(group, st))

    def _params_with_grad(self) -> Iterator[tuple[dict[str, Any], Tensor]]:
        """Every ``(group, parameter)`` that has a gradient, group by group: what one ``step`` updates."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    yield group, p


# -- helpers of the rules that run as ops only ---------------------------------------------------

def zero_state(p: Tensor) -> Tensor:
    """A state buffer of zeros shaped like ``p`` (PyTorch's ``torch.zeros_like(p)``)."""
    return ops.fill(p, 0.0).detach()
