"""Fractional max pooling and CTC on the GPU: fractional max pooling selects its GPU kernels
(``kernels/gpu/fractional.py``) and gives the CPU's windows, values and gradients; CTC has no GPU kernel and falls
back to its CPU kernels, visibly (``kernel.select`` with ``fallback_cpu``), its results on the device (run on a
device, or with the stand-in CuPy: ``MINIGRAD_FAKE_CUPY=1``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

F = mg.nn.functional
RNG = np.random.default_rng(6)
X2, X3 = RNG.standard_normal((2, 3, 9, 8)), RNG.standard_normal((2, 3, 6, 7, 5))
NAN = X2.copy()
NAN[0, 0, :2, :3], NAN[1, 2, 4, :] = np.nan, -np.inf
S2, S3 = RNG.random((2, 3, 2)), RNG.random((2, 3, 3))

CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("fractional_max_pool2d_indices", lambda x, s: F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=s),
     (X2, S2)),
    ("fractional_max_pool2d", lambda x, s: F.fractional_max_pool2d(x, (3, 2), output_size=(5, 3), _random_samples=s),
     (X2, S2)),
    ("fractional_max_pool2d_backward", lambda x, s: F.fractional_max_pool2d(x[0], 2, output_size=4, _random_samples=s),
     (NAN, S2)),
    ("fractional_max_pool3d_indices", lambda x, s: F.fractional_max_pool3d(x, 2, output_size=(3, 4, 2),
                                                                           _random_samples=s), (X3, S3)),
    ("fractional_max_pool3d_backward", lambda x, s: F.fractional_max_pool3d(x, (2, 3, 2), output_ratio=0.5,
                                                                            _random_samples=s), (X3, S3)),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], device: str) -> tuple[Any, Any]:
    x = mg.tensor(arrays[0]).to(device).detach().requires_grad_()
    out = fn(x, mg.tensor(arrays[1]).to(device))
    (out * mg.arange(out.numel(), dtype=out.dtype).reshape(out.shape).to(device)).sum().backward()
    return out, x.grad


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("op, fn, arrays", CALLS, ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_fractional_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: Any, dtype: Any) -> None:
    arrays = tuple(a.astype(dtype) for a in arrays)
    with mg.trace() as tr:
        got, got_grad = _run(fn, arrays, "gpu")
    selects = [e for e in tr.events if e.kind == "kernel.select"]
    assert (op, "GPU") in {(e.op, e.backend) for e in selects}
    assert not any(getattr(e, "fallback_cpu", False) for e in selects if "fractional" in e.op)
    want, want_grad = _run(fn, arrays, "cpu")
    assert got.device.type != "cpu" and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())  # the same windows, to the bit
    np.testing.assert_allclose(got_grad.cpu().numpy(), want_grad.numpy(), rtol=1e-6, atol=1e-6)


def test_fractional_draws_its_samples_on_the_device() -> None:
    x = mg.tensor(X2).to("gpu")
    mg.manual_seed(0)
    out, idx = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True)
    assert out.device.type != "cpu" and idx.device.type != "cpu" and idx.dtype == mg.int64


def test_ctc_loss_falls_back_to_the_cpu_visibly() -> None:
    lp = RNG.standard_normal((6, 2, 4))
    targets, lengths = np.array([[1, 2, 2], [3, 1, 0]]), ((6, 5), (3, 2))
    results = []
    for device in ("gpu", "cpu"):
        x = mg.tensor(lp).to(device).detach().requires_grad_()
        with mg.trace() as tr:
            loss = F.ctc_loss(x.log_softmax(2), mg.tensor(targets).to(device), *lengths)
            loss.backward()
        results.append((loss, x.grad, tr.events))
    (loss, grad, events), (want, want_grad, _) = results
    fallbacks = {e.op for e in events if e.kind == "kernel.select" and getattr(e, "fallback_cpu", False)}
    assert {"ctc_loss", "ctc_loss_backward"} <= fallbacks
    assert loss.device.type != "cpu" and grad.device.type != "cpu"
    np.testing.assert_allclose(loss.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(grad.cpu().numpy(), want_grad.numpy(), rtol=1e-10, atol=1e-14)
