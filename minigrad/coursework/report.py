"""The score table of a graded lesson, with the first divergence of event-graded tasks (rich)."""

from __future__ import annotations

from typing import Any

__all__ = ["print_report", "side_by_side"]


#: How many lines of a divergence the score table prints (the JSON report has all of it).
_DIVERGENCE_LINES = 12
#: How many side-by-side differences of one task the score table prints (the JSON report has all of them).
_DIFFERENCES_SHOWN = 2


def print_report(report: dict[str, Any], console: Any = None) -> None:
    """The score table of one lesson (rich)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    table = Table(title=f"Lesson {report['lesson']}: {report['title']}", show_lines=False)
    for col, just in (("task", "left"), ("title", "left"), ("passed", "right"), ("failed", "right"),
                      ("skipped", "right"), ("score", "right"), ("status", "left")):
        table.add_column(col, justify=just)
    styles = {"full": "green", "partial": "yellow", "zero": "red", "no tests ran": "red", "skipped": "dim"}
    for t in report["tasks"]:
        table.add_row(t["task"], t["title"], str(t["passed"]), str(t["failed"]), str(t["skipped"]),
                      f"{t['score']:g} / {t['max']:g}", f"[{styles[t['status']]}]{t['status']}[/]")
    table.add_row("", "[bold]total[/]", "", "", "", f"[bold]{report['score']:g} / {report['max']:g}[/]", "")
    console.print(table)
    for t in report["tasks"]:
        for reason in t["skip_reasons"]:
            console.print(f"  [dim]Task {t['task']} skipped: {reason}[/]")
        failed = [test for test in t["tests"] if test["outcome"] in ("failed", "error")]
        hole = _not_implemented(failed)
        if hole is not None:
            # Every failure is the template's hole: one line, not one per test.
            console.print(f"  [red]Task {t['task']}[/] not implemented yet: {escape(hole)} "
                          f"({len(failed)} test{'s' if len(failed) != 1 else ''} wait for it)", highlight=False)
            continue
        shown = 0
        for test in failed:
            if test.get("difference") and shown >= _DIFFERENCES_SHOWN:
                continue
            shown += bool(test.get("difference"))
            _print_failure(console, t["task"], test)
        more = sum(bool(test.get("difference")) for test in failed) - shown
        if more > 0:
            console.print(f"  [red]Task {t['task']}[/]: {more} more value{'s' if more != 1 else ''} differ "
                          "(the JSON report, --json, has every one)", highlight=False)
    if not any(t["tests"] for t in report["tasks"]):
        console.print("[red]No test ran; pytest said:[/]")
        console.print(report["pytest_output_tail"][-2000:], markup=False, highlight=False)


def _not_implemented(failed: list[dict[str, Any]]) -> str | None:
    """The hole's message when every failure of a task is its ``NotImplementedError``, else ``None``."""
    messages = {test.get("message", "").strip().splitlines()[-1] if test.get("message") else "" for test in failed}
    if failed and len(messages) == 1:
        message = next(iter(messages))
        if message.startswith("NotImplementedError"):
            return message
    return None


def _print_failure(console: Any, task: str, test: dict[str, Any]) -> None:
    """One failed test: the first divergence of an event-graded test, both sides of a compared value, or
    pytest's message."""
    from rich.markup import escape

    name = test["nodeid"].rpartition("::")[2]
    divergence, difference = test.get("divergence"), test.get("difference")
    if divergence:
        # An event-graded test: the first step where the student's run left the reference's.
        console.print(f"  [red]Task {task}[/] {escape(name)}: first divergence", highlight=False)
        for line in divergence["text"].splitlines()[:_DIVERGENCE_LINES]:
            console.print(f"    {line}", markup=False, highlight=False)
    elif difference:
        console.print(f"  [red]Task {task}[/] {escape(name)}: {escape(difference['what'])} differs", highlight=False)
        console.print(side_by_side(difference), highlight=False)
    elif test.get("message"):
        console.print(f"  [red]Task {task}[/] {escape(name)}: {escape(test['message'].splitlines()[0][:200])}",
                      highlight=False)


def side_by_side(difference: dict[str, Any]) -> Any:
    """A two-column table: the expected value and the student's, named, the words that differ in bold.

    Example:
        >>> from rich.console import Console
        >>> c = Console(width=60, color_system=None)
        >>> c.print(side_by_side({"what": "bytes", "expected_label": "expected (the recording)",
        ...                       "yours_label": "yours (f in a.py)", "expected": "600", "yours": "560"}))
        ...                                         # doctest: +NORMALIZE_WHITESPACE
        ┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
        ┃ expected (the recording) ┃ yours (f in a.py) ┃
        ┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
        │ 600                      │ 560               │
        └──────────────────────────┴───────────────────┘
    """
    import difflib

    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    want, got = str(difference["expected"]), str(difference["yours"])
    a, b = want.split(" "), got.split(" ")
    left, right = Text(), Text()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        style = "" if op == "equal" else "bold"
        for text, words in ((left, a[i1:i2]), (right, b[j1:j2])):
            if words:
                text.append(" " if text.plain else "")
                text.append(" ".join(words), style=style)
    long = max(len(want), len(got)) > 30  # long messages: two equal columns, wrapped
    table = Table(show_lines=False)
    table.add_column(difference["expected_label"], style="green", ratio=1 if long else None)
    table.add_column(difference["yours_label"], style="red", ratio=1 if long else None)
    table.add_row(left, right)
    return Padding(table, (0, 0, 0, 4))
