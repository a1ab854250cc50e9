"""The score table of a graded lesson, with the first divergence of event-graded tasks (rich)."""

from __future__ import annotations

from typing import Any

__all__ = ["print_report"]


#: How many lines of a divergence the score table prints (the JSON report has all of it).
_DIVERGENCE_LINES = 12


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
        for test in t["tests"]:
            if test["outcome"] not in ("failed", "error"):
                continue
            name = test["nodeid"].rpartition("::")[2]
            divergence = test.get("divergence")
            if divergence:
                # An event-graded test: the first step where the student's run left the reference's.
                console.print(f"  [red]Task {t['task']}[/] {escape(name)}: first divergence", highlight=False)
                for line in divergence["text"].splitlines()[:_DIVERGENCE_LINES]:
                    console.print(f"    {line}", markup=False, highlight=False)
            elif test.get("message"):
                console.print(f"  [red]Task {t['task']}[/] {escape(name)}: {escape(test['message'].splitlines()[0][:200])}",
                              highlight=False)
    if not any(t["tests"] for t in report["tasks"]):
        console.print("[red]No test ran; pytest said:[/]")
        console.print(report["pytest_output_tail"][-2000:], markup=False, highlight=False)
