"""``minigrad.tracing.versions``: the facts the version view draws, checked against replay's own
``stale_saved`` at every event and against what the programs did."""

from __future__ import annotations

import pytest

import minigrad as mg
from _versions_program import stale_saved_events, view_rewrite_events
from minigrad.tracing.replay import stale_saved
from minigrad.tracing.versions import replaced_edges, VersionHistory, geometry_text


def _record(fn):
    with mg.trace() as tr:
        try:
            fn()
        except RuntimeError:
            pass  # backward refusing a stale saved tensor: the events up to it are kept
    return tr.events


def _detach_alias():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    d = h.detach()
    z = h * h
    d.add_(1)
    h.mul_(2)  # version 2: still stale, at a newer version
    z.sum().backward()


def _view_of_saved():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    h = x.exp()  # exp saves its output
    h[0].mul_(2)
    h.sum().backward()


def _fresh_after_change():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    a.add_(1)
    (a * a).sum().backward()  # saved after the change: nothing stale


PROGRAMS = {"detach_alias": _detach_alias, "view_of_saved": _view_of_saved, "fresh": _fresh_after_change,
            "rewrite": None, "stale": None}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_stale_at_every_event_is_replays_stale_saved(name):
    if name == "rewrite":
        events = view_rewrite_events()
    elif name == "stale":
        events = stale_saved_events()[0]
    else:
        events = _record(PROGRAMS[name])
    rp = mg.trace.replay(events)
    history = VersionHistory(rp)
    for i, state in enumerate(rp):
        want = {(s.node, s.tensor, s.saved_version, s.version) for s in stale_saved(state)}
        got = {(s.node, s.tensor, s.saved_version, s.version) for s in history.at(i).stale}
        assert got == want, f"event {i} ({events[i].kind})"
        assert [b.index for b in history.at(i).bumps] == [v.index for v in state.versions]
        assert [r.to_node for r in history.at(i).rewrites] == [r.to_node for r in state.rewrites]
    if name == "fresh":
        assert history.bumps and not history.stale


def test_the_view_program_bump_names_the_view_the_line_and_the_geometry():
    events = view_rewrite_events()
    history = VersionHistory(mg.trace.replay(events))
    (bump,) = history.bumps
    h = next(e for e in events if e.kind == "history.rewrite").tensor
    assert (bump.tensor, bump.version, bump.op, bump.via_made) == (h, 1, "mul_", "h[1]")  # named after the line's variable
    assert bump.code == "h[1].mul_(3)" and bump.source.endswith("_versions_program.py:15")
    assert geometry_text(bump.view) == "size [3] stride [1] offset 3"
    (rw,) = history.rewrites
    assert rw.from_name.startswith("MulBackward0") and rw.to_name.startswith("CopySlices")
    sum_node = next(e for e in events if e.kind == "node.create" and e.op == "sum")
    # h.sum() used h after the rewrite: built on the new history, it replaced no edge of the old one
    assert rw.consumers == () and sum_node.node not in [c for c, _ in rw.consumers]
    assert not history.at(rw.index - 1).rewrites
    state = mg.trace.replay(events).final
    assert replaced_edges(state, state.nodes) == []


def test_the_stale_program_names_the_node_the_tensor_and_both_versions():
    events, message = stale_saved_events()
    history = VersionHistory(mg.trace.replay(events))
    (stale,) = history.stale
    assert stale.node_name.startswith("MulBackward0") and (stale.saved_version, stale.version) == (0, 1)
    assert f"saved by {stale.node_name}" in message and "at version 0 is now at version 1" in message
    assert stale.since == history.bumps[0].index and history.bumps[0].code == "a.add_(1)"


def test_nodes_that_already_ran_are_told_apart_from_nodes_that_will_refuse():
    """An optimizer's update changes the weights the last step's nodes saved: those nodes are stale
    too (replay's stale_saved lists them), but they ran and freed what they saved, so nothing refuses."""
    def program():
        mg.manual_seed(0)
        lin = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))  # layer 2 saves its weight
        opt = mg.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            lin(mg.randn(4, 3)).sum().backward()
            opt.step()
        lin(mg.randn(4, 3)).sum()  # a third graph, not run: its node saved the weight at the newest version

    events = _record(program)
    rp = mg.trace.replay(events)
    end = len(events) - 1
    stale = VersionHistory(rp).at(end).stale
    assert {(s.node, s.tensor) for s in stale} == {(s.node, s.tensor) for s in stale_saved(rp[end])}
    assert stale and all(s.ran(end) for s in stale)
    clears = {e.node: i for i, e in enumerate(events) if e.kind == "wrappers.clear"}
    assert all(s.released_at == clears[s.node] < s.since for s in stale)


def test_a_hostile_recording_gives_words_not_a_crash():
    """Ids nobody announced, a geometry that is no list, a source path that names no Python file:
    the reading and both viewers' texts still come out (a recording is data, not trusted)."""
    import json

    from minigrad.tracing.loader import loads
    from minigrad.viz.versions_pane import versions_data
    from minigrad.tui.model import Session
    from minigrad.tui.widgets.versions import version_text

    lines = [{"schema": "minigrad.trace", "version": 1},
             {"seq": 0, "ts_ns": 0, "kind": "tensor.version", "tensor": 99, "version": 3, "op": "mul_", "via": 98,
              "aliases": [97, 96], "source": "/dev/zero:1"},
             {"seq": 1, "ts_ns": 1, "kind": "history.rewrite", "tensor": 99, "from_node": None, "to_node": 55,
              "view": {"size": 5, "stride": "x"}}]
    events = loads("\n".join(json.dumps(x) for x in lines)).events
    rp = mg.trace.replay(events)
    v = rp.versions.at(1)
    (bump,) = v.bumps
    assert bump.code is None and bump.view == {"size": 5, "stride": "x"} and bump.aliases == ("t97", "t96")
    assert geometry_text(bump.view) == "size 5 stride x offset None"
    text = version_text(v, Session(events)).plain
    assert "t99" in text and "none (no history) → node#55" in text and "(no source line recorded)" not in text
    data = versions_data(rp, [])
    assert data["bumps"][0]["code"] is None and data["rewrites"][0]["to"] == "node#55"
