"""The event bus: where the engine sends events, and the one flag it checks.

NOTE [ Emission costs one check ]
    Every emitting site in the engine reads ``bus.recorder`` and does nothing
    else when it is ``None``::

        rec = bus.recorder
        if rec is not None:
            rec.emit(QueuePush(node=..., front=..., queue=...))

    No event object, preview or string is built unless a recorder listens, so
    an untraced program pays one module-global lookup per site.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .recorder import Recorder

__all__ = ["recorder", "push", "pop"]

#: The active recorder, or ``None``. Read by the engine's hot paths.
recorder: "Recorder | None" = None

_stack: list["Recorder"] = []


def push(rec: "Recorder") -> None:
    """Make ``rec`` the active recorder (recorders nest; the innermost records)."""
    global recorder
    _stack.append(rec)
    recorder = rec


def pop(rec: "Recorder") -> None:
    """Deactivate ``rec`` and re-activate the recorder it replaced, if any."""
    global recorder
    if rec in _stack:
        _stack.remove(rec)
    recorder = _stack[-1] if _stack else None
