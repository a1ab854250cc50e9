"""``linalg.lu`` (P, L, U from one node, ``LinalgLuBackward0``) and the LDL^T family (``ldl_factor_ex``,
``ldl_factor``, ``ldl_solve``) as PyTorch's: values, Bunch-Kaufman's pivots and compact ``LD`` bit for bit,
batches, PyTorch's refusals in its words, ``linalg.lu``'s gradient against central finite differences and
against PyTorch's, and the LDL ops' refusal to differentiate."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)


def _symmetric(*shape: int, small_diagonal: bool = False) -> np.ndarray:
    a = RNG.standard_normal(shape)
    a = a + np.swapaxes(a, -1, -2)
    if small_diagonal:  # Bunch-Kaufman's 2x2 pivots (and its swaps) come from a small diagonal
        n = shape[-1]
        a[..., np.arange(n), np.arange(n)] = 0.01 * RNG.standard_normal(shape[:-1])
    return a


# -- linalg.lu ---------------------------------------------------------------------------------------------------

LU_SHAPES = [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 1, 4, 2), (1, 1), (0, 0), (3, 0)]


@pytest.mark.parametrize("shape", LU_SHAPES, ids=str)
def test_lu_is_pytorch_s_and_reassembles(shape: tuple[int, ...]) -> None:
    a = RNG.standard_normal(shape)
    P, L, U = mg.linalg.lu(mg.tensor(a))
    tP, tL, tU = torch.linalg.lu(torch.tensor(a))
    for got, want in ((P, tP), (L, tL), (U, tU)):
        assert got.shape == tuple(want.shape) and got.dtype == mg.float64
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(P.numpy(), tP.numpy())  # the same row choices
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-12)


def test_lu_names_its_node_and_p_takes_no_gradient() -> None:
    A = mg.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    P, L, U = mg.linalg.lu(A)
    assert type(mg.linalg.lu(A)).__name__ == "linalg_lu" and "linalg_lu(" in repr(mg.linalg.lu(A))
    assert L.grad_fn.name() == U.grad_fn.name() == "LinalgLuBackward0" and L.grad_fn is U.grad_fn
    assert not P.requires_grad


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)], ids=str)
def test_lu_gradient_against_finite_differences(shape: tuple[int, ...]) -> None:
    A = mg.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda x: tuple(mg.linalg.lu(x)[1:]), [A])
    assert gradcheck(lambda x: mg.linalg.lu(x).U, [A])  # only U used: L's gradient is missing, taken as 0
    assert gradcheck(lambda x: mg.linalg.lu(x).L, [A])


def test_lu_second_derivative() -> None:
    A = mg.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    assert gradgradcheck(lambda x: tuple(mg.linalg.lu(x)[1:]), [A])


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)], ids=str)
def test_lu_gradient_is_pytorch_s(shape: tuple[int, ...]) -> None:
    a = RNG.standard_normal(shape)
    gl, gu = RNG.standard_normal(shape[:-1] + (min(shape[-2:]),)), RNG.standard_normal(shape[:-2] + (min(shape[-2:]), shape[-1]))
    A, tA = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    _, L, U = mg.linalg.lu(A)
    ((L * mg.tensor(gl)).sum() + (U * mg.tensor(gu)).sum()).backward()
    _, tL, tU = torch.linalg.lu(tA)
    ((tL * torch.tensor(gl)).sum() + (tU * torch.tensor(gu)).sum()).backward()
    np.testing.assert_allclose(A.grad.numpy(), tA.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("call, error, words", [
    (lambda lib: lib.linalg.lu(lib.ones(3)), RuntimeError,
     r"linalg.lu: Expected tensor with 2 or more dimensions. Got size: \[3\] instead"),
    (lambda lib: lib.linalg.lu(lib.ones(3, 3, dtype=lib.int32)), NotImplementedError,
     "\"lu_cpu\" not implemented for 'Int'"),
    (lambda lib: lib.linalg.lu(lib.ones(3, 3), pivot=False), RuntimeError,
     "linalg.lu_factor: LU without pivoting is not implemented on the CPU"),
], ids=["vector", "int", "no-pivot"])
def test_lu_refuses_in_pytorch_s_words(call: Any, error: type, words: str) -> None:
    for lib in (torch, mg):
        with pytest.raises(error, match=words):
            call(lib)


# -- ldl_factor_ex, ldl_factor ---------------------------------------------------------------------------------

LDL_CASES = [((n, n), small) for n in (1, 2, 3, 4, 5, 6, 8, 12, 20) for small in (False, True)] + [
    ((3, 4, 4), True), ((2, 1, 5, 5), False), ((0, 0), False), ((2, 0, 0), False)]


@pytest.mark.parametrize("shape, small", LDL_CASES, ids=str)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factor_is_lapack_s_sytrf_bit_for_bit(shape: tuple[int, ...], small: bool, hermitian: bool) -> None:
    """The compact ``LD`` (upper triangle zero, column-major as LAPACK writes it), the pivots with their 2x2
    blocks, and ``info``, in float64 and float32."""
    a = _symmetric(*shape, small_diagonal=small)
    for dtype in ("float64", "float32"):
        got = mg.linalg.ldl_factor_ex(mg.tensor(a, dtype=getattr(mg, dtype)), hermitian=hermitian)
        want = torch.linalg.ldl_factor_ex(torch.tensor(a, dtype=getattr(torch, dtype)), hermitian=hermitian)
        np.testing.assert_array_equal(got.pivots.numpy(), want.pivots.numpy())
        np.testing.assert_array_equal(got.LD.numpy(), want.LD.numpy())
        np.testing.assert_array_equal(got.info.numpy(), want.info.numpy())
        assert got.LD.stride() == want.LD.stride() and got.pivots.dtype == mg.int32
    LD, pivots = mg.linalg.ldl_factor(mg.tensor(a))
    assert type(mg.linalg.ldl_factor(mg.tensor(a))).__name__ == "linalg_ldl_factor"


def test_ldl_factor_reads_the_lower_triangle_and_reassembles() -> None:
    a = _symmetric(6, 6, small_diagonal=True)
    junk = a + np.triu(RNG.standard_normal((6, 6)), 1)  # the upper triangle is never read
    LD, pivots = mg.linalg.ldl_factor(mg.tensor(junk))
    np.testing.assert_array_equal(LD.numpy(), mg.linalg.ldl_factor(mg.tensor(a)).LD.numpy())
    assert (pivots.numpy() < 0).any()  # the case has a 2x2 block
    x = mg.linalg.ldl_solve(LD, pivots, mg.eye(6, dtype=mg.float64))
    np.testing.assert_allclose(x.numpy() @ a, np.eye(6), atol=1e-10)  # the inverse: A = P L D L^T P^T


def test_a_zero_pivot_is_reported_as_pytorch_reports_it() -> None:
    z = np.zeros((3, 3))
    got, want = mg.linalg.ldl_factor_ex(mg.tensor(z)), torch.linalg.ldl_factor_ex(torch.tensor(z))
    assert got.info.item() == want.info.item() == 1
    for lib, name in ((torch, "ldl_factor"), (mg, "ldl_factor")):
        with pytest.raises(RuntimeError, match="Unknown error code: 1"):
            getattr(lib.linalg, name)(lib.zeros(3, 3))
        with pytest.raises(RuntimeError, match="Unknown error code: 1"):
            lib.linalg.ldl_factor_ex(lib.zeros(2, 3, 3), check_errors=True)


@pytest.mark.parametrize("call, error, words", [
    (lambda lib: lib.linalg.ldl_factor(lib.ones(2, 3)), RuntimeError,
     "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda lib: lib.linalg.ldl_factor(lib.ones(3)), RuntimeError,
     "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions."),
    (lambda lib: lib.linalg.ldl_factor(lib.ones(3, 3, dtype=lib.int32)), RuntimeError,
     "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got Int"),
    (lambda lib: lib.linalg.ldl_factor(lib.ones(3, 3, dtype=lib.float16)), NotImplementedError,
     "\"ldl_factor_kernel_cpu\" not implemented for 'Half'"),
], ids=["wide", "vector", "int", "half"])
def test_ldl_factor_refuses_in_pytorch_s_words(call: Any, error: type, words: str) -> None:
    for lib in (torch, mg):
        with pytest.raises(error, match=words):
            call(lib)


# -- ldl_solve ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, small", LDL_CASES, ids=str)
def test_ldl_solve_is_pytorch_s(shape: tuple[int, ...], small: bool) -> None:
    """LAPACK's ``sytrs``: its elimination order reproduced (the same bits mostly; the dot products of its
    backward sweep are BLAS's, a last bit apart at times)."""
    a = _symmetric(*shape, small_diagonal=small)
    b = RNG.standard_normal(shape[:-1] + (3,))
    LD, pivots = torch.linalg.ldl_factor(torch.tensor(a)) if shape[-1] else (None, None)
    if LD is None:
        return
    want = torch.linalg.ldl_solve(LD, pivots, torch.tensor(b))
    got = mg.linalg.ldl_solve(mg.tensor(LD.numpy()), mg.tensor(pivots.numpy()), mg.tensor(b))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    if shape[-1] > 1:  # (a single row's strides are a matter of convention)
        assert got.stride() == want.stride()
    np.testing.assert_allclose(np.matmul(a, got.numpy()), b, atol=1e-8)


def test_ldl_solve_broadcasts_batches_and_takes_long_pivots() -> None:
    a = _symmetric(3, 3, small_diagonal=True)
    LD, pivots = mg.linalg.ldl_factor(mg.tensor(a))
    b = RNG.standard_normal((5, 3, 2))
    x = mg.linalg.ldl_solve(LD, pivots.long(), mg.tensor(b))
    assert x.shape == (5, 3, 2)
    np.testing.assert_allclose(np.matmul(a, x.numpy()), b, atol=1e-10)
    x2 = mg.linalg.ldl_solve(LD.expand(4, 3, 3), pivots.expand(4, 3), mg.tensor(b[0]), hermitian=True)
    np.testing.assert_allclose(x2.numpy(), np.broadcast_to(x.numpy()[0], (4, 3, 2)), rtol=1e-12)


@pytest.mark.parametrize("args, error, words", [
    (lambda lib, LD, p: (LD[0], p, lib.ones(3, 2)), RuntimeError,
     "torch.linalg.ldl_solve: The input tensor A must have at least 2 dimensions."),
    (lambda lib, LD, p: (LD[:2], p, lib.ones(3, 2)), RuntimeError,
     "torch.linalg.ldl_solve: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda lib, LD, p: (LD, p[:2], lib.ones(3, 2)), RuntimeError,
     r"torch.linalg.ldl_solve: Expected LD.shape\[:-1\] and pivots.shape to be the same, but got pivots with "
     r"shape \[2\] instead"),
    (lambda lib, LD, p: (LD, p.float(), lib.ones(3, 2)), RuntimeError,
     "torch.linalg.ldl_solve: Expected pivots to be integers. Got Float"),
    (lambda lib, LD, p: (LD, p, lib.ones(3, 2, dtype=lib.float64)), RuntimeError,
     "Expected b and A to have the same dtype, but found b of type Double and A of type Float instead."),
    (lambda lib, LD, p: (LD, p, lib.ones(4, 2)), RuntimeError,
     "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 3 by 3 but each b matrix is 4 by 2"),
    (lambda lib, LD, p: (LD, p, lib.ones(3)), IndexError, r"Dimension out of range"),
], ids=["vector-LD", "wide-LD", "pivots-shape", "float-pivots", "dtype", "rows", "vector-B"])
def test_ldl_solve_refuses_in_pytorch_s_words(args: Any, error: type, words: str) -> None:
    for lib in (torch, mg):
        LD, p = lib.linalg.ldl_factor(lib.eye(3) + 1)
        with pytest.raises(error, match=words):
            lib.linalg.ldl_solve(*args(lib, LD, p))


def test_ldl_is_not_differentiable_as_in_pytorch() -> None:
    """Both outputs require grad (the input does) and a backward through them raises PyTorch's words."""
    a = _symmetric(3, 3)
    for lib, factor_words, solve_words in ((torch, "linalg_ldl_factor_ex", "linalg_ldl_solve"),
                                           (mg, "linalg_ldl_factor_ex", "linalg_ldl_solve")):
        A = lib.tensor(a, requires_grad=True)
        LD, pivots = lib.linalg.ldl_factor(A)
        assert LD.requires_grad and not pivots.requires_grad
        with pytest.raises(RuntimeError, match=f"derivative for aten::{factor_words} is not implemented"):
            LD.sum().backward()
        B = lib.tensor(RNG.standard_normal((3, 2)), requires_grad=True)
        X = lib.linalg.ldl_solve(LD.detach(), pivots, B)
        assert X.requires_grad
        with pytest.raises(RuntimeError, match=f"derivative for aten::{solve_words} is not implemented"):
            X.sum().backward()
