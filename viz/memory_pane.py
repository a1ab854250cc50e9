"""The web page's memory pane: the data ``memory_pane.js`` draws, from ``mg.trace.memory``.

The page holds the bytes alive after every event, by category, twice: over
the whole recording (at most ``MAX_POINTS`` points, each the largest total of
the events it stands for) and per span the chart zooms to (``Memory.windows``:
each backward pass with the forward before it, at most ``WINDOW_POINTS``
points each); the peak and its event; and for every grad node the tensors it
saved, with their sizes and when they were released. The script draws the
chart of the span holding the event shown (or the whole recording), with its
axes, moves a marker to the event, and lists what the node in focus saved.
"""

from __future__ import annotations

from typing import Any

from minigrad.tracing.memory import CATEGORIES, Memory, format_bytes

__all__ = ["memory_data", "MAX_POINTS", "WINDOW_POINTS", "MAX_WINDOW_POINTS"]

#: The most points the chart of the whole recording keeps (one per event up to this many).
MAX_POINTS = 2000
#: The most points the chart of one span keeps, and of all spans together (a long training run has many).
WINDOW_POINTS = 1000
MAX_WINDOW_POINTS = 60000


def _points(mem: Memory, lo: int, hi: int, most: int) -> tuple[int, list[list[int]]]:
    """Events ``lo..hi`` as at most ``most`` points (each the largest total of ``step`` events) and ``step``."""
    n = hi - lo + 1
    step = max(1, -(-n // max(1, most)))
    points = []
    for a in range(lo, hi + 1, step):
        top = max(mem.timeline[a:min(a + step, hi + 1)], key=lambda p: p.total)
        points.append([top.params, top.grads, top.saved, top.buffers, top.outputs])
    return step, points


def _shape(shape: Any) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def memory_data(mem: Memory) -> dict[str, Any]:
    """What the memory pane of the page needs (see the module docstring)."""
    step, points = _points(mem, 0, len(mem.timeline) - 1, MAX_POINTS) if mem.timeline else (1, [])
    spans = mem.windows()
    each = max(20, min(WINDOW_POINTS, MAX_WINDOW_POINTS // max(1, len(spans))))
    windows = []
    for lo, hi, what in spans:
        w_step, w_points = _points(mem, lo, hi, each)
        windows.append({"from": lo, "to": hi, "what": what, "step": w_step, "points": w_points})
    nodes: dict[str, Any] = {}
    for node in mem.nodes.values():
        rows = []
        for tid in node.saved:
            s = mem.saved.get(tid)
            if s is None:
                continue
            how = "packed" if tid not in node.held else ("param" if s.parameter else "held")
            rows.append([s.name, _shape(s.shape), s.dtype, s.bytes, format_bytes(s.bytes), how])
        source = node.source
        if source:  # file name and line: the folders say nothing a reader needs
            path, _, line = source.rpartition(":")
            source = f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}" if path else source
        nodes[str(node.id)] = {"name": node.name, "module": mem.module_name(node.module) if node.module else None,
                               "source": source,
                               "recompute": node.recompute, "freed": node.freed_at, "saved": rows}
    peak = mem.peak_event()
    running = f" while {peak['node_name']} runs" if peak["node_name"] else ""
    return {
        "step": step, "points": points, "windows": windows, "n_events": len(mem.timeline),
        "categories": list(CATEGORIES), "peak": mem.peak_bytes, "peak_at": peak["index"],
        "peak_text": f"peak {format_bytes(mem.peak_bytes)} at event {peak['index']} ({peak['kind']}){running}",
        "saved_total": format_bytes(mem.saved_bytes_total),
        "nodes": nodes,
    }
