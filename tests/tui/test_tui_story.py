"""The TUI keeps the whole story of the two programs a student tried: the error that ended the second
pass (in the pass chooser, the header and where the step would have been), what the script called, the
student's names, no invented edge, and the stale saved tensor marked in the node detail.

The programs are recorded here, from a file (so their lines are quoted), into a ``.jsonl`` that the
app reads as it reads any recording.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

import minigrad as mg
from minigrad.errors import ShapeError
from tui_support import SIZE, pane_texts
from minigrad.tracing import load
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session
from minigrad.tui.widgets import GraphCanvas, NodeDetail, StatusLine, VersionsView

from _story_program import PROGRAM  # noqa: E402


def record_failing(tmp_path: Path, name: str, program: str, error: type[BaseException]) -> Path:
    """``program`` saved as ``name``.py and run while recording, raising ``error``; the recording's path.
    (The working directory is ``tmp_path``: the recording names the file by a relative path, as
    `minigrad record` does.)"""
    Path(f"{name}.py").write_text(program, encoding="utf-8")
    with mg.trace() as tr:
        with pytest.raises(error):
            exec(compile(program, f"{name}.py", "exec"), {"__name__": "__main__"})
    tr.save(f"{name}.jsonl")
    return tmp_path / f"{name}.jsonl"


@pytest.fixture
def recording(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return record_failing(tmp_path, "prog", PROGRAM, RuntimeError)


def test_the_passes_say_what_the_script_called_and_which_an_error_ended(recording):
    s = Session(load(recording).events, title="prog.jsonl")
    first, second = s.passes
    assert first.call == "h.sum().backward()" and first.ending is None and first.complete
    assert second.call == "y.sum().backward()" and second.ending == "ended by RuntimeError at prog.py:9"
    assert second.label.endswith("[ended by RuntimeError at prog.py:9]")
    assert second.end == len(s.events) - 1 and s.events[second.end].kind == "error"
    assert "tensor 'y' saved by" in second.message
    assert all("loss" not in p.label for p in s.passes)  # the script has no `loss`


async def test_the_tui_shows_the_error_the_names_and_the_stale_mark(recording):
    s = Session(load(recording).events, title="prog.jsonl")
    second = s.passes[1]
    error = s.events[second.end]
    bump_at = next(i for i, e in enumerate(s.events) if e.kind == "tensor.version" and s.tensor_name(e.tensor) == "y")
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("c")  # the pass chooser marks the pass the error ended
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(k).prompt) for k in range(options.option_count)]
        assert labels[1].endswith("[ended by RuntimeError at prog.py:9]") and "y.sum().backward()" in labels[1]
        await pilot.press("escape")
        scr.select_pass(1)
        await pilot.pause()
        status = scr.query_one(StatusLine).plain
        assert "y.sum().backward()" in status and "ended by RuntimeError at prog.py:9" in status
        assert "loss.backward()" not in status
        # Before the refusal the node detail of exp's node marks y stale, by its name.
        exp_node = error.node
        scr.goto(second.begin)
        await pilot.pause()
        scr.selected = exp_node
        scr.redraw()
        await pilot.pause()
        detail = scr.query_one(NodeDetail).plain
        assert "y [2, 3] ✘ stale: saved at v0, now v1" in detail and "RuntimeError" not in detail
        # At the refusal: the message where the step would have been, in the node detail and the status line.
        scr.selected = None
        scr.goto(second.end)
        await pilot.pause()
        texts = pane_texts(scr)
        assert f"✘ RuntimeError at prog.py:9: {error.message}" in texts["detail"].replace("\n", " ")
        assert "ExpBackward0" in texts["detail"] or s.node_name(exp_node) in texts["detail"]
        assert error.message[:60] in texts["status"].replace("\n", " ")
        # The Versions tab says the refusal happened, at its event; before it, that backward will refuse.
        await pilot.press("5")
        scr.goto(second.end)
        await pilot.pause()
        versions = scr.query_one(VersionsView).plain
        assert f"saved y at v0, now v1 — refused at event {second.end}" in versions
        scr.goto(bump_at)
        await pilot.pause()
        assert "saved y at v0, now v1 — backward will refuse" in scr.query_one(VersionsView).plain


async def test_no_invented_edge_and_the_student_s_names_in_the_first_pass(recording):
    s = Session(load(recording).events, title="prog.jsonl")
    assert s.layout(0).replaced == ()  # h.sum() ran after h[1].mul_(3): no edge of it was ever replaced
    names = {info.name for info in s.replay.final.tensors.values()}
    assert {"x", "h", "y"} <= names
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        picture = "\n".join(app.main_screen.query_one(GraphCanvas).plain_lines())
        assert "CopySlices: h" in picture and "replaced" not in picture


#: A pass that runs, then a forward op that fails: the error ends the run outside every pass.
SHAPE_PROGRAM = """\
import minigrad as torch

w = torch.randn(5, 3, requires_grad=True)
loss = (torch.ones(5) @ w).sum()
loss.backward()
bad = w @ torch.ones(4)
"""


@pytest.fixture
def shape_recording(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return record_failing(tmp_path, "shape", SHAPE_PROGRAM, ShapeError)


async def test_an_error_after_the_last_pass_is_shown_and_can_be_reached(shape_recording):
    s = Session(load(shape_recording).events, title="shape.jsonl")
    (only,) = s.passes
    assert only.ending is None and only.end < len(s.events) - 1
    assert s.ending is not None and s.ending["at"] == len(s.events) - 1 and s.ending["op"] == "matmul"
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.pause()
        # The banner under the status line says how the run ended, from the first screen on.
        banner = str(scr.query_one("#crash").render())
        assert banner.startswith("✘ The run ended with ShapeError in matmul() at shape.py:6: ")
        assert s.ending["message"] in banner and f"event {s.ending['at']}" in banner
        assert scr.index == only.begin  # the app still opens on the pass
        # The pass chooser lists it after the passes; choosing it goes to the error's event.
        await pilot.press("c")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(k).prompt) for k in range(options.option_count)]
        assert len(labels) == 2 and labels[1].startswith("✘ then the run ended with ShapeError in matmul() at shape.py:6")
        options.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
        assert scr.index == s.ending["at"] and scr.pass_no == 0
        status = scr.query_one(StatusLine).plain
        assert "(after it)" in status and "ShapeError in matmul() at shape.py:6" in status
    assert app.crash is None  # a recording that ends in an error is not a failed viewer: the exit status stays 0


async def test_a_run_that_ended_well_shows_no_banner(recording, tmp_path):
    with mg.trace() as tr:
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
    s = Session(tr.events, title="fine")
    assert s.ending is None
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.main_screen.query_one("#crash").has_class("shown")
