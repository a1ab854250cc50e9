"""Grad mode: ``no_grad`` / ``enable_grad`` (Paddle's ``Controller::HasGrad``).

The dygraph layer records a grad node only when grad mode is on *and* some
input requires grad (``require_any_grad``, as Paddle's generated dygraph functions decide it).
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, TypeVar

from ..grad_state import GRAD_MODE

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled", "GRAD_MODE"]

F = TypeVar("F", bound=Callable[..., Any])


# The state itself lives below the tensor layer (``minigrad/grad_state.py``): a tensor made inside
# ``inference_mode()`` reads it to know it is an inference tensor.


def is_grad_enabled() -> bool:
    """Whether ops record grad nodes right now."""
    return GRAD_MODE.enabled


class set_grad_enabled:
    """Context manager (and decorator) that sets grad mode to ``mode``."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, but got {type(mode).__name__}")
        self.mode = mode
        # Per thread as well: one decorator object may be entered by several threads at once.
        self._prev = threading.local()
        # ``mg.set_grad_enabled(False)`` as a plain statement sets the mode at once, as PyTorch's does
        # (its subclasses ``no_grad``, ``enable_grad`` act only when entered); ``_before`` is the mode
        # it replaced, which leaving a ``with`` block restores.
        self._before: bool | None = None
        if type(self) is set_grad_enabled:
            self._before, GRAD_MODE.enabled = GRAD_MODE.enabled, mode

    def __enter__(self) -> None:
        stack = self._prev.__dict__.setdefault("stack", [])
        before, self._before = self._before, None
        stack.append(GRAD_MODE.enabled if before is None else before)
        GRAD_MODE.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        GRAD_MODE.enabled = self._prev.stack.pop()

    def __call__(self, fn: F) -> F:
        if self._before is not None:  # ``@mg.set_grad_enabled(False)`` decorates without changing the mode now
            GRAD_MODE.enabled, self._before = self._before, None

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(self.mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(set_grad_enabled):
    """Turn recording off: no grad node is created inside.

    Example:
        >>> import minigrad as mg
        >>> w = mg.ones(2, requires_grad=True)
        >>> with mg.no_grad():
        ...     y = w * 2
        >>> y.requires_grad, y.grad_fn
        (False, None)
        >>> @mg.no_grad          # a decorator, with or without parentheses
        ... def evaluate(t):
        ...     return t * 2
        >>> evaluate(w).requires_grad
        False
    """

    def __new__(cls, func: Any = None) -> Any:
        # ``@mg.no_grad`` without parentheses passes the function itself: return it wrapped
        # (an object that is not a no_grad instance, so ``__init__`` is not called again).
        self = super().__new__(cls)
        if func is not None:
            if not callable(func):
                raise TypeError(f"no_grad() takes no arguments, or a function to decorate; got {type(func).__name__}")
            self.__init__()
            return self(func)
        return self

    def __init__(self, func: Any = None) -> None:
        super().__init__(False)


class enable_grad(set_grad_enabled):
    """Turn recording back on (e.g. inside ``no_grad``)."""

    def __init__(self) -> None:
        super().__init__(True)


class inference_mode(set_grad_enabled):
    """PyTorch's ``inference_mode``: recording off, as ``no_grad`` (``mode=False`` leaves it as it is).

    Inside, ops create no grad nodes, and the tensors made are inference tensors (``Tensor.is_inference()``,
    as PyTorch's; minigrad does not refuse their later use in autograd, as PyTorch does). A context manager and
    a decorator, with or without parentheses.

    Example:
        >>> import minigrad as mg
        >>> w = mg.ones(2, requires_grad=True)
        >>> with mg.inference_mode():
        ...     y = w * 2
        >>> y.requires_grad
        False
    """

    def __new__(cls, mode: Any = True) -> Any:
        self = super().__new__(cls)
        if callable(mode):  # ``@mg.inference_mode`` without parentheses
            self.__init__()
            return self(mode)
        return self

    def __init__(self, mode: Any = True) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"inference_mode(): argument 'mode' must be bool, but got {type(mode).__name__}")
        self.inference = mode
        super().__init__(False)

    def __enter__(self) -> None:
        stack = getattr(self._prev, "inference", None)
        if stack is None:
            stack = self._prev.inference = []
        stack.append(GRAD_MODE.inference)
        GRAD_MODE.inference = self.inference
        if self.inference:
            super().__enter__()

    def __exit__(self, *exc: object) -> None:
        if self.inference:
            super().__exit__(*exc)
        GRAD_MODE.inference = self._prev.inference.pop()

    def __call__(self, fn: F) -> F:
        if self._before is not None:  # ``@mg.set_grad_enabled(False)`` decorates without changing the mode now
            GRAD_MODE.enabled, self._before = self._before, None

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(self.inference):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (and not inside an ``inference_mode(False)`` within it); ``no_grad``
    alone does not count, as in PyTorch."""
    return GRAD_MODE.inference
