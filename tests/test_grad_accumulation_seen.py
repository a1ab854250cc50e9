"""A second backward() adds to a leaf's .grad, zero_grad() resets it: the events, the why-lines and the viewers say so."""

from __future__ import annotations

import asyncio

import pytest

import minigrad as mg
from minigrad.tracing.describe import describe, explain
from minigrad.tracing.viewing import grad_history


def _four_passes():
    """pass 0 assigns, pass 1 adds, zero_grad(), pass 2 assigns, pass 3 adds."""
    w = mg.tensor([1.0, 2.0], requires_grad=True, name="w")
    opt = mg.optim.SGD([w], lr=0.1)
    with mg.trace() as tr:
        for i in range(4):
            (w * w).sum().backward()
            if i == 1:
                opt.zero_grad()
    return w, tr


def test_grad_accumulate_says_whether_it_added():
    w, tr = _four_passes()
    acc = [e for e in tr.events if e.kind == "grad.accumulate"]
    assert [(e.tensor, e.value, e.added) for e in acc] == [
        (w.id, [2.0, 4.0], False), (w.id, [4.0, 8.0], True), (w.id, [2.0, 4.0], False), (w.id, [4.0, 8.0], True),
    ]
    # zero_grad(set_to_none=False) keeps a .grad of zeros: the next pass adds to it.
    w2 = mg.tensor([1.0], requires_grad=True)
    with mg.trace() as tr2:
        (w2 * 3).sum().backward()
        mg.optim.SGD([w2], lr=0.1).zero_grad(set_to_none=False)
        (w2 * 3).sum().backward()
    assert [e.added for e in tr2.events if e.kind == "grad.accumulate"] == [False, True]


def test_why_lines_name_the_pass_it_added_to():
    _, tr = _four_passes()
    rp = mg.trace.replay(tr)
    whys = [(describe(e, rp[i]), explain(e, rp[i])) for i, e in enumerate(tr.events) if e.kind == "grad.accumulate"]
    assert whys == [
        ("w.grad = [2, 4]", ".grad was None, so this gradient is assigned (a later backward() adds to it)"),
        ("w.grad = [4, 8] (added)",
         "added to the .grad of pass 0: .grad accumulates across backward() calls until zero_grad()"),
        ("w.grad = [2, 4]",
         "assigned: .grad was None (zero_grad() cleared the .grad of pass 1), so nothing is added to it"),
        ("w.grad = [4, 8] (added)",
         "added to the .grad of pass 2: .grad accumulates across backward() calls until zero_grad()"),
    ]


def test_replay_keeps_the_history_per_pass():
    w, tr = _four_passes()
    final = mg.trace.replay(tr).final
    assert grad_history(final.passes, w.id) == [
        (0, [2.0, 4.0], False), (1, [4.0, 8.0], True), (2, [2.0, 4.0], False), (3, [4.0, 8.0], True),
    ]
    assert grad_history(final.passes, w.id, upto=1) == [(0, [2.0, 4.0], False), (1, [4.0, 8.0], True)]


def test_tui_node_detail_shows_the_grad_over_passes():
    pytest.importorskip("textual")
    from minigrad.tui.app import MinigradApp
    from minigrad.tui.model import Session

    _, tr = _four_passes()
    session = Session(tr.events, title="acc")

    async def drive() -> tuple[str, str]:
        app = MinigradApp(session, initial_pass=1)
        async with app.run_test(size=(160, 48)) as pilot:
            scr = app.main_screen
            scr.jump_to("AccumulateGrad")  # lands where it begins: pass 1 has not written .grad yet
            await pilot.pause()
            before = scr.query_one("#detail").plain
            while session.events[scr.index].kind != "node.run":
                await pilot.press("right")
            await pilot.pause()
            return scr.query_one("#detail").plain, before

    after, before = asyncio.run(drive())
    assert "w.grad by pass  0: [2, 4] assigned · 1: [4, 8] added" in after
    assert "w.grad by pass  0: [2, 4] assigned" in before and "1: [4, 8]" not in before
