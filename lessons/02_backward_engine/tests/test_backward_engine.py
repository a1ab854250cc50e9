"""Lesson 2 tests: gradients, the in-degree map, and the exact event sequence of the loop.

The event-sequence tests record your engine and the reference engine on the same
program and compare the two recordings with ``mg.trace.diff`` (the ``same_events``
fixture); a failure names the first step where your engine did something else.

Run one task with ``pytest -m lesson2_task1`` (or ``lesson2_task2``).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import engine

BACKWARD_KINDS = {
    "backward.begin", "backward.in_degree", "queue.push", "queue.pop", "queue.skip", "node.begin", "node.run", "buffer.add",
    "in_degree.update", "grad.accumulate", "wrappers.clear", "hook.run", "backward.end",
}


def diamond():
    """loss = sum(exp(x*w) + sin(x*w)): MulBackward0 receives two gradients."""
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = mg.tensor([1.5, 0.25, -0.5], requires_grad=True)
    y = x * w
    loss = (y.exp() + y.sin()).sum()
    return x, w, y, loss


def nodes_of(loss):
    """The diamond's nodes by name: sum, add, exp, sin, mul, acc_x, acc_w."""
    s = loss.grad_fn
    add = s.next_edges[0][0].node
    exp, sin = add.next_edges[0][0].node, add.next_edges[1][0].node
    mul = exp.next_edges[0][0].node
    return dict(sum=s, add=add, exp=exp, sin=sin, mul=mul, acc_x=mul.next_edges[0][0].node, acc_w=mul.next_edges[1][0].node)


# -- Task 2.1: the in-degree map -------------------------------------------------------


@pytest.mark.lesson2_task1
def test_in_degree_of_a_diamond():
    _, _, _, loss = diamond()
    n = nodes_of(loss)
    got = engine.get_in_degree_map([n["sum"]])
    want = {n["add"]: 1, n["exp"]: 1, n["sin"]: 1, n["mul"]: 2, n["acc_x"]: 1, n["acc_w"]: 1}
    assert got == want, "each node's count is the number of edges leading into it; the start node has none"


@pytest.mark.lesson2_task1
def test_in_degree_counts_every_edge_of_a_reused_tensor():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    mul = loss.grad_fn.next_edges[0][0].node
    acc = mul.next_edges[0][0].node
    assert engine.get_in_degree_map([loss.grad_fn]) == {mul: 1, acc: 2}


@pytest.mark.lesson2_task1
def test_in_degree_ignores_edges_without_a_node():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    c = mg.tensor([3.0, 4.0])  # needs no gradient: its edge has node None
    loss = (x * c).sum()
    mul = loss.grad_fn.next_edges[0][0].node
    got = engine.get_in_degree_map([loss.grad_fn])
    assert got == {mul: 1, mul.next_edges[0][0].node: 1}


@pytest.mark.lesson2_task1
def test_in_degree_refuses_a_released_graph():
    _, _, _, loss = diamond()
    loss.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        engine.get_in_degree_map([loss.grad_fn])
    assert len(engine.get_in_degree_map([loss.grad_fn], check_released=False)) == 6


@pytest.mark.lesson2_task1
def test_in_degree_event_and_gradients():
    x, w, _, loss = diamond()
    n = nodes_of(loss)
    with mg.trace(values=False) as tr:
        loss.backward()
    (ev,) = [e for e in tr.events if e.kind == "backward.in_degree"]
    assert {int(k): v for k, v in ev.in_degree.items()} == {
        n["add"].id: 1, n["exp"].id: 1, n["sin"].id: 1, n["mul"].id: 2, n["acc_x"].id: 1, n["acc_w"].id: 1
    }
    y = x.detach().numpy() * w.detach().numpy()
    np.testing.assert_allclose(x.grad.detach().numpy(), w.detach().numpy() * (np.exp(y) + np.cos(y)), rtol=1e-5)


# -- Task 2.2: the ready-queue loop ------------------------------------------------------


def record(build, run):
    """Record building the graph and running backward: the forward pass anchors the ids the diff matches."""
    with mg.trace(values=True) as tr:
        tensors = build()
        run(tensors)
    return tr


def reference_backward(reference):
    """``run_backward`` with the reference engine's loop (during a Task 2.2 test minigrad runs yours)."""
    loop = reference("minigrad.autograd.engine", "run_ready_queue")

    def run(*args, **kwargs):
        yours = engine.run_ready_queue
        engine.run_ready_queue = loop
        try:
            return engine.run_backward(*args, **kwargs)
        finally:
            engine.run_ready_queue = yours

    return run


def check_same_as_reference(reference, same_events, build, run_student, run_reference):
    """Your engine's backward events against the reference engine's, compared with ``mg.trace.diff``."""
    ref_run = reference_backward(reference)
    want = record(build, lambda t: run_reference(ref_run, t))
    got = record(build, run_student)
    same_events(got, want, kinds=sorted(BACKWARD_KINDS))
    return [e for e in got.events if e.kind in BACKWARD_KINDS]


@pytest.mark.lesson2_task2
def test_gradients_of_a_diamond():
    x, w, _, loss = diamond()
    loss.backward()
    y = x.detach().numpy() * w.detach().numpy()
    np.testing.assert_allclose(x.grad.detach().numpy(), w.detach().numpy() * (np.exp(y) + np.cos(y)), rtol=1e-5)
    np.testing.assert_allclose(w.grad.detach().numpy(), x.detach().numpy() * (np.exp(y) + np.cos(y)), rtol=1e-5)


@pytest.mark.lesson2_task2
def test_gradients_of_an_mlp_step(reference):
    def step(run):
        mg.manual_seed(0)
        model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
        x = mg.randn(5, 4)
        loss = mg.nn.functional.cross_entropy(model(x), mg.tensor([0, 2, 1, 1, 0]))
        run(loss)
        return [p.grad.numpy() for p in model.parameters()]

    want = step(lambda loss: reference_backward(reference)([loss]))
    got = step(lambda loss: loss.backward())
    assert len(got) == len(want) == 4
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.lesson2_task2
def test_event_sequence_matches_the_reference(reference, same_events):
    got = check_same_as_reference(
        reference, same_events, diamond, lambda t: t[3].backward(), lambda run, t: run([t[3]])
    )
    kinds = [e.kind for e in got]
    assert kinds[0] == "backward.begin" and kinds[-1] == "backward.end"


@pytest.mark.lesson2_task2
def test_event_sequence_with_a_waiting_start_node(reference, same_events):
    """backward([loss, y]): y's node starts in the queue but must wait (queue.skip) for loss's gradient."""

    def run_student(t):
        mg.autograd.backward([t[3], t[2]], [None, mg.ones(3)])

    got = check_same_as_reference(reference, same_events, diamond, run_student,
                                  lambda run, t: run([t[3], t[2]], [None, mg.ones(3)]))
    assert any(e.kind == "queue.skip" for e in got), "the not-ready start node must be skipped when popped"


@pytest.mark.lesson2_task2
def test_event_sequence_of_a_reused_leaf_with_retain_graph(reference, same_events):
    def build():
        x = mg.tensor([1.0, -2.0], requires_grad=True)
        h = x * x
        return x, (h * x + h.tanh()).sum()

    check_same_as_reference(
        reference, same_events, build, lambda t: t[1].backward(retain_graph=True), lambda run, t: run([t[1]], retain_graph=True)
    )


@pytest.mark.lesson2_task2
def test_engine_rules_hold_in_your_event_log():
    """No node runs before its count reaches 0, none runs twice, AccumulationNodes go to the front."""
    with mg.trace(values=False) as tr:
        _, _, _, loss = diamond()
        loss.backward()
    accumulation = {e.node for e in tr.events if e.kind == "node.create" and e.is_accumulation}
    begin = next(e for e in tr.events if e.kind == "backward.begin")
    count = dict(next(e for e in tr.events if e.kind == "backward.in_degree").in_degree)
    count = {int(k): v for k, v in count.items()}
    ran = []
    for e in tr.events:
        if e.kind == "in_degree.update":
            count[e.node] = e.in_degree
        elif e.kind == "node.run":
            assert count.get(e.node, 0) == 0, f"node {e.node} ran with {count[e.node]} gradients still missing"
            assert e.node not in ran, f"node {e.node} ran twice"
            ran.append(e.node)
        elif e.kind == "queue.push" and e.node in accumulation:
            assert e.front and e.queue[0] == e.node, "an AccumulateGrad node is pushed to the front of the queue"
        elif e.kind == "queue.push" and e.node not in begin.start:
            assert not e.front and e.queue[-1] == e.node, "other nodes are pushed to the back"
    assert len(ran) == 7
    assert next(e for e in tr.events if e.kind == "backward.end").nodes_run == 7


@pytest.mark.lesson2_task2
def test_each_node_begins_before_its_formula_runs():
    """node.begin comes right after the node's queue.pop and before its formula's op calls; node.run after them."""
    with mg.trace(values=True) as tr:
        _, _, _, loss = diamond()
        loss.backward()
    events = tr.events[next(i for i, e in enumerate(tr.events) if e.kind == "backward.begin"):]
    begins = [i for i, e in enumerate(events) if e.kind == "node.begin"]
    assert len(begins) == 7, "every node that runs emits node.begin"
    calls_inside = 0
    for i in begins:
        node = events[i].node
        assert events[i - 1].kind == "queue.pop" and events[i - 1].node == node, "node.begin follows its queue.pop"
        end = next(j for j in range(i, len(events)) if events[j].kind == "node.run")
        assert events[end].node == node, "the node that began is the one that finishes"
        assert events[i].grads_in == events[end].grads_in, "node.begin carries the gradients the node takes"
        calls_inside += sum(e.kind == "api.call" for e in events[i + 1:end])
    assert calls_inside > 0, "a formula's op calls come between its node's node.begin and node.run"


@pytest.mark.lesson2_task2
def test_graph_is_released_without_retain_graph():
    x, _, _, loss = diamond()
    with mg.trace(values=False) as tr:
        loss.backward()
    cleared = [e.node for e in tr.events if e.kind == "wrappers.clear"]
    assert len(cleared) == 5, "every grad node that ran (not the AccumulateGrad nodes) is released"
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        loss.backward()


@pytest.mark.lesson2_task2
def test_retain_graph_lets_gradients_accumulate():
    x, w, _, loss = diamond()
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first, rtol=1e-6)


@pytest.mark.lesson2_task2
def test_hooks_see_the_summed_gradient():
    x, w, y, loss = diamond()
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    loss.backward()
    yv = x.detach().numpy() * w.detach().numpy()
    assert len(seen) == 1, "y's node runs once, after both of its gradients arrived"
    np.testing.assert_allclose(seen[0], np.exp(yv) + np.cos(yv), rtol=1e-5)
