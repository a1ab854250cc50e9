"""The web page's Versions tab in headless Chromium: the version timeline with the op, view and source
line of each bump, the stale saved tensors, the rewritten history - as of the event shown - and the
CopySlices node and the replaced edge in the backward graph.

The recordings are ``tests/tui/fixtures/versions.jsonl`` (``h = x * 2; h[1].mul_(3); h.sum().backward()``)
and ``versions_stale.jsonl`` (``b = a * a; a.add_(1)``, then backward refuses); what the page must say
is read off their events, as the TUI's test (``tests/tui/test_tui_versions.py``) does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.viz import stepper

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "tui" / "fixtures"
PROGRAM = ROOT / "tests" / "_versions_program.py"


@pytest.fixture
def build(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the recordings name their source lines by path in the checkout

    def make(name):
        events = mg.trace.load(FIXTURES / name).events
        path = stepper(events, title=name).save(tmp_path / (name + ".html"))
        return events, path

    return make


def _names(events):
    tensors = {e.tensor: e.name for e in events if e.kind == "tensor.create"}
    nodes = {e.node: e.name for e in events if e.kind == "node.create"}
    return tensors, nodes


def _line_of(source):
    return PROGRAM.read_text().splitlines()[int(source.rpartition(":")[2]) - 1].strip()


def _open(page, path, event):
    page.goto(path.as_uri() + f"#event={event}")
    page.wait_for_selector("#queue .body > *")


def test_the_versions_tab_shows_the_bump_the_view_the_line_and_the_rewrite(page, build):
    events, path = build("versions.jsonl")
    tensors, nodes = _names(events)
    bump = next(e for e in events if e.kind == "tensor.version")
    rewrite = next(e for e in events if e.kind == "history.rewrite")
    bump_at, rewrite_at = events.index(bump), events.index(rewrite)
    begin = next(i for i, e in enumerate(events) if e.kind == "backward.begin")
    base, via, old, new = tensors[bump.tensor], tensors[bump.via], nodes[rewrite.from_node], nodes[rewrite.to_node]
    sum_node = next(e for e in events if e.kind == "node.create" and e.op == "sum")
    _open(page, path, begin)
    page.keyboard.press("5")
    assert page.is_visible("#tab-versions") and not page.is_visible("#tab-backward")
    body = page.inner_text("#versions .body")
    assert "A version counter counts the in-place changes" in page.inner_text("#versions .vv-intro")
    assert f"Version timelines (in-place changes up to event {begin})" in body
    line = page.inner_text("#versions .vv-tensor .vv-line")
    assert line.startswith(f"{base} (2x3)") and "v0 ─mul_─▶ v1" in line
    item = page.inner_text("#versions li.vv-bump")
    assert f"v1  event {bump_at}  mul_ through the view {via} = {base}[1]" in item
    assert f"the view's elements in {base}: size [3] stride [1] offset 3" in item
    assert f"_versions_program.py:{bump.source.rpartition(':')[2]}" in item and _line_of(bump.source) in item
    assert _line_of(bump.source) == "h[1].mul_(3)"
    assert page.get_attribute("#versions li.vv-bump", "data-event") == str(bump_at)
    rw = page.inner_text("#versions li.vv-rewrite")
    assert f"event {rewrite_at}  {base}'s grad node: {old} → {new}" in rw
    assert f"{new} ─s0─▶ {old}   old history: gradient outside the view" in rw
    assert page.locator("#versions li.vv-rewrite .replaced").count() == 0  # h.sum() came after: nothing replaced
    assert "none: every saved tensor is at the version its node saved" in page.inner_text("#versions ul.vv-stale")


def test_the_backward_graph_draws_the_copyslices_node_and_no_invented_edge(page, build):
    events, path = build("versions.jsonl")
    rewrite = next(e for e in events if e.kind == "history.rewrite")
    sum_node = next(e for e in events if e.kind == "node.create" and e.op == "sum")
    begin = next(i for i, e in enumerate(events) if e.kind == "backward.begin")
    _open(page, path, begin + 4)
    node = page.locator(f"#graph g#n{rewrite.to_node}")
    assert "copyslices" in node.get_attribute("class").split()
    assert f"rewrote {_names(events)[0][rewrite.tensor]}'s history" in node.text_content()
    # h.sum() ran after h[1].mul_(3): its edge never led to the old node, so no replaced edge is drawn
    assert page.locator(f"#graph g#r{sum_node.node}_{rewrite.to_node}").count() == 0
    assert page.locator("#graph g.edge.replaced").count() == 0


def test_a_stale_saved_tensor_is_listed_before_backward_raises(page, build):
    events, path = build("versions_stale.jsonl")
    tensors, nodes = _names(events)
    bump = next(e for e in events if e.kind == "tensor.version")
    mul = next(e for e in events if e.kind == "node.create" and e.saved.count(bump.tensor) == 2)  # b = a * a
    begin = next(i for i, e in enumerate(events) if e.kind == "backward.begin")
    _open(page, path, begin)
    page.keyboard.press("5")
    items = page.locator("#versions li.vv-stale-item")
    assert items.count() == 1
    assert items.locator(".alarm").inner_text() == f"{mul.name} saved {tensors[bump.tensor]} at v0, now v1"
    assert "backward will refuse" in items.inner_text() and "b = a * a" in items.inner_text()
    assert items.get_attribute("data-node") == str(mul.node)
    # The alarm is red on the page, as in the TUI.
    colour = page.eval_on_selector("#versions li.vv-stale-item .alarm", "e => getComputedStyle(e).backgroundColor")
    assert colour == "rgb(198, 40, 40)"


def test_nodes_that_already_ran_are_dim_not_refusing(page, tmp_path):
    from _versions_program import training_steps_events

    events = training_steps_events()
    rp = mg.trace.replay(events)
    path = stepper(rp, title="two SGD steps").save(tmp_path / "steps.html")
    end = rp.backward_passes()[-1][1]
    stale = rp.versions.at(end).stale
    _open(page, path, end)
    page.keyboard.press("5")
    assert page.locator("#versions li.vv-stale-item").count() == 0
    ran = page.locator("#versions li.vv-stale-ran")
    assert ran.count() == len(stale) > 0
    texts = ran.all_inner_texts()
    for st in stale:
        assert (f"· {st.node_name} saved {st.tensor_name} at v{st.saved_version}, now v{st.version} — "
                f"it already ran (event {st.released_at}): nothing will refuse") in texts


def test_screenshot_of_the_versions_tab(browser, tmp_path, monkeypatch):
    """With MINIGRAD_UPDATE_SCREENSHOTS=1 the pictures go to docs/images/web-versions.png (the tab) and
    docs/images/web-versions-graph.png (the backward graph with the CopySlices node and the replaced edge)."""
    monkeypatch.chdir(ROOT)
    events = mg.trace.load(FIXTURES / "versions.jsonl").events
    path = stepper(events, title="versions.jsonl").save(tmp_path / "versions.html")
    pop = next(i for i, e in enumerate(events) if e.kind == "queue.pop" and e.node == events[
        next(j for j, x in enumerate(events) if x.kind == "history.rewrite")].to_node)
    context = browser.new_context(viewport={"width": 1360, "height": 900}, device_scale_factor=1)
    page = context.new_page()
    try:
        page.goto(path.as_uri() + f"#event={pop}")
        page.wait_for_selector("#queue .body > *")
        shots = {"web-versions-graph.png": page.screenshot()}
        page.keyboard.press("5")
        assert "Rewritten history" in page.inner_text("#versions .body") and "replaced edge" not in page.inner_text("#versions .body")
        shots["web-versions.png"] = page.screenshot()
    finally:
        context.close()
    out = ROOT / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else tmp_path
    for name, png in shots.items():
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        (out / name).write_bytes(png)
