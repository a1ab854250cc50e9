"""One backward formula per op, run two ways (NOTE [ One formula, two modes ] in autograd/engine.py).

Every op's formula is written once against ``ctx.ops``; the engine runs it on
minigrad's ops (graph mode: a recorder, ``create_graph``) or on the same ops'
kernels over arrays (array mode: everything else). The two must give the
same bits. Every row of ``tests/test_ops_grad.py``'s ``CASES`` - which that
file keeps complete from the registry - runs here in both modes, in float32
and float64, and the bytes and dtypes of every ``.grad`` are compared. A
counter checks that the case's op did run in array mode, so a case cannot pass
by taking graph mode twice.
"""

from __future__ import annotations

import zlib
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import formula as engine
from test_ops_grad import CASES


@contextmanager
def graph_mode_only() -> Iterator[None]:
    """Run every formula in graph mode (as with a recorder), without recording."""
    engine.ARRAY_MODE = False
    try:
        yield
    finally:
        engine.ARRAY_MODE = True


@contextmanager
def modes_seen() -> Iterator[dict[str, list[bool]]]:
    """Record, per op, whether each run of its formula was in array mode."""
    seen: dict[str, list[bool]] = {}
    saved = {name: op.backward for name, op in mg.OPS.items() if op.backward is not None}

    def wrap(name: str, fn: Any) -> Any:
        def formula(ctx: Any, g: Any) -> Any:
            seen.setdefault(name, []).append(ctx.arrays)
            return fn(ctx, g)

        return formula

    try:
        for name, fn in saved.items():
            mg.OPS[name].backward = wrap(name, fn)
        yield seen
    finally:
        for name, fn in saved.items():
            mg.OPS[name].backward = fn


def _leaf_grads(case: Any, dtype: str) -> list[Any]:
    """``.grad`` (bytes, dtype, shape) of every leaf of the case, seeded with a random upstream gradient."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    args = []
    for a in case.make(rng):
        if isinstance(a, mg.Tensor) and a.dtype == mg.float64:
            a = mg.tensor(a.detach().numpy(), dtype=dtype, requires_grad=a.requires_grad)
        args.append(a)
    out = case.fn(*args)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    outs = [o for o in outs if o.requires_grad]
    seeds = [mg.tensor(rng.uniform(-2, 2, size=o.shape), dtype=o.dtype) for o in outs]
    mg.autograd.backward(outs, seeds)
    leaves = [a for a in args if isinstance(a, mg.Tensor) and a.requires_grad]
    return [None if t.grad is None else (t.grad.numpy().tobytes(), str(t.grad.dtype), t.grad.shape) for t in leaves]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_array_mode_gives_the_bits_of_graph_mode(case: Any, dtype: str) -> None:
    with modes_seen() as seen:
        arrays = _leaf_grads(case, dtype)
    with graph_mode_only():
        graph = _leaf_grads(case, dtype)
    assert arrays == graph
    assert seen.get(case.op) and all(seen[case.op]), f"{case.op}'s formula did not run in array mode: {seen}"


def test_every_op_with_a_formula_runs_both_ways_here() -> None:
    with_backward = {name for name, op in mg.OPS.items() if op.backward is not None}
    # to_device has no kernel of its own: its formula runs in graph mode only (test_device_grad.py);
    # multi_margin_loss_backward's and multilabel_margin_loss_backward's only raise, as PyTorch has no derivative for
    # them (test_nn_loss.py); so do acosh_'s, asinh_'s and atanh_'s (test_inplace_forms.py), unique_consecutive's and
    # histogram's (test_ops_batch_a.py), geqrf's (test_ops_linalg_more.py) and pdist_backward's (test_ops_batch_b.py),
    # the gamma and Dirichlet gradients' and the Dirichlet sampler's (test_distributions_gamma.py), and
    # ctc_loss_backward's (test_nn_ctc_fractional.py), binomial's and the LDL factorization's and solve's.
    assert with_backward - {c.op for c in CASES} == {"to_device", "multi_margin_loss_backward",
                                                     "multilabel_margin_loss_backward", "acosh_", "asinh_", "atanh_",
                                                     "unique_consecutive", "histogram", "geqrf", "pdist_backward",
                                                     "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad",
                                                     "ctc_loss_backward", "binomial", "linalg_ldl_factor_ex",
                                                     "linalg_ldl_solve"}


def test_create_graph_and_recorders_run_graph_mode() -> None:
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    with modes_seen() as seen:
        (gx,) = mg.autograd.grad((x.relu() * x).sum(), [x], create_graph=True)
    assert gx.requires_grad and not any(seen["relu"]) and not any(seen["mul"])
    np.testing.assert_array_equal(gx.detach().numpy(), [0.0, 4.0])
    with modes_seen() as seen, mg.trace() as tr:
        x.relu().sum().backward()
    assert not any(seen["relu"])
    assert any(e.kind == "api.call" and getattr(e, "op", None) == "threshold_backward" for e in tr.events)
    with modes_seen() as seen:
        x.relu().sum().backward()
    assert all(seen["relu"])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_backward_at_special_values(dtype: str) -> None:
    """PyTorch's threshold_backward: the gradient passes unless x <= 0, so a NaN input passes it on."""
    x = np.array([-2.0, -0.0, 0.0, 1e-30, 3.0, np.nan, np.inf, -np.inf])
    g = np.array([1.5, -2.0, 3.0, -4.0, -5.0, 6.0, np.nan, -1.0])

    def grad() -> np.ndarray:
        t = mg.tensor(x, dtype=dtype, requires_grad=True)
        t.relu().backward(mg.tensor(g, dtype=dtype))
        return t.grad.numpy().copy()

    arrays = grad()
    with graph_mode_only():
        graph = grad()
    assert arrays.dtype == graph.dtype and arrays.tobytes() == graph.tobytes()
    expected = np.where(np.asarray(x, dtype=dtype) > 0, g, 0).astype(dtype)
    expected[5] = g[5]
    np.testing.assert_array_equal(arrays, expected)


def test_array_mode_checks_saved_versions() -> None:
    x = mg.tensor([-1.0, 2.0], requires_grad=True)
    y = (x * 1).relu()
    with mg.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_array_mode_tells_equal_numbers_of_other_types_apart() -> None:
    """A form of attributes is remembered once checked; ``0`` and ``0.0`` (or ``True`` and ``1``) are equal and
    hash alike, but an integer array clamped at ``0.0`` becomes float32 and at ``0`` stays int64 (the second
    call took the first one's form)."""
    ops = engine.array_ops("cpu", mg.tensor(0.0)._layout)
    a = np.arange(4, dtype=np.int64)
    assert [ops.clip(a, min=m).dtype for m in (0, 0.0, 0)] == [np.int64, np.float32, np.int64]
    assert (mg.tensor(a).clamp(min=0.0).dtype, mg.tensor(a).clamp(min=0).dtype) == (mg.float32, mg.int64)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_gelu_backward_is_one_fused_op_with_pytorchs_values(dtype: str) -> None:
    """gelu's formula is one call, ``gelu_backward(grad, x)`` (PyTorch's GeluBackward0 runs one kernel too)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-6, 6, 40_000), [0.0, -0.0, 1e-30, -8.0, 8.0, 30.0, -30.0]])
    g = rng.standard_normal(x.size)
    t = mg.tensor(x, dtype=dtype, requires_grad=True)
    with mg.trace() as tr:
        t.gelu().backward(mg.tensor(g, dtype=dtype))
    calls = [e.op for e in tr.events if e.kind == "api.call"]
    assert calls.count("gelu_backward") == 1 and "erf" not in calls
    tt = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    torch.nn.functional.gelu(tt).backward(torch.tensor(g, dtype=getattr(torch, dtype)))
    tol = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-13}[dtype]
    np.testing.assert_allclose(t.grad.numpy().astype(np.float64), tt.grad.double().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_backward_is_one_fused_op_with_pytorchs_values(fn: str, dtype: str) -> None:
    """softmax's and log_softmax's formulas are one call each, PyTorch's ``_softmax_backward_data`` and
    ``_log_softmax_backward_data`` (the mul, sum, sub and mul of the formula ran as four ops)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.uniform(-5, 5, (64, 300))
    g = rng.standard_normal(x.shape)
    t = mg.tensor(x, dtype=dtype, requires_grad=True)
    with mg.trace() as tr:
        getattr(mg, fn)(t, dim=1).backward(mg.tensor(g, dtype=dtype))
    calls = [e.op for e in tr.events if e.kind == "api.call"]
    assert calls.count(f"{fn}_backward_data") == 1 and "sum" not in calls and "mul" not in calls, calls
    tt = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    getattr(torch, fn)(tt, dim=1).backward(torch.tensor(g, dtype=getattr(torch, dtype)))
    tol = {"float16": 3e-3, "float32": 2e-6, "float64": 1e-13}[dtype]
    np.testing.assert_allclose(t.grad.numpy().astype(np.float64), tt.grad.double().numpy(), rtol=tol, atol=tol)
