"""The backward view's SVG shows the engine's state exactly at the step asked for.

Each test renders a hand-built trace of a known graph at a chosen step,
parses the SVG as XML and checks node statuses (fill colours), in-degree and
queue badges, edge labels, buffer previews and GeneralGrad marks.
"""

from __future__ import annotations

import hand_traces as H
import pytest
from viz_helpers import needs_dot, parse_svg

import minigrad.viz as viz
from minigrad.viz.style import BADGE, EDGE_PRUNED, MARK_COLOUR, STATUS_FILL

pytestmark = needs_dot


def badge_fill(node, text):
    """Fill of the badge cell whose text is ``text`` (the polygon drawn just before the text)."""
    assert text in node.texts, f"{text!r} not in {node.texts}"
    # Badge cells are filled polygons with a transparent stroke, in label order.
    cells = [f for f, s in zip(node.fills, node.strokes) if s == "transparent"]
    return cells


def test_mid_pass_statuses_badges_and_queue(simple_events):
    # Right after AddBackward0#3 sent its slot-1 gradient to x's AccumulationNode.
    step = H.index_of(simple_events, "in_degree.update", node=0, in_degree=1)
    nodes, edges = parse_svg(viz.render(simple_events, step=step).svg())

    assert nodes["n4"].fill == STATUS_FILL["released"]  # ran, wrappers cleared
    assert "released" in nodes["n4"].classes
    assert nodes["n3"].fill == STATUS_FILL["running"]   # current node
    assert nodes["n2"].fill == STATUS_FILL["queued"]
    assert "Q1" in nodes["n2"].texts and "in 0" in nodes["n2"].texts
    assert "buffer[0,0] = [1, 1]" in nodes["n2"].texts
    # x's AccumulationNode: still waiting for MulBackward0, its count just dropped to 1.
    acc = nodes["n0"]
    assert acc.fill == STATUS_FILL["pending"] and "accumulation" in acc.classes
    assert "in 1" in acc.texts and BADGE["changed"] in badge_fill(acc, "in 1")
    assert "buffer[0,0] = [1, 1]" in acc.texts
    assert nodes["n1"].fill == STATUS_FILL["pending"] and "in 1" in nodes["n1"].texts
    assert BADGE["changed"] not in badge_fill(nodes["n1"], "in 1")
    # The ready queue strip lists MulBackward0#2 at the front.
    assert "Q1 MulBackward0#2" in nodes["queue"].texts


def test_edges_carry_slot_and_rank_labels(simple_events):
    _, edges = parse_svg(viz.render(simple_events).svg())
    expected = {
        "e4_0_0": ("n4->n3", "s0 r0"),
        "e3_0_0": ("n3->n2", "s0 r0"),
        "e3_1_0": ("n3->n0", "s1 r0"),
        "e2_0_0": ("n2->n0", "s0 r0"),
        "e2_1_0": ("n2->n1", "s1 r0"),
    }
    assert set(expected) <= set(edges)
    for key, (title, label) in expected.items():
        assert edges[key].title == title
        assert edges[key].texts == [label]


def test_accumulation_nodes_go_to_the_front(simple_events):
    # After w's AccumulationNode was pushed to the front: queue = [n1, n0].
    step = H.index_of(simple_events, "queue.push", node=1)
    nodes, _ = parse_svg(viz.render(simple_events, step=step).svg())
    assert "Q1" in nodes["n1"].texts and "Q2" in nodes["n0"].texts
    assert nodes["n0"].fill == nodes["n1"].fill == STATUS_FILL["queued"]
    texts = [t for t in nodes["queue"].texts if t.startswith("Q")]
    assert texts == ["Q1 AccumulateGrad#1", "Q2 AccumulateGrad#0"]


def test_final_state_shows_grads_and_released_nodes(simple_events):
    nodes, _ = parse_svg(viz.render(simple_events).svg())
    for n in ("n2", "n3", "n4"):
        assert nodes[n].fill == STATUS_FILL["released"]
    for n in ("n0", "n1"):  # AccumulationNodes hold no wrappers: done, not released
        assert nodes[n].fill == STATUS_FILL["done"]
    assert ".grad = [4, 5]" in nodes["n0"].texts
    assert ".grad = [1, 2]" in nodes["n1"].texts


def test_retain_graph_keeps_nodes_done_not_released():
    evs = H.simple_backward(retain_graph=True)
    nodes, _ = parse_svg(viz.render(evs).svg())
    assert {nodes[n].fill for n in ("n2", "n3", "n4")} == {STATUS_FILL["done"]}


def test_before_backward_everything_is_idle_without_badges(simple_events):
    step = H.index_of(simple_events, "backward.begin") - 1
    nodes, _ = parse_svg(viz.render(simple_events, step=step).svg())
    graph_nodes = {k: v for k, v in nodes.items() if k.startswith("n")}
    assert set(graph_nodes) == {"n0", "n1", "n2", "n3", "n4"}
    for n in graph_nodes.values():
        assert n.fill == STATUS_FILL["idle"]
        assert not any(t.startswith("in ") for t in n.texts)
    assert "queue" not in nodes


def test_in_degree_badges_follow_the_map_at_the_start(simple_events):
    step = H.index_of(simple_events, "backward.in_degree")
    nodes, _ = parse_svg(viz.render(simple_events, step=step).svg())
    want = {"n4": "in 0", "n3": "in 1", "n2": "in 1", "n0": "in 2", "n1": "in 1"}
    for key, badge in want.items():
        assert badge in nodes[key].texts, (key, nodes[key].texts)
        assert nodes[key].fill == STATUS_FILL["pending"]


def test_legend_is_drawn_with_every_status_colour(simple_events):
    nodes, _ = parse_svg(viz.render(simple_events).svg())
    legend = nodes["legend"]
    for status in ("pending", "queued", "running", "done", "released", "pruned"):
        assert STATUS_FILL[status] in legend.fills
    assert "current in-degree" in legend.texts and "in 2" in legend.texts  # the swatch shows the real badge
    assert "s0 r1 →" in legend.texts and "Q1" in legend.texts
    # The green "0" badge, as on the web page's legend.
    assert "in 0" in legend.texts and BADGE["zero"] in legend.fills
    nodes, _ = parse_svg(viz.render(simple_events, legend=False).svg())
    assert "legend" not in nodes


def test_grad_trace_marks_startup_ending_pruned_and_cut_edges(grad_events):
    step = H.index_of(grad_events, "queue.push", node=23)
    nodes, edges = parse_svg(viz.render(grad_events, step=step).svg())
    # Only GeneralGrad's copies are drawn.
    assert {k for k in nodes if k.startswith("n")} == {"n20", "n21", "n22", "n23", "n24", "n25"}
    assert "copy of MulBackward0#13" in nodes["n23"].texts
    startup = nodes["n25"]
    assert "startup" in startup.classes and startup.stroke == MARK_COLOUR["startup"]
    ending = nodes["n20"]
    assert "ending" in ending.classes and ending.stroke == MARK_COLOUR["ending"]
    assert "GeneralGrad: ending, needed, input" in ending.texts
    # b's AccumulationNode copy is not needed: pruned, grey, dashed.
    b = nodes["n22"]
    assert b.fill == STATUS_FILL["pruned"] and b.dashed and "pruned: not needed" in b.texts
    # w is a no_grad_var: the edge into its copy is cut (red, dashed) and it is pruned.
    cut = edges["e23_1_0"]
    assert "pruned" in cut.classes and cut.dashed and EDGE_PRUNED in cut.strokes
    assert "cut: no_grad_vars" in cut.texts
    assert nodes["n21"].fill == STATUS_FILL["pruned"] and "GeneralGrad: no_grad" in nodes["n21"].texts
    assert "pruned" not in edges["e23_0_0"].classes
    # Mid-pass statuses still apply to the needed nodes.
    assert nodes["n23"].fill == STATUS_FILL["queued"]
    assert nodes["n24"].fill == STATUS_FILL["running"]
    # The grad() legend explains the GeneralGrad marks.
    assert "red dashed edge: cut (no_grad_vars)" in nodes["legend"].texts


def test_grad_copies_are_hidden_before_they_exist(grad_events):
    step = H.index_of(grad_events, "backward.begin")
    r = viz.render(grad_events, step=step)
    nodes, _ = parse_svg(r.svg())
    # The start node's copy is announced but not yet created: an invisible placeholder.
    assert "n25" not in nodes and "n15" not in nodes
    assert r.graph.node("n25").hidden and "style=invis" in r.source


def test_output_is_deterministic(simple_events):
    a = viz.render(simple_events, step=40)
    b = viz.render(list(H.simple_backward()), step=40)
    assert a.source == b.source
    assert a.svg() == b.svg()
    assert "n3 [" in a.source and "n3 -> n2" in a.source


def test_steps_out_of_range_are_clear_errors(simple_events):
    with pytest.raises(IndexError, match="out of range: the trace has 64 events"):
        viz.render(simple_events, step=64)
    with pytest.raises(ValueError, match="kind"):
        viz.render(simple_events, kind="sideways")
    with pytest.raises(IndexError, match="backward pass 3"):
        viz.render(simple_events, backward_pass=3)
