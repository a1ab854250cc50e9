"""The memory pane: bytes alive over the events, a marker at the current one, and what the
focused node saved for backward.

Everything comes from ``mg.trace.memory`` (``minigrad/tracing/memory.py``), the one
accounting the CLI and the web page draw too; the pane only scales it to its width.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from minigrad.tracing.memory import Memory, format_bytes

from .panels import _Pane, _short_path

__all__ = ["MemoryView", "chart", "chart_rows", "saved_lines"]

#: Rows of the chart (each row is eight steps of a block character high).
CHART_ROWS = 8
_BLOCKS = " ▁▂▃▄▅▆▇█"
_SAVED_STYLE = "bold magenta"
_OTHER_STYLE = "cyan"


def chart_rows(mem: Memory, index: int, width: int, rows: int = CHART_ROWS,
               span: tuple[int, int] | None = None) -> tuple[list[Text], int]:
    """The chart of events ``span`` (first, last; default: all) as ``rows`` lines of ``width`` columns, each
    the largest total of its events scaled to the span's largest (the saved bytes drawn in their own colour
    at the bottom), and the column of event ``index`` (-1: outside the span)."""
    lo, hi = span if span is not None else (0, len(mem.timeline) - 1)
    timeline = mem.timeline[lo:hi + 1]
    n = len(timeline)
    width = max(8, width)  # a short timeline is stretched: each point takes one column or more
    peak = max((p.total for p in timeline), default=0) or 1
    cols = []
    for c in range(width):
        a, b = c * n // width, max((c + 1) * n // width, c * n // width + 1)
        points = timeline[a:b]
        top = max(points, key=lambda p: p.total) if points else None
        cols.append((top.total if top else 0, top.saved if top else 0))
    marker = min(width - 1, (index - lo) * width // n) if n and lo <= index <= hi else -1
    lines = []
    for r in range(rows - 1, -1, -1):
        line = Text()
        for c, (total, saved) in enumerate(cols):
            eighths = round(total / peak * rows * 8)
            saved_eighths = round(saved / peak * rows * 8)
            fill = min(8, max(0, eighths - r * 8))
            style = _SAVED_STYLE if saved_eighths > r * 8 else _OTHER_STYLE
            if c == marker:
                style += " reverse" if fill else ""
                line.append(_BLOCKS[fill] if fill else "│", style="bold yellow" if not fill else style)
            else:
                line.append(_BLOCKS[fill], style=style)
        lines.append(line)
    return lines, marker


def chart(mem: Memory, index: int, width: int, rows: int = CHART_ROWS) -> list[Text]:
    """The chart zoomed to the pass in focus (``Memory.window``), with its axes and a sentence on its figures.

    The y axis is bytes alive, from 0 to the largest total of the span; the x
    axis is the span's events, first to last; ``▲ now`` marks event ``index``.
    """
    lo, hi, what = mem.window(index)
    largest = max((p.total for p in mem.timeline[lo:hi + 1]), default=0)
    labels = {0: format_bytes(largest), rows // 2: format_bytes(largest / 2), rows - 1: "0 B"}
    pad = max(len(v) for v in labels.values()) + 1
    plot = max(8, width - pad - 1)
    lines, marker = chart_rows(mem, index, plot, rows, (lo, hi))
    out = [Text("bytes alive".rjust(pad), style="dim")]
    for r, line in enumerate(lines):
        row = Text(labels.get(r, "").rjust(pad - 1) + " ", style="dim")
        row.append("┤" if r in labels else "│", style="dim")
        row.append_text(line)
        out.append(row)
    out.append(Text(" " * pad + "└" + "─" * plot, style="dim"))
    first, last = f"event {lo}", f"event {hi}"
    axis = Text(" " * (pad + 1) + first, style="dim")
    middle = "events →"
    gap = plot - len(first) - len(last)
    if gap > len(middle) + 2:
        left = (gap - len(middle)) // 2
        axis.append(" " * left + middle + " " * (gap - left - len(middle)), style="dim")
    else:
        axis.append(" " * max(1, gap))
    axis.append(last, style="dim")
    out.append(axis)
    if marker >= 0:
        out.append(Text(" " * (pad + 1 + marker) + "▲ now", style="bold yellow"))
    n = hi - lo + 1
    per = ("one event per column" if n <= plot
           else f"each column the largest total of the ~{-(-n // plot)} events it stands for")
    out.append(Text(f"shown: events {lo}\u2013{hi}, {what}; height: bytes alive, 0 to this span's largest "
                    f"({format_bytes(largest)}); {per}", style="dim"))
    return out


def saved_lines(mem: Memory, node: int | None, index: int) -> list[Text]:
    """What ``node`` saved, one line per tensor with its size and whether it is held at ``index``."""
    if node is None or node not in mem.nodes:
        return [Text("no grad node in focus: step into a backward pass (or select a node) to see what it saved",
                     style="dim")]
    info = mem.nodes[node]
    head = Text(f"{info.name} saved {len(info.saved)} tensor{'s' if len(info.saved) != 1 else ''}", style="bold")
    module = f"module {mem.module_name(info.module)}" if info.module else None
    where = " · ".join(x for x in (module, _short_path(info.source) if info.source else None) if x)
    if where:
        head.append(f"  ({where})", style="dim")
    if info.recompute is not None:
        head.append(f"  recomputed for node {info.recompute}", style="bold yellow")
    out = [head]
    for tid in info.saved:
        s = mem.saved.get(tid)
        if s is None:
            continue
        shape = "(" + ", ".join(map(str, s.shape)) + ("," if len(s.shape) == 1 else "") + ")"
        if tid not in info.held:
            state = "packed by a hook"
        elif info.freed_at is not None and info.freed_at <= index:
            state = f"freed at event {info.freed_at}"
        else:
            state = "parameter" if s.parameter else "held"
        line = Text(f"  {s.name:<10} {shape:<14} {s.dtype:<8} ")
        line.append(f"{format_bytes(s.bytes):>10}", style=_SAVED_STYLE if state == "held" else "")
        line.append(f"  {state}", style="dim")
        out.append(line)
    if not info.saved:
        out.append(Text("  (nothing: its formula needs no saved tensor)", style="dim"))
    return out


class MemoryView(_Pane):
    """Bytes alive over the trace with the current event marked, and the focused node's saved tensors."""

    DEFAULT_CSS = """
    MemoryView { height: 1fr; }
    """

    def __init__(self, session: Any, title: str = "Memory", **kw: Any) -> None:
        super().__init__(session, title, **kw)
        self._shown: tuple[int, int | None] | None = None

    def show(self, index: int, node: int | None) -> None:
        self._shown = (index, node)
        width = max(20, (self.size.width or 80) - 4)
        self.put((index, node, width, len(self.session.events)), lambda: self._build(index, node, width))

    def on_resize(self) -> None:
        """The chart spans the pane: drawn again at the pane's width once it has one (or a new one)."""
        if self._shown is not None:
            self.show(*self._shown)

    def _build(self, index: int, node: int | None, width: int) -> Text:
        mem: Memory = self.session.replay.memory
        at = mem.at(index)
        text = Text()
        text.append(f"alive after event {index}: {format_bytes(at.total)}", style="bold")
        parts = [f"{c} {format_bytes(v)}" for c, v in at.to_dict().items() if c != "total"]
        text.append("   " + " · ".join(parts) + "\n")
        peak = mem.peak_event()
        running = f" while {peak['node_name']} runs" if peak["node_name"] else ""
        text.append(f"whole recording: peak {format_bytes(mem.peak_bytes)} at event {peak['index']} ({peak['kind']})"
                    f"{running}", style="dim")
        text.append(f"   saved for backward in all: {format_bytes(mem.saved_bytes_total)}\n", style="dim")
        for line in chart(mem, index, width):
            text.append_text(line)
            text.append("\n")
        text.append("█ saved for backward", style=_SAVED_STYLE)
        text.append("  ")
        text.append("█ params, grads, buffers, outputs\n", style=_OTHER_STYLE)
        text.append("\n")
        for line in saved_lines(mem, node, index):
            text.append_text(line)
            text.append("\n")
        return text
