"""Lesson 1 tests: softplus's kernel, InferMeta and grad node, and what the event log shows."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import minigrad as mg

activation = importlib.import_module("minigrad.ops.activation")


def expected(x, beta=1.0, threshold=20.0):
    bx = beta * np.asarray(x, dtype=np.float64)
    return np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta)


# -- Task 1.1: the forward kernel ------------------------------------------------------


@pytest.mark.lesson1_task1
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_values(dtype):
    x = np.linspace(-8, 8, 33)
    y = mg.softplus(mg.tensor(x, dtype=dtype))
    assert y.dtype == dtype
    np.testing.assert_allclose(y.numpy(), expected(x), rtol=1e-6 if dtype == mg.float64 else 1e-5, atol=1e-7)


@pytest.mark.lesson1_task1
def test_beta_and_threshold():
    x = np.array([-2.0, 0.0, 3.0, 6.0])
    y = mg.softplus(mg.tensor(x, dtype=mg.float64), beta=2.0, threshold=10.0)
    np.testing.assert_allclose(y.numpy(), expected(x, 2.0, 10.0), rtol=1e-12)
    assert y.numpy()[3] == 6.0, "above the threshold softplus is exactly x"


@pytest.mark.lesson1_task1
def test_no_overflow_for_large_inputs():
    x = np.array([-1000.0, -50.0, 50.0, 1000.0])
    with np.errstate(over="raise", invalid="raise"):
        y = mg.softplus(mg.tensor(x, dtype=mg.float64), threshold=1e9).numpy()
    np.testing.assert_allclose(y, np.logaddexp(0.0, x), rtol=1e-12)


@pytest.mark.lesson1_task1
def test_kernel_is_selected_and_launched():
    x = mg.tensor([0.0, 1.0])
    with mg.trace() as tr:
        mg.softplus(x)
    kinds = [e.kind for e in tr.events]
    assert kinds.index("kernel.select") < kinds.index("infer_meta") < kinds.index("kernel.launch")
    (launch,) = [e for e in tr.events if e.kind == "kernel.launch"]
    assert (launch.op, launch.kernel, launch.backend) == ("softplus", "cpu/softplus_cpu", "CPU")


# -- Task 1.2: InferMeta -----------------------------------------------------------------


@pytest.mark.lesson1_task2
def test_infer_meta_direct():
    shape, dtype = activation.infer_softplus("softplus", np.empty((2, 3), np.float32))
    assert tuple(shape) == (2, 3) and np.dtype(dtype) == np.float32
    shape, dtype = activation.infer_softplus("softplus", np.empty((), np.float64), beta=2.0, threshold=5.0)
    assert tuple(shape) == () and np.dtype(dtype) == np.float64


@pytest.mark.lesson1_task2
def test_infer_meta_rejects_integers():
    with pytest.raises(ValueError, match="softplus"):
        activation.infer_softplus("softplus", np.empty((4,), np.int64))


@pytest.mark.lesson1_task2
def test_infer_meta_event_and_promotion():
    with mg.trace() as tr:
        y = mg.softplus(mg.tensor([[1, 2, 3], [4, 5, 6]]))  # int64: promoted to float32 first
    (ev,) = [e for e in tr.events if e.kind == "infer_meta"]
    assert ev.op == "softplus" and ev.shapes == [[2, 3]] and ev.dtypes == ["float32"]
    assert y.dtype == mg.float32 and y.shape == (2, 3)


# -- Task 1.3: the grad node ---------------------------------------------------------------


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.lesson1_task3
@pytest.mark.parametrize("beta,threshold", [(1.0, 20.0), (2.0, 3.0)])
def test_gradient_matches_finite_differences(beta, threshold):
    x0 = np.array([-3.0, -0.5, 0.2, 1.1, 2.5])
    x = mg.tensor(x0, dtype=mg.float64, requires_grad=True)
    w = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    (mg.softplus(x, beta=beta, threshold=threshold) * mg.tensor(w, dtype=mg.float64)).sum().backward()
    want = numeric_grad(lambda v: float((expected(v, beta, threshold) * w).sum()), x0)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, atol=1e-8)


@pytest.mark.lesson1_task3
def test_gradient_is_one_in_the_linear_region():
    x = mg.tensor([30.0, 100.0], dtype=mg.float64, requires_grad=True)
    mg.softplus(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


@pytest.mark.lesson1_task3
def test_grad_node_in_the_event_log():
    with mg.trace() as tr:
        x = mg.tensor([0.0, 1.0], requires_grad=True)
        y = mg.softplus(x)
        y.sum().backward()
    (node,) = [e for e in tr.events if e.kind == "node.create" and e.op == "softplus"]
    assert node.name.startswith("SoftplusBackward0") and len(node.saved) == 1, "the node saves x"
    (run,) = [e for e in tr.events if e.kind == "node.run" and e.node == node.node]
    np.testing.assert_allclose(np.asarray(run.grads_out[0][0]), 1 / (1 + np.exp(-np.array([0.0, 1.0]))), rtol=1e-5)


@pytest.mark.lesson1_task3
def test_backward_formula_is_differentiable():
    """Written with minigrad ops, the formula can be differentiated again (create_graph=True)."""
    x0 = np.array([-2.0, 0.0, 1.5])
    x = mg.tensor(x0, dtype=mg.float64, requires_grad=True)
    (g,) = mg.grad(mg.softplus(x).sum(), [x], create_graph=True)
    assert g.requires_grad, "the gradient must carry history: use minigrad ops, not NumPy"
    (gg,) = mg.grad(g.sum(), [x])
    s = 1 / (1 + np.exp(-x0))
    np.testing.assert_allclose(gg.numpy(), s * (1 - s), rtol=1e-6)
