"""Pilot tests: every key binding of the main screen, on a recorded trace.

The trace is ``fixtures/synthetic_small.jsonl`` (built by ``synth.small()``):
pass 1 is ``loss.backward()`` over events 41–77 with node runs at 46, 51, 59,
64, 72, 75; pass 2 is a ``grad()`` over events 78–111.
"""

from __future__ import annotations

import sys
import types

from tui_support import SIZE, pane_texts
from minigrad.tui.app import MinigradApp
from minigrad.tui.screens import HelpScreen, JumpScreen, MainScreen, PassScreen, QuizScreen
from minigrad.tui.screens.main import SPEEDS
from textual.widgets import TabbedContent

RUNS = (46, 51, 59, 64, 72, 75)


async def test_opens_at_the_first_pass(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.main_screen
        assert isinstance(scr, MainScreen)
        assert (scr.pass_no, scr.index) == (0, 41)
        assert "pass 0 of 0–1 loss.backward()" in pane_texts(scr)["status"]


async def test_next_and_previous_event(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("right", "right", "l")
        assert scr.index == 44
        await pilot.press("left", "h")
        assert scr.index == 42


async def test_next_and_previous_node_run(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("n")
        assert scr.index == RUNS[0]
        await pilot.press("n", "right_square_bracket")
        assert scr.index == RUNS[2]
        await pilot.press("b")
        assert scr.index == RUNS[1]
        await pilot.press("left_square_bracket")
        assert scr.index == RUNS[0]
        await pilot.press("b")  # before the first run: the pass's first event
        assert scr.index == 41


async def test_start_and_end(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("end")
        assert scr.index == 77
        await pilot.press("home")
        assert scr.index == 41
        await pilot.press("G")
        assert scr.index == 77
        await pilot.press("home")
        assert scr.index == 41


async def test_play_pause_and_speed(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        start_speed = scr.speed
        await pilot.press("plus")
        assert scr.speed == start_speed + 1
        await pilot.press("minus", "minus")
        assert scr.speed == start_speed - 1
        for _ in range(len(SPEEDS)):
            await pilot.press("plus")
        assert scr.speed == len(SPEEDS) - 1  # clamped at the fastest
        for _ in range(len(SPEEDS) - 4):
            await pilot.press("minus")
        assert SPEEDS[scr.speed] == 8.0
        await pilot.press("space")
        assert scr.playing
        await pilot.pause(0.5)
        assert scr.playing
        await pilot.press("space")
        assert not scr.playing
        moved = scr.index
        assert 41 < moved < 77
        await pilot.pause(0.2)
        assert scr.index == moved  # paused means paused
        assert "paused" in pane_texts(scr)["status"]


async def test_play_stops_at_the_end_of_the_pass(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("end", "minus")  # step back a little from the end
        await pilot.press("left", "left")
        for _ in range(len(SPEEDS)):
            await pilot.press("plus")
        await pilot.press("space")
        await pilot.pause(1.0)
        assert scr.index == 77 and not scr.playing


async def test_jump_to_node_by_name(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("j")
        assert isinstance(app.screen, JumpScreen)
        await pilot.press(*"tanhback", "enter")
        assert app.screen is scr
        assert scr.index == 59  # where TanhBackward0#3 runs
        texts = pane_texts(scr)
        assert texts["detail"].startswith("TanhBackward0#3")
        assert "◀ selected" in texts["graph"][texts["graph_cursor"]]
        # by id, and a name that matches nothing
        await pilot.press("j", "#", "2", "enter")
        assert scr.index == 64
        await pilot.press("j", *"nosuchnode", "enter")
        assert scr.index == 64
        assert any("No node matching" in n.message for n in app._notifications)
        await pilot.press("j", "escape")
        assert app.screen is scr


async def test_toggle_general_grad_marks(synthetic_session):
    app = MinigradApp(synthetic_session, initial_pass=1)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("end")
        graph = pane_texts(scr)["graph"]
        line = {ln.split()[2]: ln for ln in graph}
        assert "[startup]" in line["SumBackward0#11"]
        assert "[ending]" in line["AccumulateGrad#6"] and "[input]" in line["AccumulateGrad#6"]
        assert "[pruned]" in line["TanhBackward0#9"] and "[no_grad]" in line["TanhBackward0#9"]
        assert "✂ TanhBackward0#9 (1,0)" in line["AddBackward0#10"]
        assert "[needed]" in line["MultiplyBackward#8"]
        await pilot.press("m")
        assert not scr.marks
        graph = pane_texts(scr)["graph"]
        assert not any("[startup]" in ln or "[pruned]" in ln or "✂" in ln for ln in graph)
        assert "marks in the graph pane: off" in pane_texts(scr)["general"]
        await pilot.press("m")
        assert any("[startup]" in ln for ln in pane_texts(scr)["graph"])


async def test_choose_pass(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("c")
        assert isinstance(app.screen, PassScreen)
        await pilot.press("down", "enter")
        assert app.screen is scr
        assert (scr.pass_no, scr.index) == (1, 78)
        assert "pass 1 of 0–1 grad()" in pane_texts(scr)["status"]
        await pilot.press("c", "escape")
        assert scr.pass_no == 1


async def test_tabs(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        tabs = app.main_screen.query_one(TabbedContent)
        await pilot.press("2")
        assert tabs.active == "tab-forward"
        await pilot.press("3")
        assert tabs.active == "tab-general"
        await pilot.press("1")
        assert tabs.active == "tab-backward"


async def test_help_opens_and_closes(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query_one("#help-keys").render()
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("question_mark", "question_mark")
        assert isinstance(app.screen, MainScreen)
        assert keys is not None


async def test_quit(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_export_svg_through_viz(synthetic_session, tmp_path, monkeypatch):
    calls = []

    class Rendered:
        def __init__(self, source, kind, step, backward_pass):
            calls.append((len(source), kind, step, backward_pass))

        def save(self, path):
            with open(path, "w") as fh:
                fh.write("<svg/>")

    fake = types.ModuleType("minigrad.viz")
    fake.render = lambda source, kind="backward", step=None, backward_pass=None: Rendered(source, kind, step, backward_pass)
    monkeypatch.setitem(sys.modules, "minigrad.viz", fake)
    app = MinigradApp(synthetic_session, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any("wrote" in n.message for n in app._notifications)
    assert calls == [(len(synthetic_session.events), "backward", 46, 0)]
    out = tmp_path / "minigrad-synthetic_small.jsonl-event46.svg"
    assert out.read_text() == "<svg/>"


async def test_export_svg_without_renderer_says_so(synthetic_session, tmp_path, monkeypatch):
    fake = types.ModuleType("minigrad.viz")  # a renderer package without render()
    monkeypatch.setitem(sys.modules, "minigrad.viz", fake)
    # ``from minigrad.viz import render`` would otherwise find the submodule viz/render.py when an
    # earlier test imported it; without it, the fake (not a package) has no render to offer.
    monkeypatch.delitem(sys.modules, "minigrad.viz.render", raising=False)
    # ``from minigrad.viz import render`` would otherwise find the submodule viz/render.py when an
    # earlier test imported it; without it, the fake (not a package) has no render to offer.
    monkeypatch.delitem(sys.modules, "minigrad.viz.render", raising=False)
    app = MinigradApp(synthetic_session, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
    assert any("needs the renderer minigrad.viz" in m for m in messages)
    assert list(tmp_path.iterdir()) == []


async def test_quiz_scores_answers(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("t")
        assert scr.quiz_on
        # Question 1: before SumBackward0#5 is popped.
        await pilot.press("n")
        assert isinstance(app.screen, QuizScreen)
        assert scr.index == 44  # stopped just before the pop: the queue still holds the answer
        await pilot.press(*"SumBackward0#5", "enter")  # right
        await pilot.press(*"0", "enter")  # AddBackward0#4 -> 0: right
        await pilot.press("enter")
        assert app.screen is scr and scr.index == 46
        assert (scr.score.nodes_right, scr.score.nodes_asked) == (1, 1)
        assert (scr.score.degrees_right, scr.score.degrees_asked) == (1, 1)
        # Question 2: AddBackward0#4 runs; its next nodes end at in-degrees 1 (Multiply) and 0 (Tanh).
        await pilot.press("n")
        assert isinstance(app.screen, QuizScreen)
        await pilot.press(*"TanhBackward0", "enter")  # wrong node
        feedback = str(app.screen.query_one("#quiz-feedback").render())
        assert "why: it was at the front of the ready queue, and the engine always pops the front" in feedback
        assert "was not in the ready queue: its in-degree was not 0 yet" in feedback
        await pilot.press(*"1 0", "enter")  # right in-degrees
        feedback = str(app.screen.query_one("#quiz-feedback").render())
        assert "lowers its next node's in-degree by one" in feedback
        await pilot.press("enter")
        assert scr.index == 51
        assert str(scr.score) == "node 1/2 · in-degree 2/2"
        # Question 3: answer by id, wrong in-degree.
        await pilot.press("n", "#", "3", "enter", "5", "enter", "enter")
        assert str(scr.score) == "node 2/3 · in-degree 2/3"
        assert "QUIZ node 2/3 · in-degree 2/3" in pane_texts(scr)["status"]
        # Escape skips a question without scoring it.
        await pilot.press("n", "escape")
        assert str(scr.score) == "node 2/3 · in-degree 2/3"
        # Going back and forth does not ask the same question twice.
        await pilot.press("b", "b", "n")
        assert app.screen is scr
        # Quiz off: no more questions.
        await pilot.press("t", "end")
        assert app.screen is scr and scr.index == 77


async def test_quiz_node_without_next_nodes_asks_only_the_node(synthetic_session):
    app = MinigradApp(synthetic_session)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press(*["n"] * 4)  # up to MultiplyBackward#2's run, quiz off
        await pilot.press("t", "n")
        quiz = app.screen
        assert isinstance(quiz, QuizScreen)
        assert quiz.q.candidates == (1, 0)  # both AccumulationNodes were pushed to the FRONT
        await pilot.press(*"AccumulateGrad#0", "enter")  # wrong: #0 waits behind it
        feedback = str(quiz.query_one("#quiz-feedback").render())
        assert "AccumulateGrad nodes are pushed to the front" in feedback
        assert "AccumulateGrad#0 was at position 1 of the queue; only the front runs" in feedback
        await pilot.press("enter")
        assert app.screen is scr and scr.index == 72
        assert str(scr.score) == "node 0/1 · in-degree 0/0"


async def test_export_svg_with_the_real_renderer(demo_session, tmp_path):
    """``s`` with the real ``minigrad.viz``: an SVG (or, without Graphviz, DOT source) of the state on screen."""
    import pytest

    viz = pytest.importorskip("minigrad.viz")
    if not hasattr(viz, "render"):
        pytest.skip("this minigrad.viz has no render()")
    app = MinigradApp(demo_session, initial_pass=1, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        messages = [n.message for n in app._notifications]
    written = list(tmp_path.iterdir())
    assert written, messages
    text = written[0].read_text()
    assert "<svg" in text or "digraph" in text
    assert any(f"wrote {written[0]}" in m for m in messages)
