"""Final-backward hooks (Paddle's ``FinalBackwardHooks``).

A final hook runs once, after every node of the next backward pass has run,
and is then cleared. Tensor hooks live on the tensor's grad node (non-leaf)
or on its AutogradMeta (leaf); see ``Tensor.register_hook``.

Example:
    >>> import minigrad as mg
    >>> seen = []
    >>> mg.autograd.register_final_backward_hook(lambda: seen.append("done"))
    >>> x = mg.tensor([1.0], requires_grad=True)
    >>> (x * 2).sum().backward()
    >>> seen
    ['done']
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from ..tensor import Tensor
from ..tracing import bus
from ..tracing.events import HookRun
from .grad_mode import GRAD_MODE
from .grad_node import RemovableHandle, _hook_ids

__all__ = ["register_hook", "register_post_accumulate_grad_hook", "retain_grad", "register_final_backward_hook",
           "run_final_hooks"]


def register_hook(tensor: Tensor, hook: Callable[[Tensor], "Tensor | None"]) -> RemovableHandle:
    """``tensor.register_hook(hook)``: run ``hook(grad) -> Tensor | None`` on the tensor's gradient.

    A leaf keeps its hooks in its AutogradMeta (the AccumulationNode runs
    them); a non-leaf's hooks live on its grad node, at the tensor's
    (slot, rank). Returns a handle with ``.remove()``.
    """
    if not callable(hook):
        raise TypeError(f"register_hook(): argument 'hook' must be callable, but got {type(hook).__name__}")
    meta = tensor._meta
    if meta is None:
        raise RuntimeError(
            "cannot register a hook on a tensor that does not require grad "
            "(create it with requires_grad=True, or hook a tensor computed from one)"
        )
    if meta.grad_node is None:
        if meta.hooks is None:
            meta.hooks = []
        hook_id = next(_hook_ids)
        meta.hooks.append((hook_id, hook))
        return RemovableHandle(meta.hooks, hook_id)
    return meta.grad_node.add_hook(meta.out_slot, meta.out_rank, hook, "tensor", tensor._id)


def register_post_accumulate_grad_hook(tensor: Tensor, hook: Callable[[Tensor], None]) -> RemovableHandle:
    """``tensor.register_post_accumulate_grad_hook(hook)``: run ``hook(tensor)`` on a leaf each time backward has
    accumulated its gradient into ``.grad`` (its AccumulationNode runs it, after the write; ``grad()``, which writes
    no ``.grad``, runs none). The hook must return None; it runs with grad mode off unless ``create_graph``.

    The leaf's AutogradMeta keeps the hook and a weak reference to the tensor (the meta never owns its tensor:
    NOTE [ No reference cycles between tensors and nodes ]). Returns a handle with ``.remove()``.
    """
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook(): argument 'hook' must be callable, but got "
                        f"{type(hook).__name__}")
    meta = tensor._meta
    if meta is None:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if meta.grad_node is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if meta.post_hooks is None:
        meta.post_hooks = []
    hook_id = next(_hook_ids)
    meta.post_hooks.append((hook_id, hook, weakref.ref(tensor)))
    return RemovableHandle(meta.post_hooks, hook_id)


def retain_grad(tensor: Tensor) -> None:
    """``tensor.retain_grad()``: keep a non-leaf's gradient in ``.grad`` (a hook on its grad node).

    The hook holds the meta weakly (NOTE [ No reference cycles between
    tensors and nodes ] in ``autograd_meta.py``).
    """
    meta = tensor._meta
    if meta is None:
        raise RuntimeError("can't retain_grad on a tensor that does not require grad")
    if meta.grad_node is None or meta.retain_grads:
        return
    meta.retain_grads = True
    meta_ref = weakref.ref(meta)

    def _retain(grad: Tensor) -> None:
        m = meta_ref()
        if m is None:
            return None
        if m.grad is None:
            m.grad = grad if GRAD_MODE.enabled else grad.detach_copy()
        elif GRAD_MODE.enabled:  # create_graph: the sum is part of the graph, as the gradient is
            m.grad = m.grad + grad
        else:  # a later backward adds to the kept gradient, as a leaf's .grad accumulates; as arrays,
            # so no op of its own shows in a recorded pass
            old = m.grad
            m.grad = Tensor._make(old._data + grad._data, old._dtype, old._device, old._layout)
        return None

    meta.grad_node.add_hook(meta.out_slot, meta.out_rank, _retain, "retain_grad", tensor._id)

_final_hooks: list[Callable[[], None]] = []


def register_final_backward_hook(fn: Callable[[], None]) -> None:
    """Run ``fn()`` at the end of the next backward pass."""
    if not callable(fn):
        raise TypeError(f"register_final_backward_hook(): argument 'fn' must be callable, but got {type(fn).__name__}")
    _final_hooks.append(fn)


def run_final_hooks() -> None:
    """Run and clear the registered final hooks (called by the engine)."""
    if not _final_hooks:
        return
    hooks = list(_final_hooks)
    _final_hooks.clear()
    rec = bus.recorder
    for fn in hooks:
        if rec is not None:
            rec.emit(HookRun(target=-1, hook_kind="final"))
        fn()
