"""Opening what the user named: the built-in demo, a script to trace, or a saved trace.

Every failure becomes a ``SourceError`` with a message for people (docs/architecture.md, bad input):
the app shows it on screen instead of a traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import sys
import traceback
from pathlib import Path
from typing import Sequence

from .model import Session

__all__ = ["SourceError", "load_source", "load_trace", "run_script"]


class SourceError(Exception):
    """A readable reason why a source could not be opened.

    Attributes:
        session: what was recorded anyway (a script that raised half-way), if anything.
    """

    def __init__(self, message: str, session: Session | None = None) -> None:
        super().__init__(message)
        self.session = session


def load_source(arg: str | None, script_args: Sequence[str] = ()) -> Session:
    """The session for a command-line argument: ``None`` (demo), ``*.py`` (script, run with
    ``script_args`` as its arguments) or a trace file."""
    if arg is None:
        from .demo import demo_session

        return demo_session()
    if arg.endswith(".py"):
        return run_script(arg, script_args)
    return load_trace(arg)


def load_trace(path: str) -> Session:
    """Load a saved JSON Lines trace (``minigrad.trace.load``) into a session."""
    from minigrad.tracing import TraceFormatError, load

    p = Path(path)
    if not p.exists():
        raise SourceError(f"{path}: no such file.\nGive a trace saved with tr.save(path), a script ending in .py, or nothing for the demo.")
    if p.is_dir():
        raise SourceError(f"{path} is a folder, not a trace file.")
    try:
        rec = load(p)
    except TraceFormatError as exc:
        raise SourceError(f"This is not a readable minigrad trace.\n{exc}") from None
    except UnicodeDecodeError:
        raise SourceError(f"{path}: binary data, not a minigrad trace (JSON Lines text).") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot read it ({exc.strerror or exc}).") from None
    if not rec.events:
        raise SourceError(f"{path}: the trace has a header but no events.")
    return Session(rec.events, title=p.name)


def run_script(path: str, script_args: Sequence[str] = ()) -> Session:
    """Run ``path`` as ``__main__`` under ``minigrad.trace()`` and open what it recorded.

    The script's output is captured (it would scribble over the screen); its
    last lines are shown as a notice. An exception becomes a ``SourceError``
    naming the script's line, with the events recorded so far attached.
    """
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{path}: no such script.")
    from minigrad.tracing import trace

    out = io.StringIO()
    argv, sys.argv = sys.argv, [str(p), *script_args]
    sys.path.insert(0, str(p.resolve().parent))
    error: str | None = None
    rec = trace()
    try:
        with rec, contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            runpy.run_path(str(p), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            error = f"{p.name} exited with status {exc.code}."
    except BaseException as exc:  # noqa: BLE001 - whatever the script raised is reported, not re-raised
        if isinstance(exc, KeyboardInterrupt):
            raise
        error = _describe_script_error(exc, p)
    finally:
        sys.argv = argv
        with contextlib.suppress(ValueError):
            sys.path.remove(str(p.resolve().parent))
    printed = out.getvalue().strip().splitlines()
    tail = ("\nIt printed:\n  " + "\n  ".join(printed[-6:])) if printed else ""
    session = Session(rec.events, title=p.name, notice=(f"{p.name} printed {len(printed)} lines; last: {printed[-1][:80]}" if printed else None)) if rec.events else None
    if error is not None:
        n = len(rec.events)
        raise SourceError(error + tail + (f"\n\n{n} events were recorded before the error." if n else ""), session)
    if session is None:
        raise SourceError(f"{p.name} ran but recorded no events: did it use minigrad?{tail}")
    if not session.passes:
        session.notice = f"{p.name} recorded {len(session.events)} events but no backward pass."
    return session


def _describe_script_error(exc: BaseException, script: Path) -> str:
    """``script.py line 12, in f: ValueError: message`` (the script's own frame), not a traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if os.path.abspath(f.filename) == str(script.resolve())]
    where = ""
    if mine:
        f = mine[-1]
        where = f" at line {f.lineno}" + (f" in {f.name}" if f.name != "<module>" else "")
        if f.line:
            where += f":\n    {f.line.strip()}"
    if isinstance(exc, SyntaxError):
        return f"{script.name} has a syntax error at line {exc.lineno}: {exc.msg}"
    return f"{script.name} raised {type(exc).__name__}{where}\n{type(exc).__name__}: {exc}"
