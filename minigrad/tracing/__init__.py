"""Tracing: event types, the event bus, the recorder, the loader and replay (docs/architecture.md, Events).

The user-facing entry point is ``minigrad.trace``, a callable that also
carries ``load``, ``replay`` and ``diff``::

    with mg.trace(values=True, max_elements=64) as tr:
        ...
    tr.save("run.jsonl")
    states = mg.trace.replay(mg.trace.load("run.jsonl"))
    print(mg.trace.diff("mine.jsonl", "reference.jsonl").report())
"""

from __future__ import annotations

from typing import Any

from . import bus, events
from .diff import TraceDiff, diff
from .events import EVENT_TYPES, Event
from .loader import TraceFormatError, load, loads
from .memory import memory
from .recorder import Recorder
from .replay import Replay, State, replay

__all__ = ["trace", "Recorder", "Event", "EVENT_TYPES", "TraceFormatError", "Replay", "State", "TraceDiff", "bus", "events"]


class _TraceAPI:
    """``mg.trace``: call it to record; ``mg.trace.load`` and ``mg.trace.replay`` read back;
    ``mg.trace.diff`` compares two recordings; ``mg.trace.memory`` counts the bytes alive.

    Example:
        >>> import minigrad as mg
        >>> with mg.trace(values=False) as tr:
        ...     _ = mg.ones(2) + 1
        >>> tr.events[0].kind
        'tensor.create'
    """

    load = staticmethod(load)
    loads = staticmethod(loads)
    replay = staticmethod(replay)
    diff = staticmethod(diff)
    memory = staticmethod(memory)
    Recorder = Recorder
    TraceFormatError = TraceFormatError

    #: the matrix trace op, for ``mg.trace(A)`` (set by ``minigrad/__init__.py``: ops sit above tracing)
    matrix_trace: Any = None

    def __call__(self, values: Any = True, max_elements: int = 64) -> Any:
        """A recorder; or, given a tensor, ``torch.trace``: the sum of a matrix's diagonal (``TraceBackward0``)."""
        if hasattr(values, "_dtype"):
            return self.matrix_trace(values)
        return Recorder(values=values, max_elements=max_elements)

    @property
    def active(self) -> Recorder | None:
        """The recorder currently listening, if any."""
        return bus.recorder

    def __repr__(self) -> str:
        return "<minigrad.trace: call to record; .load(path), .replay(events), .diff(a, b)>"


trace = _TraceAPI()
