"""SVG snapshots of the main screen at three steps of the recorded demo (``fixtures/demo.jsonl``).

Update after an intended change with ``pytest tests/tui --snapshot-update``
and look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from tui_support import FIXTURES, SIZE
from minigrad.tracing import load
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session


def demo_app() -> MinigradApp:
    return MinigradApp(Session(load(FIXTURES / "demo.jsonl").events, title="demo.jsonl"))


def test_snapshot_pass_begins(snap_compare):
    """Event 109: the in-degree map is computed, the start node waits in the queue."""
    assert snap_compare(demo_app(), press=["right", "right", "right"], terminal_size=SIZE)


def test_snapshot_mul_node_runs(snap_compare):
    """The sixth node run: MulBackward0#12 (b1 * b1) has begun (node.begin) and its formula starts."""
    assert snap_compare(demo_app(), press=["n"] * 6 + ["right"], terminal_size=SIZE)


def test_snapshot_grad_pass_ends_with_general_grad_marks(snap_compare):
    """The end of pass 1 (the second), ``mg.grad`` with ``no_grad_vars``: startup, ending, needed, pruned marks."""
    assert snap_compare(demo_app(), press=["c", "down", "enter", "end"], terminal_size=SIZE)


def test_snapshot_80x24_graph(snap_compare):
    """The smallest supported terminal: the 2-D graph alone, the why line above it (``v`` cycles views)."""
    assert snap_compare(demo_app(), press=["n"] * 6, terminal_size=(80, 24))


def test_snapshot_help_with_glossary(snap_compare):
    """``?``: keys, the status legend and the glossary."""
    assert snap_compare(demo_app(), press=["question_mark"], terminal_size=SIZE)


def test_snapshot_versions_tab(snap_compare, monkeypatch):
    """``5`` on ``fixtures/versions.jsonl`` (``h = x * 2; h[1].mul_(3); h.sum().backward()``): the version
    timeline of h, no stale saved tensor, h's history rewritten by a CopySlices node and the replaced edge."""
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the recording's source lines name checkout paths
    app = MinigradApp(Session(load(FIXTURES / "versions.jsonl").events, title="versions.jsonl"))
    assert snap_compare(app, press=["5"], terminal_size=SIZE)
