"""The Device tab: per stretch (the forward before each backward pass, and the pass) the GPU launches,
host<->device copies and syncs, and the same by source line - folded by the replay (``State.device``).

The recording is ``fixtures/device.jsonl``: ``fixtures/scripts/gpu_loop.py`` (an ``.item()`` to print the
loss and a learning-rate tensor made from a number, every step) recorded on the stand-in CuPy by
``fixtures/make_fixtures.py``. What the tab must say is read off the events.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tui_support import FIXTURES, SIZE
from minigrad.tracing import load
from minigrad.tracing.replay import GPU_BACKENDS, replay
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session
from minigrad.tui.widgets import DeviceView

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = FIXTURES / "scripts" / "gpu_loop.py"


@pytest.fixture(autouse=True)
def _in_the_checkout(monkeypatch):
    monkeypatch.chdir(ROOT)  # the recording names its source lines by path in the checkout


def _events():
    return load(FIXTURES / "device.jsonl").events


def _line(marker: str) -> int:
    return next(i for i, t in enumerate(PROGRAM.read_text().splitlines(), 1) if marker in t)


def _stretches(events):
    """Independent of the replay: the events of each stretch, cut at backward.begin and after backward.end."""
    out, cur = [], []
    for ev in events:
        if ev.kind == "backward.begin":
            out.append(cur)
            cur = []
        cur.append(ev)
        if ev.kind == "backward.end":
            out.append(cur)
            cur = []
    return out + [cur]


def test_the_replay_folds_launches_copies_and_syncs_per_stretch_and_per_line():
    events = _events()
    spans = replay(events).final.device
    cut = _stretches(events)
    assert [s.phase for s in spans] == ["forward", "backward"] * 4 + ["forward"]
    assert len(spans) == len(cut)
    for span, evs in zip(spans, cut):
        launches = sum(e.kind == "kernel.launch" and e.backend in GPU_BACKENDS for e in evs)
        h2d = [e.bytes for e in evs if e.kind == "device.copy" and e.direction == "h2d"]
        d2h = [e.bytes for e in evs if e.kind == "device.copy" and e.direction == "d2h"]
        syncs = Counter(e.reason for e in evs if e.kind == "device.sync")
        t = span.tally
        assert (t.launches, t.h2d, t.h2d_bytes, t.d2h, t.d2h_bytes) == (launches, len(h2d), sum(h2d), len(d2h), sum(d2h))
        assert dict(t.syncs) == dict(syncs)
        assert sum(l.launches for l in span.lines.values()) == t.launches  # every launch has a line (or None)
        assert sum(l.sync_count for l in span.lines.values()) == t.sync_count
    # each step's .item() and lr tensor: one sync each in every forward stretch after pass 0
    item, lr = f"{PROGRAM.relative_to(ROOT)}:{_line('loss.item()')}", f"{PROGRAM.relative_to(ROOT)}:{_line('lr_t =')}"
    for span in spans[2::2]:
        assert dict(span.lines[item].syncs) == {"item": 1} and span.lines[item].d2h == 1
        assert dict(span.lines[lr].syncs) == {"host copy": 1} and span.lines[lr].h2d == 1
    # time travel: the state at an event holds the stretches begun by then, counted up to it
    first_item = next(i for i, e in enumerate(events) if e.kind == "device.sync" and e.reason == "item")
    r = replay(events)
    assert r[first_item].device[-1].tally.syncs["item"] == 1 and r[first_item - 1].device[-1].tally.syncs.get("item") is None
    assert len(r[first_item].device) == 3


async def test_the_device_tab_lists_each_stretch_and_the_lines_that_made_the_gpu_wait():
    events = _events()
    s = Session(events, title="device.jsonl")
    items = sum(e.kind == "device.sync" and e.reason == "item" for e in events)
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("6")
        assert scr.query_one("#tabs").active == "tab-device"
        view = scr.query_one(DeviceView)
        scr.goto(len(events) - 1)
        await pilot.pause()
        text = view.plain
        assert "a sync makes Python wait until the GPU has finished its queue" in text
        for n in range(4):
            assert f"backward pass {n}  (events" in text and f"forward after pass {n}  (events" in text
        item_line = f"gpu_loop.py:{_line('loss.item()')}  " + 'print(f"step {step}: loss {loss.item():.4f}")'
        assert item_line in text
        rows = text[text.index("By source line"):text.index("Per stretch")].splitlines()
        at = next(i for i, row in enumerate(rows) if row.strip().startswith(item_line))
        assert f"{items} copies GPU → host (16 B) · {items} syncs: item ×{items} · waited in {items} stretches" in rows[at + 1]
        lr_at = next(i for i, row in enumerate(rows) if "lr_t = mg.tensor(0.1, device=\"gpu\")" in row)
        assert "4 syncs: host copy ×4 · waited in 4 stretches" in rows[lr_at + 1]
        assert max(at, lr_at) < 5  # the two lines that wait every step come first
        assert "▶ forward after pass 3" in text
        # stepping back: at the first backward.begin, later stretches are not listed yet, pass 0 is marked
        begin = next(i for i, e in enumerate(events) if e.kind == "backward.begin")
        scr.goto(begin)
        await pilot.pause()
        assert "▶ backward pass 0" in view.plain and "forward after pass 0" not in view.plain.split("Per stretch")[1]
        await pilot.press("left")
        assert "▶ forward before pass 0" in view.plain and "backward pass 0" not in view.plain.split("Per stretch")[1]


async def test_a_recording_made_on_the_cpu_says_so(demo_session):
    app = MinigradApp(demo_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        text = app.main_screen.query_one(DeviceView).plain
        assert "no device events: this recording ran on the CPU" in text and "By source line" not in text


async def test_screenshot_of_the_device_tab(tmp_path):
    """With MINIGRAD_UPDATE_SCREENSHOTS=1 the picture goes to docs/images/tui-device.svg."""
    import os

    events = _events()
    app = MinigradApp(Session(events, title="gpu_loop.py"))
    async with app.run_test(size=(120, 44)) as pilot:
        await pilot.press("6")
        scr = app.main_screen
        scr.goto(next(i for i, e in enumerate(events) if e.kind == "device.sync" and e.reason == "item" and i > 1000))
        await pilot.pause()
        assert "By source line" in scr.query_one(DeviceView).plain
        out = ROOT / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else tmp_path
        app.save_screenshot("tui-device.svg", str(out))
    assert (out / "tui-device.svg").read_text().startswith("<svg")


async def test_odd_device_events_in_a_recording_do_not_break_the_tab():
    """A recording is data: a huge size, a reason never seen, a source naming no
    Python file, a sync with no line - the tab shows them as they are."""
    import json

    from minigrad.tracing import loads

    lines = [{"schema": "minigrad.trace", "version": 1},
             {"seq": 0, "ts_ns": 0, "kind": "device.copy", "direction": "d2h", "bytes": 10**15, "tensor": None,
              "source": "/dev/zero:1"},
             {"seq": 1, "ts_ns": 1, "kind": "device.sync", "reason": "<b>odd</b>", "source": None},
             {"seq": 2, "ts_ns": 2, "kind": "kernel.launch", "op": "mul", "kernel": "k", "backend": "GPU", "wall_ns": 1}]
    events = loads("\n".join(json.dumps(l) for l in lines)).events
    spans = replay(events).final.device
    assert len(spans) == 1 and spans[0].tally.copies == 1 and dict(spans[0].tally.syncs) == {"<b>odd</b>": 1}
    app = MinigradApp(Session(events, title="odd.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("6")
        text = app.main_screen.query_one(DeviceView).plain
        assert "zero:1" in text and "1 sync: <b>odd</b> ×1" in text and "1 launch ·" in text
