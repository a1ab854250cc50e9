"""Screenshots of the web stepper for docs/web.md, taken by the browser-test tooling.

Each run checks that the screenshots can be taken (a PNG of the page at a known event). With
``MINIGRAD_UPDATE_SCREENSHOTS=1`` the pictures go to ``docs/images/`` (and are committed);
otherwise to a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.tracing.replay import Replay
from minigrad.viz import stepper
from stepper_pages import agree_with_replay

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "tui" / "fixtures" / "demo.jsonl"


@pytest.fixture
def out_dir(tmp_path):
    return ROOT / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else tmp_path


def test_screenshots_of_the_demo(browser, tmp_path, out_dir):
    events = mg.trace.load(DEMO).events
    rp = Replay(events)
    path = stepper(events, title="demo.jsonl").save(tmp_path / "demo.html")
    context = browser.new_context(viewport={"width": 1360, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    try:
        # A backward pass half-way: a node running, others queued, an in-degree just changed.
        runs = [i for i in rp.indices_of("node.begin") if i <= rp.backward_passes()[0][1]]
        page.goto(path.as_uri() + f"#event={runs[4] + 3}")
        page.wait_for_selector("#queue .body > *")
        agree_with_replay(page, rp, 0)
        shots = {"web-stepper.png": page.screenshot()}
        # The grad() pass: GeneralGrad's marks and its tab.
        begin, end, _ = rp.backward_passes()[1]
        page.goto(path.as_uri() + f"#event={end - 3}")
        page.reload()
        page.wait_for_selector("#queue .body > *")
        shots["web-stepper-grad.png"] = page.screenshot()
        page.keyboard.press("3")
        shots["web-stepper-generalgrad.png"] = page.screenshot()
        page.keyboard.press("1")
        # The quiz, asked before a node runs.
        page.goto(path.as_uri() + "#event=106")
        page.reload()
        page.wait_for_selector("#queue .body > *")
        page.keyboard.press("t")
        page.keyboard.press("n")
        page.keyboard.press("n")
        page.fill("#quiz-node", "MmBackward0")
        page.keyboard.press("Enter")
        shots["web-stepper-quiz.png"] = page.screenshot()
    finally:
        context.close()
    for name, png in shots.items():
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000, name
        (out_dir / name).write_bytes(png)
