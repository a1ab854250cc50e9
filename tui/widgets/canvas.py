"""The backward graph in two dimensions: boxes in layers and routed edges (Graphviz's layout).

Each box reads::

    ┌▶ MulBackward0#6 ───┐
    │in 0/2 Q1 startup  │
    └───────────────────┘

status glyph and name in the top border (coloured as in the SVG legend:
pending pale yellow, queued blue, running orange, done green, released
grey-blue), then ``in now/initial`` (in-degree), ``Qk`` (position in the ready
queue, Q1 = front) and the GeneralGrad marks. AccumulationNodes have round
corners and name their leaf. Edges cut by ``no_grad_vars`` are red and end
in ``✂``. A CopySlices node says whose history it rewrote (``CopySlices: t3``);
the edge the rewrite replaced (a consumer of the base to the base's old node) is
dashed (``╌ ┆ ⋰``), ends in ``▽`` (or ``◁ ▷``) and reads ``replaced``. The view scrolls to keep the current node on screen; arrow keys pan.

The geometry comes from ``layout2d.layout_graph`` once per pass; a step only
repaints the rows whose boxes changed (NOTE [ Only visible lines are drawn ]).
"""

from __future__ import annotations

from typing import Hashable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from minigrad.tracing.replay import BackwardPass, State, node_status
from minigrad.tracing.viewing import pass_ending

from ..format import STATUS_GLYPH, STATUS_STYLE
from ..layout2d import CUT, GRAD, REPLACED, Box, Canvas, LayoutUnavailable
from ..model import PassLayout, Session

__all__ = ["GraphCanvas"]

#: Edge colours by ``layout2d`` style: a cut edge red, a replaced one (rewritten history) dim and italic.
_EDGE_STYLE = {CUT: "bold #c62828", REPLACED: "italic #6d6d6d", GRAD: "#8a8a8a"}


class GraphCanvas(ScrollView, can_focus=True, inherit_bindings=False):
    """The pass's graph as boxes and edges; the current node is highlighted and kept in view."""

    DEFAULT_CSS = """
    GraphCanvas {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $text;
        border-title-style: bold;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    GraphCanvas:focus { border: round $accent; }
    """

    BINDINGS = [
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("shift+left", "scroll_left", "Pan left", show=False),
        Binding("shift+right", "scroll_right", "Pan right", show=False),
    ]

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(**kw)
        self.session = session
        self.canvas: Canvas | None = None
        self.layout_: PassLayout | None = None
        self.error: str | None = None
        self.state: State | None = None
        self.bw: BackwardPass | None = None
        self.focus_node: int | None = None
        self.marks = True
        self.selected: int | None = None
        self._painted: dict[int, Hashable] = {}
        self._fold_sets: dict[int, frozenset[int]] = {}
        self._fold_memo: dict[tuple, tuple[str, int, int | None]] = {}
        self.border_title = "Backward graph"

    # -- content -------------------------------------------------------------

    def show_pass(self, layout: PassLayout, modules: bool = False) -> bool:
        """Lay out pass ``layout`` (``modules``: one box per ``nn.Module``); False (and ``error`` set) when Graphviz cannot."""
        self.layout_ = layout
        try:
            self.canvas = self.session.canvas(layout.number, modules)
            self.error = None
        except LayoutUnavailable as exc:
            self.canvas, self.error = None, str(exc)
        height = self.canvas.height if self.canvas else 1
        width = self.canvas.width if self.canvas else 1
        self.virtual_size = Size(width, height)
        self._painted.clear()
        self._fold_sets.clear()
        self._fold_memo.clear()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        return self.canvas is not None

    def show(self, state: State, bw: BackwardPass | None, focus: int | None, marks: bool) -> None:
        """Paint the boxes for ``state``; scroll ``focus`` into view (centred when it was off screen)."""
        self.state, self.bw, self.focus_node, self.marks = state, bw, focus, marks
        lay = self.layout_
        n = len(lay.order) if lay else 0
        self.border_title = f"Backward graph · pass {lay.number if lay else '-'} · {n} nodes · g: list"
        if bw is None:
            self.border_subtitle = "pass not started"
        else:
            self.border_subtitle = (
                f"run {len(bw.executed)} · queued {len(bw.queue)} · released {len(bw.released)}"
                + ((" · " + (pass_ending(bw) or "done")) if bw.done else "")
            )
        c = self.canvas
        b = c.box_of(focus) if c is not None and focus is not None else None
        if b is not None and self.size.height:
            sx, sy = int(self.scroll_offset.x), int(self.scroll_offset.y)
            w, h = self.size.width, self.size.height
            x = sx if sx <= b.x and b.x + b.width <= sx + w else max(0, b.x + b.width // 2 - w // 2)
            y = sy if sy <= b.y and b.y + b.height <= sy + h else max(0, b.y + 1 - h // 2)
            if (x, y) != (sx, sy):
                self.scroll_to(x, y, animate=False, immediate=True)
        self._repaint()

    def _repaint(self) -> None:
        top = int(self.scroll_offset.y)
        for y in range(top, top + self.size.height):
            if self._painted.get(y, self) != self._row_key(y):
                self.refresh_line(y - top)

    def _row_key(self, y: int) -> Hashable:
        c = self.canvas
        if c is None:
            return ("none", self.error)
        return tuple(self._box_key(b.node) for b in c.by_row.get(y, ()))

    def _box_key(self, nid: int) -> Hashable:
        bw = self.bw
        if bw is None:
            return (nid, None)
        if nid < 0:  # a fold: its look depends on how far the pass got
            return (nid, bw.number, len(bw.executed), len(bw.queue), len(bw.released), bw.current,
                    self.focus_node, self.marks)
        return (
            nid,
            self.status_of(nid),
            bw.queue.index(nid) if nid in bw.queue else None,
            bw.in_degree.get(nid),
            bw.last_changed == nid,
            self.focus_node == nid,
            self.selected == nid,
            self.marks,
            bw.general is not None and (len(bw.general.needed), len(bw.general.pruned)),
        )

    def status_of(self, nid: int) -> str:
        if self.state is None or self.bw is None:
            return "idle"
        if nid < 0 and self.canvas is not None:
            return self._fold_summary(nid)[0]
        status = node_status(self.state, nid, self.bw)
        general = self.bw.general
        if status == "pending" and self.marks and general is not None and general.needed and nid not in general.needed:
            return "pruned"
        return status

    def _fold_summary(self, fid: int) -> tuple[str, int, int | None]:
        """``(status, how many ran, member to name)`` of a folded chain, with set operations (folds can hold
        thousands of nodes); memoised per state."""
        bw = self.bw
        assert bw is not None and self.canvas is not None
        key = (fid, id(bw), self.focus_node)
        hit = self._fold_memo.get(key)
        if hit is not None:
            return hit
        members = self.canvas.folds[fid]
        mset = self._fold_sets.get(fid)
        if mset is None:
            mset = self._fold_sets[fid] = frozenset(members)
        ran = len(mset.intersection(bw.executed))
        if bw.current in mset and not bw.done:
            status = "running"
        elif mset.intersection(bw.queue):
            status = "queued"
        elif mset <= bw.released:
            status = "released"
        elif ran:
            status = "done"
        elif mset.intersection(bw.initial_in_degree) or mset.intersection(bw.start):
            status = "pending"
        else:
            status = "idle"
        shown = bw.current if bw.current in mset else (self.focus_node if self.focus_node in mset else None)
        if len(self._fold_memo) > 256:
            self._fold_memo.clear()
        self._fold_memo[key] = out = (status, ran, shown)
        return out

    def _fold_lines(self, b: Box) -> tuple[list[str], str]:
        """A folded chain: how many of its nodes ran, and which one runs now."""
        assert self.canvas is not None and self.layout_ is not None
        members = self.canvas.folds[b.node]
        bw = self.bw
        status = self.status_of(b.node)
        inner = b.width - 2
        nodes = self.layout_.nodes
        head = f"{STATUS_GLYPH.get(status, '·')} {self.canvas.titles.get(b.node, '')} "
        parts: list[str] = []
        if bw is not None:
            _, ran, shown = self._fold_summary(b.node)
            parts.append(f"ran {ran}/{len(members)}")
            if shown is not None:
                parts.append(f"▶ {nodes[shown].name}" if shown == bw.current else f"◀ {nodes[shown].name}")
        return [
            "┌" + head[:inner].ljust(inner, "┄") + "┐",
            "┆" + " ".join(parts)[:inner].ljust(inner) + "┆",
            "└" + "┄" * inner + "┘",
        ], status

    def box_lines(self, b: Box) -> tuple[list[str], str]:
        """The three text lines of box ``b`` and its style."""
        lay, bw = self.layout_, self.bw
        assert lay is not None
        if b.node < 0:
            return self._fold_lines(b)
        info = lay.nodes[b.node]
        status = self.status_of(b.node)
        round_ = info.is_accumulation
        tl, tr, bl, br = ("╭", "╮", "╰", "╯") if round_ else ("┌", "┐", "└", "┘")
        inner = b.width - 2
        head = f"{STATUS_GLYPH.get(status, '·')} {info.name} "
        top = tl + head[:inner].ljust(inner, "─") + tr
        parts: list[str] = []
        if bw is not None and (b.node in bw.initial_in_degree or b.node in bw.in_degree):
            parts.append(f"in {bw.in_degree.get(b.node, 0)}/{bw.initial_in_degree.get(b.node, 0)}")
        if bw is not None and b.node in bw.queue:
            parts.append(f"Q{bw.queue.index(b.node) + 1}")
        if info.is_accumulation and info.tensor is not None:
            parts.append(self.session.tensor_name(info.tensor))
        general = bw.general if bw is not None else None
        if self.marks and general is not None:
            for tag, members in (("input", general.inputs), ("startup", general.startup), ("ending", general.ending)):
                if b.node in members:
                    parts.append(tag)
            if b.node in general.no_grad:
                parts.append("no_grad")
        rewrote = lay.rewritten.get(b.node)
        if rewrote is not None:
            parts.append(f"CopySlices: {rewrote}")  # the node an in-place change through a view gave the base
        if b.node == self.selected:
            parts.append("◀")
        middle = "│" + " ".join(parts)[:inner].ljust(inner) + "│"
        bottom = bl + "─" * inner + br
        return [top, middle, bottom], status

    def plain_lines(self) -> list[str]:
        """The whole picture as plain text, boxes painted for the state shown (tests and captures read this)."""
        c = self.canvas
        if c is None:
            return []
        rows = [list(r.ljust(c.width)) for r in c.rows]
        for b in c.boxes.values():
            for k, line in enumerate(self.box_lines(b)[0]):
                rows[b.y + k][b.x : b.x + len(line)] = list(line)
        return ["".join(r).rstrip() for r in rows]

    # -- drawing -------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        sx, sy = int(self.scroll_offset.x), int(self.scroll_offset.y)
        row = sy + y
        width = self.size.width
        base = self.rich_style
        c = self.canvas
        if c is None:
            self._painted[row] = self._row_key(row)
            msg = f"2-D view unavailable: {self.error}; press g for the list view" if row == 0 and self.error else ""
            return Strip([Segment(msg[:width].ljust(width), base)], width)
        self._painted[row] = self._row_key(row)
        if row >= c.height:
            return Strip.blank(width, base)
        text = Text(c.rows[row].ljust(c.width), no_wrap=True)
        for x0, x1, style in c.edge_style[row]:
            text.stylize(_EDGE_STYLE.get(style, "#8a8a8a"), x0, x1)
        for b in c.by_row.get(row, ()):
            lines, status = self.box_lines(b)
            line = lines[row - b.y]
            text = text[: b.x] + Text(line) + text[b.x + len(line):]
            style = STATUS_STYLE.get(status, "")
            folded_focus = self.canvas is not None and self.canvas.owner.get(self.focus_node) == b.node
            if b.node == self.focus_node or folded_focus:
                style = "bold #000000 on #ff9e4a" if status == "running" else f"{style} reverse"
            if status == "idle":
                style = "dim"
            text.stylize(style, b.x, b.x + len(line))
        text = text[sx : sx + width]
        text.truncate(width, pad=True)
        segments = list(text.render(self.app.console, end=""))
        return Strip(segments, width).apply_style(base if isinstance(base, Style) else Style())
