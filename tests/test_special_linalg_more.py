"""torch.special's entropy, normal-distribution, scaled erfc and scaled Bessel functions (``entr``, ``ndtr``,
``ndtri``, ``log_ndtr``, ``erfcx``, ``xlog1py``, ``i0e``, ``i1e``, ``round``) and torch.linalg's composites
(``multi_dot``, ``vecdot``, ``cond``, ``inv_ex``, ``solve_ex``, ``tensorinv``, ``tensorsolve``, ``diagonal``,
``vander``, ``LinAlgError``), each against PyTorch: values (edge values included), dtypes, shapes, ``grad_fn``
names, gradients, errors (class and words), and that a refused call leaves no node.

(tests/test_ops_grad.py checks the formulas against finite differences, tests/test_grad_fn_names.py the whole
graphs, tests/test_conformance.py PyTorch's OpInfo samples.)
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(3)
EDGES = np.array([0.0, -0.0, 1e-300, -1e-300, 1e-8, 0.5, -0.5, 1.0, -1.0, 2.0, 5.0, -5.0, 26.0, -26.0, 30.0, 31.0,
                  -38.0, 40.0, 1e3, -1e3, 1e10, -1e10, 1e300, -1e300, np.inf, -np.inf, np.nan])
WIDE = np.concatenate([RNG.standard_normal(200) * 6, np.linspace(-45, 45, 181), EDGES])
PROBS = np.concatenate([RNG.random(200), np.logspace(-320, -1, 60), 1 - np.logspace(-16, -1, 30),
                        [0.0, 1.0, 0.5, 0.25, 0.75, 0.5 + 1e-12, -0.1, 1.1, np.inf, np.nan]])
X = RNG.standard_normal((3, 4))
SQ = RNG.standard_normal((4, 4)) + 2 * np.eye(4)


def _name(t: Any) -> str | None:
    return None if t.grad_fn is None else t.grad_fn.name()


def _values(fn: Callable[..., Any], *arrays: np.ndarray, dtype: str = "float64", rtol: float = 1e-12,
            atol: float = 0.0) -> None:
    """``fn(lib, *tensors)`` of both libraries: equal values (NaN for NaN), dtype and shape. (float32: PyTorch
    computes in float32, minigrad in float64 rounded once - a few float32 ulp apart, more where PyTorch's float32
    ``exp(x * x)`` or ``erfc`` tail rounds.)"""
    want = fn(torch, *[torch.tensor(a, dtype=getattr(torch, dtype)) for a in arrays])
    got = fn(mg, *[mg.tensor(a, dtype=getattr(mg, dtype)) for a in arrays])
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _grads(fn: Callable[..., Any], *arrays: np.ndarray, rtol: float = 1e-10) -> None:
    """The node names and the gradients of a weighted sum of ``fn``'s finite outputs, equal under both."""
    results = []
    for lib in (torch, mg):
        leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        out = fn(lib, *leaves)
        weights = lib.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)))
        finite = lib.tensor(np.isfinite(out.detach().numpy()))
        lib.where(finite, out * weights, lib.zeros_like(out)).sum().backward()
        results.append((_name(out), [t.grad.numpy() for t in leaves]))
    (want_name, want), (got_name, got) = results
    assert got_name == want_name
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-300, equal_nan=True)


# -- torch.special: values ---------------------------------------------------------------------------------------

UNARY = {
    "entr": WIDE, "ndtr": WIDE, "log_ndtr": WIDE, "erfcx": WIDE, "i0e": WIDE, "i1e": WIDE, "ndtri": PROBS,
    "round": WIDE,
}


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_special_values_are_pytorchs(name: str, dtype: str) -> None:
    """Edge values included (0, -0, subnormal, large, infinite, NaN): to float64 rounding, or float32's."""
    data = UNARY[name]
    if dtype == "float32":
        data = data[np.abs(data) < 1e30]
    _values(lambda lib, x: getattr(lib.special, name)(x), data, dtype=dtype, rtol=1e-12 if dtype == "float64" else 2e-5,
            atol=(1e-16 if dtype == "float64" else 6e-8) if name == "ndtr" else 0.0)


@pytest.mark.parametrize("name", ["ndtr"])
def test_ndtr_is_one_plus_erf_halved_as_pytorchs(name: str) -> None:
    """A composite: in the far left tail ``1 + erf`` cancels in PyTorch as here (``atol`` of float64's ulp of 1)."""
    _values(lambda lib, x: lib.special.ndtr(x), WIDE, rtol=1e-12, atol=1e-16)


def test_ndtri_keeps_its_relative_digits_in_both_tails_and_at_the_centre() -> None:
    p = np.array([5e-324, 1e-300, 1e-20, 0.5 + 2 ** -40, 0.5 - 2 ** -40, 1 - 2 ** -53, 0.5])
    _values(lambda lib, x: lib.special.ndtri(x), p, rtol=1e-13)
    assert mg.special.ndtri(mg.tensor(0.5, dtype=mg.float64)).item() == 0.0


@pytest.mark.parametrize("other", [WIDE, 2.5, -1.0])
def test_xlog1py_values_are_pytorchs(other: Any) -> None:
    """0 where x is 0 (unless y is NaN), x log1p(y) elsewhere; a number y."""
    x = np.concatenate([WIDE[:300], np.zeros(len(WIDE) - 300)])
    if isinstance(other, float):
        _values(lambda lib, a: lib.special.xlog1py(a, other), x)
    else:
        _values(lambda lib, a, b: lib.special.xlog1py(a, b), x, np.abs(other) - 1)


@pytest.mark.parametrize("name", ["entr", "ndtr", "ndtri", "log_ndtr", "erfcx", "i0e", "i1e"])
def test_integer_inputs_are_computed_in_the_default_float(name: str) -> None:
    _values(lambda lib, x: getattr(lib.special, name)(x), np.array([0, 1, 2, -3]), dtype="int64", rtol=2e-6)
    _values(lambda lib, x: getattr(lib.special, name)(x), np.array([True, False]), dtype="bool", rtol=2e-6)


def test_shapes_broadcast_and_0d() -> None:
    _values(lambda lib, a, b: lib.special.xlog1py(a, b), X, X[0] ** 2)
    _values(lambda lib, a: lib.special.erfcx(a), np.array(1.5))
    _values(lambda lib, a: lib.special.i1e(a), np.zeros((0, 3)))


# -- torch.special: nodes and gradients ---------------------------------------------------------------------------

GRADS = {
    "entr": (lambda lib, x: lib.special.entr(x), np.abs(X) + 0.1),
    "ndtr": (lambda lib, x: lib.special.ndtr(x), X * 3),
    "ndtri": (lambda lib, x: lib.special.ndtri(x), RNG.random((3, 4))),
    "log_ndtr": (lambda lib, x: lib.special.log_ndtr(x), X * 10),
    "erfcx": (lambda lib, x: lib.special.erfcx(x), X * 5),
    "i0e": (lambda lib, x: lib.special.i0e(x), X * 10),
    "i1e": (lambda lib, x: lib.special.i1e(x), np.concatenate([X.ravel() * 10, [0.0, 1e-17]])),
    "round": (lambda lib, x: lib.special.round(x), X * 3),
    "xlog1py": (lambda lib, x, y: lib.special.xlog1py(x, y), np.concatenate([X, [[0, 0, 1, 2]]]), np.abs(X[0]) - 0.5),
    "xlog1py number other": (lambda lib, x: lib.special.xlog1py(x, 3), X),
    "xlog1py number self": (lambda lib, y: lib.special.xlog1py(2.0, y), np.abs(X)),
    "xlog1py at y = -1": (lambda lib, x, y: lib.special.xlog1py(x, y), np.array([0.0, 1.0]), np.array([-1.0, 0.5])),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_special_nodes_and_gradients_are_pytorchs(name: str) -> None:
    fn, *arrays = GRADS[name]
    _grads(fn, *arrays)


@pytest.mark.parametrize("name, node", [("entr", "SpecialEntrBackward0"), ("ndtri", "SpecialNdtriBackward0"),
                                        ("log_ndtr", "SpecialLogNdtrBackward0"), ("erfcx", "SpecialErfcxBackward0"),
                                        ("i0e", "SpecialI0EBackward0"), ("i1e", "SpecialI1EBackward0"),
                                        ("ndtr", "MulBackward1"), ("round", "RoundBackward1")])
def test_node_names(name: str, node: str) -> None:
    x = mg.tensor([0.25], dtype=mg.float64, requires_grad=True)
    assert getattr(mg.special, name)(x).grad_fn.name() == node


def test_xlog1py_overloads_name_their_nodes_and_edges() -> None:
    x = mg.tensor([0.5], dtype=mg.float64, requires_grad=True)
    got = [(o.grad_fn.name(), len(o.grad_fn.next_functions)) for o in
           (mg.special.xlog1py(x, x), mg.special.xlog1py(2.0, x), mg.special.xlog1py(x, 2.0))]
    assert got == [("SpecialXlog1PyBackward0", 2), ("SpecialXlog1PyBackward1", 1), ("SpecialXlog1PyBackward2", 1)]


def test_second_derivative_of_erfcx_is_pytorchs() -> None:
    grads = []
    for lib in (torch, mg):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.special.erfcx(x).sum(), [x], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), [x])
        grads.append(gg.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10)


@pytest.mark.parametrize("call, error, words", [
    (lambda lib: lib.special.ndtr([1.0]), TypeError, "must be Tensor"),
    (lambda lib: lib.special.entr(lib.tensor([1.0]), lib.tensor([1.0])), TypeError, ""),
])
def test_special_refusals(call: Callable[..., Any], error: type, words: str) -> None:
    for lib in (torch, mg):
        with pytest.raises(error, match=words):
            call(lib)


def test_torch_has_no_top_level_xlog1py_and_neither_has_minigrad() -> None:
    assert hasattr(torch, "xlog1py") == hasattr(mg, "xlog1py") == False  # noqa: E712


# -- torch.linalg ------------------------------------------------------------------------------------------------

A3, B3 = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 2))
SPREAD = RNG.standard_normal((9, 9)) + 3 * np.eye(9)

LINALG: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "vecdot": (lambda lib, a, b: lib.linalg.vecdot(a, b[:, :1]), (A3, B3)),
    "vecdot dim=0": (lambda lib, a: lib.linalg.vecdot(a, a, dim=0), (A3,)),
    "multi_dot of two": (lambda lib, a, b: lib.linalg.multi_dot([a, b]), (A3, B3)),
    "multi_dot of three": (lambda lib, a, b: lib.linalg.multi_dot([a, b, b.T]), (A3, B3)),
    "multi_dot of vectors at the ends": (lambda lib, a, b: lib.linalg.multi_dot([a[0], a, b, b.T, a[:, 1]]), (A3, B3)),
    "multi_dot of two vectors": (lambda lib, a: lib.linalg.multi_dot([a[0], a[1]]), (A3,)),
    "cond": (lambda lib, a: lib.linalg.cond(a), (A3,)),
    "cond -2": (lambda lib, a: lib.linalg.cond(a, -2), (A3,)),
    "cond of a wide matrix": (lambda lib, b: lib.linalg.cond(b.T), (B3,)),
    "cond nuc": (lambda lib, a: lib.linalg.cond(a, "nuc"), (A3,)),
    "inv_ex": (lambda lib, a: lib.linalg.inv_ex(a).inverse, (SQ,)),
    "solve_ex": (lambda lib, a, b: lib.linalg.solve_ex(a, b).result, (A3, B3)),
    "solve_ex of a vector": (lambda lib, a, b: lib.linalg.solve_ex(a, b[:, 0]).result, (A3, B3)),
    "tensorinv": (lambda lib, a: lib.linalg.tensorinv(a.reshape(3, 3, 9)), (SPREAD,)),
    "tensorinv ind=1": (lambda lib, a: lib.linalg.tensorinv(a.reshape(9, 3, 3), ind=1), (SPREAD,)),
    "tensorsolve": (lambda lib, a, b: lib.linalg.tensorsolve(a.reshape(3, 3, 9), b), (SPREAD, A3)),
    "tensorsolve dims": (lambda lib, a, b: lib.linalg.tensorsolve(a.reshape(9, 3, 3), b, dims=(0,)), (SPREAD, A3)),
    "diagonal": (lambda lib, a: lib.linalg.diagonal(a, offset=-1), (A3,)),
    "diagonal dims": (lambda lib, a: lib.linalg.diagonal(a.reshape(3, 1, 3), dim1=0, dim2=2), (A3,)),
    "vander": (lambda lib, a: lib.linalg.vander(a[0]), (A3,)),
    "vander N of a batch": (lambda lib, a: lib.linalg.vander(a, N=4), (A3,)),
    "inner method": (lambda lib, a, b: a.inner(b.T), (A3, B3)),
}


@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_values_nodes_and_gradients_are_pytorchs(name: str) -> None:
    fn, arrays = LINALG[name]
    _values(fn, *arrays, rtol=1e-10)
    _grads(fn, *arrays, rtol=1e-8)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
def test_cond_values_in_every_norm(p: Any) -> None:
    """The batch, a singular matrix (inf by the inverse; NaN for the zero matrix by the singular values - a rank-1
    matrix's smallest singular value is LAPACK's rounding, not 0), float32."""
    singular = np.zeros((3, 3)) if p in (None, 2, -2, "nuc") else np.ones((3, 3))
    batch = np.stack([A3, singular, np.eye(3) * 1e-3])
    _values(lambda lib, a: lib.linalg.cond(a, p), batch, rtol=1e-9)
    _values(lambda lib, a: lib.linalg.cond(a, p), A3, dtype="float32", rtol=1e-4)


@pytest.mark.parametrize("p", ["fro", 1, -1, math.inf, -math.inf])
def test_cond_by_the_inverse_refuses_its_backward_as_pytorch(p: Any) -> None:
    """The inverse its node saved is written over in place (``masked_fill_``): both backwards refuse."""
    for lib in (torch, mg):
        a = lib.tensor(A3, requires_grad=True)
        out = lib.linalg.cond(a, p)
        assert out.grad_fn.name() == "NanToNumBackward0"
        with pytest.raises(RuntimeError, match="modified by an in-?place operation"):
            out.backward()


def test_vander_and_vecdot_dtypes() -> None:
    _values(lambda lib, a: lib.linalg.vander(a), np.array([2, 3, -1]), dtype="int32")
    _values(lambda lib, a: lib.linalg.vander(a, N=3), np.array(1.5))
    _values(lambda lib, a: lib.linalg.vecdot(a, a), X, dtype="float32", rtol=1e-6)


def test_inv_ex_and_solve_ex_report_info_per_matrix() -> None:
    batch = np.stack([np.eye(3) * 2, np.zeros((3, 3)), [[1.0, 2, 3], [2, 4, 6], [1, 0, 1]]])
    for lib in (torch, mg):
        inverse, info = lib.linalg.inv_ex(lib.tensor(batch))
        assert info.tolist() == [0, 1, 3] and str(info.dtype).endswith("int32")
        np.testing.assert_allclose(inverse[0].numpy(), np.eye(3) / 2)
        result, info = lib.linalg.solve_ex(lib.tensor(batch), lib.tensor(np.ones((3, 3))))
        assert info.tolist() == [0, 1, 3]
        np.testing.assert_allclose(result[0].numpy(), np.full(3, 0.5))
    assert type(mg.linalg.inv_ex(mg.eye(2))).__name__ == "linalg_inv_ex"
    assert mg.linalg.solve_ex(mg.eye(2), mg.ones(2))._fields == ("result", "info")


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])

ERRORS = {
    "inv": lambda lib, a: lib.linalg.inv(a),
    "inv of a batch": lambda lib, a: lib.linalg.inv(lib.stack([lib.eye(2, dtype=a.dtype), a])),
    "solve": lambda lib, a: lib.linalg.solve(a, a[0]),
    "solve of a batch": lambda lib, a: lib.linalg.solve(lib.stack([a, a]), a),
    "cholesky": lambda lib, a: lib.linalg.cholesky(-a),
    "inv_ex with check_errors": lambda lib, a: lib.linalg.inv_ex(a, check_errors=True),
    "solve_ex with check_errors": lambda lib, a: lib.linalg.solve_ex(a, a, check_errors=True),
    "tensorinv of a singular matrix": lambda lib, a: lib.linalg.tensorinv(a, ind=1),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_singular_matrices_raise_linalg_error_in_pytorchs_words(name: str) -> None:
    """``mg.linalg.LinAlgError`` (a RuntimeError, as ``torch.linalg.LinAlgError``), with PyTorch's message; the
    refused call leaves no node behind."""
    messages = []
    for lib in (torch, mg):
        a = lib.tensor(SINGULAR, requires_grad=True)
        with pytest.raises(lib.linalg.LinAlgError) as info:
            ERRORS[name](lib, a)
        messages.append(str(info.value))
        assert a.grad_fn is None and a.grad is None
    assert messages[1] == messages[0]
    assert issubclass(mg.linalg.LinAlgError, RuntimeError)


LINALG_REFUSALS = {
    "multi_dot of one": lambda lib, a: lib.linalg.multi_dot([a]),
    "multi_dot 3-D last": lambda lib, a: lib.linalg.multi_dot([a, a[None]]),
    "multi_dot 3-D first": lambda lib, a: lib.linalg.multi_dot([a[None], a]),
    "multi_dot 1-D middle": lambda lib, a: lib.linalg.multi_dot([a, a[0], a]),
    "multi_dot dtypes": lambda lib, a: lib.linalg.multi_dot([a, a.float()]),
    "multi_dot shapes": lambda lib, a: lib.linalg.multi_dot([a, lib.ones(4, 2, dtype=a.dtype)]),
    "vecdot of integers": lambda lib, a: lib.linalg.vecdot(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)),
    "vecdot dtypes": lambda lib, a: lib.linalg.vecdot(a.float(), a),
    "vander of bools": lambda lib, a: lib.linalg.vander(lib.ones(3, dtype=lib.bool)),
    "vander N=1": lambda lib, a: lib.linalg.vander(a[0], N=1),
    "tensorinv ind=0": lambda lib, a: lib.linalg.tensorinv(a, ind=0),
    "tensorinv not square": lambda lib, a: lib.linalg.tensorinv(lib.ones(2, 3, 4, dtype=a.dtype), ind=1),
    "tensorsolve not square": lambda lib, a: lib.linalg.tensorsolve(lib.ones(2, 3, 4, dtype=a.dtype),
                                                                    lib.ones(2, 3, dtype=a.dtype)),
    "cond fro of a wide matrix": lambda lib, a: lib.linalg.cond(a[:2], "fro"),
    "cond 1 of a wide matrix": lambda lib, a: lib.linalg.cond(a[:2], 1),
    "cond of a vector": lambda lib, a: lib.linalg.cond(a[0]),
    "cond's norm 3": lambda lib, a: lib.linalg.cond(a, 3),
    "inv_ex of a wide matrix": lambda lib, a: lib.linalg.inv_ex(a[:2]),
}


@pytest.mark.parametrize("name", list(LINALG_REFUSALS))
def test_linalg_refusals_are_pytorchs(name: str) -> None:
    messages = []
    for lib in (torch, mg):
        a = lib.tensor(A3, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            LINALG_REFUSALS[name](lib, a)
        messages.append(str(info.value))
        assert a.grad is None
    assert messages[1] == messages[0]


def test_linalg_error_is_one_class_under_two_names() -> None:
    assert torch._C._LinAlgError is torch.linalg.LinAlgError
    assert mg.linalg.LinAlgError.__mro__[1] is RuntimeError


# -- torch.special's orthogonal polynomials ----------------------------------------------------------------------

POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
# every end of the interval and beyond (NaN x aside: PyTorch's CPU kernel gives values of its neighbours there)
GRID_X, GRID_N = np.meshgrid(np.concatenate([np.linspace(-1.5, 1.5, 31), [-1.0, 1.0, 0.0, 0.5, 1e-9, 2.0, -2.0]]),
                             np.array([-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 30, 2.7, -0.5, np.nan]))


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values_are_pytorchs(name: str) -> None:
    """Negative and fractional degrees, the ends of the interval, the trigonometric forms of high degrees."""
    _values(lambda lib, x, n: getattr(lib.special, name)(x, n), GRID_X, GRID_N, rtol=1e-11, atol=1e-13)
    _values(lambda lib, x: getattr(lib.special, name)(x, 3), GRID_X[0], dtype="float32", rtol=1e-5)
    _values(lambda lib, n: getattr(lib.special, name)(0.25, n), np.array([0, 1, 2, 5, 12]), dtype="int64", rtol=1e-6)


@pytest.mark.parametrize("name", POLYNOMIALS[::3])
def test_polynomials_have_no_derivative_and_refuse_two_numbers(name: str) -> None:
    for lib in (torch, mg):
        x = lib.tensor([0.5], requires_grad=True)
        out = getattr(lib.special, name)(x, 2)
        assert not out.requires_grad and out.grad_fn is None
        with pytest.raises(TypeError):
            getattr(lib.special, name)(0.5, 2)


@pytest.mark.parametrize("name", ["modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bessel_functions_without_a_derivative(name: str, dtype: str) -> None:
    data = np.concatenate([WIDE, [0.4999, 0.5, 700.0, -700.0]])
    data = data[np.abs(data) < 1e30] if dtype == "float32" else data
    _values(lambda lib, x: getattr(lib.special, name)(x), data, dtype=dtype, rtol=1e-12 if dtype == "float64" else 2e-6)
    _values(lambda lib, x: getattr(lib.special, name)(x), np.array([0, 1, -3]), dtype="int64", rtol=1e-6)
    for lib in (torch, mg):
        out = getattr(lib.special, name)(lib.tensor([0.5], requires_grad=True))
        assert not out.requires_grad and out.grad_fn is None
