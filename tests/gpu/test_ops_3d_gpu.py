"""The 3-D convolutions and pools on the GPU (``kernels/gpu/volume.py``): each op selects its GPU kernel, its values
and gradients equal the CPU's, and a steady call copies nothing between host and device and waits for nothing (run
on a device, or with the stand-in CuPy: ``MINIGRAD_FAKE_CUPY=1``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu

F = mg.nn.functional
RNG = np.random.default_rng(5)
X = RNG.standard_normal((2, 4, 5, 6, 5))
NAN = X.copy()
NAN[0, 0, 0, 0, :2], NAN[1, 2, :2, :2, :2] = np.nan, -np.inf

# (op whose GPU kernel runs, call, arrays)
CALLS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("conv3d", lambda x, w, b: F.conv3d(x, w, b), (X, RNG.standard_normal((3, 4, 2, 3, 2)), RNG.standard_normal(3))),
    ("conv3d", lambda x, w: F.conv3d(x, w, stride=2, padding=1, dilation=(1, 2, 1), groups=2),
     (X, RNG.standard_normal((4, 2, 2, 2, 2)))),
    ("conv3d", lambda x, w: F.conv3d(x[0], w, padding="same"), (X, RNG.standard_normal((2, 4, 2, 3, 2)))),
    ("conv3d_input_grad", lambda x, w: F.conv3d(x, w), (X, RNG.standard_normal((3, 4, 2, 2, 2)))),
    ("conv3d_weight_grad", lambda x, w: F.conv3d(x, w), (X, RNG.standard_normal((3, 4, 2, 2, 2)))),
    ("conv_transpose3d", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
     (X, RNG.standard_normal((4, 1, 3, 2, 3)), RNG.standard_normal(2))),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2), (X,)),
    ("max_pool3d_grad", lambda x: F.max_pool3d(x, 3, stride=2, padding=1, ceil_mode=True), (X,)),
    ("max_pool3d", lambda x: F.max_pool3d(x[1], (2, 3, 2), stride=1, dilation=(1, 1, 2)), (X,)),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, padding=1), (NAN,)),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 4, 3)), (X,)),
    ("adaptive_avg_pool3d_backward", lambda x: F.adaptive_avg_pool3d(x[0], (3, None, 2)), (X,)),
]


def _run(fn: Callable[..., Any], arrays: tuple[np.ndarray, ...], device: str) -> tuple[Any, list[Any]]:
    leaves = [mg.tensor(a).to(device).detach().requires_grad_() for a in arrays]
    out = fn(*leaves)
    (out * mg.arange(out.numel(), dtype=out.dtype).reshape(out.shape).to(device)).sum().backward()
    return out, [t.grad for t in leaves]


@pytest.mark.parametrize("op, fn, arrays", CALLS, ids=[f"{c[0]}-{k}" for k, c in enumerate(CALLS)])
def test_runs_on_the_device_as_on_the_cpu(op: str, fn: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> None:
    with mg.trace() as tr:
        got, got_grads = _run(fn, arrays, "gpu")
    selected = {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    assert (op, "GPU") in selected
    assert not any(getattr(e, "fallback_cpu", False) for e in tr.events if e.kind == "kernel.select")
    want, want_grads = _run(fn, arrays, "cpu")
    assert got.device.type != "cpu" and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def test_max_pool3d_indices_on_the_device_are_the_cpus_and_feed_max_unpool3d() -> None:
    x = mg.tensor(NAN)
    out, idx = F.max_pool3d(x.to("gpu"), 2, padding=1, return_indices=True)
    want, want_idx = F.max_pool3d(x, 2, padding=1, return_indices=True)
    assert idx.dtype == mg.int64 and idx.cpu().tolist() == want_idx.tolist()
    unpooled = F.max_unpool3d(out, idx, 2, padding=1, output_size=X.shape[-3:])
    np.testing.assert_array_equal(unpooled.cpu().numpy(), F.max_unpool3d(want, want_idx, 2, padding=1,
                                                                         output_size=X.shape[-3:]).numpy())


def test_double_backward_of_conv3d_and_max_pool3d_runs_on_the_device() -> None:
    x, w = (mg.tensor(a).to("gpu").requires_grad_() for a in (X, RNG.standard_normal((3, 4, 2, 2, 2))))
    (gx,) = mg.grad(F.max_pool3d(F.conv3d(x, w), 2).pow(2).sum(), [x], create_graph=True)
    with mg.trace() as tr:
        gx.sum().backward()
    selected = {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    assert {("max_pool3d_select", "GPU"), ("conv3d", "GPU")} <= selected


def test_a_steady_step_copies_nothing_and_waits_for_nothing() -> None:
    fake_cupy = pytest.importorskip("fake_cupy")
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("copies and syncs are counted by the stand-in CuPy")
    x = mg.tensor(X).to("gpu").requires_grad_()
    w = mg.tensor(RNG.standard_normal((4, 4, 2, 2, 2))).to("gpu").requires_grad_()
    wt = mg.tensor(RNG.standard_normal((4, 2, 2, 2, 2))).to("gpu").requires_grad_()

    def step() -> None:
        y = F.conv3d(x, w, padding=1, groups=1)
        y = F.max_pool3d(y, 2, padding=1)
        y = F.conv_transpose3d(y, wt, stride=2, groups=2)
        F.adaptive_avg_pool3d(y, (2, 3, 2)).sum().backward()

    step()  # compiles and keeps what a first call makes
    fake.reset_counts()
    step()
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
