"""The matrix factorizations' kernel bodies over the arrays of one module ``xp`` (NumPy or CuPy): the CPU
kernels (``ops/factorization.py``) and the GPU's (``kernels/gpu/linalg.py``) share them.

``xp.linalg`` factors (LAPACK on the CPU, cuSOLVER through CuPy on a device); what is written here is what
PyTorch adds around the factorization: ``cholesky_ex``'s ``info`` read from the factor, the layouts of
the results, the empty cases, and ``matrix_exp``'s Taylor polynomial with scaling and squaring.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..devices import to_numpy
from .array_kernels import column_major

__all__ = ["cholesky_info", "partial_cholesky", "solve_triangular_arrays", "cholesky_inverse_arrays", "qr_arrays", "eigh_arrays", "svd_arrays",
           "pinv_arrays", "lstsq_arrays", "matrix_exp_arrays", "reflector_vectors", "apply_reflectors_arrays",
           "householder_product_arrays", "geqrf_arrays", "pivots_to_permutation", "permutation_matrix",
           "lu_unpack_arrays", "lu_solve_arrays", "lu_factor_arrays"]


def partial_cholesky(a: np.ndarray) -> np.ndarray:
    """LAPACK's ``potf2`` on one matrix, lower: the columns factored up to the first leading minor that is not
    positive-definite, whose diagonal element keeps the value that was not positive (``A[j, j] - L[j, :j] .
    L[j, :j]``, NaN for a NaN), the rest of the lower triangle as it was. ``linalg.cholesky_ex`` returns
    this ``L`` for a matrix that is not positive-definite (NumPy's ``cholesky`` raises there instead)."""
    n = a.shape[-1]
    low = np.tril(a).astype(a.dtype, copy=True)
    for j in range(n):
        d = a[j, j] - low[j, :j] @ low[j, :j]
        if not d > 0:
            low[j, j] = d
            break
        d = np.sqrt(d)
        low[j, j] = d
        low[j + 1:, j] = (a[j + 1:, j] - low[j + 1:, :j] @ low[j, :j]) / d
    return low


def cholesky_info(xp: Any, low: Any) -> Any:
    """``cholesky_ex``'s ``info`` from the lower factor: for each matrix, 1 + the position of the first diagonal
    element that is not positive (a failed leading minor leaves its non-positive value, or NaN, there:
    LAPACK's ``potrf`` and cuSOLVER's), 0 where all are; int32, as PyTorch's. Computed on the arrays'
    device: no read."""
    if low.shape[-1] == 0:
        return xp.zeros(low.shape[:-2], dtype=np.int32)
    bad = ~(xp.diagonal(low, 0, -2, -1) > 0)
    return xp.where(bad.any(-1), bad.argmax(-1) + 1, 0).astype(np.int32)


def _substitute(a: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    """``a x = b`` for triangular ``a`` by substitution, row by row (over the batch and ``b``'s columns at once): a
    zero on the diagonal gives infinities and NaN, as LAPACK's ``trsm``, where ``np.linalg.solve`` raises."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=np.result_type(a, b))
    with np.errstate(all="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            acc = np.matmul(a[..., i:i + 1, done], x[..., done, :])
            x[..., i:i + 1, :] = (b[..., i:i + 1, :] - acc) / a[..., i:i + 1, i:i + 1]
    return x


def solve_triangular_arrays(xp: Any, a: Any, b: Any, upper: bool, left: bool = True,
                            unitriangular: bool = False) -> Any:
    """The ``X`` with ``A X = B`` (``left=False``: ``X A = B``) reading only ``A``'s triangle ``upper`` (its diagonal
    taken as ones where ``unitriangular``), batch dims broadcast; column-major, as PyTorch's. NumPy's solve of
    the triangle (substitution where it is singular: no error, as PyTorch's); on a device ``xp.linalg.solve``,
    which reads nothing back."""
    tri = xp.triu(a) if upper else xp.tril(a)
    if unitriangular:
        n = a.shape[-1]
        tri = tri * (1 - xp.eye(n, dtype=a.dtype)) + xp.eye(n, dtype=a.dtype)
    if not left:  # X A = B  <=>  A^T X^T = B^T, the other triangle
        tri, b, upper = xp.swapaxes(tri, -1, -2), xp.swapaxes(b, -1, -2), not upper
    batch = tuple(np.broadcast_shapes(tri.shape[:-2], b.shape[:-2]))
    tri_b = xp.broadcast_to(tri, batch + tri.shape[-2:])
    b_b = xp.broadcast_to(b, batch + b.shape[-2:])
    if not tri_b.size or not b_b.size:
        x = xp.zeros(b_b.shape, dtype=a.dtype)
    elif xp is np:
        try:
            x = np.linalg.solve(tri_b, b_b)
        except np.linalg.LinAlgError:
            x = _substitute(tri_b, b_b, upper)
    else:
        x = xp.linalg.solve(tri_b, b_b)
    x = xp.asarray(x, dtype=a.dtype)
    return column_major(xp, x) if left else column_major(xp, xp.swapaxes(x, -1, -2))


def cholesky_inverse_arrays(xp: Any, factor: Any, upper: bool = False) -> Any:
    """``A^-1`` for ``A = L L^T`` (``upper``: ``U^T U``) from its triangular factor (only that triangle read):
    ``L^-T L^-1`` (``U^-1 U^-T``) with the factor's inverse by ``solve_triangular_arrays``; column-major."""
    n = factor.shape[-1]
    inv = solve_triangular_arrays(xp, factor, xp.broadcast_to(xp.eye(n, dtype=factor.dtype), factor.shape), upper)
    t = xp.swapaxes(inv, -1, -2)
    return column_major(xp, xp.asarray(xp.matmul(inv, t) if upper else xp.matmul(t, inv), dtype=factor.dtype))


def qr_arrays(xp: Any, a: Any, mode: str = "reduced") -> tuple[Any, Any]:
    """``xp.linalg.qr`` (Householder: LAPACK's ``geqrf``/``orgqr``, cuSOLVER's), both factors column-major as
    PyTorch's; an empty matrix gives an identity ``Q`` in ``complete`` mode."""
    *batch, m, n = a.shape
    k = m if mode == "complete" else min(m, n)
    if a.size == 0:
        q = xp.broadcast_to(xp.eye(m, k, dtype=a.dtype), (*batch, m, k))
        r = xp.zeros((*batch, k, n), dtype=a.dtype)
    else:
        q, r = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    q = xp.empty((0,), dtype=a.dtype) if mode == "r" else column_major(xp, xp.asarray(q, dtype=a.dtype))
    return q, column_major(xp, xp.asarray(r, dtype=a.dtype))

def eigh_arrays(xp: Any, a: Any, UPLO: str = "L") -> tuple[Any, Any]:
    """``xp.linalg.eigh`` (LAPACK's ``syevd``, cuSOLVER's ``syevj``/``syevd``) of the triangle ``UPLO``: the
    eigenvalues ascending, the eigenvectors column-major, as PyTorch's."""
    if a.size == 0:
        return xp.empty(a.shape[:-1], dtype=a.dtype), xp.empty(a.shape, dtype=a.dtype)
    w, v = xp.linalg.eigh(a, UPLO=UPLO)
    return xp.ascontiguousarray(xp.asarray(w, dtype=a.dtype)), column_major(xp, xp.asarray(v, dtype=a.dtype))

def svd_arrays(xp: Any, a: Any, full_matrices: bool = True) -> tuple[Any, Any, Any]:
    """``xp.linalg.svd`` (LAPACK's ``gesdd``, cuSOLVER's ``gesvdj``/``gesvd``): ``U`` and ``Vh`` column-major, as
    PyTorch's; an empty matrix gives identities where a factor is square."""
    *batch, m, n = a.shape
    k = min(m, n)
    if a.size == 0:
        um, vn = (m, n) if full_matrices else (k, k)
        u = xp.broadcast_to(xp.eye(m, um, dtype=a.dtype), (*batch, m, um))
        vh = xp.broadcast_to(xp.eye(vn, n, dtype=a.dtype), (*batch, vn, n))
        return column_major(xp, xp.array(u)), xp.zeros((*batch, k), dtype=a.dtype), column_major(xp, xp.array(vh))
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return (column_major(xp, xp.asarray(u, dtype=a.dtype)), xp.ascontiguousarray(xp.asarray(s, dtype=a.dtype)),
            column_major(xp, xp.asarray(vh, dtype=a.dtype)))


def pinv_arrays(xp: Any, a: Any, atol: float | None = None, rtol: float | None = None,
                hermitian: bool = False) -> Any:
    """The pseudo-inverse of each matrix of ``a`` from its SVD (``hermitian``: its eigendecomposition), the
    singular values not above ``max(atol, rtol * largest)`` dropped; PyTorch's defaults: ``atol`` 0 and ``rtol``
    ``eps * max(m, n)`` when neither is given, ``rtol`` 0 when only ``atol`` (> 0) is. Row-major, as PyTorch's."""
    *batch, m, n = a.shape
    if a.size == 0:
        return xp.zeros((*batch, n, m), dtype=a.dtype)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else float(np.finfo(a.dtype).eps) * max(m, n)
    atol = 0.0 if atol is None else atol
    if hermitian:
        w, v = xp.linalg.eigh(a)
        size = xp.abs(w)
        cut = xp.maximum(atol, rtol * size.max(axis=-1, keepdims=True))
        inv = xp.where(size > cut, 1 / xp.where(size > cut, w, 1), 0).astype(a.dtype)
        out = xp.matmul(v * inv[..., None, :], xp.swapaxes(v, -1, -2))
    else:
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        cut = xp.maximum(atol, rtol * s[..., :1])
        inv = xp.where(s > cut, 1 / xp.where(s > cut, s, 1), 0).astype(a.dtype)
        out = xp.matmul(xp.swapaxes(vh, -1, -2) * inv[..., None, :], xp.swapaxes(u, -1, -2))
    return xp.ascontiguousarray(out.astype(a.dtype, copy=False))


def lstsq_arrays(xp: Any, a: Any, b: Any, rcond: float | None, driver: str) -> tuple[Any, Any, Any, Any]:
    """The least-squares solution of ``A X = B`` from the pseudo-inverse (the minimum-norm one where ``A`` is
    rank-deficient, as LAPACK's drivers give), with the extra results of PyTorch's ``driver``: the rank
    (``gelsy``, ``gelsd``, ``gelss``), the singular values (``gelsd``, ``gelss``), the squared residuals of
    each column (not ``gelsy``; for ``m > n`` and, but for ``gels``, every matrix of full rank)."""
    vector = b.ndim == a.ndim - 1
    rhs = b[..., None] if vector else b
    m, n = a.shape[-2:]
    batch = tuple(np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2]))
    a_b = xp.broadcast_to(a, batch + (m, n))
    rhs_b = xp.broadcast_to(rhs, batch + rhs.shape[-2:])
    rtol = float(np.finfo(a.dtype).eps) * max(m, n) if rcond is None or rcond < 0 else rcond
    empty = xp.empty((0,), dtype=a.dtype)
    s, rank = empty, xp.empty((0,), dtype=np.int64)
    if driver != "gels":  # (gels, a GPU's, computes neither: no read there)
        s = xp.linalg.svd(a_b, compute_uv=False).astype(a.dtype, copy=False) if a.size else \
            xp.zeros(batch + (min(m, n),), dtype=a.dtype)
        rank = (s > rtol * s[..., :1]).sum(-1).astype(np.int64) if s.shape[-1] else xp.zeros(batch, dtype=np.int64)
    x = xp.matmul(pinv_arrays(xp, a_b, None, rtol), rhs_b)
    full_rank = driver == "gels" or (driver != "gelsy" and bool((rank == n).all()))
    residuals = ((xp.matmul(a_b, x) - rhs_b) ** 2).sum(-2) if m > n and driver != "gelsy" and full_rank else empty
    # PyTorch's solution is the first n rows of LAPACK's column-major (max(m, n), k) right-hand-side buffer
    buf = xp.zeros(batch + (x.shape[-1], max(m, n)), dtype=a.dtype)
    buf[..., :n] = xp.swapaxes(x, -1, -2)
    x = buf[..., 0, :n] if vector else xp.swapaxes(buf, -1, -2)[..., :n, :]
    return (x, xp.ascontiguousarray(residuals),
            rank, xp.ascontiguousarray(s) if driver in ("gelsd", "gelss") else empty)


# -- matrix_exp: Taylor's polynomial of degree 18 after scaling, then squaring -----------------------------

#: The largest norm ``||A||_1`` for which Taylor's polynomial of degree 18 is accurate to the unit roundoff
#: (Bader, Blanes and Casas 2019, the thresholds PyTorch's ``mexp`` selects its degree with): a matrix of
#: larger norm is scaled by ``2^-s`` first and the result squared ``s`` times.
_THETA_18 = {np.dtype(np.float64): 5.371920351148152, np.dtype(np.float32): 3.010066362817634}


def _taylor_18(xp: Any, a: Any) -> Any:
    """``sum_k a^k / k!`` for ``k <= 18``, by Horner's rule on matrices (one product per degree)."""
    eye = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    out = eye + a / 18.0
    for k in range(17, 0, -1):
        out = eye + xp.matmul(a, out) / float(k)
    return out


def matrix_exp_arrays(xp: Any, a: Any) -> Any:
    """``exp(A)`` for each square matrix of ``a`` (float32 or float64): Taylor's polynomial of degree 18 of
    ``A / 2^s``, squared ``s`` times, ``s`` for each matrix the fewest halvings that bring its ``||A||_1`` under
    ``_THETA_18``. The number of squarings of the batch, the largest ``s``, is read from the device (one read,
    as PyTorch's CUDA ``mexp`` reads its norms to choose the degree). Products are ``xp.matmul`` (cuBLAS on a
    device)."""
    if a.size == 0:
        return xp.empty(a.shape, dtype=a.dtype)
    theta = _THETA_18.get(np.dtype(a.dtype), _THETA_18[np.dtype(np.float32)])
    norm = xp.abs(a).sum(axis=-2).max(axis=-1)
    ok = xp.isfinite(norm) & (norm > theta)
    steps = xp.where(ok, xp.ceil(xp.log2(xp.where(ok, norm, theta) / theta)), 0.0)
    scaled = a * xp.exp2(-steps).astype(a.dtype)[..., None, None]
    out = _taylor_18(xp, scaled)
    for i in range(int(to_numpy(steps.max()))):  # (on a device, the read: a device.copy and device.sync)
        out = xp.where((steps > i)[..., None, None], xp.matmul(out, out), out)
    return xp.ascontiguousarray(out.astype(a.dtype, copy=False))


# -- Householder reflectors (geqrf's compact form), LU pivots: ops/householder.py and ops/lu.py -------------------


def reflector_vectors(xp: Any, a: Any, k: int) -> Any:
    """The ``k`` Householder vectors of LAPACK's compact form, as the columns of an ``(m, k)`` matrix: column ``i``
    is 0 above row ``i``, the implicit 1 on it, ``a[i+1:, i]`` below."""
    m = a.shape[-2]
    return xp.tril(a[..., :, :k], -1) + xp.eye(m, k, dtype=a.dtype)


def apply_reflectors_arrays(xp: Any, a: Any, tau: Any, c: Any, left: bool = True, transpose: bool = False) -> Any:
    """``Q C`` for ``Q = H_0 H_1 ... H_{k-1}``, ``H_i = I - tau_i v_i v_i^T`` (``transpose``: ``Q^T C``; not
    ``left``: ``C Q``, ``C Q^T``), LAPACK's ``ormqr``, one rank-1 update per reflector. Each ``H_i`` is
    symmetric, so ``Q^T`` is the same reflectors in the other order and ``C Q = (Q^T C^T)^T``."""
    k = tau.shape[-1]
    v = reflector_vectors(xp, a, k)
    x = c if left else xp.swapaxes(c, -1, -2)
    order = range(k) if transpose == left else range(k - 1, -1, -1)
    for i in order:  # x <- H_i x = x - tau_i v_i (v_i^T x)
        vi = v[..., :, i:i + 1]
        x = x - tau[..., i, None, None] * vi * xp.matmul(xp.swapaxes(vi, -1, -2), x)
    return x if left else xp.swapaxes(x, -1, -2)


def householder_product_arrays(xp: Any, a: Any, tau: Any) -> Any:
    """The first ``n`` columns of ``H_0 ... H_{k-1}`` (LAPACK's ``orgqr``), column-major as PyTorch's."""
    m, n = a.shape[-2:]
    eye = xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), a.shape)
    return column_major(xp, xp.asarray(apply_reflectors_arrays(xp, a, tau, eye), dtype=a.dtype))


def geqrf_arrays(xp: Any, a: Any) -> tuple[Any, Any]:
    """LAPACK's ``geqrf`` column by column (its ``larfg``): each column's reflector sends it to ``beta e_1``,
    ``beta = -sign(alpha) ||x||`` (``alpha`` its diagonal element), ``tau = (beta - alpha) / beta``, ``v = x /
    (alpha - beta)`` below the implicit 1; a column already zero below the diagonal gets ``tau = 0``. ``R`` on and
    above the diagonal, the vectors below it; column-major. Elementwise kernels and products only: nothing is
    read back."""
    *batch, m, n = a.shape
    k = min(m, n)
    r = xp.array(a, dtype=a.dtype, copy=True)
    taus = xp.zeros((*batch, k), dtype=a.dtype)
    for j in range(k):
        alpha, below = r[..., j, j], r[..., j + 1:, j]
        xnorm = xp.sqrt((below * below).sum(-1))
        flat = xnorm == 0
        beta = -xp.copysign(xp.hypot(alpha, xnorm), alpha)
        safe = xp.where(flat, 1, beta)
        tau = xp.where(flat, 0, (beta - alpha) / safe).astype(a.dtype)
        v = below / xp.where(flat, 1, alpha - beta)[..., None]
        w = r[..., j, j + 1:] + xp.matmul(v[..., None, :], r[..., j + 1:, j + 1:])[..., 0, :]  # v^T R, v_0 = 1
        r[..., j, j + 1:] -= tau[..., None] * w
        r[..., j + 1:, j + 1:] -= tau[..., None, None] * v[..., :, None] * w[..., None, :]
        r[..., j, j] = xp.where(flat, alpha, beta)
        r[..., j + 1:, j] = v
        taus[..., j] = tau
    return column_major(xp, r), taus


def pivots_to_permutation(xp: Any, pivots: Any, m: int) -> Any:
    """The row order ``perm`` of LAPACK's ``getrf`` pivots (1-based, row ``i`` swapped with row ``pivots[i]`` in
    turn): ``(P^T A)[i] = A[perm[i]]``. Swaps by ``where``, over the batch at once (no read back)."""
    rows = xp.arange(m)
    perm = xp.broadcast_to(rows, pivots.shape[:-1] + (m,))
    for i in range(pivots.shape[-1]):
        j = (pivots[..., i].astype(np.int64) - 1)[..., None]
        at_i = perm[..., i:i + 1]
        at_j = xp.take_along_axis(perm, j, -1)
        perm = xp.where(rows == i, at_j, xp.where(rows == j, at_i, perm))
    return perm


def permutation_matrix(xp: Any, pivots: Any, m: int, dtype: Any) -> Any:
    """``P`` of ``A = P L U`` from the pivots: ``P[perm[i], i] = 1``."""
    perm = pivots_to_permutation(xp, pivots, m)
    return (perm[..., None, :] == xp.arange(m)[:, None]).astype(dtype)


def lu_unpack_arrays(xp: Any, lu: Any) -> tuple[Any, Any]:
    """``L`` (unit lower, ``(m, k)``) and ``U`` (upper, ``(k, n)``) of a packed LU, ``k = min(m, n)``."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
    return xp.ascontiguousarray(low), xp.ascontiguousarray(xp.triu(lu[..., :k, :]))


def lu_solve_arrays(xp: Any, lu: Any, pivots: Any, b: Any, left: bool = True, adjoint: bool = False) -> Any:
    """The ``X`` with ``A X = B`` for ``A = P L U`` (``adjoint``: ``A^T X = B``; not ``left``: ``X A = B``,
    ``X A^T = B``): two triangular solves and the row permutation. ``X A = B`` is ``A^T X^T = B^T``."""
    if not left:
        return xp.swapaxes(lu_solve_arrays(xp, lu, pivots, xp.swapaxes(b, -1, -2), True, not adjoint), -1, -2)
    n = lu.shape[-1]
    p = permutation_matrix(xp, pivots, n, lu.dtype)
    if not adjoint:  # X = U^-1 L^-1 P^T B
        y = solve_triangular_arrays(xp, lu, xp.matmul(xp.swapaxes(p, -1, -2), b), False, True, True)
        return solve_triangular_arrays(xp, lu, y, True)
    # A^T = U^T L^T P^T: X = P L^-T U^-T B
    y = solve_triangular_arrays(xp, xp.swapaxes(lu, -1, -2), b, False)
    y = solve_triangular_arrays(xp, xp.swapaxes(lu, -1, -2), y, True, True, True)
    return column_major(xp, xp.asarray(xp.matmul(p, y), dtype=lu.dtype))


def lu_factor_arrays(xp: Any, a: Any) -> tuple[Any, Any, Any]:
    """LAPACK's ``getrf``, column by column over the batch at once: the row of largest magnitude (the first of
    equals, as ``idamax``) swapped up as the pivot, the column below divided by it (not where it is 0: LAPACK
    goes on, and ``info`` names the first such column), the rest updated by a rank-1 product. ``(LU, pivots,
    info)``, the pivots 1-based int32, ``LU`` column-major, as PyTorch's. Nothing is read back."""
    *batch, m, n = a.shape
    k = min(m, n)
    lu = xp.array(a, dtype=a.dtype, copy=True)
    pivots = xp.zeros((*batch, k), dtype=np.int32)
    rows = xp.arange(m)[:, None]
    for j in range(k):
        p = xp.argmax(xp.abs(lu[..., j:, j]), axis=-1) + j
        pivots[..., j] = p + 1
        row_j = lu[..., j:j + 1, :]
        row_p = xp.take_along_axis(lu, xp.broadcast_to(p[..., None, None], (*batch, 1, n)), -2)
        lu = xp.where(rows == j, row_p, xp.where(rows == p[..., None, None], row_j, lu))
        pivot = lu[..., j, j][..., None]
        lu[..., j + 1:, j] = xp.where(pivot != 0, lu[..., j + 1:, j] / xp.where(pivot == 0, 1, pivot), lu[..., j + 1:, j])
        lu[..., j + 1:, j + 1:] -= lu[..., j + 1:, j:j + 1] * lu[..., j:j + 1, j + 1:]
    diag = xp.diagonal(lu, 0, -2, -1)[..., :k]
    zero = diag == 0
    info = xp.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32) if k else xp.zeros(tuple(batch), np.int32)
    return column_major(xp, lu), pivots, info
