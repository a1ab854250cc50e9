"""``minigrad-tui --diff A B``: two recordings side by side, stepping together.

The screen opens at the first divergence that ``mg.trace.diff`` found. Both
sides move by one *step* at a time: step ``k`` is the ``k``-th compared event
of each recording (all events, or those of ``--kind``), so while the
recordings agree the two sides show the same step of the same program; the
border of a side turns red where its event differs from the other's.
"""

from __future__ import annotations

import fnmatch

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from minigrad.tracing.diff import TraceDiff, canonical_keys

from ..model import Session
from ..widgets.diff_side import DiffSide

__all__ = ["DiffScreen"]


class DiffScreen(Screen[None]):
    """Two sessions side by side; ``step`` is the shared position in the compared events."""

    DEFAULT_CSS = """
    DiffScreen #diff-headline { height: auto; max-height: 4; padding: 0 1; background: $boost; }
    DiffScreen #diff-sides { height: 1fr; }
    DiffScreen #diff-status { height: 1; padding: 0 1; background: $panel; }
    """

    BINDINGS = [
        Binding("right,l", "step(1)", "Next step"),
        Binding("left,h", "step(-1)", "Prev step"),
        Binding("d", "divergence(1)", "Next difference"),
        Binding("D", "divergence(-1)", "Prev difference", show=False),
        Binding("f", "first", "First divergence"),
        Binding("home,g", "go(0)", "Start", show=False),
        Binding("end,G", "go(-1)", "End", show=False),
        Binding("q,escape", "app.quit", "Quit"),
    ]

    def __init__(self, a: Session, b: Session, result: TraceDiff) -> None:
        super().__init__()
        self.a, self.b, self.result = a, b, result
        patterns = result.kinds
        self.pos_a = [i for i, e in enumerate(a.events) if any(fnmatch.fnmatchcase(e.kind, p) for p in patterns)]
        self.pos_b = [i for i, e in enumerate(b.events) if any(fnmatch.fnmatchcase(e.kind, p) for p in patterns)]
        keys_a, keys_b = canonical_keys(a.events), canonical_keys(b.events)
        self.keys_a = [keys_a[i] for i in self.pos_a]
        self.keys_b = [keys_b[i] for i in self.pos_b]
        self.steps = max(len(self.pos_a), len(self.pos_b))
        first = result.first
        self.first_step = first.a_range[0] if first is not None else 0
        self.step = self.first_step

    def compose(self) -> ComposeResult:
        yield Static(id="diff-headline")
        with Horizontal(id="diff-sides"):
            yield DiffSide(self.a, self.a.title, id="side-a")
            yield DiffSide(self.b, self.b.title, id="side-b")
        yield Static(id="diff-status")
        yield Footer()

    def on_mount(self) -> None:
        first = self.result.first
        head = self.query_one("#diff-headline", Static)
        labels = (self.a.title, self.b.title)
        if first is None:
            head.update(Text(f"{labels[0]} and {labels[1]} agree: every compared event is the same "
                             f"(ids matched by first appearance, timing ignored).", style="bold green"))
        else:
            head.update(Text("first divergence " + first.headline(labels), style="bold"))
        self.refresh_sides()

    # -- stepping ------------------------------------------------------------

    def differs(self, step: int) -> bool:
        """Whether the two recordings disagree at ``step`` (one has ended, or the events differ)."""
        ka = self.keys_a[step] if step < len(self.keys_a) else None
        kb = self.keys_b[step] if step < len(self.keys_b) else None
        return ka != kb

    def refresh_sides(self) -> None:
        k = self.step
        differs = self.differs(k) if self.steps else False
        ia = self.pos_a[k] if k < len(self.pos_a) else None
        ib = self.pos_b[k] if k < len(self.pos_b) else None
        self.query_one("#side-a", DiffSide).show(ia, differs)
        self.query_one("#side-b", DiffSide).show(ib, differs)
        status = Text(f"step {k + 1}/{self.steps}  ")
        status.append("DIFFERS" if differs else "same", style="bold red" if differs else "green")
        if self.result.first is not None:
            status.append(f"  first divergence at step {self.first_step + 1} (f)", style="dim")
        self.query_one("#diff-status", Static).update(status)

    def action_step(self, delta: int) -> None:
        self.step = max(0, min(self.steps - 1, self.step + delta))
        self.refresh_sides()

    def action_go(self, where: int) -> None:
        self.step = 0 if where == 0 else max(0, self.steps - 1)
        self.refresh_sides()

    def action_first(self) -> None:
        self.step = self.first_step
        self.refresh_sides()

    def action_divergence(self, direction: int) -> None:
        """Jump to the start of the next (or previous) run of steps where the sides disagree."""
        starts = [k for k in range(self.steps) if self.differs(k) and (k == 0 or not self.differs(k - 1))]
        later = [k for k in starts if (k > self.step if direction > 0 else k < self.step)]
        if not later:
            self.notify("no more differences that way", timeout=2)
            return
        self.step = later[0] if direction > 0 else later[-1]
        self.refresh_sides()
