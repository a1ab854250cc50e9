"""One side of the diff screen: a recording's event, ready queue, in-degree map and nearby events.

It draws what ``minigrad.tracing.replay`` computed for the event it is given;
the diff screen decides which event that is (both sides step together).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from minigrad.tracing.describe import describe

from ..model import Session

__all__ = ["DiffSide"]

#: How many events before and after the current one the side lists.
AROUND = 4
#: How many in-degree entries it shows (the nonzero ones first).
IN_DEGREE_ROWS = 10


class DiffSide(Vertical):
    """A recording at one event; ``show(index, differs)`` moves it (``index`` None: past its end)."""

    DEFAULT_CSS = """
    DiffSide { width: 1fr; height: 1fr; border: round $primary; padding: 0 1; }
    DiffSide.differs { border: round $error; }
    DiffSide > .diff-event { height: auto; text-style: bold; }
    DiffSide > .diff-queue { height: auto; margin-top: 1; }
    DiffSide > .diff-in-degree { height: auto; margin-top: 1; }
    DiffSide > .diff-around { height: 1fr; margin-top: 1; }
    """

    def __init__(self, session: Session, label: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.label = label
        self.border_title = label
        self.index: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(classes="diff-event")
        yield Static(classes="diff-queue")
        yield Static(classes="diff-in-degree")
        yield Static(classes="diff-around")

    def _words(self, index: int) -> str:
        s = self.session
        return describe(s.events[index], s)

    def show(self, index: int | None, differs: bool) -> None:
        """Draw the state after event ``index``; ``differs`` marks a step where the sides disagree."""
        self.index = index
        self.set_class(differs, "differs")
        s = self.session
        n = len(s.events)
        event = self.query_one(".diff-event", Static)
        if index is None:
            self.border_subtitle = f"ended ({n} events)"
            event.update(Text("(no more events: this recording ended)", style="dim"))
            at = n - 1
        else:
            self.border_subtitle = f"event #{index} of {n}"
            ev = s.events[index]
            line = Text()
            line.append(f"#{index} {ev.kind}", style="bold red" if differs else "bold cyan")
            line.append(f"  {self._words(index)}")
            event.update(line)
            at = index
        bw = s.state(at).backward
        queue = self.query_one(".diff-queue", Static)
        degree = self.query_one(".diff-in-degree", Static)
        if bw is None:
            queue.update(Text("ready queue: (no backward pass yet)", style="dim"))
            degree.update("")
        else:
            q = Text("ready queue (front → back): ", style="bold")
            q.append(", ".join(s.node_name(i) for i in bw.queue) or "empty", style="yellow")
            queue.update(q)
            items = sorted(bw.in_degree.items(), key=lambda kv: (kv[1] == 0, kv[0]))
            d = Text("in-degree: ", style="bold")
            d.append(", ".join(f"{s.node_name(k)}={v}" for k, v in items[:IN_DEGREE_ROWS]))
            if len(items) > IN_DEGREE_ROWS:
                d.append(f", … ({len(items) - IN_DEGREE_ROWS} more, all others 0)" if all(
                    v == 0 for _, v in items[IN_DEGREE_ROWS:]) else f", … ({len(items) - IN_DEGREE_ROWS} more)", style="dim")
            degree.update(d)
        around = Text()
        lo, hi = max(0, at - AROUND), min(n, at + AROUND + 1)
        for i in range(lo, hi):
            mark = "▶ " if i == index else "  "
            style = ("bold red" if differs else "bold") if i == index else "dim" if i < at else ""
            around.append(f"{mark}#{i} {s.events[i].kind}: {self._words(i)}\n", style=style)
        self.query_one(".diff-around", Static).update(around)

    def plain(self) -> str:
        """Everything the side shows, as plain text (for tests)."""
        return "\n".join(str(w.render()) for w in self.query(Static))
