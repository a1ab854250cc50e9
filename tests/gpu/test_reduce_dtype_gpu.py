"""Reductions given ``dtype=`` on the GPU: the kernel for the input's dtype hands the call to the kernel of the
given dtype (``kernels.registry.in_dtype``) on the device, with no copy and no sync; values, dtypes, graph
nodes and gradients are the CPU's (``tests/test_reduce_dtype.py`` holds the CPU to PyTorch's)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

pytestmark = pytest.mark.gpu

CALLS = {
    "sum": lambda x, dt: x.sum(dtype=dt),
    "sum-dim": lambda x, dt: x.sum(1, dtype=dt),
    "mean": lambda x, dt: x.mean(0, dtype=dt),
    "prod": lambda x, dt: x.prod(1, dtype=dt),
    "nansum": lambda x, dt: x.nansum(dtype=dt),
    "cumsum": lambda x, dt: x.cumsum(1, dtype=dt),
    "cumprod": lambda x, dt: x.cumprod(0, dtype=dt),
    "vector_norm": lambda x, dt: mg.linalg.vector_norm(x, dim=1, dtype=dt),
}

PAIRS = [("float16", "float32"), ("float32", "float64"), ("int32", "float32"), ("int32", "int64"),
         ("float32", "int64")]


def _run(device: str, call: str, src: str, dst: str):
    values = np.array([[1.5, -0.25, 3.0], [0.5, 2.0, -1.75]])
    x = mg.tensor(values if src.startswith("float") else values.round(), dtype=getattr(mg, src), device=device)
    if x.dtype.is_floating and not dst.startswith("int"):
        x.requires_grad_()
    y = CALLS[call](x, getattr(mg, dst))
    node = None
    if y.grad_fn is not None:
        node = (type(y.grad_fn).__name__, [type(fn).__name__ for fn, _ in y.grad_fn.next_functions])
        y.float().sum().backward()
    grad = None if x.grad is None else (x.grad.dtype, x.grad.cpu().float().numpy())
    return y.dtype, y.detach().cpu().float().numpy(), node, grad


@pytest.mark.parametrize("src,dst", PAIRS)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_reduction_in_a_given_dtype_runs_on_the_device_as_on_the_cpu(call: str, src: str, dst: str) -> None:
    try:
        want = _run("cpu", call, src, dst)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=re.escape(str(e)[:40])):
            _run("cuda", call, src, dst)
        return
    fake = fake_cupy.installed()
    if fake is not None:  # (a first call uploads the constants and stride tables it keeps on the device)
        _run("cuda", call, src, dst)
        fake.reset_counts()
    got = _run("cuda", call, src, dst)
    assert got[0] == want[0] and got[2] == want[2]
    np.testing.assert_allclose(got[1], want[1], rtol=2e-3 if "float16" in (src, dst) else 1e-6)
    if want[3] is not None:
        assert got[3][0] == want[3][0]
        np.testing.assert_allclose(got[3][1], want[3][1], rtol=2e-3, atol=1e-6)
    if fake is not None:  # (the reads are the test's own: .cpu() of the result and the gradient)
        assert fake.counts()["h2d"] <= 1  # the input itself
