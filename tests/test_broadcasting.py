"""Broadcasting, property-based (hypothesis): binary ops on random shape pairs.

- forward equals NumPy's broadcasting result (values and shape);
- the gradient reaching each input is reduced back to that input's shape
  (``sum_to``) and matches central finite differences;
- shapes that cannot broadcast raise ``ValueError`` naming the op and both shapes,
  and build no grad node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
from gradcheck import gradcheck
from strategies import binary_op_names, broadcastable_shapes, float64_arrays, non_broadcastable_shapes

NP = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power,
      "maximum": np.maximum, "minimum": np.minimum}

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _operands(op: str, a_shape: tuple[int, ...], b_shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Values where ``op`` is smooth: positive bases for pow, no division by ~0, no max/min ties."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, size=a_shape)
    b = rng.uniform(-2, 2, size=b_shape)
    if op == "pow":
        a = rng.uniform(0.5, 2.0, size=a_shape)
    if op == "div":
        b = rng.uniform(0.5, 2.0, size=b_shape) * rng.choice([-1.0, 1.0], size=b_shape)
    if op in ("maximum", "minimum"):
        # |a| >= 1.2 and |b| <= 1: every pair differs by at least 0.2.
        a = rng.uniform(1.2, 2.0, size=a_shape) * rng.choice([-1.0, 1.0], size=a_shape)
        b = rng.uniform(-1.0, 1.0, size=b_shape)
    return a, b


@SETTINGS
@given(op=binary_op_names, shapes=broadcastable_shapes(), data=st.data())
def test_binary_forward_matches_numpy_broadcasting(op: str, shapes: Any, data: Any) -> None:
    a_shape, b_shape = shapes
    a = data.draw(float64_arrays(a_shape, 0.5 if op == "pow" else -2.0, 2.0), label="a")
    b = data.draw(float64_arrays(b_shape, 0.5 if op == "div" else -2.0, 2.0), label="b")
    out = getattr(mg, op)(mg.tensor(a), mg.tensor(b))
    expected = NP[op](a, b)
    assert out.shape == expected.shape == np.broadcast_shapes(a_shape, b_shape)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(op=binary_op_names, shapes=broadcastable_shapes(max_dims=3, max_side=3), seed=st.integers(0, 2**32 - 1))
def test_binary_gradients_reduce_to_input_shapes(op: str, shapes: Any, seed: int) -> None:
    a_shape, b_shape = shapes
    a, b = _operands(op, a_shape, b_shape, seed)
    x = mg.tensor(a, requires_grad=True)
    y = mg.tensor(b, requires_grad=True)
    out = getattr(mg, op)(x, y)
    out.backward(mg.ones(out.shape, dtype=mg.float64))
    assert x.grad.shape == a_shape and y.grad.shape == b_shape
    assert gradcheck(getattr(mg, op), [mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)])


@SETTINGS
@given(shapes=broadcastable_shapes(max_dims=3, max_side=3), seed=st.integers(0, 2**32 - 1))
def test_where_broadcasts_three_ways(shapes: Any, seed: int) -> None:
    a_shape, b_shape = shapes
    rng = np.random.default_rng(seed)
    cond = rng.random(a_shape[-1:] if a_shape else ()) > 0.5
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    out = mg.where(mg.tensor(cond), mg.tensor(a), mg.tensor(b))
    np.testing.assert_array_equal(out.numpy(), np.where(cond, a, b))
    assert gradcheck(lambda x, y: mg.where(mg.tensor(cond), x, y),
                     [mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)])


@SETTINGS
@given(op=binary_op_names, shapes=non_broadcastable_shapes())
def test_non_broadcastable_shapes_raise_value_error_naming_op_and_shapes(op: str, shapes: Any) -> None:
    a_shape, b_shape = shapes
    x = mg.ones(a_shape, dtype=mg.float64, requires_grad=True)
    y = mg.ones(b_shape, dtype=mg.float64)
    with pytest.raises(RuntimeError) as info:  # PyTorch's class (and a ValueError, minigrad/errors.py)
        getattr(mg, op)(x, y)
    assert isinstance(info.value, ValueError)
    # PyTorch's words, naming the first dimension (from the last) that does not broadcast
    n = max(len(a_shape), len(b_shape))
    pad_a, pad_b = (1,) * (n - len(a_shape)) + tuple(a_shape), (1,) * (n - len(b_shape)) + tuple(b_shape)
    d = max(i for i in range(n) if pad_a[i] != pad_b[i] and 1 not in (pad_a[i], pad_b[i]))
    assert str(info.value) == (f"The size of tensor a ({pad_a[d]}) must match the size of tensor b ({pad_b[d]}) "
                               f"at non-singleton dimension {d}")
    assert x.grad_fn is None and x.grad is None


@SETTINGS
@given(shapes=non_broadcastable_shapes())
def test_comparisons_and_inplace_refuse_non_broadcastable_shapes(shapes: Any) -> None:
    a_shape, b_shape = shapes
    x, y = mg.ones(a_shape), mg.ones(b_shape)
    with pytest.raises(ValueError, match=r"^The size of tensor a \(\d+\) must match the size of tensor b \(\d+\) at "
                                         r"non-singleton dimension \d+$"):
        x < y
    before = x.numpy().copy()
    with pytest.raises((ValueError, RuntimeError)):
        x.add_(y)
    assert x.version == 0
    np.testing.assert_array_equal(x.numpy(), before)


@SETTINGS
@given(batch=broadcastable_shapes(max_dims=2, max_side=3), seed=st.integers(0, 2**32 - 1))
def test_matmul_batch_dims_broadcast_and_reduce_in_backward(batch: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=batch[0] + (2, 3))
    b = rng.normal(size=batch[1] + (3, 2))
    out = mg.matmul(mg.tensor(a), mg.tensor(b))
    np.testing.assert_allclose(out.numpy(), np.matmul(a, b), rtol=1e-12)
    assert gradcheck(mg.matmul, [mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)])


def test_matmul_batch_mismatch_says_it_in_pytorch_s_words() -> None:
    with pytest.raises(ValueError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                         r"non-singleton dimension 0$"):
        mg.matmul(mg.ones(2, 4, 5), mg.ones(3, 5, 6))


def test_scalar_operand_gradient_is_summed_to_0d() -> None:
    s = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    (s * x).sum().backward()
    assert s.grad.shape == () and s.grad.item() == pytest.approx(15.0)
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))
