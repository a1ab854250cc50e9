"""Householder reflectors (``geqrf``, ``linalg.householder_product``/``orgqr``, ``ormqr``), the solves from a
factor (``triangular_solve``, ``cholesky_solve``, ``linalg.lu_solve``/``lu_solve``), the LU's packed form
(``linalg.lu_factor``/``lu_factor_ex``/``lu``, ``lu_unpack``) and ``nuclear_norm`` against PyTorch: values, layouts, ``grad_fn`` names, gradients of every input, and the errors in
PyTorch's classes and words, a failed call leaving no node and no changed tensor.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(11)
TALL = RNG.standard_normal((2, 5, 3))
TAU = RNG.uniform(0.2, 1.8, size=(2, 3))
OTHER = RNG.standard_normal((2, 5, 4))
TRI = RNG.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3)
RHS = RNG.standard_normal((4, 3, 2))
SQ = RNG.standard_normal((2, 4, 4))


def _lu_of(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's ``linalg.lu_factor`` (the same inputs for both frameworks)."""
    LU, piv = torch.linalg.lu_factor(torch.tensor(a))
    return LU.numpy(), piv.numpy()


LU, PIV = _lu_of(SQ)
LU_TALL, PIV_TALL = _lu_of(RNG.standard_normal((5, 3)))
LU_WIDE, PIV_WIDE = _lu_of(RNG.standard_normal((2, 3, 5)))


def _leaves(lib: Any, *arrays: np.ndarray) -> list[Any]:
    return [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]


# name: (call with lib, the arrays it takes)
CALLS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "householder_product": (lambda lib, a, t: lib.linalg.householder_product(a, t), (TALL, TAU)),
    "householder_product short tau": (lambda lib, a, t: lib.linalg.householder_product(a, t[..., :2]), (TALL, TAU)),
    "orgqr": (lambda lib, a, t: lib.orgqr(a, t), (TALL, TAU)),
    "geqrf's Q": (lambda lib, a: lib.linalg.householder_product(*lib.geqrf(a.detach())), (TALL,)),
    "ormqr": (lambda lib, a, t, c: lib.ormqr(a, t, c), (TALL, TAU, OTHER)),
    "ormqr transpose": (lambda lib, a, t, c: lib.ormqr(a, t, c, transpose=True), (TALL, TAU, OTHER)),
    "ormqr right": (lambda lib, a, t, c: lib.ormqr(a, t, c.mT, left=False), (TALL, TAU, OTHER)),
    "ormqr right transpose": (lambda lib, a, t, c: lib.ormqr(a, t, c.mT, False, True), (TALL, TAU, OTHER)),
    "triangular_solve": (lambda lib, b, a: tuple(lib.triangular_solve(b, a)), (RHS, TRI)),
    "triangular_solve lower transpose unit": (
        lambda lib, b, a: tuple(lib.triangular_solve(b, a, upper=False, transpose=True, unitriangular=True)), (RHS, TRI)),
    "cholesky_solve": (lambda lib, b, f: lib.cholesky_solve(b, f), (RHS, TRI)),
    "cholesky_solve upper": (lambda lib, b, f: lib.cholesky_solve(b, f, upper=True), (RHS, TRI)),
    "linalg.lu_solve": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (LU, PIV, RNG.standard_normal((3, 1, 4, 2)))),
    "linalg.lu_solve adjoint": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b, adjoint=True),
                                (LU, PIV, RNG.standard_normal((2, 4, 2)))),
    "linalg.lu_solve right": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b, left=False),
                              (LU, PIV, RNG.standard_normal((2, 3, 4)))),
    "linalg.lu_solve right adjoint": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b, left=False, adjoint=True),
                                      (LU, PIV, RNG.standard_normal((2, 3, 4)))),
    "lu_solve": (lambda lib, b, lu, p: lib.lu_solve(b, lu, p), (RNG.standard_normal((2, 4, 3)), LU, PIV)),
    "lu_unpack": (lambda lib, lu, p: tuple(lib.lu_unpack(lu, p)), (LU, PIV)),
    "lu_unpack tall": (lambda lib, lu, p: tuple(lib.lu_unpack(lu, p)), (LU_TALL, PIV_TALL)),
    "lu_unpack wide": (lambda lib, lu, p: tuple(lib.lu_unpack(lu, p)), (LU_WIDE, PIV_WIDE)),
    "linalg.lu_factor": (lambda lib, a: tuple(lib.linalg.lu_factor(a)), (SQ,)),
    "linalg.lu_factor_ex tall": (lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)), (TALL,)),
    "lu wide with infos": (lambda lib, a: tuple(lib.lu(a.mT, get_infos=True)), (TALL,)),
    "lu_unpack of lu_factor": (lambda lib, a: tuple(lib.lu_unpack(*lib.linalg.lu_factor(a))), (SQ,)),
    "lu_solve of lu_factor": (lambda lib, a, b: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b),
                              (SQ, RNG.standard_normal((4, 3)))),
    "nuclear_norm": (lambda lib, a: lib.nuclear_norm(a), (TALL,)),
    "nuclear_norm dim keepdim": (lambda lib, a: lib.nuclear_norm(a, (0, 2), True), (TALL,)),
}


def _run(lib: Any, name: str) -> tuple[list[Any], list[Any]]:
    fn, arrays = CALLS[name]
    leaves = _leaves(lib, *arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation warnings (triangular_solve, lu_solve, nuclear_norm)
        out = fn(lib, *leaves)
    return leaves, list(out) if isinstance(out, tuple) else [out]


def _name(t: Any) -> Any:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


@pytest.mark.parametrize("name", list(CALLS))
def test_values_layouts_nodes_and_gradients_are_pytorchs(name: str) -> None:
    m_in, m_out = _run(mg, name)
    t_in, t_out = _run(torch, name)
    assert len(m_out) == len(t_out)
    weights = [RNG.standard_normal(tuple(t.shape)) for t in t_out]
    for m, t in zip(m_out, t_out):
        assert tuple(m.shape) == tuple(t.shape) and str(m.dtype)[9:] == str(t.dtype)[6:]
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-10)
        assert _name(m) == _name(t)
        assert m.requires_grad == t.requires_grad
        if t.ndim >= 2 and t.numel():  # the layout: LAPACK's column-major matrices where PyTorch's are
            assert m.detach().numpy().strides == tuple(s * t.element_size() for s in t.stride())
    pairs = [(m, t, w) for m, t, w in zip(m_out, t_out, weights) if t.requires_grad]
    if not pairs:
        return
    sum((m * mg.tensor(w)).sum() for m, _, w in pairs).backward()
    sum((t * torch.tensor(w)).sum() for _, t, w in pairs).backward()
    for m, t in zip(m_in, t_in):
        if t.requires_grad:
            assert (m.grad is None) == (t.grad is None)
            if t.grad is not None:
                np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-9)


def test_geqrf_is_lapacks_and_refuses_a_backward_in_pytorchs_words() -> None:
    a = mg.tensor(TALL, requires_grad=True)
    out = mg.geqrf(a)
    ref = torch.geqrf(torch.tensor(TALL))
    assert type(out).__name__ == "geqrf" and out._fields == ("a", "tau")
    np.testing.assert_allclose(out.a.detach().numpy(), ref.a.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out.tau.detach().numpy(), ref.tau.numpy(), rtol=1e-10, atol=1e-12)
    assert type(out.a.grad_fn).__name__ == "GeqrfBackward0" and out.a.grad_fn is out.tau.grad_fn
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        out.a.sum().backward()
    assert a.grad is None
    # R is the upper triangle, Q the reflectors' product: together the input again
    Q = mg.linalg.householder_product(out.a, out.tau)
    np.testing.assert_allclose((Q @ out.a[..., :3, :].triu()).detach().numpy(), TALL, atol=1e-12)


def test_geqrf_of_empty_and_wide_matrices() -> None:
    for shape in ((0, 3), (3, 0), (2, 3, 5)):
        x = RNG.standard_normal(shape)
        out, ref = mg.geqrf(mg.tensor(x)), torch.geqrf(torch.tensor(x))
        for m, t in zip(out, ref):
            assert tuple(m.shape) == tuple(t.shape)
            np.testing.assert_allclose(m.numpy(), t.numpy(), atol=1e-12)


def test_householder_product_gradient_only_below_the_diagonal_and_second_order() -> None:
    """The reflectors read only the strictly lower part of their first k columns: the rest takes a zero gradient;
    the formula is itself differentiable (its gradient's gradient matches PyTorch's)."""
    a, t = mg.tensor(TALL[0], requires_grad=True), mg.tensor(TAU[0, :2], requires_grad=True)
    ta, tt = torch.tensor(TALL[0], requires_grad=True), torch.tensor(TAU[0, :2], requires_grad=True)
    w = RNG.standard_normal((5, 3))
    (ga, gt) = mg.autograd.grad((mg.linalg.householder_product(a, t) * mg.tensor(w)).sum(), [a, t], create_graph=True)
    (ra, rt) = torch.autograd.grad((torch.linalg.householder_product(ta, tt) * torch.tensor(w)).sum(), [ta, tt],
                                   create_graph=True)
    assert np.all(ga.detach().numpy()[np.triu_indices(5, 0, 3)] == 0) and np.all(ga.detach().numpy()[:, 2] == 0)
    ((ga * ga).sum() + gt.sum()).backward()
    ((ra * ra).sum() + rt.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-8, atol=1e-9)


def test_named_tuples_print_as_pytorchs() -> None:
    out = mg.triangular_solve(mg.tensor([[3.0], [4.0]]), mg.tensor([[2.0, 1.0], [0.0, 4.0]]))
    assert type(out).__name__ == "triangular_solve" and out._fields == ("solution", "cloned_coefficient")
    assert repr(out).startswith("minigrad.return_types.triangular_solve(\nsolution=tensor(")
    assert mg.lu_unpack(mg.tensor(LU), mg.tensor(PIV))._fields == ("P", "L", "U")


def test_lu_unpack_flags_give_empty_factors() -> None:
    lu, piv = mg.tensor(LU, requires_grad=True), mg.tensor(PIV)
    P, L, U = mg.lu_unpack(lu, piv, unpack_data=False)
    assert tuple(L.shape) == tuple(U.shape) == (0,) and tuple(P.shape) == (2, 4, 4)
    P, L, U = mg.lu_unpack(lu, piv, unpack_pivots=False)
    assert tuple(P.shape) == (0,) and tuple(L.shape) == (2, 4, 4)
    assert P.grad_fn is None and not P.requires_grad


# the errors: (call with lib, its arrays) - each checked for PyTorch's class and words
def _f(*shape: int, dtype: Any = np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def _piv(*shape: int, dtype: Any = np.int32) -> np.ndarray:
    return np.ones(shape, dtype=dtype)


ERRORS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "householder_product 1-D": (lambda lib, a, t: lib.linalg.householder_product(a, t), (_f(3), _f(3))),
    "householder_product wide": (lambda lib, a, t: lib.linalg.householder_product(a, t), (_f(3, 4), _f(3))),
    "householder_product tau too long": (lambda lib, a, t: lib.linalg.householder_product(a, t), (_f(4, 3), _f(4))),
    "householder_product tau rank": (lambda lib, a, t: lib.linalg.householder_product(a, t), (_f(4, 3), _f(2, 3))),
    "householder_product tau batch": (lambda lib, a, t: lib.orgqr(a, t), (_f(2, 4, 3), _f(3, 3))),
    "householder_product tau 0-d": (lambda lib, a, t: lib.linalg.householder_product(a, t), (_f(4, 3), _f())),
    "householder_product dtypes": (lambda lib, a, t: lib.linalg.householder_product(a, t),
                                   (_f(4, 3), _f(3, dtype=np.float32))),
    "householder_product int": (lambda lib, a, t: lib.linalg.householder_product(a, t),
                                (_piv(4, 3, dtype=np.int64), _piv(3, dtype=np.int64))),
    "geqrf 1-D": (lambda lib, a: lib.geqrf(a), (_f(3),)),
    "geqrf int": (lambda lib, a: lib.geqrf(a), (_piv(3, 3, dtype=np.int64),)),
    "ormqr other 1-D": (lambda lib, a, t, c: lib.ormqr(a, t, c), (_f(4, 3), _f(3), _f(4))),
    "ormqr rows": (lambda lib, a, t, c: lib.ormqr(a, t, c), (_f(4, 3), _f(3), _f(3, 2))),
    "ormqr right columns": (lambda lib, a, t, c: lib.ormqr(a, t, c, left=False), (_f(4, 3), _f(3), _f(4, 2))),
    "ormqr tau length": (lambda lib, a, t, c: lib.ormqr(a, t, c), (_f(4, 3), _f(2), _f(4, 2))),
    "ormqr other batch": (lambda lib, a, t, c: lib.ormqr(a, t, c), (_f(2, 4, 3), _f(2, 3), _f(3, 4, 2))),
    "ormqr other rank": (lambda lib, a, t, c: lib.ormqr(a, t, c), (_f(2, 4, 3), _f(2, 3), _f(4, 2))),
    "ormqr dtypes": (lambda lib, a, t, c: lib.ormqr(a, t, c), (_f(4, 3), _f(3), _f(4, 2, dtype=np.float32))),
    "triangular_solve b 1-D": (lambda lib, b, a: lib.triangular_solve(b, a), (_f(3), _f(3, 3))),
    "triangular_solve A not square": (lambda lib, b, a: lib.triangular_solve(b, a), (_f(3, 2), _f(3, 4))),
    "triangular_solve rows": (lambda lib, b, a: lib.triangular_solve(b, a), (_f(4, 2), _f(3, 3))),
    "triangular_solve batch": (lambda lib, b, a: lib.triangular_solve(b, a), (_f(2, 3, 2), _f(3, 3, 3))),
    "triangular_solve dtypes": (lambda lib, b, a: lib.triangular_solve(b, a), (_f(3, 2, dtype=np.float32), _f(3, 4))),
    "triangular_solve int": (lambda lib, b, a: lib.triangular_solve(b, a),
                             (_piv(3, 2, dtype=np.int64), _piv(3, 3, dtype=np.int64))),
    "cholesky_solve factor 1-D": (lambda lib, b, f: lib.cholesky_solve(b, f), (_f(3, 2), _f(3))),
    "cholesky_solve not square": (lambda lib, b, f: lib.cholesky_solve(b, f), (_f(3, 2), _f(3, 4))),
    "cholesky_solve rows": (lambda lib, b, f: lib.cholesky_solve(b, f), (_f(4, 2), _f(3, 3))),
    "cholesky_solve batch": (lambda lib, b, f: lib.cholesky_solve(b, f), (_f(2, 3, 2), _f(3, 3, 3))),
    "cholesky_solve half": (lambda lib, b, f: lib.cholesky_solve(b, f),
                            (_f(3, 2, dtype=np.float16), _f(3, 3, dtype=np.float16))),
    "lu_solve LU 1-D": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(3), _piv(3), _f(3, 2))),
    "lu_solve LU not square": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(3, 4), _piv(3), _f(3, 2))),
    "lu_solve B 1-D": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(3, 3), _piv(3), _f(3))),
    "lu_solve rows": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(3, 3), _piv(3), _f(4, 2))),
    "lu_solve right columns": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b, left=False),
                               (_f(3, 3), _piv(3), _f(4, 2))),
    "lu_solve int64 pivots": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b),
                              (_f(3, 3), _piv(3, dtype=np.int64), _f(4, 2))),
    "lu_solve pivots count": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(3, 3), _piv(2), _f(3, 2))),
    "lu_solve pivots batch": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(2, 3, 3), _piv(3), _f(3, 2))),
    "lu_solve batch": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b), (_f(2, 3, 3), _piv(2, 3), _f(3, 3, 2))),
    "lu_solve dtypes": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b),
                        (_f(3, 3), _piv(3), _f(3, 2, dtype=np.float32))),
    "lu_solve int": (lambda lib, lu, p, b: lib.linalg.lu_solve(lu, p, b),
                     (_piv(3, 3, dtype=np.int64), _piv(3), _piv(3, 2, dtype=np.int64))),
    "old lu_solve rows": (lambda lib, b, lu, p: lib.lu_solve(b, lu, p), (_f(4, 2), _f(3, 3), _piv(3))),
    "lu_unpack 1-D": (lambda lib, lu, p: lib.lu_unpack(lu.detach(), p), (_f(3), _piv(3))),
    "lu_unpack float pivots": (lambda lib, lu, p: lib.lu_unpack(lu, p), (_f(3, 3), _f(3))),
    "lu_factor 1-D": (lambda lib, a: lib.linalg.lu_factor(a.detach()), (_f(3),)),
    "lu_factor int": (lambda lib, a: lib.linalg.lu_factor(a), (_piv(3, 3, dtype=np.int64),)),
    "lu_factor singular": (lambda lib, a: lib.linalg.lu_factor(a), (np.zeros((2, 3, 3)),)),
    "lu_factor_ex check_errors": (lambda lib, a: lib.linalg.lu_factor_ex(a, check_errors=True),
                                  (np.array([[1.0, 2.0], [2.0, 4.0]]),)),
    "lu_factor without pivots": (lambda lib, a: lib.linalg.lu_factor(a, pivot=False), (_f(3, 3),)),
    "nuclear_norm 1-D": (lambda lib, a: lib.nuclear_norm(a), (_f(3),)),
    "nuclear_norm int": (lambda lib, a: lib.nuclear_norm(a), (_piv(3, 3, dtype=np.int64),)),
    "nuclear_norm half": (lambda lib, a: lib.nuclear_norm(a), (_f(3, 3, dtype=np.float16),)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_are_pytorchs_and_leave_nothing_behind(name: str) -> None:
    fn, arrays = ERRORS[name]
    with pytest.raises(Exception) as want, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(torch, *_leaves(torch, *arrays))
    leaves = _leaves(mg, *arrays)
    before = [t.detach().numpy().copy() for t in leaves]
    with pytest.raises(type(want.value)) as got:
        fn(mg, *leaves)
    assert str(got.value).split("\n")[0] == str(want.value).split("\n")[0]
    for t, b in zip(leaves, before):  # no changed tensor, no gradient from a node half made
        np.testing.assert_array_equal(t.detach().numpy(), b)
        assert t.grad is None


def test_lu_unpack_of_a_vector_that_requires_grad_raises_pytorchs_index_error() -> None:
    """PyTorch's autograd path sizes the factors before the check: an IndexError there, the RuntimeError without."""
    for lib in (torch, mg):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)"):
            lib.lu_unpack(lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([1, 2], dtype=lib.int32))
        with lib.no_grad(), pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
            lib.lu_unpack(lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([1, 2], dtype=lib.int32))
