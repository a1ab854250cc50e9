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

from typing import Callable

from ..tracing import bus
from ..tracing.events import HookRun

__all__ = ["register_final_backward_hook", "run_final_hooks"]

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
