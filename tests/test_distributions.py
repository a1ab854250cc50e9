"""``mg.distributions`` against ``torch.distributions``: values, gradients (and finite differences in float64),
the draws of a seeded program, the graphs the formulas build, and the errors validation raises, in PyTorch's
words. ``tests/parity/distributions*_printed.py`` run whole programs under both frameworks."""

from __future__ import annotations

import doctest
import importlib
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck

torch = pytest.importorskip("torch")
D = mg.distributions


def both(values: Any, rg: bool = False) -> tuple[mg.Tensor, Any]:
    """The same float64 values as a minigrad tensor and a PyTorch tensor."""
    a = np.asarray(values, dtype=np.float64)
    return mg.tensor(a, dtype=mg.float64, requires_grad=rg), torch.tensor(a, dtype=torch.float64, requires_grad=rg)


def names(fn: Any) -> list[str]:
    """The graph under ``fn`` as node class names, depth first (PyTorch's ``next_functions`` order)."""
    out: list[str] = []

    def walk(f: Any, depth: int) -> None:
        if f is None:
            return
        out.append("  " * depth + type(f).__name__)
        for nxt, _ in f.next_functions:
            walk(nxt, depth + 1)

    walk(fn, 0)
    return out


def close(m: mg.Tensor, t: Any) -> None:
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)


#: name -> (build(lib, dist_module, params) -> distribution, parameter values, a value to score)
CASES: dict[str, tuple[Callable[..., Any], list[Any], Any]] = {
    "Normal": (lambda lib, d, p: d.Normal(p[0], p[1]), [[0.5, -1.0, 2.0], [1.5, 0.3, 2.0]], [0.1, -2.0, 4.0]),
    "Normal broadcast": (lambda lib, d, p: d.Normal(p[0], p[1]), [[[0.5], [-1.0]], [1.5, 0.3, 2.0]], [0.1, -2.0, 4.0]),
    "Bernoulli probs": (lambda lib, d, p: d.Bernoulli(probs=p[0]), [[0.1, 0.5, 0.9]], [1.0, 0.0, 1.0]),
    "Bernoulli logits": (lambda lib, d, p: d.Bernoulli(logits=p[0]), [[-2.0, 0.0, 3.0]], [0.0, 0.0, 1.0]),
    "Categorical probs": (lambda lib, d, p: d.Categorical(probs=p[0]), [[[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]]], [2, 0]),
    "Categorical logits": (lambda lib, d, p: d.Categorical(logits=p[0]), [[[0.2, -1.3, 0.5], [1.0, 4.0, 2.0]]], [1, 1]),
    "OneHotCategorical": (lambda lib, d, p: d.OneHotCategorical(logits=p[0]), [[0.2, -1.3, 0.5]], [0.0, 1.0, 0.0]),
    "Uniform": (lambda lib, d, p: d.Uniform(p[0], p[1]), [[0.0, -1.0], [2.0, 3.0]], [1.5, 2.5]),
    "Exponential": (lambda lib, d, p: d.Exponential(p[0]), [[0.5, 2.0, 1.0]], [0.3, 0.0, 4.0]),
    "Laplace": (lambda lib, d, p: d.Laplace(p[0], p[1]), [[0.5, -1.0, 2.0], [1.5, 0.3, 2.0]], [0.1, -2.0, 4.0]),
    "MultivariateNormal": (lambda lib, d, p: d.MultivariateNormal(p[0], covariance_matrix=p[1] @ p[1].mT + lib.eye(
        3, dtype=lib.float64)), [[[0.5, -1.0, 2.0], [0.0, 1.0, 1.0]], [[1.0, 0.2, -0.3], [0.1, 2.0, 0.4], [0.0, 0.5, 1.5]]],
        [[0.1, -2.0, 4.0], [1.0, 1.0, 0.0]]),
    "MultivariateNormal scale_tril": (lambda lib, d, p: d.MultivariateNormal(p[0], scale_tril=p[1].tril() + 2 * lib.eye(
        3, dtype=lib.float64)), [[0.5, -1.0, 2.0], [[1.0, 0.2, -0.3], [0.1, 2.0, 0.4], [0.0, 0.5, 1.5]]],
        [[0.1, -2.0, 4.0], [1.0, 1.0, 0.0]]),
    "MultivariateNormal precision": (lambda lib, d, p: d.MultivariateNormal(p[0], precision_matrix=p[1] @ p[1].mT + lib.eye(
        3, dtype=lib.float64)), [[0.5, -1.0, 2.0], [[1.0, 0.2, -0.3], [0.1, 2.0, 0.4], [0.0, 0.5, 1.5]]],
        [0.1, -2.0, 4.0]),
    "MixtureSameFamily": (lambda lib, d, p: d.MixtureSameFamily(d.Categorical(logits=p[0]), d.Independent(
        d.Normal(p[1], p[2]), 1)), [[0.2, -0.5, 1.0], [[0.5, -1.0], [0.0, 1.0], [2.0, 2.0]],
                                    [[1.5, 0.3], [2.0, 1.0], [0.7, 0.9]]], [[0.1, -2.0], [1.0, 1.0]]),
    "LogNormal": (lambda lib, d, p: d.LogNormal(p[0], p[1]), [[0.5, -1.0, 2.0], [1.5, 0.3, 2.0]], [0.1, 2.0, 4.0]),
    "Normal under tanh": (lambda lib, d, p: d.TransformedDistribution(d.Normal(p[0], p[1]), [d.TanhTransform()]),
                          [[0.5, -1.0, 2.0], [1.5, 0.3, 2.0]], [0.1, -0.5, 0.9]),
    "Normal under sigmoid and affine": (lambda lib, d, p: d.TransformedDistribution(d.Normal(p[0], 1.0), [
        d.SigmoidTransform(), d.AffineTransform(p[1], 2.0)]), [[0.5, -1.0], [1.5, 0.3]], [1.9, 1.0]),
    "Cauchy": (lambda lib, d, p: d.Cauchy(p[0], p[1]), [[0.5, -1.0, 2.0], [1.5, 0.3, 2.0]], [0.1, -2.0, 4.0]),
    "HalfCauchy": (lambda lib, d, p: d.HalfCauchy(p[0]), [[1.5, 0.3, 2.0]], [0.1, 2.0, 4.0]),
    "HalfNormal": (lambda lib, d, p: d.HalfNormal(p[0]), [[1.5, 0.3, 2.0]], [0.1, 2.0, 4.0]),
    "Gumbel": (lambda lib, d, p: d.Gumbel(p[0], p[1]), [[0.5, -1.0, 2.0], [1.5, 0.3, 2.0]], [0.1, -2.0, 4.0]),
    "Geometric": (lambda lib, d, p: d.Geometric(p[0]), [[0.2, 0.5, 0.9]], [0.0, 3.0, 1.0]),
    "RelaxedBernoulli": (lambda lib, d, p: d.RelaxedBernoulli(p[1].sum(), logits=p[0]), [[0.5, -1.0, 2.0], [0.4, 0.3]],
                         [0.1, 0.5, 0.9]),
    "RelaxedOneHotCategorical": (lambda lib, d, p: d.RelaxedOneHotCategorical(p[1].sum(), logits=p[0]),
                                 [[0.5, -1.0, 2.0], [0.4, 0.3]], [0.2, 0.3, 0.5]),
    "Independent Normal": (lambda lib, d, p: d.Independent(d.Normal(p[0], p[1]), 1), [[[0.5, -1.0], [0.0, 1.0]],
                                                                                  [[1.5, 0.3], [2.0, 1.0]]],
                           [[0.1, -2.0], [1.0, 1.0]]),
}


def _build(name: str, lib: Any, rg: bool = True) -> tuple[Any, list[Any]]:
    build, params, _ = CASES[name]
    tensors = []
    for p in params:
        m, t = both(p, rg)
        tensors.append(m if lib is mg else t)
    return build(lib, mg.distributions if lib is mg else torch.distributions, tensors), tensors


def _value(name: str, lib: Any) -> Any:
    v = np.asarray(CASES[name][2])
    if name.startswith("Categorical"):
        return lib.tensor(v.astype(np.int64))
    return lib.tensor(v, dtype=lib.float64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_scores_and_their_gradients_equal_pytorch(name: str) -> None:
    """``log_prob`` and ``entropy``: values, the gradients they send to the parameters, and their graphs."""
    for method in ("log_prob", "entropy"):
        m_dist, m_params = _build(name, mg)
        t_dist, t_params = _build(name, torch)
        try:
            t_out = t_dist.log_prob(_value(name, torch)) if method == "log_prob" else t_dist.entropy()
        except NotImplementedError:  # (a mixture has no entropy in closed form)
            with pytest.raises(NotImplementedError):
                m_dist.entropy()
            continue
        m_out = m_dist.log_prob(_value(name, mg)) if method == "log_prob" else m_dist.entropy()
        close(m_out, t_out)
        assert names(m_out.grad_fn) == names(t_out.grad_fn), method
        m_out.sum().backward()
        t_out.sum().backward()
        for mp, tp in zip(m_params, t_params):
            assert (mp.grad is None) == (tp.grad is None)
            if tp.grad is not None:
                close(mp.grad, tp.grad)


@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_and_shapes_equal_pytorch(name: str) -> None:
    m_dist, _ = _build(name, mg, rg=False)
    t_dist, _ = _build(name, torch, rg=False)
    assert str(m_dist).replace("minigrad", "torch") == str(t_dist)
    assert tuple(m_dist.batch_shape) == tuple(t_dist.batch_shape)
    assert tuple(m_dist.event_shape) == tuple(t_dist.event_shape)
    for moment in ("mean", "variance", "stddev"):
        try:
            expected = getattr(t_dist, moment)
        except NotImplementedError:  # (a transformed distribution has no moments in closed form)
            with pytest.raises(NotImplementedError):
                getattr(m_dist, moment)
            continue
        np.testing.assert_allclose(getattr(m_dist, moment).numpy(), expected.numpy(), rtol=1e-12)
    expanded_m, expanded_t = m_dist.expand((4, *m_dist.batch_shape)), t_dist.expand((4, *t_dist.batch_shape))
    assert tuple(expanded_m.batch_shape) == tuple(expanded_t.batch_shape)
    assert str(m_dist.support).replace("minigrad", "torch") == str(t_dist.support)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seeded_draw_is_pytorch_s(name: str) -> None:
    """``sample`` (and ``rsample`` where there is one) draw PyTorch's numbers for the same seed."""
    m_dist, _ = _build(name, mg)
    t_dist, _ = _build(name, torch)
    for method in ("sample", "rsample") if t_dist.has_rsample else ("sample",):
        mg.manual_seed(7)
        torch.manual_seed(7)
        m_draw, t_draw = getattr(m_dist, method)((3,)), getattr(t_dist, method)((3,))
        assert str(m_draw.dtype).replace("minigrad", "torch") == str(t_draw.dtype)
        np.testing.assert_allclose(m_draw.detach().numpy(), t_draw.detach().numpy(), rtol=1e-12)
        assert m_draw.requires_grad == t_draw.requires_grad


@pytest.mark.parametrize("pair", ["Normal", "Bernoulli", "Categorical", "OneHotCategorical", "Uniform", "Independent",
                                  "Uniform-Normal", "ExponentialFamily", "Exponential", "Laplace",
                                  "MultivariateNormal"])
def test_kl_divergence_equals_pytorch(pair: str) -> None:
    def make(lib: Any) -> tuple[Any, Any, list[Any]]:
        d = mg.distributions if lib is mg else torch.distributions
        t = (lambda v: mg.tensor(np.asarray(v), dtype=mg.float64, requires_grad=True)) if lib is mg else (
            lambda v: torch.tensor(np.asarray(v), dtype=torch.float64, requires_grad=True))
        a, b = t([0.3, -1.0, 0.0]), t([0.8, 1.7, 1.0])
        if pair == "Normal":
            return d.Normal(a, b), d.Normal(b, a.abs() + 0.5), [a, b]
        if pair == "ExponentialFamily":  # the Bregman divergence of the family, called directly
            return d.Normal(a, b), d.Normal(b, a.abs() + 0.5), [a, b]
        if pair == "Bernoulli":  # a probability 0 and 1 on either side: 0 and inf terms
            p, q = t([0.2, 0.0, 1.0]), t([0.5, 0.5, 0.3])
            return d.Bernoulli(p), d.Bernoulli(q), [p, q]
        if pair in ("Categorical", "OneHotCategorical"):
            p, q = t([[0.2, 0.0, 0.8], [0.1, 0.6, 0.3]]), t([[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]])
            cls = d.Categorical if pair == "Categorical" else d.OneHotCategorical
            return cls(probs=p), cls(probs=q), [p, q]
        if pair == "Uniform":
            return d.Uniform(a, b + 1), d.Uniform(a - 1, b + 1.5), [a, b]
        if pair == "Exponential":
            return d.Exponential(b), d.Exponential(a.abs() + 0.5), [a, b]
        if pair == "Laplace":
            return d.Laplace(a, b), d.Laplace(b, a.abs() + 0.5), [a, b]
        if pair == "MultivariateNormal":
            m = a.unsqueeze(1) * b.unsqueeze(0)  # a rank-one update of the identity: positive-definite
            eye = mg.eye(3, dtype=mg.float64) if lib is mg else torch.eye(3, dtype=torch.float64)
            return (d.MultivariateNormal(a, covariance_matrix=m @ m.mT + eye),
                    d.MultivariateNormal(b, scale_tril=m.tril() + 2 * eye), [a, b])
        if pair == "Uniform-Normal":
            return d.Uniform(a, b + 1), d.Normal(b, a.abs() + 0.5), [a, b]
        return (d.Independent(d.Normal(a, b), 1), d.Independent(d.Normal(b, a.abs() + 0.5), 1), [a, b])

    (mp, mq, m_params), (tp, tq, t_params) = make(mg), make(torch)
    if pair == "ExponentialFamily":
        from torch.distributions.kl import _kl_expfamily_expfamily

        m_kl, t_kl = mg.distributions.kl._kl_expfamily_expfamily(mp, mq), _kl_expfamily_expfamily(tp, tq)
    else:
        m_kl, t_kl = mg.distributions.kl_divergence(mp, mq), torch.distributions.kl_divergence(tp, tq)
    np.testing.assert_allclose(m_kl.detach().numpy(), t_kl.detach().numpy(), rtol=1e-12)
    finite = np.isfinite(t_kl.detach().numpy())
    (m_kl[mg.tensor(finite)].sum()).backward()
    (t_kl[torch.tensor(finite)].sum()).backward()
    for a, b in zip(m_params, t_params):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_gradients_against_finite_differences() -> None:
    loc, scale = mg.tensor([0.3, -1.2], dtype=mg.float64, requires_grad=True), mg.tensor([0.7, 1.4], dtype=mg.float64,
                                                                                         requires_grad=True)
    logits = mg.tensor([[0.5, -0.2, 1.0], [0.0, 0.3, -2.0]], dtype=mg.float64, requires_grad=True)
    value = mg.tensor([0.1, -0.4], dtype=mg.float64)
    assert gradcheck(lambda l, s: D.Normal(l, s).log_prob(value), [loc, scale])
    assert gradcheck(lambda l, s: D.Normal(l, s).entropy(), [loc, scale])
    assert gradcheck(lambda l, s: D.kl_divergence(D.Normal(l, s), D.Normal(s, l.abs() + 1)), [loc, scale])
    assert gradcheck(lambda z: D.Categorical(logits=z).log_prob(mg.tensor([2, 0])), [logits])
    assert gradcheck(lambda z: D.Categorical(logits=z).entropy(), [logits])
    assert gradcheck(lambda z: D.Bernoulli(logits=z).log_prob(mg.tensor([[1.0, 0.0, 1.0]], dtype=mg.float64)), [logits])
    mg.manual_seed(0)
    assert gradcheck(lambda l, s: (mg.manual_seed(0), D.Normal(l, s).rsample((3,)))[1], [loc, scale])


#: constructions and scores PyTorch refuses: the same class and words
REFUSED: dict[str, Callable[[Any], Any]] = {
    "negative scale": lambda lib: lib.distributions.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -1.0])),
    "NaN loc": lambda lib: lib.distributions.Normal(lib.tensor([float("nan")]), 1.0),
    "probs off the simplex": lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.2, -0.3, 0.5])),
    "probs and logits": lambda lib: lib.distributions.Categorical(lib.tensor([0.5, 0.5]), lib.tensor([0.0, 0.0])),
    "neither probs nor logits": lambda lib: lib.distributions.Bernoulli(),
    "0-d probs": lambda lib: lib.distributions.Categorical(probs=lib.tensor(1.0)),
    "Bernoulli probs above 1": lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5, 1.5])),
    "low above high": lambda lib: lib.distributions.Uniform(1.0, 0.0),
    "a class out of range": lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.5, 0.5])).log_prob(
        lib.tensor([2])),
    "a shape that does not broadcast": lambda lib: lib.distributions.Normal(lib.zeros(2), 1.0).log_prob(lib.zeros(3)),
    "a non-binary value": lambda lib: lib.distributions.Bernoulli(0.5).log_prob(lib.tensor(0.5)),
    "a number to score": lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(0.5),
    "an event of the wrong size": lambda lib: lib.distributions.OneHotCategorical(lib.ones(3)).log_prob(lib.ones(2)),
    "no KL for the pair": lambda lib: lib.distributions.kl_divergence(lib.distributions.Categorical(lib.ones(2)),
                                                                      lib.distributions.Normal(0.0, 1.0)),
    "two exponential families": lambda lib: lib.distributions.kl_divergence(lib.distributions.Bernoulli(0.5),
                                                                            lib.distributions.Normal(0.0, 1.0)),
    "too many reinterpreted dims": lambda lib: lib.distributions.Independent(lib.distributions.Normal(0.0, 1.0), 1),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_are_pytorch_s(case: str) -> None:
    with pytest.raises(Exception) as t_err:
        REFUSED[case](torch)
    with pytest.raises(Exception) as m_err:
        REFUSED[case](mg)
    assert type(m_err.value).__name__ == type(t_err.value).__name__
    assert str(m_err.value).replace("minigrad", "torch") == str(t_err.value)


def test_a_lazy_parameter_is_computed_with_gradients_on() -> None:
    """``Categorical(logits=z).probs`` made under ``no_grad`` is still part of z's graph (PyTorch computes a
    ``lazy_property`` under ``enable_grad``), and is computed once."""
    z = mg.tensor([0.1, 0.5, -0.3], requires_grad=True)
    c = D.Categorical(logits=z)
    with mg.no_grad():
        p = c.probs
    assert p.grad_fn is not None and type(p.grad_fn).__name__ == "SoftmaxBackward0"
    assert c.probs is p


def test_validation_can_be_turned_off() -> None:
    bad = D.Normal(mg.tensor([0.0]), mg.tensor([-1.0]), validate_args=False)
    assert np.isnan(bad.log_prob(mg.tensor([1.0])).item())
    D.Distribution.set_default_validate_args(False)
    try:
        assert D.Uniform(1.0, 0.0).entropy().item() != 0  # log(-1): NaN, not refused
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Uniform(1.0, 0.0)


def test_the_examples_in_the_docstrings_run() -> None:
    for name in ("", ".normal", ".categorical", ".bernoulli", ".constraints"):
        module = importlib.import_module(f"minigrad.distributions{name}")
        assert doctest.testmod(module).failed == 0, module.__name__
