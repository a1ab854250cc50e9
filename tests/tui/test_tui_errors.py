"""Bad input gives a readable message on screen, never a traceback (docs/architecture.md, bad input).

Covers a missing, empty, truncated, foreign and binary trace file, and
scripts that raise, exit, have a syntax error or record no backward pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tui_support import FIXTURES, SIZE
from minigrad.tui.app import MinigradApp, open_source
from minigrad.tui.screens import ErrorScreen, MainScreen
from textual.widgets import Static, TabbedContent

SCRIPTS = FIXTURES / "scripts"


def _message(app) -> str:
    return str(app.screen.query_one("#error-message", Static).render())


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("missing.jsonl", None, "no such file"),
        ("empty.jsonl", "", "empty file"),
        ("foreign.jsonl", '{"hello": "world"}\n', "not a minigrad trace"),
        ("notjson.jsonl", "this is a text file\n", "line 1: not JSON"),
        ("truncated.jsonl", None, "line 4: invalid JSON"),
        ("binary.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not a minigrad trace"),
        ("header_only.jsonl", '{"schema": "minigrad.trace", "version": 1}\n', "no events"),
    ],
)
async def test_bad_trace_files_show_a_message(tmp_path: Path, name, content, expected):
    path = tmp_path / name
    if name == "truncated.jsonl":
        text = (FIXTURES / "synthetic_small.jsonl").read_text().splitlines()
        path.write_text("\n".join(text[:3]) + "\n" + text[3][: len(text[3]) // 2])
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    session, error = open_source(str(path))
    assert session is None and error is not None
    assert expected in error
    assert "Traceback" not in error
    app = MinigradApp(session, error=error)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert expected in _message(app)
        await pilot.press("enter")  # nothing to continue to
        assert isinstance(app.screen, ErrorScreen)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


def test_a_folder_is_not_a_trace(tmp_path):
    session, error = open_source(str(tmp_path))
    assert session is None and "is a folder" in error


def test_script_runs_under_tracing_and_offers_each_pass():
    session, error = open_source(str(SCRIPTS / "ok_script.py"))
    assert error is None
    assert [p.mode for p in session.passes] == ["backward", "backward"]
    assert session.title == "ok_script.py"
    assert session.notice is not None and "printed 2 lines" in session.notice  # output captured, not on screen


async def test_script_that_raises_shows_where_and_can_open_what_was_recorded():
    session, error = open_source(str(SCRIPTS / "raises.py"))
    assert "raises.py raised ZeroDivisionError at line 8 in train_step" in error
    assert "return 1 / 0" in error
    assert "Traceback" not in error
    assert session is not None and len(session.passes) == 1
    app = MinigradApp(session, error=error)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert "ZeroDivisionError" in _message(app)
        await pilot.press("enter")  # look at the events recorded before the error
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.main_screen.index == session.passes[0].begin


def test_script_with_a_syntax_error():
    session, error = open_source(str(SCRIPTS / "syntax_error.py"))
    assert session is None
    assert error.startswith("syntax_error.py has a syntax error at line 1")


def test_missing_script():
    session, error = open_source(str(SCRIPTS / "nope.py"))
    assert session is None and "no such script" in error


def test_script_that_exits_with_an_error_status(tmp_path):
    script = tmp_path / "exits.py"
    script.write_text("import sys\nsys.exit(3)\n")
    session, error = open_source(str(script))
    assert "exited with status 3" in error


async def test_script_without_backward_opens_the_forward_tab():
    session, error = open_source(str(SCRIPTS / "no_backward.py"))
    assert error is None and session.passes == []
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.main_screen
        assert scr.query_one(TabbedContent).active == "tab-forward"
        await pilot.press("n", "b", "j", "c", "home", "end", "right", "left")  # nothing breaks without a pass
        assert isinstance(app.screen, MainScreen)


async def test_trace_from_a_newer_minigrad_with_unknown_kinds_still_opens(tmp_path):
    lines = (FIXTURES / "synthetic_small.jsonl").read_text().splitlines()
    extra = json.dumps({"seq": 10_000, "ts_ns": 1, "kind": "future.kind", "x": 1})
    path = tmp_path / "newer.jsonl"
    path.write_text("\n".join(lines + [extra]) + "\n")
    session, error = open_source(str(path))
    assert error is None
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end", "right", "right")
        assert isinstance(app.screen, MainScreen)


def test_main_parses_arguments_and_never_raises_on_bad_input(monkeypatch, tmp_path, capsys):
    from minigrad.tui import app as app_module

    opened = []
    monkeypatch.setattr(app_module.MinigradApp, "run", lambda self: opened.append(self))
    assert app_module.main([str(tmp_path / "missing.jsonl")]) == 0
    assert opened[-1].session is None and "no such file" in opened[-1].error
    assert app_module.main([str(FIXTURES / "demo.jsonl"), "--pass", "1", "--export-dir", str(tmp_path)]) == 0
    app = opened[-1]
    assert app.error is None and app.initial_pass == 1 and str(app.export_dir) == str(tmp_path)
    assert "reading" in capsys.readouterr().err


async def test_builtin_demo_opens_with_the_live_engine():
    """``make tui`` with no argument: the demo runs on the current engine and offers both passes."""
    session, error = open_source(None)
    assert error is None, error
    assert [p.mode for p in session.passes] == ["backward", "grad"]
    names = {session.node_name(n) for n in session.layout(0).order}
    assert sum(n.startswith("AccumulateGrad") for n in names) == 3  # w1, b1, w2
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "c", "down", "enter", "end")
        assert app.main_screen.pass_no == 1
        assert "[startup]" in " ".join(app.main_screen.query_one("#graph").plain_lines())
