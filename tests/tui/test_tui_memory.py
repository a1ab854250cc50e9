"""The Memory tab: bytes alive over the events with the current event marked, and the focused
node's saved tensors, all from ``mg.trace.memory`` of the same events."""

from __future__ import annotations

from tui_support import SIZE
from minigrad.tracing.memory import format_bytes
from minigrad.tui.app import MinigradApp
from minigrad.tui.widgets import MemoryView


async def test_the_memory_tab_shows_bytes_alive_and_what_the_running_node_saved(demo_session):
    mem = demo_session.replay.memory
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("4")
        assert scr.query_one("#tabs").active == "tab-memory"
        scr.goto(111)  # the first node run of pass 1
        await pilot.pause()
        view = scr.query_one(MemoryView)
        text = view.plain
        at = mem.at(111)
        assert f"alive after event 111: {format_bytes(at.total)}" in text
        assert f"saved {format_bytes(at.saved)}" in text
        peak = mem.peak_event()
        assert f"peak {format_bytes(mem.peak_bytes)} at event {peak['index']} ({peak['kind']})" in text
        node = demo_session.state(111).event.node
        saved = mem.saved_by(node)
        assert f"{mem.nodes[node].name} saved {len(mem.nodes[node].saved)} tensor" in text
        for s in saved:
            assert any(s.name in line and format_bytes(s.bytes) in line for line in text.splitlines())
        marker_line = next(line for line in text.splitlines() if "▲ now" in line)
        first_marker = marker_line.index("▲")
        await pilot.press("end")  # the marker moves right with time
        later = next(line for line in view.plain.splitlines() if "▲ now" in line)
        assert later.index("▲") > first_marker
        scr.goto(0)
        await pilot.pause()
        assert "no grad node in focus" in view.plain


async def test_a_freed_node_says_when_its_tensors_were_released(demo_session):
    mem = demo_session.replay.memory
    second = demo_session.passes[1]  # pass 1 retains its graph; pass 2 (grad()) releases its copies
    freed = next(n for n in mem.nodes.values() if n.freed_at is not None and n.held)
    assert second.begin < freed.freed_at < second.end
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("4")
        scr.select_pass(1)
        scr.goto(second.end)  # moving in time clears the selection: select after
        scr.selected = freed.id
        scr.redraw()
        await pilot.pause()
        assert f"freed at event {freed.freed_at}" in scr.query_one(MemoryView).plain


async def test_screenshot_of_the_memory_tab(tmp_path):
    """With MINIGRAD_UPDATE_SCREENSHOTS=1 the picture goes to docs/images/tui-memory.svg."""
    import os
    from pathlib import Path

    from _memory_program import checkpointed_mlp_events
    from minigrad.tui.model import Session

    events = checkpointed_mlp_events()
    kinds = [e.kind for e in events]
    run = next(i for i in range(kinds.index("recompute.end"), len(kinds)) if kinds[i] == "node.run")
    app = MinigradApp(Session(events, title="checkpointed MLP"))
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("4")
        scr.goto(run)
        await pilot.pause()
        assert "packed by a hook" in scr.query_one(MemoryView).plain
        root = Path(__file__).resolve().parents[2]
        out = root / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else tmp_path
        app.save_screenshot("tui-memory.svg", str(out))
    assert (out / "tui-memory.svg").read_text().startswith("<svg")


async def test_the_chart_zooms_to_the_span_of_the_event_and_labels_its_axes():
    import re

    from _memory_program import two_steps_then_sampling_events
    from minigrad.tui.model import Session

    events = two_steps_then_sampling_events()
    session = Session(events, title="two steps")
    mem = session.replay.memory
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("4")
        for ev in (mem.backward_spans[0][0] + 2, mem.backward_spans[1][0] + 3):
            scr.goto(ev)
            await pilot.pause()
            text = scr.query_one(MemoryView).plain
            lo, hi, _ = mem.window(ev)
            largest = max(p.total for p in mem.timeline[lo:hi + 1])
            assert "bytes alive" in text and f"{format_bytes(largest)} ┤" in text and "0 B ┤" in text
            axis = next(line for line in text.splitlines() if "events →" in line)
            assert re.search(rf"event {lo}\s+events →\s+event {hi}$", axis.rstrip()), axis
            assert f"shown: events {lo}–{hi}" in text and f"0 to this span's largest ({format_bytes(largest)})" in text
        assert lo == mem.backward_spans[0][1] + 1  # the second pass's span starts after the first
