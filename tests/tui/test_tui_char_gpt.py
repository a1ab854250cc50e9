"""``minigrad-tui examples/char_gpt.py --steps 1`` opens a transformer's training step and steps through it."""

from __future__ import annotations

from pathlib import Path

from tui_support import SIZE
from minigrad.tui.app import MinigradApp, open_source
from minigrad.tui.screens import MainScreen

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "char_gpt.py"


async def test_char_gpt_step_opens_and_steps_through_node_runs():
    session, error = open_source(str(EXAMPLE), ["--steps", "1", "--n-layer", "1", "--block-size", "8", "--batch-size", "2"])
    assert error is None, error
    app = MinigradApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        start = app.main_screen.index
        await pilot.press("n")
        await pilot.press("n")
        await pilot.pause()
        assert app.main_screen.index > start
        assert session.events[app.main_screen.index].kind == "node.begin"
