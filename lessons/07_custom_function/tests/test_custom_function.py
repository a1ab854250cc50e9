"""Lesson 7 tests: values against finite differences, and the events of your Function's node.

Run one task with ``pytest -m lesson7_task1`` (``lesson7_task2``, ``lesson7_task3``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

#: The engine's steps (not the ops a backward formula calls): they depend only on the graph's shape.
ENGINE_KINDS = ["backward.*", "queue.*", "in_degree.update", "wrappers.clear"]


def np_softplus(x):
    return np.logaddexp(0.0, x)


def np_sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def with_naive_forward(student):
    """Your StableSoftplus with a plain forward (saves x, as the README asks), to grade the backward alone."""

    class Softplus(student.custom_function.StableSoftplus):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return mg.log(1.0 + mg.exp(x))

    return Softplus


def central_difference(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


# -- Task 7.1: the stable forward ------------------------------------------------------------------


@pytest.mark.lesson7_task1
def test_values_match_softplus(student):
    xs = np.linspace(-6, 6, 25)
    y = student.custom_function.softplus(mg.tensor(xs, dtype=mg.float64))
    np.testing.assert_allclose(y.numpy(), np_softplus(xs), rtol=1e-12, atol=1e-12)


@pytest.mark.lesson7_task1
def test_no_overflow_for_large_inputs(student):
    xs = np.array([-1000.0, -100.0, 0.0, 100.0, 1000.0], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow in exp would warn
        y = student.custom_function.softplus(mg.tensor(xs)).numpy()
    assert np.all(np.isfinite(y)), f"softplus overflowed: {y}"
    np.testing.assert_allclose(y, np_softplus(xs.astype(np.float64)), rtol=1e-6, atol=1e-30)


@pytest.mark.lesson7_task1
def test_the_function_is_one_node_that_saved_x(student):
    with mg.trace(values=False) as tr:
        x = mg.tensor([0.5, -1.0], requires_grad=True)
        y = student.custom_function.softplus(x)
    leaf = next(e.tensor for e in tr.events if e.kind == "tensor.create" and e.is_leaf and e.requires_grad)
    created = [e for e in tr.events if e.kind == "node.create"]
    names = [e.name.split("#")[0] for e in created]
    assert names.count("StableSoftplusBackward") == 1, f"nodes created: {names}"
    node = next(e for e in created if e.name.startswith("StableSoftplusBackward"))
    assert [n for n in names if n not in ("StableSoftplusBackward", "AccumulateGrad")] == [], (
        "forward runs with recording off: the ops inside it make no nodes of their own")
    assert node.saved == [leaf], "save x with ctx.save_for_backward(x)"
    assert y.grad_fn is not None and y.grad_fn.name() == "StableSoftplusBackward"


# -- Task 7.2: the backward and the double backward ------------------------------------------------


@pytest.mark.lesson7_task2
def test_gradient_matches_finite_differences(student):
    fn = with_naive_forward(student)
    xs = np.array([-2.0, -0.3, 0.0, 0.7, 3.0])
    x = mg.tensor(xs, dtype=mg.float64, requires_grad=True)
    fn.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), central_difference(lambda v: np_softplus(v).sum(), xs), rtol=1e-6)


@pytest.mark.lesson7_task2
def test_second_derivative_with_create_graph(student):
    fn = with_naive_forward(student)
    xs = np.array([-2.0, -0.3, 0.0, 0.7, 3.0])
    x = mg.tensor(xs, dtype=mg.float64, requires_grad=True)
    (g,) = mg.grad(fn.apply(x).sum(), [x], create_graph=True)
    assert g.requires_grad and g.grad_fn is not None, (
        "with create_graph=True the gradient must have a graph: write the backward with minigrad ops, not NumPy")
    (h,) = mg.grad(g.sum(), [x])
    np.testing.assert_allclose(g.detach().numpy(), np_sigmoid(xs), rtol=1e-10)
    np.testing.assert_allclose(h.numpy(), central_difference(lambda v: np_sigmoid(v).sum(), xs), rtol=1e-6)


@pytest.mark.lesson7_task2
def test_engine_steps_are_those_of_the_built_in_softplus(student, same_events):
    """Your node takes the built-in softplus node's place: the same queue, in-degree and release steps."""
    fn = with_naive_forward(student)

    def run(op):
        with mg.trace() as tr:
            x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
            (op(x) * x).sum().backward()
        return tr

    same_events(run(fn.apply), run(mg.softplus), kinds=ENGINE_KINDS)


@pytest.mark.lesson7_task2
def test_double_backward_records_the_backward_ops_as_nodes(student):
    fn = with_naive_forward(student)
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    with mg.trace(values=False) as tr:
        y = fn.apply(x).sum()
        (g,) = mg.grad(y, [x], create_graph=True)
    begin = next(i for i, e in enumerate(tr.events) if e.kind == "backward.begin")
    end = next(i for i, e in enumerate(tr.events) if e.kind == "backward.end")
    inside = [e for e in tr.events[begin:end] if e.kind == "node.create" and e.copy_of is None]
    assert inside, "create_graph=True: the ops of your backward must create grad nodes during the pass"
    ran = [e for e in tr.events[begin:end] if e.kind == "node.run"]
    names = {e.node: e.name for e in tr.events if e.kind == "node.create"}
    assert any(names[e.node].startswith(f"{fn.__name__}Backward") for e in ran), "your node runs in the pass"


# -- Task 7.3: the straight-through estimator ------------------------------------------------------


@pytest.mark.lesson7_task3
def test_sign_forward_and_straight_through_gradient(student):
    xs = np.array([-3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.0])
    x = mg.tensor(xs, requires_grad=True)
    y = student.custom_function.sign_ste(x)
    np.testing.assert_array_equal(y.detach().numpy(), np.sign(xs))
    (y * mg.tensor(np.arange(1.0, 8.0))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(np.abs(xs) <= 1, np.arange(1.0, 8.0), 0.0))


@pytest.mark.lesson7_task3
def test_sign_ste_node_in_the_events(student):
    x = mg.tensor([0.5, -2.0], requires_grad=True)
    with mg.trace(values=True) as tr:
        (student.custom_function.sign_ste(x) * 3.0).sum().backward()
    created = {e.node: e for e in tr.events if e.kind == "node.create"}
    (ste,) = [e for e in created.values() if e.name.startswith("SignSTEBackward")]
    assert len(ste.saved) == 1, "save x for the backward"
    (run,) = [e for e in tr.events if e.kind == "node.run" and e.node == ste.node]
    assert run.grads_out == [[[3.0, 0.0]]], "the gradient passes where |x| <= 1 and is 0 elsewhere"
