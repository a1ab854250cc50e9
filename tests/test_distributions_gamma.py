"""PyTorch's gamma and Poisson samplers and the distributions built on them (``Gamma``, ``Chi2``, ``InverseGamma``,
``Beta``, ``Dirichlet``, ``StudentT``, ``FisherSnedecor``, ``Poisson``) against ``torch``: ``_standard_gamma``,
``_sample_dirichlet`` and ``poisson`` draw PyTorch's numbers bit for bit (and leave the generator as PyTorch's), the
reparameterized gradients (``_standard_gamma_grad``, ``_dirichlet_grad``) are PyTorch's bits (float32
``_dirichlet_grad`` to an ulp), and the distributions' draws, scores, moments, gradients, reprs, expansions,
validation errors and KL divergences equal PyTorch's."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch
D = mg.distributions

DTYPES = [(np.float32, mg.float32, torch.float32), (np.float64, mg.float64, torch.float64)]


def bits(a: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a)).view(np.uint8)


def same_bits(m: Any, t: Any) -> None:
    m, t = m.detach().numpy(), t.detach().numpy()
    assert m.dtype == t.dtype and m.shape == t.shape
    assert np.array_equal(bits(m), bits(t)), (m, t)


def same_generator_after() -> None:
    """The generators are in the same state: the cached Box-Muller twin (a one-element ``randn``) and the words."""
    assert mg.randn(1, dtype=mg.float64).item() == torch.randn(1, dtype=torch.float64).item()
    assert np.array_equal(mg.rand(3, dtype=mg.float64).numpy(), torch.rand(3, dtype=torch.float64).numpy())


def alphas(dt: Any, seed: int) -> np.ndarray:
    """Concentrations of every regime: 0, tiny (the boost underflows), below 1 (boosted), 1, large."""
    rng = np.random.default_rng(seed)
    special = [0.0, 1e-30, 1e-8, 1e-3, 0.5, 1.0, 3.0, 100.0, 1e5]
    return np.concatenate([rng.random(6) * 0.99, special, rng.random(6) * 20]).astype(dt)


# -- the samplers, bit for bit --------------------------------------------------------------------------------

@pytest.mark.parametrize("np_dt,mg_dt,t_dt", DTYPES)
def test_standard_gamma_draws_pytorch_s_numbers_bit_for_bit(np_dt: Any, mg_dt: Any, t_dt: Any) -> None:
    for seed in range(25):
        a = alphas(np_dt, seed)
        mg.manual_seed(seed)
        torch.manual_seed(seed)
        same_bits(mg._standard_gamma(mg.tensor(a)), torch._standard_gamma(torch.from_numpy(a)))
        same_generator_after()


def test_standard_gamma_takes_a_generator_and_shapes() -> None:
    a = np.array([[0.3, 2.0, 7.5], [1.0, 0.01, 40.0]])
    g, tg = mg.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    for _ in range(3):
        same_bits(mg._standard_gamma(mg.tensor(a), generator=g), torch._standard_gamma(torch.tensor(a), generator=tg))
    same_bits(mg._standard_gamma(mg.tensor(a[0, 0]), generator=g), torch._standard_gamma(torch.tensor(a[0, 0]),
                                                                                         generator=tg))
    assert mg._standard_gamma(mg.zeros(0, 3)).shape == (0, 3)


@pytest.mark.parametrize("fn", ["_standard_gamma", "_sample_dirichlet"])
def test_a_transposed_concentration_draws_row_major_as_pytorch(fn: str) -> None:
    a = np.array([[0.5, 2.0, 3.0], [1.5, 4.0, 9.0]])
    mg.manual_seed(0)
    torch.manual_seed(0)
    m, t = getattr(mg, fn)(mg.tensor(a).t()), getattr(torch, fn)(torch.tensor(a).t())
    same_bits(m, t)
    assert m.stride() == t.stride()


@pytest.mark.parametrize("np_dt,mg_dt,t_dt", DTYPES)
def test_sample_dirichlet_draws_pytorch_s_numbers_bit_for_bit(np_dt: Any, mg_dt: Any, t_dt: Any) -> None:
    rng = np.random.default_rng(1)
    for seed in range(10):
        a = (rng.random((6, 4)) * [[0.05, 1.0, 5.0, 30.0]]).astype(np_dt)
        mg.manual_seed(seed)
        torch.manual_seed(seed)
        same_bits(mg._sample_dirichlet(mg.tensor(a)), torch._sample_dirichlet(torch.from_numpy(a)))
        same_generator_after()


@pytest.mark.parametrize("np_dt,mg_dt,t_dt", DTYPES)
def test_standard_gamma_grad_is_pytorch_s_bit_for_bit(np_dt: Any, mg_dt: Any, t_dt: Any) -> None:
    """All three branches: the series (x < 0.8), the saddle point (alpha > 8) and the rational fit."""
    rng = np.random.default_rng(2)
    a = np.concatenate([rng.random(200) * 3, rng.random(200) * 30, [1e-3, 0.5, 8.5, 100.0]]).astype(np_dt)
    torch.manual_seed(3)
    x = torch._standard_gamma(torch.from_numpy(a))
    same_bits(mg._standard_gamma_grad(mg.tensor(a), mg.tensor(x.numpy())),
              torch._standard_gamma_grad(torch.from_numpy(a), x))


def _dirichlet_grid(dt: Any) -> list[np.ndarray]:
    xs = np.linspace(0.001, 0.999, 60)
    X, A, T = np.meshgrid(xs, [0.1, 0.7, 2.0, 7.0, 15.0], [0.5, 3.0, 10.0, 30.0])
    keep = T > A
    return [v[keep].astype(dt) for v in (X, A, T)]


def test_dirichlet_grad_is_pytorch_s_bit_for_bit_in_float64() -> None:
    grid = _dirichlet_grid(np.float64)
    same_bits(mg._dirichlet_grad(*(mg.tensor(v) for v in grid)), torch._dirichlet_grad(*map(torch.from_numpy, grid)))


def test_dirichlet_grad_in_float32_is_pytorch_s_to_an_ulp() -> None:
    """float32 follows PyTorch's mix of float and double; the rational branch can round its last bit differently."""
    grid = _dirichlet_grid(np.float32)
    m = mg._dirichlet_grad(*(mg.tensor(v) for v in grid)).numpy()
    t = torch._dirichlet_grad(*map(torch.from_numpy, grid)).numpy()
    assert m.dtype == np.float32
    np.testing.assert_array_max_ulp(m, t, maxulp=1)


@pytest.mark.parametrize("np_dt,mg_dt,t_dt", DTYPES)
def test_poisson_draws_pytorch_s_counts_bit_for_bit(np_dt: Any, mg_dt: Any, t_dt: Any) -> None:
    """Both of PyTorch's samplers: Knuth's product of uniforms below rate 10, Hoermann's PTRS from 10 on."""
    for seed in range(15):
        rng = np.random.default_rng(seed)
        rate = np.concatenate([rng.random(8) * 10, rng.random(8) * 200, [0.0, 9.99, 10.0, 1e4]]).astype(np_dt)
        mg.manual_seed(seed)
        torch.manual_seed(seed)
        same_bits(mg.poisson(mg.tensor(rate)), torch.poisson(torch.from_numpy(rate)))
        same_generator_after()


def test_poisson_s_node_gradient_and_errors_are_pytorch_s() -> None:
    m_rate, t_rate = mg.tensor([2.0, 30.0], requires_grad=True), torch.tensor([2.0, 30.0], requires_grad=True)
    m, t = mg.poisson(m_rate), torch.poisson(t_rate)
    assert m.grad_fn.name() == t.grad_fn.name() == "PoissonBackward0"
    m.sum().backward()
    t.sum().backward()
    assert m_rate.grad.tolist() == t_rate.grad.tolist() == [0.0, 0.0]
    for bad in ([-1.0], [float("nan")]):
        with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
            mg.poisson(mg.tensor(bad))
    with pytest.raises(NotImplementedError, match="\"poisson_cpu\" not implemented for 'Long'"):
        mg.poisson(mg.tensor([1]))
    g, tg = mg.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    same_bits(mg.poisson(mg.tensor([3.0, 50.0]), generator=g), torch.poisson(torch.tensor([3.0, 50.0]), generator=tg))


# -- the op: its node, its gradient, its errors -------------------------------------------------------------

def test_the_sampling_node_and_its_reparameterized_gradient_are_pytorch_s() -> None:
    a = np.array([0.4, 1.0, 2.5, 12.0])
    ma, ta = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    mg.manual_seed(4)
    torch.manual_seed(4)
    mx, tx = mg._standard_gamma(ma), torch._standard_gamma(ta)
    assert mx.grad_fn.name() == tx.grad_fn.name() == "StandardGammaBackward0"
    w = [1.0, -2.0, 0.5, 3.0]
    (mx * mg.tensor(w)).sum().backward()
    (tx * torch.tensor(w, dtype=torch.float64)).sum().backward()
    same_bits(ma.grad, ta.grad)


def test_the_reparameterized_gradient_is_the_inverse_cdf_s_derivative() -> None:
    """``dx/dalpha`` of a draw held at its CDF value ``u``: the derivative of ``gammaincinv(alpha, u)``."""
    special = pytest.importorskip("scipy.special")
    a = np.array([0.3, 0.9, 2.0, 5.0, 11.0, 40.0])
    mg.manual_seed(0)
    x = mg._standard_gamma(mg.tensor(a)).numpy()
    u = special.gammainc(a, x)
    eps = 1e-6
    numeric = (special.gammaincinv(a + eps, u) - special.gammaincinv(a - eps, u)) / (2 * eps)
    np.testing.assert_allclose(mg._standard_gamma_grad(mg.tensor(a), mg.tensor(x)).numpy(), numeric, rtol=2e-3)


def test_the_gradients_have_no_derivative_as_in_pytorch() -> None:
    a = mg.tensor([1.5, 3.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg._standard_gamma(a).sum(), [a], create_graph=True)
    with pytest.raises(NotImplementedError, match=r"the derivative for '_standard_gamma_grad' is not implemented\."):
        g.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::_sample_dirichlet is not implemented"):
        mg._sample_dirichlet(a).sum().backward()


@pytest.mark.parametrize("fn,kernel", [(lambda t: t._standard_gamma, "gamma_cpu"),
                                       (lambda t: t._sample_dirichlet, "dirichlet")])
@pytest.mark.parametrize("dtype", ["float16", "int64"])
def test_a_dtype_without_a_sampler_raises_pytorch_s_error(fn: Callable[..., Any], kernel: str, dtype: str) -> None:
    with pytest.raises(NotImplementedError) as t_err:
        fn(torch)(torch.ones(2, dtype=getattr(torch, dtype)))
    with pytest.raises(NotImplementedError) as m_err:
        fn(mg)(mg.ones(2, dtype=getattr(mg, dtype)))
    assert str(m_err.value) == str(t_err.value)
    with pytest.raises(TypeError, match="generator"):
        fn(mg)(mg.ones(2), generator=3)


# -- the distributions ----------------------------------------------------------------------------------------

def lib_of(lib: Any) -> Any:
    return mg.distributions if lib is mg else torch.distributions


def tensor(lib: Any, values: Any, rg: bool = False) -> Any:
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64, requires_grad=rg)


def close(m: Any, t: Any, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(m.detach().numpy()), np.asarray(t.detach().numpy()), rtol=tol, atol=tol)


#: name -> (build(dist_module, params) -> distribution, parameter values, a value to score)
CASES: dict[str, tuple[Callable[..., Any], list[Any], Any]] = {
    "Gamma": (lambda d, p: d.Gamma(p[0], p[1]), [[0.5, 2.0, 3.0], [1.5, 0.7, 2.0]], [0.2, 1.5, 4.0]),
    "Chi2": (lambda d, p: d.Chi2(p[0]), [[0.5, 2.0, 5.0]], [0.2, 1.5, 4.0]),
    "InverseGamma": (lambda d, p: d.InverseGamma(p[0], p[1]), [[0.5, 1.5, 3.0], [1.5, 0.7, 2.0]], [0.2, 1.5, 4.0]),
    "Beta": (lambda d, p: d.Beta(p[0], p[1]), [[0.5, 2.0, 3.0], [1.5, 0.7, 9.0]], [0.2, 0.5, 0.9]),
    "Beta below 1": (lambda d, p: d.Beta(p[0], p[1]), [[0.5, 0.2], [0.3, 0.7]], [0.2, 0.9]),
    "Dirichlet": (lambda d, p: d.Dirichlet(p[0]), [[[0.5, 2.0, 3.0], [0.4, 0.3, 0.2]]],
                  [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
    "StudentT": (lambda d, p: d.StudentT(p[0], p[1], p[2]), [[0.8, 1.5, 3.0], [0.5, -1.0, 2.0], [1.0, 0.5, 2.0]],
                 [0.2, -1.5, 4.0]),
    "FisherSnedecor": (lambda d, p: d.FisherSnedecor(p[0], p[1]), [[1.5, 3.0, 6.0], [1.5, 4.5, 9.0]],
                       [0.2, 1.5, 4.0]),
    "Poisson": (lambda d, p: d.Poisson(p[0]), [[0.5, 3.5, 40.0]], [0.0, 2.0, 45.0]),
}


def build(name: str, lib: Any, rg: bool = True) -> tuple[Any, list[Any]]:
    make, params, _ = CASES[name]
    tensors = [tensor(lib, p, rg) for p in params]
    return make(lib_of(lib), tensors), tensors


def value(name: str, lib: Any) -> Any:
    return tensor(lib, CASES[name][2])


def _grads_equal(m_params: list[Any], t_params: list[Any], tol: float = 1e-10) -> None:
    for mp, tp in zip(m_params, t_params):
        assert (mp.grad is None) == (tp.grad is None)
        if tp.grad is not None:
            close(mp.grad, tp.grad, tol)


@pytest.mark.parametrize("method", ["log_prob", "entropy", "cdf", "icdf"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_scores_and_their_gradients_equal_pytorch(name: str, method: str) -> None:
    m_dist, m_params = build(name, mg)
    t_dist, t_params = build(name, torch)
    call = (lambda d, lib: d.entropy()) if method == "entropy" else (
        lambda d, lib: getattr(d, method)(value(name, lib)))
    try:
        t_out = call(t_dist, torch)
    except NotImplementedError:  # a method PyTorch's distribution lacks
        with pytest.raises(NotImplementedError):
            call(m_dist, mg)
        return
    m_out = call(m_dist, mg)
    close(m_out, t_out)
    try:
        t_out.sum().backward()
    except NotImplementedError as err:  # the gamma CDF's derivative wrt the concentration (none in PyTorch)
        with pytest.raises(NotImplementedError, match=str(err).replace("(", r"\(").replace(")", r"\)")):
            m_out.sum().backward()
        return
    m_out.sum().backward()
    _grads_equal(m_params, t_params)


@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_shapes_and_reprs_equal_pytorch(name: str) -> None:
    m_dist, _ = build(name, mg, rg=False)
    t_dist, _ = build(name, torch, rg=False)
    assert str(m_dist).replace("minigrad", "torch") == str(t_dist)
    assert (tuple(m_dist.batch_shape), tuple(m_dist.event_shape)) == (tuple(t_dist.batch_shape),
                                                                      tuple(t_dist.event_shape))
    for moment in ("mean", "mode", "variance", "stddev"):
        np.testing.assert_allclose(getattr(m_dist, moment).numpy(), getattr(t_dist, moment).numpy(), rtol=1e-12,
                                   atol=1e-14)
    assert str(m_dist.support).replace("minigrad", "torch") == str(t_dist.support)
    assert {k: str(v) for k, v in m_dist.arg_constraints.items()} == {
        k: str(v).replace("torch", "minigrad") for k, v in t_dist.arg_constraints.items()}
    assert m_dist.has_rsample == t_dist.has_rsample


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand_equals_pytorch(name: str) -> None:
    m_dist, _ = build(name, mg, rg=False)
    t_dist, _ = build(name, torch, rg=False)
    m_big, t_big = m_dist.expand((4, *m_dist.batch_shape)), t_dist.expand((4, *t_dist.batch_shape))
    assert type(m_big).__name__ == type(t_big).__name__
    assert (tuple(m_big.batch_shape), tuple(m_big.event_shape)) == (tuple(t_big.batch_shape),
                                                                    tuple(t_big.event_shape))
    close(m_big.log_prob(value(name, mg)), t_big.log_prob(value(name, torch)))
    mg.manual_seed(3)
    torch.manual_seed(3)
    same_draw(m_big.sample(), t_big.sample(), name not in LAST_BIT_DIFFERS)


#: draws whose shaping arithmetic rounds PyTorch's last bit differently on longer tensors: ``InverseGamma``'s
#: ``x ** -1`` (PyTorch's vectorised ``pow``); the gamma draws under them are PyTorch's bit for bit
LAST_BIT_DIFFERS = {"InverseGamma"}


def same_draw(m_draw: Any, t_draw: Any, exact: bool = True) -> None:
    """A draw is PyTorch's, bit for bit (or to the last bits where ``exact`` is false), and the generators are
    left in the same state."""
    assert str(m_draw.dtype).replace("minigrad", "torch") == str(t_draw.dtype)
    assert m_draw.requires_grad == t_draw.requires_grad
    if exact:
        same_bits(m_draw, t_draw)
    else:
        np.testing.assert_allclose(m_draw.detach().numpy(), t_draw.detach().numpy(), rtol=1e-13, atol=0)
    same_generator_after()


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seeded_draw_is_pytorch_s(name: str) -> None:
    m_dist, _ = build(name, mg)
    t_dist, _ = build(name, torch)
    for method in ("sample", "rsample") if t_dist.has_rsample else ("sample",):
        for shape in ((), (3,), (2, 2), (20,)):
            mg.manual_seed(7)
            torch.manual_seed(7)
            same_draw(getattr(m_dist, method)(shape), getattr(t_dist, method)(shape), name not in LAST_BIT_DIFFERS)


@pytest.mark.parametrize("name", ["Gamma", "Chi2", "Beta", "Dirichlet", "Poisson"])
def test_a_gamma_or_dirichlet_draw_is_pytorch_s_bit_for_bit(name: str) -> None:
    for np_dt, mg_dt, t_dt in DTYPES:
        m_dist, _ = build(name, mg, rg=False)
        t_dist, _ = build(name, torch, rg=False)
        if name == "Gamma":  # (a division by the rate 1 is exact)
            m_dist, t_dist = D.Gamma(m_dist.concentration.to(mg_dt), 1.0), torch.distributions.Gamma(
                t_dist.concentration.to(t_dt), 1.0)
        elif name == "Chi2":
            m_dist, t_dist = D.Chi2(m_dist.df.to(mg_dt)), torch.distributions.Chi2(t_dist.df.to(t_dt))
        elif name == "Poisson":
            m_dist, t_dist = D.Poisson(m_dist.rate.to(mg_dt)), torch.distributions.Poisson(t_dist.rate.to(t_dt))
        else:
            m_dist, t_dist = m_dist.expand(m_dist.batch_shape), t_dist.expand(t_dist.batch_shape)
        mg.manual_seed(8)
        torch.manual_seed(8)
        same_bits(m_dist.sample((6,)), t_dist.sample((6,)))
        same_generator_after()


@pytest.mark.parametrize("name", sorted(n for n in CASES if n != "Poisson"))
def test_a_reparameterised_draw_sends_pytorch_s_gradients(name: str) -> None:
    m_dist, m_params = build(name, mg)
    t_dist, t_params = build(name, torch)
    mg.manual_seed(11)
    torch.manual_seed(11)
    m_draw, t_draw = m_dist.rsample((5,)), t_dist.rsample((5,))
    (m_draw * m_draw).sum().backward()
    (t_draw * t_draw).sum().backward()
    _grads_equal(m_params, t_params, 1e-9)


def test_the_dirichlet_draw_s_node_is_pytorch_s_and_once_differentiable() -> None:
    errors = []
    for lib in (mg, torch):
        c = tensor(lib, [0.5, 2.0, 3.0], True)
        x = lib_of(lib).Dirichlet(c).rsample()
        assert x.grad_fn.name() == "_DirichletBackward"
        (g,) = lib.autograd.grad((x * x).sum(), [c], create_graph=True)
        with pytest.raises(RuntimeError) as err:
            g.sum().backward()
        errors.append(str(err.value))
    assert errors[0].endswith(errors[1])  # (minigrad names the node first: "in Error#... (backward of ...): ")


#: (build(dist_module, lib) -> distribution) whose validation fails, in either library
INVALID: dict[str, Callable[[Any, Any], Any]] = {
    "Gamma concentration": lambda d, lib: d.Gamma(lib.tensor([-1.0]), lib.tensor([1.0]), validate_args=True),
    "Gamma rate": lambda d, lib: d.Gamma(lib.tensor([1.0]), lib.tensor([0.0]), validate_args=True),
    "Chi2": lambda d, lib: d.Chi2(lib.tensor([-2.0]), validate_args=True),
    "InverseGamma": lambda d, lib: d.InverseGamma(lib.tensor([1.0]), lib.tensor([-1.0]), validate_args=True),
    "Beta": lambda d, lib: d.Beta(lib.tensor([1.0]), lib.tensor([-1.0]), validate_args=True),
    "Dirichlet": lambda d, lib: d.Dirichlet(lib.tensor([1.0, -1.0]), validate_args=True),
    "Dirichlet 0-d": lambda d, lib: d.Dirichlet(lib.tensor(1.0)),
    "StudentT": lambda d, lib: d.StudentT(lib.tensor([-1.0]), validate_args=True),
    "FisherSnedecor": lambda d, lib: d.FisherSnedecor(lib.tensor([1.0]), lib.tensor([0.0]), validate_args=True),
    "Poisson": lambda d, lib: d.Poisson(lib.tensor([-1.0]), validate_args=True),
    "Poisson value": lambda d, lib: d.Poisson(lib.tensor([1.0]), validate_args=True).log_prob(lib.tensor([1.5])),
    "Gamma value": lambda d, lib: d.Gamma(lib.tensor([1.0]), lib.tensor([1.0]), validate_args=True).log_prob(
        lib.tensor([-1.0])),
    "Beta value": lambda d, lib: d.Beta(lib.tensor([1.0]), lib.tensor([1.0]), validate_args=True).log_prob(
        lib.tensor([1.5])),
    "Dirichlet value": lambda d, lib: d.Dirichlet(lib.tensor([1.0, 2.0]), validate_args=True).log_prob(
        lib.tensor([0.5, 0.6])),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_validation_errors_are_pytorch_s(case: str) -> None:
    with pytest.raises(Exception) as t_err:
        INVALID[case](torch.distributions, torch)
    with pytest.raises(type(t_err.value)) as m_err:
        INVALID[case](D, mg)
    assert str(m_err.value).replace("minigrad", "torch") == str(t_err.value)


def _kl_pairs(lib: Any) -> dict[str, tuple[Any, Any, list[Any]]]:
    d = lib_of(lib)
    a, b = tensor(lib, [0.3, 2.5, 1.2], True), tensor(lib, [0.8, 1.7, 3.0], True)
    prob = tensor(lib, [0.2, 0.5, 0.93], True)
    m = a.unsqueeze(0) * b.unsqueeze(1)
    return {
        "Beta-ContinuousBernoulli": (d.Beta(a, b), d.ContinuousBernoulli(prob), [a, b, prob]),
        "Beta-Exponential": (d.Beta(a, b), d.Exponential(b), [a, b]),
        "Beta-Gamma": (d.Beta(a, b), d.Gamma(b, a + 0.5), [a, b]),
        "Beta-Normal": (d.Beta(a, b), d.Normal(a, b), [a, b]),
        "Beta-Uniform": (d.Beta(a, b), d.Uniform(a * 0 + lib.tensor([-0.5, 0.0, 0.1], dtype=lib.float64), b + 1),
                         [a, b]),
        "Beta-Pareto": (d.Beta(a, b), d.Pareto(a, b), [a]),
        "Gamma-Gumbel": (d.Gamma(a, b), d.Gumbel(a, b), [a, b]),
        "Gamma-Normal": (d.Gamma(a, b), d.Normal(a, b), [a, b]),
        "Gamma-Beta": (d.Gamma(a, b), d.Beta(a, b), [a]),
        "Gamma-ContinuousBernoulli": (d.Gamma(a, b), d.ContinuousBernoulli(prob), [a]),
        "Gamma-Pareto": (d.Gamma(a, b), d.Pareto(a, b), [a]),
        "Gamma-Uniform": (d.Gamma(a, b), d.Uniform(a, b + 3), [a]),
        "Pareto-Gamma": (d.Pareto(b, a + 0.5), d.Gamma(a, b), [a, b]),
        "Uniform-Beta": (d.Uniform(a * 0.1, a * 0.2 + 0.5), d.Beta(a, b), [a, b]),
        "Uniform-Gamma": (d.Uniform(a - 0.2, b + 1), d.Gamma(a, b), [a, b]),
        "Exponential-Beta": (d.Exponential(a), d.Beta(a, b), [a]),
        "Gumbel-Beta": (d.Gumbel(a, b), d.Beta(a, b), [a]),
        "Gumbel-Gamma": (d.Gumbel(a, b), d.Gamma(a, b), [a]),
        "Laplace-Beta": (d.Laplace(a, b), d.Beta(a, b), [a]),
        "Laplace-Gamma": (d.Laplace(a, b), d.Gamma(a, b), [a]),
        "Normal-Beta": (d.Normal(a, b), d.Beta(a, b), [a]),
        "Normal-Gamma": (d.Normal(a, b), d.Gamma(a, b), [a]),
        "Pareto-Beta": (d.Pareto(a, b), d.Beta(a, b), [a]),
        "Poisson-Poisson": (d.Poisson(a), d.Poisson(b), [a, b]),
        "Bernoulli-Poisson": (d.Bernoulli(prob), d.Poisson(b), [b, prob]),
        "Poisson-Bernoulli": (d.Poisson(a), d.Bernoulli(prob), [a]),
        "Gamma-Gamma": (d.Gamma(a, b), d.Gamma(b, a + 0.5), [a, b]),
        "Beta-Beta": (d.Beta(a, b), d.Beta(b * 0.5, a + 0.1), [a, b]),
        "Dirichlet-Dirichlet": (d.Dirichlet(m), d.Dirichlet(m.t() + 0.2), [a, b]),
        "Exponential-Gamma": (d.Exponential(a), d.Gamma(b, a + 0.3), [a, b]),
        "Gamma-Exponential": (d.Gamma(a, b), d.Exponential(b + 1), [a, b]),
        "Chi2-Chi2": (d.Chi2(a), d.Chi2(b), [a, b]),
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
