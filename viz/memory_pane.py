"""The web page's memory pane: the data ``memory_pane.js`` draws, from ``mg.trace.memory``.

The page holds the bytes alive after every event, by category (at most
``MAX_POINTS`` points, each the largest total of the events it stands for), the peak
and its event, and for every grad node the tensors it saved, with their sizes
and when they were released. The script draws the chart, moves a marker to the
event shown, and lists what the node in focus saved.
"""

from __future__ import annotations

from typing import Any

from minigrad.tracing.memory import CATEGORIES, Memory, format_bytes

__all__ = ["memory_data", "MAX_POINTS"]

#: The most points the chart keeps (one per event up to this many).
MAX_POINTS = 2000


def _shape(shape: Any) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def memory_data(mem: Memory) -> dict[str, Any]:
    """What the memory pane of the page needs (see the module docstring)."""
    n = len(mem.timeline)
    step = max(1, -(-n // MAX_POINTS))
    points = []
    for lo in range(0, n, step):
        top = max(mem.timeline[lo:lo + step], key=lambda p: p.total)
        points.append([top.params, top.grads, top.saved, top.buffers, top.outputs])
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
        nodes[str(node.id)] = {"name": node.name, "module": node.module, "source": source,
                               "recompute": node.recompute, "freed": node.freed_at, "saved": rows}
    peak = mem.peak_event()
    return {
        "step": step, "points": points, "categories": list(CATEGORIES), "peak": mem.peak_bytes,
        "peak_at": peak["index"],
        "peak_text": f"peak {format_bytes(mem.peak_bytes)} at event {peak['index']} ({peak['kind']})",
        "saved_total": format_bytes(mem.saved_bytes_total),
        "nodes": nodes,
    }
