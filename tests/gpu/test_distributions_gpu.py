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


def _more_scores(device: str) -> list[np.ndarray]:
    """Scores of the distributions of ``test_distributions_more.py``, and the gradients they send back (the
    low-rank Gaussian's through ``linalg_cholesky`` of its capacitance, a matrix changed in place: the stand-in
    once doubled that gradient, where the device does not - ``test_gpu_kernels.py``'s transposed-gradient test)."""
    loc, scale = _pair(device)
    value = mg.tensor([0.1, 0.5, 0.9], dtype=mg.float64, device=device)
    big = mg.tensor([3.0, 4.0, 5.0], dtype=mg.float64, device=device)
    W = mg.stack([loc, scale]).mT
    lowrank = D.LowRankMultivariateNormal(loc, W, scale)
    out = [D.Pareto(scale, scale + 1).log_prob(big), D.Pareto(scale, scale + 1).entropy(),
           D.Weibull(scale, scale + 1).log_prob(big), D.Kumaraswamy(scale, scale + 1).log_prob(value),
           D.ContinuousBernoulli(logits=loc).log_prob(value), D.ContinuousBernoulli(logits=loc).mean,
           D.GeneralizedPareto(loc, scale, loc * 0.1).log_prob(big), lowrank.log_prob(big), lowrank.entropy(),
           D.VonMises(loc, scale).log_prob(value), D.LogisticNormal(loc[:2], scale[:2]).log_prob(value / value.sum()),
           D.Multinomial(4, logits=loc).log_prob(mg.tensor([1.0, 0.0, 3.0], dtype=mg.float64, device=device)),
           D.kl_divergence(D.Pareto(scale, scale + 1), D.Pareto(scale * 0.5, scale + 2)),
           D.kl_divergence(lowrank, D.MultivariateNormal(loc, scale_tril=mg.diag_embed(scale + 1)))]
    sum(o.sum() for o in out).backward()
    assert all(o.device == device for o in out)
    return [o.detach().cpu().numpy() for o in out] + [loc.grad.cpu().numpy(), scale.grad.cpu().numpy()]


def test_the_other_distributions_score_on_the_device_as_on_the_cpu() -> None:
    for gpu, cpu in zip(_more_scores("gpu"), _more_scores("cpu")):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-12, atol=1e-12)


def _reparameterised(device: str) -> list[D.Distribution]:
    """The reparameterised distributions, whose draws are device ops only (``exponential_`` draws on the device,
    and ``isclose`` compares there)."""
    loc, scale = _pair(device)
    return [D.Kumaraswamy(scale, scale + 1, validate_args=False), D.Pareto(scale, scale + 1, validate_args=False),
            D.Weibull(scale, scale + 1, validate_args=False),
            D.GeneralizedPareto(loc, scale, loc * 0.1, validate_args=False),
            D.ContinuousBernoulli(logits=loc, validate_args=False),
            D.LowRankMultivariateNormal(loc, mg.stack([loc, scale]).mT, scale, validate_args=False)]


@counted
def test_the_other_reparameterised_draws_are_made_on_the_device() -> None:
    for dist in _reparameterised("gpu"):
        dist.rsample((4,))  # (the first launch of a geometry uploads its stride table, once)
        fake_cupy.reset_counts()
        z = dist.rsample((4,))
        counts = fake_cupy.counts()
        assert z.device == "gpu" and z.grad_fn is not None and z.shape == dist._extended_shape((4,))
        assert counts["h2d"] == counts["d2h"] == counts["syncs"] == 0, (type(dist).__name__, counts)
        assert bool(dist.support.check(z.detach()).all()), type(dist).__name__


def test_a_von_mises_draw_on_the_device_is_on_the_circle() -> None:
    """The rejection loop runs on the device (its ``done.all()`` is a sync per round, as PyTorch's)."""
    loc, scale = _pair("gpu")
    x = D.VonMises(loc.detach(), scale.detach() * 4).sample((1000,))
    assert x.device == "gpu" and x.shape == (1000, 3)
    values = x.cpu().numpy()
    assert np.all(values >= -np.pi) and np.all(values < np.pi)
    mean_direction = np.angle(np.exp(1j * values).mean(0))
    np.testing.assert_allclose(mean_direction, loc.detach().cpu().numpy(), atol=0.1)
