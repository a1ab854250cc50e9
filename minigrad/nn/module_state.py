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

from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

import numpy as np

from .. import dtypes as _dt
from ..devices import CHANNELS_LAST, array_module, as_memory_format, is_contiguous_as
from ..kernels.backends import canonical_device, move_array, to_numpy
from ..kernels.strided import channels_last_copy
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["ModuleStateMixin", "IncompatibleKeys"]

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

    def state_dict(self, prefix: str = "") -> "OrderedDict[str, Tensor]":
        """Every parameter and persistent buffer by dotted name, as detached tensors sharing storage."""
        out: OrderedDict[str, Tensor] = OrderedDict()
        for mod_name, mod in self.named_modules(prefix.rstrip(".")):
            pre = f"{mod_name}." if mod_name else ""
            for name, p in mod._parameters.items():
                if p is not None:
                    out[pre + name] = p.detach()
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent:
                    out[pre + name] = b.detach()
        return out

    def _state_targets(self) -> "OrderedDict[str, Tensor]":
        out: OrderedDict[str, Tensor] = OrderedDict()
        for mod_name, mod in self.named_modules():
            pre = f"{mod_name}." if mod_name else ""
            for name, p in mod._parameters.items():
                if p is not None:
                    out[pre + name] = p
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent:
                    out[pre + name] = b
        return out

    def load_state_dict(self, state_dict: Any, strict: bool = True) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into the parameters and buffers (they stay the same objects).

        With ``strict`` (the default) a missing or unexpected key is an error, as
        in PyTorch; otherwise they are reported in the returned
        ``(missing_keys, unexpected_keys)``. A shape mismatch is always an error;
        nothing is changed when any error is raised.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict(): expected a dict, but got {type(state_dict).__name__}")
        targets = self._state_targets()
        missing = [k for k in targets if k not in state_dict]
        unexpected = [k for k in state_dict if k not in targets]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        arrays = {}
        for key, target in targets.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            arr = to_numpy(value._data) if isinstance(value, Tensor) else np.asarray(value)
            if tuple(arr.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {tuple(arr.shape)} from checkpoint, "
                    f"the shape in current model is {tuple(target.shape)}."
                )
                continue
            arrays[key] = arr
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
