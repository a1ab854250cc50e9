"""The node detail names where a node came from: the user's source line and the nn.Module path."""

from __future__ import annotations

import inspect

import minigrad as mg
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session


async def test_tui_node_detail_names_the_origin():
    with mg.trace() as tr:
        model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU(), mg.nn.Linear(3, 1))
        line = inspect.currentframe().f_lineno + 1
        model(mg.ones(1, 2)).sum().backward()
    app = MinigradApp(Session(tr.events, title="model"))
    async with app.run_test(size=(160, 48)) as pilot:
        scr = app.main_screen
        scr.jump_to("ReluBackward0")
        await pilot.pause()
        detail = scr.query_one("#detail").plain
        assert f"made at test_tui_provenance.py:{line}  in module Sequential.1 (ReLU)" in detail


async def test_u_folds_each_module_into_one_box():
    import shutil

    import pytest

    if shutil.which("dot") is None:
        pytest.skip("the 2-D pane needs Graphviz's dot")
    from minigrad.tui.widgets import GraphCanvas

    with mg.trace() as tr:
        model = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU(), mg.nn.Linear(3, 1))
        model(mg.ones(1, 2)).sum().backward()
    app = MinigradApp(Session(tr.events, title="model"))
    async with app.run_test(size=(160, 48)) as pilot:
        scr = app.main_screen
        canvas = scr.query_one(GraphCanvas)
        every = len(canvas.canvas.boxes)
        await pilot.press("u")
        text = "\n".join(canvas.plain_lines())
        assert "▣ Sequential.0 (Linear) · 4 nodes" in text and "▣ Sequential.2 (Linear) · 4 nodes" in text
        assert len(canvas.canvas.boxes) == every - 6  # two modules of 4 nodes became 2 boxes
        await pilot.press("end")
        assert "ran 4/4" in "\n".join(canvas.plain_lines())
        await pilot.press("u")
        assert len(canvas.canvas.boxes) == every


async def test_the_demo_names_its_own_source_lines():
    """``minigrad-tui`` with no argument: each node was made at a line of ``tui/demo.py`` (not the console script)."""
    from pathlib import Path

    from minigrad.tui import demo
    from minigrad.tui.app import open_source

    session, error = open_source(None)
    assert error is None
    lines = Path(demo.__file__).read_text().splitlines()
    nodes = session.replay.final.nodes
    sources = {info.source for info in nodes.values()}
    assert all(s is not None and s.startswith(demo.__file__ + ":") for s in sources), sources
    tanh = next(info for info in nodes.values() if info.op == "tanh" and info.copy_of is None)
    assert ".tanh()" in lines[int(tanh.source.rsplit(":", 1)[1]) - 1]
    app = MinigradApp(session)
    async with app.run_test(size=(160, 48)) as pilot:
        scr = app.main_screen
        scr.jump_to(tanh.name)
        await pilot.pause()
        assert f"made at demo.py:{tanh.source.rsplit(':', 1)[1]}" in scr.query_one("#detail").plain
