"""``allow_mutation_on_saved_tensors``: change a tensor saved for backward in place, and backward still sees
the values it saved (PyTorch's ``torch.autograd.graph.allow_mutation_on_saved_tensors``).

Without it, ``out = (b ** 2).sum(); b.sin_(); out.backward()`` is refused: ``PowBackward0`` saved ``b`` at
version 0 and finds it at version 1 (the version check, NOTE [ Saved-tensor hooks ] in
``tensor_wrapper.py``). Inside the context two pieces cooperate, as PyTorch's two do:

1. a pair of saved-tensor hooks: each save is packed as a handle that remembers the tensor (and, through
   it, its storage); backward unpacks the handle to the tensor, or to its clone if one was made;
2. a watcher every in-place write calls before it writes (``tensor_wrapper.BEFORE_INPLACE_WRITE``,
   called by ``dispatch/dygraph.py``'s ``_write_back``): it clones every saved tensor that shares the
   written storage and has not been cloned yet, so the clone holds the values backward needs.

A tensor is copied only when a write would change it: a graph nothing writes into costs a handle per save.

Example:
    >>> import minigrad as mg
    >>> with mg.autograd.graph.allow_mutation_on_saved_tensors():
    ...     a = mg.ones(2, 3, requires_grad=True)
    ...     b = a.clone()
    ...     out = (b ** 2).sum()
    ...     _ = b.sin_()
    ...     out.backward()
    >>> a.grad[0].tolist()           # 2 b, with b's values before sin_
    [2.0, 2.0, 2.0]
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Iterator

from ..tensor import Tensor, storage_array
from .grad_mode import no_grad
from .tensor_wrapper import BEFORE_INPLACE_WRITE, SAVED_TENSORS_HOOKS

__all__ = ["allow_mutation_on_saved_tensors"]

# PyTorch's words (its two string pieces are joined without a space)
_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
            "in which the graph was originally recorded.")
_ENABLED = [False]


class _Handle:
    """What a node keeps for one saved tensor inside the context."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """The context's state (what ``allow_mutation_on_saved_tensors`` yields, as PyTorch's): per handle the
    saved tensor (``original``) or, once its storage was written, its clone (``cloned``); the handles
    by storage. Cleared when the context exits."""

    def __init__(self) -> None:
        self.original: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.cloned: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        #: id of a storage's array -> the handles saved from it (weakly: a freed node lets its handle go)
        self.by_storage: dict[int, weakref.WeakSet[_Handle]] = {}

    def clear(self) -> None:
        self.original.clear()
        self.cloned.clear()
        self.by_storage.clear()

    def pack(self, tensor: Tensor) -> _Handle:
        handle = _Handle()
        self.original[handle] = tensor
        self.by_storage.setdefault(id(storage_array(tensor)), weakref.WeakSet()).add(handle)
        return handle

    def unpack(self, handle: _Handle) -> Tensor:
        if not _ENABLED[0]:
            raise AssertionError(_OUTSIDE)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(_OUTSIDE)
        return self.original[handle]

    def before_write(self, tensor: Tensor) -> None:
        """``tensor``'s storage is about to change: clone what was saved from it and not cloned yet."""
        handles = self.by_storage.get(id(storage_array(tensor)))
        if not handles:
            return
        with no_grad():
            for handle in list(handles):
                if handle in self.original:
                    self.cloned[handle] = self.original.pop(handle).clone()
                    handles.discard(handle)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Context manager under which mutating tensors saved for backward is allowed: a saved tensor is cloned
    just before an in-place op changes it, and backward reads the clone. Run the forward and the backward
    inside the same context (a backward after it exits is refused). The contexts do not nest.

    Returns:
        The context's state (``_AllowMutationOnSavedContext``), cleared on exit.
    """
    if _ENABLED[0]:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    SAVED_TENSORS_HOOKS.append((ctx.pack, ctx.unpack))
    BEFORE_INPLACE_WRITE.append(ctx.before_write)
    _ENABLED[0] = True
    try:
        yield ctx
    finally:
        _ENABLED[0] = False
        BEFORE_INPLACE_WRITE.remove(ctx.before_write)
        SAVED_TENSORS_HOOKS.remove((ctx.pack, ctx.unpack))
        ctx.clear()
