"""Loading a saved trace: ``minigrad.trace.load(path)``, the one validating reader (docs/architecture.md, Events, Validation).

A trace file is JSON Lines whose first line is the schema header
``{"schema": "minigrad.trace", "version": 2}``. Every consumer (replay, the
renderer, the TUI, ``minigrad log``/``render``/``export-chrome``) reads
traces through this module, so whatever it returns is safe to fold and draw.
Any problem gives one ``TraceFormatError`` naming the file, the line and the
field; nothing else escapes for a bad file.

NOTE [ A hostile file cannot hang or crash the reader ]
    * Lines are read as bytes with a length cap (``MAX_LINE_BYTES``), so a
      file with no newline (``/dev/zero``, a core dump) stops at the first
      over-long line instead of filling memory.
    * A file that is not a regular file (a pipe, a device, a FIFO) is read
      at most ``MAX_STREAM_BYTES`` in all.
    * Each line is decoded as UTF-8 on its own, so a binary file fails with
      the line and byte that are not text.
    * Nesting is measured before ``json.loads`` sees the line: 200 000 ``[``
      would otherwise exhaust Python's recursion limit inside the parser.
    * Every field is type-checked against the event classes (``schema.py``),
      integers must fit in 64 bits, and ``NaN``/``Infinity`` are accepted as
      values (non-finite gradients are legitimate data).

Example:
    >>> rec = loads('{"schema": "minigrad.trace", "version": 1}\\n'
    ...             '{"seq": 0, "ts_ns": 1, "kind": "queue.pop", "node": 2, "queue": []}')
    >>> rec.events[0].kind
    'queue.pop'
    >>> loads('{"schema": "minigrad.trace", "version": true}')
    Traceback (most recent call last):
    ...
    minigrad.tracing.loader.TraceFormatError: <string> line 1: field 'version': expected a positive integer, got bool true
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any, Callable, Iterable, Iterator

from .events import Event, event_from_dict
from .node_names import renamed_v1
from .recorder import SCHEMA, VERSION, Recorder
from .schema import SchemaError, check_event

__all__ = ["TraceFormatError", "load", "loads", "parse_event_line", "MAX_LINE_BYTES", "MAX_STREAM_BYTES", "MAX_DEPTH"]

#: Longest line accepted. A recorded line holds one event; with the default
#: ``max_elements=64`` lines are well under 10 KiB.
MAX_LINE_BYTES = 16 * 2**20
#: Most bytes read from something that is not a regular file (pipe, device).
MAX_STREAM_BYTES = 1024 * 2**20
#: Deepest JSON nesting accepted (a 64-dimensional preview inside ``node.run`` is ~68).
MAX_DEPTH = 100


class TraceFormatError(ValueError):
    """A trace file is empty, truncated, foreign or malformed.

    The message starts with ``<file> line <n>:`` and names the field.

    Attributes:
        source: the file name (or ``<string>``).
        line: the 1-based line number, or ``None`` for whole-file problems.
    """

    def __init__(self, message: str, source: str = "<string>", line: int | None = None) -> None:
        super().__init__(message)
        self.source = source
        self.line = line


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n} bytes"


def _error(source: str, line: int | None, problem: str) -> TraceFormatError:
    where = f"{source} line {line}" if line is not None else source
    return TraceFormatError(f"{where}: {problem}", source, line)


_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(text: str) -> int:
    """Deepest bracket nesting of a JSON text, ignoring brackets inside strings."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif c in "]}":
            depth -= 1
    return deepest


def _parse_line(text: str, source: str, lineno: int | None, hint: str = "") -> Any:
    # Fast path: a line with few brackets cannot nest deeply (count() runs in C).
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise _error(source, lineno, f"JSON nested more than {MAX_DEPTH} levels deep{hint or '; not a minigrad trace line'}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        what = "not JSON" if hint else "invalid JSON"
        raise _error(source, lineno, f"{what} ({exc.msg} at column {exc.colno}){hint or '; the file may be truncated'}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4 300 digits
        raise _error(source, lineno, f"invalid JSON ({exc}){hint}") from None


def _check_header(header: Any, source: str) -> dict[str, Any]:
    expected = f'expected the header {{"schema": "{SCHEMA}", "version": {VERSION}}}'
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        raise _error(source, 1, f"not a minigrad trace ({expected})")
    version = header.get("version")
    if type(version) is not int or version < 1:  # noqa: E721 - true/false are not versions
        shown = f"bool {str(version).lower()}" if isinstance(version, bool) else repr(version)
        if len(shown) > 24:
            shown = shown[:21] + "..."
        raise _error(source, 1, f"field 'version': expected a positive integer, got {shown}")
    if version > VERSION:
        raise _error(source, 1, f"trace version {version} is not supported: this minigrad reads versions up to {VERSION}; upgrade minigrad")
    return header


def parse_event_line(text: str, source: str = "<string>", line: int | None = None) -> Event:
    """One validated event from one line of a trace (for tools that read a trace as it grows).

    Applies the same checks as ``load`` to a single event line: length,
    nesting depth, JSON, header and field types.

    Raises:
        TraceFormatError: naming ``source``, ``line`` and the field.
    """
    if len(text) > MAX_LINE_BYTES:
        raise _error(source, line, f"line longer than {_size(MAX_LINE_BYTES)}; not a minigrad trace line")
    obj = _parse_line(text, source, line)
    if not isinstance(obj, dict):
        raise _error(source, line, f"expected a JSON object (one event), got {type(obj).__name__}")
    try:
        check_event(obj)
        return event_from_dict(obj)
    except SchemaError as exc:
        kind = obj.get("kind")
        message = str(exc)
        if isinstance(kind, str) and len(kind) <= 40 and "for kind" not in message:
            message += f" (in a '{kind}' event)"
        raise _error(source, line, message) from None


def _parse(lines: Iterable[tuple[int, str]], source: str) -> Recorder:
    """Validate numbered text lines (header first) into an inactive recorder."""
    it: Iterator[tuple[int, str]] = iter(lines)
    header_line = next(it, None)
    if header_line is None or not header_line[1].strip():
        raise _error(source, None, "empty file, expected a minigrad trace (JSON Lines with a schema header)")
    header = _check_header(_parse_line(header_line[1], source, 1, "; is this a minigrad trace?"), source)
    events: list[Event] = []
    last_seq = -1
    for lineno, text in it:
        if not text.strip():
            continue
        ev = parse_event_line(text, source, lineno)
        if ev.seq <= last_seq:
            raise _error(source, lineno, f"seq {ev.seq} does not increase (previous {last_seq})")
        last_seq = ev.seq
        events.append(ev)
    if header["version"] < 2:
        for ev in events:
            if ev.kind == "node.create":
                ev.name = renamed_v1(ev.op, ev.name, ev.attrs)
    rec = Recorder(events=events)
    rec.header = header
    return rec


def loads(text: str, source: str = "<string>") -> Recorder:
    """Parse and validate trace text (see ``load``)."""
    if not isinstance(text, str):
        raise TypeError(f"loads(): argument 'text' must be str, but got {type(text).__name__}")
    lines = text.split("\n")
    for lineno, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_BYTES:
            raise _error(source, lineno, f"line longer than {_size(MAX_LINE_BYTES)}; not a minigrad trace line")
    return _parse(enumerate(lines, start=1), source)


def _read_lines(fh: Any, source: str, stream_limit: int | None) -> Iterator[tuple[int, str]]:
    """Numbered, decoded lines of a binary file, each at most ``MAX_LINE_BYTES``."""
    total = 0
    lineno = 0
    while True:
        raw = fh.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        lineno += 1
        total += len(raw)
        if len(raw) > MAX_LINE_BYTES:
            raise _error(source, lineno, f"line longer than {_size(MAX_LINE_BYTES)}; is this a minigrad trace?")
        if stream_limit is not None and total > stream_limit:
            raise _error(source, lineno, f"stopped after reading {_size(stream_limit)} from a stream (not a regular file)")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _error(source, lineno, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                                         "not a minigrad trace (JSON Lines text)") from None
        if "\x00" in text:
            raise _error(source, lineno, "contains NUL bytes; not a minigrad trace (JSON Lines text)")
        yield lineno, text


def load(path: str | os.PathLike[str], *, on_line: Callable[[int], None] | None = None) -> Recorder:
    """Read and validate a trace saved by ``Recorder.save``.

    Args:
        path: the ``.jsonl`` file.
        on_line: called with each line's length once it is read (the CLI's progress: its total is the
            file's size).

    Returns:
        An inactive recorder holding the events (``.events``, ``.replay()``).

    Raises:
        TraceFormatError: the file is empty, truncated, foreign, binary, too
            deep or too long, or an event's header or field is malformed
            (the message names file, line and field).
        FileNotFoundError, IsADirectoryError, PermissionError: the file cannot be opened.
    """
    source = os.fspath(path)
    with open(path, "rb") as fh:
        regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
        lines = _read_lines(fh, source, None if regular else MAX_STREAM_BYTES)
        return _parse(lines if on_line is None else _told(lines, on_line), source)


def _told(lines: Iterable[tuple[int, str]], on_line: Callable[[int], None]) -> Iterator[tuple[int, str]]:
    for lineno, text in lines:
        on_line(len(text))
        yield lineno, text
