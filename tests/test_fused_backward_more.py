"""Array mode against graph mode on the hot ops, property-based (NOTE [ One formula, two modes ]).

The broadcasting binary ops (``sum_to``), matmul, the common unary ops, sum
and mean, the views, softmax, log_softmax, cross_entropy and getitem, over
random shapes, dtypes and which inputs need a gradient: every case runs once
as the engine chooses (array mode: no recorder, no ``create_graph``) and
once with every formula in graph mode, and compares the bytes and dtypes of
every ``.grad``. A counter checks that the op's formula did run in array
mode, so a case cannot pass by taking graph mode twice.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
from strategies import FLOAT_DTYPE_NAMES, broadcastable_shapes
from test_fused_backward import graph_mode_only, modes_seen

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: The hot ops this file covers (every op is covered, once per CASES row, by test_fused_backward.py).
HOT = ("add", "sub", "mul", "div", "maximum", "minimum", "where", "matmul", "neg", "exp", "log", "sqrt",
       "tanh", "sigmoid", "sum", "mean", "getitem", "reshape", "transpose", "permute", "expand", "squeeze",
       "unsqueeze", "softmax", "log_softmax", "cross_entropy")


def leaf_grads(fn: Callable[..., Any], arrays: list[Any], dtypes: list[str], needs: list[bool], seed: int) -> list[Any]:
    """Backward of ``fn(*leaves)`` seeded with a random upstream gradient; each leaf's ``.grad`` (bytes, dtype)."""
    leaves = [mg.tensor(a, dtype=d, requires_grad=r) for a, d, r in zip(arrays, dtypes, needs)]
    out = fn(*leaves)
    upstream = np.random.default_rng(seed).uniform(-2, 2, size=out.shape)
    out.backward(mg.tensor(upstream, dtype=out.dtype))
    return [None if t.grad is None else (t.grad.numpy().tobytes(), t.grad.dtype, t.grad.shape) for t in leaves]


def assert_same_bits(fn: Callable[..., Any], arrays: list[Any], dtypes: list[str], needs: list[bool], op: str,
                     seed: int = 0) -> None:
    with modes_seen() as seen:
        fast = leaf_grads(fn, arrays, dtypes, needs, seed)
    with graph_mode_only():
        slow = leaf_grads(fn, arrays, dtypes, needs, seed)
    assert fast == slow
    assert seen.get(op) and all(seen[op]), f"the formula of {op} did not run in array mode: {seen}"
    for got, leaf_dtype, need in zip(fast, dtypes, needs):
        assert (got is not None) == need
        if got is not None:
            assert got[1].name == leaf_dtype


# -- sum_to on arrays: the broadcasting binary ops --------------------------------------------------

BINARY = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "div": lambda x, y: x / y, "maximum": mg.maximum, "minimum": mg.minimum}


def _binary_values(op: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if op in ("maximum", "minimum"):  # few distinct values: ties, where the gradient is split
        return rng.integers(-2, 3, size=shape).astype(np.float64)
    return rng.uniform(-2, 2, size=shape)


@SETTINGS
@given(
    op=st.sampled_from(sorted(BINARY)),
    shapes=broadcastable_shapes(),
    dtype=st.sampled_from(FLOAT_DTYPE_NAMES),
    needs=st.sampled_from([(True, True), (True, False), (False, True)]),
    seed=st.integers(0, 2**16),
)
def test_binary_ops_fused_backward_matches_the_op_formula(op, shapes, dtype, needs, seed) -> None:
    rng = np.random.default_rng(seed)
    a, b = (_binary_values(op, s, rng) for s in shapes)
    assert_same_bits(BINARY[op], [a, b], [dtype, dtype], list(needs), op, seed)


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_ops_with_python_scalars_and_0d_tensors(op: str, dtype: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 2, size=(3, 1, 4))
    fn = BINARY[op]
    assert_same_bits(lambda t: fn(t, 2.5), [x], [dtype], [True], op)  # the scalar is a 0-d constant
    left = mg.div if op == "div" else fn  # (1.5 / t is reciprocal(t) * 1.5, as in PyTorch)
    assert_same_bits(lambda t: left(1.5, t) if op in ("add", "sub", "mul", "div") else fn(t, 1.5), [x], [dtype], [True], op)
    assert_same_bits(fn, [x, np.array(1.25)], [dtype, dtype], [True, True], op)  # 0-d summed from (3, 1, 4)
    assert_same_bits(fn, [np.array(0.75), np.array(1.25)], [dtype, dtype], [True, True], op)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_on_transposed_and_non_finite_inputs(op: str) -> None:
    rng = np.random.default_rng(2)
    a = rng.uniform(-2, 2, size=(4, 3))
    a[0, 0], a[1, 1], a[2, 2] = np.nan, np.inf, -0.0
    b = rng.uniform(-2, 2, size=(4, 1))
    b[1, 0] = 0.0
    assert_same_bits(lambda x, y: BINARY[op](x.T, y.T), [a, b], ["float32", "float32"], [True, True], op)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_mixed_dtypes_keep_each_inputs_dtype(op: str) -> None:
    """``x_f32 op y_f64``: computed in float64 through the kernel layer's transform, each gradient cast back."""
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.5, 2, size=(2, 3)), rng.uniform(0.5, 2, size=(3,))
    assert_same_bits(BINARY[op], [a, b], ["float32", "float64"], [True, True], op)


@SETTINGS
@given(shapes=broadcastable_shapes(max_dims=3), dtype=st.sampled_from(FLOAT_DTYPE_NAMES), seed=st.integers(0, 2**16))
def test_where_fused_backward_matches_the_op_formula(shapes, dtype, seed) -> None:
    rng = np.random.default_rng(seed)
    a, b = (rng.uniform(-2, 2, size=s) for s in shapes)
    cond = mg.tensor(rng.random(np.broadcast_shapes(*shapes)) > 0.5)
    assert_same_bits(lambda x, y: mg.where(cond, x, y), [a, b], [dtype, dtype], [True, True], "where", seed)
    assert_same_bits(lambda x: mg.where(cond, x, 0.0), [a], [dtype], [True], "where", seed)


# -- unary ops, sum and mean ---------------------------------------------------------------------------

UNARY = ("neg", "exp", "log", "sqrt", "tanh", "sigmoid")


@SETTINGS
@given(op=st.sampled_from(UNARY), shape=st.sampled_from([(), (1,), (3, 4), (2, 1, 3)]),
       dtype=st.sampled_from(FLOAT_DTYPE_NAMES), seed=st.integers(0, 2**16))
def test_unary_ops_fused_backward_matches_the_op_formula(op, shape, dtype, seed) -> None:
    x = np.random.default_rng(seed).uniform(0.1, 3, size=shape)  # log and sqrt want x > 0
    assert_same_bits(lambda t: getattr(mg, op)(t), [x], [dtype], [True], op, seed)


def test_unary_ops_at_special_values() -> None:
    x = np.array([0.0, -0.0, 1e-30, np.inf, np.nan, 2.0, -3.0])
    for op in UNARY:
        assert_same_bits(lambda t: getattr(mg, op)(t), [x], ["float32"], [True], op)


@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("shape,dim,keepdim", [
    ((3, 4), None, False), ((3, 4), 0, False), ((3, 4), 1, True), ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), -1, True), ((5,), None, True), ((), None, False), ((), 0, True), ((3, 0), 1, False),
])
@pytest.mark.parametrize("dtype", FLOAT_DTYPE_NAMES)
def test_sum_and_mean_fused_backward_matches_the_op_formula(op, shape, dim, keepdim, dtype) -> None:
    x = np.random.default_rng(10).normal(size=shape)
    assert_same_bits(lambda t: getattr(mg, op)(t, dim=dim, keepdim=keepdim), [x], [dtype], [True], op)


VIEWS = {
    "reshape": lambda t: t.reshape(4, 6), "transpose": lambda t: t.transpose(0, 2), "permute": lambda t: t.permute(2, 0, 1),
    "expand": lambda t: t[:, :1].expand(2, 5, 4), "squeeze": lambda t: t[:, :1].squeeze(1),
    "unsqueeze": lambda t: t.unsqueeze(-1),
}


@pytest.mark.parametrize("op", sorted(VIEWS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPE_NAMES)
def test_view_ops_fused_backward_matches_the_op_formula(op: str, dtype: str) -> None:
    """Each view's gradient after an elementwise op (so it is not a leaf's), transposed input included."""
    x = np.random.default_rng(12).normal(size=(2, 3, 4))
    assert_same_bits(lambda t: VIEWS[op](t * 1.5), [x], [dtype], [True], op)
    assert_same_bits(lambda t: VIEWS[op]((t * 1.5).permute(0, 2, 1).permute(0, 2, 1)), [x], [dtype], [True], op)


# -- matmul -------------------------------------------------------------------------------------------

MATMUL_CASES = [
    ((3, 4), (4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 3), (5, 4), True, True),
    ((4,), (4, 5), False, False),
    ((3, 4), (4,), False, False),
    ((4,), (4,), False, False),
    ((2, 1, 3, 4), (5, 4, 2), False, False),  # batch dims broadcast both ways: summed back
    ((4,), (2, 4, 3), False, False),
    ((2, 3, 4), (4,), False, False),
    ((2, 4, 3), (1, 5, 4), True, True),
]


@pytest.mark.parametrize("x_shape,y_shape,tx,ty", MATMUL_CASES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPE_NAMES)
def test_matmul_fused_backward_matches_the_op_formula(x_shape, y_shape, tx, ty, dtype) -> None:
    rng = np.random.default_rng(4)
    a, b = rng.uniform(-2, 2, size=x_shape), rng.uniform(-2, 2, size=y_shape)
    fn = lambda x, y: mg.matmul(x, y, transpose_x=tx, transpose_y=ty)  # noqa: E731
    for needs in ([True, True], [True, False], [False, True]):
        assert_same_bits(fn, [a, b], [dtype, dtype], needs, "matmul")


def test_linear_layer_gradients_match_bit_for_bit() -> None:
    """The MLP's pattern: addmm(b, x, W.t()) (the bias gradient is a sum_to over the batch)."""
    rng = np.random.default_rng(5)
    x, w, b = rng.normal(size=(64, 32)), rng.normal(size=(16, 32)), rng.normal(size=(16,))
    fn = lambda x, w, b: mg.nn.functional.linear(x, w, b).relu()  # noqa: E731
    assert_same_bits(fn, [x, w, b], ["float32"] * 3, [False, True, True], "addmm")
    assert_same_bits(fn, [x, w, b], ["float32"] * 3, [False, True, True], "t")


# -- softmax, log_softmax, cross_entropy ------------------------------------------------------------


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((4, 5), -1), ((4, 5), 0), ((2, 3, 4), 1), ((6,), 0), ((), -1), ((3, 0), 1)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPE_NAMES)
def test_softmax_fused_backward_matches_the_op_formula(op: str, shape, dim: int, dtype: str) -> None:
    x = np.random.default_rng(6).normal(scale=3, size=shape)
    assert_same_bits(lambda t: getattr(mg, op)(t, dim), [x], [dtype], [True], op)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPE_NAMES)
@pytest.mark.parametrize("n", [0, 1, 3, 7, 10, 64, 100])
def test_cross_entropy_fused_backward_matches_the_op_formula(reduction: str, dtype: str, n: int) -> None:
    rng = np.random.default_rng(n)
    for seed in range(5):  # the upstream gradient varies too: g * (1/n) rounds differently from g / n
        logits = rng.normal(scale=4, size=(n, 10))
        target = mg.tensor(rng.integers(0, 10, size=n))
        fn = lambda x: mg.cross_entropy(x, target, reduction)  # noqa: E731
        assert_same_bits(fn, [logits], [dtype], [True], "cross_entropy", seed=seed)


def test_cross_entropy_through_log_softmax_and_nll_loss_matches() -> None:
    """The weighted form (weight, ignore_index): log_softmax's fused formula under nll_loss's weighted one."""
    rng = np.random.default_rng(8)
    logits = rng.normal(size=(12, 5))
    t = rng.integers(0, 5, size=12)
    t[3] = -100
    target, weight = mg.tensor(t), mg.tensor(rng.uniform(0.5, 2, size=5), dtype="float32")
    fn = lambda x: mg.nn.functional.cross_entropy(x, target, weight=weight)  # noqa: E731
    assert_same_bits(fn, [logits], ["float32"], [True], "log_softmax")
    assert_same_bits(fn, [logits], ["float32"], [True], "nll_loss")  # the weighted scatter of the picked rows
    nll = lambda x: mg.nn.functional.nll_loss(x.log_softmax(-1), target, weight=weight.double())  # noqa: E731
    assert_same_bits(nll, [logits], ["float64"], [True], "nll_loss")


@pytest.mark.parametrize("index", [
    (slice(1, 3),), (np.array([0, 2, 2, 1]),), (slice(None), 1), (np.array([0, 0, 3]), np.array([1, 1, 2])),
    (np.array([True, False, True, True]),), (Ellipsis, slice(None, None, 2)), (2,),
])
@pytest.mark.parametrize("dtype", FLOAT_DTYPE_NAMES)
def test_getitem_fused_backward_matches_the_op_formula(index, dtype: str) -> None:
    """Repeated integer indices accumulate (np.add.at) in the same order either way."""
    x = np.random.default_rng(11).normal(size=(4, 3))
    assert_same_bits(lambda t: t[index], [x], [dtype], [True], "getitem")


# -- graph mode where something observes the formula ----------------------------------------------


@pytest.mark.parametrize("op", HOT)
def test_create_graph_and_recorders_take_graph_mode(op: str) -> None:
    rng = np.random.default_rng(9)
    a = mg.tensor(rng.uniform(0.5, 2, size=(3, 4)), requires_grad=True)
    b = mg.tensor(rng.uniform(0.5, 2, size=(4,)), requires_grad=True)
    calls = {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b,
        "maximum": lambda: mg.maximum(a, b), "minimum": lambda: mg.minimum(a, b),
        "where": lambda: mg.where(mg.tensor(rng.random((3, 4)) > 0.5), a, b), "matmul": lambda: a @ b,
        "neg": lambda: -a, "exp": lambda: a.exp(), "log": lambda: a.log(), "sqrt": lambda: a.sqrt(),
        "tanh": lambda: a.tanh(), "sigmoid": lambda: a.sigmoid(), "sum": lambda: a.sum(0), "mean": lambda: a.mean(1), "getitem": lambda: a[1:, [0, 0, 2]],
        "reshape": lambda: a.reshape(4, 3), "transpose": lambda: a.transpose(0, 1), "permute": lambda: a.permute(1, 0),
        "expand": lambda: a[:1].expand(2, 4), "squeeze": lambda: a[:1].squeeze(0), "unsqueeze": lambda: a.unsqueeze(0),
        "softmax": lambda: a.softmax(-1), "log_softmax": lambda: a.log_softmax(-1),
        "cross_entropy": lambda: mg.cross_entropy(a, mg.tensor([0, 3, 1])),
    }
    with modes_seen() as seen:
        (ga,) = mg.autograd.grad(calls[op]().sum(), [a], create_graph=True)
        assert ga.requires_grad
        with mg.trace() as tr:
            calls[op]().sum().backward()
    assert seen[op] and not any(seen[op])
    assert any(e.kind == "backward.end" for e in tr.events)


def test_array_mode_checks_saved_versions() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.tensor([3.0, 4.0], requires_grad=True)
    z = x * 1
    out = z * y
    with mg.no_grad():
        z.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        out.sum().backward()
