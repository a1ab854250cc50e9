"""The ``minigrad`` command: record a script's trace, render it, read its log, export it.

::

    minigrad record script.py -o run.jsonl [-- script args]   # run a script under mg.trace()
    minigrad render run.jsonl -o graph.svg [--step N] [--kind forward|backward|kernel] [--call N]
    minigrad render run.jsonl --flipbook backward.html [--frames step|event|node]
    minigrad log run.jsonl [--kind 'queue.*'] [--limit N]
    minigrad export-chrome run.jsonl -o trace.json      # open in https://ui.perfetto.dev
    minigrad diff mine.jsonl reference.jsonl [--all] [--kind 'queue.*'] [--json out.json]
    minigrad web run.jsonl -o page.html                 # the stepper as one self-contained web page
    minigrad codegen mul                                # the generated dygraph function of an op
    minigrad codegen --write                            # write them all into minigrad/dispatch/generated/
    minigrad memory run.jsonl [--json out.json]         # saved tensors by size and module, the peak

Each subcommand is one ``cmd_<name>(args) -> int`` function registered in
``build_parser``; adding a subcommand means adding one function and one
``add_parser`` block. Errors a user can cause (a missing, empty, truncated or
foreign trace file; a step out of range; no Graphviz) print one readable
line to stderr and exit with a non-zero code, never a traceback. Exit
statuses: 0 done, 1 a bad request (step out of range, the script failed),
2 a trace file that cannot be read (missing, binary, malformed: the message
names file, line and field), 3 Graphviz missing.

This module imports the viewers lazily: ``import minigrad`` never imports it.

Example:
    >>> from minigrad.cli import main
    >>> main(["log", "run.jsonl", "--kind", "queue.*"])   # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from . import lessons_cli, memory_cli
from .dispatch.codegen import generate, write_modules
from .ops.registry import OPS
from .progress import Steps, progress
from .tracing import TraceFormatError
from .tracing.describe import describe
from .tracing.diff import diff
from .tracing.loader import load
from .tracing.provenance import is_user_file
from .tracing.recorder import Recorder
from .tracing.replay import replay
from .tracing.viewing import inside_node

__all__ = ["main", "build_parser", "cmd_record", "cmd_render", "cmd_log", "cmd_export_chrome", "cmd_diff", "cmd_web", "CliError"]

EXIT_ERROR = 1  # a bad request: step out of range, script failure
EXIT_BAD_FILE = 2  # the trace file is missing or not a readable minigrad trace (docs/architecture.md, bad input)
EXIT_NO_DOT = 3  # Graphviz missing (the DOT source was saved instead)
FLIPBOOK_HINT_FRAMES = 300  # above this many frames `render --flipbook` points to `minigrad web`
EXIT_DIFFERENT = 1  # minigrad diff: the recordings differ (as diff(1) does; a bad file is EXIT_BAD_FILE, 2)


class CliError(Exception):
    """A user-facing error: printed as ``minigrad <cmd>: error: <message>``, exit code ``code``."""

    def __init__(self, message: str, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.code = code


def _load(path: str, steps: Steps | None = None) -> Any:
    """Load and validate a trace file, turning every failure into a ``CliError``; with ``steps`` (a terminal),
    show the events loaded so far."""
    on_line = None
    if steps is not None and steps.shown:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = None  # load() below says what is wrong
        task = steps.add(f"loading {Path(path).name}", total=size or None)

        def on_line(n: int) -> None:
            steps.advance(task, n + 1)  # the line and its newline
    try:
        return load(path, on_line=on_line)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file", EXIT_BAD_FILE) from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, expected a .jsonl trace file", EXIT_BAD_FILE) from None
    except TraceFormatError as exc:
        raise CliError(str(exc), EXIT_BAD_FILE) from None
    except OSError as exc:  # permission denied, an unreadable device, ...
        raise CliError(f"{path}: cannot read it ({exc.strerror or exc})", EXIT_BAD_FILE) from None


# ---------------------------------------------------------------------------
# record
# ---------------------------------------------------------------------------


def cmd_record(args: argparse.Namespace) -> int:
    """Run ``args.script`` as ``__main__`` under ``mg.trace()`` and save the trace."""
    script = Path(args.script)
    if not script.is_file():
        raise CliError(f"{script}: no such script")
    out = Path(args.output or script.with_suffix(".jsonl").name)
    rec = Recorder(values=not args.no_values, max_elements=args.max_elements)
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *args.script_args]
    sys.path.insert(0, str(script.resolve().parent))
    failure: BaseException | None = None
    try:
        with rec:
            runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            failure = exc
    except Exception as exc:  # the script's own error: report it, still save what was recorded
        failure = exc
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
    rec.save(out)
    print(f"recorded {len(rec.events)} events from {script} -> {out}", file=sys.stderr)
    if failure is not None:
        if not isinstance(failure, SystemExit):
            # The user's script failed: its traceback is the useful message here, as the user's code sees it.
            print(user_traceback(failure), file=sys.stderr, end="")
        raise CliError(f"{script} raised {type(failure).__name__}; the events up to the error were saved to {out}")
    return 0


def user_traceback(exc: BaseException) -> str:
    """``exc``'s traceback as the user's script sees it: the frames of the user's code, then the frame of
    minigrad's op where it failed; no frames of this command, ``runpy`` or the engine between them.

    The op's frame is the innermost one in ``minigrad/ops/`` along the chain of causes (an error inside a
    backward formula is re-raised by the engine naming the node: the formula's line says which op it
    was), else the innermost frame. The message is the final exception's, printed once.
    """
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if is_user_file(f.filename)]
    chain, cause = [], exc
    while cause is not None and len(chain) < 16:
        chain.append(cause)
        cause = cause.__cause__
    innermost = [f for c in reversed(chain) for f in reversed(traceback.extract_tb(c.__traceback__))]
    ops_dir = os.sep + os.path.join("minigrad", "ops") + os.sep
    op_frame = next((f for f in innermost if ops_dir in f.filename), innermost[0] if innermost else None)
    if op_frame is not None and not is_user_file(op_frame.filename):
        frames.append(op_frame)
    lines = ["Traceback (most recent call last):\n", *traceback.StackSummary.from_list(frames).format()]
    return "".join(lines + traceback.format_exception_only(type(exc), exc))


# ---------------------------------------------------------------------------
# render
# ---------------------------------------------------------------------------


def cmd_render(args: argparse.Namespace) -> int:
    """Render one view (``-o``) and/or a flip-book (``--flipbook``) of a trace."""
    from minigrad import viz

    with progress() as steps:
        rec = _load(args.trace, steps)
    if not args.output and not args.flipbook:
        raise CliError("nothing to write: give -o OUTPUT (.svg .png .pdf .dot) and/or --flipbook OUT.html")
    rp = viz.to_replay(rec)
    if len(rp) == 0:
        raise CliError(f"{args.trace}: the trace holds no events", EXIT_BAD_FILE)
    call: int | str | None = args.call
    if isinstance(call, str) and call.lstrip("-").isdigit():
        call = int(call)
    if args.output:
        try:
            rendered = viz.render(rp, kind=args.kind, step=args.step, backward_pass=args.backward_pass, call=call,
                                  previews=not args.no_previews, collapse=_collapse(args.collapse),
                                  all_passes=args.all, group=args.group)
        except (IndexError, LookupError, ValueError) as exc:
            raise CliError(str(exc.args[0] if exc.args else exc)) from None
        try:
            path = rendered.save(args.output)
        except viz.DotNotFoundError as exc:
            raise CliError(str(exc), EXIT_NO_DOT) from None
        # The forward view draws a span of events (its title says which): name that span, not the last event.
        where = (rendered.graph.title.split(" · ")[1] if rendered.kind == "forward" and " · events " in
                 (rendered.graph.title or "") else f"event {rendered.step}")
        print(f"wrote {path} ({rendered.kind} view, {where}, {len(rendered.graph.nodes)} nodes)", file=sys.stderr)
    if args.flipbook:
        try:
            frames = len(viz.backward_steps(rp, -1 if args.backward_pass is None else args.backward_pass, args.frames))
        except (IndexError, ValueError):
            frames = 0  # flipbook() below reports the problem
        if frames > FLIPBOOK_HINT_FRAMES:
            # One full SVG per frame: a long pass makes a page browsers struggle with. The web
            # stepper ships one layout and the per-event changes instead.
            print(f"note: the flip-book will hold {frames} frames, each a whole SVG; for stepping on screen, "
                  f"'minigrad web {args.trace}' shows the same pass as one small page", file=sys.stderr)
        try:
            with progress() as steps:
                task = steps.add("drawing the flip-book's frames", total=frames or None)
                book = viz.flipbook(rp, backward_pass=-1 if args.backward_pass is None else args.backward_pass,
                                    frames=args.frames, previews=not args.no_previews,
                                    on_frame=lambda: steps.advance(task))
        except (IndexError, ValueError) as exc:
            raise CliError(str(exc.args[0] if exc.args else exc)) from None
        except viz.DotNotFoundError as exc:
            dot_path = Path(args.flipbook).with_suffix(".dot")
            dot_path.write_text("\n".join(exc.sources), encoding="utf-8")
            raise CliError(f"{exc}\nThe DOT source of all {len(exc.sources)} frames was saved to {dot_path}.",
                           EXIT_NO_DOT) from None
        path = book.save(args.flipbook)
        print(f"wrote {path} ({len(book)} frames)", file=sys.stderr)
    return 0


def _collapse(value: str) -> bool | str:
    return {"auto": "auto", "yes": True, "no": False}[value]


# ---------------------------------------------------------------------------
# log
# ---------------------------------------------------------------------------


def cmd_log(args: argparse.Namespace) -> int:
    """Print the event log as a table (rich), optionally filtered by kind patterns."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rec = _load(args.trace)
    patterns = args.kind or ["*"]
    # Names (node and tensor ids -> "MulBackward0#3") come from the final state: ids are never reused.
    names = replay(rec.events).final
    table = Table(title=Text(f"{args.trace}: {len(rec.events)} events"), show_lines=False, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("t (µs)", justify="right")
    table.add_column("kind", style="cyan", no_wrap=True)
    table.add_column("what happened")
    shown = 0
    calls = -1  # op calls are numbered as 'minigrad render --kind kernel --call N' counts them
    inside = inside_node(rec.events)  # a node's hooks and formula: indented under its node.begin, as in the TUI
    for index, ev in enumerate(rec.events):
        if ev.kind == "api.call":
            calls += 1
        if not any(fnmatch.fnmatchcase(ev.kind, p) for p in patterns):
            continue
        what = describe(ev, names)
        if ev.kind == "api.call":
            what = f"call {calls}: {what}"
        # Text, not markup: a preview such as "[nan, 1]" must not be read as a rich style tag.
        table.add_row(str(index), f"{ev.ts_ns / 1000:.1f}", Text(("  " if inside[index] else "") + ev.kind), Text(what))
        shown += 1
        if args.limit and shown >= args.limit:
            break
    console = Console(width=args.width) if args.width else Console()
    console.print(table)
    if shown == 0:
        print(f"no events match {' '.join(patterns)}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------
# export-chrome
# ---------------------------------------------------------------------------


def cmd_export_chrome(args: argparse.Namespace) -> int:
    """Write the trace as Chrome trace-event JSON (Perfetto, chrome://tracing)."""
    from minigrad.viz.chrome import save_chrome_trace

    rec = _load(args.trace)
    out = Path(args.output or Path(args.trace).with_suffix(".chrome.json").name)
    save_chrome_trace(rec.events, out)
    print(f"wrote {out}; open it at https://ui.perfetto.dev (Open trace file)", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------
# diff
# ---------------------------------------------------------------------------


def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two recordings; exit 0 when they agree, 1 when they differ, 2 on a bad file."""

    a, b = _load(args.a), _load(args.b)  # a bad file: EXIT_BAD_FILE (2), as diff(1)
    result = diff(a, b, kinds=args.kind, all=args.all, context=args.context, labels=(args.a, args.b))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(result.to_dict(), indent=2, default=str) + "\n", encoding="utf-8")
    print(result.report())
    return 0 if result.equal else EXIT_DIFFERENT


def cmd_codegen(args: argparse.Namespace) -> int:
    """Print the dygraph function generated for an op, or write them all (``dispatch/codegen.py``)."""
    if args.write:
        for path in write_modules(OPS.values()):
            print(f"wrote {path}")
        return 0
    if args.op is None:
        print("minigrad codegen: name an op, or pass --write", file=sys.stderr)
        return EXIT_ERROR
    op = OPS.get(args.op)
    if op is None:
        close = [n for n in sorted(OPS) if args.op in n][:8]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        print(f"minigrad codegen: no op named {args.op!r}{hint}", file=sys.stderr)
        return EXIT_ERROR
    print(generate(op), end="")
    return 0


# ---------------------------------------------------------------------------
# web
# ---------------------------------------------------------------------------


def cmd_web(args: argparse.Namespace) -> int:
    """Write the web stepper of a trace: one HTML page with the TUI's panes (``mg.viz.stepper``)."""
    from minigrad import viz

    out = Path(args.output or Path(args.trace).with_suffix(".html").name)
    with progress() as steps:
        rec = _load(args.trace, steps)
        if not rec.events:
            raise CliError(f"{args.trace}: the trace holds no events", EXIT_BAD_FILE)
        steps.add(f"laying out the page of {len(rec.events)} events")
        try:
            page = viz.stepper(rec, title=Path(args.trace).name)
        except viz.DotNotFoundError as exc:
            raise CliError(str(exc), EXIT_NO_DOT) from None
    path = page.save(out)
    size = path.stat().st_size
    passes = len(page.data["passes"])
    print(f"wrote {path} ({size / 1e6:.2f} MB, {passes} backward pass{'es' if passes != 1 else ''}); "
          "open it in any browser, no server needed", file=sys.stderr)
    for note in page.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------
# parser and entry point
# ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each subparser sets ``func`` to its ``cmd_*`` function."""
    parser = argparse.ArgumentParser(prog="minigrad", description="Record, render and inspect minigrad traces.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("record", help="run a Python script under tracing and save its events (.jsonl)",
                       epilog="Arguments for the script go after '--': minigrad record train.py -o run.jsonl -- --lr 0.1")
    p.add_argument("script", help="the script to run (as __main__)")
    p.add_argument("-o", "--output", help="trace file to write (default: <script>.jsonl)")
    p.add_argument("--no-values", action="store_true", help="record shapes/dtypes only, no value previews")
    p.add_argument("--max-elements", type=int, default=64, help="largest tensor whose values are recorded (64)")
    p.set_defaults(func=cmd_record)

    p = sub.add_parser("render", help="draw a trace as SVG/PNG/PDF/DOT, or a flip-book of a backward pass")
    p.add_argument("trace", help="a .jsonl trace from 'minigrad record' or tr.save()")
    p.add_argument("-o", "--output", help="output file; the format comes from the suffix (.svg .png .pdf .dot)")
    p.add_argument("--kind", choices=("backward", "forward", "kernel"), default="backward", help="which view")
    p.add_argument("--step", type=int, default=None, help="event to show, numbered from 0 as 'minigrad log' and the TUI number it; default: last")
    p.add_argument("--pass", dest="backward_pass", type=int, default=None, help="which backward pass, numbered from 0 as the TUI numbers it")
    p.add_argument("--call", default=None,
                   help="for --kind kernel: op-call number ('call N' in minigrad log) or op name (default: last)")
    p.add_argument("--flipbook", metavar="OUT.html", help="write every step of the backward pass as one HTML page")
    p.add_argument("--frames", choices=("step", "event", "node"), default="step",
                   help="flip-book frames: each engine step (default), every event, or each node run")
    p.add_argument("--no-previews", action="store_true", help="hide gradient-buffer previews")
    p.add_argument("--group", choices=("module",), default=None,
                   help="backward view: box the nodes each nn.Module made, labelled with its path")
    p.add_argument("--all", action="store_true",
                   help="--kind forward: draw every forward pass (default: the one that built --pass, or the latest)")
    p.add_argument("--collapse", choices=("auto", "yes", "no"), default="auto", help="collapse long chains (auto: big graphs)")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("log", help="print the event log as a table")
    p.add_argument("trace", help="a .jsonl trace")
    p.add_argument("--kind", action="append", help="kind pattern, e.g. 'queue.*' (repeatable)")
    p.add_argument("--limit", type=int, default=0, help="show at most N rows")
    p.add_argument("--width", type=int, default=0, help="table width (default: the terminal's)")
    p.set_defaults(func=cmd_log)

    p = sub.add_parser("export-chrome", help="write Chrome trace-event JSON (kernel launches, node runs) for Perfetto")
    p.add_argument("trace", help="a .jsonl trace")
    p.add_argument("-o", "--output", help="JSON file to write (default: <trace>.chrome.json)")
    p.set_defaults(func=cmd_export_chrome)

    p = sub.add_parser("diff", help="compare two recordings of one program; report where they first differ",
                       description="Align two recordings (ids matched by order of first appearance, timing ignored) "
                                   "and report the first divergence. Exit status: 0 equal, 1 different, 2 bad file.")
    p.add_argument("a", help="a .jsonl trace (e.g. your run)")
    p.add_argument("b", help="the .jsonl trace to compare with (e.g. the reference)")
    p.add_argument("--all", action="store_true", help="list every divergent region, not only the first")
    p.add_argument("--kind", action="append", help="compare only these kinds, e.g. 'queue.*' (repeatable)")
    p.add_argument("--context", type=int, default=3, help="events of context before a divergence (3)")
    p.add_argument("--json", dest="json_path", help="also write the result as JSON here")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("web", help="write the stepper as one self-contained web page (opens from disk, in notebooks)")
    p.add_argument("trace", help="a .jsonl trace")
    p.add_argument("-o", "--output", help="HTML file to write (default: <trace>.html)")
    p.set_defaults(func=cmd_web)
    p = sub.add_parser("codegen", help="print the dygraph function generated for an op (e.g. mul, matmul)")
    p.add_argument("op", nargs="?", help="the op's name, as in mg.OPS")
    p.add_argument("--write", action="store_true",
                   help="write every op's dygraph function into minigrad/dispatch/generated/ (checked in)")
    p.set_defaults(func=cmd_codegen)

    # What backward keeps alive: `minigrad memory TRACE [--json OUT]` (memory_cli.py).
    memory_cli.add_parser(sub, _load, CliError)
    # Coursework: `minigrad lessons build|grade` (the tool lives in lessons_cli.py).
    lessons_cli.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``minigrad`` console script. Returns the exit code."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after "--" belongs to the recorded script, not to minigrad.
    script_args: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, script_args = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    if script_args and args.command != "record":
        parser.error(f"arguments after '--' are only for 'minigrad record', not '{args.command}'")
    args.script_args = script_args
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except CliError as exc:
        print(f"minigrad {args.command}: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as exc:  # unwritable output path and the like
        print(f"minigrad {args.command}: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a viewer bug must still end in one line, not a traceback
        if os.environ.get("MINIGRAD_DEBUG"):
            raise
        print(f"minigrad {args.command}: internal error: {type(exc).__name__}: {exc}. This is a minigrad bug; "
              "run with MINIGRAD_DEBUG=1 for the traceback and report it.", file=sys.stderr)
        return EXIT_ERROR


def _closed_pipe() -> int:
    """The reader of our output went away (``minigrad log run.jsonl | head``): end quietly.

    As the Python docs' note on SIGPIPE advises, standard output is pointed at
    ``os.devnull`` so that the interpreter's last flush at exit does not fail
    a second time, and the exit status is 1, as for any output not written.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a file (a test's capture)
        pass
    return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
