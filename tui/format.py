"""How node statuses look in the terminal: one glyph and one colour per status.

The colours are the SVG legend's (``minigrad.viz.style.STATUS_FILL``), so a
node reads the same in the TUI and in an exported SVG. Words for events come
from the one describer, ``minigrad.tracing.describe``.
"""

from __future__ import annotations

from minigrad.viz.style import STATUS_FILL  # the SVG legend's fills: both viewers colour a status alike

__all__ = ["STATUS_GLYPH", "STATUS_STYLE", "STATUS_FILL"]

#: One glyph per node status (see ``minigrad.tracing.replay.node_status``).
STATUS_GLYPH: dict[str, str] = {
    "running": "▶",
    "queued": "◆",
    "pending": "○",
    "done": "●",
    "released": "✓",
    "pruned": "╳",
    "idle": "·",
}


#: Rich styles per node status (text in the legend's colour; the running node inverted).
STATUS_STYLE: dict[str, str] = {
    "running": "bold #000000 on #ff9e4a",
    "queued": "bold #9ecbff",
    "pending": "#fff3c4",
    "done": "#8fd694",
    "released": "#b8c4cc",
    "pruned": "dim #eeeeee",
    "idle": "dim",
}
