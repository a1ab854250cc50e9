"""``mg.distributions`` on the GPU: scores, entropies and KL divergences computed on the device equal the CPU's,
a reparameterised draw is made on the device (no copy), and the copies a host-side draw makes are the ones
``docs/concepts/distributions.md`` names."""

from __future__ import annotations

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

pytestmark = pytest.mark.gpu
D = mg.distributions
counted = pytest.mark.skipif(fake_cupy.installed() is None, reason="copies are counted by the stand-in CuPy")


def _pair(device: str) -> tuple[mg.Tensor, mg.Tensor]:
    loc = mg.tensor([0.3, -1.0, 2.0], dtype=mg.float64, device=device, requires_grad=True)
    scale = mg.tensor([0.5, 1.5, 2.0], dtype=mg.float64, device=device, requires_grad=True)
    return loc, scale


def _scores(device: str) -> list[np.ndarray]:
    loc, scale = _pair(device)
    value = mg.tensor([0.0, 1.0, -1.0], dtype=mg.float64, device=device)
    n = D.Normal(loc, scale)
    logits = mg.stack([loc, scale, loc * scale])
    c = D.Categorical(logits=logits)
    out = [n.log_prob(value), n.entropy(), D.kl_divergence(n, D.Normal(scale, loc.abs() + 1)),
           c.log_prob(mg.tensor([2, 0, 1], device=device)), c.entropy(), D.Bernoulli(logits=loc).log_prob(value.abs())]
    total = sum(o.sum() for o in out)
    total.backward()
    assert all(o.device == device for o in out)
    return [o.detach().cpu().numpy() for o in out] + [loc.grad.cpu().numpy(), scale.grad.cpu().numpy()]


def test_scores_on_the_device_equal_the_cpu_s() -> None:
    for gpu, cpu in zip(_scores("gpu"), _scores("cpu")):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-12, atol=1e-12)


@counted
def test_a_reparameterised_draw_is_made_on_the_device() -> None:
    loc, scale = _pair("gpu")
    n = D.Normal(loc, scale, validate_args=False)
    uniform = D.Uniform(loc.detach(), loc.detach() + 1, validate_args=False)
    n.rsample((4,)), uniform.rsample()  # the first launch of a geometry uploads its stride table, once
    fake_cupy.reset_counts()
    z = n.rsample((4,))
    u = uniform.rsample()
    counts = fake_cupy.counts()
    assert z.device == "gpu" and u.device == "gpu" and z.grad_fn is not None
    assert counts["h2d"] == counts["d2h"] == counts["syncs"] == 0, counts


@counted
def test_a_categorical_draw_copies_the_probabilities_down_and_the_classes_up() -> None:
    c = D.Categorical(logits=mg.zeros(5, 3, device="gpu"), validate_args=False)
    _ = c.probs
    fake_cupy.reset_counts()
    a = c.sample()
    counts = fake_cupy.counts()
    assert a.device == "gpu" and a.dtype == mg.int64 and a.shape == (5,)
    assert (counts["d2h"], counts["h2d"]) == (1, 1), counts
