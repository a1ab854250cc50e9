"""Hooks on the tensors autograd saves (PyTorch's ``torch.autograd.graph``).

``saved_tensors_hooks(pack_hook, unpack_hook)`` changes how every tensor an op
saves for backward is kept: while the context is open, each save calls
``pack_hook(tensor)`` and the grad node keeps what it returns; backward calls
``unpack_hook(packed)`` when the formula reads the tensor. The wrapper side is
``autograd/tensor_wrapper.py`` (NOTE [ Saved-tensor hooks ]).

Example:
    >>> import minigrad as mg
    >>> seen = []
    >>> def pack(t):
    ...     seen.append(tuple(t.shape))
    ...     return t.detach()
    >>> x = mg.ones(3, requires_grad=True)
    >>> with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); seen, x.grad.tolist()
    ([(3,), (3,)], [2.0, 2.0, 2.0])
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from .tensor_wrapper import SAVED_TENSORS_HOOKS as _HOOKS

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

# The message ``saved_tensors_hooks`` raises while ``disable_saved_tensors_hooks`` is open.
_DISABLED: list[str | None] = [None]


class saved_tensors_hooks:
    """Context manager setting a pack / unpack pair for the tensors saved inside it.

    ``pack_hook(tensor) -> Any`` runs each time an op (or a custom Function's
    ``save_for_backward``) saves a tensor, with grad recording off; the node
    keeps its result. ``unpack_hook(packed) -> Tensor`` runs each time backward
    reads the saved tensor and must give back a tensor with the same values,
    shape and dtype. Only the innermost pair applies when contexts nest; a
    pair applies to the tensors saved while it was innermost, wherever
    backward runs later. A pack hook must not change its input in place, and
    should not return the input itself (``t.detach()`` rather than ``t``).
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        message = _DISABLED[0]
        if message is not None:
            raise RuntimeError(message)
        _HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args: object) -> None:
        _HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    """Keep the tensors saved inside the context on the CPU; backward copies them back.

    Trades device memory for copies: each saved tensor is packed as
    ``(device, tensor.cpu())`` and unpacked with ``.to(device)``. On a CPU-only
    graph nothing is copied. ``pin_memory`` is accepted for PyTorch's
    signature; minigrad's host arrays are never pinned.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)
        self.pin_memory = pin_memory
        self.device_type = device_type


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """While open, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``.

    For features that cannot work with packed saved tensors; the previous
    state (and message) comes back on exit.
    """
    previous = _DISABLED[0]
    _DISABLED[0] = error_message
    try:
        yield
    finally:
        _DISABLED[0] = previous


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
