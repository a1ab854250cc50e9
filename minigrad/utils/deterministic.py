"""``mg.utils.deterministic.fill_uninitialized_memory``, PyTorch's switch: whether, under
``mg.use_deterministic_algorithms(True)``, ``empty`` and its relatives fill their memory (NaN for floats, the
largest value for integers; ``minigrad/determinism.py``). True by default, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> mg.utils.deterministic.fill_uninitialized_memory
    True
"""

from __future__ import annotations

import sys
import types

from .. import flags


class _Deterministic(types.ModuleType):
    """The module, with ``fill_uninitialized_memory`` a property over ``minigrad.flags`` (PyTorch's module is one)."""

    @property
    def fill_uninitialized_memory(self) -> bool:
        return flags.fill_uninitialized_memory

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        flags.fill_uninitialized_memory = mode


__all__ = ["fill_uninitialized_memory"]

sys.modules[__name__].__class__ = _Deterministic
