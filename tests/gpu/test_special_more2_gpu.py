"""The Bessel, Airy, zeta and incomplete gamma functions of ``torch.special`` on the GPU (``kernels/gpu/special.py``
over ``kernels/bessel_arrays.py`` and ``kernels/gamma_arrays.py``): each op selects its GPU kernel, and its values
and gradients equal the CPU's in float64 and float32 (run on a device, or with the stand-in CuPy:
``MINIGRAD_FAKE_CUPY=1``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(11)
X = np.concatenate([RNG.standard_normal(10) * 8, [0.0, -0.0, 1e-3, 1.5, 2.0, 19.0, 21.0, 30.0, -12.0, 104.0,
                                                  np.inf, -np.inf, np.nan]])
POS = np.abs(X[np.isfinite(X)]) + 0.25
A = RNG.random(POS.size) * 6 + 0.1

BESSEL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai"]

# (op whose GPU kernel runs, call, arrays, whether the last array's gradient is checked)
CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...], bool]] = [
    *[(f"special_{n}", getattr(mg.special, n), (X,), False) for n in BESSEL],
    ("special_zeta", mg.special.zeta, (A + 1.5, POS), True),
    ("special_zeta", lambda q: mg.special.zeta(3.0, q), (POS,), True),
    ("igamma", mg.igamma, (A, POS), True),
    ("igammac", mg.special.gammaincc, (A, POS), True),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], grad: bool, device: str,
         dtype: Any) -> tuple[Any, Any]:
    leaves = [mg.tensor(a, dtype=dtype).to(device) for a in arrays]
    if grad:
        leaves[-1] = leaves[-1].detach().requires_grad_(True)
    out = fn(*leaves)
    if not grad:
        return out, None
    weights = mg.arange(out.numel(), dtype=out.dtype).reshape(out.shape).to(device) + 1
    (out * weights).sum().backward()
    return out, leaves[-1].grad


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("op, fn, arrays, grad", CALLS, ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...],
                                          grad: bool, dtype: str) -> None:
    kind = getattr(mg, dtype)
    with mg.trace() as tr:
        got, got_grad = _run(fn, arrays, grad, "gpu", kind)
    assert (op, "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    want, want_grad = _run(fn, arrays, grad, "cpu", kind)
    assert got.device.type != "cpu" and tuple(got.shape) == tuple(want.shape) and got.dtype == want.dtype == kind
    rtol = 1e-12 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=0)
    if grad:
        np.testing.assert_allclose(got_grad.cpu().numpy(), want_grad.numpy(), rtol=rtol, atol=0)


def test_the_bessel_functions_have_no_derivative_on_the_device_either() -> None:
    out = mg.special.bessel_j0(mg.tensor([0.5, 2.0]).to("gpu").requires_grad_(True))
    assert not out.requires_grad and out.grad_fn is None
