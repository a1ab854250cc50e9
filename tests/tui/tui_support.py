"""Shared constants and helpers of the TUI tests (a uniquely named module: ``conftest`` is
also the name of tests/viz's, so test modules import from here, not from ``conftest``)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"

#: The terminal size all TUI tests run at (what scripts/tui_tmux.sh uses too).
SIZE = (160, 48)


def pane_texts(screen) -> dict[str, object]:
    """Every pane's text on the main screen: what a person sees, as plain strings."""
    from minigrad.tui.widgets import (
        BuffersView,
        EventLog,
        GeneralGradView,
        GraphView,
        InDegreeView,
        NodeDetail,
        QueueView,
        StatusLine,
    )

    return {
        "graph": screen.query_one(GraphView).plain_lines(),
        "graph_cursor": screen.query_one(GraphView).cursor,
        "queue": screen.query_one(QueueView).plain,
        "indegree": screen.query_one(InDegreeView).plain_lines(),
        "indegree_title": screen.query_one(InDegreeView).border_subtitle,
        "buffers": screen.query_one(BuffersView).plain,
        "detail": screen.query_one(NodeDetail).plain,
        "log_cursor": screen.query_one(EventLog).cursor,
        "general": screen.query_one(GeneralGradView).plain,
        "status": screen.query_one(StatusLine).plain,
    }
