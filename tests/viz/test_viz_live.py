"""``mg.viz.render(tensor)`` without a recording draws what a replayed recording of the same program draws.

The live graph goes through the engine's own ``node.create`` announcements and
the usual replay (``viz/live.py``), so its edge labels (slot, rank), node and
leaf names must equal those of a recording; its title must not claim a step it
never saw, and its legend must explain the colours it uses.
"""

from __future__ import annotations

import minigrad as mg
import minigrad.viz as viz


def _program():
    w = mg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    w.name = "w"
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.name = "x"
    h = (w @ x).tanh()
    parts = mg.concat([h, x * 3.0])  # a multi-input slot: ranks 0 and 1
    return (parts * parts).sum()


def _picture(rendered):
    g = rendered.graph
    titles = {nd.key: nd.title for nd in g.nodes if not nd.hidden}
    leaves = sorted(r for nd in g.nodes for r in nd.rows if r.startswith("leaf "))
    edges = sorted((titles.get(e.tail), titles.get(e.head), e.label) for e in g.edges if e.tail in titles)
    return sorted(titles.values()), edges, leaves


def test_live_render_equals_the_replayed_recording():
    with mg.trace() as tr:
        loss = _program()
    recorded = _picture(viz.render(tr, kind="backward"))
    mg.manual_seed(0)
    live = _picture(viz.render(_program()))
    # Ids differ between the two runs; names are the op names plus ids, so compare with ids stripped.
    strip = lambda s: s.split("#")[0] if s else s  # noqa: E731
    norm = lambda p: (sorted(map(strip, p[0])), sorted((strip(a), strip(b), lab) for a, b, lab in p[1]), p[2])  # noqa: E731
    assert norm(live) == norm(recorded)
    labels = {lab for _, _, lab in live[1]}
    assert "s0 r1" in labels  # concat's second input: slot 0, rank 1
    assert any(lab == "s1 r0" for _, _, lab in live[1])  # matmul's second input
    assert any("leaf w" in r for r in live[2]) and any("leaf x" in r for r in live[2])
    assert loss is not None


def test_live_render_title_and_legend_tell_the_truth():
    loss = _program()
    loss.backward()
    r = viz.render(loss)
    assert "not recorded" in r.graph.title and "step" not in r.graph.title
    assert {nd.status for nd in r.graph.nodes if not nd.hidden} == {"idle"}
    assert "not in this pass (or not run yet)" in r.source  # the legend explains the white fill it uses


def test_live_render_inside_another_recording_leaves_it_untouched():
    loss = _program()
    with mg.trace() as tr:
        before = len(tr.events)
        viz.render(loss)
    assert len(tr.events) == before


def test_live_events_are_the_engines_own_and_never_edited(monkeypatch):
    """``events_from_tensor`` emits no event it built itself, and changes none after it was emitted."""
    import dataclasses

    import minigrad as mg
    from minigrad.tracing.recorder import Recorder
    from minigrad.viz import live

    emitted = []
    real_emit = Recorder.emit

    def spy(self, event):
        real_emit(self, event)
        emitted.append((event, dataclasses.asdict(event)))

    monkeypatch.setattr(Recorder, "emit", spy)
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")
    evs = live.events_from_tensor((x * x).sum())
    assert [e for e, _ in emitted] == evs
    for event, as_emitted in emitted:
        assert dataclasses.asdict(event) == as_emitted, f"{event.kind} changed after it was emitted"
    creates = [e for e in evs if e.kind == "node.create"]
    assert creates and all(e.source is None and e.module is None for e in creates)
    leaf = next(e for e in evs if e.kind == "tensor.create" and e.tensor == x.id)
    assert (leaf.name, leaf.shape, leaf.is_leaf) == ("x", [2], True)
    assert "TensorCreate" not in vars(live) and "_leaf_event" not in vars(live)
