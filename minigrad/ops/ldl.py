"""The LDL^T factorization of a symmetric matrix: ``linalg.ldl_factor_ex`` (and ``ldl_factor``) makes it,
``linalg.ldl_solve`` uses it.

``A = P L D L^T P^T`` with ``L`` unit lower-triangular and ``D`` block diagonal, of 1x1 and 2x2 blocks: an
indefinite symmetric matrix (a saddle point's Hessian, a KKT system) has no Cholesky factor and its LU would
ignore the symmetry, but this form exists for every symmetric matrix and costs half an LU. The pivoting is
Bunch and Kaufman's (1977), as LAPACK's ``sytrf`` (PyTorch's CPU kernel, ``uplo='L'``): at step ``k``, with
``alpha = (1 + sqrt(17)) / 8`` and ``colmax`` the largest ``|a_ik|`` below the diagonal (row ``imax``),
``rowmax`` the largest off-diagonal entry of row/column ``imax``:

- ``|a_kk| >= alpha colmax`` (or ``|a_kk| colmax... >= alpha colmax^2 / rowmax``): ``a_kk`` is a 1x1 pivot;
- else ``|a_imax,imax| >= alpha rowmax``: swap ``imax`` to ``k``, a 1x1 pivot;
- else swap ``imax`` to ``k + 1`` and take the 2x2 block of rows ``k, k+1`` as the pivot.

``(LD, pivots)`` is ``sytrf``'s compact form: ``D``'s diagonal (and the 2x2 blocks' sub-diagonal entry) and
``L``'s multipliers below it in ``LD`` (upper triangle zero), ``pivots`` 1-based: ``pivots[k] = p > 0`` a 1x1
block after swapping ``k`` and ``p``, ``pivots[k] = pivots[k+1] = -p`` a 2x2 block after swapping ``k+1``
and ``p``. ``hermitian`` makes no difference for a real matrix. ``ldl_solve`` is LAPACK's ``sytrs``.

Neither is differentiable in PyTorch: their outputs require grad, and a backward through them raises in
PyTorch's words (``derivative for aten::linalg_ldl_factor_ex is not implemented``); so do minigrad's.

Example:
    >>> import minigrad as mg
    >>> A = mg.tensor([[0.0, 1.0], [1.0, 0.0]])  # indefinite, zero diagonal: a 2x2 pivot
    >>> LD, pivots = mg.linalg.ldl_factor(A)
    >>> pivots.tolist()
    [-2, -2]
    >>> mg.linalg.ldl_solve(LD, pivots, mg.tensor([[2.0], [3.0]])).flatten().tolist()
    [3.0, 2.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..kernels.array_kernels import column_major
from ..kernels.infer_meta import broadcast_shapes, scalar_type_name
from ..kernels.key import Backend
from ..kernels.backends import to_numpy
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from . import _return_types as return_types
from ._checks import check_bool, check_tensor
from .factorization import _DTYPES
from .registry import Attr, Input, defop

__all__: list[str] = []  # linalg.ldl_factor, ldl_factor_ex and ldl_solve are reached as mg.linalg.*


#: Bunch-Kaufman's threshold: it bounds the growth of the entries at (1 + 1 / alpha)^2 per step
_ALPHA = (1 + math.sqrt(17)) / 8


# -- the factorization: LAPACK's sytf2 (lower) -------------------------------------------------------------------


def _choose_pivot(a: np.ndarray, k: int) -> tuple[int, int]:
    """Bunch-Kaufman's choice at step ``k``: ``(kp, size)``, the row to swap in and the block's size (1 or 2).
    ``kp = -1``: the column is zero (``info``)."""
    n = a.shape[0]
    absakk = abs(a[k, k])
    imax = k + 1 + int(np.argmax(np.abs(a[k + 1:, k]))) if k < n - 1 else k  # (the first of equals: idamax)
    colmax = abs(a[imax, k]) if k < n - 1 else 0.0
    if max(absakk, colmax) == 0 or math.isnan(absakk):
        return -1, 1
    if absakk >= _ALPHA * colmax:
        return k, 1
    jmax = k + int(np.argmax(np.abs(a[imax, k:imax])))  # row imax left of the diagonal ...
    rowmax = abs(a[imax, jmax])
    if imax < n - 1:  # ... and column imax below it
        rowmax = max(rowmax, float(np.max(np.abs(a[imax + 1:, imax]))))
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1
    if abs(a[imax, imax]) >= _ALPHA * rowmax:
        return imax, 1
    return imax, 2


def _swap(a: np.ndarray, kk: int, kp: int) -> None:
    """Rows and columns ``kk`` and ``kp`` of the trailing lower triangle exchanged (``kk < kp``)."""
    a[[kk, kp], [kk, kp]] = a[[kp, kk], [kp, kk]]
    a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
    between = a[kk + 1:kp, kk].copy()
    a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
    a[kp, kk + 1:kp] = between


def _eliminate_1x1(a: np.ndarray, k: int) -> None:
    """``A22 -= x x^T / d`` on the lower triangle (``dsyr``, column by column), then ``x /= d``: ``L``'s column."""
    n = a.shape[0]
    d11 = 1 / a[k, k]
    x = a[k + 1:, k].copy()
    for j in range(k + 1, n):
        a[j:, j] = a[j:, j] + x[j - k - 1:] * (-d11 * x[j - k - 1])
    a[k + 1:, k] = x * d11


def _eliminate_2x2(a: np.ndarray, k: int) -> None:
    """The 2x2 pivot ``[[a_kk, a_k+1,k], [., a_k+1,k+1]]``: each later row's two multipliers (``wk``, ``wkp1``)
    and the trailing update, in ``dsytf2``'s order of operations."""
    d21 = a[k + 1, k]
    d11 = a[k + 1, k + 1] / d21
    d22 = a[k, k] / d21
    d21 = (1 / (d11 * d22 - 1)) / d21
    for j in range(k + 2, a.shape[0]):
        wk = d21 * (d11 * a[j, k] - a[j, k + 1])
        wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
        a[j:, j] = a[j:, j] - a[j:, k] * wk - a[j:, k + 1] * wkp1
        a[j, k], a[j, k + 1] = wk, wkp1


def sytf2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """LAPACK's unblocked ``dsytf2`` (``uplo='L'``) on one matrix: ``(LD, pivots, info)``, ``info`` the first zero
    pivot column (1-based; 0: none). Reads the lower triangle only."""
    a = np.array(a, copy=True)
    n = a.shape[0]
    pivots = np.zeros(n, np.int32)
    info, k = 0, 0
    while k < n:
        kp, size = _choose_pivot(a, k)
        if kp < 0:
            info = info or k + 1
            kp = k
        else:
            if kp != k + size - 1:
                _swap(a, k + size - 1, kp)
                if size == 2:
                    a[[k + 1, kp], k] = a[[kp, k + 1], k]
            if size == 1 and k < n - 1:
                _eliminate_1x1(a, k)
            elif size == 2 and k < n - 2:
                _eliminate_2x2(a, k)
        pivots[k:k + size] = kp + 1 if size == 1 else -(kp + 1)
        k += size
    return np.tril(a), pivots, info


def _infer_ldl_factor(op: str, a: Any, hermitian: bool = False) -> list[Any]:
    """InferMeta, in PyTorch's order of checks and words: ``LD`` like ``A``, ``pivots`` ``(*, n)`` and ``info``
    ``(*)``, int32."""
    name = "torch.linalg.ldl_factor_ex"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if a.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(a.dtype)}")
    if a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"ldl_factor_kernel_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    return [(tuple(a.shape), a.dtype), (tuple(a.shape[:-1]), np.dtype(np.int32)), (tuple(a.shape[:-2]), np.dtype(np.int32))]


@register_kernel("linalg_ldl_factor_ex", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_ldl_factor_ex")
def ldl_factor_cpu(a: np.ndarray, hermitian: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sytf2`` on each matrix of the batch; ``LD`` column-major, as LAPACK writes PyTorch's."""
    *batch, n, _ = a.shape
    ld, pivots, info = np.zeros_like(a), np.zeros((*batch, n), np.int32), np.zeros(tuple(batch), np.int32)
    for i in np.ndindex(*batch):
        ld[i], pivots[i], info[i] = sytf2(a[i])
    return column_major(np, ld), pivots, info


linalg_ldl_factor_ex_op = defop(
    "linalg_ldl_factor_ex", inputs=("A",), attrs=(Attr("hermitian", False, check_bool),),
    infer_meta=_infer_ldl_factor, amp="deny", out=False,
    doc="(LD, pivots, info): A = P L D L^T P^T with Bunch-Kaufman pivoting, LAPACK's sytrf compact form")


@linalg_ldl_factor_ex_op.def_backward
def _ldl_factor_backward(ctx: Any, grads: Any) -> tuple[Any]:
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _unknown_error(op: str, info: Tensor) -> None:
    """PyTorch's ``_linalg_check_errors`` for ``sytrf``: a zero pivot has no message of its own there, so it reports
    an unknown error code (an internal assert in PyTorch). A read of ``info`` (a sync on a device, as PyTorch's)."""
    codes = to_numpy(info._data).reshape(-1)
    bad = np.flatnonzero(codes)
    if bad.size:
        raise RuntimeError(f"{op}: Unknown error code: {int(codes[bad[0]])}.")


def linalg_ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:
    """``torch.linalg.ldl_factor_ex``: ``(LD, pivots, info)`` of each symmetric matrix of ``A`` (its lower triangle
    read), ``info`` the first zero pivot (1-based; 0: none); reads nothing unless ``check_errors``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.ldl_factor_ex(mg.tensor([[4.0, 2.0], [2.0, 3.0]])).LD.tolist()
        [[4.0, 0.0], [0.5, 2.0]]
    """
    check_tensor("linalg.ldl_factor_ex", "A", 0, A)
    hermitian = check_bool("linalg.ldl_factor_ex", "hermitian", 1, hermitian)
    _infer_ldl_factor("linalg_ldl_factor_ex", A._data)
    LD, pivots, info = linalg_ldl_factor_ex_op(A, hermitian)
    if check_bool("linalg.ldl_factor_ex", "check_errors", 2, check_errors):
        _unknown_error("torch.linalg.ldl_factor_ex", info)
    return return_types.linalg_ldl_factor_ex(LD, pivots, info)


def linalg_ldl_factor(A: Tensor, *, hermitian: bool = False) -> Any:
    """``torch.linalg.ldl_factor``: ``(LD, pivots)``, for ``linalg.ldl_solve``; a zero pivot raises (a read)."""
    check_tensor("linalg.ldl_factor", "A", 0, A)
    hermitian = check_bool("linalg.ldl_factor", "hermitian", 1, hermitian)
    _infer_ldl_factor("linalg_ldl_factor_ex", A._data)
    LD, pivots, info = linalg_ldl_factor_ex_op(A, hermitian)
    _unknown_error("torch.linalg.ldl_factor", info)
    return return_types.linalg_ldl_factor(LD, pivots)


# -- the solve: LAPACK's sytrs (lower) ---------------------------------------------------------------------------


def _dot_down(b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``b^T x`` with each column's products added in order (``dgemv``'s transposed loop)."""
    total = np.zeros(b.shape[1], b.dtype)
    for i in range(b.shape[0]):
        total = total + b[i] * x[i]
    return total


def _solve_2x2(ld: np.ndarray, b: np.ndarray, k: int) -> None:
    """Rows ``k, k+1`` of ``b`` through ``D``'s 2x2 block (``sytrs``' scaled Cramer's rule)."""
    akm1k = ld[k + 1, k]
    akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
    denom = akm1 * ak - 1
    bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
    b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom


def sytrs(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LAPACK's ``dsytrs`` (``uplo='L'``) for one matrix: ``L D`` forward (swap, eliminate, divide by ``D``'s
    block), then ``L^T`` backward (eliminate, swap back)."""
    b = np.array(b, copy=True)
    n = ld.shape[0]
    k = 0
    while k < n:
        size = 1 if pivots[k] > 0 else 2
        kp = abs(int(pivots[k])) - 1
        if kp != k + size - 1:
            b[[k + size - 1, kp]] = b[[kp, k + size - 1]]
        for j in range(k, k + size):  # (dger: the rows below, less the multiplier times this row)
            b[k + size:] = b[k + size:] + ld[k + size:, j:j + 1] * -b[j]
        if size == 1:
            b[k] = b[k] * (1 / ld[k, k])
        else:
            _solve_2x2(ld, b, k)
        k += size
    k = n - 1
    while k >= 0:
        size = 1 if pivots[k] > 0 else 2
        for j in range(k, k - size, -1):
            if k < n - 1:
                b[j] = b[j] - _dot_down(b[k + 1:], ld[k + 1:, j])
        kp = abs(int(pivots[k])) - 1
        if kp != k:
            b[[k, kp]] = b[[kp, k]]
        k -= size
    return b


def _infer_ldl_solve(op: str, ld: Any, pivots: Any, b: Any, hermitian: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta, in PyTorch's order of checks and words: ``X`` of ``B``'s matrix shape over the broadcast batch."""
    name = "torch.linalg.ldl_solve"
    if ld.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if ld.shape[-1] != ld.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {ld.shape[-2]} by "
                           f"{ld.shape[-1]} matrices")
    if ld.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(ld.dtype)}")
    if tuple(pivots.shape) != tuple(ld.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")
    if pivots.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {scalar_type_name(pivots.dtype)}")
    if b.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {scalar_type_name(b.dtype)}"
                           f" and A of type {scalar_type_name(ld.dtype)} instead.")
    n = ld.shape[-1]
    if b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} but each b matrix is "
                           f"{b.shape[-2]} by {b.shape[-1]}")
    batch = broadcast_shapes(name, b.shape[:-2], ld.shape[:-2])
    return (*batch, *b.shape[-2:]), ld.dtype


@register_kernel("linalg_ldl_solve", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_ldl_solve")
def ldl_solve_cpu(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray, hermitian: bool = False) -> np.ndarray:
    """``sytrs`` on each matrix of the broadcast batch; ``X`` column-major, as PyTorch's."""
    shape, _ = _infer_ldl_solve("linalg_ldl_solve", ld, pivots, b)
    batch = shape[:-2]
    ld = np.broadcast_to(ld, (*batch, *ld.shape[-2:]))
    pivots = np.broadcast_to(pivots, (*batch, pivots.shape[-1]))
    b = np.broadcast_to(b, shape)
    x = np.empty(shape, b.dtype)
    for i in np.ndindex(*batch):
        x[i] = sytrs(ld[i], pivots[i], b[i])
    return column_major(np, x)


linalg_ldl_solve_op = defop(
    "linalg_ldl_solve", inputs=("LD", Input("pivots", differentiable=False), "B"),
    attrs=(Attr("hermitian", False, check_bool),), infer_meta=_infer_ldl_solve, key_inputs=(0, 2), amp="deny",
    doc="the X with A X = B for A = P L D L^T P^T given as sytrf's (LD, pivots)")


@linalg_ldl_solve_op.def_backward
def _ldl_solve_backward(ctx: Any, grad: Any) -> tuple[Any, None, Any]:
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def linalg_ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """``torch.linalg.ldl_solve``: the ``X`` with ``A X = B`` for ``A`` given as ``linalg.ldl_factor``'s ``(LD,
    pivots)``, batch dims broadcast. Not differentiable, as PyTorch's (a backward through it raises)."""
    check_tensor("linalg.ldl_solve", "LD", 0, LD)
    check_tensor("linalg.ldl_solve", "pivots", 1, pivots)
    check_tensor("linalg.ldl_solve", "B", 2, B)
    hermitian = check_bool("linalg.ldl_solve", "hermitian", 3, hermitian)
    _infer_ldl_solve("linalg_ldl_solve", LD._data, pivots._data, B._data)
    return linalg_ldl_solve_op(LD, pivots, B, hermitian)
