"""The long panes: in-degree map, event log and the forward tab's op calls.

All three are LineLists (see NOTE [ Only visible lines are drawn ]).
"""

from __future__ import annotations

import bisect

from rich.text import Text

from minigrad.tracing.describe import describe
from minigrad.tracing.replay import BackwardPass, OpCall

from ..model import PassLayout, Session
from .line_list import LineList

__all__ = ["InDegreeView", "EventLog", "ForwardView"]


class InDegreeView(LineList):
    """The in-degree map of the pass: ``node  initial → now``; the last change is highlighted."""

    DEFAULT_CSS = """
    InDegreeView { height: 1fr; }
    """

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(line_width=60, **kw)
        self.session = session
        self.rows: tuple[int, ...] = ()
        self.bw: BackwardPass | None = None
        self._layout: PassLayout | None = None
        self.border_title = "In-degree map"

    def show_pass(self, layout: PassLayout) -> None:
        self.rows = layout.order
        self._layout = layout
        self.scroll_to(y=0, animate=False, immediate=True)
        self.set_count(len(self.rows))

    def show(self, bw: BackwardPass | None) -> None:
        self.bw = bw
        changed = bw.last_changed if bw is not None else None
        if changed is not None and bw is not None:
            self.border_subtitle = f"last change: {self.session.node_name(changed)} → {bw.in_degree.get(changed)}"
        else:
            self.border_subtitle = ""
        lay = self._layout
        self.move_cursor(lay.row.get(changed) if (lay is not None and changed is not None) else None)

    def line_key(self, index: int):
        bw, nid = self.bw, self.rows[index]
        if bw is None:
            return None
        return (bw.number, bw.in_degree.get(nid), nid in bw.initial_in_degree, bw.last_changed == nid)

    def line_text(self, index: int) -> Text:
        nid = self.rows[index]
        bw = self.bw
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f"{self.session.node_name(nid):<26}")
        if bw is None or nid not in bw.initial_in_degree:
            t.append(" start" if bw is not None and nid in bw.start else "  -", style="dim")
            return t
        now, init = bw.in_degree.get(nid, 0), bw.initial_in_degree[nid]
        t.append(f" {init} → ", style="dim")
        t.append(str(now), style="bold green" if now == 0 else "bold")
        if bw.last_changed == nid:
            t.append("  ◀ changed", style="bold yellow")
        return t


class EventLog(LineList):
    """Every event of the trace, the current one highlighted."""

    DEFAULT_CSS = """
    EventLog { height: 1fr; }
    """

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(line_width=140, **kw)
        self.session = session
        self.border_title = "Event log"
        self.set_count(len(session.events))

    def show(self, index: int) -> None:
        self.border_subtitle = f"event {index} of 0–{len(self.session.events) - 1}"
        self.move_cursor(index if index >= 0 else None)

    def line_text(self, index: int) -> Text:
        ev = self.session.events[index]
        s = self.session
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f"{index:>5} ", style="dim")
        kind_style = "bold magenta" if ev.kind in ("node.begin", "node.run", "queue.pop") else (
            "cyan" if ev.kind.startswith("backward") else "")
        if s.inside_node(index):  # a node's hooks and formula, under the node.begin that opened them
            t.append("  ")
            t.append(f"{ev.kind:<16}", style=kind_style)
        else:
            t.append(f"{ev.kind:<18}", style=kind_style)
        t.append(" " + describe(ev, s))
        return t


class ForwardView(LineList):
    """Each op call with its kernel-selection steps and PrepareData transforms.

    Lines are built on demand: a big trace has tens of thousands of calls, and
    only the ones on screen need text (``call_line`` holds where each starts).
    """

    DEFAULT_CSS = """
    ForwardView { height: 1fr; }
    """

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(line_width=160, **kw)
        self.session = session
        self.border_title = "Forward: op calls and kernel selection"
        self.reload()

    def reload(self) -> None:
        """Read the op calls again (the trace grew while being followed)."""
        session = self.session
        self.calls: tuple[OpCall, ...] = session.replay.final.calls
        self.call_line: list[int] = []  # first line of each call
        self.call_index: list[int] = [c.index for c in self.calls]  # event index of each api.call
        total = 0
        for c in self.calls:
            self.call_line.append(total)
            total += 1 + len(c.amp_casts) + bool(c.key) + len(c.lookups) + bool(c.select) + len(c.transforms)
            total += bool(c.infer_meta) + bool(c.launch)
        self._built: dict[int, list[Text]] = {}
        self.set_count(total if self.calls else 1)

    def call_lines(self, n: int) -> list[Text]:
        """The lines of call ``n`` (cached)."""
        lines = self._built.get(n)
        if lines is not None:
            return lines
        s, c = self.session, self.calls[n]
        head = Text(no_wrap=True)
        head.append(f"#{n:<4}" if n < 1000 else f"#{n} ", style="dim")  # a space before the op, whatever n
        head.append(f"{c.op}", style="bold")
        head.append("(" + ", ".join(s.tensor_name(i) if isinstance(i, int) else str(i) for i in c.inputs) + ")")
        if c.attrs:
            head.append(" " + ", ".join(f"{k}={v}" for k, v in c.attrs.items()), style="dim")
        head.append(f"   [{c.phase}]", style="cyan" if c.phase == "forward" else "magenta")
        if c.outputs:
            head.append("  → " + ", ".join(s.tensor_name(o) for o in c.outputs))
        if c.node is not None:
            head.append(f"  node {s.node_name(c.node)}", style="green")
        lines = [head]
        for cast in c.amp_casts:
            lines.append(Text(f"      amp.cast  {s.tensor_name(cast['tensor'])} {cast['from_dtype']}→{cast['to_dtype']}", style="yellow"))
        if c.key:
            lines.append(Text(f"      key       {{{c.key['backend']}, {c.key['layout']}, {c.key['dtype']}}}"))
        for p in c.lookups:
            mark = "✔ found" if p["found"] else "✘ miss"
            lines.append(
                Text(f"      lookup    {p['step']:<16} {p['backend']}/{p['layout']}/{p['dtype']}  {mark}",
                     style="green" if p["found"] else "dim")
            )
        if c.select:
            extra = " (CPU fallback)" if c.select.get("fallback_cpu") else ""
            extra += " (cached)" if c.select.get("cached") else ""
            lines.append(Text(f"      select    {c.select['kernel']}{extra}", style="bold green"))
        for tr in c.transforms:
            lines.append(Text(f"      transform {tr['arg']}: {tr['what']} {tr['from']}→{tr['to']}", style="yellow"))
        if c.infer_meta:
            lines.append(Text(f"      infer     shapes {c.infer_meta['shapes']} dtypes {c.infer_meta['dtypes']}"))
        if c.launch:
            lines.append(Text(f"      launch    {c.launch['kernel']} on {c.launch['backend']} {c.launch['wall_ns'] / 1000:.1f} µs"))
        if len(self._built) > 512:
            self._built.clear()
        self._built[n] = lines
        return lines

    def show(self, index: int) -> None:
        """Highlight the latest call made at or before event ``index``."""
        k = bisect.bisect_right(self.call_index, index) - 1
        last = len(self.call_index) - 1
        self.border_subtitle = f"call {k} of 0–{last}" if k >= 0 else f"{len(self.call_index)} calls"
        self.move_cursor(self.call_line[k] if k >= 0 else None)

    def line_text(self, index: int) -> Text:
        if not self.calls:
            return Text("(this trace has no op calls)", style="dim")
        n = bisect.bisect_right(self.call_line, index) - 1
        return self.call_lines(n)[index - self.call_line[n]].copy()
