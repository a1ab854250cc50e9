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
        scr.jump_to("ReluGradNode")
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
