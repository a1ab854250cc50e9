"""The distributions, transforms and KL pairs beyond the first set (``Pareto``, ``Weibull``, ``Kumaraswamy``,
``LogisticNormal``, ``GeneralizedPareto``, ``ContinuousBernoulli``, ``LowRankMultivariateNormal``, ``Multinomial``,
``VonMises``; the structural transforms; ``biject_to``/``transform_to``) against ``torch.distributions``: a seeded
draw bit for bit, scores and moments to 1e-12 in float64, the gradients they send back, shapes, reprs, expansion,
and the errors validation raises, in PyTorch's words."""

from __future__ import annotations

import doctest
import importlib
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch
D = mg.distributions


def close(m: Any, t: Any, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(m.detach().numpy()), np.asarray(t.detach().numpy()), rtol=tol, atol=tol)


def lib_of(lib: Any) -> Any:
    return mg.distributions if lib is mg else torch.distributions


def tensor(lib: Any, values: Any, rg: bool = False) -> Any:
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64, requires_grad=rg)


_LOW_RANK = [[1.0, 0.2], [0.1, 2.0], [0.0, 0.5]]

#: name -> (build(lib, dist_module, params) -> distribution, parameter values, a value to score)
CASES: dict[str, tuple[Callable[..., Any], list[Any], Any]] = {
    "Pareto": (lambda lib, d, p: d.Pareto(p[0], p[1]), [[1.0, 0.5, 2.0], [3.0, 1.5, 2.5]], [1.5, 0.6, 4.0]),
    "Pareto alpha below 2": (lambda lib, d, p: d.Pareto(p[0], p[1]), [[1.0, 0.5], [0.8, 1.5]], [1.5, 0.6]),
    "Weibull": (lambda lib, d, p: d.Weibull(p[0], p[1]), [[1.5, 0.3, 2.0], [0.7, 2.0, 3.0]], [0.1, 2.0, 4.0]),
    "Kumaraswamy": (lambda lib, d, p: d.Kumaraswamy(p[0], p[1]), [[0.5, 2.0, 3.0], [1.5, 0.7, 2.0]],
                    [0.1, 0.5, 0.9]),
    "LogisticNormal": (lambda lib, d, p: d.LogisticNormal(p[0], p[1]), [[0.5, -1.0], [1.5, 0.3]], [0.2, 0.3, 0.5]),
    "GeneralizedPareto": (lambda lib, d, p: d.GeneralizedPareto(p[0], p[1], p[2]),
                          [[0.0, 1.0, -1.0], [1.0, 2.0, 0.5], [0.0, 0.3, -0.2]], [1.0, 2.0, -0.5]),
    "ContinuousBernoulli probs": (lambda lib, d, p: d.ContinuousBernoulli(probs=p[0]), [[0.2, 0.5, 0.9]],
                                  [0.1, 0.5, 0.9]),
    "ContinuousBernoulli logits": (lambda lib, d, p: d.ContinuousBernoulli(logits=p[0]), [[-2.0, 0.001, 3.0]],
                                   [0.1, 0.5, 0.9]),
    "LowRankMultivariateNormal": (lambda lib, d, p: d.LowRankMultivariateNormal(p[0], p[1], p[2]),
                                  [[[0.5, -1.0, 2.0], [0.0, 1.0, 1.0]], _LOW_RANK, [1.5, 0.3, 2.0]],
                                  [[0.1, -2.0, 4.0], [1.0, 1.0, 0.0]]),
    "Multinomial": (lambda lib, d, p: d.Multinomial(5, probs=p[0]), [[[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]]],
                    [[1.0, 2.0, 2.0], [0.0, 0.0, 5.0]]),
    "Multinomial logits": (lambda lib, d, p: d.Multinomial(3, logits=p[0]), [[0.2, -1.3, 0.5]], [1.0, 0.0, 2.0]),
    "VonMises": (lambda lib, d, p: d.VonMises(p[0], p[1]), [[0.5, -1.0, 2.0], [1.5, 0.3, 5.0]], [0.1, -2.0, 3.0]),
}


def build(name: str, lib: Any, rg: bool = True) -> tuple[Any, list[Any]]:
    make, params, _ = CASES[name]
    tensors = [tensor(lib, p, rg) for p in params]
    return make(lib, lib_of(lib), tensors), tensors


def value(name: str, lib: Any) -> Any:
    return tensor(lib, CASES[name][2])


def names(fn: Any) -> list[str]:
    """The graph under ``fn`` as node class names, depth first (PyTorch's ``next_functions`` order)."""
    out: list[str] = []
    stack = [(fn, 0)]
    while stack:
        f, depth = stack.pop()
        if f is not None:
            out.append("  " * depth + type(f).__name__)
            stack.extend((nxt, depth + 1) for nxt, _ in reversed(f.next_functions))
    return out


#: graphs that differ from PyTorch's: ``view(...)[:, ::m + 1] += 1`` (the capacitance's identity, added in place
#: through a view) is one ``AsStridedBackward0`` in PyTorch's graph and a chain of view nodes in minigrad's
GRAPH_DIFFERS = {"LowRankMultivariateNormal"}


def _grads_equal(m_params: list[Any], t_params: list[Any]) -> None:
    for mp, tp in zip(m_params, t_params):
        assert (mp.grad is None) == (tp.grad is None)
        if tp.grad is not None:
            close(mp.grad, tp.grad, 1e-10)


@pytest.mark.parametrize("method", ["log_prob", "entropy", "cdf", "icdf"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_scores_and_their_gradients_equal_pytorch(name: str, method: str) -> None:
    m_dist, m_params = build(name, mg)
    t_dist, t_params = build(name, torch)
    arg: dict[str, Any] = {"log_prob": value, "cdf": value, "icdf": lambda n, lib: tensor(lib, [0.1, 0.5, 0.8])}
    call = (lambda d, lib: getattr(d, method)(arg[method](name, lib))) if method in arg else (
        lambda d, lib: d.entropy())
    try:
        # (PyTorch's GeneralizedPareto compares its concentration with a 0 of the default dtype: float64 here)
        torch.set_default_dtype(torch.float64 if name == "GeneralizedPareto" else torch.float32)
        t_out = call(t_dist, torch)
    except (NotImplementedError, RuntimeError, ValueError) as err:  # a method PyTorch's distribution lacks
        with pytest.raises(type(err)):
            call(m_dist, mg)
        return
    finally:
        torch.set_default_dtype(torch.float32)
    m_out = call(m_dist, mg)
    close(m_out, t_out)
    if method in ("log_prob", "entropy") and name not in GRAPH_DIFFERS:
        assert names(m_out.grad_fn) == names(t_out.grad_fn)
    finite = np.isfinite(t_out.detach().numpy())
    if t_out.requires_grad:
        m_out[mg.tensor(finite)].sum().backward()
        t_out[torch.tensor(finite)].sum().backward()
        _grads_equal(m_params, t_params)


@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_shapes_and_reprs_equal_pytorch(name: str) -> None:
    same_moments_shapes_and_reprs(build(name, mg, rg=False)[0], build(name, torch, rg=False)[0])


def same_moments_shapes_and_reprs(m_dist: Any, t_dist: Any) -> None:
    """The printed distribution, its shapes, moments (or PyTorch's refusal of one) and support, as PyTorch's."""
    assert str(m_dist).replace("minigrad", "torch") == str(t_dist)
    assert (tuple(m_dist.batch_shape), tuple(m_dist.event_shape)) == (tuple(t_dist.batch_shape),
                                                                      tuple(t_dist.event_shape))
    for moment in ("mean", "mode", "variance", "stddev"):
        try:
            expected = getattr(t_dist, moment)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(m_dist, moment)
            continue
        np.testing.assert_allclose(getattr(m_dist, moment).numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)
    assert str(m_dist.support).replace("minigrad", "torch") == str(t_dist.support)
    assert m_dist.has_rsample == t_dist.has_rsample


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand_equals_pytorch(name: str) -> None:
    m_dist, _ = build(name, mg, rg=False)
    t_dist, _ = build(name, torch, rg=False)
    m_big, t_big = m_dist.expand((4, *m_dist.batch_shape)), t_dist.expand((4, *t_dist.batch_shape))
    assert type(m_big).__name__ == type(t_big).__name__
    assert tuple(m_big.batch_shape) == tuple(t_big.batch_shape)
    assert tuple(m_big.event_shape) == tuple(t_big.event_shape)
    torch.set_default_dtype(torch.float64 if name == "GeneralizedPareto" else torch.float32)
    try:
        close(m_big.log_prob(value(name, mg)), t_big.log_prob(value(name, torch)))
    finally:
        torch.set_default_dtype(torch.float32)
    mg.manual_seed(3)
    torch.manual_seed(3)
    same_draw(m_big.sample(), t_big.sample())


def same_draw(m_draw: Any, t_draw: Any) -> None:
    """A draw is PyTorch's: the generator calls are the same (the next numbers either generator gives are equal,
    bit for bit) and so are the values; discrete draws bit for bit, continuous ones to the last few bits.

    NOTE [ A draw's last bits ]
        The uniform, normal and exponential numbers under every draw are PyTorch's bit for bit; the formulas
        that shape them are PyTorch's too, but some elementwise kernels (``exp``, ``pow``, ``log1p``, ``sigmoid``
        on longer tensors, and a sum's order inside ``matmul``) round differently from PyTorch's vectorised CPU
        kernels in the last bit, so a transformed draw can differ by a few ulp.
    """
    assert str(m_draw.dtype).replace("minigrad", "torch") == str(t_draw.dtype)
    assert m_draw.requires_grad == t_draw.requires_grad
    if m_draw.dtype in (mg.int64, mg.bool_) or name_is_discrete(m_draw):
        assert np.array_equal(m_draw.detach().numpy(), t_draw.detach().numpy())
    else:
        np.testing.assert_allclose(m_draw.detach().numpy(), t_draw.detach().numpy(), rtol=1e-13, atol=1e-13)
    assert np.array_equal(mg.rand(5, dtype=mg.float64).numpy(), torch.rand(5, dtype=torch.float64).numpy())


def name_is_discrete(draw: Any) -> bool:
    """Counts (a multinomial's float draw): whole numbers, compared bit for bit."""
    values = draw.detach().numpy()
    return bool(np.all(values == np.round(values)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seeded_draw_is_pytorch_s(name: str) -> None:
    m_dist, _ = build(name, mg)
    t_dist, _ = build(name, torch)
    for method in ("sample", "rsample") if t_dist.has_rsample else ("sample",):
        for shape in ((), (3,), (2, 2), (50,)):
            mg.manual_seed(7)
            torch.manual_seed(7)
            same_draw(getattr(m_dist, method)(shape), getattr(t_dist, method)(shape))


@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in ("Multinomial", "Multinomial logits", "VonMises")))
def test_a_reparameterised_draw_sends_pytorch_s_gradients(name: str) -> None:
    m_dist, m_params = build(name, mg)
    t_dist, t_params = build(name, torch)
    mg.manual_seed(11)
    torch.manual_seed(11)
    m_draw, t_draw = m_dist.rsample((5,)), t_dist.rsample((5,))
    (m_draw * m_draw).sum().backward()
    (t_draw * t_draw).sum().backward()
    _grads_equal(m_params, t_params)


def test_the_low_rank_gaussian_s_matrices_equal_pytorch() -> None:
    m_dist, m_params = build("LowRankMultivariateNormal", mg)
    t_dist, t_params = build("LowRankMultivariateNormal", torch)
    for name in ("scale_tril", "covariance_matrix", "precision_matrix", "variance"):
        m_out, t_out = getattr(m_dist, name), getattr(t_dist, name)
        close(m_out, t_out)
        m_out.sum().backward()
        t_out.sum().backward()
    _grads_equal(m_params, t_params)


def test_gradients_against_finite_differences() -> None:
    """The scores' gradients are the derivatives of the scores (not only PyTorch's numbers)."""
    a = mg.tensor([0.7, 1.4, 2.2], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([1.5, 0.6, 3.0], dtype=mg.float64, requires_grad=True)
    u = mg.tensor([0.1, 0.5, 0.8], dtype=mg.float64)
    W = mg.tensor(_LOW_RANK, dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda x, y: D.Pareto(x, y).log_prob(x + u), [a, b])
    assert gradcheck(lambda x, y: D.Kumaraswamy(x, y).log_prob(u), [a, b])
    assert gradcheck(lambda x, y: D.Weibull(x, y).entropy() + D.Weibull(x, y).log_prob(u), [a, b])
    assert gradcheck(lambda x: D.ContinuousBernoulli(logits=x - 1).log_prob(u), [a])
    assert gradcheck(lambda x, y: D.GeneralizedPareto(x, y, x * 0.1).log_prob(x + u), [a, b])
    assert gradcheck(lambda x, y: D.VonMises(x, y).log_prob(u), [a, b])
    assert gradcheck(lambda x, w, y: D.LowRankMultivariateNormal(x, w, y).log_prob(u), [a, W, b])
    assert gradcheck(lambda x, y: D.kl_divergence(D.Pareto(x, y), D.Pareto(x * 0.5, y + 1)), [a, b])
    assert gradcheck(lambda x: D.StickBreakingTransform().log_abs_det_jacobian(x, D.StickBreakingTransform()(x)), [a])
    assert gradcheck(lambda x: D.CorrCholeskyTransform()(x), [a])


def test_a_float32_draw_is_pytorch_s() -> None:
    """``VonMises`` samples in float64 and rounds; the others draw in the parameters' dtype."""
    for build_dist in (lambda d, lib: d.VonMises(lib.tensor([0.3, 2.0]), lib.tensor([0.5, 8.0])),
                       lambda d, lib: d.Weibull(lib.tensor([0.3, 2.0]), lib.tensor([0.5, 8.0])),
                       lambda d, lib: d.ContinuousBernoulli(lib.tensor([0.3, 0.9]))):
        mg.manual_seed(5)
        torch.manual_seed(5)
        m = build_dist(D, mg).sample((4,))
        t = build_dist(torch.distributions, torch).sample((4,))
        assert m.dtype == mg.float32
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6)
        assert np.array_equal(mg.rand(5).numpy(), torch.rand(5).numpy())


#: pairs (p, q) made from the same values in either library
def _kl_pairs(lib: Any) -> dict[str, tuple[Any, Any, list[Any]]]:
    d = lib_of(lib)
    a, b = tensor(lib, [0.3, 2.5, 1.2], True), tensor(lib, [0.8, 1.7, 3.0], True)
    prob = tensor(lib, [0.2, 0.5, 0.93], True)
    W, diag = tensor(lib, _LOW_RANK, True), tensor(lib, [1.5, 0.3, 2.0], True)
    eye = lib.eye(3, dtype=lib.float64)
    m = a.unsqueeze(1) * b.unsqueeze(0)
    lowrank = d.LowRankMultivariateNormal(a, W, diag)
    return {
        "Pareto-Pareto": (d.Pareto(a, b), d.Pareto(b * 0.5, a + 0.1), [a, b]),
        "Pareto-Exponential": (d.Pareto(b, a + 0.5), d.Exponential(b), [a, b]),
        "Pareto-Normal": (d.Pareto(b, a + 1.5), d.Normal(a, b), [a, b]),
        "Pareto-Uniform": (d.Pareto(b, a), d.Uniform(a - 5, b + 5), [a, b]),
        "ContinuousBernoulli-ContinuousBernoulli": (d.ContinuousBernoulli(prob), d.ContinuousBernoulli(
            logits=a - 1), [a, prob]),
        "ContinuousBernoulli-Normal": (d.ContinuousBernoulli(prob), d.Normal(a, b), [a, b, prob]),
        "ContinuousBernoulli-Exponential": (d.ContinuousBernoulli(prob), d.Exponential(b), [b, prob]),
        "ContinuousBernoulli-Uniform": (d.ContinuousBernoulli(prob), d.Uniform(a - 1, b), [a, b, prob]),
        "ContinuousBernoulli-Pareto": (d.ContinuousBernoulli(prob), d.Pareto(a, b), [prob]),
        "Uniform-ContinuousBernoulli": (d.Uniform(a * 0.1, a * 0.2 + 0.5), d.ContinuousBernoulli(prob), [a, prob]),
        "Uniform-Pareto": (d.Uniform(b, b + a), d.Pareto(a, b), [a, b]),
        "Exponential-Pareto": (d.Exponential(a), d.Pareto(a, b), [a]),
        "Normal-ContinuousBernoulli": (d.Normal(a, b), d.ContinuousBernoulli(prob), [a]),
        "Laplace-Pareto": (d.Laplace(a, b), d.Pareto(a, b), [a]),
        "Gumbel-Pareto": (d.Gumbel(a, b), d.Pareto(a, b), [a]),
        "Gumbel-ContinuousBernoulli": (d.Gumbel(a, b), d.ContinuousBernoulli(prob), [a]),
        "Laplace-ContinuousBernoulli": (d.Laplace(a, b), d.ContinuousBernoulli(prob), [a]),
        "Exponential-ContinuousBernoulli": (d.Exponential(a), d.ContinuousBernoulli(prob), [a]),
        "Normal-Pareto": (d.Normal(a, b), d.Pareto(a, b), [a]),
        "Pareto-ContinuousBernoulli": (d.Pareto(a, b), d.ContinuousBernoulli(prob), [a]),
        "LowRank-LowRank": (lowrank, d.LowRankMultivariateNormal(b, W * 0.5, diag + a), [a, b, W, diag]),
        "MultivariateNormal-LowRank": (d.MultivariateNormal(b, covariance_matrix=m @ m.mT + eye), lowrank,
                                       [a, b, W, diag]),
        "LowRank-MultivariateNormal": (lowrank, d.MultivariateNormal(b, scale_tril=m.tril() + 2 * eye),
                                       [a, b, W, diag]),
    }


@pytest.mark.parametrize("pair", sorted(_kl_pairs(torch)))
def test_kl_divergence_equals_pytorch(pair: str) -> None:
    mp, mq, m_params = _kl_pairs(mg)[pair]
    tp, tq, t_params = _kl_pairs(torch)[pair]
    m_kl, t_kl = D.kl_divergence(mp, mq), torch.distributions.kl_divergence(tp, tq)
    close(m_kl, t_kl, 1e-11)
    finite = np.isfinite(t_kl.detach().numpy())
    if finite.any():
        m_kl[mg.tensor(finite)].sum().backward()
        t_kl[torch.tensor(finite)].sum().backward()
        _grads_equal(m_params, t_params)


#: name -> (make(lib) -> transform, input values)
TRANSFORMS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "StickBreaking": (lambda d: d.StickBreakingTransform(), [[0.3, -1.2, 2.0], [0.0, 0.5, -0.5]]),
    "LowerCholesky": (lambda d: d.LowerCholeskyTransform(), [[[0.3, -1.2], [2.0, 0.4]], [[0.0, 0.5], [-0.5, 1.0]]]),
    "PositiveDefinite": (lambda d: d.PositiveDefiniteTransform(), [[[0.3, -1.2], [2.0, 0.4]]]),
    "CorrCholesky": (lambda d: d.CorrCholeskyTransform(), [[0.3, -1.2, 2.0, 0.1, -0.4, 0.9], [0.0] * 6]),
    "Reshape": (lambda d: d.ReshapeTransform((2, 3), (3, 2)), [[[0.3, -1.2, 2.0], [0.1, -0.4, 0.9]]]),
    "Cat": (lambda d: d.CatTransform([d.ExpTransform(), d.AffineTransform(1.0, 2.0), d.SigmoidTransform()], -1,
                                     [1, 2, 1]), [[0.3, -1.2, 2.0, 0.1], [0.0, 0.5, -0.5, 1.0]]),
    "Cat along the batch": (lambda d: d.CatTransform([d.ExpTransform(), d.TanhTransform()], 0, [1, 1]),
                            [[0.3, -1.2], [0.0, 0.5]]),
    "Cat of vector transforms": (lambda d: d.CatTransform([d.IndependentTransform(d.ExpTransform(), 1),
                                                           d.SigmoidTransform()], 0, [1, 1]),
                                 [[0.3, -1.2, 0.4], [0.0, 0.5, 2.0]]),
    "Stack": (lambda d: d.StackTransform([d.ExpTransform(), d.AffineTransform(1.0, 2.0), d.SigmoidTransform()], 1),
              [[0.3, -1.2, 2.0], [0.0, 0.5, -0.5]]),
    "CumulativeDistribution": (lambda d: d.CumulativeDistributionTransform(d.Normal(0.5, 2.0)), [0.3, -1.2, 2.0]),
}


def _transform(name: str, lib: Any) -> Any:
    return TRANSFORMS[name][0](lib_of(lib))


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transforms_equal_pytorch(name: str) -> None:
    """The map, its inverse, its log-Jacobian, its shapes, its constraints and the gradients through it."""
    m_t, t_t = _transform(name, mg), _transform(name, torch)
    mx, tx = tensor(mg, TRANSFORMS[name][1], True), tensor(torch, TRANSFORMS[name][1], True)
    my, ty = m_t(mx), t_t(tx)
    close(my, ty)
    close(m_t.inv(my.detach()), t_t.inv(ty.detach()))
    assert tuple(m_t.forward_shape(mx.shape)) == tuple(t_t.forward_shape(tx.shape))
    assert tuple(m_t.inverse_shape(my.shape)) == tuple(t_t.inverse_shape(ty.shape))
    assert m_t.bijective == t_t.bijective
    assert str(m_t.domain).replace("minigrad", "torch") == str(t_t.domain)
    assert str(m_t.codomain).replace("minigrad", "torch") == str(t_t.codomain)
    if name != "Cat of vector transforms":  # (its parts' checks have different shapes: PyTorch's cat refuses them)
        assert bool(m_t.codomain.check(my).all()) == bool(t_t.codomain.check(ty).all())
    if name in ("LowerCholesky", "PositiveDefinite"):  # (not bijective: no Jacobian)
        (my * my).sum().backward()
        (ty * ty).sum().backward()
    else:
        m_j, t_j = m_t.log_abs_det_jacobian(mx, my), t_t.log_abs_det_jacobian(tx, ty)
        close(m_j, t_j)
        ((my * my).sum() + m_j.sum()).backward()
        ((ty * ty).sum() + t_j.sum()).backward()
    close(mx.grad, tx.grad, 1e-10)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_a_transform_with_a_cache_returns_its_input(name: str) -> None:
    m_t = _transform(name, mg).with_cache(1)
    x = tensor(mg, TRANSFORMS[name][1])
    assert m_t.inv(m_t(x)) is x


def _constraints(lib: Any) -> dict[str, Any]:
    c = lib_of(lib).constraints
    return {
        "real": c.real, "real_vector": c.real_vector, "positive": c.positive, "nonnegative": c.nonnegative,
        "greater_than": c.greater_than(2.5), "greater_than_eq": c.greater_than_eq(-1.0),
        "less_than": c.less_than(3.0), "unit_interval": c.unit_interval, "interval": c.interval(-2.0, 5.0),
        "half_open_interval": c.half_open_interval(1.0, 2.0), "simplex": c.simplex,
        "lower_cholesky": c.lower_cholesky, "positive_definite": c.positive_definite,
        "positive_semidefinite": c.positive_semidefinite, "corr_cholesky": c.corr_cholesky,
        "independent": c.independent(c.positive, 1),
        "cat": c.cat([c.positive, c.interval(0.0, 2.0)], -1, [2, 2]),
        "stack": c.stack([c.real, c.positive, c.unit_interval, c.less_than(1.0)], -1),
    }


def _unconstrained(transform: Any, lib: Any) -> Any:
    """A batch of 2 inputs of the shape ``transform`` takes to a 4 x 4 (or length-4) event."""
    rng = np.random.default_rng(0)
    shape = tuple(transform.inverse_shape((2, 4, 4) if transform.codomain.event_dim == 2 else (2, 4)))
    return tensor(lib, rng.normal(size=shape))


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(_constraints(torch)))
def test_the_constraint_registries_equal_pytorch(registry: str, name: str) -> None:
    t_c, m_c = _constraints(torch)[name], _constraints(mg)[name]
    try:
        t_t = getattr(torch.distributions, registry)(t_c)
    except NotImplementedError as err:
        with pytest.raises(NotImplementedError) as m_err:
            getattr(D, registry)(m_c)
        assert str(m_err.value) == str(err)
        return
    m_t = getattr(D, registry)(m_c)
    assert str(m_t).replace("minigrad", "torch") == str(t_t)
    tx, mx = _unconstrained(t_t, torch), _unconstrained(t_t, mg)
    ty, my = t_t(tx), m_t(mx)
    close(my, ty)
    assert bool(m_c.check(my).all()) and bool(t_c.check(ty).all())
    if t_t.bijective:
        close(m_t.log_abs_det_jacobian(mx, my), t_t.log_abs_det_jacobian(tx, ty))
        close(m_t.inv(my), t_t.inv(ty))


def test_a_registry_refuses_what_is_not_a_constraint() -> None:
    for lib in (torch, mg):
        with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
            lib_of(lib).constraint_registry.ConstraintRegistry().register(3, lambda c: None)


#: constructions and scores PyTorch refuses: the same class and words
REFUSED: dict[str, Callable[[Any], Any]] = {
    "Pareto negative alpha": lambda lib: lib_of(lib).Pareto(lib.tensor([1.0]), lib.tensor([-1.0])),
    "Pareto value below scale": lambda lib: lib_of(lib).Pareto(lib.tensor([2.0]), lib.tensor([1.0])).log_prob(
        lib.tensor([1.0])),
    "Weibull zero scale": lambda lib: lib_of(lib).Weibull(lib.tensor([0.0]), lib.tensor([1.0])),
    "Kumaraswamy value above 1": lambda lib: lib_of(lib).Kumaraswamy(lib.tensor([1.0]), lib.tensor([1.0])).log_prob(
        lib.tensor([1.5])),
    "LogisticNormal off the simplex": lambda lib: lib_of(lib).LogisticNormal(lib.zeros(2), lib.ones(2)).log_prob(
        lib.tensor([0.5, 0.5, 0.5])),
    "GeneralizedPareto negative scale": lambda lib: lib_of(lib).GeneralizedPareto(0.0, -1.0, 0.1),
    "GeneralizedPareto above its upper end": lambda lib: lib_of(lib).GeneralizedPareto(
        lib.tensor(0.0), lib.tensor(1.0), lib.tensor(-0.5)).log_prob(lib.tensor(3.0)),
    "ContinuousBernoulli probs above 1, validated": lambda lib: lib_of(lib).ContinuousBernoulli(
        lib.tensor([1.5]), validate_args=True),
    "ContinuousBernoulli both": lambda lib: lib_of(lib).ContinuousBernoulli(lib.tensor([0.5]), lib.tensor([0.0])),
    "LowRank 0-d loc": lambda lib: lib_of(lib).LowRankMultivariateNormal(lib.tensor(0.0), lib.ones(1, 1),
                                                                         lib.ones(1)),
    "LowRank 1-d factor": lambda lib: lib_of(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2), lib.ones(2)),
    "LowRank factor of the wrong size": lambda lib: lib_of(lib).LowRankMultivariateNormal(lib.zeros(2),
                                                                                          lib.ones(3, 1), lib.ones(2)),
    "LowRank diag of the wrong size": lambda lib: lib_of(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1),
                                                                                        lib.ones(3)),
    "LowRank KL of different sizes": lambda lib: lib_of(lib).kl_divergence(
        lib_of(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2)),
        lib_of(lib).MultivariateNormal(lib.zeros(3), lib.eye(3))),
    "LowRank batch shapes that do not broadcast": lambda lib: lib_of(lib).LowRankMultivariateNormal(
        lib.zeros(2, 2), lib.ones(3, 2, 1), lib.ones(2)),
    "Multinomial inhomogeneous count": lambda lib: lib_of(lib).Multinomial(lib.tensor(3), lib.ones(2)),
    "Multinomial counts above the total": lambda lib: lib_of(lib).Multinomial(2, lib.ones(2)).log_prob(
        lib.tensor([2.0, 1.0])),
    "Multinomial negative probs": lambda lib: lib_of(lib).Multinomial(2, lib.tensor([0.5, -0.5])),
    "VonMises zero concentration": lambda lib: lib_of(lib).VonMises(lib.tensor([0.0]), lib.tensor([0.0])),
    "Reshape of different sizes": lambda lib: lib_of(lib).transforms.ReshapeTransform((2, 3), (4,)),
    "Reshape of the wrong shape": lambda lib: lib_of(lib).transforms.ReshapeTransform((2, 3), (6,)).forward_shape(
        (5, 3, 2)),
    "CorrCholesky of a non-triangular number": lambda lib: lib_of(lib).transforms.CorrCholeskyTransform(
    ).forward_shape((4,)),
    "Cat of the wrong length": lambda lib: lib_of(lib).transforms.CatTransform(
        [lib_of(lib).transforms.ExpTransform()] * 2, 0)(lib.ones(3)),
    "Stack of the wrong length": lambda lib: lib_of(lib).transforms.StackTransform(
        [lib_of(lib).transforms.ExpTransform()] * 2, 0).inv(lib.ones(3)),
    "no transform for the constraint": lambda lib: lib_of(lib).biject_to(lib_of(lib).constraints.lower_cholesky),
    "vec to tril of a bad size": lambda lib: lib_of(lib).utils.vec_to_tril_matrix(lib.ones(5)),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_are_pytorch_s(case: str) -> None:
    with pytest.raises(Exception) as t_err:
        REFUSED[case](torch)
    with pytest.raises(Exception) as m_err:
        REFUSED[case](mg)
    assert type(m_err.value).__name__ == type(t_err.value).__name__
    assert str(m_err.value).replace("minigrad", "torch") == str(t_err.value)


def test_tril_matrix_to_vec_and_back_equal_pytorch() -> None:
    x = np.arange(2 * 4 * 4, dtype=np.float64).reshape(2, 4, 4)
    for diag in (-2, -1, 0, 1):
        m = D.utils.tril_matrix_to_vec(mg.tensor(x), diag)
        t = torch.distributions.utils.tril_matrix_to_vec(torch.tensor(x), diag)
        assert np.array_equal(m.numpy(), t.numpy())
        back = D.utils.vec_to_tril_matrix(m, diag)
        assert np.array_equal(back.numpy(), torch.distributions.utils.vec_to_tril_matrix(t, diag).numpy())


def test_the_new_names_are_exported_as_pytorch_exports_them() -> None:
    names = ["Pareto", "Weibull", "Kumaraswamy", "LogisticNormal", "GeneralizedPareto", "ContinuousBernoulli",
             "LowRankMultivariateNormal", "Multinomial", "VonMises", "CatTransform", "StackTransform",
             "ReshapeTransform", "LowerCholeskyTransform", "CorrCholeskyTransform", "StickBreakingTransform",
             "CumulativeDistributionTransform", "PositiveDefiniteTransform", "biject_to", "transform_to"]
    for name in names:
        assert hasattr(torch.distributions, name) and hasattr(D, name), name
        assert name in D.__all__


def test_the_examples_in_the_docstrings_run() -> None:
    for name in ("pareto", "weibull", "kumaraswamy", "logistic_normal", "generalized_pareto", "continuous_bernoulli",
                 "lowrank_multivariate_normal", "multinomial", "von_mises", "constraint_registry"):
        module = importlib.import_module(f"minigrad.distributions.{name}")
        assert doctest.testmod(module).failed == 0, module.__name__
