"""``autograd.graph.GradientEdge`` / ``get_gradient_edge`` and ``grad()`` over edges, against PyTorch: an edge is
a GeneralGrad target (a node's input position), as an input or as an output."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

X = np.array([0.3, -1.2, 2.0])


def _leaf(lib):
    return lib.tensor(X, dtype=lib.float64, requires_grad=True)


def _same(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-15, atol=0)


def _grads(lib, case):
    G = lib.autograd.graph
    x = _leaf(lib)
    h = x * 2
    loss = (h * h * x).sum()
    if case == "edge of an intermediate":
        return lib.autograd.grad(loss, G.get_gradient_edge(h))
    if case == "a leaf's edge":
        return lib.autograd.grad(loss, G.get_gradient_edge(x))
    if case == "edges and tensors mixed":
        return lib.autograd.grad(loss, [x, G.get_gradient_edge(h), h])
    if case == "the same edge twice":
        e = G.get_gradient_edge(h)
        return lib.autograd.grad(loss, [e, e])
    if case == "an edge as the output":
        return lib.autograd.grad(G.get_gradient_edge(h), x, grad_outputs=lib.full((3,), 0.5, dtype=lib.float64))
    if case == "an edge and a tensor as outputs":
        return lib.autograd.grad([loss, G.get_gradient_edge(h)], x, grad_outputs=[None, lib.ones(3, dtype=lib.float64)])
    if case == "the second output of unbind":
        a, b, c = h.unbind(0)
        edge = G.get_gradient_edge(b)
        assert edge.output_nr == 1 and edge.node.name() == "UnbindBackward0"
        return lib.autograd.grad(a * b * c, edge)
    if case == "after an in-place change of the tensor":
        e = G.get_gradient_edge(h)
        out = (h * 5).sum()
        h.add_(1)  # h has a new grad node; the edge still names the old one
        return lib.autograd.grad(out, e)
    if case == "create_graph":
        (g,) = lib.autograd.grad(loss, G.get_gradient_edge(h), create_graph=True)
        return lib.autograd.grad(g.sum(), x)
    if case == "unused, allow_unused":
        w = _leaf(lib)
        return lib.autograd.grad(loss, [G.get_gradient_edge(w), x], allow_unused=True)
    raise AssertionError(case)


CASES = ["edge of an intermediate", "a leaf's edge", "edges and tensors mixed", "the same edge twice",
         "an edge as the output", "an edge and a tensor as outputs", "the second output of unbind",
         "after an in-place change of the tensor", "create_graph", "unused, allow_unused"]


@pytest.mark.parametrize("case", CASES)
def test_grad_over_edges_equals_pytorchs(case):
    _same(_grads(mg, case), _grads(torch, case))


def test_edge_fields_and_refusals_as_pytorchs():
    for lib in (mg, torch):
        G = lib.autograd.graph
        x = _leaf(lib)
        e = G.get_gradient_edge(x)
        assert isinstance(e, tuple) and e._fields == ("node", "output_nr", "ownership_token")
        assert e.node.name().endswith("AccumulateGrad") and e.output_nr == 0
        with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge for a Tensor that does "
                                               "not require gradients"):
            G.get_gradient_edge(lib.ones(2))
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
            lib.autograd.grad(G.get_gradient_edge(x * 2), x)
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            lib.autograd.grad((x * 2).sum(), G.get_gradient_edge(_leaf(lib)))


def test_backward_into_a_leafs_edge_fills_its_grad_and_another_edge_fills_nothing():
    for lib in (mg, torch):
        G = lib.autograd.graph
        x = _leaf(lib)
        h = x * 3
        loss = (h * h).sum()
        lib.autograd.backward(loss, inputs=[G.get_gradient_edge(x)], retain_graph=True)
        np.testing.assert_allclose(x.grad.numpy(), 18 * X)
        x.grad = None
        lib.autograd.backward(loss, inputs=[G.get_gradient_edge(h)])
        assert x.grad is None


def test_the_result_event_names_the_tensor_the_edge_was_taken_from():
    x = _leaf(mg)
    h = x * 2
    loss = (h * h).sum()
    edge = mg.autograd.graph.get_gradient_edge(h)
    with mg.trace() as tr:
        mg.autograd.grad(loss, [edge, x])
    results = [e.input for e in tr.events if e.kind == "general_grad.result"]
    assert results == [h._id, x._id]
    hand_built = mg.autograd.graph.GradientEdge(edge.node, 0)  # the same position, built by hand
    with mg.trace() as tr:
        mg.autograd.grad((h * 1).sum(), hand_built)
    assert [e.input for e in tr.events if e.kind == "general_grad.result"] == [h._id]


def test_an_output_nr_past_the_nodes_outputs_is_refused():
    x = _leaf(mg)
    h = x * 2
    with pytest.raises(IndexError, match=r"output_nr 1 is out of range for MulBackward0, which has 1 output"):
        mg.autograd.grad(h.sum(), mg.autograd.graph.GradientEdge(h.grad_fn, 1))
