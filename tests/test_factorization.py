"""The matrix factorizations (``ops/factorization.py``) against PyTorch: values, layouts, gradients to the second
order, the empty and degenerate cases, and the errors in PyTorch's words.

The signs of eigenvectors and singular vectors are the LAPACK's choice (PyTorch's MKL and NumPy's OpenBLAS
choose differently), so those are compared through functions that do not depend on them (``U diag(S) Vh``,
``V f(L) V^T``, ``U * U``).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(3)
SQ = RNG.standard_normal((4, 4))
TALL = RNG.standard_normal((5, 3))
WIDE = RNG.standard_normal((3, 5))
BATCH = RNG.standard_normal((2, 3, 3))


def _spd(lib: Any, a: Any) -> Any:
    return a @ a.mT + lib.eye(a.shape[-1], dtype=lib.float64)


def _vectors_free(svd: Any) -> tuple[Any, ...]:
    """Functions of an SVD that do not depend on the singular vectors' signs."""
    u, s, vh = svd
    k = s.shape[-1]
    return s, u[..., :k] @ s.diag_embed() @ vh[..., :k, :], u[..., :k] * u[..., :k], vh[..., :k, :] ** 2


CALLS: dict[str, tuple[Callable[..., Any], np.ndarray]] = {
    "cholesky": (lambda lib, a: lib.linalg.cholesky(_spd(lib, a)), SQ),
    "cholesky upper batched": (lambda lib, a: lib.linalg.cholesky(_spd(lib, a), upper=True), BATCH),
    "cholesky_ex": (lambda lib, a: tuple(lib.linalg.cholesky_ex(_spd(lib, a))), SQ),
    "slogdet": (lambda lib, a: tuple(lib.linalg.slogdet(a)), BATCH),
    "logdet of negative determinants": (lambda lib, a: lib.logdet(a), BATCH),
    **{f"qr {mode} {name}": ((lambda mode: lambda lib, a: tuple(lib.linalg.qr(a, mode=mode)))(mode), x)
       for mode in ("reduced", "complete") for name, x in (("tall", TALL), ("wide", WIDE), ("batch", BATCH))
       if not (mode == "complete" and name == "tall")},
    "eigh": (lambda lib, a: (lambda w, v: (w, v @ w.exp().diag_embed() @ v.mT, v * v))(*lib.linalg.eigh(a + a.mT)),
             BATCH),
    "eigvalsh upper": (lambda lib, a: lib.linalg.eigvalsh(a + a.mT, UPLO="U"), SQ),
    **{f"svd {full} {name}": ((lambda full: lambda lib, a: _vectors_free(lib.linalg.svd(a, full_matrices=full)))(full),
                              x)
       for full in (False, True) for name, x in (("tall", TALL), ("wide", WIDE), ("batch", BATCH))},
    "torch.svd": (lambda lib, a: (lambda u, s, v: (s, u @ s.diag_embed() @ v.mT))(*lib.svd(a)), WIDE),
    "svdvals": (lambda lib, a: lib.linalg.svdvals(a), TALL),
    "nuclear norm over dims (0, 2), keepdim": (lambda lib, a: lib.linalg.matrix_norm(a, "nuc", dim=(0, 2), keepdim=True),
                                               BATCH),
    "spectral norm": (lambda lib, a: lib.linalg.norm(a, 2), WIDE),
    "smallest singular value": (lambda lib, a: lib.linalg.matrix_norm(a, -2), TALL),
    "svdvals of a zero matrix (repeated singular values)": (lambda lib, a: lib.linalg.svdvals(a * 0), TALL),
    "pinv": (lambda lib, a: lib.linalg.pinv(a), WIDE),
    "pinv hermitian, atol": (lambda lib, a: lib.linalg.pinv(a + a.mT, hermitian=True, atol=0.2), SQ),
    "pinverse rcond": (lambda lib, a: lib.pinverse(a, rcond=0.3), TALL),
    **{f"lstsq {driver}": ((lambda driver: lambda lib, a: tuple(lib.linalg.lstsq(a, a[:, :2] ** 2, driver=driver))[:2])(
        driver), TALL) for driver in ("gels", "gelsy", "gelsd", "gelss")},
    "lstsq of vectors, batched": (lambda lib, a: lib.linalg.lstsq(a, a[..., 0].exp()).solution, BATCH),
    "matrix_exp": (lambda lib, a: lib.linalg.matrix_exp(a), SQ),
    "matrix_exp of a batch that needs squarings": (lambda lib, a: lib.matrix_exp(a * 3), BATCH),
}


def _outputs(lib: Any, name: str) -> tuple[list[Any], list[Any]]:
    fn, a = CALLS[name]
    x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.svd's deprecation
        out = fn(lib, x)
    return [x], list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_layouts_and_gradients_are_pytorchs(name):
    (tx,), touts = _outputs(torch, name)
    (mx,), mouts = _outputs(mg, name)
    rng = np.random.default_rng(0)
    t_loss, m_loss = 0, 0
    for t, m in zip(touts, mouts):
        assert tuple(m.shape) == tuple(t.shape) and m.stride() == t.stride()
        # (matrix_exp: two algorithms, each accurate to ~1e-14 of the largest element; the small ones differ more)
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=1e-9, atol=1e-12 * max(1.0, float(
            np.abs(t.detach().numpy()).max(initial=0))))
        if t.dtype.is_floating_point and t.requires_grad:
            w = rng.normal(size=tuple(t.shape))
            t_loss = t_loss + (t * torch.tensor(w)).sum()
            m_loss = m_loss + (m * mg.tensor(w)).sum()
    (tg,) = torch.autograd.grad(t_loss, tx, create_graph=True)
    (mgr,) = mg.grad(m_loss, mx, create_graph=True)
    scale = max(1.0, float(np.abs(tg.detach().numpy()).max(initial=0)))
    np.testing.assert_allclose(mgr.detach().numpy(), tg.detach().numpy(), rtol=1e-8, atol=1e-10 * scale)
    (tg2,) = torch.autograd.grad((tg * tg).sum(), tx)
    (mg2,) = mg.grad((mgr * mgr).sum(), mx)
    scale = max(1.0, float(np.abs(tg2.numpy()).max(initial=0)))
    np.testing.assert_allclose(mg2.numpy(), tg2.numpy(), rtol=1e-7, atol=1e-9 * scale)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "cholesky of a matrix that is not positive-definite": lambda lib: lib.linalg.cholesky(
        lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "cholesky of a batch": lambda lib: lib.linalg.cholesky(lib.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    "cholesky of NaN": lambda lib: lib.linalg.cholesky(lib.full((2, 2), float("nan"))),
    "torch.cholesky": lambda lib: lib.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "cholesky of integers": lambda lib: lib.linalg.cholesky(lib.eye(2, dtype=lib.int64)),
    "cholesky of a non-square matrix": lambda lib: lib.linalg.cholesky(lib.ones(2, 3)),
    "cholesky of a vector": lambda lib: lib.linalg.cholesky(lib.ones(2)),
    "cholesky of halves": lambda lib: lib.linalg.cholesky(lib.eye(2, dtype=lib.float16)),
    "slogdet of integers": lambda lib: lib.linalg.slogdet(lib.eye(2, dtype=lib.int64)),
    "slogdet of halves": lambda lib: lib.linalg.slogdet(lib.eye(2, dtype=lib.float16)),
    "slogdet of a non-square matrix": lambda lib: lib.linalg.slogdet(lib.ones(2, 3)),
    "logdet of integers": lambda lib: lib.logdet(lib.eye(2, dtype=lib.int64)),
    "logdet of a vector": lambda lib: lib.logdet(lib.ones(2)),
    "qr of an unknown mode": lambda lib: lib.linalg.qr(lib.eye(2), mode="full"),
    "qr of integers": lambda lib: lib.linalg.qr(lib.eye(2, dtype=lib.int64)),
    "qr of a mode that is not a string": lambda lib: lib.linalg.qr(lib.eye(2), mode=1),
    "qr's gradient in mode r": lambda lib: lib.linalg.qr(lib.ones(3, 3, requires_grad=True), mode="r").R.sum().backward(),
    "qr's gradient of a complete tall Q": lambda lib: lib.linalg.qr(
        lib.ones(3, 2, requires_grad=True) + lib.eye(3, 2), mode="complete").Q.sum().backward(),
    "eigh of integers": lambda lib: lib.linalg.eigh(lib.eye(2, dtype=lib.int64)),
    "eigh of an unknown UPLO": lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="X"),
    "eigh of a non-square matrix": lambda lib: lib.linalg.eigh(lib.ones(2, 3)),
    "svd of integers": lambda lib: lib.linalg.svd(lib.eye(2, dtype=lib.int64)),
    "svd of a vector": lambda lib: lib.linalg.svd(lib.ones(2)),
    "svd of NaN": lambda lib: lib.linalg.svd(lib.full((2, 2), float("nan"))),
    "svd with a driver on the CPU": lambda lib: lib.linalg.svd(lib.eye(2), driver="gesvd"),
    "the nuclear norm of a 3-D tensor without dims": lambda lib: lib.norm(lib.ones(2, 3, 4), p="nuc"),
    "pinv of integers": lambda lib: lib.linalg.pinv(lib.ones(2, 2, dtype=lib.int64)),
    "pinv of a vector": lambda lib: lib.linalg.pinv(lib.ones(2)),
    "pinv hermitian of a non-square matrix": lambda lib: lib.linalg.pinv(lib.ones(3, 2), hermitian=True),
    "lstsq of integers": lambda lib: lib.linalg.lstsq(lib.ones(4, 3, dtype=lib.int64), lib.ones(4, 3, dtype=lib.int64)),
    "lstsq of two dtypes": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2, dtype=lib.float64)),
    "lstsq of mismatched rows": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(3, 2)),
    "lstsq of a vector": lambda lib: lib.linalg.lstsq(lib.ones(4), lib.ones(4)),
    "lstsq of an unknown driver": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2), driver="foo"),
    "solve_triangular of integers": lambda lib: lib.linalg.solve_triangular(lib.eye(2, dtype=lib.int64),
                                                                            lib.ones(2, 2, dtype=lib.int64), upper=True),
    "solve_triangular of a vector": lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(2), upper=True),
    "solve_triangular of mismatched shapes": lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(3, 3),
                                                                                     upper=True),
    "matrix_exp of integers": lambda lib: lib.linalg.matrix_exp(lib.eye(2, dtype=lib.int64)),
    "matrix_exp of a vector": lambda lib: lib.linalg.matrix_exp(lib.ones(2)),
    "matrix_exp of a non-square matrix": lambda lib: lib.matrix_exp(lib.ones(2, 3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](mg)
    assert isinstance(ours.value, RuntimeError) == isinstance(theirs.value, RuntimeError)
    assert isinstance(ours.value, NotImplementedError) == isinstance(theirs.value, NotImplementedError)
    # (an error raised in backward is prefixed with the node it came from: "in LinalgQrBackward0#12 ...: ")
    assert str(ours.value) == str(theirs.value) or "Backward0#" in str(ours.value) and str(ours.value).endswith(
        ": " + str(theirs.value))


EDGES: dict[str, Callable[[Any], Any]] = {
    "cholesky_ex of a matrix that is not positive-definite": lambda lib: tuple(lib.linalg.cholesky_ex(
        lib.tensor([[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]]], dtype=lib.float64))),
    "cholesky of no matrix": lambda lib: lib.linalg.cholesky(lib.ones(3, 0, 0)),
    "slogdet of a singular matrix": lambda lib: tuple(lib.linalg.slogdet(lib.zeros(2, 2))),
    "slogdet of a 0x0 matrix": lambda lib: tuple(lib.linalg.slogdet(lib.ones(0, 0))),
    "logdet of a singular and a negative one": lambda lib: lib.logdet(lib.stack([lib.zeros(2, 2), -lib.eye(3)[:2, :2]])),
    "qr of an empty matrix": lambda lib: tuple(lib.linalg.qr(lib.ones(0, 3))),
    "qr complete of an empty matrix": lambda lib: tuple(lib.linalg.qr(lib.ones(3, 0), mode="complete")),
    "qr r": lambda lib: tuple(lib.linalg.qr(lib.tensor(TALL), mode="r")),
    "eigh of NaN": lambda lib: lib.linalg.eigvalsh(lib.full((2, 2), float("nan"))),
    "eigvalsh of UPLO in lower case": lambda lib: lib.linalg.eigvalsh(lib.tensor(SQ), UPLO="u"),
    "eigh of an empty matrix": lambda lib: tuple(lib.linalg.eigh(lib.ones(0, 0))),
    "svd of an empty matrix": lambda lib: tuple(lib.linalg.svd(lib.ones(0, 3))),
    "svd reduced of an empty batch": lambda lib: tuple(lib.linalg.svd(lib.ones(0, 2, 3), full_matrices=False)),
    "svd without U and V": lambda lib: tuple(lib.svd(lib.tensor(TALL), compute_uv=False)),
    "torch.svd full": lambda lib: tuple(lib.svd(lib.tensor(np.diag([3.0, 2.0, 1.0])), some=False)),
    "pinv of an empty matrix": lambda lib: lib.linalg.pinv(lib.ones(0, 3)),
    "solve_triangular of a singular triangle": lambda lib: lib.linalg.solve_triangular(
        lib.tensor([[0.0, 1.0], [0.0, 2.0]]), lib.ones(2, 1), upper=True),
    "solve_triangular of two dtypes": lambda lib: lib.linalg.solve_triangular(
        lib.tensor(SQ) + 4 * lib.eye(4, dtype=lib.float64), lib.ones(4, 2), upper=False),
    "matrix_exp of NaN, of an empty batch, of 1x1": lambda lib: (lib.linalg.matrix_exp(lib.full((2, 2), float("nan"))),
                                                               lib.linalg.matrix_exp(lib.ones(2, 0, 0)),
                                                               lib.linalg.matrix_exp(lib.ones(1, 1))),
    "pinv of a singular matrix": lambda lib: lib.linalg.pinv(lib.ones(3, 3, dtype=lib.float64)),
    "lstsq of a rank-deficient matrix": lambda lib: tuple(lib.linalg.lstsq(lib.ones(4, 3, dtype=lib.float64),
                                                                           lib.tensor(TALL[:4, :2]), driver="gelsd")),
    "lstsq with residuals, a vector": lambda lib: tuple(lib.linalg.lstsq(lib.tensor(TALL), lib.tensor(TALL[:, 0]) ** 2,
                                                                         driver="gelss")),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_cases_are_pytorchs(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = EDGES[name](torch)
    ours = EDGES[name](mg)
    theirs, ours = (theirs, ours) if isinstance(theirs, tuple) else ((theirs,), (ours,))
    for t, m in zip(theirs, ours):
        assert tuple(m.shape) == tuple(t.shape) and str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)


def test_the_integer_result_of_cholesky_ex_takes_no_gradient():
    """``info`` is an int32 result of the node: no history, as PyTorch's (the float result shares the node)."""
    a = mg.tensor(_spd(np, SQ), requires_grad=True)
    L, info = mg.linalg.cholesky_ex(a)
    assert info.grad_fn is None and not info.requires_grad and type(L.grad_fn).__name__ == "LinalgCholeskyExBackward0"


def test_tensor_methods():
    a = mg.tensor(_spd(np, SQ))
    assert np.allclose(a.cholesky().numpy(), np.linalg.cholesky(a.numpy()))
    assert np.isclose(a.logdet().item(), np.linalg.slogdet(a.numpy())[1])
    assert np.isclose(a.slogdet().logabsdet.item(), np.linalg.slogdet(a.numpy())[1])
    assert np.allclose(a.qr().R.numpy(), np.linalg.qr(a.numpy())[1])
    assert np.allclose(a.svd().S.numpy(), np.linalg.svd(a.numpy())[1])


#: Singular and nearly singular matrices whose LU has exact zeros (or none): PyTorch's backwards of slogdet, logdet
#: and det solve with the LU of A^T (slogdet's: a zero pivot divides, inf and NaN; det's: eps in its place, so a
#: singular matrix's gradient is det * ... = 0), no error
SINGULAR = {
    "rank 2": [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
    "rank 1": [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]],
    "zero": [[0.0, 0.0], [0.0, 0.0]],
    "nilpotent": [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
    "nearly singular": [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0000001], [1.0, 0.0, 1.0]],
    "a batch of a singular and a regular one": [[[1.0, 2.0], [2.0, 4.0]], [[3.0, 1.0], [1.0, 2.0]]],
}


@pytest.mark.parametrize("fn", ["slogdet", "logdet", "det"])
@pytest.mark.parametrize("name", sorted(SINGULAR))
def test_gradients_at_singular_matrices_are_pytorchs(name, fn):
    def grad(lib):
        x = lib.tensor(SINGULAR[name], dtype=lib.float64, requires_grad=True)
        y = {"slogdet": lambda: lib.linalg.slogdet(x).logabsdet, "logdet": lambda: lib.logdet(x),
             "det": lambda: lib.linalg.det(x)}[fn]()
        (g,) = lib.autograd.grad(y.sum(), x)
        return g.numpy()

    ours, theirs = grad(mg), grad(torch)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)  # (inf: of the same sign)


#: Matrices holding a NaN that NumPy's LAPACK pivots around (a finite row in ``inv``, a sign of 1 or -1 in
#: ``slogdet``), where PyTorch's LU carries it into every factor
NAN_MATRICES = {
    "a NaN pivot": [[float("nan"), 2.0], [3.0, 4.0]],
    "a NaN on the diagonal": [[2.0, 1.0, 0.0], [1.0, float("nan"), 1.0], [0.0, 1.0, 3.0]],
    "a batch of one with a NaN and a regular one": [[[1.0, float("nan")], [0.0, 1.0]], [[3.0, 1.0], [1.0, 2.0]]],
}


@pytest.mark.parametrize("name", sorted(NAN_MATRICES))
def test_inv_solve_det_and_slogdet_of_a_matrix_holding_nan_are_pytorchs(name):
    """NaN everywhere in ``inv`` and ``solve``, ``det`` NaN, ``slogdet`` (0, NaN), without an error."""
    def values(lib):
        a = lib.tensor(NAN_MATRICES[name], dtype=lib.float64)
        b = lib.ones(a.shape[:-1], dtype=lib.float64)
        sign, logabsdet = lib.linalg.slogdet(a)
        return [t.numpy() for t in (lib.linalg.inv(a), lib.linalg.solve(a, b), lib.linalg.det(a), sign, logabsdet)]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's "invalid value encountered")
        ours = values(mg)
    for got, want in zip(ours, values(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", ["rank 2", "nearly singular"])
def test_det_second_derivatives_at_singular_matrices_are_pytorchs(name):
    """With create_graph, det's gradient at a singular matrix comes through its SVD (det is smooth there). (Not
    the nilpotent one: its repeated singular values make PyTorch's svd backward NaN, minigrad's not.)"""
    def grads(lib):
        x = lib.tensor(SINGULAR[name], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.linalg.det(x), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        return g.detach().numpy(), gg.numpy()

    for ours, theirs in zip(grads(mg), grads(torch)):  # (the nearly singular one is ill-conditioned)
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("matrix", [[[np.inf, 1.0], [2.0, 3.0]], [[np.inf, np.inf], [1.0, 2.0]], [[np.nan, 1.0], [2.0, 3.0]],
                                    [[-np.inf, 0.0], [0.0, 1.0]]], ids=["inf", "inf row", "nan", "-inf"])
def test_det_and_slogdet_of_a_matrix_holding_inf_or_nan_are_pytorchs_without_a_warning(matrix):
    """A student's matrix holding inf or nan: PyTorch's values (nan, or inf with its sign), and no NumPy
    "invalid value encountered" warning printed, as PyTorch prints none."""
    def values(lib):
        x = lib.tensor(matrix, dtype=lib.float64)
        sign, logabsdet = lib.linalg.slogdet(x)
        return [lib.linalg.det(x).item(), sign.item(), logabsdet.item(), lib.logdet(x).item()]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = values(mg)
    np.testing.assert_array_equal(ours, values(torch))
