"""``tensor.version`` and ``history.rewrite``: exact events, replay's versions and stale saved tensors,
and the backward view marking them (``autograd/views.py``, ``docs/concepts/views.md``)."""

from __future__ import annotations

import minigrad as mg
from minigrad.tracing.replay import stale_saved


def _record(fn):
    with mg.trace() as tr:
        fn()
    return tr.events


def test_inplace_through_a_view_emits_version_then_rewrite_then_the_views_new_nodes() -> None:
    ids = {}

    def program():
        x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        h = x * 2
        v = h[1]
        ids.update(h=h.id, v=v.id, old=h.grad_fn.id)
        v.mul_(3)
        ids.update(new=h.grad_fn.id, vnode=v.grad_fn.id)
        h.sum().backward()

    events = _record(program)
    seen = [(e.kind, e.to_dict()) for e in events if e.kind in ("tensor.version", "history.rewrite", "tensor.update")]
    strip = lambda d: {k: v for k, v in d.items() if k not in ("seq", "ts_ns", "kind", "value", "source")}  # noqa: E731
    assert [(k, strip(d)) for k, d in seen] == [
        ("tensor.version", {"tensor": ids["h"], "version": 1, "op": "mul_", "via": ids["v"], "aliases": [ids["v"]]}),
        ("history.rewrite", {"tensor": ids["h"], "from_node": ids["old"], "to_node": ids["new"],
                             "view": {"size": [3], "stride": [1], "offset": 3}}),
        ("tensor.update", {"tensor": ids["v"], "op": "view replay", "version": 1, "requires_grad": True,
                           "is_leaf": False, "grad_node": ids["vnode"], "out_slot": 0, "out_rank": 0}),
        ("tensor.update", {"tensor": ids["v"], "op": "mul_", "version": 1, "requires_grad": True,
                           "is_leaf": False, "grad_node": ids["vnode"], "out_slot": 0, "out_rank": 0}),
    ]
    kinds = [e.kind for e in events]
    assert kinds.index("tensor.version") < kinds.index("history.rewrite") < kinds.index("backward.begin")
    # The bump names the user's line, as node.create does: the line of v.mul_(3) in this file.
    bump = next(e for e in events if e.kind == "tensor.version")
    mul_line = next(i for i, line in enumerate(open(__file__, encoding="utf-8"), 1) if "v.mul_(3)" in line)
    assert bump.source == f"{__file__}:{mul_line}"
    node = next(e for e in events if e.kind == "node.create" and e.node == ids["new"])
    assert node.name.startswith("CopySlices") and [ed["next"] for ed in node.edges][0] == ids["old"]


def test_replay_tracks_versions_saved_versions_and_stale_saved_tensors() -> None:
    ids = {}

    def program():
        x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = x * 2
        d = h.detach()
        z = h * h  # saves h twice, at version 0
        ids.update(h=h.id, d=d.id, z=z.grad_fn.id)
        d.add_(1)  # through an alias: h is at version 1 too

    events = _record(program)
    states = mg.trace.replay(events)
    before = states[[e.kind for e in events].index("tensor.version") - 1]
    after = states[-1]
    assert stale_saved(before) == [] and after.tensors[ids["h"]].version == 1
    assert after.nodes[ids["z"]].saved_versions == (0, 0)
    bump = after.versions[-1]
    assert (bump.tensor, bump.version, bump.op, bump.via, bump.aliases) == (ids["d"], 1, "add_", None, (ids["h"],))
    assert {(s.node, s.tensor, s.saved_version, s.version) for s in stale_saved(after)} == {(ids["z"], ids["h"], 0, 1)}


def test_the_backward_view_marks_stale_saved_tensors_and_the_rewritten_history() -> None:
    from minigrad.viz.graph import collect_backward

    def program():
        x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        h = x * 2
        (h * h).sum()
        h[1].mul_(3)

    graph = collect_backward(mg.trace.replay(_record(program))[-1])
    rows = {n.title.split("#")[0]: n.rows for n in graph.nodes}
    assert any(r.startswith("STALE saved") and "saved at v0, now v1" in r for r in sum(
        (n.rows for n in graph.nodes if n.title.startswith("MulBackward0")), []))
    assert any("rewrote" in r and "stride [1] offset 2" in r for r in rows["CopySlices"])
