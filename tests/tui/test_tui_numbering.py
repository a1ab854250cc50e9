"""One numbering everywhere: the TUI at event N, `minigrad log` line N and `minigrad render --step N` name one event.

Events and passes are numbered from 0 (an event's number is its position in
the trace, which is its ``seq`` in a recording); the TUI's header and log,
``minigrad log``, ``minigrad render --step/--pass``, SVG titles, flip-book
frames and the TUI's export file names all use it.
"""

from __future__ import annotations

import re

from tui_support import SIZE, pane_texts

from minigrad.cli import main as cli_main
from minigrad.tracing import load
from minigrad.tracing.describe import describe
from minigrad.tracing.replay import replay
from minigrad.tui.app import MinigradApp
from minigrad.tui.widgets import EventLog


async def test_tui_log_and_render_name_the_same_event(demo_path, demo_session, tmp_path, capsys):
    events = load(demo_path).events
    final = replay(events).final
    app = MinigradApp(demo_session, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press(*["n"] * 3, "right", "right")
        n = scr.index
        words = describe(events[n], final)
        status = pane_texts(scr)["status"]
        assert f"event {n} of 0–{len(events) - 1}" in status and words in status
        log = scr.query_one(EventLog)
        assert log.cursor == n and log.line_text(n).plain.lstrip().startswith(f"{n} ")
        assert words in log.line_text(n).plain
        assert events[n].seq == n
    capsys.readouterr()
    assert cli_main(["log", str(demo_path), "--width", "400"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if re.match(rf"^\W*{n} ", ln))
    assert events[n].kind in line and words[:50] in line
    out = tmp_path / "step.svg"
    assert cli_main(["render", str(demo_path), "-o", str(out), "--step", str(n)]) == 0
    assert f"event {n}" in capsys.readouterr().err
    svg = out.read_text()
    assert f"event {n}: " in svg and "pass 0" in svg


async def test_pass_numbers_agree(demo_path, demo_session, tmp_path, capsys):
    app = MinigradApp(demo_session, initial_pass=1)
    async with app.run_test(size=SIZE):
        scr = app.main_screen
        assert scr.pass_no == 1 and "pass 1 of 0–1 grad()" in pane_texts(scr)["status"]
    out = tmp_path / "p1.svg"
    assert cli_main(["render", str(demo_path), "-o", str(out), "--pass", "1"]) == 0
    assert "grad() pass 1" in out.read_text()
