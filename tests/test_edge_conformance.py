"""Regression tests for answers that disagreed with PyTorch at the edges (conformance).

Each case was found by running PyTorch's own OpInfo sample inputs: NaN inputs (sign, abs, relu,
maximum, minimum), pow's exponent gradient at a zero or negative base, ``nll_loss`` on
``(N, C, d1, ...)`` input, reductions with ``dim`` on a 0-d tensor, ``squeeze``/``transpose`` of a
0-d tensor, ``softmax`` over an empty axis, ``flatten`` of a zero-size tensor and ``logsumexp`` of
an empty tensor. The expected values are written out (PyTorch 2.13's answers), so these tests run
without torch; where torch is installed the same calls are also compared with it directly.
Gradients away from the special points are checked by float64 central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from tests.gradcheck import gradcheck

NAN, INF = float("nan"), float("inf")


def _grads(fn, *values):
    """``fn``'s output and the gradients of ``out.sum()`` w.r.t. each float64 input."""
    ts = [mg.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
    out = fn(*ts)
    out.sum().backward()
    return out.detach().numpy(), [t.grad.detach().numpy() for t in ts]


def _torch_grads(name, *values):
    torch = pytest.importorskip("torch")
    ts = [torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
    out = getattr(torch, name)(*ts)
    out.sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


# -- NaN: values and gradients as PyTorch's --------------------------------------------------------

NAN_CASES = {
    # op: (inputs, expected output, expected gradients)
    "sign": (([NAN, 1.0, -2.0, 0.0],), [0.0, 1.0, -1.0, 0.0], [[0.0, 0.0, 0.0, 0.0]]),
    "abs": (([NAN, 1.0, -2.0, 0.0],), [NAN, 1.0, 2.0, 0.0], [[0.0, 1.0, -1.0, 0.0]]),
    "relu": (([NAN, 1.0, -2.0, 0.0],), [NAN, 1.0, 0.0, 0.0], [[1.0, 1.0, 0.0, 0.0]]),
    "maximum": (([NAN, 1.0, 2.0, 3.0], [0.0, NAN, 2.0, 1.0]), [NAN, NAN, 2.0, 3.0],
                [[1.0, 1.0, 0.5, 1.0], [1.0, 1.0, 0.5, 0.0]]),
    "minimum": (([NAN, 1.0, 2.0, 3.0], [0.0, NAN, 2.0, 1.0]), [NAN, NAN, 2.0, 1.0],
                [[1.0, 1.0, 0.5, 0.0], [1.0, 1.0, 0.5, 1.0]]),
    # max() and min() of all elements share the gradient among the NaNs (PyTorch's evenly_distribute_backward,
    # found by the fuzzer); amax finds no element equal to a NaN: 0 / 0 everywhere
    "max": (([1.0, NAN, 2.0, NAN],), NAN, [[0.0, 0.5, 0.0, 0.5]]),
    "min": (([1.0, NAN, 2.0],), NAN, [[0.0, 1.0, 0.0]]),
    "amax": (([1.0, NAN, 2.0, NAN],), NAN, [[NAN, NAN, NAN, NAN]]),
}


def test_relu_keeps_negative_zero_as_torch():
    """PyTorch's relu is ``clamp_min(x, 0)``: -0.0 stays -0.0 (NumPy's ``maximum(-0.0, 0)`` is +0.0), so
    ``1 / relu(x)`` is -inf there (found by the fuzzer)."""
    x = mg.tensor([-0.0, 0.0, -1.0, NAN], dtype=mg.float64)
    for out in (mg.relu(x), x.clone().relu_()):
        assert np.signbit(out.numpy()).tolist() == [True, False, False, False]
        assert (1 / out).tolist()[:3] == [-INF, INF, INF]


@pytest.mark.parametrize("name", sorted(NAN_CASES))
def test_nan_values_and_gradients(name):
    inputs, want_out, want_grads = NAN_CASES[name]
    out, grads = _grads(getattr(mg, name), *inputs)
    np.testing.assert_array_equal(out, want_out)
    for g, want in zip(grads, want_grads):
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("name", sorted(NAN_CASES))
def test_nan_cases_match_torch(name):
    inputs = NAN_CASES[name][0]
    out, grads = _grads(getattr(mg, name), *inputs)
    t_out, t_grads = _torch_grads(name, *inputs)
    np.testing.assert_array_equal(out, t_out)
    for g, tg in zip(grads, t_grads):
        np.testing.assert_array_equal(g, tg)


def test_maximum_minimum_relu_gradients_by_finite_differences():
    rng = np.random.default_rng(0)
    a = mg.tensor(rng.normal(size=(3, 4)), dtype=mg.float64, requires_grad=True)
    b = mg.tensor(rng.normal(size=(4,)), dtype=mg.float64, requires_grad=True)
    assert gradcheck(mg.maximum, [a, b])
    assert gradcheck(mg.minimum, [a, b])
    assert gradcheck(mg.relu, [a])


# -- pow's gradient w.r.t. the exponent ------------------------------------------------------------

POW_BASES = [-2.0, 0.0, 0.0, 0.0, 2.0, -1.5]
POW_EXPONENTS = [2.0, -1.0, 2.0, 0.0, 0.5, 3.0]
# PyTorch: 0 where base == 0 and exponent >= 0, else base**y * log(base) (nan for a negative base,
# inf * -inf = -inf for 0**-1).
POW_GRAD_Y = [NAN, -INF, 0.0, 0.0, 2.0**0.5 * np.log(2.0), NAN]


def test_pow_exponent_gradient_at_zero_and_negative_bases():
    _, (gx, gy) = _grads(mg.pow, POW_BASES, POW_EXPONENTS)
    np.testing.assert_allclose(gy, POW_GRAD_Y, rtol=1e-12)
    if _has_torch():
        _, (t_gx, t_gy) = _torch_grads("pow", POW_BASES, POW_EXPONENTS)
        np.testing.assert_allclose(gy, t_gy, rtol=1e-12)
        np.testing.assert_allclose(gx, t_gx, rtol=1e-12)


def test_pow_gradients_by_finite_differences():
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.uniform(0.5, 2.0, size=(3, 2)), dtype=mg.float64, requires_grad=True)
    y = mg.tensor(rng.uniform(-2.0, 2.0, size=(2,)), dtype=mg.float64, requires_grad=True)
    assert gradcheck(mg.pow, [x, y])


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


# -- nll_loss on (N, C, d1, ...) ------------------------------------------------------------------


def _nll_case():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 2, 2))
    t = rng.integers(0, 3, size=(2, 2, 2))
    return x, t


def _nll_reference(x, t, reduction):
    picked = -np.take_along_axis(x, t[:, None], axis=1)[:, 0]
    return {"none": picked, "sum": picked.sum(), "mean": picked.mean()}[reduction]


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_on_nd_input(reduction):
    x, t = _nll_case()
    out = F.nll_loss(mg.tensor(x), mg.tensor(t), reduction=reduction)
    want = _nll_reference(x, t, reduction)
    assert out.shape == np.shape(want)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    if _has_torch():
        import torch

        t_out = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t), reduction=reduction)
        np.testing.assert_allclose(out.numpy(), t_out.numpy(), rtol=1e-12)


def test_nll_loss_nd_gradient_and_unbatched_form():
    x, t = _nll_case()
    xt = mg.tensor(x, dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda a: F.nll_loss(a, mg.tensor(t), reduction="none"), [xt])
    one = F.nll_loss(mg.tensor(x[0, :, 0, 0]), mg.tensor(np.int64(t[0, 0, 0])))
    np.testing.assert_allclose(one.numpy(), -x[0, t[0, 0, 0], 0, 0])


def test_nll_loss_rejects_mismatched_target():
    x, t = _nll_case()
    with pytest.raises(ValueError, match=r"nll_loss\(\).*target"):
        F.nll_loss(mg.tensor(x), mg.tensor(t[:, :1]))
    with pytest.raises(ValueError, match=r"^avg is not a valid value for reduction$"):
        F.nll_loss(mg.tensor(x), mg.tensor(t), reduction="avg")


# -- 0-d tensors: reductions with dim, squeeze, transpose -----------------------------------------


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "amax", "amin", "logsumexp"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_with_dim_on_0d_tensor(name, dim, keepdim):
    x = mg.tensor(1.5, dtype=mg.float64, requires_grad=True)
    out = getattr(mg, name)(x, dim=dim, keepdim=keepdim)
    values = out[0] if isinstance(out, tuple) else out
    assert values.shape == ()
    assert values.item() == 1.5
    values.backward()
    assert x.grad.item() == 1.0
    if isinstance(out, tuple):  # max/min with dim: (values, indices)
        assert out[1].item() == 0


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_with_dim_on_0d_tensor(name):
    out = getattr(mg, name)(mg.tensor(1.5, dtype=mg.float64), dim=0)
    assert out.shape == () and np.isnan(out.item())  # one value, correction 1: 0/0 as in PyTorch
    assert getattr(mg, name)(mg.tensor(1.5, dtype=mg.float64), dim=0, correction=0).item() == 0.0


@pytest.mark.parametrize("dim", [1, -2])
def test_reduction_on_0d_tensor_still_checks_dim(dim):
    with pytest.raises(ValueError, match=r"^Dimension out of range"):
        mg.mean(mg.tensor(1.5), dim=dim)
    with pytest.raises(ValueError, match=r"^Dimension out of range"):
        mg.var(mg.tensor(1.5), dim=dim)


def test_squeeze_and_transpose_of_0d_tensor():
    x = mg.tensor(2.5, dtype=mg.float64, requires_grad=True)
    for out in (x.squeeze(0), x.squeeze(-1), x.squeeze(), x.transpose(0, -1), x.transpose(0, 0)):
        assert out.shape == () and out.item() == 2.5
    (x.squeeze(0) * 2 + x.transpose(0, -1)).backward()
    assert x.grad.item() == 3.0
    with pytest.raises(ValueError, match=r"^Dimension out of range"):
        x.transpose(0, 1)


# -- empty and zero-size tensors ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_over_an_empty_axis(name):
    x = mg.tensor(np.zeros((2, 0)), dtype=mg.float64, requires_grad=True)
    out = getattr(mg, name)(x, dim=1)
    assert out.shape == (2, 0)
    out.sum().backward()
    assert x.grad.shape == (2, 0)


def test_flatten_of_a_zero_size_tensor():
    x = mg.tensor(np.zeros((0, 3, 2)), dtype=mg.float64)
    assert x.flatten(1).shape == (0, 6)
    assert x.flatten(0, 1).shape == (0, 2)
    assert x.flatten().shape == (0,)
    assert mg.tensor(np.zeros((2, 0, 3))).flatten(1).shape == (2, 0)


def test_logsumexp_of_an_empty_tensor_is_minus_inf():
    x = mg.tensor(np.zeros((0,)), dtype=mg.float64, requires_grad=True)
    out = mg.logsumexp(x, dim=0)
    assert out.shape == () and out.item() == -INF
    out.backward()
    assert x.grad.shape == (0,)
    np.testing.assert_array_equal(mg.logsumexp(mg.tensor(np.zeros((2, 0))), dim=1).numpy(), [-INF, -INF])
    assert mg.logsumexp(mg.tensor(np.zeros((0, 3))), dim=0, keepdim=True).shape == (1, 3)


def test_max_of_an_empty_tensor_still_raises():
    with pytest.raises(IndexError, match=r"^max\(\): Expected reduction dim 0 to have non-zero size\.$"):
        mg.max(mg.tensor(np.zeros((0,))), dim=0)


# -- div(rounding_mode="floor") where a / b rounds up to an integer -------------------------------


def test_floor_division_works_from_the_remainder():
    a = mg.tensor([-0.25, 0.25, -1.0, 1.0, 5.0, -7.5, INF, NAN], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([-0.001, 0.001, -0.001, 0.001, 2.0, 2.0, 2.0, 1.0], dtype=mg.float64)
    out = mg.div(a, b, rounding_mode="floor")
    # 0.25 / 0.001 is 250.0 in floating point, but 0.25 = 249 * 0.001 + a remainder (NumPy's floor_divide).
    np.testing.assert_array_equal(out.detach().numpy(), [249.0, 249.0, 999.0, 999.0, 2.0, -4.0, NAN, NAN])
    out.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(8))


# -- var / std at the edges: PyTorch's var_backward and std_backward --------------------------------------

_VAR_EDGES = [  # (call, input, PyTorch 2.13's value, its gradient of value.sum())
    ("std of a constant", lambda x: x.std(), [2.0, 2.0, 2.0], 0.0, [0.0, 0.0, 0.0]),
    ("std over dim, one row constant", lambda x: x.std(1), [[1.0, 1.0], [1.0, 3.0]], [0.0, 2 ** 0.5],
     [[0.0, 0.0], [-(0.5 ** 0.5), 0.5 ** 0.5]]),
    ("var of one element", lambda x: x.var(), [1.5], NAN, [NAN]),
    ("var of one NaN", lambda x: x.var(), [NAN], NAN, [INF]),
    ("var over dim with no dof", lambda x: x.var(0), [[1.0, 2.0]], [NAN, NAN], [[NAN, NAN]]),
    ("var with correction > N over dim", lambda x: x.var(1, correction=3), [[1.0, 2.0]], [INF], [[1.0, -1.0]]),
    ("var of a 0-d", lambda x: x.var(), 4.0, NAN, NAN),
]


@pytest.mark.parametrize("case", _VAR_EDGES, ids=[c[0] for c in _VAR_EDGES])
def test_var_and_std_gradients_are_pytorchs_where_no_degree_of_freedom_is_left(case, recwarn):
    _, fn, value, out, grad = case
    x = mg.tensor(np.asarray(value, dtype=np.float64), requires_grad=True)
    y = fn(x)
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), np.asarray(out))
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(grad), rtol=1e-12)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(np.asarray(value, dtype=np.float64), requires_grad=True)
    ty = fn(tx)
    ty.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__


def test_var_warns_as_pytorch_naming_the_programs_line():
    x = mg.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match=r"^std\(\): degrees of freedom is <= 0\. Correction should be strictly less "
                      r"than the reduction factor \(input numel divided by output numel\)\.$") as caught:
        x.std(correction=2)
    assert [w.category for w in caught] == [UserWarning]  # PyTorch's one warning, no NumPy divide-by-zero
    assert caught[0].filename == __file__
    with pytest.warns(UserWarning, match=r"^var\(\): degrees of freedom"):
        mg.var(mg.zeros(2, 0), 1)  # no element per output: PyTorch warns too
    with pytest.raises(RuntimeError, match=r"^std and var only support floating point and complex dtypes$"):
        mg.tensor([1, 2]).var()


def test_a_nan_gradient_of_max_of_all_elements_stays_at_the_max_on_the_cpu():
    """PyTorch's CPU ``evenly_distribute_backward`` fills the share where the max is and zeros elsewhere, so a
    NaN gradient (here ``var`` of one value) reaches the max only; its CUDA path multiplies by the mask
    (NaN everywhere), which minigrad's GPU follows."""
    x = mg.tensor([1.0, 3.0], dtype=mg.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        x.max().reshape(()).var().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, NAN])


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("kw", [{"weight": [0.5, 2.0, 1.0, 3.0]}, {"label_smoothing": 0.1}, {}], ids=["weight", "smooth", "plain-nd"])
def test_every_target_ignored_gives_a_nan_loss_and_a_zero_gradient_as_pytorch(loss, kw):
    torch = pytest.importorskip("torch")
    if loss == "nll_loss" and "label_smoothing" in kw:
        pytest.skip("nll_loss has no label smoothing")
    x = np.random.default_rng(0).normal(size=(3, 4, 2) if not kw else (3, 4))
    t = np.full((3, 2) if not kw else (3,), -100)
    mine, theirs = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = getattr(F, loss)(mine, mg.tensor(t), **{k: mg.tensor(v, dtype=mg.float64) if isinstance(v, list) else v
                                                   for k, v in kw.items()})
    ref = getattr(torch.nn.functional, loss)(theirs, torch.tensor(t), **{
        k: torch.tensor(v, dtype=torch.float64) if isinstance(v, list) else v for k, v in kw.items()})
    out.backward()
    ref.backward()
    assert np.isnan(out.item()) and np.isnan(ref.item())
    np.testing.assert_array_equal(mine.grad.numpy(), theirs.grad.numpy())  # zeros, not NaN


def test_a_class_weight_that_requires_grad_is_refused_as_pytorch():
    x, t, w = mg.randn(3, 4), mg.tensor([0, 1, 2]), mg.rand(4, requires_grad=True)
    for fn in (lambda: F.cross_entropy(x, t, weight=w), lambda: F.nll_loss(x, t, weight=w)):
        with pytest.raises(RuntimeError, match=r"^The function 'nll_loss_forward' is not differentiable with respect to "
                                               r"argument 'weight'\. This input cannot have requires_grad True\.$"):
            fn()
    with mg.no_grad():
        F.cross_entropy(x, t, weight=w)  # under no_grad nothing is refused, as in PyTorch


@pytest.mark.parametrize("eps", [None, 0.1, 0.0, -0.5])
def test_logit_clamps_only_for_a_non_negative_eps_as_torch(eps):
    """PyTorch passes ``eps.value_or(-1)`` and clamps into ``[eps, 1 - eps]`` for ``eps >= 0`` only: a negative
    eps is no eps (values, and a NaN gradient outside [0, 1]). minigrad clamped into [-0.5, 1.5]."""
    torch = pytest.importorskip("torch")
    x = np.array([-0.2, 0.0, 0.3, 0.5, 0.99, 1.0, 1.3, np.nan])
    got = []
    for lib in (torch, mg):
        a = lib.tensor(x, requires_grad=True)
        lib.logit(a, eps).sum().backward()
        got.append((lib.logit(a.detach(), eps).numpy(), a.grad.numpy()))
    np.testing.assert_allclose(got[1][0], got[0][0], equal_nan=True)
    # At a NaN input with an eps, PyTorch's gradient depends on the CPU its vectorised kernel runs on (0 on an
    # AVX2 machine, NaN on the AVX512 ones before, as its scalar formula gives): minigrad's is NaN, the
    # scalar formula's; every other point must equal PyTorch's.
    finite = ~np.isnan(x)
    np.testing.assert_allclose(got[1][1][finite], got[0][1][finite], equal_nan=True)
    assert np.isnan(got[1][1][~finite]).all() and (np.isnan(got[0][1][~finite]) | (got[0][1][~finite] == 0)).all()


@pytest.mark.parametrize("name", ["elu", "celu", "selu", "hardtanh", "relu6"])
def test_activations_pass_the_gradient_at_nan_as_torch(name):
    """PyTorch's ``elu_backward`` tests ``x <= 0`` and ``hardtanh_backward`` ``x <= min or x >= max``: at NaN
    neither holds, so the gradient passes (times ``selu``'s scale). minigrad's gave NaN and 0 (found by the
    fuzzer: an ``elu`` of a ``var`` with no degree of freedom)."""
    x = [NAN, -1.0, 0.0, 1.0, 7.0]
    out, (g,) = _grads(getattr(F, name), x)
    scale = 1.0507009873554804 if name == "selu" else 1.0
    assert g[0] == scale  # the seed of out.sum(), passed through
    torch = pytest.importorskip("torch")
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    getattr(torch.nn.functional, name)(t).sum().backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_a_weighted_nll_loss_ignores_a_nan_in_an_ignored_row_as_torch(reduction):
    """An ignored row adds nothing whatever its input: not ``0 * NaN`` (found by the fuzzer: label smoothing's
    log-probabilities of a single ``-inf`` logit are NaN)."""
    x, t, w = [[NAN, 1.0], [0.5, -0.25]], [0, 1], [1.0, 2.0]
    got = F.nll_loss(mg.tensor(x), mg.tensor(t), weight=mg.tensor(w), ignore_index=0, reduction=reduction)
    assert got.tolist() == ([0.0, 0.5] if reduction == "none" else 0.5 if reduction == "sum" else 0.25)
    torch = pytest.importorskip("torch")
    want = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor(t), weight=torch.tensor(w), ignore_index=0,
                                        reduction=reduction)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("kind", ["ties", "nan", "-inf"])
@pytest.mark.parametrize("args", [(2, 2, 0, 1, False), (3, 2, 1, 1, True), (3, 1, 1, 2, False), (2, 3, 1, 2, True),
                                  (2, 3, 1, 3, True), (3, 2, 0, 2, True)])
def test_pooling_indices_are_pytorchs_first_maximum(args, kind):
    """``max_pool2d``/``adaptive_max_pool2d`` with ``return_indices``: the first maximum of each window in PyTorch's
    order, a NaN first, never a padding position (an all ``-inf`` window points at its first element)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, (2, 2, 7, 6)).astype(np.float64)
    if kind == "nan":
        x[0, 1, 2, 2] = x[1, 0, 5, 4] = NAN
    elif kind == "-inf":
        x[:] = -INF
        x[0, 0, 3, 3] = 1.0
    k, s, p, d, ceil = args
    mv, mi = F.max_pool2d(mg.tensor(x), k, s, p, d, ceil, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, p, d, ceil, return_indices=True)
    assert mi.tolist() == ti.tolist()
    np.testing.assert_array_equal(mv.numpy(), tv.numpy())
    mv, mi = F.adaptive_max_pool2d(mg.tensor(x), (k + 1, s + 2), return_indices=True)
    tv, ti = torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), (k + 1, s + 2), return_indices=True)
    assert mi.tolist() == ti.tolist()


@pytest.mark.parametrize("kind", ["ties", "nan", "-inf"])
@pytest.mark.parametrize("args", [(2, 2, 0, 1, False), (3, 2, 1, 1, True), (3, 1, 1, 2, False), (2, 3, 1, 2, True),
                                  (2, 3, 1, 3, True), (3, 2, 0, 2, True)])
def test_pooling_gradient_goes_to_the_first_maximum_as_pytorchs(args, kind):
    """The gradient of each window goes to its first maximum only, as PyTorch's: with dilation or ceil_mode
    ``max_pool2d`` and every ``adaptive_max_pool2d`` were ``amax`` of the windows, whose gradient is shared among
    ties (the zeros after a ReLU)."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).integers(0, 3, (2, 2, 7, 6)).astype(np.float64)
    if kind == "nan":
        x[0, 1, 2, 2] = NAN
    elif kind == "-inf":
        x[:] = -INF
        x[0, 0, 3, 3] = 1.0
    k, s, p, d, ceil = args
    calls = [lambda f, t: f.max_pool2d(t, k, s, p, d, ceil), lambda f, t: f.adaptive_max_pool2d(t, (k + 1, s + 2))]
    for call in calls:
        grads = []
        for lib, f in ((mg, F), (torch, torch.nn.functional)):
            t = lib.tensor(x, requires_grad=True)
            out = call(f, t)
            (out * lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))).sum().backward()
            grads.append(t.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


# -- index_copy, index_add and index_fill: which indices each takes, and its words for the rest ---------

INDEX_RANGE_CASES = {  # PyTorch 2.13's answers: index_copy and index_add refuse a negative index, index_fill
    # counts it from the end
    "index_copy -1": (lambda x, i: x.index_copy(0, i, mg.ones(2, 2)), [-1, 0],
                      (IndexError, "index_copy_(): index -1 is out of bounds for dimension 0 with size 3")),
    "index_copy 3": (lambda x, i: x.index_copy(0, i, mg.ones(2, 2)), [3, 0],
                     (IndexError, "index_copy_(): index 3 is out of bounds for dimension 0 with size 3")),
    "index_add -1": (lambda x, i: x.index_add(0, i, mg.ones(2, 2)), [0, -1],
                     (RuntimeError, "index -1 is out of bounds for dimension 0 with size 3")),
    "index_fill -4": (lambda x, i: x.index_fill(0, i, 1.0), [-4],
                      (IndexError, "index -4 is out of bounds for dimension 0 with size 3")),
    "index_fill -3": (lambda x, i: x.index_fill(0, i, 1.0), [-3], [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]),
}


@pytest.mark.parametrize("name", sorted(INDEX_RANGE_CASES))
def test_index_writes_take_pytorchs_indices(name):
    fn, index, expected = INDEX_RANGE_CASES[name]
    x = mg.zeros(3, 2, requires_grad=True) * 1
    if isinstance(expected, tuple):
        with pytest.raises(expected[0], match=f"^{expected[1]}$".replace("(", r"\(").replace(")", r"\)")):
            fn(x, mg.tensor(index))
    else:
        assert fn(x, mg.tensor(index)).tolist() == expected


COV_CASES = {
    "plain": {},
    "no correction": {"correction": 0},
    "frequency weights": {"fweights": [1, 2, 1, 1, 3]},
    "observation weights": {"aweights": [0.5, 1.0, 0.25, 2.0, 0.1]},
    "both, correction 2": {"correction": 2, "fweights": [1, 2, 1, 1, 3], "aweights": [0.5, 1.0, 0.25, 2.0, 0.1]},
}


@pytest.mark.parametrize("rows", [3, 1, None])
@pytest.mark.parametrize("name", sorted(COV_CASES))
def test_cov_and_corrcoef_values_and_gradients_as_pytorchs(name, rows):
    """``cov`` (weights float64, as the input) and ``corrcoef``: values and the gradients of the input and of
    the observation weights equal PyTorch's, for a matrix, one row and a vector."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).standard_normal((3, 5))
    x = x[0] if rows is None else x[:rows]
    results = []
    for lib in (mg, torch):
        t = lib.tensor(x, requires_grad=True)
        kw = {k: (lib.tensor(v, dtype=lib.float64, requires_grad=True) if k == "aweights" else lib.tensor(v))
              if isinstance(v, list) else v for k, v in COV_CASES[name].items()}
        out = lib.cov(t, **kw)
        (out * out).sum().backward()
        grads = [t.grad.numpy()] + ([kw["aweights"].grad.numpy()] if "aweights" in kw else [])
        results.append((out.detach().numpy(), lib.corrcoef(t).detach().numpy(), *grads))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
