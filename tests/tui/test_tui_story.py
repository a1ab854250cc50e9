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
from tui_support import SIZE, pane_texts
from minigrad.tracing import load
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session
from minigrad.tui.widgets import GraphCanvas, NodeDetail, StatusLine, VersionsView

from _story_program import PROGRAM  # noqa: E402


@pytest.fixture
def recording(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # the recording names prog.py by a relative path, as `minigrad record` does
    Path("prog.py").write_text(PROGRAM, encoding="utf-8")
    with mg.trace() as tr:
        with pytest.raises(RuntimeError):
            exec(compile(PROGRAM, "prog.py", "exec"), {"__name__": "__main__"})
    tr.save("prog.jsonl")
    return tmp_path / "prog.jsonl"


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
