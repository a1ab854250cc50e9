"""The backward graph as text: one row per grad node, in depth order from the start.

Each row reads::

    ▶  d2  MultiplyBackward#2   running   in 0/2   → AccumulateGrad#0 (0,0) · AccumulateGrad#1 (1,0)

status glyph, depth from the start node, name (indented by depth), status,
in-degree now/initial, and the output edges with their (slot, rank). With the
GeneralGrad marks on, a ``grad()`` pass adds ``[startup] [ending] [needed]
[pruned] [no_grad] [input]`` tags and ``✂`` on edges GeneralGrad cut.
"""

from __future__ import annotations

from rich.text import Text

from minigrad.tracing.replay import BackwardPass, State, node_status
from minigrad.tracing.viewing import pass_ending

from ..format import STATUS_GLYPH, STATUS_STYLE
from ..model import PassLayout, Session
from .line_list import LineList

__all__ = ["GraphView"]

_MAX_INDENT = 16


class GraphView(LineList):
    """Rows of grad nodes with live status; the cursor follows the current node."""

    DEFAULT_CSS = """
    GraphView { height: 1fr; }
    """

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(line_width=220, **kw)
        self.session = session
        self.layout_: PassLayout | None = None
        self.state: State | None = None
        self.bw: BackwardPass | None = None
        self.marks = True
        self.selected: int | None = None
        self.border_title = "Backward graph"

    def show_pass(self, layout: PassLayout) -> None:
        """Switch to another pass's rows."""
        self.layout_ = layout
        self.bw = None
        self.scroll_to(y=0, animate=False, immediate=True)
        self.set_count(len(layout.order))

    def show(self, state: State, bw: BackwardPass | None, focus: int | None, marks: bool) -> None:
        """Redraw for ``state``; ``focus`` is the node the cursor should sit on."""
        self.state, self.bw, self.marks = state, bw, marks
        lay = self.layout_
        row = lay.row.get(focus) if (lay is not None and focus is not None) else None
        n = len(lay.order) if lay else 0
        where = f"pass {lay.number}" if lay else "no pass"
        self.border_title = f"Backward graph · {where} · {n} nodes · g: 2-D"
        if bw is None:
            self.border_subtitle = "pass not started"
        else:
            self.border_subtitle = (
                f"run {len(bw.executed)} · queued {len(bw.queue)} · released {len(bw.released)}"
                + ((" · " + (pass_ending(bw) or "done")) if bw.done else "")
            )
        self.move_cursor(row)

    def line_key(self, index: int):
        lay, bw = self.layout_, self.bw
        if lay is None or bw is None:
            return (id(bw),)
        nid = lay.order[index]
        return (
            self.status_of(nid),
            bw.queue.index(nid) if nid in bw.queue else None,
            bw.in_degree.get(nid),
            bw.last_changed == nid,
            self.selected == nid,
            self.marks,
            bw.general is not None and (len(bw.general.needed), len(bw.general.pruned), len(bw.general.inputs)),
            bw.number,
        )

    def status_of(self, node: int) -> str:
        if self.state is None or self.bw is None:
            return "idle"
        return node_status(self.state, node, self.bw)

    def line_text(self, index: int) -> Text:
        lay = self.layout_
        assert lay is not None
        nid = lay.order[index]
        info = lay.nodes[nid]
        bw = self.bw
        status = self.status_of(nid) if bw is not None else "idle"
        if bw is not None and status == "idle" and bw.initial_in_degree:
            status = "not in pass"  # (before the in-degree map exists, nobody knows yet)
        glyph = STATUS_GLYPH.get(status, "·")
        style = STATUS_STYLE.get(status, "dim")
        depth = lay.depth.get(nid, 0)
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f"{glyph} ", style=style)
        t.append(f"d{depth:<3}", style="dim")
        indent = "  " * min(depth, _MAX_INDENT)
        t.append(indent)
        name = info.name
        if info.is_accumulation and info.tensor is not None:
            name = f"{name} ({self.session.tensor_name(info.tensor)})"
        t.append(f"{name:<24}", style="bold" if status == "running" else ("cyan" if info.is_accumulation else ""))
        label = "" if status == "idle" else status
        if status == "queued" and bw is not None:
            label = f"queue #{bw.queue.index(nid)}"
        t.append(f" {label:<9}", style=style)
        if bw is not None and (nid in bw.in_degree or nid in bw.initial_in_degree):
            now = bw.in_degree.get(nid, 0)
            init = bw.initial_in_degree.get(nid, 0)
            t.append(f" in {now}/{init}", style="bold yellow" if bw.last_changed == nid else "")
        else:
            t.append("       ")
        general = bw.general if bw is not None else None
        cut: dict[tuple, object] = {}
        if self.marks and general is not None:
            cut = {(p.get("node"), p.get("slot"), p.get("rank")): p.get("next") for p in general.pruned}
            tags = []
            if nid in general.inputs:
                tags.append(("input", "bold cyan"))
            if nid in general.startup:
                tags.append(("startup", "bold green"))
            if nid in general.ending:
                tags.append(("ending", "bold blue"))
            if nid in general.needed:
                tags.append(("needed", "green"))
            elif general.needed:
                tags.append(("pruned", "bold red"))
            if nid in general.no_grad:
                tags.append(("no_grad", "red"))
            for tag, st in tags:
                t.append(f" [{tag}]", style=st)
        if nid in lay.rewritten:
            t.append(f" [CopySlices: {lay.rewritten[nid]}]", style="bold #ce93d8")
        if nid == self.selected:
            t.append("  ◀ selected", style="bold cyan")
        if info.edges:
            t.append("  → ", style="dim")
            for k, e in enumerate(info.edges):
                if k:
                    t.append(" · ", style="dim")
                target = e.next if e.next is not None else cut.get((nid, e.slot, e.rank))
                if target is None:
                    t.append(f"∅ ({e.slot},{e.rank})", style="dim")
                    continue
                name = self.session.node_name(target)
                if (nid, e.slot, e.rank) in cut:
                    t.append(f"✂ {name} ({e.slot},{e.rank})", style="bold red")
                else:
                    t.append(f"{name} ({e.slot},{e.rank})")
        for consumer, old in lay.replaced:
            if consumer == nid:  # the edge an in-place change through a view replaced
                t.append(f" · ╌ replaced: {self.session.node_name(old)}", style="dim italic")
        return t
