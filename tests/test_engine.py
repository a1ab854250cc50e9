"""The backward engine (Paddle's paddle/fluid/eager/backward.cc; docs/architecture.md, The backward path and Engine rules): exact event sequences and the engine rules."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import engine

ENGINE_KINDS = {
    "backward.begin", "buffer.add", "queue.push", "backward.in_degree", "queue.pop", "queue.skip", "node.begin",
    "node.run", "wrappers.clear", "in_degree.update", "grad.accumulate", "hook.run", "backward.end",
}


def engine_events(tr):
    """Backward-engine events only (backward formulas' own op calls are filtered out)."""
    return [e for e in tr.events if e.kind in ENGINE_KINDS]


def nodes_by_name(tr):
    return {e.name: e.node for e in tr.events if e.kind == "node.create"}


# ---------------------------------------------------------------------------
# Exact event sequences
# ---------------------------------------------------------------------------


def test_exact_event_sequence_of_a_small_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")
    with mg.trace() as tr:
        y = x * x  # MulBackward0 with two edges into x's AccumulationNode
        z = y.sum()
        z.backward()
    ids = {e.op: e.node for e in tr.events if e.kind == "node.create"}
    acc, mul, s = ids["accumulate"], ids["mul"], ids["sum"]
    got = [(e.kind, getattr(e, "node", None)) for e in engine_events(tr)]
    assert got == [
        ("backward.begin", None),
        ("buffer.add", s),  # the seed
        ("queue.push", s),
        ("backward.in_degree", None),
        ("queue.pop", s),
        ("node.begin", s),
        ("node.run", s),
        ("wrappers.clear", s),
        ("buffer.add", mul),
        ("in_degree.update", mul),
        ("queue.push", mul),
        ("queue.pop", mul),
        ("node.begin", mul),
        ("node.run", mul),
        ("wrappers.clear", mul),
        ("buffer.add", acc),  # first edge of mul: slot 0
        ("in_degree.update", acc),
        ("buffer.add", acc),  # second edge: slot 1 -> count reaches 0
        ("in_degree.update", acc),
        ("queue.push", acc),
        ("queue.pop", acc),
        ("node.begin", acc),
        ("grad.accumulate", None),
        ("node.run", acc),
        ("backward.end", None),
    ]
    begin = engine_events(tr)[0]
    assert begin.mode == "backward" and begin.start == [s] and not begin.retain_graph and not begin.create_graph
    indeg = [e for e in tr.events if e.kind == "backward.in_degree"][0].in_degree
    assert indeg == {mul: 1, acc: 2}
    updates = [e.in_degree for e in tr.events if e.kind == "in_degree.update"]
    assert updates == [0, 1, 0]
    push_acc = [e for e in tr.events if e.kind == "queue.push" and e.node == acc][0]
    assert push_acc.front is True and push_acc.queue == [acc]
    acc_ev = [e for e in tr.events if e.kind == "grad.accumulate"][0]
    assert acc_ev.tensor == x.id and acc_ev.value == [2.0, 4.0]
    end = engine_events(tr)[-1]
    assert end.nodes_run == 3 and end.wall_ns > 0
    begin_mul = next(e for e in tr.events if e.kind == "node.begin" and e.node == mul)
    assert begin_mul.grads_in == [[[1.0, 1.0]]]


def test_node_begin_comes_before_the_formulas_events_and_node_run_after():
    """Each node's events sit between its node.begin and its node.run: hooks, the formula's op calls, .grad."""
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True, name="x")
    with mg.trace() as tr:
        y = x.exp() * x
        y.register_hook(lambda g: g * 2)
        y.sum().backward()
    open_node, begun = None, []
    for e in tr.events[next(i for i, e in enumerate(tr.events) if e.kind == "backward.begin"):]:
        if e.kind == "node.begin":
            assert open_node is None, "a node begins only after the previous one finished"
            open_node = e.node
            begun.append(e.node)
        elif e.kind == "node.run":
            assert e.node == open_node, "node.run closes the node that began"
            open_node = None
        elif e.kind in ("hook.run", "grad.accumulate") or (e.kind == "api.call" and e.op != "add"):
            assert open_node is not None, f"{e.kind} outside a node's begin/run"
        elif e.kind == "api.call":  # outside a node only the sum of two gradients for one buffer position
            later = tr.events[tr.events.index(e):]
            assert open_node is not None or next(x for x in later if x.kind in ENGINE_KINDS).kind == "buffer.add"
    runs = [e.node for e in tr.events if e.kind == "node.run"]
    assert begun == runs and len(runs) == 4
    # node.begin shows the buffer as the engine took it; node.run what the formula got, after y's hook doubled it.
    ins = {e.node: [e.grads_in] for e in tr.events if e.kind == "node.begin"}
    for e in tr.events:
        if e.kind == "node.run":
            ins[e.node].append(e.grads_in)
    mul = y.grad_fn.id
    assert ins[mul] == [[[[1.0, 1.0, 1.0]]], [[[2.0, 2.0, 2.0]]]]
    assert all(begin == run for node, (begin, run) in ins.items() if node != mul)


def test_accumulation_nodes_jump_the_queue():
    """Rule 5: a ready AccumulationNode goes to the front, other nodes to the back."""
    a = mg.tensor([1.0], requires_grad=True, name="a")
    b = mg.tensor([2.0], requires_grad=True, name="b")
    with mg.trace() as tr:
        u = a * 3.0  # MulBackward0 -> Acc(a)
        v = b.exp()  # ExpBackward0 -> Acc(b)
        w = u + v  # AddBackward0: slot 0 -> mul, slot 1 -> exp
        w.sum().backward()
    ids = {e.op: e.node for e in tr.events if e.kind == "node.create" and not e.is_accumulation}
    acc_a = [e.node for e in tr.events if e.kind == "node.create" and e.tensor == a.id][0]
    acc_b = [e.node for e in tr.events if e.kind == "node.create" and e.tensor == b.id][0]
    runs = [e.node for e in tr.events if e.kind == "node.run"]
    # add pushes mul then exp to the back; mul runs and pushes Acc(a) to the FRONT, before exp.
    assert runs == [ids["sum"], ids["add"], ids["mul"], acc_a, ids["exp"], acc_b]
    pushes = [(e.node, e.front, e.queue) for e in tr.events if e.kind == "queue.push"]
    assert (acc_a, True, [acc_a, ids["exp"]]) in pushes


def simulate_deque(node_creates, start, in_degree_map=None):
    """An independent model of Paddle's paddle/fluid/eager/backward.cc's RunBackward fed only with node.create events.

    Returns the order nodes run in and the initial in-degree map.
    """
    edges = {e.node: [x["next"] for x in e.edges if x["next"] is not None] for e in node_creates}
    is_acc = {e.node: e.is_accumulation for e in node_creates}
    indeg: dict[int, int] = {}
    seen, work = set(), deque(start)
    while work:
        n = work.popleft()
        if n in seen:
            continue
        seen.add(n)
        for m in edges[n]:
            indeg[m] = indeg.get(m, 0) + 1
            work.append(m)
    initial = dict(indeg)
    queue, order, waiting = deque(start), [], set(start)
    while queue:
        n = queue[0]
        if len(queue) > 1 and indeg.get(n, 0) != 0:
            queue.popleft()
            waiting.discard(n)
            continue
        queue.popleft()
        waiting.discard(n)
        order.append(n)
        for m in edges[n]:
            indeg[m] -= 1
            if indeg[m] == 0 and m not in waiting:
                if is_acc[m]:
                    queue.appendleft(m)
                else:
                    queue.append(m)
    return order, initial


def _mlp_like_graph():
    mg.manual_seed(1)
    x = mg.randn(3, 4, name="x")
    w1 = mg.randn(4, 5, requires_grad=True, name="w1")
    b1 = mg.randn(5, requires_grad=True, name="b1")
    w2 = mg.randn(5, 2, requires_grad=True, name="w2")
    h = (x @ w1 + b1).relu()
    shared = h * h  # shared subexpression used twice below
    out = (shared @ w2).tanh() + (shared.sum(dim=1, keepdim=True) * b1.sum())  # b1 used twice (diamond)
    return out.mean()


def test_node_run_order_matches_an_independent_deque_simulation():
    with mg.trace() as tr:
        loss = _mlp_like_graph()
        loss.backward()
    creates = [e for e in tr.events if e.kind == "node.create"]
    begin = [e for e in tr.events if e.kind == "backward.begin"][0]
    order, initial = simulate_deque(creates, begin.start)
    runs = [e.node for e in tr.events if e.kind == "node.run"]
    recorded = [e for e in tr.events if e.kind == "backward.in_degree"][0].in_degree
    assert recorded == initial
    assert runs == order
    assert len(runs) == len(set(runs)), "no node runs twice"


def test_no_node_runs_before_its_count_reaches_zero():
    with mg.trace() as tr:
        _mlp_like_graph().backward()
    count = dict([e for e in tr.events if e.kind == "backward.in_degree"][0].in_degree)
    for e in engine_events(tr):
        if e.kind == "in_degree.update":
            count[e.node] = e.in_degree
        elif e.kind == "node.run" and e.node in count:
            assert count[e.node] == 0, f"node {e.node} ran with in-degree {count[e.node]}"


# ---------------------------------------------------------------------------
# docs/architecture.md, Engine rules
# ---------------------------------------------------------------------------


def test_rule1_leaf_grad_accumulates_across_backward_calls():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    first = x.grad
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])
    np.testing.assert_allclose(first.numpy(), [3.0, 3.0]), "the old .grad object is not modified"


def test_rule2_implicit_seed_only_for_one_element_outputs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    assert x.grad is None
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of minigrad.Size\(\[3\]\) and output\[0\] has a shape of minigrad.Size\(\[2\]\)\."):
        y.backward(mg.ones(3))
    y.backward(mg.tensor([1.0, 10.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 20.0])
    # a one-element non-scalar output gets ones implicitly
    z = (x * 1).sum(dim=0, keepdim=True)
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 21.0])


def test_rule3_second_backward_through_a_released_graph_raises():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()  # add and sum save nothing: still released (Paddle's rule)
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0]), "the failed backward wrote nothing"


def test_rule3_retain_graph_allows_a_second_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_rule3_released_nodes_emit_wrappers_clear_and_keep_nothing():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    node = y.grad_fn
    assert all(w.data is not None for w in node.wrappers)
    y.sum().backward()
    assert node.released and all(w.data is None for w in node.wrappers)


def test_rule6_hooks_chain_in_order_and_may_replace_the_gradient():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(("a", g.tolist())) or g * 10)
    x.register_hook(lambda g: calls.append(("b", g.tolist())))  # None keeps it
    h = x.register_hook(lambda g: g + 1)
    (x * 2).sum().backward()
    assert calls == [("a", [2.0, 2.0]), ("b", [20.0, 20.0])]
    np.testing.assert_allclose(x.grad.numpy(), [21.0, 21.0])
    h.remove()
    x.grad = None
    calls.clear()
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 20.0])


def test_rule6_non_leaf_hook_runs_when_its_node_runs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 0.5)
    with mg.trace() as tr:
        (y * y).sum().backward()
    # d/dx (3x)^2 = 18x, halved by the hook on y
    np.testing.assert_allclose(x.grad.numpy(), [9.0, 18.0])
    kinds = [e.kind for e in engine_events(tr)]
    hook_at = kinds.index("hook.run")
    mul_node = y.grad_fn.id
    pop_before = [e for e in engine_events(tr)[:hook_at] if e.kind == "queue.pop"][-1]
    assert pop_before.node == mul_node
    assert [e for e in tr.events if e.kind == "hook.run"][0].target == y.id


def test_rule6_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.tensor([1.0]).register_hook(lambda g: g)


def test_retain_grad_keeps_a_non_leaf_gradient_after_user_hooks():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 3)  # registered after retain_grad, still runs first
    y.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    z = x * 1
    z.sum().backward()
    assert z.grad is None, "non-leaf gradients are not kept without retain_grad"


def test_final_backward_hooks_run_once_at_the_end():
    seen = []
    x = mg.tensor([1.0], requires_grad=True)
    mg.autograd.register_final_backward_hook(lambda: seen.append(x.grad.item()))
    (x * 5).sum().backward()
    (x * 5).sum().backward()
    assert seen == [5.0]


def test_rule8_inplace_on_saved_tensor_raises_naming_tensor_and_versions():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.name = "y"
    z = y * y  # saves y at version 0
    y.add_(1)
    assert y.version == 1
    with pytest.raises(RuntimeError, match=r"'y'.*version 0.*version 1"):
        z.sum().backward()


def test_rule8_inplace_records_history_like_its_out_of_place_twin():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    old = y.grad_fn
    y.mul_(x)  # y = 2x * x in place
    assert y.grad_fn is not old and y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_rule8_inplace_on_a_leaf_that_requires_grad_raises():
    x = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf"):
        x *= 2
    with mg.no_grad():
        x.add_(1)
    assert x.item() == 2.0 and x.is_leaf and x.requires_grad


def test_rule8_python_scalars_on_either_side():
    x = mg.tensor([2.0, 4.0], requires_grad=True)
    y = (2 * x) + (10.0 / x) - (1 - x) + x ** 2 + 2 ** x
    y.sum().backward()
    xv = np.array([2.0, 4.0])
    expected = 2 - 10.0 / xv**2 + 1 + 2 * xv + np.log(2) * 2**xv
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5)
    assert (2 * x).dtype is mg.float32


def test_rule9_no_grad_creates_no_node_and_backward_without_grad_raises():
    x = mg.tensor([1.0], requires_grad=True)
    with mg.no_grad():
        y = x * 2
        with mg.enable_grad():
            z = x * 2
    assert y.grad_fn is None and not y.requires_grad
    assert z.grad_fn is not None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


def test_rule9_detach_shares_storage_and_version():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)
    np.testing.assert_allclose(x.detach().numpy(), [2.0, 3.0])
    assert x.version == d.version == 1


def test_multiple_outputs_in_one_pass_and_a_dependent_start_node_runs_once():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    z = y * 3  # z depends on y: y's node is both a start node and z's next node
    with mg.trace() as tr:
        mg.autograd.backward([z, y])
    runs = [e.node for e in tr.events if e.kind == "node.run"]
    assert len(runs) == len(set(runs))
    # dz/dx + dy/dx = 3*2x + 2x
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 16.0])
    x.grad = None
    a = (x * x).sum()
    b = a * 3
    with mg.trace() as tr2:
        mg.autograd.backward([a, b])  # the dependent start node is first: popped and skipped
    assert any(e.kind == "queue.skip" for e in tr2.events)
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 16.0])


def test_errors_inside_backward_name_the_node_and_op():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()

    def bad(g):
        raise ValueError("boom")

    y.register_hook(bad)
    with pytest.raises(ValueError, match=r"ExpBackward0#\d+ \(backward of 'exp'\).*boom"):
        y.sum().backward()


def test_backward_through_leaf_output():
    x = mg.tensor([3.0], requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_deep_chain_is_iterative():
    x = mg.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(20000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_engine_state_is_cleared_after_backward():
    x = mg.tensor([1.0], requires_grad=True)
    with mg.trace():
        (x * 2).sum().backward()
    assert engine.current_run is None
