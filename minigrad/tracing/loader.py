"""Loading a saved trace: ``minigrad.trace.load(path)``, with validation.

A trace file is JSON Lines whose first line is the schema header
``{"schema": "minigrad.trace", "version": 1}``. Any problem gives a
``TraceFormatError`` naming the file and the line.
"""

from __future__ import annotations

import json
import os

from .events import Event, event_from_dict
from .recorder import SCHEMA, VERSION, Recorder

__all__ = ["TraceFormatError", "load", "loads"]


class TraceFormatError(ValueError):
    """A trace file is empty, truncated, foreign or malformed (names the line)."""


def loads(text: str, source: str = "<string>") -> Recorder:
    """Parse trace text (see ``load``)."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise TraceFormatError(f"{source}: empty file, expected a minigrad trace (JSON Lines with a schema header)")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise TraceFormatError(f"{source} line 1: not JSON ({exc.msg}); is this a minigrad trace?") from None
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        raise TraceFormatError(
            f"{source} line 1: not a minigrad trace (expected header "
            f'{{"schema": "{SCHEMA}", "version": {VERSION}}})'
        )
    version = header.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise TraceFormatError(f"{source} line 1: trace version {version!r} is not supported (this minigrad reads up to {VERSION})")
    events: list[Event] = []
    last_seq = -1
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceFormatError(f"{source} line {lineno}: invalid JSON ({exc.msg}); the file may be truncated") from None
        if not isinstance(obj, dict):
            raise TraceFormatError(f"{source} line {lineno}: expected a JSON object, got {type(obj).__name__}")
        try:
            ev = event_from_dict(obj)
        except (KeyError, TypeError) as exc:
            msg = exc.args[0] if exc.args else str(exc)
            raise TraceFormatError(f"{source} line {lineno}: {msg}") from None
        if ev.seq <= last_seq:
            raise TraceFormatError(f"{source} line {lineno}: seq {ev.seq} does not increase (previous {last_seq})")
        last_seq = ev.seq
        events.append(ev)
    rec = Recorder(events=events)
    rec.header = header
    return rec


def load(path: str | os.PathLike[str]) -> Recorder:
    """Read and validate a trace saved by ``Recorder.save``.

    Returns:
        An inactive recorder holding the events (``.events``, ``.replay()``).

    Raises:
        TraceFormatError: the file is empty, truncated, foreign or malformed.
        FileNotFoundError: ``path`` does not exist.
    """
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return loads(text, source=os.fspath(path))
