"""The Versions tab: a tensor's version timeline with the op, view and source line of each bump, the
saved tensors a bump made stale, and the rewritten history in the backward graph - at the event on screen.

The recordings are ``fixtures/versions.jsonl`` (``h = x * 2; h[1].mul_(3); h.sum().backward()``) and
``fixtures/versions_stale.jsonl`` (``b = a * a; a.add_(1)``, then backward refuses), made by
``fixtures/make_fixtures.py`` from ``tests/_versions_program.py``; what the pane must say is read
off their events.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_support import FIXTURES, SIZE
from minigrad.tracing import load
from minigrad.tui.app import MinigradApp
from minigrad.tui.model import Session
from minigrad.tui.widgets import GraphCanvas, GraphView, VersionsView

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "_versions_program.py"


@pytest.fixture(autouse=True)
def _in_the_checkout(monkeypatch):
    monkeypatch.chdir(ROOT)  # the recordings name their source lines by path in the checkout


def _session(name: str) -> Session:
    return Session(load(FIXTURES / name).events, title=name)


def _line_of(source: str) -> str:
    """The text of the program line a ``file:line`` names."""
    return PROGRAM.read_text().splitlines()[int(source.rpartition(":")[2]) - 1].strip()


def _first(events, kind):
    return next(i for i, e in enumerate(events) if e.kind == kind)


async def test_the_versions_tab_shows_the_bump_the_view_the_line_and_the_rewrite():
    s = _session("versions.jsonl")
    ev = s.events
    bump_at, rewrite_at = _first(ev, "tensor.version"), _first(ev, "history.rewrite")
    bump, rewrite = ev[bump_at], ev[rewrite_at]
    base, via = s.tensor_name(bump.tensor), s.tensor_name(bump.via)
    old, new = s.node_name(rewrite.from_node), s.node_name(rewrite.to_node)
    sum_node = next(e for e in ev if e.kind == "node.create" and e.op == "sum")
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("5")
        assert scr.query_one("#tabs").active == "tab-versions"
        view = scr.query_one(VersionsView)
        text = view.plain  # opened at the pass's beginning: everything happened already
        assert "A version counter counts the in-place changes" in text
        assert f"{base} (2x3)  v0 ─mul_─▶ v1" in text
        assert f"v1  event {bump_at}  mul_ through the view {via} = {base}[1]" in text
        assert f"the view's elements in {base}: size [3] stride [1] offset 3" in text
        assert f"_versions_program.py:{bump.source.rpartition(':')[2]}  {_line_of(bump.source)}" in text
        assert _line_of(bump.source) == "h[1].mul_(3)"
        assert f"event {rewrite_at}  {base}'s grad node: {old} → {new}" in text
        assert f"{new} ─s0─▶ {old}   old history: gradient outside the view" in text
        # h.sum() ran after the change: its edge led to the CopySlices node from the start, nothing was replaced
        assert "replaced edge" not in text and sum_node.name not in text
        assert "none: every saved tensor is at the version its node saved" in text
        # Back in time: before the bump nothing happened; between the bump and the rewrite, no rewrite yet.
        scr.goto(bump_at - 1)
        await pilot.pause()
        assert "no in-place change so far" in view.plain
        scr.goto(bump_at)
        await pilot.pause()
        assert "v0 ─mul_─▶ v1" in view.plain and "Rewritten history" in view.plain
        assert f"{old} → {new}" not in view.plain
        scr.goto(rewrite_at)
        await pilot.pause()
        assert f"{old} → {new}" in view.plain and "replaced edge" not in view.plain  # h.sum() not called yet


async def test_the_backward_graph_marks_the_copyslices_node_and_no_invented_edge():
    s = _session("versions.jsonl")
    rewrite = s.events[_first(s.events, "history.rewrite")]
    base, old = s.tensor_name(rewrite.tensor), s.node_name(rewrite.from_node)
    sum_node = next(e for e in s.events if e.kind == "node.create" and e.op == "sum")
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.pause()
        picture = "\n".join(scr.query_one(GraphCanvas).plain_lines())
        assert f"CopySlices: {base}" in picture and "replaced" not in picture
        lay = s.layout(0)
        assert lay.replaced == ()  # h.sum() never had an edge to the old node
        await pilot.press("g")  # the list view neither
        rows = scr.query_one(GraphView).plain_lines()
        assert any(r.lstrip("○·● ").split()[1] == sum_node.name for r in rows)
        assert not any(f"╌ replaced: {old}" in r for r in rows)
        assert any(f"[CopySlices: {base}]" in r for r in rows)


async def test_a_stale_saved_tensor_is_highlighted_before_backward_raises():
    s = _session("versions_stale.jsonl")
    ev = s.events
    bump_at = _first(ev, "tensor.version")
    bump = ev[bump_at]
    mul = next(e for e in ev if e.kind == "node.create" and e.op == "mul" and bump.tensor in e.saved
               and e.saved.count(bump.tensor) == 2)  # b = a * a saves a twice
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("5")
        view = scr.query_one(VersionsView)
        scr.goto(bump_at - 1)
        await pilot.pause()
        assert "none: every saved tensor is at the version its node saved" in view.plain
        scr.goto(bump_at)
        await pilot.pause()
        text = view.plain
        want = f"✘ {mul.name} saved {s.tensor_name(bump.tensor)} at v0, now v1 — backward will refuse"
        assert want in text and text.count("✘") == 1
        assert f"{mul.name} was made at _versions_program.py:{mul.source.rpartition(':')[2]}  b = a * a" in text
        assert "add_ on the tensor itself" in text and "a.add_(1)" in text
        # The highlight: the stale line carries the alarm style.
        alarm = [text[sp.start:sp.end] for sp in view.text.spans if "#c62828" in str(sp.style)]
        assert alarm == [f"{mul.name} saved {s.tensor_name(bump.tensor)} at v0, now v1"]


async def test_screenshot_of_the_versions_tab(tmp_path):
    """With MINIGRAD_UPDATE_SCREENSHOTS=1 the picture goes to docs/images/tui-versions.svg."""
    s = _session("versions.jsonl")
    app = MinigradApp(s)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("5")
        await pilot.pause()
        assert "Rewritten history" in app.main_screen.query_one(VersionsView).plain
        out = ROOT / "docs" / "images" if os.environ.get("MINIGRAD_UPDATE_SCREENSHOTS") == "1" else tmp_path
        app.save_screenshot("tui-versions.svg", str(out))
    assert (out / "tui-versions.svg").read_text().startswith("<svg")


async def test_nodes_that_already_ran_are_dim_not_refusing():
    from _versions_program import training_steps_events

    s = Session(training_steps_events(), title="two SGD steps")
    end = len(s.events) - 1
    stale = s.replay.versions.at(end).stale
    assert stale
    app = MinigradApp(s)
    async with app.run_test(size=SIZE) as pilot:
        scr = app.main_screen
        await pilot.press("5")
        scr.goto(end)
        await pilot.pause()
        text = scr.query_one(VersionsView).plain
        assert "✘" not in text and "backward will refuse" not in text
        for st in stale:
            assert (f"· {st.node_name} saved {st.tensor_name} at v{st.saved_version}, now v{st.version} — "
                    f"it already ran (event {st.released_at}): nothing will refuse") in text
