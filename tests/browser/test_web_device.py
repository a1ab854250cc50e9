"""The web page's Device tab in headless Chromium: per source line and per stretch (the forward before
each backward pass, and the pass) the GPU launches, copies and syncs, from replay's ``State.device``.

The recording is ``tests/tui/fixtures/device.jsonl`` (``tests/tui/fixtures/scripts/gpu_loop.py``: an
``.item()`` and a learning-rate tensor every step, recorded on the stand-in CuPy); what the page must say
is read off its events, as the TUI's test (``tests/tui/test_tui_device.py``) does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.viz import stepper

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "tui" / "fixtures"
PROGRAM = FIXTURES / "scripts" / "gpu_loop.py"


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the recording names its source lines by path in the checkout
    events = mg.trace.load(FIXTURES / "device.jsonl").events
    return events, stepper(events, title="gpu_loop.py").save(tmp_path / "device.html")


def _line(marker):
    return next(i for i, t in enumerate(PROGRAM.read_text().splitlines(), 1) if marker in t)


def _open(page, path, event):
    page.goto(path.as_uri() + f"#event={event}")
    page.wait_for_selector("#queue .body > *")
    # the same page with another hash is only redrawn (``hashchange``): wait for the event asked for
    page.wait_for_function("n => document.querySelector('#minigrad-stepper').dataset.event === n", arg=str(event))


def test_the_device_tab_lists_the_lines_that_made_the_gpu_wait_and_each_stretch(page, built):
    events, path = built
    items = sum(e.kind == "device.sync" and e.reason == "item" for e in events)
    begins = [i for i, e in enumerate(events) if e.kind == "backward.begin"]
    _open(page, path, begins[2])
    page.keyboard.press("6")
    assert page.is_visible("#tab-device") and not page.is_visible("#tab-backward")
    assert "a sync makes Python wait until the GPU has finished its queue" in page.inner_text("#device .dv-intro")
    rows = page.locator("#device ul.dv-lines > li.dv-line")
    first_two = [rows.nth(i).inner_text() for i in range(2)]
    item = next(r for r in first_two if r.startswith(f"gpu_loop.py:{_line('loss.item()')}"))
    assert 'print(f"step {step}: loss {loss.item():.4f}")' in item
    assert f"{items} copies GPU → host (16 B) · {items} syncs: item ×{items} · waited in {items} stretches" in item
    lr = next(r for r in first_two if r.startswith(f"gpu_loop.py:{_line('lr_t =')}"))
    assert "syncs: host copy ×4 · waited in 4 stretches" in lr
    # the stretches begun by the event shown: pass 2 holds it, marked; what comes later is not listed
    spans = page.locator("#device li.dv-span")
    labels = [spans.nth(i).locator(".label").inner_text() for i in range(spans.count())]
    assert labels == ["forward before pass 0", "backward pass 0", "forward after pass 0", "backward pass 1",
                      "forward after pass 1", "▶ backward pass 2"]
    assert page.get_attribute("#device li.dv-span.here", "data-begin") == str(begins[2])
    after1 = spans.nth(4).inner_text()
    assert "1 copy GPU → host (4 B)" in after1 and "2 syncs: host copy ×1, item ×1" in after1
    page.keyboard.press("1")
    _open(page, path, begins[1] + 3)  # back in pass 1: it holds the event, and pass 2 is not begun
    page.keyboard.press("6")
    assert page.inner_text("#device li.dv-span.here .label") == "▶ backward pass 1"
    assert "backward pass 2" not in page.inner_text("#device ul.dv-spans")


def test_a_recording_made_on_the_cpu_says_so(page, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    events = mg.trace.load(FIXTURES / "demo.jsonl").events
    path = stepper(events, title="demo.jsonl").save(tmp_path / "demo.html")
    _open(page, path, next(i for i, e in enumerate(events) if e.kind == "backward.begin"))
    page.keyboard.press("6")
    assert page.inner_text("#device .dv-empty") == "no device events: this recording ran on the CPU"
    assert page.locator("#device .dv-lines").count() == 0


def test_screenshot_of_the_device_tab(browser, built):
    """With MINIGRAD_UPDATE_SCREENSHOTS=1 the picture goes to docs/images/web-device.png."""
    events, path = built
    context = browser.new_context(viewport={"width": 1360, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    try:
        _open(page, path, [i for i, e in enumerate(events) if e.kind == "backward.begin"][2])
        page.keyboard.press("6")
        assert "By source line" in page.inner_text("#device .body")
        png = page.screenshot()
    finally:
        context.close()
    out = ROOT / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else path.parent
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    (out / "web-device.png").write_bytes(png)
