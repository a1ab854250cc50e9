"""``minigrad-tui bad.py``: the script's crash is shown (its own frame, the line's text, the error), stays
shown after every toast has gone, is in the passes chooser, and quitting exits non-zero.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from textual.widgets import Static

from tui_support import SIZE, pane_texts
from minigrad.tui.app import MinigradApp
from minigrad.tui.follow import ScriptRun, crash_from_output
from minigrad.tui.model import Session

BAD = """import minigrad as mg

x = mg.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()


def step(w):
    return w @ mg.ones(3, 3)


step(x)
"""


def _bad(tmp_path: Path) -> Path:
    script = tmp_path / "bad.py"
    script.write_text(BAD)
    return script


def _expect(text: str) -> None:
    # The class as Python's traceback names it: minigrad's ShapeError is a RuntimeError (PyTorch's class).
    # (the traceback's text names it minigrad.errors.ShapeError, the live exception ShapeError)
    assert re.search(r"bad\.py raised (minigrad\.errors\.)?ShapeError at line 8 in step:", text), text
    assert "return w @ mg.ones(3, 3)" in text
    assert "ShapeError: mat1 and mat2 shapes cannot be multiplied (1x2 and 3x3)" in text


def test_the_crash_is_read_from_the_scripts_own_frame():
    out = (
        "step 0\nTraceback (most recent call last):\n"
        '  File "/tmp/x/bad.py", line 11, in <module>\n    step(x)\n'
        '  File "/tmp/x/bad.py", line 8, in step\n    return w @ mg.ones(3, 3)\n           ^^^^^^\n'
        '  File "/site/minigrad/kernels/infer_meta.py", line 165, in matmul\n    raise ValueError(\n'
        "ValueError: matmul(): the inner dimensions do not match\n"
    )
    text = crash_from_output(out, "/tmp/x/bad.py")
    assert text == "bad.py raised ValueError at line 8 in step:\n    return w @ mg.ones(3, 3)\n" \
                   "ValueError: matmul(): the inner dimensions do not match"
    assert crash_from_output("all fine\n", "/tmp/x/bad.py") is None


async def test_a_crashing_script_keeps_its_error_on_screen(tmp_path, monkeypatch):
    import textual.notifications as notifications

    run = ScriptRun(_bad(tmp_path))
    try:
        session = Session([], title="bad.py")
        app = MinigradApp(session, follow=run)
        async with app.run_test(size=SIZE) as pilot:
            scr = app.main_screen
            deadline = time.monotonic() + 60
            while not scr._follow_done and time.monotonic() < deadline:
                await pilot.pause(0.1)
            assert scr._follow_done and len(session.passes) == 1  # the pass before the error is there
            banner = scr.query_one("#crash", Static)
            _expect(str(banner.render()))
            assert banner.has_class("shown") and banner.display
            assert "script failed" in pane_texts(scr)["status"]
            # 15 seconds later, on the app's clock: every toast has expired and is gone; the banner is not.
            later = time.time() + 15
            monkeypatch.setattr(notifications, "time", lambda: later)
            app._refresh_notifications()
            await pilot.pause()
            assert not list(app._notifications)
            await pilot.press("n", "end", "home")
            _expect(str(scr.query_one("#crash", Static).render()))
            assert scr.query_one("#crash", Static).display
            # The passes chooser says it too.
            await pilot.press("c")
            await pilot.pause()
            _expect(str(app.screen.query_one("#pass-crash").render()))
            await pilot.press("escape")
            _expect(app.crash or "")
    finally:
        run.close()


def test_quitting_after_a_failed_script_exits_non_zero(tmp_path, monkeypatch, capsys):
    from minigrad.tui import app as app_module

    def run_until_the_script_ends(self):  # the user quits once the script has ended
        deadline = time.monotonic() + 60
        while self.follow.returncode is None and time.monotonic() < deadline:
            time.sleep(0.05)

    monkeypatch.setattr(app_module.MinigradApp, "run", run_until_the_script_ends)
    assert app_module.main([str(_bad(tmp_path))]) == 1
    err = capsys.readouterr().err
    _expect(err)
    ok = tmp_path / "ok.py"
    ok.write_text("import minigrad as mg\nx = mg.tensor([1.0], requires_grad=True)\n(x * x).sum().backward()\n")
    assert app_module.main([str(ok)]) == 0


def test_a_script_run_to_the_end_first_exits_non_zero_too(tmp_path, monkeypatch, capsys):
    from minigrad.tui import app as app_module

    opened = []
    monkeypatch.setattr(app_module.MinigradApp, "run", lambda self: opened.append(self))
    assert app_module.main([str(_bad(tmp_path)), "--wait"]) == 1
    _expect(opened[-1].crash or "")
    _expect(capsys.readouterr().err)
