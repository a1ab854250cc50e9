"""``mg.func`` on GPU tensors: per-sample gradients and Jacobians equal the CPU's, the loop over samples
makes no host copy and waits for nothing, and ``randomness="same"`` repeats the device generator's draw."""

from __future__ import annotations

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

RNG = np.random.default_rng(4)
W, X, Y = RNG.standard_normal((4, 3)), RNG.standard_normal((6, 4)), RNG.integers(0, 3, 6)


def _inputs(device: str) -> tuple[dict[str, mg.Tensor], mg.Tensor, mg.Tensor]:
    params = {"w": mg.tensor(W, device=device), "b": mg.zeros(3, dtype=mg.float64, device=device)}
    return params, mg.tensor(X, device=device), mg.tensor(Y, device=device)


def _loss(p, x, y):
    return mg.nn.functional.cross_entropy((x @ p["w"] + p["b"]).unsqueeze(0), y.unsqueeze(0))


def _per_sample(device: str, inputs=None) -> dict[str, mg.Tensor]:
    return mg.func.vmap(mg.func.grad(_loss), in_dims=(None, 0, 0))(*(inputs or _inputs(device)))


@pytest.mark.gpu
def test_per_sample_gradients_on_the_gpu_equal_the_cpus() -> None:
    gpu, cpu = _per_sample("gpu"), _per_sample("cpu")
    for k in cpu:
        assert gpu[k].device == "cuda"
        np.testing.assert_allclose(gpu[k].cpu().numpy(), cpu[k].numpy(), rtol=1e-12)
    x = mg.tensor(X[0], device="gpu")
    np.testing.assert_allclose(mg.func.jacrev(mg.tanh)(x).cpu().numpy(), mg.func.jacrev(mg.tanh)(x.cpu()).numpy())


@pytest.mark.gpu
@pytest.mark.skipif(fake_cupy.installed() is None, reason="copies and syncs are counted by the stand-in CuPy")
def test_the_loop_over_samples_copies_nothing_and_waits_for_nothing() -> None:
    fake = fake_cupy.installed()
    inputs = _inputs("gpu")
    _per_sample("gpu", inputs)  # first calls upload the number constants, once
    fake.reset_counts()
    _per_sample("gpu", inputs)
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log


@pytest.mark.gpu
def test_randomness_same_repeats_the_device_draw_for_every_sample() -> None:
    mg.cuda.manual_seed(3)
    out = mg.func.vmap(lambda r: r + mg.rand(4, device="gpu"), randomness="same")(mg.zeros(3, 4, device="gpu"))
    rows = out.cpu().numpy()
    np.testing.assert_array_equal(rows[0], rows[1])
    np.testing.assert_array_equal(rows[0], rows[2])
    mg.cuda.manual_seed(3)
    np.testing.assert_array_equal(mg.rand(4, device="gpu").cpu().numpy(), rows[0])
    with pytest.raises(RuntimeError, match="randomness error mode"):
        mg.func.vmap(lambda r: r + mg.rand(4, device="gpu"))(mg.zeros(3, 4, device="gpu"))
