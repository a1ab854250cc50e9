"""Following a trace while it is being written: a file another process appends to, or a script run live.

``FileFollower(path).poll()`` returns the events appended since the last
poll. Only complete lines are read: a last line without its newline is a
line still being written, not an error; it is read on a later poll. Each
line goes through ``minigrad.tracing.loader.parse_event_line``, the loader's
own validation of one event line.

``ScriptRun(path)`` runs a script in a child process with
``MINIGRAD_TRACE`` pointing at a temporary file (the engine streams its
events there) and follows that file; the script's output goes to a log file,
not over the screen.

Example:
    >>> f = FileFollower("run.jsonl")          # doctest: +SKIP
    >>> new_events = f.poll()                  # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from minigrad.tracing import TraceFormatError, loads
from minigrad.tracing.loader import parse_event_line

__all__ = ["FileFollower", "ScriptRun", "FollowError", "crash_from_output"]


class FollowError(Exception):
    """The followed file is not a minigrad trace (a bad header or line); the message names the line."""


class FileFollower:
    """Reads the events appended to a JSON Lines trace since the last ``poll``.

    Attributes:
        path: the file followed.
        header: the header line once it has been read (``None`` before).
        lines_read: complete lines consumed so far (the header included).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.header: str | None = None
        self.lines_read = 0
        self._offset = 0
        self._last_seq = -1

    def poll(self) -> list[Any]:
        """The new complete events (possibly none).

        Raises:
            FollowError: the file is not a minigrad trace, or a complete line is malformed.
        """
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []  # not created yet
        end = chunk.rfind(b"\n")
        if end < 0:
            return []  # no complete line yet
        complete = chunk[: end + 1]
        self._offset += end + 1
        try:
            text = complete.decode("utf-8")
        except UnicodeDecodeError:
            raise FollowError(f"{self.path}: binary data, not a minigrad trace (JSON Lines text)") from None
        lines = text.splitlines()
        if self.header is None:
            self.header, lines = lines[0], lines[1:]
            self.lines_read = 1
            try:
                loads(self.header + "\n", source=str(self.path))  # the header alone: schema and version
            except TraceFormatError as exc:
                raise FollowError(str(exc)) from None
        events = []
        for text_line in lines:
            self.lines_read += 1
            if not text_line.strip():
                continue
            try:
                ev = parse_event_line(text_line, source=str(self.path), line=self.lines_read)
            except TraceFormatError as exc:
                raise FollowError(str(exc)) from None
            if ev.seq <= self._last_seq:
                raise FollowError(
                    f"{self.path} line {self.lines_read}: seq {ev.seq} does not increase (previous {self._last_seq})"
                )
            self._last_seq = ev.seq
            events.append(ev)
        return events


class ScriptRun:
    """A script running in a child process under ``MINIGRAD_TRACE``, followed as it records.

    Attributes:
        script: the script.
        follower: reads the trace the child writes.
        log_path: where the child's stdout and stderr go.
    """

    def __init__(self, script: str | os.PathLike[str], args: list[str] | None = None) -> None:
        self.script = Path(script)
        self._dir = tempfile.TemporaryDirectory(prefix="minigrad-tui-")
        trace = Path(self._dir.name) / "live.jsonl"
        self.log_path = Path(self._dir.name) / "output.txt"
        self.follower = FileFollower(trace)
        env = dict(os.environ, MINIGRAD_TRACE=str(trace))
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, str(self.script.resolve()), *(args or [])],
            env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=str(self.script.resolve().parent),
        )

    def poll(self) -> list[Any]:
        """The events the script recorded since the last poll (see ``FileFollower.poll``)."""
        return self.follower.poll()

    @property
    def returncode(self) -> int | None:
        """The child's exit status, ``None`` while it runs."""
        return self.proc.poll()

    def crash(self) -> str | None:
        """Why the script failed (``crash_from_output``), once it exited with a non-zero status; else ``None``."""
        code = self.returncode
        if code in (None, 0):
            return None
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        return crash_from_output(text, self.script) or f"{self.script.name} exited with status {code}."

    def output_tail(self, lines: int = 8) -> str:
        """The last lines the script printed."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])

    def close(self) -> None:
        """Stop the child if it still runs and remove the temporary files."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
        self._log.close()
        self._dir.cleanup()


_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>.+)$')


def crash_from_output(text: str, script: str | os.PathLike[str]) -> str | None:
    """The script's own frame and the error, read from the traceback Python printed (the last one in ``text``).

    ``bad.py raised RuntimeError at line 7 in step:`` / ``    y = x @ w`` / ``RuntimeError: ...``, the
    same words ``minigrad-tui --wait`` uses for an exception it caught itself; ``None`` without a traceback.
    """
    lines = text.splitlines()
    start = max((i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last):")), default=-1)
    if start < 0:
        return None
    name = Path(script).name
    target = os.path.abspath(script)
    where, code, last_frame = "", "", start
    for i in range(start + 1, len(lines)):
        m = _FRAME.match(lines[i])
        if m is None:
            continue
        last_frame = i
        if os.path.abspath(m["file"]) == target:
            func = m["func"]
            where = f" at line {m['line']}" + (f" in {func}" if func != "<module>" else "")
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            code = nxt.strip() if nxt.startswith("    ") else ""
    # The error: the first line after the last frame that is not indented (source lines and carets are).
    error = next((ln for ln in lines[last_frame + 1:] if ln and not ln.startswith(" ")), "")
    kind = error.split(":", 1)[0].strip() or "an error"
    head = f"{name} raised {kind}{where}"
    if code:
        head += f":\n    {code}"
    return f"{head}\n{error}" if error else head
