"""``Parameter`` and ``Module``: the base of every layer (``mg.nn``).

Kept apart from ``nn/__init__.py`` so that the layer files (``layers.py``) import them
from below instead of from the package that imports them.
"""

from __future__ import annotations

import copy
import weakref
from typing import Any, Iterator

import numpy as np

from .. import dtypes as _dt
from ..autograd_meta import AutogradMeta
from ..devices import canonical_device, default_device
from ..tensor import Tensor
from ..tracing import bus, provenance
from .module_hooks import HookHandle, HookView, ModuleHooks, call_with_hooks
from .module_state import ModuleStateMixin

__all__ = ["Parameter", "Buffer", "Module"]


class Parameter(Tensor):
    """A leaf tensor that requires grad and is registered by the Module it is assigned to."""

    __slots__ = ()
    # Printed as PyTorch's (``<class 'torch.nn.parameter.Parameter'>``): minigrad.nn.parameter exports it too.
    __module__ = "minigrad.nn.parameter"

    def __new__(cls, data: Tensor, requires_grad: bool = True) -> "Parameter":
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be a Tensor, but got {type(data).__name__}")
        p = cls._make(data._data, data._dtype, data._device, data._layout)
        if requires_grad:
            p._meta = AutogradMeta(p._id)
        return p

    def __init__(self, data: Tensor, requires_grad: bool = True) -> None:  # noqa: D401 - set up in __new__
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> "Parameter":
        """A new Parameter with a copy of the data (and of ``.grad``), and its own id."""
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(Tensor._make(self._data.copy(), self._dtype, self._device, self._layout), self.requires_grad)
        memo[id(self)] = out
        if self.grad is not None:
            out.grad = copy.deepcopy(self.grad, memo)
        return out


#: tensors made by ``Buffer(...)`` (by ``id``: a weak reference and whether it is persistent): assigned to a module,
#: one registers as a buffer. minigrad's tensors have fixed slots, so the mark lives here, not on the tensor as
#: PyTorch's does; an entry goes when its tensor does.
_BUFFER_MARKS: dict[int, tuple[Any, bool]] = {}


def _buffer_mark(t: Any) -> bool | None:
    """``t``'s ``persistent`` if ``Buffer(...)`` made it, else None."""
    entry = _BUFFER_MARKS.get(id(t))
    return entry[1] if entry is not None and entry[0]() is t else None


class _BufferMeta(type):
    """``isinstance(t, Buffer)``: ``t`` was made by ``Buffer(...)`` (it is a plain tensor, as PyTorch's)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and _buffer_mark(instance) is not None


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(data, persistent=True)``: a tensor that registers as a buffer of the module it is assigned to
    (``self.running_mean = nn.Buffer(torch.zeros(3))``), saved in ``state_dict`` unless not ``persistent``. It is
    ``data.detach()`` marked, of class ``Tensor``, as PyTorch's."""

    __slots__ = ()
    __module__ = "minigrad.nn.parameter"

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Any:
        if data is None:
            data = Tensor._make(np.empty(0, dtype=_dt.default_float().np), _dt.default_float())
        t = data.detach().requires_grad_(data.requires_grad)
        key = id(t)
        _BUFFER_MARKS[key] = (weakref.ref(t, lambda _: _BUFFER_MARKS.pop(key, None)), persistent)
        return t


def _new_parameter(shape: int | tuple[int, ...], dtype: Any, fill: float = 0.0, device: Any = None) -> Parameter:
    """A Parameter of ``shape`` filled with ``fill``, of ``dtype`` (the default float dtype when ``None``), on
    ``device`` (the default device when ``None``).

    The layers create their parameters with it; their ``reset_parameters`` then draws the values.

    Example:
        >>> _new_parameter((2,), None, 1.0).tolist()
        [1.0, 1.0]
    """
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float()
    return Parameter(_on_default_device(Tensor._make(np.full(shape, fill, dtype=dt.np), dt), device))


def _on_default_device(t: Tensor, device: Any = None) -> Tensor:
    """``t`` (made on the CPU) moved to ``device``, a layer's ``device=`` argument, or where none is given to
    the default device: a new layer's parameters and buffers go where ``mg.set_default_device`` says, as
    PyTorch's."""
    device = default_device() if device is None else canonical_device(device)
    return t if device == "cpu" else t.to(device)


class Module(ModuleStateMixin):
    """Base class of layers: parameters and submodules assigned as attributes are registered.

    Subclasses define ``forward``; calling the module calls it.
    """

    def __init__(self) -> None:
        # Plain dicts keep insertion order (PyTorch's Module uses them too).
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        # A registered name keeps its kind, as in PyTorch: ``m.w = mg.ones(2)`` would otherwise
        # leave the old Parameter in parameters() (and in the optimizer) while forward uses the new tensor.
        if name in self._parameters and not isinstance(value, Parameter):
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                f"(minigrad.nn.Parameter or None expected)")
            del self._parameters[name]
        elif name in self._modules and not isinstance(value, Module):
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                f"(minigrad.nn.Module or None expected)")
            del self._modules[name]
        if isinstance(value, Buffer):
            self.register_buffer(name, value, bool(_buffer_mark(value)))
            return
        if name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(minigrad.nn.Buffer, minigrad.Tensor or None expected)")
            self._buffers[name] = value
        elif isinstance(value, Parameter):
            self._parameters[name] = value
            self._modules.pop(name, None)
            if value._name is None:
                value.name = name
        elif isinstance(value, Module):
            self._modules[name] = value
            self._parameters.pop(name, None)
            # Parameters are named by their path in the module tree ("0.weight"), so
            # traces, the renderer and the TUI can tell the layers apart.
            for rel, p in value.named_parameters():
                p.name = f"{name}.{rel}"
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        """``del m.weight``: a parameter, buffer or submodule leaves its registry too, as in PyTorch."""
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(registry, {}):
                del self.__dict__[registry][name]
                self._non_persistent.discard(name)
                self.__dict__.pop(name, None)
                return
        if name not in self.__dict__:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        object.__delattr__(self, name)

    # -- registering by name (PyTorch's register_parameter, add_module, get_*) -----------------------

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a Parameter, or None: a slot with no parameter, as a bias-free layer's ``bias``) as
        the parameter ``name``, refused in PyTorch's words where the name is taken or malformed."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            kind = param.type() if isinstance(param, Tensor) else type(param).__name__
            raise TypeError(f"cannot assign '{kind}' object to parameter '{name}' "
                            f"(minigrad.nn.Parameter or None required)")
        self._parameters[name] = param
        if param is not None and param._name is None:
            param.name = name
        object.__setattr__(self, name, param)

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add ``module`` (or None) as the submodule ``name`` (``self.name = module``, for a name made at
        run time: ``model.add_module(f"conv_{i}", layer)``)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if module is None:
            self._modules[name] = None
            object.__setattr__(self, name, None)
        else:
            setattr(self, name, module)

    def register_module(self, name: str, module: "Module | None") -> None:
        """``add_module``'s other name."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at the dotted path ``target`` (``""``: this module)."""
        mod: Module = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _owner(self, target: str) -> tuple["Module", str]:
        """The submodule holding the dotted path ``target``'s last name, and that name (which it must have)."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"0.weight"``)."""
        mod, name = self._owner(target)
        if not isinstance(getattr(mod, name), Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return getattr(mod, name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``)."""
        mod, name = self._owner(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    @property
    def _forward_pre_hooks(self) -> "HookView":
        """The forward pre-hooks by id, in the order they run (PyTorch's ``OrderedDict``; ``del`` unregisters)."""
        return HookView(self._hooks().forward_pre)

    @property
    def _forward_hooks(self) -> "HookView":
        """The forward hooks by id, in the order they run."""
        return HookView(self._hooks().forward)

    @property
    def _state_dict_pre_hooks(self) -> "HookView":
        return HookView(self._hooks().state_dict_pre)

    @property
    def _state_dict_hooks(self) -> "HookView":
        """The state-dict post-hooks by id (``nn.utils.spectral_norm`` keeps one)."""
        return HookView(self._hooks().state_dict)

    @property
    def _load_state_dict_pre_hooks(self) -> "HookView":
        return HookView(self._hooks().load_state_dict_pre)

    @property
    def _load_state_dict_post_hooks(self) -> "HookView":
        return HookView(self._hooks().load_state_dict_post)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        hooks = self.__dict__.get("_module_hooks")  # made by the first register_*hook (module_hooks.py)
        if bus.recorder is None:
            return self.forward(*args, **kwargs) if hooks is None else call_with_hooks(self, hooks, args, kwargs)
        provenance.enter_module(self)  # so node.create events name the module that made them
        try:
            return self.forward(*args, **kwargs) if hooks is None else call_with_hooks(self, hooks, args, kwargs)
        finally:
            provenance.exit_module()

    # -- hooks (PyTorch's; see module_hooks.py) ----------------------------------------------

    def _hooks(self) -> ModuleHooks:
        hooks = self.__dict__.get("_module_hooks")
        if hooks is None:
            hooks = ModuleHooks()
            object.__setattr__(self, "_module_hooks", hooks)
        return hooks

    def register_forward_pre_hook(self, hook: Any, *, prepend: bool = False, with_kwargs: bool = False) -> HookHandle:
        """Run ``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``) before each
        forward; a non-None result replaces the arguments."""
        return self._hooks().add("forward_pre", hook, prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook: Any, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> HookHandle:
        """Run ``hook(module, args, output)`` after each forward; a non-None result replaces the output."""
        return self._hooks().add("forward", hook, prepend, with_kwargs=with_kwargs, always_call=always_call)

    def register_full_backward_pre_hook(self, hook: Any, prepend: bool = False) -> HookHandle:
        """Run ``hook(module, grad_output)`` when the gradients of the outputs are known; a non-None
        result replaces them. It runs as an engine hook (a ``hook.run`` event)."""
        return self._hooks().add("backward_pre", hook, prepend)

    def register_full_backward_hook(self, hook: Any, prepend: bool = False) -> HookHandle:
        """Run ``hook(module, grad_input, grad_output)`` when the gradients of the inputs are known; a
        non-None result replaces ``grad_input``. It runs as an engine hook (a ``hook.run`` event)."""
        return self._hooks().add("backward", hook, prepend)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs, depth first, each parameter once."""
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [(prefix, self)]
        out: list[tuple[str, Parameter]] = []
        while stack:
            pre, mod = stack.pop(0)
            for name, p in mod._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    out.append((pre + name, p))
            stack[0:0] = [(pre + name + ".", m) for name, m in mod._modules.items() if m is not None]
        return iter(out)

    def parameters(self) -> Iterator[Parameter]:
        """All parameters (for an optimizer)."""
        return (p for _, p in self.named_parameters())

    def modules(self) -> Iterator["Module"]:
        """This module and all submodules, depth first."""
        stack: list[Module] = [self]
        while stack:
            m = stack.pop(0)
            yield m
            stack[0:0] = [c for c in m._modules.values() if c is not None]

    # (state_dict, buffers, named_modules, children, apply, to, double ... : ModuleStateMixin)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Set every parameter's ``.grad`` to ``None``."""
        for p in self.parameters():
            p.grad = None

    def train(self, mode: bool = True) -> "Module":
        """Training mode (Dropout active)."""
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        """Evaluation mode (Dropout off)."""
        return self.train(False)

    def extra_repr(self) -> str:
        """The module's own settings, printed inside its parentheses (PyTorch's hook of the same name)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        """PyTorch's layout (``torch/nn/modules/module.py``): a one-line ``extra_repr`` with no children stays
        on the name's line; otherwise each line of ``extra_repr``, then each child ``(name): repr``, sits on a
        line of its own, indented two spaces.

        Example:
            >>> import minigrad as mg
            >>> print(mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU()))
            Sequential(
              (0): Linear(in_features=2, out_features=3, bias=True)
              (1): ReLU()
            )
        """
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): {_indent(repr(m))}" for name, m in self._modules.items()]
        if len(lines) == 1 and not children:
            return f"{self._get_name()}({lines[0]})"
        lines += children
        return f"{self._get_name()}(" + ("\n  " + "\n  ".join(lines) + "\n" if lines else "") + ")"


def _indent(text: str, spaces: int = 2) -> str:
    """``text`` with every line after the first indented by ``spaces`` (blank lines stay empty, as PyTorch's
    ``_addindent``)."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line if line.strip() else "" for line in rest])
