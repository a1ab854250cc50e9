"""``minigrad-tui --diff A B``: the diff screen opens at the first divergence and steps both sides together.

B is the recorded fixture with one event changed (event 53: an in-degree
update that says 0 instead of 1), so the first divergence is known exactly.
"""

from __future__ import annotations

import copy

from tui_support import FIXTURES, SIZE
from minigrad.tracing import load
from minigrad.tracing.diff import diff
from minigrad.tracing.recorder import Recorder
from minigrad.tui.app import MinigradApp, main, open_diff
from minigrad.tui.screens import DiffScreen, ErrorScreen
from minigrad.tui.widgets.diff_side import DiffSide

CHANGED = 53


def tampered(tmp_path):
    events = [copy.copy(e) for e in load(FIXTURES / "synthetic_small.jsonl").events]
    assert events[CHANGED].kind == "in_degree.update" and events[CHANGED].in_degree == 1
    events[CHANGED].in_degree = 0
    path = tmp_path / "tampered.jsonl"
    Recorder(events=events).save(path)
    return path


def diff_app(a, b, kinds=None) -> MinigradApp:
    left, compare, error = open_diff(str(a), str(b), kinds)
    assert error is None
    return MinigradApp(left, compare=compare)


async def test_opens_at_the_first_divergence_with_both_sides(tmp_path):
    app = diff_app(FIXTURES / "synthetic_small.jsonl", tampered(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, DiffScreen)
        assert scr.step == CHANGED
        left, right = scr.query_one("#side-a", DiffSide), scr.query_one("#side-b", DiffSide)
        assert (left.index, right.index) == (CHANGED, CHANGED)
        assert left.has_class("differs") and right.has_class("differs")
        assert "in_degree.update" in left.plain() and "ready queue" in left.plain()
        head = str(scr.query_one("#diff-headline").render())
        assert "first divergence" in head and "in_degree" in head
        assert "DIFFERS" in str(scr.query_one("#diff-status").render())


async def test_keys_step_both_sides_together(tmp_path):
    app = diff_app(FIXTURES / "synthetic_small.jsonl", tampered(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        scr = app.screen
        await pilot.press("right", "l")
        left, right = scr.query_one("#side-a", DiffSide), scr.query_one("#side-b", DiffSide)
        assert scr.step == CHANGED + 2 and left.index == right.index == CHANGED + 2
        assert not left.has_class("differs"), "after the changed event the recordings agree again"
        await pilot.press("left", "h", "h")
        assert scr.step == CHANGED - 1 and "same" in str(scr.query_one("#diff-status").render())
        await pilot.press("home")
        assert scr.step == 0
        await pilot.press("d")
        assert scr.step == CHANGED
        await pilot.press("end")
        assert scr.step == len(scr.pos_a) - 1
        await pilot.press("f")
        assert scr.step == CHANGED


async def test_equal_recordings_say_so(tmp_path):
    app = diff_app(FIXTURES / "synthetic_small.jsonl", FIXTURES / "synthetic_small.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, DiffScreen) and scr.step == 0
        assert "agree" in str(scr.query_one("#diff-headline").render())
        await pilot.press("d")
        assert scr.step == 0


async def test_one_recording_shorter_shows_its_end(tmp_path):
    events = load(FIXTURES / "synthetic_small.jsonl").events
    short = tmp_path / "short.jsonl"
    Recorder(events=list(events[:60])).save(short)
    app = diff_app(short, FIXTURES / "synthetic_small.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.screen
        left = scr.query_one("#side-a", DiffSide)
        assert scr.step == 60 and left.index is None and "ended" in left.plain()


async def test_kind_filter_steps_through_queue_events_only(tmp_path):
    app = diff_app(FIXTURES / "synthetic_small.jsonl", tampered(tmp_path), kinds=["queue.*"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.screen
        assert all(scr.a.events[i].kind.startswith("queue.") for i in scr.pos_a)
        # The tampered in-degree update is not compared; the queue events still agree.
        assert "agree" in str(scr.query_one("#diff-headline").render())


async def test_a_bad_file_gets_the_error_screen(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a trace\n")
    left, compare, error = open_diff(str(FIXTURES / "synthetic_small.jsonl"), str(bad))
    assert left is None and compare is None and "not a readable minigrad trace" in error
    app = MinigradApp(None, error=error)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)


def test_the_diff_matches_the_library_diff(tmp_path):
    path = tampered(tmp_path)
    _, (_, result), _ = open_diff(str(FIXTURES / "synthetic_small.jsonl"), str(path))
    assert result.first.a.index == diff(load(FIXTURES / "synthetic_small.jsonl"), load(path)).first.a.index == CHANGED


def test_command_line_refuses_a_path_with_diff(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["x.jsonl", "--diff", "a.jsonl", "b.jsonl"])
    assert "either a path or --diff" in capsys.readouterr().err


async def test_usable_at_80_by_24(tmp_path):
    app = diff_app(FIXTURES / "synthetic_small.jsonl", tampered(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        scr = app.screen
        left = scr.query_one("#side-a", DiffSide)
        assert left.size.width >= 30 and left.size.height >= 10
        assert "in_degree.update" in left.plain()
