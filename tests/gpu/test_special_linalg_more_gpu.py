"""The ``torch.special`` functions of ``ops/special_functions.py`` on the GPU (``kernels/gpu/special.py``): each
op selects its GPU kernel, and its values and gradients equal the CPU's in float64 and float32 (run on a device,
or with the stand-in CuPy: ``MINIGRAD_FAKE_CUPY=1``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(5)
X = np.concatenate([RNG.standard_normal(12) * 4, [0.0, -0.0, 1e-3, 40.0, -40.0, 2.0, -1.0, np.inf, -np.inf, np.nan]])
P = np.concatenate([RNG.random(10), [0.0, 1.0, 0.5, 1e-300, 1 - 1e-12, -0.5, 2.0, np.nan]])
POS = np.abs(X)

# (op whose GPU kernel runs, call, arrays)
CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("special_entr", mg.special.entr, (POS,)),
    ("special_entr", mg.special.entr, (X,)),
    ("special_ndtri", mg.special.ndtri, (P,)),
    ("special_log_ndtr", mg.special.log_ndtr, (X,)),
    ("special_erfcx", mg.special.erfcx, (X,)),
    ("special_i0e", mg.special.i0e, (X,)),
    ("special_i1e", mg.special.i1e, (X,)),
    ("special_xlog1py", mg.special.xlog1py, (X, POS)),
    ("special_xlog1py", lambda x: mg.special.xlog1py(x, 2.5), (X,)),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], device: str, dtype: Any) -> tuple[Any, list[Any]]:
    leaves = [mg.tensor(a, dtype=dtype).to(device).detach().requires_grad_(True) for a in arrays]
    out = fn(*leaves)
    finite = mg.tensor(np.isfinite(out.detach().cpu().numpy())).to(device)
    weights = mg.arange(out.numel(), dtype=out.dtype).reshape(out.shape).to(device) + 1
    mg.where(finite, out * weights, mg.zeros_like(out)).sum().backward()
    return out, [t.grad for t in leaves]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, fn, arrays", CALLS, ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...],
                                          dtype: str) -> None:
    kind = getattr(mg, dtype)
    with mg.trace() as tr:
        got, got_grads = _run(fn, arrays, "gpu", kind)
    assert (op, "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    want, want_grads = _run(fn, arrays, "cpu", kind)
    assert got.device.type != "cpu" and tuple(got.shape) == tuple(want.shape) and got.dtype == want.dtype == kind
    rtol = 1e-12 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=0)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=rtol, atol=0)


def test_ndtr_runs_on_the_device_through_erf() -> None:
    """``ndtr`` is a composite: its ``erf`` runs on the device, its values are the CPU's."""
    x = mg.tensor(X[:12])
    with mg.trace() as tr:
        got = mg.special.ndtr(x.to("gpu"))
    assert ("erf", "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    np.testing.assert_allclose(got.cpu().numpy(), mg.special.ndtr(x).numpy(), rtol=1e-12)
