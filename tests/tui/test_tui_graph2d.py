"""The 2-D graph pane: boxes in Graphviz's layers, routed edges, status, queue and GeneralGrad marks; small screens."""

from __future__ import annotations

import shutil

import pytest
from tui_support import SIZE, pane_texts

from minigrad.tui.app import MinigradApp
from minigrad.tui.layout2d import MAX_NODES
from minigrad.tui.widgets import EventLog, GraphCanvas, GraphView

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="the 2-D pane is laid out by Graphviz's dot")


def _box_row(lines: list[str], name: str) -> int:
    return next(i for i, ln in enumerate(lines) if f" {name} " in ln)


async def test_demo_diamond_reads_as_a_diamond(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE):
        scr = app.main_screen
        canvas = scr.query_one(GraphCanvas)
        assert canvas.display and not scr.query_one(GraphView).display
        c = canvas.canvas
        assert len(c.boxes) == 14
        add, s11, s13 = c.boxes[14], c.boxes[11], c.boxes[13]
        # loss = s11 + s13: one node above two side by side, both fed from it.
        assert s11.y == s13.y > add.y and s11.x != s13.x
        lines = canvas.plain_lines()
        assert "AddBackward0#14" in lines[add.y] and "SumBackward0#11" in lines[s11.y] and "SumBackward0#13" in lines[s13.y]
        between = "".join(lines[add.y + 3 : s11.y])
        assert "▼" in between and ("╱" in between or "│" in between) and ("╲" in between or "│" in between)


async def test_boxes_follow_the_steps(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        canvas = scr.query_one(GraphCanvas)
        await pilot.press(*["n"] * 6)  # MulBackward0#12 runs
        lines = canvas.plain_lines()
        row = lines[_box_row(lines, "MulBackward0#12")]
        assert "▶ MulBackward0#12" in row  # running glyph on the current node
        counters = lines[_box_row(lines, "AddBackward0#8") + 1]
        assert "Q1" in counters[canvas.canvas.boxes[8].x : canvas.canvas.boxes[8].x + canvas.canvas.boxes[8].width]
        acc = canvas.canvas.boxes[4]
        assert "b1" in lines[acc.y + 1][acc.x : acc.x + acc.width]  # an AccumulationNode names its leaf
        assert lines[acc.y][acc.x] == "╭"  # ... and has round corners
        assert "✓" in "".join(lines) or "●" in "".join(lines)  # nodes that ran
        # the current node is on screen
        top = int(canvas.scroll_offset.y)
        assert top <= canvas.canvas.boxes[12].y < top + canvas.size.height
        await pilot.press("end")
        assert all(" ○ " not in ln for ln in canvas.plain_lines())  # nothing pending at the end


async def test_grad_pass_shows_marks_and_cut_edges(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        scr.select_pass(1)
        await pilot.pause()
        await pilot.press("end")
        canvas = scr.query_one(GraphCanvas)
        text = "\n".join(canvas.plain_lines())
        assert "startup" in text and "ending" in text
        assert "✂" in text  # the edge no_grad_vars cut
        assert "╳" in text  # a pruned copy


async def test_g_toggles_the_list_view_and_big_graphs_open_as_a_list(demo_session, monkeypatch):
    import minigrad.tui.screens.main as main_screen

    monkeypatch.setattr(main_screen, "MAX_NODES", 10)  # the demo's 14 boxes are "too many"
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        assert scr.query_one(GraphView).display and not scr.query_one(GraphCanvas).display
        await pilot.press("g")
        assert scr.query_one(GraphCanvas).display


async def test_long_chains_fold_into_one_box_that_names_the_running_node():
    import synth

    from minigrad.tui.model import Session

    session = Session(synth.chain(MAX_NODES + 50), title="chain")
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        canvas = scr.query_one(GraphCanvas)
        assert canvas.display and len(canvas.canvas.boxes) < 10 and canvas.canvas.folds
        scr.goto(session.layout(0).runs[100])
        await pilot.pause()
        node = session.events[scr.index].node
        box = canvas.canvas.box_of(node)
        assert box.node < 0  # inside a fold
        lines = canvas.plain_lines()
        assert f"▶ {session.node_name(node)}" in lines[box.y + 1] and "ran 100/" in lines[box.y + 1]
        assert "▶ ⋯" in lines[box.y]


async def test_80x24_one_view_at_a_time_and_a_notice_when_smaller(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=(80, 24)) as pilot:
        scr = app.main_screen
        await pilot.pause()
        assert scr.has_class("narrow") and scr.has_class("view-graph")
        canvas = scr.query_one(GraphCanvas)
        assert canvas.size.height >= 10 and canvas.size.width >= 70
        assert "why:" in pane_texts(scr)["status"]
        status = scr.query_one("#status")
        assert status.content_size.height >= len(status.plain.splitlines()) == 4  # nothing cut off
        await pilot.press("v")
        await pilot.pause()
        assert scr.query_one("#queue").size.height > 0 and canvas.size.height == 0
        assert scr.has_class("view-engine")
        log = scr.query_one(EventLog)
        assert log.size.height > 0
        await pilot.press("v")
        assert scr.has_class("view-detail") and scr.query_one("#detail").size.height >= 10
        await pilot.resize_terminal(70, 20)
        await pilot.pause()
        assert scr.has_class("too-small")
        assert "needs a terminal of at least 80x24" in str(scr.query_one("#too-small").render())


async def test_event_log_opens_at_the_current_event(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.main_screen
        log = scr.query_one(EventLog)
        assert scr.index > 100
        assert any(ln.lstrip().startswith(f"{scr.index} ") for ln in log.visible_lines())
