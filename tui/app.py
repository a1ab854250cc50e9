"""``minigrad-tui``: step through a backward pass, forwards and backwards in time.

Usage::

    minigrad-tui              # the built-in demo (tui/demo.py)
    minigrad-tui script.py    # run a script, follow its recording live (passes appear as they are recorded)
    minigrad-tui run.jsonl    # replay a trace saved with tr.save(path)
    minigrad-tui --follow run.jsonl   # tail a trace another process is writing (MINIGRAD_TRACE=run.jsonl)
    minigrad-tui --diff mine.jsonl reference.jsonl   # two recordings side by side, stepping together
    minigrad-tui --serve [--host H] [--port P] [any of the above]   # the same app in browsers (textual-serve)

The app draws only states replayed from events (``minigrad.trace.replay``).
"""

from __future__ import annotations

import argparse
import gc
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

from textual.app import App
from textual.binding import Binding

from minigrad.tracing.diff import TraceDiff, diff

from .follow import FileFollower, FollowError, ScriptRun
from .model import Session
from .screens import DiffScreen, ErrorScreen, MainScreen
from .sources import SourceError, load_source, load_trace

__all__ = ["MinigradApp", "main", "serve_command", "serve"]

#: Where ``--serve`` listens unless told otherwise: this machine only.
SERVE_HOST, SERVE_PORT = "localhost", 8000


class MinigradApp(App[None]):
    """The app: a MainScreen over a session, or an ErrorScreen saying why there is none.

    Args:
        session: the trace to show.
        error: a message to show instead (a session may come with it: what was recorded before the error).
        initial_pass: which backward pass to open (0-based).
        export_dir: where ``s`` writes SVG files.
        compare: ``(other session, diff result)``: open the diff screen, ``session`` on the left.
        crash: why the traced script failed: shown over the main screen until the app quits.
    """

    CSS_PATH = "app.tcss"
    TITLE = "minigrad-tui"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False)]

    def __init__(
        self,
        session: Session | None = None,
        *,
        error: str | None = None,
        initial_pass: int = 0,
        export_dir: str | Path = ".",
        follow: Any = None,
        compare: tuple[Session, TraceDiff] | None = None,
        crash: str | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.follow = follow
        self.compare = compare
        self.error = error
        self.initial_pass = initial_pass
        self.export_dir = export_dir
        #: Why the traced script failed, once known (``main`` exits non-zero and prints it on quit).
        self.crash: str | None = crash

    def on_mount(self) -> None:
        # NOTE [ Freeze the loaded trace ] A big trace is millions of long-lived
        # objects; without this, Python's full GC passes walk them all and a
        # step now and then takes 100+ ms instead of ~20 ms. (No gc.collect()
        # first: on a 120 000-event trace that alone takes 2 s.)
        gc.freeze()
        if self.error is not None:
            self.push_screen(ErrorScreen(self.error, can_continue=self.session is not None), self._after_error)
        elif self.session is not None and self.compare is not None:
            self.push_screen(DiffScreen(self.session, self.compare[0], self.compare[1]))
        elif self.session is not None:
            self._open_main()
        else:  # pragma: no cover - main() always passes one or the other
            self.push_screen(ErrorScreen("Nothing to show."))

    def _after_error(self, _result: None) -> None:
        if self.session is not None:
            self._open_main()

    def _open_main(self) -> None:
        assert self.session is not None
        self.push_screen(
            MainScreen(self.session, initial_pass=self.initial_pass, export_dir=self.export_dir, follow=self.follow,
                       crash=self.crash)
        )

    @property
    def main_screen(self) -> MainScreen:
        """The MainScreen (for tests and scripts)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("no main screen open")


def open_source(path: str | None, script_args: Sequence[str] = ()) -> tuple[Session | None, str | None]:
    """``(session, error)`` for a command-line argument; never raises for bad input.

    ``script_args`` become a script's ``sys.argv[1:]`` (``minigrad-tui train.py --steps 1``).
    """
    try:
        return load_source(path, script_args), None
    except SourceError as exc:
        return exc.session, str(exc)
    except Exception as exc:  # noqa: BLE001 - shown on screen, not dumped
        return None, f"Unexpected error while opening {path or 'the demo'}: {type(exc).__name__}: {exc}"


def open_diff(a: str, b: str, kinds: Sequence[str] | None = None) -> tuple[Session | None, tuple[Session, TraceDiff] | None, str | None]:
    """``(left session, (right session, diff), error)`` for ``--diff A B``; never raises for bad input."""
    try:
        left, right = load_trace(a), load_trace(b)
    except SourceError as exc:
        return None, None, str(exc)
    result = diff(left.events, right.events, kinds=kinds, labels=(left.title, right.title))
    return left, (right, result), None


def serve_command(argv: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser: this app with ``argv`` minus the serving options."""
    rest: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("--host", "--port"):
            skip = True
            continue
        if arg == "--serve" or arg.startswith(("--host=", "--port=")):
            continue
        rest.append(arg)
    return shlex.join([sys.executable, "-m", "minigrad.tui.app", *rest])


def serve(argv: Sequence[str], host: str, port: int) -> int:
    """Serve the app to browsers through textual-serve (``pip install 'minigrad[web]'``).

    Each browser that opens the address gets its own copy of the app, started with the same
    source (demo, trace, script, ``--follow``, ``--diff``) as the terminal would open.
    """
    try:
        from textual_serve.server import Server  # noqa: PLC0415 - optional extra, only for --serve
    except ImportError:
        print("minigrad-tui: --serve needs textual-serve: pip install 'minigrad[web]' (or pip install textual-serve)",
              file=sys.stderr)
        return 2
    where = "this machine only" if host in ("localhost", "127.0.0.1", "::1") else f"every machine that can reach {host}"
    print(f"minigrad-tui: serving on http://{host}:{port} ({where}; --host 0.0.0.0 opens it to the network). "
          "Ctrl+C stops.", file=sys.stderr, flush=True)
    Server(serve_command(argv), host=host, port=port, title="minigrad-tui").serve()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``minigrad-tui [path]``."""
    parser = argparse.ArgumentParser(
        prog="minigrad-tui",
        description="Step through a minigrad backward pass: the built-in demo, a script, or a saved trace.",
    )
    parser.add_argument("path", nargs="?", help="a script (.py) to run under tracing, or a trace (.jsonl); none: the demo")
    parser.add_argument("--pass", dest="pass_no", type=int, default=0,
                        help="which backward pass to open first (numbered from 0, as everywhere in minigrad)")
    parser.add_argument("--export-dir", default=".", help="where 's' writes SVG files (default: current folder)")
    parser.add_argument("--diff", nargs=2, metavar=("A", "B"),
                        help="open two traces side by side at their first divergence and step them together")
    parser.add_argument("--kind", action="append", help="with --diff: compare only these kinds, e.g. 'queue.*'")
    parser.add_argument("--follow", metavar="FILE", help="follow a trace file another process is writing")
    parser.add_argument("--wait", action="store_true", help="for a script: run it to the end first, then open it")
    parser.add_argument("--serve", action="store_true",
                        help="serve the app to web browsers (textual-serve, the 'web' extra) instead of this terminal")
    parser.add_argument("--host", default=SERVE_HOST, help=f"with --serve: address to listen on (default {SERVE_HOST}: this machine only)")
    parser.add_argument("--port", type=int, default=SERVE_PORT, help=f"with --serve: port (default {SERVE_PORT})")
    # Options the TUI does not know belong to the script (``minigrad-tui examples/char_gpt.py --steps 1``).
    args, script_args = parser.parse_known_args(argv)
    if script_args and not (args.path and args.path.endswith(".py")):
        parser.error(f"unrecognized arguments: {' '.join(script_args)} (extra arguments go to a .py script only)")
    if args.serve:
        return serve(list(sys.argv[1:] if argv is None else argv), args.host, args.port)
    if args.diff:
        if args.path or args.follow:
            parser.error("give either a path or --diff A B, not both")
        print(f"minigrad-tui: comparing {args.diff[0]} with {args.diff[1]} ...", file=sys.stderr, flush=True)
        left, compare, diff_error = open_diff(*args.diff, kinds=args.kind)
        MinigradApp(left, error=diff_error, compare=compare).run()
        return 0
    follow: Any = None
    run: ScriptRun | None = None
    error: str | None = None
    if args.follow:
        follow = FileFollower(args.follow)
        session: Session | None = Session([], title=Path(args.follow).name)
        try:
            session.extend(follow.poll())
        except FollowError as exc:
            session, error, follow = None, f"This is not a readable minigrad trace.\n{exc}", None
    elif args.path and args.path.endswith(".py") and not args.wait and Path(args.path).is_file():
        run = follow = ScriptRun(args.path, list(script_args))
        session = Session([], title=Path(args.path).name)
    else:
        what = "running " + args.path if args.path and args.path.endswith(".py") else "reading " + (args.path or "the demo")
        print(f"minigrad-tui: {what} ...", file=sys.stderr, flush=True)  # big traces take seconds to replay
        session, error = open_source(args.path, script_args)
    # A script that failed (``--wait``, or a syntax error before the live run): its error is the crash.
    failed = error is not None and bool(args.path and args.path.endswith(".py")) and "recorded no events" not in error
    crash = error.split("\nIt printed:")[0].split("\n\n")[0] if failed and error else None
    app = MinigradApp(session, error=error, initial_pass=args.pass_no, export_dir=args.export_dir, follow=follow,
                      crash=crash if session is not None else None)
    try:
        app.run()
        crash = app.crash or (run.crash() if run is not None else None) or crash
    finally:
        if run is not None:
            run.close()
    if crash is not None:  # as ``minigrad record`` does: say so, and a non-zero status for shells and CI
        shown = "; the events up to the error were shown" if session is not None and session.events else ""
        print(f"minigrad-tui: {crash}{shown}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
