"""torch.special's last functions - the Bessel functions ``bessel_j0/j1/y0/y1``, ``modified_bessel_k0/k1`` and
their scaled forms, ``airy_ai`` (``ops/special_bessel.py``), the Hurwitz ``zeta`` and the incomplete gamma
functions ``gammainc``/``gammaincc`` = ``torch.igamma``/``igammac`` with their Tensor methods
(``ops/incomplete_gamma.py``) - each against PyTorch: values (edge values included), dtypes, shapes, ``grad_fn``
names, gradients, errors (class and words).

Where PyTorch 2.13's own CPU kernel is off the true function (``J0``, ``J1``, ``Y0``, ``Y1`` between 2 and 20 and
``Ai`` below -2.09 by 1e-8 to 1e-4 relative; ``P``/``Q`` of tiny ``a`` and near ``x = a`` for ``a >= 1e4`` by up to
1e-7), the values are checked against mpmath at 30 digits instead, and the tests say so.

(tests/test_ops_grad.py checks the formulas against finite differences, tests/test_grad_fn_names.py the whole
graphs, tests/test_conformance.py PyTorch's OpInfo samples.)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
EDGES = np.array([0.0, -0.0, 1e-310, -1e-310, 1e-8, 0.5, -0.5, 1.0, -1.0, 1.999, 2.0, -2.0, 20.0, 25.0, 31.0, -38.0,
                  1e3, -1e3, 1e10, 1e300, -1e300, np.inf, -np.inf, np.nan])
WIDE = np.concatenate([RNG.standard_normal(300) * 12, np.linspace(-60, 60, 241), EDGES])
MIDDLE = np.concatenate([np.linspace(2.0, 20.0, 181)[1:-1], RNG.random(60) * 18 + 2])  # PyTorch's J/Y are off here
BESSEL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai"]


def _name(t: Any) -> str | None:
    return None if t.grad_fn is None else t.grad_fn.name()


def _values(fn: Callable[..., Any], *arrays: np.ndarray, dtype: str = "float64", rtol: float = 1e-12,
            atol: float = 0.0) -> None:
    """``fn(lib, *tensors)`` of both libraries: equal values (NaN for NaN), dtype and shape."""
    want = fn(torch, *[torch.tensor(a, dtype=getattr(torch, dtype)) for a in arrays])
    got = fn(mg, *[mg.tensor(a, dtype=getattr(mg, dtype)) for a in arrays])
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _true(name: str, x: float) -> float:
    """mpmath's value at 30 digits, rounded to float64."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 30
    fns = {"bessel_j0": lambda v: mpmath.besselj(0, v), "bessel_j1": lambda v: mpmath.besselj(1, v),
           "bessel_y0": lambda v: mpmath.bessely(0, v), "bessel_y1": lambda v: mpmath.bessely(1, v),
           "airy_ai": mpmath.airyai}
    return float(fns[name](mpmath.mpf(x)))


# -- the Bessel and Airy functions ----------------------------------------------------------------------------------

def _where_pytorch_is_accurate(name: str, data: np.ndarray) -> np.ndarray:
    if name.startswith("bessel"):
        return data[~((np.abs(data) > 1.999) & (np.abs(data) < 20.0))]
    if name == "airy_ai":
        return data[~((data > -10.0) & (data < -2.09))]
    return data


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_values_are_pytorchs(name: str) -> None:
    """0, -0, subnormal, huge, infinite and NaN arguments, negative ones (NaN for Y and K, odd J1); within 1e-12
    relative, or 2e-16 absolute near a zero of the function."""
    data = _where_pytorch_is_accurate(name, WIDE)
    _values(lambda lib, x: getattr(lib.special, name)(x), data, rtol=1e-12, atol=2e-16)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"])
def test_bessel_values_between_2_and_20_are_the_true_ones(name: str) -> None:
    """PyTorch 2.13's kernels are off there by up to 1e-4 relative: minigrad's values are mpmath's (3e-16
    absolute), and PyTorch's are not (a documented difference)."""
    got = getattr(mg.special, name)(mg.tensor(MIDDLE, dtype=mg.float64)).numpy()
    true = np.array([_true(name, v) for v in MIDDLE])
    np.testing.assert_allclose(got, true, rtol=1e-13, atol=4e-16)
    theirs = getattr(torch.special, name)(torch.tensor(MIDDLE)).numpy()
    assert np.max(np.abs(theirs - true)) > 1e-9


def test_airy_ai_between_minus_10_and_minus_2_is_the_true_one() -> None:
    x = np.concatenate([np.linspace(-10.0, -2.09, 80), RNG.random(40) * -8 - 2.1])
    got = mg.special.airy_ai(mg.tensor(x, dtype=mg.float64)).numpy()
    np.testing.assert_allclose(got, [_true("airy_ai", v) for v in x], rtol=1e-13, atol=2e-15)


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_float32_and_integer_inputs(name: str) -> None:
    """float32 (PyTorch computes in float32, minigrad in float64 rounded once: up to 1e4, where PyTorch's float32
    phase ``x - pi/4`` still has digits), and integers in the default float."""
    data = _where_pytorch_is_accurate(name, WIDE[(np.abs(WIDE) < 1e4) | ~np.isfinite(WIDE)])
    data = data[~(data < -10)] if name == "airy_ai" else data  # (its float32 phase zeta + pi/4 has lost digits)
    _values(lambda lib, x: getattr(lib.special, name)(x), data, dtype="float32", rtol=2e-5, atol=2e-7)
    _values(lambda lib, x: getattr(lib.special, name)(x), np.array([0, 1, -1, 30]), dtype="int64", rtol=2e-6,
            atol=1e-7)
    _values(lambda lib, x: getattr(lib.special, name)(x), np.array([True, False]), dtype="bool", rtol=2e-6)


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_functions_have_no_derivative_as_pytorchs(name: str) -> None:
    for lib in (torch, mg):
        out = getattr(lib.special, name)(lib.tensor([0.5, 3.0], requires_grad=True))
        assert not out.requires_grad and out.grad_fn is None


def test_bessel_shapes() -> None:
    _values(lambda lib, x: lib.special.bessel_y1(x), np.abs(RNG.standard_normal((2, 3, 4))) * 30 + 20)
    _values(lambda lib, x: lib.special.airy_ai(x), np.array(1.5))
    _values(lambda lib, x: lib.special.modified_bessel_k1(x), np.zeros((0, 3)))


def test_airy_ai_and_k_at_their_ends() -> None:
    """Ai: 0 above 103.892 (its subnormal tail too), NaN at both infinities; K: 0 where e^-x underflows."""
    _values(lambda lib, x: lib.special.airy_ai(x), np.array([103.0, 103.892, 103.9, 200.0, np.inf, -np.inf]),
            rtol=1e-10)
    _values(lambda lib, x: lib.special.modified_bessel_k0(x), np.array([700.0, 745.0, 800.0, np.inf]), rtol=1e-12)


# -- zeta ----------------------------------------------------------------------------------------------------------

ZX, ZQ = np.meshgrid(np.array([1.0, 1.0001, 1.5, 2.0, 2.5, 3.0, 4.0, 7.0, 10.0, 50.0, 0.5, -1.0, -2.5, 0.0, np.inf,
                               np.nan]),
                     np.array([1.0, 2.0, 0.5, 0.1, 1e-5, 1e-300, 9.5, 10.0, 100.0, 1e6, 1e300, -1.5, -2.0, -0.5,
                               -10.3, -30.25, 0.0, -0.0, np.inf, -np.inf, np.nan]))


def test_zeta_values_are_pytorchs() -> None:
    """The poles and refusals (inf at x = 1 and at q = 0, -1, ...; NaN below x = 1 and for a non-integer x at a
    negative q), negative q, huge and infinite arguments."""
    _values(lambda lib, x, q: lib.special.zeta(x, q), ZX, ZQ, rtol=1e-12)
    _values(lambda lib, x, q: lib.special.zeta(x, q), RNG.random(50) * 10 + 1, RNG.random(50) * 30, rtol=1e-13)


def test_zeta_far_below_zero_is_pytorchs() -> None:
    """Below q = -64 minigrad sums the negative terms as a difference of two zetas, not one by one; the same
    values (inf where a term overflows, as in PyTorch's sum)."""
    _values(lambda lib, x, q: lib.special.zeta(x, q), np.array([1e20, 2.0, 3.0, 4.0, 2.0, 1e20]),
            np.array([-1001.2, -100.25, -100.25, -1000.7, -13437.7, -4988429.2]), rtol=1e-12)


@pytest.mark.parametrize("form", ["number x", "number q", "integers", "float32", "broadcast"])
def test_zeta_forms_and_dtypes(form: str) -> None:
    if form == "number x":
        _values(lambda lib, q: lib.special.zeta(3.0, q), np.abs(ZQ[:, 0]) + 0.5)
    elif form == "number q":
        _values(lambda lib, x: lib.special.zeta(x, 2.5), ZX[0])
    elif form == "integers":
        _values(lambda lib, x, q: lib.special.zeta(x, q), np.array([2, 3, 4]), np.array([1, 2, 3]), dtype="int64",
                rtol=1e-6)
        _values(lambda lib, q: lib.special.zeta(2, q), np.array([1, 2, 3]), dtype="int64", rtol=1e-6)
    elif form == "float32":
        q = np.minimum(np.abs(ZQ[:, :12]), 1e30) + 0.5
        _values(lambda lib, x, q: lib.special.zeta(x, q), ZX[:, :12], q, dtype="float32", rtol=1e-6)
    else:
        _values(lambda lib, x, q: lib.special.zeta(x, q), np.array([[2.0], [3.5]]), np.array([0.5, 1.0, 4.0]))


# -- the incomplete gamma functions -----------------------------------------------------------------------------------

GA = np.array([0.0, -1.0, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 9.5, 10.0, 10.5, 20.0, 25.0, 50.0, 150.0, 199.0,
               201.0, 300.0, 1e3, np.inf, np.nan])
GX = np.array([0.0, 1e-300, 1e-10, 0.1, 0.5, 0.51, 1.0, 1.05, 1.1, 1.2, 2.0, 3.0, 5.0, 9.5, 10.0, 20.0, 25.0, 50.0,
               100.0, 200.0, 300.0, 1e3, 1e4, 1e10, np.inf, -1.0, np.nan])
GRID_A, GRID_X = (g.ravel() for g in np.meshgrid(GA, GX))


def _outside_pytorchs_asymptotic_region(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Where PyTorch 2.13 does not use its uniform asymptotic series (``a`` in 20..200 with ``|x - a| < 0.3 a``;
    above 200 with ``|x - a| < 4.5 sqrt(a)``), which is off the true values by up to 1e-9 relative."""
    with np.errstate(all="ignore"):
        ratio = np.abs(x - a) / a
        return ~(((a > 20) & (a < 200) & (ratio < 0.3)) | ((a > 200) & (ratio < 4.5 / np.sqrt(a))))


KEEP = _outside_pytorchs_asymptotic_region(GRID_A, GRID_X)
GAMMA_FORMS = {
    "igamma": lambda lib, a, x: lib.igamma(a, x), "igammac": lambda lib, a, x: lib.igammac(a, x),
    "special.gammainc": lambda lib, a, x: lib.special.gammainc(a, x),
    "special.gammaincc": lambda lib, a, x: lib.special.gammaincc(a, x),
    "Tensor.igamma": lambda lib, a, x: a.igamma(x), "Tensor.igammac": lambda lib, a, x: a.igammac(x),
}


@pytest.mark.parametrize("form", list(GAMMA_FORMS))
def test_incomplete_gamma_values_are_pytorchs(form: str) -> None:
    """Each of PyTorch's regions (series, continued fraction, small-x series, 1 - the other), the edge rules
    (0, negative, infinite and NaN arguments); 1e-12 relative, or 1e-300 absolute where the value is subnormal.
    (PyTorch's asymptotic region: the next test.)"""
    _values(GAMMA_FORMS[form], GRID_A[KEEP], GRID_X[KEEP], rtol=1e-12, atol=1e-300)
    a, x = RNG.random(300) * 40, RNG.random(300) * 60
    keep = _outside_pytorchs_asymptotic_region(a, x)
    _values(GAMMA_FORMS[form], a[keep], x[keep], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("upper", [False, True])
def test_incomplete_gamma_where_pytorchs_kernel_is_off(upper: bool) -> None:
    """Tiny ``a``, and ``x`` near ``a`` from ``a = 20`` up (PyTorch's asymptotic region): PyTorch 2.13 is off there
    by up to 1e-7 relative; minigrad's values are mpmath's."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    a = np.array([1e-10, 1e-10, 1e-300, 25.0, 25.0, 50.0, 150.0, 300.0, 1e3, 1e4, 1e4, 1e5, 1e6, 3e7, 1e10, 1e10])
    x = np.array([0.1, 0.5, 0.5, 20.0, 25.0, 50.0, 190.0, 300.0, 1e3, 9900.0, 1e4, 1e5 + 100, 999000.0, 29970000.0,
                  1e10 + 1e6, 1e10 - 3e5])
    fn = mg.special.gammaincc if upper else mg.special.gammainc
    got = fn(mg.tensor(a, dtype=mg.float64), mg.tensor(x, dtype=mg.float64)).numpy()
    upper_q = [mpmath.gammainc(mpmath.mpf(u), mpmath.mpf(v), mpmath.inf, regularized=True) for u, v in zip(a, x)]
    true = [float(q if upper else 1 - q) for q in upper_q]  # (at 40 digits, 1 - Q keeps P's)
    np.testing.assert_allclose(got, true, rtol=1e-12)


def test_incomplete_gamma_dtypes_and_shapes() -> None:
    _values(lambda lib, a, x: lib.igamma(a, x), np.array([0.5, 2.0, 7.0]), np.array([0.3, 2.0, 9.0]), dtype="float32",
            rtol=2e-6)
    _values(lambda lib, a, x: lib.igammac(a, x), np.array([[0.5], [3.0]]), np.array([0.3, 2.0, 9.0]))
    _values(lambda lib, a, x: lib.special.gammainc(a, x.long()), np.array([0.5, 2.0]), np.array([1.0, 3.0]))
    _values(lambda lib, a, x: lib.special.gammainc(a, x), np.array(2.5), np.array(1.5))


def test_in_place_forms() -> None:
    for name in ("igamma_", "igammac_"):
        got = []
        for lib in (torch, mg):
            a = lib.tensor([0.5, 2.0, 7.0], dtype=lib.float64)
            out = getattr(a, name)(lib.tensor([0.3, 2.0, 9.0], dtype=lib.float64))
            assert out is a
            got.append(a.numpy())
        np.testing.assert_allclose(got[1], got[0], rtol=1e-13)


# -- nodes, gradients, refusals ---------------------------------------------------------------------------------------

def _grads(fn: Callable[..., Any], *arrays: np.ndarray, grad_of: tuple[int, ...], rtol: float = 1e-10) -> None:
    """The node names and the gradients of a weighted sum, for the leaves ``grad_of``, equal under both."""
    results = []
    for lib in (torch, mg):
        leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=i in grad_of) for i, a in enumerate(arrays)]
        out = fn(lib, *leaves)
        weights = lib.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        results.append((_name(out), [leaves[i].grad.numpy() for i in grad_of]))
    (want_name, want), (got_name, got) = results
    assert got_name == want_name
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-300, equal_nan=True)


POSITIVE = np.abs(RNG.standard_normal((3, 4))) * 3 + 0.2

GRADS = {
    "zeta": (lambda lib, x, q: lib.special.zeta(x, q), (POSITIVE + 1.5, POSITIVE)),
    "zeta number x": (lambda lib, q: lib.special.zeta(2.5, q), (POSITIVE,)),
    "zeta broadcast": (lambda lib, x, q: lib.special.zeta(x, q), (POSITIVE[:, :1] + 2, POSITIVE)),
    "igamma": (lambda lib, a, x: lib.igamma(a, x), (POSITIVE, POSITIVE[::-1].copy())),
    "igammac": (lambda lib, a, x: lib.igammac(a, x), (POSITIVE, POSITIVE[::-1].copy())),
    "gammainc broadcast": (lambda lib, a, x: lib.special.gammainc(a, x), (POSITIVE[0], POSITIVE)),
    "gammaincc at x = 0": (lambda lib, a, x: lib.special.gammaincc(a, x), (np.array([0.5, 2.0]), np.array([0.0, 0.0]))),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_nodes_and_gradients_wrt_the_second_argument_are_pytorchs(name: str) -> None:
    fn, arrays = GRADS[name]
    _grads(fn, *arrays, grad_of=(len(arrays) - 1,))


@pytest.mark.parametrize("call, node", [
    (lambda lib, t: lib.special.zeta(t, t), "SpecialZetaBackward0"),
    (lambda lib, t: lib.special.zeta(2.0, t), "SpecialZetaBackward1"),
    (lambda lib, t: lib.special.zeta(t, 2.0), "SpecialZetaBackward2"),
    (lambda lib, t: lib.igamma(t, t), "IgammaBackward0"), (lambda lib, t: lib.special.gammainc(t, t), "IgammaBackward0"),
    (lambda lib, t: lib.igammac(t, t), "IgammacBackward0"), (lambda lib, t: t.igammac(t), "IgammacBackward0"),
    (lambda lib, t: (t * 1).igamma_(t.detach()), "IgammaBackward0"),
])
def test_node_names(call: Callable[..., Any], node: str) -> None:
    for lib in (torch, mg):
        assert call(lib, lib.tensor([1.5], dtype=lib.float64, requires_grad=True)).grad_fn.name() == node


@pytest.mark.parametrize("call, words", [
    (lambda lib, a, x: lib.special.zeta(a, x), "the derivative for 'zeta' is not implemented."),
    (lambda lib, a, x: lib.special.zeta(a, 2.0), "the derivative for 'zeta' is not implemented."),
    (lambda lib, a, x: lib.igamma(a, x), "the derivative for 'igamma: input' is not implemented."),
    (lambda lib, a, x: lib.special.gammaincc(a, x), "the derivative for 'igammac: input' is not implemented."),
])
def test_derivatives_pytorch_does_not_have_refuse_in_backward(call: Callable[..., Any], words: str) -> None:
    """The node exists (forward runs); its backward raises NotImplementedError in PyTorch's words."""
    for lib in (torch, mg):
        a = lib.tensor([2.5, 3.0], dtype=lib.float64, requires_grad=True)
        x = lib.tensor([1.5, 0.5], dtype=lib.float64, requires_grad=True)
        out = call(lib, a, x)
        with pytest.raises(NotImplementedError, match=words.replace(".", r"\.")):
            out.sum().backward()


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.igamma(lib.tensor([1, 2]), lib.tensor([1, 2])), NotImplementedError),
    (lambda lib: lib.igammac(lib.tensor([True]), lib.tensor([True])), NotImplementedError),
    (lambda lib: lib.special.gammaincc(lib.tensor([1]), lib.tensor([1], dtype=lib.int32)), NotImplementedError),
    (lambda lib: lib.igamma(lib.tensor([1.0]), 2.0), TypeError),
    (lambda lib: lib.special.gammainc(2.0, lib.tensor([1.0])), TypeError),
    (lambda lib: lib.tensor([1.0]).igammac(2.0), TypeError),
])
def test_incomplete_gamma_refusals_in_pytorchs_words(call: Callable[..., Any], error: type) -> None:
    messages = []
    for lib in (torch, mg):
        with pytest.raises(error) as info:
            call(lib)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_zeta_number_forms_have_one_edge_as_pytorchs() -> None:
    x = mg.tensor([2.5], dtype=mg.float64, requires_grad=True)
    got = [(o.grad_fn.name(), len(o.grad_fn.next_functions)) for o in
           (mg.special.zeta(x, x), mg.special.zeta(2.0, x), mg.special.zeta(x, 2.0))]
    assert got == [("SpecialZetaBackward0", 2), ("SpecialZetaBackward1", 1), ("SpecialZetaBackward2", 1)]


def test_zeta_refuses_two_numbers() -> None:
    for lib in (torch, mg):
        with pytest.raises(TypeError):
            lib.special.zeta(2.0, 3.0)


def test_second_derivative_of_igamma_wrt_x_is_pytorchs() -> None:
    grads = []
    for lib in (torch, mg):
        a = lib.tensor(POSITIVE, dtype=lib.float64)
        x = lib.tensor(POSITIVE[::-1].copy(), dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.igamma(a, x).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [x])
        grads.append(gg.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10)
