"""The recorder: ``with mg.trace(values=True, max_elements=64) as tr:``.

A recorder collects events while it is active, stamps each with ``seq`` and
``ts_ns``, and saves them as JSON Lines with a schema header::

    {"schema": "minigrad.trace", "version": 2}
    {"seq": 0, "ts_ns": 812, "kind": "tensor.create", ...}

Example:
    >>> import minigrad as mg
    >>> with mg.trace() as tr:
    ...     y = (mg.tensor([1.0, 2.0], requires_grad=True) * 3).sum()
    ...     y.backward()
    >>> "queue.push" in {e.kind for e in tr.events}
    True
"""

from __future__ import annotations

import atexit
import json
import os
import time
from typing import Any, Callable, Iterable

from . import bus
from .events import ErrorEvent, Event, NodeCreate, TensorVersion
from .preview import _DTYPE_NAMES, preview_array
from .provenance import module_path, user_source
from .replay import replay

__all__ = ["Recorder", "SCHEMA", "VERSION", "start_env_recording"]

SCHEMA = "minigrad.trace"
#: 2: nodes carry PyTorch's names (``MulBackward0#3``, ``AccumulateGrad#2``); version 1 files carry
#: Paddle's (``MulBackward0#3``) and are renamed as they load (``node_names.renamed_v1``).
VERSION = 2

_now = time.perf_counter_ns
_MAX_SUMMARIES = 1024


class Recorder:
    """Collects events; a context manager that activates itself on the bus.

    Args:
        values: record value previews of small tensors (else shape/dtype only).
        max_elements: tensors with more elements are summarised.
        events: pre-existing events (used by ``minigrad.trace.load``).

    Attributes:
        events: the recorded events, in ``seq`` order.
        listeners: callables invoked with each event as it is emitted.
        provenance: stamp each ``node.create`` with ``source`` and ``module`` (True; ``viz/live.py`` turns it
            off for a graph announced after it was built).
    """

    __slots__ = ("_log", "_clean", "values", "max_elements", "listeners", "announced", "_seq", "_t0", "header",
                 "_summaries", "provenance", "token")

    #: Whether this recorder keeps timed ranges (``tracing/profiling.py``): the op layer and the
    #: optimizers tell such a recorder where their ranges begin and end.
    ranges = False
    #: Whether the fused and array-level fast paths run as ops while this recorder records, so each
    #: of their steps has its events (a profile says no: NOTE [ A profile times what runs unrecorded ]).
    steps_as_ops = True

    def __init__(
        self,
        values: bool = True,
        max_elements: int = 64,
        events: Iterable[Event] | None = None,
    ) -> None:
        if not isinstance(values, bool):
            raise TypeError(f"trace(): argument 'values' must be bool, but got {type(values).__name__}")
        if not isinstance(max_elements, int) or isinstance(max_elements, bool) or max_elements < 0:
            raise TypeError(
                f"trace(): argument 'max_elements' must be a non-negative int, but got {max_elements!r}"
            )
        #: The events, and records of copies not yet made (NOTE [ Copies are made when read ]).
        self._log: list[Any] = list(events) if events is not None else []
        #: ``_log[:_clean]`` holds events only.
        self._clean = len(self._log)
        self.values = values
        self.max_elements = max_elements
        self.listeners: list[Callable[[Event], None]] = []
        #: Ids of the tensors announced with ``tensor.create`` in this recording.
        self.announced: set[int] = set()
        self._seq = len(self._log)
        self._t0 = time.perf_counter_ns()
        #: Which recording this is: what an AccumulationNode remembers it was announced to, without keeping
        #: the recorder alive (a later recorder may reuse this one's ``id``, never its start time too).
        self.token = (id(self), self._t0)
        self.header: dict[str, Any] = {"schema": SCHEMA, "version": VERSION}
        #: Stamp ``node.create`` with where the node was made (off for a graph announced after the fact).
        self.provenance = True
        self._summaries: dict[tuple[Any, Any], dict[str, Any]] = {}

    # -- recording ---------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Stamp ``event`` with its sequence number and time, store it, notify listeners."""
        cls = type(event)
        if cls is NodeCreate and event.source is None and self.provenance:
            # NOTE [ Provenance ] stamped here, once, for every node the engine announces.
            event.source = user_source()
            event.module = module_path()
        elif (cls is TensorVersion or cls is ErrorEvent) and event.source is None and self.provenance:
            event.source = user_source()  # the line that changed the tensor in place (the version view shows it)
        event.seq = self._seq
        self._seq += 1
        event.ts_ns = _now() - self._t0
        self._log.append(event)
        if self.listeners:
            for listener in self.listeners:
                listener(event)

    def record_error(self, exc: BaseException, node: int | None = None, op: str | None = None) -> None:
        """Emit ``error`` for ``exc`` on its way to the user's code, unless it (or the exception it was
        raised from) was recorded already: NOTE [ One error event per failure ]."""
        if _recorded(exc):
            return
        # What the layers the exception came through noted on it (or on the exception it was raised from).
        node = node if node is not None else _noted(exc, "_minigrad_node")
        op = op if op is not None else _noted(exc, "_minigrad_op")
        self.emit(ErrorEvent.new(error=type(exc).__name__, message=str(exc), source=None, node=node, op=op))
        try:
            exc._minigrad_recorded = True  # type: ignore[attr-defined]
        except AttributeError:  # an exception class with __slots__ and no __dict__
            pass

    # NOTE [ One error event per failure ]
    #     An exception that escapes an op call (``dispatch/dygraph.py``) or a backward pass
    #     (``autograd/engine.py``) while recording becomes one ``error`` event, emitted by the
    #     innermost of those that sees it, which knows most (the node running, the op called).
    #     The exception is marked; an enclosing pass or call that re-raises it, or raises a new
    #     exception *from* it (``raise ... from``: the engine names the failing node that way), finds the mark on the
    #     chain of causes and emits nothing, so the recording holds one error per failure.

    def meet_graph(self, roots: list[Any]) -> None:
        """A backward pass starts from the grad nodes ``roots`` (a trace learns its nodes from ``node.create``)."""

    def emit_copies(self, templates: tuple[Event, ...]) -> None:
        """Emit a fresh copy of each of ``templates``, in order (NOTE [ Kinds of call ]
        in ``kernels/api.py``): the same as ``emit(type(t).new(...same fields...))`` for each, except
        that copies emitted together carry one time (``ts_ns`` never decreases along a trace)."""
        if self.listeners:  # each listener sees each event as it is stored
            for template in templates:
                self.emit(template.clone(template))  # type: ignore[attr-defined]
            return
        self._log.append((templates, self._seq, _now() - self._t0))
        self._seq += len(templates)

    # NOTE [ Copies are made when read ]
    #     A recorded op call of a known kind emits its kernel-layer events up to
    #     ``kernel.select`` as copies of cached templates (``emit_copies``). With no
    #     listener to see them as they happen, the recorder stores one record for
    #     them - the templates, the first ``seq``, the time - and makes the copies when ``events`` is next read:
    #     the same events, fields and stamps as copying at once, for a tenth of the
    #     cost while recording. Reading ``events`` makes the copies of the records
    #     stored since the last read, in place, so the list keeps its identity.
    @property
    def events(self) -> list[Event]:
        """The recorded events, in ``seq`` order."""
        log = self._log
        if self._clean < len(log):
            tail = log[self._clean:]
            del log[self._clean:]
            append = log.append
            for item in tail:
                if type(item) is not tuple:
                    append(item)
                else:  # emit_copies
                    templates, seq, ts_ns = item
                    for template in templates:
                        append(template.copy_at(template, seq, ts_ns))  # type: ignore[attr-defined]
                        seq += 1
            self._clean = len(log)
        return log

    def preview(self, array: Any) -> Any:
        """The value preview of ``array`` under this recorder's settings."""
        if not self.values and array is not None:
            # A summary, whatever the size (``preview_array``'s first case, without its checks),
            # one per (shape, dtype): NOTE [ Summaries are shared ].
            key = (array.shape, array.dtype)
            summary = self._summaries.get(key)
            if summary is None:
                summary = self._new_summary(key)
            return summary
        return preview_array(array, self.values, self.max_elements)

    # NOTE [ Summaries are shared ]
    #     With ``values=False`` every preview is ``{"shape": [...], "dtype": ...}``, and
    #     a recording shows the same few shapes again and again: each (shape, dtype)
    #     gets one summary, which every event showing such a tensor holds. Events are
    #     treated as immutable, so this is the same as a fresh dict per event, minus
    #     two allocations the garbage collector would track.
    def _new_summary(self, key: tuple[Any, Any]) -> dict[str, Any]:
        shape, dt = key
        dtype = _DTYPE_NAMES.get(dt)
        if dtype is None:
            dtype = _DTYPE_NAMES[dt] = str(dt)
        if len(self._summaries) >= _MAX_SUMMARIES:
            self._summaries.clear()
        summary = self._summaries[key] = {"shape": list(shape), "dtype": dtype}
        return summary

    def start(self) -> "Recorder":
        """Activate (same as entering the ``with`` block)."""
        bus.push(self)
        return self

    def stop(self) -> None:
        """Deactivate (same as leaving the ``with`` block)."""
        bus.pop(self)

    def __enter__(self) -> "Recorder":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- output ------------------------------------------------------------

    def to_jsonl(self) -> str:
        """The trace as JSON Lines text, schema header first."""
        lines = [json.dumps(self.header)]
        lines.extend(json.dumps(ev.to_dict(), separators=(",", ":")) for ev in self.events)
        return "\n".join(lines) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the trace to ``path`` as JSON Lines (see the module docstring)."""
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.to_jsonl())

    def replay(self):
        """Fold the events into states (``minigrad.trace.replay(self.events)``)."""
        return replay(self.events)

    def kinds(self) -> list[str]:
        """The kinds of the recorded events, in order (handy in tests)."""
        return [ev.kind for ev in self.events]

    def of_kind(self, *kinds: str) -> list[Event]:
        """The events whose kind is one of ``kinds`` (a trailing ``*`` matches a prefix)."""
        exact = {k for k in kinds if not k.endswith("*")}
        prefixes = tuple(k[:-1] for k in kinds if k.endswith("*"))
        return [ev for ev in self.events if ev.kind in exact or (prefixes and ev.kind.startswith(prefixes))]

    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        return f"<minigrad trace: {len(self.events)} events, values={self.values}>"


def _recorded(exc: BaseException | None) -> bool:
    """Whether ``exc``, or an exception it was raised from (``raise ... from``), was recorded. Not one it
    was raised while handling: a second failure in an ``except`` block is a failure of its own."""
    for _ in range(16):  # chains are short; a bound keeps a cyclic one from looping
        if exc is None:
            return False
        if getattr(exc, "_minigrad_recorded", False):
            return True
        exc = exc.__cause__
    return False


def _noted(exc: BaseException | None, attr: str) -> Any:
    """The first ``attr`` noted on ``exc`` or along its chain of causes (None if none)."""
    for _ in range(16):
        if exc is None:
            return None
        value = getattr(exc, attr, None)
        if value is not None:
            return value
        exc = exc.__cause__
    return None


def start_env_recording(path: str) -> Recorder:
    """Record the whole program to ``path`` (``MINIGRAD_TRACE=path``), writing each event as it happens.

    The header goes out first and every event follows as one line, flushed at
    the end of each backward pass and at exit, so another process can follow
    the file while the program runs (``minigrad-tui --follow path``). The
    finished file is the same as ``rec.save(path)`` would write.
    """
    rec = Recorder()
    try:
        fh = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed at exit
    except OSError as exc:  # pragma: no cover - reported, not raised
        print(f"minigrad: could not write trace to {path}: {exc}")
        rec.start()
        return rec
    fh.write(json.dumps(rec.header) + "\n")
    fh.flush()

    def write(ev: Event) -> None:
        fh.write(json.dumps(ev.to_dict(), separators=(",", ":")) + "\n")
        if ev.kind == "backward.end":
            fh.flush()

    def close() -> None:
        try:
            fh.close()
        except OSError as exc:  # pragma: no cover - reported, not raised, at exit
            print(f"minigrad: could not save trace to {path}: {exc}")

    rec.listeners.append(write)
    rec.start()
    atexit.register(close)
    return rec
