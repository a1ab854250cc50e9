"""The TUI on hostile input: NaN/Inf gradients step through every pane; hostile files give an error screen.

The NaN trace is a real recording (``(x.log() * x).sum().backward()`` at
``x = [0, 1]``), saved and opened through ``open_source`` as ``minigrad-tui
FILE`` does. Stepping visits every event of the pass, then the forward tab.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import SIZE, pane_texts

import minigrad as mg
from minigrad.tui.app import MinigradApp, open_source
from minigrad.tui.screens import ErrorScreen
from textual.widgets import Static


@pytest.fixture
def nan_trace(tmp_path: Path) -> Path:
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    with mg.trace(values=True) as tr:
        (x.log() * x).sum().backward()
    path = tmp_path / "nan.jsonl"
    tr.save(path)
    return path


async def test_stepping_through_nan_gradients_shows_nan(nan_trace: Path):
    session, error = open_source(str(nan_trace))
    assert error is None
    app = MinigradApp(session)
    seen: set[str] = set()
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        end = len(session.events) - 1
        while scr.index < end:
            before = scr.index
            await pilot.press("right")
            assert scr.index == before + 1
            texts = pane_texts(scr)
            seen.add(texts["buffers"])
            seen.add(texts["detail"])
        await pilot.press("2")  # the forward tab: each op's kernel steps and values
        await pilot.pause()
        await pilot.press("1", "home", "end")
        assert app.is_running and scr.index == end
    assert any("nan" in text for text in seen), seen


@pytest.mark.parametrize(
    "content, expected",
    [
        (b'{"schema": "minigrad.trace", "version": 1}\n' + b"[" * 200_000 + b"\n", "line 2: JSON nested more than 100 levels"),
        (b'{"schema": "minigrad.trace", "version": true}\n', "line 1: field 'version': expected a positive integer"),
        (b'{"schema": "minigrad.trace", "version": 1}\n{"seq": 0, "ts_ns": 1, "kind": "backward.in_degree", '
         b'"in_degree": {"abc": 1}}\n', "line 2: field 'in_degree': key 'abc' is not an integer id"),
        (b'{"schema": "minigrad.trace", "version": 1}\n{"seq": 0, "ts_ns": ' + b"9" * 4000
         + b', "kind": "wrappers.clear", "node": 1}\n', "line 2: field 'ts_ns': integer out of the 64-bit range"),
        (bytes(range(128, 256)) * 8, "line 1: not UTF-8 text"),
    ],
    ids=["nested", "version_true", "in_degree_key", "huge_int", "binary"],
)
async def test_hostile_files_open_an_error_screen_naming_line_and_field(tmp_path: Path, content: bytes, expected: str):
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(content)
    session, error = open_source(str(path))
    assert session is None and error is not None
    assert str(path) in error and expected in error and "Unexpected error" not in error
    app = MinigradApp(session, error=error)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ErrorScreen)
        assert expected in str(app.screen.query_one("#error-message", Static).render())
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
