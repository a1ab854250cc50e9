"""``minigrad.compile``: PyTorch's ``torch.compile``, which minigrad answers by running eagerly.

minigrad has no graph compiler: every op runs as it is called, so each step stays visible
to the recorder, the renderer and the TUI. ``compile(model)`` returns ``model`` itself (and
``@compile`` the function itself), saying so once per process, so a lecture script that
compiles its model runs unchanged.

Example:
    >>> import minigrad as mg
    >>> f = lambda x: x * 2
    >>> mg.compile(f) is f
    True
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

__all__ = ["compile", "reset", "is_compiling"]

_said = [False]


def compile(model: Any = None, *, fullgraph: bool = False, dynamic: Any = None, backend: Any = "inductor",
            mode: Any = None, options: Any = None, disable: bool = False) -> Any:
    """``model`` (a Module or a function) unchanged; with no ``model``, a decorator that returns its
    function unchanged. PyTorch's arguments are accepted and change nothing."""
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if not callable(model):
        raise RuntimeError(f"compile(): expected a Module or a function, but got {type(model).__name__}")
    if not _said[0] and not disable:
        _said[0] = True
        warnings.warn("minigrad.compile: minigrad runs eagerly (every op as it is called, so each step can be "
                      "recorded); the model is returned unchanged", UserWarning, stacklevel=2)
    return model


def reset() -> None:
    """``torch.compiler.reset()``: nothing is cached, so nothing to clear."""


def is_compiling() -> bool:
    """``torch.compiler.is_compiling()``: never, in minigrad."""
    return False
