"""Following a trace while it is written: a growing file, a truncated last line, a live script."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tui_support import FIXTURES, SIZE, pane_texts

from minigrad.tracing import load
from minigrad.tracing.replay import replay
from minigrad.tui.app import MinigradApp
from minigrad.tui.follow import FileFollower, FollowError, ScriptRun
from minigrad.tui.model import Session
from minigrad.tui.widgets import EventLog

DEMO = FIXTURES / "demo.jsonl"


def test_replay_extend_gives_the_states_of_one_replay():
    events = load(DEMO).events
    whole = replay(events)
    grown = replay(events[:100])
    for k in range(100, len(events), 97):
        grown.extend(events[k : k + 97])
    assert len(grown) == len(whole)
    for i in (0, 99, 100, 250, 400, len(events) - 1):
        assert grown[i] == whole[i]
    assert grown.final == whole.final


def test_follower_reads_complete_lines_only(tmp_path):
    lines = DEMO.read_text().splitlines(keepends=True)
    path = tmp_path / "live.jsonl"
    f = FileFollower(path)
    assert f.poll() == []  # not created yet
    path.write_text(lines[0][:10])
    assert f.poll() == []  # half a header
    with open(path, "a") as fh:
        fh.write(lines[0][10:] + "".join(lines[1:51]) + lines[51][:20])  # 50 events and a truncated line
    assert len(f.poll()) == 50
    assert f.poll() == []
    with open(path, "a") as fh:
        fh.write(lines[51][20:] + "".join(lines[52:61]))
    got = f.poll()
    assert [e.seq for e in got] == list(range(50, 60))


def test_follower_names_the_bad_line_of_the_whole_file(tmp_path):
    lines = DEMO.read_text().splitlines(keepends=True)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines[:11]))
    f = FileFollower(path)
    assert len(f.poll()) == 10
    with open(path, "a") as fh:
        fh.write(lines[11] + "{not json}\n")
    try:
        f.poll()
    except FollowError as exc:
        assert "line 13" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("a malformed complete line must be reported")


async def test_tui_follows_a_file_that_grows_while_it_is_open(tmp_path):
    lines = DEMO.read_text().splitlines(keepends=True)
    path = tmp_path / "growing.jsonl"
    path.write_text("".join(lines[:90]))  # forward ops only: no backward pass yet
    follow = FileFollower(path)
    session = Session([], title=path.name)
    session.extend(follow.poll())
    app = MinigradApp(session, follow=follow)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        assert not session.passes and "● following (89 events)" in pane_texts(scr)["status"]
        with open(path, "a") as fh:  # the first pass and half a line of the next event
            fh.write("".join(lines[90:380]) + lines[380][:15])
        for _ in range(20):
            await pilot.pause(0.1)
            if session.passes:
                break
        assert len(session.events) == 379 and len(session.passes) == 1
        assert scr.pass_no == 0 and scr.index == session.passes[0].begin
        assert scr.query_one(EventLog).line_count == 379
        await pilot.press(*["n"] * 3)  # the user steps through the recorded part
        at = scr.index
        with open(path, "a") as fh:
            fh.write(lines[380][15:] + "".join(lines[381:]))
        for _ in range(20):
            await pilot.pause(0.1)
            if len(session.passes) == 2:
                break
        assert len(session.events) == len(lines) - 1 and len(session.passes) == 2
        assert scr.index == at  # following does not move the user
        assert session.passes[0].complete
        await pilot.press("end")
        assert scr.index == session.passes[0].end


async def test_a_script_is_followed_live(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(
        "import time\nimport minigrad as mg\n"
        "x = mg.tensor([1.0, 2.0], requires_grad=True)\n"
        "for i in range(3):\n"
        "    (x * x).sum().backward()\n"
        "    print('step', i, flush=True)\n"
        "    time.sleep(0.4)\n"
    )
    run = ScriptRun(script)
    try:
        session = Session([], title=script.name)
        app = MinigradApp(session, follow=run)
        async with app.run_test(size=SIZE) as pilot:
            scr = app.main_screen
            seen_running_with_a_pass = False
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                await pilot.pause(0.1)
                if session.passes and run.returncode is None:
                    seen_running_with_a_pass = True
                if run.returncode is not None and scr._follow_done:
                    break
            assert seen_running_with_a_pass  # a finished pass was there while the script still ran
            assert len(session.passes) == 3 and all(p.complete for p in session.passes)
            assert "recording finished" in pane_texts(scr)["status"]
            assert "step 2" in run.output_tail()
    finally:
        run.close()
    assert sys.executable and not Path(run.log_path).exists()
