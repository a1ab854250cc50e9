"""The view model (``minigrad.tui.model``): layout, names, quiz questions, all read off replayed states."""

from __future__ import annotations

import subprocess
import sys

from minigrad.tui.model import Session
from minigrad.tui.screens.help import KEYS
from minigrad.tui.screens.main import MainScreen
from minigrad.tui.screens.quiz import matches_node, parse_degrees


def test_import_minigrad_does_not_import_textual_or_rich():
    code = "import minigrad, minigrad.tui, sys; print(sorted(m for m in ('textual', 'rich') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_passes_of_the_demo(demo_session: Session):
    assert [(p.begin, p.end, p.mode, p.complete) for p in demo_session.passes] == [
        (106, 390, "backward", True),
        (391, 585, "grad", True),
    ]
    assert "grad()" in demo_session.passes[1].label


def test_layout_orders_nodes_by_depth_from_the_start(demo_session: Session):
    lay = demo_session.layout(0)
    names = [demo_session.node_name(n) for n in lay.order]
    assert names[0] == "AddBackward0#14"  # the start node
    depth = {demo_session.node_name(n): lay.depth[n] for n in lay.order}
    # the diamond: TanhBackward0#5 sits below both of its consumers (longest path)
    assert depth["TanhBackward0#5"] == max(depth["MulBackward0#6"], depth["SigmoidBackward0#7"]) + 1
    assert depth["AccumulateGrad#2"] == 8
    assert [depth[n] for n in names] == sorted(depth[n] for n in names)
    assert lay.runs[:3] == (111, 120, 143)  # where each node begins (node.begin)
    assert all(demo_session.events[r].kind == "node.begin" for r in lay.runs)
    assert demo_session.layout(0) is lay  # computed once


def test_layout_of_grad_pass_includes_pruned_copies(demo_session: Session):
    lay = demo_session.layout(1)
    names = {demo_session.node_name(n) for n in lay.order}
    assert len(names) == 14  # every copy, also those GeneralGrad did not need
    assert all(lay.nodes[n].copy_of is not None for n in lay.order)


def test_find_node(demo_session: Session):
    assert demo_session.find_node("tanhbackward0#5", 0) == 5
    assert demo_session.find_node("#12", 0) == 12
    assert demo_session.find_node("Sigmoid", 0) == 7
    assert demo_session.find_node("nothing", 0) is None
    assert demo_session.find_node("  ", 0) is None


def test_quiz_questions_are_answered_by_replayed_states(demo_session: Session):
    q = demo_session.question(196, 0)  # MulBackward0#12: b1 * b1
    assert (q.node, q.ask_index) == (12, 195)
    assert q.successors == (4,)  # both edges lead to b1's AccumulationNode
    assert q.in_degree_after == (1,)  # 3 -> 2 -> 1 after its two gradients
    assert q.candidates == (12, 8)  # the queue before the pop
    assert demo_session.state(q.after_index).backward.in_degree[4] == 1
    q = demo_session.question(192, 0)  # an AccumulationNode has no next nodes
    assert q.successors == () and q.in_degree_after == ()


def test_due_question_skips_answered_runs(demo_session: Session):
    assert demo_session.due_question(106, 111, 0, set()).run_index == 111
    assert demo_session.due_question(106, 111, 0, {111}) is None
    assert demo_session.due_question(111, 390, 0, {120}).run_index == 143


def test_answer_matching():
    s = Session([])
    assert parse_degrees("0 1") == (0, 1) and parse_degrees("0,1") == (0, 1) and parse_degrees("x") is None
    assert not matches_node("", 3, s)


def test_answer_matching_by_name(demo_session: Session):
    assert matches_node("MulBackward0#12", 12, demo_session)
    assert matches_node("mulbackward0#12", 12, demo_session)
    assert matches_node("#12", 12, demo_session) and matches_node("12", 12, demo_session)
    assert matches_node("Mul", 12, demo_session, candidates=(12, 8))  # unique among the queue
    assert not matches_node("Grad", 12, demo_session, candidates=(12, 8))  # ambiguous
    assert not matches_node("AddBackward0#8", 12, demo_session)


def test_empty_trace():
    s = Session([])
    assert s.passes == [] and s.state(-1).passes == () and s.state(5).passes == ()


def test_help_lists_every_key_binding():
    """Each binding of the main screen appears in the help screen (and so in docs/tui.md)."""
    helped = " ".join(k for k, _ in KEYS).lower()
    names = {"right": "→", "left": "←", "right_square_bracket": "]", "left_square_bracket": "[",
             "question_mark": "?", "plus": "+", "minus": "-", "equals_sign": "+", "space": "space"}
    for binding in MainScreen.BINDINGS:
        first = binding.key.split(",")[0]
        assert names.get(first, first).lower() in helped, binding.key
