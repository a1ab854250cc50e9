"""PyTorch's reproducibility switches: ``mg.use_deterministic_algorithms(True)`` and its readers.

On the CPU every minigrad kernel gives the same bits for the same inputs, run after run: NumPy adds in a fixed
order. On the GPU most kernels do too (each thread owns its output; reductions combine their partials in
index order), but the scatters - an index's gradient (``C[X]``'s, an embedding's), ``index_add``,
``scatter_add``, the backward of padding, resizing and grid sampling - add with CuPy's atomics, and two
writes to one element land in whichever order the threads reach it: a float sum may differ in its last bits
from one run to the next, and of two writes ``x[i] = v`` to one element either may stay. With the mode on,
those kernels apply their writes in order instead (NOTE [ A scatter in the order of its writes ] in
``kernels/gpu/ordered.py``), so a GPU run repeats bit for bit - and its sums are the CPU's.

As in PyTorch, the mode also fills the memory ``empty`` hands out (``empty``, ``empty_like``,
``empty_strided``, ``new_empty``, ``new_empty_strided``): NaN for floats, the largest value for integers, True
for bool - so a program that reads a value it never wrote sees it - unless
``mg.utils.deterministic.fill_uninitialized_memory`` is set False (minigrad's ``empty`` is zeros then).

Example:
    >>> import minigrad as mg
    >>> mg.use_deterministic_algorithms(True)
    >>> mg.are_deterministic_algorithms_enabled(), mg.get_deterministic_debug_mode()
    (True, 2)
    >>> mg.empty(2).tolist()
    [nan, nan]
    >>> mg.set_deterministic_debug_mode("default")
    >>> mg.are_deterministic_algorithms_enabled()
    False
"""

from __future__ import annotations

from typing import Any

from . import flags

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode"]

_MODES = ("default", "warn", "error")


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Whether kernels must give the same bits for the same inputs on every run (``torch.use_deterministic_algorithms``).
    ``warn_only`` is kept and read back, as PyTorch's: once the mode is on no minigrad kernel is left to warn about."""
    for name, v, where in (("mode", mode, " (position 1)"), ("warn_only", warn_only, "")):
        if not isinstance(v, bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{where} must be bool, "
                            f"not {type(v).__name__}")
    flags.deterministic_algorithms, flags.deterministic_warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return flags.deterministic_algorithms


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether the mode was set with ``warn_only=True``."""
    return flags.deterministic_warn_only


def set_deterministic_debug_mode(debug_mode: Any) -> None:
    """The mode as a level: ``"default"``/0 off, ``"warn"``/1 on with ``warn_only``, ``"error"``/2 on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        level = _MODES.index(debug_mode)
    elif isinstance(debug_mode, int):  # (True is 1, as in PyTorch)
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
        level = debug_mode
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(level > 0, warn_only=level == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (on, ``warn_only``) or 2 (on)."""
    if not flags.deterministic_algorithms:
        return 0
    return 1 if flags.deterministic_warn_only else 2
