"""Helpers for the web stepper's browser tests: read the panes the DOM contract names (docs/web.md)."""

from __future__ import annotations

from typing import Any

from minigrad.tracing.replay import Replay

SHOWN = "#minigrad-stepper"


def event_shown(page: Any) -> int:
    """The root's ``data-event``: the event number on screen."""
    return int(page.get_attribute(SHOWN, "data-event"))


def queue_pane(page: Any) -> list[int]:
    """Node ids in the queue pane, front first."""
    return [int(x) for x in page.eval_on_selector_all("#queue li[data-node]", "els => els.map(e => e.dataset.node)")]


def in_degree_pane(page: Any) -> dict[int, int]:
    """``{node id: in-degree}`` of the rows of the in-degree pane that show a count."""
    rows = page.eval_on_selector_all("#in-degree tr[data-in-degree]", "els => els.map(e => [e.dataset.node, e.dataset.inDegree])")
    return {int(n): int(d) for n, d in rows}


def statuses(page: Any) -> dict[int, str]:
    """``{node id: status}`` of the graph pane's nodes."""
    rows = page.eval_on_selector_all("#graph [data-node][data-status]", "els => els.map(e => [e.dataset.node, e.dataset.status])")
    return {int(n): s for n, s in rows}


def agree_with_replay(page: Any, rp: Replay, number: int) -> int:
    """Assert the queue and in-degree panes show ``rp``'s state at the event on screen; return that event."""
    i = event_shown(page)
    bw = rp[i].passes[number]
    assert queue_pane(page) == list(bw.queue), f"queue pane at event {i}"
    assert in_degree_pane(page) == dict(bw.in_degree), f"in-degree pane at event {i}"
    return i
