"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

Every optimizer in this package is a subclass whose ``step`` applies its update rule
to each parameter with a gradient. The hyper-parameter checks here raise PyTorch's
errors at construction, so a typo fails at once instead of as NaN weights later.
"""

from __future__ import annotations

import abc
import copy
import functools
import itertools
import warnings
from collections import OrderedDict, defaultdict
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .. import ops
from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import full
from ..dtypes import bfloat16, float16, float32, float64, get_default_dtype
from ..tensor import Tensor
from ..tracing import bus
from ..tracing.profiling import scope
from .._handles import RemovableHandle
from .update import StateList, TensorList, bucket_key, bump, kernel_of, list_path, multi_tensor_ok, path_for

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


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


#: hooks every optimizer's ``step`` runs (``register_optimizer_step_pre_hook``/``_post_hook``)
_GLOBAL_STEP_PRE_HOOKS: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_GLOBAL_STEP_POST_HOOKS: OrderedDict[int, Callable[..., Any]] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's ``step``; it may return new ``(args, kwargs)``."""
    handle = RemovableHandle(_GLOBAL_STEP_PRE_HOOKS)
    _GLOBAL_STEP_PRE_HOOKS[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    handle = RemovableHandle(_GLOBAL_STEP_POST_HOOKS)
    _GLOBAL_STEP_POST_HOOKS[handle.id] = hook
    return handle


def _with_step_hooks(step: Callable[..., Any]) -> Callable[..., Any]:
    """``step`` wrapped to run the global and the optimizer's own step hooks around it, in PyTorch's order:
    global pre-hooks, own pre-hooks, the step, own post-hooks, global post-hooks."""

    @functools.wraps(step)
    def hooked(*args: Any, **kwargs: Any) -> Any:
        self = args[0]  # the hooks see the optimizer in ``args`` too, as PyTorch's
        with scope(f"Optimizer.step#{type(self).__name__}.step"):  # a profile's range, as PyTorch names it
            return _hooked_step(step, self, args, kwargs)

    hooked.hooked = True  # type: ignore[attr-defined]
    return hooked


def _hooked_step(step: Callable[..., Any], self: "Optimizer", args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The hooks and the step (``_with_step_hooks``)."""
    for hook in itertools.chain(_GLOBAL_STEP_PRE_HOOKS.values(), self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
            args, kwargs = result
    out = step(*args, **kwargs)
    for hook in itertools.chain(self._optimizer_step_post_hooks.values(), _GLOBAL_STEP_POST_HOOKS.values()):
        hook(self, args, kwargs)
    return out


def _hook_kinds() -> dict[str, OrderedDict[int, Callable[..., Any]]]:
    return {name: OrderedDict() for name in (
        "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
        "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
        "_optimizer_load_state_dict_post_hooks")}


class Optimizer(abc.ABC):
    """Base class: parameter groups with their own options, per-parameter state, ``zero_grad``.

    ``params`` is an iterable of tensors (one group), of ``(name, tensor)`` pairs
    (``model.named_parameters()``: the group keeps ``param_names``) or of dicts, each with a
    ``"params"`` list and options that override the defaults for that group
    (``[{"params": body}, {"params": head, "lr": 1e-2}]``), as in PyTorch.
    ``state`` maps each parameter to its state (``optimizer.state[p]["exp_avg"]``);
    ``state_dict()``/``load_state_dict()`` save and restore the options and
    the per-parameter state, parameters numbered in group order. Step and state-dict
    hooks run as PyTorch's (``register_step_pre_hook`` ...).
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        defaults = {**defaults, "lr": check_hyper(type(self).__name__, "learning rate", defaults.get("lr"))}
        self.defaults = dict(defaults)
        self.__dict__.update(_hook_kinds())
        cls = type(self)
        if not getattr(cls.step, "hooked", False):  # PyTorch's: the class's step, patched once
            cls.step = _with_step_hooks(cls.step)  # type: ignore[method-assign]
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        items = list(params)
        if not items:
            raise ValueError("optimizer got an empty parameter list")
        for g in (items if isinstance(items[0], dict) else [{"params": items}]):
            self.add_param_group(g)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (missing ones take the defaults), as PyTorch's:
        the group is the given dict, its ``params`` made a list (names split off into ``param_names``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        param_group["params"] = params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}")
            if not self.defaults.get("differentiable") and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

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
        with scope(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
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

    # -- hooks ---------------------------------------------------------------------------------

    def _register(self, kind: str, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        hooks = getattr(self, kind)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before this optimizer's ``step``; it may return new ``(args, kwargs)``."""
        return self._register("_optimizer_step_pre_hooks", hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after this optimizer's ``step``."""
        return self._register("_optimizer_step_post_hooks", hook)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` builds the dict."""
        return self._register("_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after ``state_dict()``; a returned dict replaces it."""
        return self._register("_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before ``load_state_dict`` reads it; a returned dict is loaded instead."""
        return self._register("_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer)`` after ``load_state_dict`` has loaded."""
        return self._register("_optimizer_load_state_dict_post_hooks", hook, prepend)

    # -- saving and loading --------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {name: value}}, "param_groups": [options + "params": [indices]]}``, PyTorch's layout:
        the state's dicts and tensors are the optimizer's own (not copies), as PyTorch's."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            for p in g["params"]:
                index.setdefault(id(p), len(index))
            groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": [index[id(p)] for p in g["params"]]})
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore options and state saved by ``state_dict``, in PyTorch's words where the groups differ. A state
        tensor takes its parameter's dtype and device (``step`` stays as saved); the groups keep their parameters."""
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(mine["params"]) for g, mine in zip(saved_groups, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip((i for g in saved_groups for i in g["params"]), self.params))
        fused_ids = {i: bool(g.get("fused")) for g in saved_groups for i in g["params"]}
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                fused = fused_ids.get(k, False)
                state[id_map[k]] = {name: _restored(id_map[k], name, value, fused) for name, value in v.items()}
            else:
                state[k] = v
        for saved, mine in zip(saved_groups, self.param_groups):
            saved["params"] = mine["params"]
            if "param_names" in mine and "param_names" not in saved:
                saved["param_names"] = mine["param_names"]
        self.state, self.param_groups = state, saved_groups
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def _step_each(self, closure: Callable[[], Any] | None, update: Callable[[Tensor, dict[str, Any]], None]) -> Any:
        """``step`` of a rule written on ops one parameter at a time (Rprop, ASGD): the closure's loss first, then
        ``update(p, group)`` under ``no_grad`` for each parameter that has a gradient; returns the loss."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group, p in list(self._params_with_grad()):
                update(p, group)
        return loss

    @staticmethod
    def _closure_loss(closure: Callable[[], Any] | None) -> Any:
        """PyTorch's step(closure): the closure (forward, backward) runs first, with gradients on; its loss is
        what ``step`` returns."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    @abc.abstractmethod
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter from its ``.grad`` (each optimizer's rule); with a ``closure``, run it first
        (with gradients on) and return its loss."""

    def _step_forms(self, closure: Callable[[], Any] | None = None) -> Any:
        """``step`` of a rule with the three forms (SGD, Adam, AdamW; NOTE [ One rule, three forms ] in
        ``update.py``): per group, the for-loop, foreach or fused form, under ``no_grad``.

        The subclass gives the rule (``_rule(k, p, g, state, scalars)``), a parameter's state
        (``_state_of``), the step's scalars (``_begin``, which also counts the step) and the fused call
        (``_fused``). Every group's form is settled, and PyTorch's refusals raised, before any update.
        With a recorder every form runs the for-loop on ops, so a trace shows each update as events.
        In the foreach and fused forms, parameters are bucketed by device, dtype and state; one that
        cannot join a multi-tensor call (a live view, a non-contiguous array, bfloat16) runs the for-loop.
        Returns the ``closure``'s loss.
        """
        loss = self._closure_loss(closure)
        amp = AmpTensors(getattr(self, "grad_scale", None), getattr(self, "found_inf", None))
        plans = []
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            plans.append((group, params, self._form(group, params, amp)))
        with no_grad():
            for group, params, form in plans:
                buckets: dict[tuple, list[Tensor]] = {}
                for p in params:
                    if form != "for-loop" and multi_tensor_ok(p, p.grad):
                        buckets.setdefault(bucket_key(p, self._state_of(p, group)), []).append(p)
                    elif not amp.skips():
                        amp.unscale(p)
                        self._update(p, group)
                for bucket in buckets.values():
                    if form == "fused":
                        self._fused(bucket, group, amp.on(bucket[0]))
                    else:
                        self._foreach(bucket, group)
        return loss

    def _form(self, group: dict[str, Any], params: list[Tensor], amp: "AmpTensors | None" = None) -> str:
        """``"for-loop"``, ``"foreach"`` or ``"fused"``, and PyTorch's refusals, before any change.

        As PyTorch (torch/optim/optimizer.py ``_default_to_fused_or_foreach``): ``foreach=None`` means
        foreach when every parameter is on the GPU, else the for-loop; ``fused`` only when asked. A GradScaler's
        tensors (``amp``) only a fused group takes.
        """
        if amp is not None and amp.given and params and not group.get("fused"):
            raise AssertionError("Expected grad_scale and found_inf to be None")
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
        if bus.steps_traced() or not params:
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


def _typename(obj: Any) -> str:
    """PyTorch's ``torch.typename``: ``torch.FloatTensor`` for a tensor, else the type's qualified name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _restored(p: Tensor, name: str, value: Any, fused: bool = False) -> Any:
    """A saved state value made the parameter's: a tensor in ``p``'s dtype (a floating one) and on its device, as
    PyTorch loads it; ``step`` keeps its own dtype and stays on the CPU, except in a fused group, where it is a
    float32 on the parameter's device (``device_step``). A fresh copy either way."""
    if not isinstance(value, Tensor):
        return value
    if name == "step" and fused:
        return _device_count(value, p)
    dtype = value.dtype if name == "step" or not p.dtype.is_floating_point else p.dtype
    out = Tensor._make(value.detach().cpu().numpy().astype(dtype.np, copy=True), dtype)
    return out.to(p.device) if name != "step" and p.device != "cpu" else out


# -- the state's numbers: 0-d tensors, as PyTorch's ---------------------------------------------
#
# PyTorch keeps a parameter's step count (and NAdam's ``mu_product``) as a 0-d tensor on the CPU, in
# float32 (float64 under ``set_default_dtype(float64)``), so ``optimizer.state[p]["step"]`` prints
# ``tensor(3.)`` and a saved state dict holds tensors. The rules read them as Python numbers, and the
# count is bumped on its array (bookkeeping, not a step of the rule: no op, no event).

def scalar_state(value: float) -> Tensor:
    """A 0-d CPU tensor of PyTorch's scalar dtype holding ``value`` (a new ``step``, ``mu_product``)."""
    dtype = float64 if get_default_dtype() == float64 else float32
    return Tensor._make(np.array(value, dtype=dtype.np), dtype)


def device_step(p: Tensor) -> Tensor:
    """A fused step's count: a 0-d float32 zero on ``p``'s device (PyTorch's ``_get_scalar_dtype(is_fused=True)``),
    which the fused kernel reads there (NOTE [ A fused step reads the scaler's flag on the device ])."""
    return full((), 0.0, dtype=float32, device=p.device)


def on_device_step(st: dict[str, Any], p: Tensor) -> Tensor:
    """``st``'s step count as a fused kernel reads it, moved there once if the state came from another form."""
    t = st["step"]
    if t._device != p._device or t._dtype is not float32:
        t = st["step"] = _device_count(t, p)
    return t


def _device_count(t: Tensor, p: Tensor) -> Tensor:
    """A step count as a fused kernel reads it: a new float32 on ``p``'s device."""
    return t.detach().to(p.device, float32, copy=True)


def count_fused_step(steps: list[Tensor], amp: "AmpTensors", run: Callable[[list[Any]], None]) -> None:
    """PyTorch's fused form around its kernel: the step counts (tensors on the parameters' device) counted up by one
    multi-tensor add, ``run(counts)`` (the kernel, which reads them there), and with a GradScaler's flag the counts
    taken down by it (NOTE [ A fused step reads the scaler's flag on the device ] in ``update.py``)."""
    counts = [t._data for t in steps]
    add = kernel_of("_foreach_binary", steps[0])
    add("add", counts, 1.0, out=counts)
    run(counts)
    if amp.found_inf is not None:
        add("sub", counts, amp.found_data, out=counts)
    for t in steps:
        bump(t)


class AmpTensors:
    """A GradScaler's scale and inf/NaN flag as it hands them to a fused optimizer (``optimizer.grad_scale``,
    ``optimizer.found_inf``; either may be None), for one ``step``.

    A fused kernel reads them on the device (NOTE [ A fused step reads the scaler's flag on the device ] in
    ``update.py``). A parameter that runs the for-loop instead (one that cannot join a multi-tensor call, or
    every parameter while a recorder listens) needs the flag on the host: ``skips`` reads it there once per
    step, a sync on a GPU, and ``unscale`` divides its gradient by the scale as an op.
    """

    __slots__ = ("grad_scale", "found_inf", "_skip")

    def __init__(self, grad_scale: Tensor | None, found_inf: Tensor | None) -> None:
        self.grad_scale, self.found_inf = grad_scale, found_inf
        self._skip: bool | None = None

    @property
    def given(self) -> bool:
        return self.grad_scale is not None or self.found_inf is not None

    @property
    def scale_data(self) -> Any:
        return None if self.grad_scale is None else self.grad_scale._data

    @property
    def found_data(self) -> Any:
        return None if self.found_inf is None else self.found_inf._data

    def on(self, p: Tensor) -> "AmpTensors":
        """The two tensors on ``p``'s device, as a fused kernel there reads them."""
        if not self.given:
            return self
        moved = [None if t is None else t.to(p.device) for t in (self.grad_scale, self.found_inf)]
        return AmpTensors(*moved)

    def unscaled(self, bucket: list[Tensor]) -> list[Tensor]:
        """The gradients a fused kernel writes back divided by the scale (none without one)."""
        return [] if self.grad_scale is None else [p.grad for p in bucket]

    def skips(self) -> bool:
        """Whether the step leaves every parameter as it was (the flag holds exactly 1): read on the host."""
        if self._skip is None:
            self._skip = self.found_inf is not None and self.found_inf.item() == 1.0
        return self._skip

    def unscale(self, p: Tensor) -> None:
        """``p``'s gradient divided by the scale, in place (in float32 for a half gradient, as the kernel)."""
        if self.grad_scale is None:
            return
        g = p.grad
        if g.dtype in (float16, bfloat16):
            g.copy_(g.float().div(self.grad_scale.to(g.device)))
        else:
            g.div_(self.grad_scale.to(g.device))


def _states(st: Any) -> list[dict[str, Any]]:
    return st.states if isinstance(st, StateList) else [st]


def read_scalar(st: Any, name: str) -> float:
    """A state number as a Python float (the first state's, for a bucket: its states are at the same point)."""
    v = _states(st)[0][name]
    return float(v._data) if isinstance(v, Tensor) else float(v)


def write_scalar(st: Any, name: str, value: float) -> None:
    """Set a state number in every state of ``st``, in place where it is a tensor already (rounded to its dtype)."""
    for one in _states(st):
        t = one.get(name)
        if isinstance(t, Tensor):
            t._data[...] = value
            bump(t)
        else:
            one[name] = scalar_state(value)


def count_step(st: Any) -> float:
    """One more step in ``st`` (a parameter's state, or a bucket's): the new count, as a float (PyTorch's
    ``_get_value(step)``)."""
    t = read_scalar(st, "step") + 1
    write_scalar(st, "step", t)
    return t


def scale_scalar(st: Any, name: str, factor: float) -> float:
    """``state[name] *= factor`` in the number's own dtype (a float32 multiply for a float32 state, as PyTorch's
    in-place op on the 0-d tensor); the new value."""
    for one in _states(st):
        t = one[name]
        t._data[...] = t._data * t._data.dtype.type(factor)
        bump(t)
    return read_scalar(st, name)
