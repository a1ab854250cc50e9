"""Activation checkpointing's recomputation drawn as such: its nodes (and op calls) sit in a box
labelled with the grad node whose backward asked for it."""

from __future__ import annotations

import minigrad as mg
from minigrad.viz.draw import to_digraph
from minigrad.viz.graph import collect_backward, collect_forward


def _recorded(use_reentrant):
    mg.manual_seed(0)
    block = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.Tanh(), mg.nn.Linear(8, 4))
    x = mg.randn(3, 4, requires_grad=True)
    with mg.trace(values=False) as tr:
        mg.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant).sum().backward()
    return tr.events


def test_the_reentrant_inner_pass_boxes_the_recomputed_nodes():
    events = _recorded(True)
    rp = mg.trace.replay(events)
    asker = next(e.node for e in events if e.kind == "recompute.begin")
    final = rp.final
    recomputed = [n for n in final.nodes.values() if n.recompute_of is not None]
    assert recomputed and all(n.recompute_of == asker for n in recomputed)
    assert {n.op for n in recomputed if not n.is_accumulation} >= {"addmm", "t", "tanh"}
    inner = final.passes[1]  # the backward run inside the checkpoint's backward
    g = collect_backward(final, inner)
    boxed = [n for n in g.nodes if n.cluster == f"recompute_{asker}"]
    assert boxed and g.clusters[f"recompute_{asker}"] == f"recomputed inside backward for {final.node_name(asker)}"
    assert "cluster_recompute_" in to_digraph(g).source
    outer = collect_backward(final, final.passes[0])  # the user's pass: nothing recomputed in it
    assert not any(n.cluster for n in outer.nodes)


def test_the_forward_view_with_backward_calls_boxes_the_recomputed_calls():
    events = _recorded(False)
    final = mg.trace.replay(events).final
    asker = next(e.node for e in events if e.kind == "recompute.begin")
    g = collect_forward(final, include_backward=True, all_passes=True)
    boxed = [n for n in g.nodes if n.cluster == f"recompute_{asker}"]
    assert boxed and all(n.kind == "op" for n in boxed)
    assert not [n for n in collect_forward(final).nodes if n.cluster]  # the forward pass alone: no box
