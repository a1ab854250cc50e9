"""The Device view's words, for the TUI's Device tab and the web page's Device pane alike.

Both viewers draw ``State.device`` of ``minigrad.trace.replay`` (the GPU work of each stretch of the
recording: the forward before a backward pass, the pass itself; ``minigrad/tracing/replay.py``) and
``device_lines`` (the same work by the user's source line); this module only words it, once:
``device_data(replay)`` is the page's JSON and the rows the TUI prints. Stretches are listed as a
whole, as the recording ends; a viewer marks the one holding the event on screen and leaves out the
ones that begin later. Why a copy or a sync slows a GPU loop: docs/tui.md, section "Device".

Example:
    >>> import minigrad as mg
    >>> with mg.trace() as tr:
    ...     (mg.tensor([1.0, 2.0], requires_grad=True) * 2).sum().backward()
    >>> device_data(mg.trace.replay(tr.events))["empty"]
    'no device events: this recording ran on the CPU'
"""

from __future__ import annotations

from typing import Any, Mapping

from minigrad.tracing.memory import format_bytes
from minigrad.tracing.replay import DeviceSpan, DeviceTally, Replay, device_lines
from minigrad.tracing.versions import code_at, short_source

__all__ = ["INTRO", "EMPTY", "MAX_LINES", "device_data", "span_label", "launches_text", "copies_text", "syncs_text"]

#: What a newcomer reads first, in either viewer.
INTRO = (
    "A launch queues a kernel on the GPU and returns at once. A copy moves data between the host and the "
    "GPU, and a sync makes Python wait until the GPU has finished its queue: a copy or a sync in every step "
    "of a loop keeps the GPU idle while Python catches up. Each is listed with the line that asked for it."
)

#: The line a recording without any GPU work shows instead of the tables.
EMPTY = "no device events: this recording ran on the CPU"

#: The most source lines the table keeps (the busiest first; a note says how many were left out).
MAX_LINES = 200


def span_label(span: DeviceSpan) -> str:
    """``forward before pass 0``, ``backward pass 0``, ``forward after pass 0``."""
    if span.phase == "backward":
        return f"backward pass {span.pass_no}"
    return "forward before pass 0" if span.pass_no == 0 else f"forward after pass {span.pass_no - 1}"


def copies_text(t: DeviceTally) -> str:
    """``1 copy host → GPU (48 B), 2 copies GPU → host (8 B)``, or ``no copy``."""
    parts = [f"{n} cop{'y' if n == 1 else 'ies'} {way} ({format_bytes(size)})"
             for n, way, size in ((t.h2d, "host → GPU", t.h2d_bytes), (t.d2h, "GPU → host", t.d2h_bytes)) if n]
    return ", ".join(parts) or "no copy"


def syncs_text(t: DeviceTally) -> str:
    """``3 syncs: item ×2, host copy ×1``, or ``no sync``."""
    n = t.sync_count
    if not n:
        return "no sync"
    reasons = ", ".join(f"{reason} ×{k}" for reason, k in sorted(t.syncs.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{n} sync{'' if n == 1 else 's'}: {reasons}"


def launches_text(t: DeviceTally) -> str:
    return f"{t.launches} launch{'' if t.launches == 1 else 'es'}"


def _tally(t: DeviceTally) -> dict[str, Any]:
    return {"launches": t.launches, "copies": t.copies, "syncs": t.sync_count, "launches_text": launches_text(t),
            "copies_text": copies_text(t), "syncs_text": syncs_text(t)}


def _line_row(source: str | None, t: DeviceTally, stretches: int | None = None) -> dict[str, Any]:
    row = {"source": short_source(source) or "(no line)", "code": code_at(source) if source else
           "ops under no_grad (an optimizer step) make no grad node to carry a line", **_tally(t)}
    if stretches is not None:
        row["stretches"] = stretches
        row["stretches_text"] = (f"waited in {stretches} stretch{'' if stretches == 1 else 'es'}"
                                 if stretches else "never waited")
    return row


def _busiest(lines: Mapping[str | None, DeviceTally],
             waits: Mapping[str | None, int] | None = None) -> list[tuple[str | None, DeviceTally]]:
    """The lines that made the host wait in the most stretches first (a line in the loop's body waits
    once a step), then by syncs, copies and launches: what slows a loop most comes first."""
    waits = waits or {}
    return sorted(lines.items(), key=lambda kv: (-waits.get(kv[0], 0), -kv[1].sync_count, -kv[1].copies,
                                                 -kv[1].launches, str(kv[0])))


def device_data(rp: Replay, notes: list[str] | None = None) -> dict[str, Any]:
    """The Device view of the whole recording: ``spans`` (one row per stretch, with ``begin``/``end``
    events and its own busiest lines), ``lines`` (all stretches by source line), ``total``, and
    ``empty`` (``EMPTY`` when nothing ran on the GPU, else None)."""
    spans = rp.final.device
    total = sum((s.tally for s in spans), DeviceTally())
    rows = [{"label": span_label(s), "phase": s.phase, "pass": s.pass_no, "begin": s.begin, "end": s.end,
             **_tally(s.tally),
             "lines": [_line_row(src, t) for src, t in _busiest(s.lines) if t.sync_count or t.copies][:8]}
            for s in spans]
    waits: dict[str | None, int] = {}  # source -> the stretches in which it copied or synced
    for s in spans:
        for src, t in s.lines.items():
            if t.sync_count or t.copies:
                waits[src] = waits.get(src, 0) + 1
    lines = _busiest(device_lines(spans), waits)
    if len(lines) > MAX_LINES and notes is not None:
        notes.append(f"The Device tab lists the {MAX_LINES} busiest of {len(lines)} source lines.")
    return {"intro": INTRO, "empty": None if not total.empty else EMPTY, "total": _tally(total),
            "spans": rows, "lines": [_line_row(src, t, waits.get(src, 0)) for src, t in lines[:MAX_LINES]]}
