"""Householder reflectors and the solves from a factor on the GPU (``kernels/gpu/linalg.py``): each op selects its
GPU kernel, and its values and gradients equal the CPU's (run on a device, or with the stand-in CuPy:
``MINIGRAD_FAKE_CUPY=1``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(5)
TALL, TAU, OTHER = RNG.standard_normal((2, 5, 3)), RNG.uniform(0.2, 1.8, (2, 3)), RNG.standard_normal((2, 5, 4))
TRI, RHS = RNG.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3), RNG.standard_normal((4, 3, 2))
LU = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
PIV = np.array([[2, 4, 3, 4], [1, 3, 3, 4]], dtype=np.int32)

# (op whose GPU kernel runs, call, arrays)
CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("geqrf", lambda a: tuple(mg.geqrf(a.detach())), (TALL,)),
    ("linalg_householder_product", lambda a, t: mg.linalg.householder_product(a, t), (TALL, TAU)),
    ("ormqr", lambda a, t, c: mg.ormqr(a, t, c.mT, left=False, transpose=True), (TALL, TAU, OTHER)),
    ("triangular_solve", lambda b, a: tuple(mg.triangular_solve(b, a, transpose=True)), (RHS, TRI)),
    ("cholesky_solve", lambda b, f: mg.cholesky_solve(b, f), (RHS, TRI)),
    ("linalg_lu_solve", lambda lu, p, b: mg.linalg.lu_solve(lu, p, b, adjoint=True), (LU, PIV, RNG.standard_normal((4, 2)))),
    ("lu_unpack", lambda lu, p: tuple(mg.lu_unpack(lu, p)), (LU, PIV)),
    ("linalg_lu_factor_ex", lambda a: tuple(mg.linalg.lu_factor_ex(a)), (RNG.standard_normal((2, 4, 3)),)),
    ("linalg_lu_factor_ex", lambda a: mg.linalg.lu_solve(*mg.linalg.lu_factor(a), a.mT), (RNG.standard_normal((3, 3)),)),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], device: str) -> tuple[list[Any], list[Any]]:
    leaves = [mg.tensor(a, requires_grad=a.dtype.kind == "f").to(device) if a.dtype.kind == "f" else
              mg.tensor(a).to(device) for a in arrays]
    leaves = [t.detach().requires_grad_(t.dtype.is_floating) for t in leaves]
    out = fn(*leaves)
    outs = list(out) if isinstance(out, tuple) else [out]
    loss = None
    for k, o in enumerate(outs):
        if o.requires_grad:
            term = (o * (k + 1.5)).sum()
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()
    return outs, [t.grad for t in leaves]


@pytest.mark.parametrize("op, fn, arrays", CALLS, ids=[c[0] for c in CALLS])
def test_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> None:
    with mg.trace() as tr:
        got, got_grads = _run(fn, arrays, "gpu")
    assert (op, "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    want, want_grads = _run(fn, arrays, "cpu")
    for g, w in zip(got, want):
        assert g.device.type != "cpu" and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().cpu().numpy(), w.detach().numpy(), rtol=1e-10, atol=1e-12)
    for g, w in zip(got_grads, want_grads):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-9, atol=1e-10)
