"""The view scatters, masked_scatter, put, channel_shuffle, renorm and pdist on the GPU (``kernels/gpu/library.py``):
each op selects its GPU kernel, and its values and gradients equal the CPU's (run on a device, or with the
stand-in CuPy: ``MINIGRAD_FAKE_CUPY=1``). nanmedian's positions and the quantiles' sort have no GPU kernel of their
own here beyond the ones they are made of."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(11)
X, ROWS = RNG.standard_normal((4, 5)), RNG.standard_normal((5, 3))
MASK = RNG.random((4, 5)) > 0.5
SRC = RNG.standard_normal(20)

# (op whose GPU kernel runs, call, arrays)
CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("slice_scatter", lambda x, s: mg.slice_scatter(x, s, 1, 1, 5, 2), (X, RNG.standard_normal((4, 2)))),
    ("select_scatter", lambda x, s: mg.select_scatter(x, s, 0, -1), (X, RNG.standard_normal(5))),
    ("diagonal_scatter", lambda x, s: mg.diagonal_scatter(x, s, 1), (X, RNG.standard_normal(4))),
    ("masked_scatter", lambda x, m, s: mg.masked_scatter(x, m, s), (X, MASK, SRC)),
    ("masked_scatter", lambda x, m, s: mg.masked_scatter(x[0], m, s), (X, MASK, SRC)),
    ("put", lambda x, i, s: x.put(i, s), (X, np.array([[3, -1], [7, 0]]), RNG.standard_normal(4))),
    ("put", lambda x, i, s: mg.put(x, i, s, accumulate=True), (X, np.array([3, 3, -20]), RNG.standard_normal(3))),
    ("channel_shuffle", lambda x: mg.channel_shuffle(x, 3), (RNG.standard_normal((2, 6, 2)),)),
    ("renorm", lambda x: mg.renorm(x, 2, 1, 0.9), (X,)),
    ("renorm", lambda x: x.renorm(float("inf"), 0, 0.5), (X,)),
    ("pdist", lambda x: mg.pdist(x), (ROWS,)),
    ("pdist", lambda x: mg.pdist(x, 1.5), (ROWS,)),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], device: str) -> tuple[Any, list[Any]]:
    leaves = [mg.tensor(a).to(device) for a in arrays]
    leaves = [t.detach().requires_grad_(t.dtype.is_floating) for t in leaves]
    out = fn(*leaves)
    (out * mg.arange(out.numel(), dtype=out.dtype).reshape(out.shape).to(device)).sum().backward()
    return out, [t.grad for t in leaves]


@pytest.mark.parametrize("op, fn, arrays", CALLS, ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> None:
    with mg.trace() as tr:
        got, got_grads = _run(fn, arrays, "gpu")
    assert (op, "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    want, want_grads = _run(fn, arrays, "cpu")
    assert got.device.type != "cpu" and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    for g, w in zip(got_grads, want_grads):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def test_masked_scatter_with_too_small_a_source_is_refused_at_the_next_sync() -> None:
    """The count is checked on the device (nothing read back at the call); the error comes at the next sync,
    in PyTorch's words, as a CUDA device-side check's would."""
    x = mg.zeros(4).to("gpu")
    out = mg.masked_scatter(x, mg.ones(4, dtype=mg.bool).to("gpu"), mg.ones(3).to("gpu"))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        out.cpu()


NAN = X.copy()
NAN[0, 1], NAN[2, 1:], NAN[3, 0] = np.nan, np.nan, np.nan


@pytest.mark.parametrize("op, fn", [("nanmedian_indices", lambda x: mg.nanmedian(x, 1).values),
                                    ("nanmedian_values", lambda x: mg.nanmedian(x, 0, keepdim=True).values),
                                    ("nanmedian_all", lambda x: mg.nanmedian(x[:2]))])
def test_nanmedian_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any]) -> None:
    with mg.trace() as tr:
        got, (got_grad,) = _run(fn, (NAN,), "gpu")
    assert (op, "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    want, (want_grad,) = _run(fn, (NAN,), "cpu")
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), equal_nan=True)
    np.testing.assert_allclose(got_grad.cpu().numpy(), want_grad.numpy())


def test_nanmedian_of_a_slice_of_nan_only_is_nan_on_the_device() -> None:
    """Its position there is the slice's first, where the CPU's ``nth_element`` picks another: only the value is
    the CPU's (as PyTorch's CUDA kernel's)."""
    x = mg.tensor([[np.nan] * 5, [1.0, np.nan, 3.0, 2.0, 0.5]]).to("gpu")
    values, indices = mg.nanmedian(x, 1)
    assert np.isnan(values.cpu().numpy()[0]) and values.cpu().tolist()[1] == 1.0
    assert indices.cpu().tolist() == [0, 0]
