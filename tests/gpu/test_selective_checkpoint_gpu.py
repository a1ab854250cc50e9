"""Selective checkpointing on the GPU: the gradients equal the CPU's, a kept product is not launched again in the
recomputation (counted by the stand-in CuPy), and nothing is copied to the host or waited for."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import fake_cupy
import minigrad as mg
import minigrad.utils.checkpoint  # noqa: F401

RNG = np.random.default_rng(3)
X, W = RNG.standard_normal((8, 16)), RNG.standard_normal((16, 16))


def _step(device: str, keep: list, x: mg.Tensor | None = None, w: mg.Tensor | None = None):
    x = mg.tensor(X, device=device, requires_grad=True) if x is None else x
    w = mg.tensor(W, device=device, requires_grad=True) if w is None else w
    context_fn = functools.partial(mg.utils.checkpoint.create_selective_checkpoint_contexts, keep)
    y = mg.utils.checkpoint.checkpoint(lambda a: ((a @ w).tanh() @ w).sin(), x, use_reentrant=False,
                                       context_fn=context_fn)
    y.sum().backward()
    return x.grad, w.grad


@pytest.mark.gpu
def test_the_gradients_on_the_gpu_equal_the_cpus() -> None:
    for got, want in zip(_step("gpu", [mg.ops.aten.mm.default]), _step("cpu", [mg.ops.aten.mm.default])):
        assert got.device == "gpu"
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.gpu
@pytest.mark.skipif(fake_cupy.installed() is None, reason="launches, copies and syncs are counted by the stand-in CuPy")
def test_keeping_the_products_saves_their_launches_and_copies_nothing() -> None:
    fake = fake_cupy.installed()
    x = mg.tensor(X, device="gpu", requires_grad=True)  # (the program's own uploads)
    w = mg.tensor(W, device="gpu", requires_grad=True)
    launches = {}
    for name, keep in (("plain", []), ("keep mm", [mg.ops.aten.mm.default])):
        _step("gpu", keep, x, w)
        x.grad = w.grad = None
        fake.reset_counts()
        _step("gpu", keep, x, w)
        x.grad = w.grad = None
        c = fake.counts()
        assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
        launches[name] = c["launches"]
    assert launches["keep mm"] < launches["plain"]


@pytest.mark.gpu
def test_device_states_are_the_gpu_generators() -> None:
    cp = mg.utils.checkpoint
    x = mg.ones(2, device="cuda")
    ids, states = cp.get_device_states(x, [mg.ones(1)])
    assert ids == [0] and states[0].equal(mg.cuda.get_rng_state())
    first = mg.rand(3, device="cuda")
    cp.set_device_states(ids, states, device_type="cuda")
    assert mg.rand(3, device="cuda").equal(first)  # the same draws again
