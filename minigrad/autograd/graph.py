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

import abc

from ..tensor import Tensor, VersionCounter
from . import engine as _engine
from .accumulation import accumulation_node_for
from .grad_node import GradNode
from .gradient_edge import GradientEdge, get_gradient_edge
from .saved_mutation import allow_mutation_on_saved_tensors
from .tensor_wrapper import SAVED_TENSORS_HOOKS as _HOOKS

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "Node", "increment_version",
           "register_multi_grad_hook", "GradientEdge", "get_gradient_edge", "allow_mutation_on_saved_tensors"]


class Node(abc.ABC):
    """PyTorch's ``torch.autograd.graph.Node``: the abstract type of a grad node, for ``isinstance`` checks
    (``isinstance(y.grad_fn, Node)`` is True for every node minigrad makes, a custom Function's and an
    ``AccumulateGrad`` too). What a node offers - ``name()``, ``next_functions``, ``metadata``,
    ``register_hook``, ``register_prehook`` - is ``GradNode``'s (``autograd/grad_node.py``)."""

    @abc.abstractmethod
    def name(self) -> str: ...

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple: ...

    @property
    @abc.abstractmethod
    def metadata(self) -> dict: ...

    @abc.abstractmethod
    def register_hook(self, fn: Callable[..., Any]) -> Any: ...

    @abc.abstractmethod
    def register_prehook(self, fn: Callable[..., Any]) -> Any: ...


Node.register(GradNode)


def increment_version(tensor: Any) -> None:
    """Count an in-place change of ``tensor`` (or of each tensor of a sequence) on its version counter, as an
    in-place op would - for a change made behind autograd's back (``t.data`` written by hand), so that a
    backward that saved the tensor refuses the stale value."""
    for t in (tensor if isinstance(tensor, (list, tuple)) else (tensor,)):
        if not isinstance(t, Tensor):
            raise TypeError(f"increment_version(): expected a Tensor, but got {type(t).__name__}")
        if t._vc is None:
            t._vc = VersionCounter()
        t._vc.bump()

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


class _MultiHandle:
    """The handle ``register_multi_grad_hook`` returns: ``remove()`` removes the hook of every tensor."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> "_MultiHandle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def _pass_number() -> int:
    if not _engine.RUNNING_PASSES:
        raise RuntimeError("expected this hook to be called inside a backward call")
    return _engine.RUNNING_PASSES[-1][0]


def register_multi_grad_hook(tensors: Any, fn: Callable[..., Any], *, mode: str = "all") -> _MultiHandle:
    """PyTorch's ``register_multi_grad_hook``: with ``mode="all"``, ``fn(grads)`` once per backward pass, when
    the gradients of all of ``tensors`` that the pass computes are known (``None`` for the others, in the
    order of ``tensors``); with ``mode="any"``, ``fn(grad)`` with the first of them the pass computes. Made of
    tensor hooks: the pass's in-degree map says which of the tensors' nodes will run (``engine.will_execute``)."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        ran: set[int] = set()

        def first(grad: Tensor) -> None:
            number = _pass_number()
            if number not in ran:
                ran.add(number)
                fn(grad)
        return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))
    nodes = [t.grad_fn if t.grad_fn is not None else accumulation_node_for(t._meta, t) if t.requires_grad else None
             for t in tensors]
    seen: dict[int, tuple[list[int], list[Any]]] = {}  # pass number -> (calls still expected, gradients)

    def one_of(index: int) -> Callable[[Tensor], None]:
        def hook(grad: Tensor) -> None:
            number = _pass_number()
            if number not in seen:
                expected = sum(1 for node in nodes if node is not None and _engine.will_execute(node))
                seen[number] = ([expected], [None] * len(tensors))
            left, grads = seen[number]
            grads[index] = grad
            left[0] -= 1
            if left[0] == 0:
                del seen[number]
                fn(tuple(grads))
        return hook
    return _MultiHandle(tuple(t.register_hook(one_of(i)) for i, t in enumerate(tensors) if t.requires_grad))
