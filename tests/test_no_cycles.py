"""No reference cycles between tensors and grad nodes, and no recursion on deep graphs.

NOTE [ No reference cycles between tensors and nodes ] (``autograd_meta.py``)
says a freed graph is reclaimed by reference counting alone. These tests
check it with the cycle collector switched off: after ``backward()`` and
``del``, every tensor and node of the graph must already be gone (a weak
reference to it is dead) and ``gc.collect()`` finds nothing of ours.
A chain of 10^6 nodes must build, run backward and be freed without
``RecursionError``: the engine's walks are iterative, and freeing a long
chain relies on CPython's trashcan for nested deallocation.
"""

from __future__ import annotations

import gc
import weakref

import pytest

import minigrad as mg
from minigrad.autograd.grad_node import GradNode


def _graph_nodes(root: GradNode) -> list[GradNode]:
    """Every node reachable from ``root`` (iteratively)."""
    seen: dict[int, GradNode] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen[id(n)] = n
        stack.extend(e.node for row in n.next_edges for e in row if e.node is not None)
    return list(seen.values())


def _ours(objs: list[object]) -> list[object]:
    return [o for o in objs if type(o).__module__.startswith("minigrad")]


@pytest.fixture
def no_gc():
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("retain_graph", [False, True])
def test_graph_is_freed_by_reference_counting_after_backward(no_gc, retain_graph: bool) -> None:
    x = mg.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    w = mg.tensor([[0.1, 0.2], [0.3, -0.4]], requires_grad=True)
    h = (x @ w).tanh() * x + 1.0   # saves inputs and outputs (tanh saves its own output)
    h.retain_grad()
    y = (h.relu() ** 2).sum() / 3
    y.register_hook(lambda g: g * 1.0)
    nodes = _graph_nodes(y.grad_fn)
    assert len(nodes) >= 8
    refs = [weakref.ref(n) for n in nodes] + [weakref.ref(t) for t in (h, y)]
    y.backward(retain_graph=retain_graph)
    assert x.grad is not None and h.grad is not None
    del h, y, nodes
    alive = [r() for r in refs if r() is not None]
    # A live leaf keeps its AccumulationNode (NOTE [ One AccumulationNode while the
    # leaf lives ] in autograd/accumulation.py); everything else is gone ...
    assert len(alive) == 2 and all(n.is_accumulation for n in alive), alive
    del alive
    # ... and those nodes go with their leaves: tensor -> node -> meta has no cycle.
    del x, w
    alive = [r() for r in refs if r() is not None]
    assert alive == [], f"still alive without the cycle collector: {alive}"
    assert _ours(gc.garbage) == []
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        assert _ours(gc.garbage) == [], "the cycle collector found minigrad objects in cycles"
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_training_step_leaves_no_cycles(no_gc) -> None:
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, t = mg.randn(5, 4), mg.tensor([0, 1, 2, 0, 1])
    for _ in range(2):
        opt.zero_grad()
        loss = mg.nn.functional.cross_entropy(model(x), t)
        nodes = [weakref.ref(n) for n in _graph_nodes(loss.grad_fn)]
        loss.backward()
        opt.step()
        del loss
        # Only the parameters' AccumulationNodes outlive the step (their leaves are alive).
        assert [r() for r in nodes if r() is not None and not r().is_accumulation] == []
    del model, opt
    assert [r() for r in nodes if r() is not None] == []
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        assert _ours(gc.garbage) == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_million_node_chain_completes_without_recursion_error(no_gc) -> None:
    # The cycle collector is off: the chain has no cycles, so reference counting must free
    # it, and the collector's repeated scans of a million live nodes would only slow the test.
    n = 1_000_000
    x = mg.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(n):
        y = -y
    node = y.grad_fn
    assert node.topo_nr == n
    y.sum().backward()
    assert x.grad.item() == 1.0  # (-1)^(10^6)
    del y, node  # freeing the chain must not recurse either
