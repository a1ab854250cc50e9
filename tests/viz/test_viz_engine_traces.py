"""The renderer on traces recorded from the real engine (not hand-built events)."""

from __future__ import annotations

import json

import pytest
from viz_helpers import FIXTURES, needs_dot, parse_svg

import minigrad as mg
import minigrad.viz as viz
from minigrad.tracing import load, replay
from minigrad.tracing.replay import node_status
from minigrad.viz.flipbook import FORWARD_KINDS
from minigrad.viz.style import EDGE_PRUNED, MARK_COLOUR, STATUS_FILL

if not hasattr(mg, "tensor"):  # pragma: no cover - before the engine landed
    pytest.skip("the engine is not available", allow_module_level=True)


def record_square_sum():
    with mg.trace() as tr:
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        x.name = "x"
        y = (x * x).sum()
        y.backward()
    return tr, x


def record_two_layers(retain_graph=False):
    with mg.trace() as tr:
        x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        w = mg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        b = mg.tensor([0.1, -0.2], requires_grad=True)
        loss = ((x @ w + b).relu() * x).sum()
        loss.backward(retain_graph=retain_graph)
    return tr


@needs_dot
def test_every_step_of_a_real_pass_draws_what_replay_says():
    tr = record_two_layers()
    rp = replay(tr.events)
    (begin, end, mode), = rp.backward_passes()
    assert mode == "backward"
    for i in range(begin, end + 1):
        state = rp[i]
        g = viz.collect_backward(state)
        drawn = {n.key: n for n in g.nodes}
        for nid in state.backward.nodes:
            assert drawn[f"n{nid}"].status == node_status(state, nid)
            assert drawn[f"n{nid}"].in_degree == state.backward.in_degree.get(nid)
    # Spot-check one step through the SVG: the first AccumulationNode push goes to the front.
    push = next(i for i in range(begin, end) if tr.events[i].kind == "queue.push" and tr.events[i].front)
    nodes, _ = parse_svg(viz.render(tr, step=push).svg())
    acc = f"n{tr.events[push].node}"
    assert "Q1" in nodes[acc].texts and nodes[acc].fill == STATUS_FILL["queued"]


@needs_dot
def test_real_final_state_and_gradients():
    tr, x = record_square_sum()
    nodes, edges = parse_svg(viz.render(tr).svg())
    grad_nodes = {k: v for k, v in nodes.items() if k.startswith("n")}
    kinds = sorted(v.texts[0].split("#")[0] for v in grad_nodes.values())
    assert kinds == ["AccumulateGrad", "MulBackward0", "SumBackward0"]
    acc = next(v for v in grad_nodes.values() if "accumulation" in v.classes)
    assert acc.fill == STATUS_FILL["done"] and ".grad = [2, 4]" in acc.texts
    assert "leaf x: 2 float32" in acc.texts
    others = [v for v in grad_nodes.values() if "accumulation" not in v.classes]
    assert {v.fill for v in others} == {STATUS_FILL["released"]}
    # x*x: both edges of MulBackward0 lead to x's AccumulationNode, slots 0 and 1.
    labels = sorted(e.texts[0] for e in edges.values())
    assert labels == ["s0 r0", "s0 r0", "s1 r0"]


@needs_dot
def test_retain_graph_real():
    nodes, _ = parse_svg(viz.render(record_two_layers(retain_graph=True)).svg())
    fills = {v.fill for k, v in nodes.items() if k.startswith("n") and "accumulation" not in v.classes}
    assert fills == {STATUS_FILL["done"]}


@needs_dot
def test_real_forward_and_kernel_views():
    tr = record_two_layers()
    nodes, _ = parse_svg(viz.render(tr, kind="forward").svg())
    ops = sorted(v.texts[0] for k, v in nodes.items() if k.startswith("c"))
    assert ops == ["add", "matmul", "mul", "relu", "sum"]  # backward-formula calls are left out
    kernel_rows = [t for k, v in nodes.items() if k.startswith("c") for t in v.texts if t.startswith("kernel ")]
    assert len(kernel_rows) == 5
    knodes, _ = parse_svg(viz.render(tr, kind="kernel", call="matmul").svg())
    texts = [t for v in knodes.values() for t in v.texts]
    assert "KernelKey" in texts and any(t.startswith("probe 1: ") for t in texts)
    assert any(t.startswith("selected ") for t in texts) and "InferMeta" in texts


@needs_dot
def test_real_flipbook_one_frame_per_step():
    tr = record_two_layers()
    rp = replay(tr.events)
    (begin, end, _), = rp.backward_passes()
    book = viz.flipbook(tr)
    engine_steps = [i for i in range(begin, end + 1) if tr.events[i].kind not in FORWARD_KINDS]
    assert [f.step for f in book.frames] == engine_steps
    assert len(engine_steps) < end + 1 - begin  # backward formulas' op calls are not frames
    assert [f.step for f in viz.flipbook(tr, frames="event").frames] == list(range(begin, end + 1))
    runs = sum(1 for e in tr.events if e.kind == "node.run")
    assert len(viz.flipbook(tr, frames="node")) == runs + 2


def test_real_chrome_trace():
    tr = record_two_layers()
    doc = json.loads(json.dumps(viz.chrome_trace(tr)))
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    launches = [e for e in tr.events if e.kind == "kernel.launch"]
    assert len([s for s in slices if s["cat"] == "kernel"]) == len(launches)
    runs = [e for e in tr.events if e.kind == "node.run"]
    node_slices = [s for s in slices if s["cat"] == "node"]
    assert len(node_slices) == len(runs)
    assert {s["args"]["node"] for s in node_slices} == {e.node for e in runs}


@needs_dot
def test_render_a_tensor_without_a_recording():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x + x).sum()
    r = viz.render(y)
    nodes, edges = parse_svg(r.svg())
    titles = sorted(v.texts[0].split("#")[0] for k, v in nodes.items() if k.startswith("n"))
    assert titles == ["AccumulateGrad", "AddBackward0", "MulBackward0", "SumBackward0"]
    assert all(v.fill == STATUS_FILL["idle"] for k, v in nodes.items() if k.startswith("n"))
    assert len(edges) == 5  # sum->add, add->mul, add->acc, mul->acc twice (x*x)
    with pytest.raises(LookupError, match="needs a recording"):
        viz.render(y, kind="forward")


@needs_dot
def test_render_a_tensor_from_its_trace_shows_only_its_graph():
    with mg.trace() as tr:
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        other = (a * 3).sum()  # a second, unrelated graph
        y = (a * a).sum()
    r = viz.render(y, trace=tr)
    names = sorted(n.title.split("#")[0] for n in r.graph.nodes)
    assert names == ["AccumulateGrad", "MulBackward0", "SumBackward0"]
    assert other.grad_fn.id not in {int(n.key[1:]) for n in r.graph.nodes}


@needs_dot
def test_recorded_grad_with_no_grad_vars():
    """``mg.grad(l, [x], no_grad_vars=[w])`` recorded from the engine (fixture script in its docstring).

    x, w, b = leaves; h = x * w; l = (h + b).sum() + (h * w).sum().
    """
    path = FIXTURES / "grad_no_grad_vars.jsonl"
    rp = replay(load(path).events)
    (begin, end, mode), = rp.backward_passes()
    assert mode == "grad"
    general = rp[end].backward.general
    (ending,) = general.ending
    (startup,) = general.startup
    (no_grad,) = general.no_grad
    step = next(i for i in range(begin, end) if rp.events[i].kind == "node.run")
    nodes, edges = parse_svg(viz.render(path, step=step).svg())
    drawn = {k for k in nodes if k.startswith("n")}
    assert drawn == {f"n{c}" for c in general.copies.values()}  # the copy, not the user's graph
    assert nodes[f"n{startup}"].stroke == MARK_COLOUR["startup"]
    assert nodes[f"n{ending}"].stroke == MARK_COLOUR["ending"] and "input" in nodes[f"n{ending}"].classes
    pruned = {k for k, v in nodes.items() if "pruned" in v.classes}
    not_needed = {f"n{c}" for c in general.copies.values() if c not in general.needed}
    assert pruned == not_needed and f"n{no_grad}" in pruned and len(pruned) == 2  # w's and b's copies
    cut = {e.title for e in edges.values() if "pruned" in e.classes}
    assert cut == {f"n{e['node']}->n{e['next']}" for e in general.pruned} and len(cut) == 2
    for e in edges.values():
        if "pruned" in e.classes:
            assert e.dashed and EDGE_PRUNED in e.strokes


def test_render_a_tensor_built_before_the_active_recording():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    with mg.trace():
        r = viz.render(y)
    assert sorted(n.title.split("#")[0] for n in r.graph.nodes) == ["AccumulateGrad", "MulBackward0", "SumBackward0"]
    with mg.trace() as tr:
        pass
    with pytest.raises(LookupError, match="does not appear in the trace"):
        viz.render(y, trace=tr)


@needs_dot
def test_grad_flipbook_draws_copies_before_they_exist_and_keeps_the_layout():
    book = viz.flipbook(FIXTURES / "grad_no_grad_vars.jsonl")
    first, first_edges = parse_svg(book.frames[0].svg)
    copies = {k for k in first if k.startswith("n")}
    assert len(copies) == 9
    # Before GeneralGrad made its copies they are faded placeholders, named from the end of the pass.
    assert all("future" in first[k].classes and "not created yet" in first[k].texts for k in copies)
    assert {"future"} == {c for e in first_edges.values() for c in e.classes if c != "edge"}
    for frame in book.frames[1:]:
        nodes, _ = parse_svg(frame.svg)
        for key in copies:
            assert nodes[key].center == first[key].center, (frame.step, key)
    last, last_edges = parse_svg(book.frames[-1].svg)
    assert not any("future" in v.classes for v in last.values())
    assert sum("pruned" in e.classes for e in last_edges.values()) == 2
    assert any("GeneralGrad targets AccumulateGrad#" in f.caption for f in book.frames)
