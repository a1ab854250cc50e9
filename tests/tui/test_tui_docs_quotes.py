"""What docs/tui.md quotes from the TUI is what the TUI shows now: the crash banner of its ``bad.py``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from textual.widgets import Static

from tui_support import SIZE
from minigrad.tui.app import MinigradApp
from minigrad.tui.follow import crash_from_output
from minigrad.tui.model import Session

DOC = Path(__file__).resolve().parents[2] / "docs" / "tui.md"


def _quoted() -> tuple[str, str]:
    """The ``bad.py`` of the crash section and the banner text quoted after it."""
    section = DOC.read_text(encoding="utf-8").split("When the script raises", 1)[1]
    script = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    banner = re.search(r"the banner reads.*?```text\n(.*?)\n```", section, re.S).group(1)
    return script, banner


async def test_the_crash_banner_in_the_docs_is_the_one_shown(tmp_path):
    script, quoted = _quoted()
    bad = tmp_path / "bad.py"
    bad.write_text(script)
    run = subprocess.run([sys.executable, str(bad)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 1
    crash = crash_from_output(run.stderr, bad)
    app = MinigradApp(Session([], title="bad.py"), crash=crash)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = str(app.main_screen.query_one("#crash", Static).render())
    assert shown == quoted
