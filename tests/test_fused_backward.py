"""Fused array backward formulas (OpDef.def_backward_arrays): relu's gradient as one kernel.

Used only with no recorder, no create_graph and CPU floating gradients; it must
give the op formula's bits (signed zeros and NaN included) and keep its checks.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


def _relu_grad(x: np.ndarray, g: np.ndarray, dtype: str) -> np.ndarray:
    t = mg.tensor(x, dtype=dtype, requires_grad=True)
    t.relu().backward(mg.tensor(g, dtype=dtype))
    return t.grad.numpy().copy()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_fused_relu_backward_matches_the_op_formula_bit_for_bit(dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([-2.0, -0.0, 0.0, 1e-30, 3.0, np.nan, np.inf, -np.inf])
    g = np.array([1.5, -2.0, 3.0, -4.0, -5.0, 6.0, np.nan, -1.0])
    fast = _relu_grad(x, g, dtype)
    monkeypatch.setattr(mg.OPS["relu"], "backward_arrays", None)
    slow = _relu_grad(x, g, dtype)
    assert fast.dtype == slow.dtype and fast.tobytes() == slow.tobytes()


def test_fused_relu_backward_is_used_and_checks_saved_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    fused = mg.OPS["relu"].backward_arrays
    monkeypatch.setattr(mg.OPS["relu"], "backward_arrays", lambda ctx, g: calls.append(1) or fused(ctx, g))
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    y = x.relu()
    y.sum().backward()
    assert calls == [1]
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0])
    y = (x * 1).relu()
    with mg.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_create_graph_and_recorders_take_the_op_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(ctx, g):
        raise AssertionError("fused formula used")

    monkeypatch.setattr(mg.OPS["relu"], "backward_arrays", boom)
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    (gx,) = mg.autograd.grad((x.relu() * x).sum(), [x], create_graph=True)
    assert gx.requires_grad
    np.testing.assert_array_equal(gx.numpy(), [0.0, 4.0])
    x2 = mg.tensor([-1.0, 2.0], requires_grad=True)
    with mg.trace() as tr:
        x2.relu().sum().backward()
    assert any(e.kind == "api.call" and getattr(e, "op", None) == "le" for e in tr.events)  # relu's formula: 1 - (x <= 0)
