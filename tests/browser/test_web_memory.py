"""The web page's Memory tab in headless Chromium: the chart's marker follows the event shown and
the table lists what the node in focus saved, as ``mg.trace.memory`` counts it."""

from __future__ import annotations

from pathlib import Path

from minigrad.tracing.memory import Memory, format_bytes
from minigrad.viz import stepper
from _memory_program import checkpointed_mlp_events
from test_web_stepper_browser import demo, open_page  # noqa: F401  (the demo page fixture)


def test_the_memory_tab_follows_the_event_and_the_node(page, demo):
    rp, path = demo
    mem = Memory(rp.events)
    open_page(page, path)
    page.keyboard.press("4")
    assert page.is_visible("#tab-memory") and not page.is_visible("#tab-backward")
    page.keyboard.press("n")  # the first node run
    ev = int(page.get_attribute("#minigrad-stepper", "data-event"))
    node = rp[ev].event.node
    head = page.inner_text("#memory .mem-head")
    assert f"alive after event {ev}: {format_bytes(mem.at(ev).total)}" in head
    assert f"saved {format_bytes(mem.at(ev).saved)}" in head
    table = page.inner_text("#memory .mem-node")
    assert f"{mem.nodes[node].name} saved {len(mem.nodes[node].saved)} tensor" in table
    for s in mem.saved_by(node):
        assert s.name in table and format_bytes(s.bytes) in table
    x1 = float(page.get_attribute("#memory line.mem-marker", "x1"))
    page.keyboard.press("End")
    x2 = float(page.get_attribute("#memory line.mem-marker", "x1"))
    assert x2 > x1
    legend = page.inner_text("#memory .mem-legend")
    assert f"peak {format_bytes(mem.peak_bytes)} at event {mem.peak_index}" in legend
    # the bars: one path of all bytes, one of the saved bytes, both drawn
    assert len(page.get_attribute("#memory path.mem-other", "d")) > 10
    assert len(page.get_attribute("#memory path.mem-saved", "d")) > 10


ROOT = Path(__file__).resolve().parents[2]


def test_screenshot_of_the_memory_tab(browser, tmp_path):
    """With MINIGRAD_UPDATE_SCREENSHOTS=1 the picture goes to docs/images/web-memory.png."""
    import os

    events = checkpointed_mlp_events()
    kinds = [e.kind for e in events]
    after = kinds.index("recompute.end")
    run = next(i for i in range(after, len(kinds)) if kinds[i] == "node.run")
    path = stepper(events, title="checkpointed MLP").save(tmp_path / "mlp.html")
    context = browser.new_context(viewport={"width": 1360, "height": 760}, device_scale_factor=1)
    page = context.new_page()
    try:
        page.goto(path.as_uri() + f"#event={run}")
        page.wait_for_selector("#queue .body > *")
        page.keyboard.press("4")
        assert "recomputed" not in page.inner_text("#memory .mem-node")  # the node that asked is an original one
        assert "packed by a hook" in page.inner_text("#memory .mem-node")
        shot = page.screenshot()
    finally:
        context.close()
    out = ROOT / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else tmp_path
    (out / "web-memory.png").write_bytes(shot)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_chart_zooms_to_the_span_of_the_event_and_labels_its_axes(page, tmp_path):
    from _memory_program import two_steps_then_sampling_events

    events = two_steps_then_sampling_events()
    mem = Memory(events)
    spans = mem.windows()
    assert len(spans) == 3 and spans[-1][2] == "after the last backward pass"
    path = stepper(events, title="two steps").save(tmp_path / "two.html")
    second = mem.backward_spans[1]
    open_page(page, path, f"#event={second[0] + 3}")
    page.keyboard.press("4")

    def axes():
        return (page.inner_text("#memory .mem-x .lo"), page.inner_text("#memory .mem-x .hi"),
                page.inner_text("#memory .mem-y .top"), page.inner_text("#memory .mem-explain"))

    lo, hi, top, explain = axes()
    w = mem.window(second[0] + 3)
    assert (lo, hi) == (f"event {w[0]}", f"event {w[1]}") and w[0] == mem.backward_spans[0][1] + 1
    assert top == format_bytes(max(p.total for p in mem.timeline[w[0]:w[1] + 1]))
    assert page.inner_text("#memory .mem-ytitle") == "bytes alive" and "events" in page.inner_text("#memory .mem-x")
    assert f"events {w[0]}–{w[1]}" in explain and "Each bar is one event." in explain
    page.click("#memory .mem-whole input")  # the whole recording
    lo, hi, top, explain = axes()
    assert (lo, hi) == ("event 0", f"event {len(events) - 1}") and top == format_bytes(mem.peak_bytes)
    page.click("#memory .mem-whole input")
    assert not page.errors
    page = page.context.new_page()
    open_page(page, path, f"#event={mem.backward_spans[0][0] + 2}")  # in the first pass: its span
    page.keyboard.press("4")
    lo, _, _, _ = axes()
    assert lo == "event 0"


def test_a_bar_of_many_events_is_explained(page, tmp_path):
    from minigrad.viz import memory_pane

    events = checkpointed_mlp_events()
    old = memory_pane.WINDOW_POINTS
    memory_pane.WINDOW_POINTS = 50  # fewer bars than events: each stands for several
    try:
        path = stepper(events, title="mlp").save(tmp_path / "mlp.html")
    finally:
        memory_pane.WINDOW_POINTS = old
    open_page(page, path)
    page.keyboard.press("4")
    step = -(-len(events) // 50)
    head, explain = page.inner_text("#memory .mem-head"), page.inner_text("#memory .mem-explain")
    assert f"(the largest of the {step} events its bar stands for)" in head
    assert f"bars stands for {step} events" in explain and "shows the largest total among them" in explain
