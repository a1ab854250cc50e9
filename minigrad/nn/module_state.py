"""A Module's state: buffers, ``state_dict``/``load_state_dict``, traversal (``named_modules``,
``children``, ``apply``) and conversion (``to``, ``double``, ``float``), as PyTorch's ``nn.Module``.

``Module`` inherits these from ``ModuleStateMixin``; the mixin only reads the
three registries every Module has: ``_parameters``, ``_buffers`` (with the
names in ``_non_persistent``, which ``state_dict`` leaves out) and
``_modules``.

Example:
    >>> import minigrad as mg
    >>> m = mg.nn.Linear(2, 1)
    >>> sorted(m.state_dict())
    ['bias', 'weight']
    >>> m.load_state_dict(m.state_dict())
    <All keys matched successfully>
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

import numpy as np

from .. import dtypes as _dt
from ..devices import CHANNELS_LAST, array_module, as_memory_format, is_contiguous_as
from ..kernels.backends import canonical_device, move_array, to_numpy
from ..kernels.strided import channels_last_copy
from ..autograd.grad_mode import no_grad
from ..size import Size
from ..tensor import Tensor

__all__ = ["ModuleStateMixin", "IncompatibleKeys"]


def _is_lazy(t: Tensor) -> bool:
    """An uninitialized parameter or buffer of a lazy layer (``nn/parameter.py``, which imports this module)."""
    return hasattr(t, "materialize")

class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns (PyTorch's ``_IncompatibleKeys``): it prints
    ``<All keys matched successfully>`` when both lists are empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


def _set_data(t: Tensor, data: Any, dtype: Any = None, device: str | None = None) -> None:
    """Replace a tensor's storage (a parameter stays the same leaf object), as PyTorch's ``param.data = new``:
    the version counter is kept and not bumped. What backward saved is safe: a saved tensor keeps its old
    array (``autograd/tensor_wrapper.py``)."""
    t._data = data
    if dtype is not None:
        t._dtype = dtype
    if device is not None:
        t._device = device


class ModuleStateMixin:
    """State handling shared by every ``Module`` (see the module docstring)."""

    _parameters: "OrderedDict[str, Any]"
    _buffers: "OrderedDict[str, Any]"
    _modules: "OrderedDict[str, Any]"
    _non_persistent: set

    # -- buffers -----------------------------------------------------------------

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a tensor that is state but not a parameter (BatchNorm's running statistics):
        saved in ``state_dict`` (unless ``persistent=False``), moved by ``to()``, never trained."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer(): buffer name must be a non-empty string without '.', got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer(): buffer '{name}' must be a Tensor or None, but got {type(tensor).__name__}")
        if name in self._parameters or name in self._modules:
            raise KeyError(f"register_buffer(): attribute '{name}' already exists as a parameter or submodule")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)
        object.__setattr__(self, name, tensor)

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs of this module and its submodules."""
        for mod_name, mod in self.named_modules(prefix):
            for name, b in mod._buffers.items():
                if b is not None:
                    yield (f"{mod_name}.{name}" if mod_name else name), b

    def buffers(self) -> Iterator[Tensor]:
        return (b for _, b in self.named_buffers())

    # -- traversal ---------------------------------------------------------------

    def named_children(self) -> Iterator[tuple[str, Any]]:
        return iter([(name, m) for name, m in self._modules.items() if m is not None])

    def children(self) -> Iterator[Any]:
        """The direct submodules."""
        return (m for _, m in self.named_children())

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """``(dotted name, module)`` for this module (name ``prefix``) and every submodule, depth first, each once."""
        seen: set[int] = set()
        out: list[tuple[str, Any]] = []
        stack: list[tuple[str, Any]] = [(prefix, self)]
        while stack:
            name, mod = stack.pop()
            if id(mod) in seen:
                continue
            seen.add(id(mod))
            out.append((name, mod))
            stack.extend(reversed([(f"{name}.{k}" if name else k, m) for k, m in mod._modules.items() if m is not None]))
        return iter(out)

    def apply(self, fn: Callable[[Any], None]) -> Any:
        """Call ``fn`` on every submodule (children first) and then on this module; returns ``self``."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- state dict --------------------------------------------------------------

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False) -> Any:
        """Every parameter and persistent buffer by dotted name, as detached tensors sharing storage (the
        tensors themselves with ``keep_vars``), into ``destination`` (a new ``OrderedDict`` by default), as
        PyTorch's recursion: a module's state-dict pre-hooks, its own tensors, its children's (a module
        shared by two parents under both names), then its post-hooks. ``_metadata`` holds each module's
        ``{"version": 1}``."""
        if args:  # PyTorch's old positional form: (destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict "
                          "for details.", FutureWarning, stacklevel=2)
            given = dict(zip(("destination", "prefix", "keep_vars"), args))
            destination = given.get("destination", destination)
            prefix, keep_vars = given.get("prefix", prefix), given.get("keep_vars", keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        hooks = self.__dict__.get("_module_hooks")
        for _, fn, _ in (hooks.state_dict_pre if hooks else ()):
            fn(self, prefix, keep_vars)
        local_metadata = {"version": 1}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for name, t in self._own_state().items():  # (an uninitialized one as itself: it has no values to share)
            destination[prefix + name] = t if keep_vars or _is_lazy(t) else t.detach()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        for _, fn, options in (hooks.state_dict if hooks else ()):
            result = fn(self, destination, prefix, local_metadata)
            if options.get("public"):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _own_state(self) -> "OrderedDict[str, Tensor]":
        """This module's parameters and persistent buffers (not its children's), by name."""
        own: OrderedDict[str, Tensor] = OrderedDict((n, p) for n, p in self._parameters.items() if p is not None)
        own.update((n, b) for n, b in self._buffers.items() if b is not None and n not in self._non_persistent)
        return own

    def _state_modules(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """``(prefix with its dot, module)`` in ``state_dict``'s order, a shared module under each name."""
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child._state_modules(f"{prefix}{name}.")

    def _state_targets(self) -> "OrderedDict[str, Tensor]":
        return OrderedDict((pre + name, t) for pre, mod in self._state_modules() for name, t in mod._own_state().items())

    def register_state_dict_pre_hook(self, hook: Callable[..., None]) -> Any:
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module's tensors."""
        return self._hooks().add("state_dict_pre", hook, False)

    def register_state_dict_post_hook(self, hook: Callable[..., None]) -> Any:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict`` saved this module's
        tensors and its children's; it may change ``state_dict`` in place and must return None."""
        return self._hooks().add("state_dict", hook, False, public=True)

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> Any:
        """PyTorch's older post-hook: as ``register_state_dict_post_hook``'s, and a returned dict replaces the
        state dict."""
        return self._hooks().add("state_dict", hook, False)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., None]) -> Any:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before ``load_state_dict`` reads this module's keys; it may rename or add keys in
        ``state_dict`` (a copy of the one given)."""
        return self._hooks().add("load_state_dict_pre", hook, False, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable[..., None], with_module: bool = False) -> Any:
        """The pre-hook without the module as its first argument, unless ``with_module``."""
        return self._hooks().add("load_state_dict_pre", hook, False, with_module=with_module)

    def register_load_state_dict_post_hook(self, hook: Callable[..., None]) -> Any:
        """Run ``hook(module, incompatible_keys)`` once the keys are matched; it may remove keys from the
        two lists (a strict load then raises only for those left) and must return None."""
        return self._hooks().add("load_state_dict_post", hook, False)

    def load_state_dict(self, state_dict: Any, strict: bool = True) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into the parameters and buffers (they stay the same objects).

        With ``strict`` (the default) a missing or unexpected key is an error, as
        in PyTorch; otherwise they are reported in the returned
        ``(missing_keys, unexpected_keys)``. A shape mismatch is always an error;
        nothing is changed when any error is raised. Each module's load pre-hooks run first (on a copy
        of ``state_dict``, parents before children), its post-hooks once the keys are matched - before
        the values are copied, where PyTorch's run after, so that a refused load changes nothing.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict(): expected a dict, but got {type(state_dict).__name__}")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        modules = list(self._state_modules())
        for pre, mod in modules:
            hooks = mod.__dict__.get("_module_hooks")
            for _, fn, options in (hooks.load_state_dict_pre if hooks else ()):
                local_metadata = metadata.get(pre[:-1], {}) if metadata is not None else {}
                args = (state_dict, pre, local_metadata, True, missing, unexpected, errors)
                if options.get("with_module"):
                    fn(mod, *args)
                else:
                    fn(*args)
        targets = self._state_targets()
        missing += [k for k in targets if k not in state_dict]
        unexpected += [k for k in state_dict if k not in targets]
        arrays = {}
        for key, target in targets.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if isinstance(value, Tensor):
                value.shape  # an uninitialized one (a lazy layer's) refuses here, in PyTorch's words
            arr = to_numpy(value._data) if isinstance(value, Tensor) else np.asarray(value)
            if tuple(arr.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {Size(arr.shape)} from checkpoint, "
                    f"the shape in current model is {target.shape}."
                )
                continue
            arrays[key] = arr
        keys = IncompatibleKeys(missing, unexpected)
        for _, mod in reversed(modules):  # children's post-hooks before their parent's, as PyTorch's recursion
            hooks = mod.__dict__.get("_module_hooks")
            for _, fn, _ in (hooks.load_state_dict_post if hooks else ()):
                if fn(mod, keys) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not"
                                       "expected to return new values, if incompatible_keys need to be modified,"
                                       "it should be done inplace.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors)
            )
        with no_grad():  # each copied into the tensor's storage, as PyTorch's ``param.copy_(value)``:
            for key, arr in arrays.items():  # its views see the new values, its version counts the change
                t = targets[key]
                data = arr.astype(t._dtype.np, copy=False)
                t.copy_(Tensor._make(data if t._device == "cpu" else move_array(data, "cpu", t._device),
                                     t._dtype, t._device))
        return IncompatibleKeys(missing, unexpected)

    # -- conversion --------------------------------------------------------------

    def to(self, device: Any = None, dtype: Any = None, non_blocking: bool = False, *,
           memory_format: Any = None) -> Any:
        """Move every parameter and buffer to ``device`` and/or cast floating ones to ``dtype``, in place
        (the objects stay the same, so an optimizer made before still holds them); with ``memory_format``
        (``channels_last``), lay out each 4-D one so (5-D for ``channels_last_3d``), as PyTorch's. Returns
        ``self``."""
        if isinstance(device, _dt.DType) or (dtype is None and device is not None and not isinstance(device, str)):
            device, dtype = None, device
        fmt = as_memory_format("to", memory_format) if memory_format is not None else None
        dt = _dt.as_dtype(dtype, "to(): argument 'dtype'") if dtype is not None else None
        dev = canonical_device(device) if device is not None else None
        for _, mod in self.named_modules():
            for t in list(mod._parameters.values()) + list(mod._buffers.values()):
                if t is None:
                    continue
                if _is_lazy(t):  # only what it will be materialized as (nn/parameter.py)
                    t._retarget(dt if dt is not None and t._dtype.is_floating else None, dev)
                    continue
                data, new_dt, new_dev = t._data, None, None
                if dt is not None and t._dtype.is_floating and t._dtype is not dt:
                    data = to_numpy(data).astype(dt.np) if t._device == "cpu" else data.astype(dt.np)
                    new_dt = dt
                if dev is not None and dev != t._device:
                    data = move_array(data, t._device, dev)
                    new_dev = dev
                if fmt in CHANNELS_LAST and t.ndim == CHANNELS_LAST[fmt][0] and not is_contiguous_as(
                        fmt, tuple(t.shape), tuple(s // data.itemsize for s in data.strides)):
                    data = channels_last_copy(array_module(new_dev or t._device), data, fmt)
                    new_dt = new_dt or t._dtype
                if new_dt is not None or new_dev is not None:
                    _set_data(t, data, new_dt, new_dev)
                    if t.grad is not None:
                        t.grad = None
        return self

    def double(self) -> Any:
        """Floating parameters and buffers to float64."""
        return self.to(dtype=_dt.float64)

    def float(self) -> Any:
        """Floating parameters and buffers to float32."""
        return self.to(dtype=_dt.float32)

    def half(self) -> Any:
        """Floating parameters and buffers to float16."""
        return self.to(dtype=_dt.float16)

    def cpu(self) -> Any:
        return self.to("cpu")

    def cuda(self) -> Any:
        return self.to("gpu")

    def requires_grad_(self, requires_grad: bool = True) -> Any:
        """Set ``requires_grad`` on every parameter (freeze with ``False``)."""
        for p in self.parameters():  # type: ignore[attr-defined]
            p.requires_grad_(requires_grad)
        return self
