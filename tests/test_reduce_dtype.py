"""Reductions given ``dtype=`` against PyTorch: ``sum``, ``mean``, ``prod``, ``nansum``, ``cumsum``, ``cumprod`` and the
norms.

PyTorch's reduction reads its input in the dtype it is given and returns that dtype, as one op: the graph
is ``SumBackward0`` over the leaf, with no ``ToCopyBackward0`` between (the gradient is cast back to the
input's dtype). minigrad's ``sum(dtype=)`` and ``mean(dtype=)`` raised a TypeError, and the others cast the
input first (two nodes). An integral ``dtype=`` of an input that requires grad is refused, in PyTorch's words.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CALLS = {
    "sum": lambda x, dt: x.sum(dtype=dt),
    "sum-dim": lambda x, dt: x.sum(1, keepdim=True, dtype=dt),
    "torch.sum-dims": lambda x, dt: _fw(x).sum(x, (0, 1), dtype=dt),
    "mean": lambda x, dt: x.mean(dtype=dt),
    "mean-dim": lambda x, dt: x.mean(0, dtype=dt),
    "prod": lambda x, dt: x.prod(dtype=dt),
    "prod-dim": lambda x, dt: x.prod(1, dtype=dt),
    "nansum": lambda x, dt: x.nansum(dtype=dt),
    "cumsum": lambda x, dt: x.cumsum(1, dtype=dt),
    "cumprod": lambda x, dt: x.cumprod(0, dtype=dt),
    "vector_norm": lambda x, dt: _fw(x).linalg.vector_norm(x, 3, dim=1, dtype=dt),
    "matrix_norm": lambda x, dt: _fw(x).linalg.matrix_norm(x, dtype=dt),
    "norm": lambda x, dt: x.norm(dtype=dt),
}


def _fw(x):
    return torch if isinstance(x, torch.Tensor) else mg

VALUES = np.array([[1.5, -0.25, 3.0], [0.5, 2.0, -1.75]])


def _run(fw, call: str, src: str, dst: str):
    x = fw.tensor(VALUES if src in ("float16", "float32", "float64", "bfloat16") else VALUES.round(),
                  dtype=getattr(fw, src))
    grad = x.dtype.is_floating_point
    if grad:
        x.requires_grad_()
    y = CALLS[call](x, getattr(fw, dst))
    names = None
    if y.grad_fn is not None:
        names = (type(y.grad_fn).__name__, [type(fn).__name__ for fn, _ in y.grad_fn.next_functions])
        y.float().sum().backward()
    g = None if x.grad is None else (str(x.grad.dtype).split(".")[-1], x.grad.float().numpy())
    return str(y.dtype).split(".")[-1], y.detach().float().numpy(), names, g


@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16", "int64", "int32"])
@pytest.mark.parametrize("src", ["float16", "float32", "float64", "bfloat16", "int32"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_reduction_reads_its_input_in_the_dtype_it_is_given_as_one_op(call: str, src: str, dst: str) -> None:
    try:
        want = _run(torch, call, src, dst)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).split("\n")[0][:60].replace("(", r"\(").replace(")", r"\)")):
            _run(mg, call, src, dst)
        return
    got = _run(mg, call, src, dst)
    assert got[0] == want[0]
    tol = {"float16": 2e-3, "bfloat16": 2e-2}.get(dst, 1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=tol, atol=tol)
    assert got[2] == want[2]
    if want[3] is not None:
        assert got[3][0] == want[3][0]
        tol = max(tol, {"float16": 2e-3, "bfloat16": 2e-2}.get(src, 1e-6))
        np.testing.assert_allclose(got[3][1], want[3][1], rtol=tol, atol=tol)


def test_a_reductions_dtype_is_a_dtype() -> None:
    with pytest.raises(TypeError, match=r"sum\(\): argument 'dtype' must be a minigrad dtype, but got str"):
        mg.ones(3).sum(dtype="float32")


def test_the_gradient_through_a_wider_dtype_is_the_finite_differences() -> None:
    """float32 inputs read in float64: each op's gradient against central differences of its float64 values."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.5, 1.5, (3, 4))
    for call in CALLS:
        x = mg.tensor(base, dtype=mg.float32, requires_grad=True)
        w = mg.tensor(rng.standard_normal(CALLS[call](x, mg.float64).shape), dtype=mg.float64)
        (CALLS[call](x, mg.float64) * w).sum().backward()
        eps, numeric = 1e-3, np.zeros_like(base)
        for i in np.ndindex(base.shape):
            hi, lo = base.copy(), base.copy()
            hi[i] += eps
            lo[i] -= eps
            f = [float((CALLS[call](mg.tensor(v, dtype=mg.float32), mg.float64) * w).sum()) for v in (hi, lo)]
            numeric[i] = (f[0] - f[1]) / (2 * eps)
        np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-3, atol=1e-3, err_msg=call)
