"""``binomial`` and the distributions ``Binomial``, ``NegativeBinomial``, ``Wishart`` and ``LKJCholesky`` against
``torch``: ``binomial`` draws PyTorch's counts bit for bit (both of its samplers, float32 and float64) and leaves the
generator as PyTorch's; the distributions' seeded draws are PyTorch's bit for bit, and their scores, entropies,
moments, gradients (also against float64 finite differences), expansions, reprs, validation errors and KL
divergences equal PyTorch's."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck
from test_distributions_gamma import bits, same_bits, same_generator_after  # noqa: F401  (bits: used below)
from test_distributions_more import same_moments_shapes_and_reprs

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch
D = mg.distributions

DTYPES = [(np.float32, mg.float32, torch.float32), (np.float64, mg.float64, torch.float64)]




def seed_both(seed: int) -> None:
    mg.manual_seed(seed)
    torch.manual_seed(seed)


# -- the op: binomial ------------------------------------------------------------------------------------------

def counts_and_probs(dt: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Both samplers on either side of p = 1/2: inversion (n p < 10) and BTRS (n p >= 10), and the edges."""
    rng = np.random.default_rng(seed)
    n = np.concatenate([rng.integers(0, 30, 10), rng.integers(20, 5000, 10), [0, 1, 5, 37, 50, 1000, 10**6, 12.5]])
    p = np.concatenate([rng.random(20), [0.5, 1.0, 0.0, 0.3, 0.7, 0.999, 0.01, 0.4]])
    return n.astype(dt), p.astype(dt)


@pytest.mark.parametrize("np_dt,mg_dt,t_dt", DTYPES)
def test_binomial_draws_pytorch_s_counts_bit_for_bit(np_dt: Any, mg_dt: Any, t_dt: Any) -> None:
    for seed in range(25):
        n, p = counts_and_probs(np_dt, seed)
        seed_both(seed)
        same_bits(mg.binomial(mg.tensor(n), mg.tensor(p)), torch.binomial(torch.from_numpy(n), torch.from_numpy(p)))
        same_generator_after()


def test_binomial_takes_a_generator_broadcasts_and_draws_row_major() -> None:
    n = np.array([[10.0, 200.0, 3.0], [40.0, 7.0, 900.0]])
    p = np.array([[0.2, 0.6, 0.9], [0.45, 0.05, 0.7]])
    g, tg = mg.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    for _ in range(3):
        same_bits(mg.binomial(mg.tensor(n), mg.tensor(p), generator=g),
                  torch.binomial(torch.tensor(n), torch.tensor(p), generator=tg))
    seed_both(1)
    same_bits(mg.binomial(mg.tensor(n).t(), mg.tensor(p).t()), torch.binomial(torch.tensor(n).t(), torch.tensor(p).t()))
    same_bits(mg.binomial(mg.tensor(n), mg.tensor(0.3, dtype=mg.float64)),
              torch.binomial(torch.tensor(n), torch.tensor(0.3, dtype=torch.float64)))
    same_bits(mg.binomial(mg.tensor([5.0, 0.0]), mg.tensor([float("nan"), 0.5])),
              torch.binomial(torch.tensor([5.0, 0.0]), torch.tensor([float("nan"), 0.5])))
    assert mg.binomial(mg.zeros(0, 3), mg.zeros(0, 3)).shape == (0, 3)
    same_generator_after()


def test_binomial_has_no_derivative_as_in_pytorch() -> None:
    errors = []
    for lib in (mg, torch):
        c = lib.tensor([3.0, 4.0], requires_grad=True)
        p = lib.tensor([0.2, 0.9], requires_grad=True)
        x = lib.binomial(c, p)
        assert x.requires_grad
        with pytest.raises(RuntimeError) as err:
            x.sum().backward()
        errors.append(str(err.value))
    assert errors[0].endswith(errors[1])


BINOMIAL_ERRORS: dict[str, Callable[[Any], Any]] = {
    "int count": lambda lib: lib.binomial(lib.tensor([1, 2]), lib.tensor([0.5, 0.5])),
    "int prob": lambda lib: lib.binomial(lib.tensor([1.0, 2.0]), lib.tensor([0, 1])),
    "dtypes differ": lambda lib: lib.binomial(lib.tensor([1.0]), lib.tensor([0.5], dtype=lib.float64)),
    "dtypes differ, double count": lambda lib: lib.binomial(lib.tensor([1.0], dtype=lib.float64), lib.tensor([0.5])),
    "half": lambda lib: lib.binomial(lib.tensor([1.0], dtype=lib.float16), lib.tensor([0.5], dtype=lib.float16)),
}


@pytest.mark.parametrize("case", sorted(BINOMIAL_ERRORS))
def test_binomial_errors_are_pytorch_s(case: str) -> None:
    with pytest.raises(Exception) as t_err:
        BINOMIAL_ERRORS[case](torch)
    with pytest.raises(type(t_err.value)) as m_err:
        BINOMIAL_ERRORS[case](mg)
    assert str(m_err.value) == str(t_err.value)


def test_binomial_refuses_a_non_tensor_and_a_bad_generator() -> None:
    with pytest.raises(TypeError, match=r"binomial\(\): argument 'count' \(position 0\) must be Tensor"):
        mg.binomial(1.0, mg.tensor(0.5))
    with pytest.raises(TypeError, match="generator"):
        mg.binomial(mg.ones(2), mg.ones(2), generator=3)


# -- the distributions ----------------------------------------------------------------------------------------

def lib_of(lib: Any) -> Any:
    return mg.distributions if lib is mg else torch.distributions


def tensor(lib: Any, values: Any, rg: bool = False) -> Any:
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64, requires_grad=rg)


def close(m: Any, t: Any, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(m.detach().numpy()), np.asarray(t.detach().numpy()), rtol=tol, atol=tol)


COV = [[[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 1.5]], [[1.0, 0.2, 0.0], [0.2, 0.8, 0.1], [0.0, 0.1, 2.0]]]
TRIL = [[1.2, 0.0, 0.0], [0.4, 0.9, 0.0], [-0.3, 0.2, 1.1]]
WISHART_VALUE = [[1.5, 0.3, -0.2], [0.3, 2.0, 0.4], [-0.2, 0.4, 1.2]]
LKJ_VALUE = [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.36, 0.48, 0.8]]

#: name -> (build(dist_module, params) -> distribution, parameter values, a value to score)
CASES: dict[str, tuple[Callable[..., Any], list[Any], Any]] = {
    "Binomial": (lambda d, p: d.Binomial(p[0], probs=p[1]), [[10.0, 10.0, 10.0], [0.1, 0.5, 0.93]],
                 [0.0, 4.0, 10.0]),
    "Binomial logits": (lambda d, p: d.Binomial(7, logits=p[0]), [[-1.5, 0.2, 3.0]], [1.0, 3.0, 7.0]),
    "NegativeBinomial": (lambda d, p: d.NegativeBinomial(p[0], probs=p[1]), [[0.7, 3.0, 12.5], [0.1, 0.5, 0.9]],
                         [0.0, 4.0, 31.0]),
    "NegativeBinomial logits": (lambda d, p: d.NegativeBinomial(p[0], logits=p[1]), [[2.0, 3.5, 40.0],
                                                                                      [-1.0, 0.3, 1.2]],
                                [2.0, 0.0, 80.0]),
    "Wishart covariance": (lambda d, p: d.Wishart(p[0], covariance_matrix=p[1]), [[3.5, 6.0], COV], WISHART_VALUE),
    "Wishart precision": (lambda d, p: d.Wishart(p[0], precision_matrix=p[1]), [[4.0], COV], WISHART_VALUE),
    "Wishart scale_tril": (lambda d, p: d.Wishart(p[0], scale_tril=p[1]), [5.0, TRIL], WISHART_VALUE),
    "LKJCholesky": (lambda d, p: d.LKJCholesky(3, p[0]), [[0.5, 1.0, 2.5]], LKJ_VALUE),
}


def build(name: str, lib: Any, rg: bool = True) -> tuple[Any, list[Any]]:
    make, params, _ = CASES[name]
    tensors = [tensor(lib, p, rg) for p in params]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (Wishart's "Low df values detected.")
        return make(lib_of(lib), tensors), tensors


def value(name: str, lib: Any) -> Any:
    return tensor(lib, CASES[name][2])


def _grads_equal(m_params: list[Any], t_params: list[Any], tol: float = 1e-10) -> None:
    for mp, tp in zip(m_params, t_params):
        assert (mp.grad is None) == (tp.grad is None)
        if tp.grad is not None:
            close(mp.grad, tp.grad, tol)


@pytest.mark.parametrize("method", ["log_prob", "entropy"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_scores_and_their_gradients_equal_pytorch(name: str, method: str) -> None:
    m_dist, m_params = build(name, mg)
    t_dist, t_params = build(name, torch)
    call = (lambda d, lib: d.entropy()) if method == "entropy" else (lambda d, lib: d.log_prob(value(name, lib)))
    try:
        t_out = call(t_dist, torch)
    except NotImplementedError:  # a method PyTorch's distribution lacks
        with pytest.raises(NotImplementedError):
            call(m_dist, mg)
        return
    m_out = call(m_dist, mg)
    close(m_out, t_out)
    assert m_out.grad_fn.name() == t_out.grad_fn.name()
    m_out.sum().backward()
    t_out.sum().backward()
    _grads_equal(m_params, t_params)


@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_shapes_and_reprs_equal_pytorch(name: str) -> None:
    m_dist, t_dist = build(name, mg, rg=False)[0], build(name, torch, rg=False)[0]
    same_moments_shapes_and_reprs(m_dist, t_dist)
    assert {k: str(v) for k, v in m_dist.arg_constraints.items()} == {
        k: str(v).replace("torch", "minigrad") for k, v in t_dist.arg_constraints.items()}
    assert (m_dist.has_rsample, m_dist.has_enumerate_support) == (t_dist.has_rsample, t_dist.has_enumerate_support)
    if hasattr(t_dist, "param_shape"):
        assert tuple(m_dist.param_shape) == tuple(t_dist.param_shape)


@pytest.mark.parametrize("expand", [True, False])
def test_binomial_enumerates_its_support_as_pytorch(expand: bool) -> None:
    m_dist, _ = build("Binomial", mg, rg=False)
    t_dist, _ = build("Binomial", torch, rg=False)
    same_bits(m_dist.enumerate_support(expand), t_dist.enumerate_support(expand))
    for lib in (mg, torch):
        odd = lib_of(lib).Binomial(lib.tensor([3.0, 4.0]), probs=lib.tensor([0.5, 0.5]))
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count not supported by `enumerate_support`"):
            odd.enumerate_support()
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count not supported by `entropy`"):
            odd.entropy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand_equals_pytorch(name: str) -> None:
    m_dist, _ = build(name, mg, rg=False)
    t_dist, _ = build(name, torch, rg=False)
    m_big, t_big = m_dist.expand((4, *m_dist.batch_shape)), t_dist.expand((4, *t_dist.batch_shape))
    assert type(m_big).__name__ == type(t_big).__name__
    assert (tuple(m_big.batch_shape), tuple(m_big.event_shape)) == (tuple(t_big.batch_shape),
                                                                    tuple(t_big.event_shape))
    close(m_big.log_prob(value(name, mg)), t_big.log_prob(value(name, torch)))
    seed_both(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m_draw, t_draw = m_big.sample((5,)), t_big.sample((5,))
    same_draw(m_draw, t_draw, name not in LAST_BITS_DIFFER)


#: draws whose shaping arithmetic rounds PyTorch's last bits differently: ``LKJCholesky`` normalises its normals
#: with ``norm``, which PyTorch's CPU kernel accumulates with fused multiply-adds (``sqrt(fma(c, c, fma(b, b, a a)))``)
#: and minigrad's ``norm`` does not; ``Wishart`` multiplies its factors with ``matmul`` (PyTorch's BLAS kernels round
#: differently from NumPy's). The Beta, chi-square and normal draws under them are PyTorch's bit for bit (the
#: generators end in the same state, and ``test_the_draws_under_a_wishart_draw_are_pytorch_s`` checks them).
LAST_BITS_DIFFER = {"LKJCholesky", "Wishart covariance", "Wishart precision", "Wishart scale_tril"}


def same_draw(m_draw: Any, t_draw: Any, exact: bool = True) -> None:
    """A draw is PyTorch's, bit for bit (or to the last bits where ``exact`` is false), and the generators are
    left in the same state."""
    assert str(m_draw.dtype).replace("minigrad", "torch") == str(t_draw.dtype)
    assert m_draw.requires_grad == t_draw.requires_grad
    if exact:
        same_bits(m_draw, t_draw)
    else:
        tol = 1e-14 if m_draw.dtype is mg.float64 else 1e-6
        np.testing.assert_allclose(m_draw.detach().numpy(), t_draw.detach().numpy(), rtol=tol, atol=tol)
    same_generator_after()


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seeded_draw_is_pytorch_s(name: str) -> None:
    m_dist, _ = build(name, mg)
    t_dist, _ = build(name, torch)
    for method in ("sample", "rsample") if t_dist.has_rsample else ("sample",):
        for shape in ((), (3,), (2, 2), (20,)):
            for seed in (0, 7, 123):
                seed_both(seed)
                with warnings.catch_warnings(record=True) as m_warned:
                    warnings.simplefilter("always")
                    m_draw = getattr(m_dist, method)(shape)
                with warnings.catch_warnings(record=True) as t_warned:
                    warnings.simplefilter("always")
                    t_draw = getattr(t_dist, method)(shape)
                assert [str(w.message) for w in m_warned] == [str(w.message) for w in t_warned]
                same_draw(m_draw, t_draw, name not in LAST_BITS_DIFFER)


@pytest.mark.parametrize("np_dt,mg_dt,t_dt", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_draw_in_either_dtype_is_pytorch_s_bit_for_bit(name: str, np_dt: Any, mg_dt: Any, t_dt: Any) -> None:
    make, params, _ = CASES[name]
    m_dist = make(D, [mg.tensor(np.asarray(p, np_dt)) for p in params])
    t_dist = make(torch.distributions, [torch.tensor(np.asarray(p, np_dt)) for p in params])
    seed_both(8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m_draw, t_draw = m_dist.sample((6,)), t_dist.sample((6,))
    same_draw(m_draw, t_draw, name not in LAST_BITS_DIFFER)


WISHARTS = sorted(n for n in CASES if n.startswith("Wishart"))


@pytest.mark.parametrize("name", WISHARTS)
def test_a_reparameterised_wishart_draw_sends_pytorch_s_gradients(name: str) -> None:
    """PyTorch 2.13's own ``rsample`` cannot be differentiated: its correction pass writes into the mask its
    ``index_put`` node saved ("modified by an inplace operation"). minigrad's can; its gradients are those of
    PyTorch's second Bartlett draw, the one ``rsample`` returns (and, without the pass, of its first)."""
    m_dist, m_params = build(name, mg)
    t_dist, t_params = build(name, torch)
    seed_both(11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m_draw = m_dist.rsample((5,))
        t_draw = t_dist.rsample((5,))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        t_draw.sum().backward()
    assert m_draw.grad_fn.name() == t_draw.grad_fn.name() == "IndexPutBackward0"
    seed_both(11)
    t_dist._bartlett_sampling((5,))
    t_draw = t_dist._bartlett_sampling((5,))
    (m_draw * m_draw).sum().backward()
    (t_draw * t_draw).sum().backward()
    _grads_equal(m_params, t_params, 1e-9)
    m_dist, m_params = build(name, mg)  # (a fresh graph from the parameters)
    t_dist, t_params = build(name, torch)
    seed_both(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m_draw, t_draw = m_dist.rsample((2, 3), max_try_correction=0), t_dist.rsample((2, 3), max_try_correction=0)
    (m_draw * m_draw).sum().backward()
    (t_draw * t_draw).sum().backward()
    _grads_equal(m_params, t_params, 1e-9)


@pytest.mark.parametrize("name", WISHARTS)
def test_the_draws_under_a_wishart_draw_are_pytorch_s(name: str) -> None:
    """Bartlett's factor ``A``: the chi-square draws (its diagonal) and the normals (below it), bit for bit."""
    factors = []
    for lib in (mg, torch):
        dist, _ = build(name, lib, rg=False)
        dist._unbroadcasted_scale_tril = lib.eye(3, dtype=lib.float64)  # (L A)(L A)^T is then A A^T: A is its
        lib.manual_seed(4)                                                # Cholesky factor
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            factors.append(lib.linalg.cholesky(dist.rsample((4,))))
    np.testing.assert_allclose(factors[0].numpy(), factors[1].numpy(), rtol=1e-13, atol=1e-14)
    seed_both(4)
    m_dist, _ = build(name, mg, rg=False)
    t_dist, _ = build(name, torch, rg=False)
    same_bits(m_dist._dist_chi2.rsample((4,)), t_dist._dist_chi2.rsample((4,)))
    same_generator_after()


# -- float64 finite differences -------------------------------------------------------------------------------

def _tril(raw: Any) -> Any:
    """A lower Cholesky factor from any square matrix: its lower part, the diagonal made positive."""
    return raw.tril(-1) + raw.diagonal(dim1=-2, dim2=-1).exp().diag_embed()


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return run


GRADCHECKS: dict[str, tuple[Callable[..., Any], list[Any]]] = {
    "Binomial log_prob": (lambda p: D.Binomial(10, probs=p).log_prob(mg.tensor([0.0, 3.0, 10.0], dtype=mg.float64)),
                          [[0.2, 0.5, 0.9]]),
    "Binomial logits entropy": (lambda l: D.Binomial(6, logits=l).entropy(), [[-1.0, 0.3, 2.0]]),
    "NegativeBinomial log_prob": (lambda r, l: D.NegativeBinomial(r, logits=l).log_prob(
        mg.tensor([0.0, 3.0, 17.0], dtype=mg.float64)), [[0.5, 2.0, 9.0], [-0.5, 0.1, 1.5]]),
    "NegativeBinomial mean, variance": (lambda r, p: (D.NegativeBinomial(r, probs=p).mean,
                                                      D.NegativeBinomial(r, probs=p).variance),
                                        [[0.5, 2.0, 9.0], [0.2, 0.5, 0.7]]),
    "Wishart log_prob": (lambda df, raw: D.Wishart(df, scale_tril=_tril(raw)).log_prob(
        mg.tensor(WISHART_VALUE, dtype=mg.float64)), [[3.5, 5.0], [[0.1, 0.0, 0.0], [0.4, -0.2, 0.0],
                                                                   [-0.3, 0.2, 0.3]]]),
    "Wishart entropy": (lambda df, cov: D.Wishart(df, covariance_matrix=cov @ cov.mT + mg.eye(3, dtype=mg.float64))
                        .entropy(), [[3.5, 7.0], TRIL]),
    "Wishart rsample": (lambda raw: (mg.manual_seed(5), D.Wishart(4.0, scale_tril=_tril(raw)).rsample((2,)))[1],
                        [[[0.1, 0.0, 0.0], [0.4, -0.2, 0.0], [-0.3, 0.2, 0.3]]]),
    "LKJCholesky log_prob": (lambda c: D.LKJCholesky(3, c).log_prob(mg.tensor(LKJ_VALUE, dtype=mg.float64)),
                             [[0.5, 1.0, 2.5]]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradients_match_finite_differences(name: str) -> None:
    fn, params = GRADCHECKS[name]
    assert gradcheck(_quiet(fn), [mg.tensor(np.asarray(p), dtype=mg.float64, requires_grad=True) for p in params])


# -- validation ------------------------------------------------------------------------------------------------

#: (build(dist_module, lib) -> distribution) whose validation fails, in either library
INVALID: dict[str, Callable[[Any, Any], Any]] = {
    "Binomial both": lambda d, lib: d.Binomial(3, probs=lib.tensor([0.5]), logits=lib.tensor([0.0])),
    "Binomial neither": lambda d, lib: d.Binomial(3),
    "Binomial count": lambda d, lib: d.Binomial(lib.tensor([2.5]), lib.tensor([0.5]), validate_args=True),
    "Binomial probs": lambda d, lib: d.Binomial(3, lib.tensor([1.5]), validate_args=True),
    "Binomial value": lambda d, lib: d.Binomial(3, lib.tensor([0.5]), validate_args=True).log_prob(
        lib.tensor([4.0])),
    "Binomial KL": lambda d, lib: d.kl_divergence(d.Binomial(3, lib.tensor([0.5])), d.Binomial(4, lib.tensor([0.5]))),
    "NegativeBinomial both": lambda d, lib: d.NegativeBinomial(3.0, lib.tensor([0.5]), lib.tensor([0.0])),
    "NegativeBinomial count": lambda d, lib: d.NegativeBinomial(lib.tensor([-1.0]), lib.tensor([0.5]),
                                                               validate_args=True),
    "NegativeBinomial probs": lambda d, lib: d.NegativeBinomial(2.0, lib.tensor([1.0]), validate_args=True),
    "NegativeBinomial value": lambda d, lib: d.NegativeBinomial(2.0, lib.tensor([0.5]), validate_args=True)
    .log_prob(lib.tensor([1.5])),
    "Wishart two": lambda d, lib: d.Wishart(3.0, covariance_matrix=lib.eye(2), scale_tril=lib.eye(2)),
    "Wishart 1-d": lambda d, lib: d.Wishart(3.0, covariance_matrix=lib.ones(2)),
    "Wishart df": lambda d, lib: d.Wishart(lib.tensor([3.0, 0.5]), covariance_matrix=lib.eye(2)),
    "Wishart df number": lambda d, lib: d.Wishart(1.0, covariance_matrix=lib.eye(3)),
    "Wishart covariance": lambda d, lib: d.Wishart(3.0, covariance_matrix=lib.tensor([[1.0, 2.0], [2.0, 1.0]]),
                                                   validate_args=True),
    "Wishart scale_tril": lambda d, lib: d.Wishart(3.0, scale_tril=lib.tensor([[1.0, 0.0], [2.0, -1.0]]),
                                                   validate_args=True),
    "Wishart value": lambda d, lib: d.Wishart(3.0, covariance_matrix=lib.eye(2), validate_args=True).log_prob(
        lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "LKJCholesky dim": lambda d, lib: d.LKJCholesky(1, 1.0),
    "LKJCholesky concentration": lambda d, lib: d.LKJCholesky(3, lib.tensor([0.0]), validate_args=True),
    "LKJCholesky value": lambda d, lib: d.LKJCholesky(2, 1.0, validate_args=True).log_prob(
        lib.tensor([[1.0, 0.0], [0.5, 0.5]])),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_validation_errors_are_pytorch_s(case: str) -> None:
    with pytest.raises(Exception) as t_err:
        INVALID[case](torch.distributions, torch)
    with pytest.raises(type(t_err.value)) as m_err:
        INVALID[case](D, mg)
    assert str(m_err.value).replace("minigrad", "torch") == str(t_err.value)


def test_a_low_df_warns_as_pytorch() -> None:
    for lib in (mg, torch):
        with pytest.warns(UserWarning, match=r"Low df values detected\. Singular samples are highly likely"):
            lib_of(lib).Wishart(lib.tensor([2.5]), covariance_matrix=lib.eye(3))


# -- KL divergences --------------------------------------------------------------------------------------------

def _kl_pairs(lib: Any) -> dict[str, tuple[Any, Any, list[Any]]]:
    d = lib_of(lib)
    prob, prob2 = tensor(lib, [0.2, 0.5, 0.93], True), tensor(lib, [0.6, 0.1, 0.5], True)
    rate = tensor(lib, [0.3, 2.5, 1.2], True)
    df, cov = tensor(lib, [3.5, 6.0], True), tensor(lib, COV, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "Binomial-Binomial": (d.Binomial(10, prob), d.Binomial(10, prob2), [prob, prob2]),
            "Binomial-Binomial, fewer": (d.Binomial(tensor(lib, [10.0, 8.0, 8.0]), prob),
                                         d.Binomial(tensor(lib, [10.0, 5.0, 8.0]), logits=prob2), [prob, prob2]),
            "Poisson-Binomial": (d.Poisson(rate), d.Binomial(5, prob), [rate]),
            "Wishart-Wishart": (d.Wishart(df, covariance_matrix=cov), d.Wishart(df + 1.0, precision_matrix=cov),
                                [df, cov]),
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


def test_edge_parameters_equal_pytorch() -> None:
    """A negative binomial of no failures (certain 0), an int ``total_count`` (cast to the parameter's dtype),
    probabilities 0 and 1, and float32 entropies (to float32's last bits: PyTorch's sum rounds its own way)."""
    out = []
    for lib in (mg, torch):
        d = lib_of(lib)
        lib.manual_seed(2)
        nb = d.NegativeBinomial(lib.tensor([0.0, 2.0]), probs=lib.tensor([0.3, 0.4]))
        b = d.Binomial(lib.tensor([5, 7]), probs=lib.tensor([0.3, 0.4]))
        edge = d.Binomial(lib.tensor([5.0]), probs=lib.tensor([0.0, 1.0]))
        out.append([nb.sample((3,)), nb.log_prob(lib.tensor([0.0, 1.0])), b.sample(), b.mode, b.total_count,
                    edge.log_prob(lib.tensor([0.0, 5.0])), edge.sample((2,))])
        out[-1].append(d.Binomial(10, logits=lib.tensor([-3.0, 0.0, 3.0])).entropy())
    for m, t in zip(out[0][:-1], out[1][:-1]):
        same_bits(m, t)
    np.testing.assert_allclose(out[0][-1].numpy(), out[1][-1].numpy(), rtol=1e-6)
