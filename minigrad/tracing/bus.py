"""The event bus: where the engine sends events, and the one flag it checks.

NOTE [ Emission costs one check ]
    Every emitting site in the engine reads ``bus.recorder`` and does nothing
    else when it is ``None``::

        rec = bus.recorder
        if rec is not None:
            rec.emit(QueuePush(node=..., front=..., queue=...))

    No event object, preview or string is built unless a recorder listens, so
    an untraced program pays one attribute read per site.

NOTE [ The active recorder is per thread ]
    ``with mg.trace() as tr:`` records what *its own thread* does (docs/architecture.md, bad input),
    as grad mode and autocast are per thread: two threads may each record
    their own trace, and a thread that records nothing never writes into
    another's. Every emitting site keeps reading ``bus.recorder``:

    * while no thread records, this is a plain module and ``recorder`` a
      global holding ``None`` (the untraced hot path costs what it always did);
    * while any thread records, this module's class is switched to one whose
      ``recorder`` property reads the calling thread's ``threading.local``
      state, and switched back when the last recorder stops.
"""

from __future__ import annotations

import sys
import threading
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .recorder import Recorder

__all__ = ["recorder", "push", "pop", "steps_traced"]

#: ``None`` while no thread records (see NOTE above); read through the property otherwise.
recorder: "Recorder | None" = None


class _ThreadState(threading.local):
    """The calling thread's active recorder and the recorders it replaced (innermost last)."""

    def __init__(self) -> None:
        self.recorder: "Recorder | None" = None
        self.stack: list["Recorder"] = []


_state = _ThreadState()
_lock = threading.Lock()
_active = 0  # recorders active in all threads together


class _RecordingBus(types.ModuleType):
    """This module while some thread records: ``recorder`` is the calling thread's."""

    @property
    def recorder(self) -> "Recorder | None":
        return _state.recorder

    @property
    def _stack(self) -> list["Recorder"]:
        """The calling thread's active recorders (innermost last)."""
        return _state.stack


#: While no thread records, every thread's stack is empty (read by test clean-ups as ``bus._stack``).
_stack: list["Recorder"] = []

# Idle, the module stays a plain ``ModuleType``: CPython specialises attribute reads on
# exact modules, so ``bus.recorder`` costs what a global read costs.
_module = sys.modules[__name__]


def push(rec: "Recorder") -> None:
    """Make ``rec`` the calling thread's active recorder (recorders nest; the innermost records)."""
    global _active
    with _lock:
        _state.stack.append(rec)
        _state.recorder = rec
        _active += 1
        _module.__class__ = _RecordingBus


def pop(rec: "Recorder") -> None:
    """Deactivate ``rec`` and re-activate the recorder it replaced in this thread, if any."""
    global _active
    with _lock:
        stack = _state.stack
        if rec not in stack:
            return
        stack.remove(rec)
        _state.recorder = stack[-1] if stack else None
        _active -= 1
        if _active == 0:
            _module.__class__ = types.ModuleType


def steps_traced() -> bool:
    """Whether the calling thread's recorder wants the fused and array-level fast paths run as ops, so
    each of their steps has its events (a trace does; a profile times them as they run unrecorded)."""
    rec = _module.recorder
    return rec is not None and rec.steps_as_ops
