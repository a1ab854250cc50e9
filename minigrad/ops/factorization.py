"""Matrix factorizations (``torch.linalg``): ``cholesky``, ``slogdet``, ``qr``, ``eigh``, ``svd``, what is built
on them (``pinv``, ``lstsq``), and ``matrix_exp``. Each is one op with its own formula, named as PyTorch's (``linalg_cholesky_ex`` ->
``LinalgCholeskyExBackward0``); the formulas are PyTorch's (``FunctionsManual.cpp``), in real arithmetic:

- ``L = cholesky(A)`` (``A = L L^T``): ``gA = L^-T Phi(L^T gL) L^-1``, ``Phi`` the lower triangle with its
  diagonal halved, made symmetric (``cholesky_backward``);
- ``(sign, logabsdet) = slogdet(A)``: ``gA = g inv(A)^T`` (``slogdet_backward``); ``logdet`` is PyTorch's
  composite of it, ``where(sign == -1, nan, logabsdet)``;
- ``Q, R = qr(A)``: ``gA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T`` for ``m >= n``, a wide ``A``'s extra
  columns through ``Q`` (``linalg_qr_backward``);
- ``L, V = eigh(A)``: ``gA = V (diag(gL) + skew(V^T gV) / E) V^T``, ``E_ij = L_j - L_i``
  (``linalg_eig_backward``, symmetric case);
- ``U, S, Vh = svd(A)``: ``svd_backward``'s, ``E_ij = S_j^2 - S_i^2``; ``svdvals``, the nuclear norm and
  the spectral norms (``ord=2``/``-2``) are ``svd``'s node, as PyTorch's;
- ``P = pinv(A)``: ``pinv_backward``'s differential of the pseudo-inverse; ``lstsq`` goes through it
  (``linalg_lstsq_backward``);
- ``matrix_exp(A)``: the upper-right block of ``matrix_exp([[A^T, G], [0, A^T]])``.

A formula of the eigenvectors or singular vectors is well defined only for a function that does not depend
on their signs (``U diag(S) Vh``, ``S``), and only where the eigenvalues (singular values) are distinct.

The triangular inverses in the formulas are ``linalg_solve_triangular`` calls (an op, as PyTorch's, whose
GPU kernel reads nothing back). Like ``inv`` and
``solve`` (``ops/inverse.py``), a matrix a factorization cannot take raises ``RuntimeError`` in PyTorch's
words (PyTorch's ``torch.linalg.LinAlgError`` is a ``RuntimeError``).

Example:
    >>> import minigrad as mg
    >>> mg.linalg.cholesky(mg.tensor([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..errors import LinAlgError
from ..kernels.array_kernels import column_major
from ..kernels.backends import to_numpy
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.linalg_arrays import (cholesky_info, cholesky_inverse_arrays, eigh_arrays, lstsq_arrays, matrix_exp_arrays, partial_cholesky,
                                     pinv_arrays, qr_arrays, solve_triangular_arrays, svd_arrays)
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ..creation import zeros
from ._checks import check_bool, check_tensor
from . import _return_types as return_types
from .math import eq, where
from .registry import Attr, OpDef, defop, type_name
from .shape import transpose
from ..dispatch.amp import autocast_as

__all__ = ["cholesky", "cholesky_inverse", "slogdet", "logdet", "qr", "svd", "pinverse", "matrix_exp"]  # torch.cholesky; the torch.linalg names are in mg.linalg (minigrad/linalg.py)

#: the dtypes LAPACK factors (PyTorch's linalg refuses a half: "not implemented for 'Half'")
_DTYPES = tuple(d for d in FLOAT_DTYPES if d.name in ("float32", "float64"))


# ``return_types``: PyTorch's named tuples (``ops/_return_types.py``), imported above


def _floating(op: str, dtype: Any, kernel: str) -> None:
    """PyTorch's ``checkFloatingOrComplex`` of a NumPy ``dtype``: an integer matrix is refused; a half has no
    LAPACK ``kernel`` (``"slogdet"``: PyTorch's own words for it)."""
    if dtype.kind != "f":
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(dtype)}")
    if dtype.itemsize < 4:
        if kernel == "slogdet":
            raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {scalar_type_name(dtype)}")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'")


def _matrices(op: str, a: Any, square: bool = True) -> None:
    """PyTorch's ``checkIsMatrix`` and ``squareCheckInputs``."""
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def _check_input(op: str, name: str, A: Any, kernel: str | None, square: bool = True) -> Tensor:
    """The public function's checks, before kernel selection (which knows only float32 and float64): a Tensor,
    matrices (square ones where the factorization needs them), a floating dtype (``kernel``: the LAPACK kernel
    PyTorch names for a half or, with None, the integer dtype it refuses there too)."""
    check_tensor(op, name, 0, A)
    _matrices(op, A, square)
    if kernel is None:
        if not A.dtype.is_floating or A.dtype.itemsize < 4:
            raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{scalar_type_name(A.dtype.np)}'")
    else:
        _floating(op, A.dtype.np, kernel)
    return A


def _mT(ops: Any, x: Any) -> Any:
    return ops.transpose(x, -2, -1)


def _cols(ops: Any, x: Any, start: int, stop: int) -> Any:
    """Columns ``start:stop`` of each matrix of ``x`` (PyTorch's ``narrow(-1, ...)``)."""
    return ops.getitem(x, (Ellipsis, slice(start, stop)))


def _rows(ops: Any, x: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of each matrix of ``x`` (PyTorch's ``narrow(-2, ...)``)."""
    return ops.getitem(x, (Ellipsis, slice(start, stop), slice(None)))


def _quotient(ops: Any, num: Any, den: Any) -> Any:
    """``num / den``, 0 where ``num`` is 0 (``0 / 0`` too). The engine hands a formula zeros for an output that
    took no gradient where PyTorch hands it an undefined one, which its formulas skip (``svdvals`` of a matrix
    with repeated singular values divides ``U^T gU = 0`` by ``E = 0``): a zero numerator stays 0, so those
    formulas give PyTorch's values."""
    return ops.where(ops.eq(num, 0.0), num, ops.div(num, den))


# -- solve_triangular: the triangular solves of the formulas below ----------------------------------------------


def _infer_solve_triangular(op: str, a: Any, b: Any, upper: bool, left: bool = True,
                            unitriangular: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``X`` of ``B``'s matrix shape over the broadcast batch dims."""
    _matrices("linalg.solve_triangular", a)
    if b.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {eq} "
                           f"({a.shape[-2]}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise RuntimeError(f"linalg.solve_triangular: the batch dims of A {tuple(a.shape)} and B {tuple(b.shape)} do "
                           f"not broadcast") from None
    return (*batch, *b.shape[-2:]), a.dtype


@register_kernel("linalg_solve_triangular", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_solve_triangular")
def solve_triangular_cpu(a: np.ndarray, b: np.ndarray, upper: bool, left: bool = True,
                         unitriangular: bool = False) -> np.ndarray:
    return solve_triangular_arrays(np, a, b, upper, left, unitriangular)


linalg_solve_triangular_op = defop(
    "linalg_solve_triangular", inputs=("A", "B"),
    attrs=(Attr("upper", OpDef.MISSING, check_bool), Attr("left", True, check_bool),
           Attr("unitriangular", False, check_bool)),
    infer_meta=_infer_solve_triangular, save=("A", "out"), transform_dtype=True, amp="deny",
    doc="the X with A X = B (left=False: X A = B) for triangular A (its upper or lower triangle read)")


@linalg_solve_triangular_op.def_backward
def linalg_solve_triangular_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's ``linalg_solve_triangular_backward``: ``gB = A^-T gX`` (the other triangle's solve), ``gA =
    -gB X^T`` (``left=False``: ``-X^T gB``) kept to ``A``'s triangle (without the diagonal where
    ``unitriangular``), each summed back over broadcast batch dims."""
    a, x = ctx.saved()
    ops = ctx.ops
    upper, left, unit = ctx.attrs["upper"], ctx.attrs["left"], ctx.attrs["unitriangular"]
    gb = ops.linalg_solve_triangular(_mT(ops, a), grad, not upper, left, unit)
    ga = None
    if ctx.needs(0):
        ga = ops.neg(ops.matmul(gb, x, transpose_y=True) if left else ops.matmul(x, gb, transpose_x=True))
        ga = ops.triu(ga, int(unit)) if upper else ops.tril(ga, -int(unit))
        ga = ops.sum_to(ga, tuple(ctx.input_shape(0)))
    return ga, (ops.sum_to(gb, tuple(ctx.input_shape(1))) if ctx.needs(1) else None)


def linalg_solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                            unitriangular: bool = False) -> Tensor:
    """``torch.linalg.solve_triangular``: the ``X`` with ``A X = B`` (``left=False``: ``X A = B``) for a triangular
    ``A``, only its ``upper`` (or lower) triangle read; a zero on its diagonal gives infinities, no error.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.solve_triangular(mg.tensor([[2.0, 1.0], [0.0, 4.0]]), mg.tensor([[3.0], [4.0]]), upper=True).tolist()
        [[1.0], [1.0]]
    """
    check_tensor("linalg.solve_triangular", "A", 0, A)
    check_tensor("linalg.solve_triangular", "B", 1, B)
    for t in (A, B):
        if not t.dtype.is_floating or t.dtype.itemsize < 4:
            raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{scalar_type_name(t.dtype.np)}'")
    _infer_solve_triangular("linalg_solve_triangular", A._data, B._data, upper, left, unitriangular)
    return linalg_solve_triangular_op(A, B, upper, left, unitriangular)


# -- cholesky ------------------------------------------------------------------------------------------


def _infer_cholesky(op: str, a: Any, upper: bool = False) -> list[Any]:
    """InferMeta: ``L`` of ``A``'s shape and dtype, ``info`` (int32) one per matrix."""
    name = "cholesky" if op == "cholesky" else "linalg.cholesky"
    _matrices(name, a)
    _floating(name, a.dtype, "cholesky_cpu")
    return [(tuple(a.shape), a.dtype), (tuple(a.shape[:-2]), np.dtype(np.int32))]


def cholesky_cpu(a: np.ndarray, upper: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``potrf`` through ``np.linalg.cholesky``; a batch holding a matrix that is not positive-definite
    is factored matrix by matrix, that one as far as ``potrf`` gets (``partial_cholesky``)."""
    if a.size == 0:
        low = np.zeros(a.shape, dtype=a.dtype)
    else:
        try:
            low = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            flat = a.reshape((-1,) + a.shape[-2:])
            low = np.stack([partial_cholesky(m) for m in flat]).reshape(a.shape)
    info = cholesky_info(np, low)
    out = np.swapaxes(low, -1, -2) if upper else low
    return column_major(np, np.asarray(out, dtype=a.dtype)), info


for _name in ("linalg_cholesky_ex", "cholesky"):
    register_kernel(_name, Backend.CPU, dtypes=_DTYPES, name=f"cpu/{_name}")(cholesky_cpu)

_CHOLESKY = dict(inputs=("A",), attrs=(Attr("upper", False, check_bool),), infer_meta=_infer_cholesky,
                 save=("out",), amp="deny", out=False)
linalg_cholesky_ex_op = defop("linalg_cholesky_ex", **_CHOLESKY,
                              doc="(L, info): the lower (upper=True: upper) Cholesky factor of each matrix, info "
                                  "the order of its first leading minor that is not positive-definite (0: none)")
cholesky_op = defop("cholesky", **_CHOLESKY,
                    doc="torch.cholesky: linalg_cholesky_ex's (L, info) under PyTorch's older name (CholeskyBackward0)")


def cholesky_grad(ops: Any, gL: Any, L: Any, upper: bool) -> Any:
    """PyTorch's ``cholesky_backward``: ``gA = L^-T Phi(L^T gL) L^-1``, ``Phi(X)`` the lower triangle of ``X``
    with its diagonal halved, plus that triangle's transpose (a symmetric ``gA``)."""
    if upper:
        L, gL = _mT(ops, L), _mT(ops, gL)
    gA = ops.tril(ops.matmul(L, gL, transpose_x=True))
    gA = ops.mul(ops.add(gA, _mT(ops, ops.tril(gA, -1))), 0.5)
    gA = ops.linalg_solve_triangular(_mT(ops, L), gA, True, True, False)
    return ops.linalg_solve_triangular(L, gA, False, False, False)


@linalg_cholesky_ex_op.def_backward
def linalg_cholesky_ex_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """``cholesky_grad`` of ``L``'s gradient (``info`` takes none)."""
    gL = grads[0] if isinstance(grads, list) else grads
    (L,) = ctx.saved()
    return (cholesky_grad(ctx.ops, gL, L, ctx.attrs["upper"]),)


cholesky_op.def_backward(linalg_cholesky_ex_backward)


def _not_positive_definite(op: str, info: Tensor) -> None:
    """PyTorch's ``_linalg_check_errors`` for a Cholesky factorization: the first matrix whose ``info`` is not
    0, named. A read of ``info`` (on a device a sync, as PyTorch's ``linalg.cholesky`` makes)."""
    codes = to_numpy(info._data).reshape(-1)
    bad = np.flatnonzero(codes)
    if not bad.size:
        return
    where = f"(Batch element {int(bad[0])}): " if info.ndim else ""
    raise LinAlgError(f"{op}: {where}The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {int(codes[bad[0]])} is not "
                       f"positive-definite).")


def linalg_cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    """``torch.linalg.cholesky_ex``: ``(L, info)``, ``info`` 0 for each matrix that is positive-definite, else the
    order of its first leading minor that is not (``L`` then holds what the factorization reached). Reads
    nothing unless ``check_errors``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.cholesky_ex(mg.tensor([[1.0, 2.0], [2.0, 1.0]])).info.item()
        2
    """
    _check_input("linalg.cholesky", "A", A, "cholesky_cpu")
    L, info = linalg_cholesky_ex_op(A, upper)
    if check_errors:
        _not_positive_definite("linalg.cholesky_ex", info)
    return return_types.linalg_cholesky_ex(L, info)


@autocast_as("linalg_cholesky")
def linalg_cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """``torch.linalg.cholesky``: the lower-triangular ``L`` with ``A = L L^T`` (``upper=True``: ``U = L^T``, with
    ``A = U^T U``); a matrix that is not positive-definite raises ``RuntimeError`` in PyTorch's words (a read
    of ``info``: a sync on a device, as PyTorch's)."""
    _check_input("linalg.cholesky", "A", A, "cholesky_cpu")
    L, info = linalg_cholesky_ex_op(A, upper)
    _not_positive_definite("linalg.cholesky", info)
    return L


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch for ``linalg.cholesky``): the same factor, ``CholeskyBackward0``."""
    _check_input("cholesky", "input", input, "cholesky_cpu")
    L, info = cholesky_op(input, upper)
    _not_positive_definite("cholesky", info)
    return L


# -- cholesky_inverse: A^-1 from A's Cholesky factor -------------------------------------------------------------


def _infer_cholesky_inverse(op: str, a: Any, upper: bool = False) -> tuple[tuple[int, ...], Any]:
    _matrices("cholesky_inverse", a)
    return tuple(a.shape), a.dtype


@register_kernel("cholesky_inverse", Backend.CPU, dtypes=_DTYPES, name="cpu/cholesky_inverse")
def cholesky_inverse_cpu(a: np.ndarray, upper: bool = False) -> np.ndarray:
    return cholesky_inverse_arrays(np, a, upper)


cholesky_inverse_op = defop("cholesky_inverse", inputs=("L",), attrs=(Attr("upper", False, check_bool),),
                            infer_meta=_infer_cholesky_inverse, save=("L", "out"), amp="deny",
                            doc="A^-1 of A = L L^T (upper=True: U^T U) from its Cholesky factor, only that "
                                "triangle read")


@cholesky_inverse_op.def_backward
def cholesky_inverse_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``cholesky_inverse_backward``: with ``S = A^-1 (g + g^T) A^-1``, ``gL = -S L`` (upper: ``-U S``)."""
    L, inverse = ctx.saved()
    ops = ctx.ops
    common = ops.matmul(inverse, ops.matmul(ops.add(grad, _mT(ops, grad)), inverse))
    return (ops.neg(ops.matmul(L, common) if ctx.attrs["upper"] else ops.matmul(common, L)),)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky_inverse``: the inverse of ``A = L L^T`` (``upper=True``: ``U^T U``) given its Cholesky factor
    (the precision matrix of a Gaussian from its covariance's factor).

    Example:
        >>> import minigrad as mg
        >>> mg.cholesky_inverse(mg.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
        [[0.25, 0.0], [0.0, 0.0625]]
    """
    check_tensor("cholesky_inverse", "input", 0, input)
    _matrices("cholesky_inverse", input)
    if not input.dtype.is_floating or input.dtype.itemsize < 4:  # LAPACK's potri: float and double only
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for '{scalar_type_name(input.dtype.np)}'")
    return cholesky_inverse_op(input, upper)


# -- slogdet, logdet -----------------------------------------------------------------------------------------


def _infer_slogdet(op: str, a: Any) -> list[Any]:
    """InferMeta: ``sign`` and ``logabsdet``, one each per matrix, of ``A``'s dtype."""
    _matrices("linalg.slogdet", a)
    _floating("linalg.slogdet", a.dtype, "slogdet")
    meta = (tuple(a.shape[:-2]), a.dtype)
    return [meta, meta]


@register_kernel("linalg_slogdet", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_slogdet")
def slogdet_cpu(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's LU through ``np.linalg.slogdet``: sign 0 and ``-inf`` for a singular matrix, 1 and 0 for a 0x0, sign
    0 where ``logabsdet`` is NaN (a NaN pivot), as PyTorch's (NumPy's sign is then 1 or -1)."""
    with np.errstate(invalid="ignore"):  # a matrix holding inf or nan: NumPy warns, PyTorch does not
        sign, logabsdet = np.linalg.slogdet(a)
    sign = np.where(np.isnan(logabsdet), 0, sign)
    return np.asarray(sign, dtype=a.dtype), np.asarray(logabsdet, dtype=a.dtype)


linalg_slogdet_op = defop("linalg_slogdet", inputs=("A",), infer_meta=_infer_slogdet, save=("A",), amp="deny",
                          out=False, doc="(sign, logabsdet): the sign and the log of the absolute value of the "
                                         "determinant of each square matrix")


@linalg_slogdet_op.def_backward
def linalg_slogdet_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """PyTorch's ``slogdet_backward`` (real): ``gA = g_logabsdet A^{-T}``; the sign takes no gradient (none
    at all when only the sign was used). Without ``create_graph``, by the LU of ``A^T``
    (``lu_transposed_solve``), no pivot perturbed: a singular ``A`` gets PyTorch's inf and NaN, no error. With
    it, differentiably: ``solve(A^T, diag(g))``, which refuses a singular ``A``, as PyTorch's."""
    g = grads[1] if isinstance(grads, list) else grads
    if g is None:
        return (None,)
    (a,) = ctx.saved()
    ops = ctx.ops
    if not ctx.create_graph:
        return (ops.lu_transposed_solve(a, g, False),)
    return (ops.solve(_mT(ops, a), ops.diag_of(g, a.shape[-1])),)  # (diag_of: ops/inverse.py)


def linalg_slogdet(A: Tensor) -> Any:
    """``torch.linalg.slogdet``: ``(sign, logabsdet)`` of each square matrix of ``A`` (``sign`` 0 and ``logabsdet``
    ``-inf`` for a singular one), from one node; only ``logabsdet`` takes a gradient.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.slogdet(mg.tensor([[-2.0, 0.0], [0.0, 3.0]])).sign.item()
        -1.0
    """
    _check_input("linalg.slogdet", "A", A, "slogdet")
    return return_types.linalg_slogdet(*linalg_slogdet_op(A))


def slogdet(input: Tensor) -> Any:
    """``torch.slogdet``: ``linalg.slogdet`` under its older name (a named tuple ``slogdet``)."""
    _check_input("linalg.slogdet", "input", input, "slogdet")
    return return_types.slogdet(*linalg_slogdet_op(input))


def logdet(input: Tensor) -> Tensor:
    """``torch.logdet``: the log of the determinant of each square matrix, NaN where it is negative (-inf where it
    is 0). Composite, PyTorch's: ``linalg_slogdet``, then ``where(sign == -1, nan, logabsdet)``."""
    _check_input("logdet", "input", input, "slogdet")
    sign, logabsdet = linalg_slogdet_op(input)
    return where(eq(sign, -1.0), float("nan"), logabsdet)


# -- qr ------------------------------------------------------------------------------------------------------

_QR_MODES = ("reduced", "complete", "r")


def _check_qr_mode(op: str, name: str, pos: int, v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"linalg_qr(): argument 'mode' must be str, not {type_name(v)}")
    if v not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{v}' but expected one of 'reduced' (default), 'r', or "
                           f"'complete'")
    return v


def _infer_qr(op: str, a: Any, mode: str = "reduced") -> list[Any]:
    """InferMeta: ``Q`` (m, k) and ``R`` (k, n), ``k = min(m, n)`` (``complete``: ``k = m``; ``r``: ``Q`` empty)."""
    _matrices("linalg.qr", a, square=False)
    _floating("linalg.qr", a.dtype, "geqrf_cpu")
    *batch, m, n = a.shape
    k = m if mode == "complete" else min(m, n)
    q = (0,) if mode == "r" else (*batch, m, k)
    return [(q, a.dtype), ((*batch, k, n), a.dtype)]


@register_kernel("linalg_qr", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_qr")
def qr_cpu(a: np.ndarray, mode: str = "reduced") -> tuple[np.ndarray, np.ndarray]:
    return qr_arrays(np, a, mode)


linalg_qr_op = defop("linalg_qr", inputs=("A",), attrs=(Attr("mode", "reduced", _check_qr_mode),),
                     infer_meta=_infer_qr, save=("out", "out1"), amp="deny", out=False,
                     doc="(Q, R): Q with orthonormal columns and upper-triangular R, Q R = A (mode 'reduced', "
                         "'complete' or 'r')")


def _qr_square_grad(ops: Any, gQ: Any, gR: Any, Q: Any, R: Any) -> Any:
    """``A = Q R`` with ``R`` square: ``gA = (gQ + Q copyltu(M)) R^-T``, ``M = R gR^T - gQ^T Q`` and
    ``copyltu(M)`` the symmetric matrix of ``M``'s lower triangle (PyTorch's ``linalg_qr_backward``)."""
    M = None
    if gR is not None:
        M = ops.matmul(R, gR, transpose_y=True)
    if gQ is not None:
        QgQ = ops.matmul(gQ, Q, transpose_x=True)
        M = ops.neg(QgQ) if M is None else ops.sub(M, QgQ)
    low = ops.tril(M, -1)
    sym = ops.add(ops.add(low, _mT(ops, low)), ops.diag_embed(ops.diagonal(M, 0, -2, -1)))
    b = ops.matmul(Q, sym)
    if gQ is not None:
        b = ops.add(b, gQ)
    return ops.linalg_solve_triangular(_mT(ops, R), b, False, False, False)


@linalg_qr_op.def_backward
def linalg_qr_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """``_qr_square_grad``; for a wide ``A = Q [U | V]`` (``m < n``) the square part takes ``gQ + Y gV^T``
    (``Y = Q V``, the columns past ``m``) and those columns ``Q gV``."""
    gQ, gR = grads if isinstance(grads, list) else (grads, None)
    mode = ctx.attrs["mode"]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    Q, R = ctx.saved()
    ops = ctx.ops
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if gQ is None and gR is None:
        return (None,)
    if m >= n:
        return (_qr_square_grad(ops, gQ, gR, Q, R),)
    U, V = _cols(ops, R, 0, m), _cols(ops, R, m, n)
    gU = None if gR is None else _cols(ops, gR, 0, m)
    gV = None if gR is None else _cols(ops, gR, m, n)
    if gV is not None:
        extra = ops.matmul(ops.matmul(Q, V), gV, transpose_y=True)
        gQ = extra if gQ is None else ops.add(gQ, extra)
        gY = ops.matmul(Q, gV)
    else:
        gY = ops.mul(ops.fill(ops.matmul(Q, V), 0.0), 1.0)
    return (ops.concat([_qr_square_grad(ops, gQ, gU, Q, U), gY], -1),)


@autocast_as("linalg_qr", composite=False)
def linalg_qr(A: Tensor, mode: str = "reduced") -> Any:
    """``torch.linalg.qr``: ``(Q, R)`` with ``A = Q R``, ``Q``'s columns orthonormal, ``R`` upper-triangular;
    ``mode='complete'`` gives a square ``Q``, ``mode='r'`` an empty ``Q`` (and no gradient).

    Example:
        >>> import minigrad as mg
        >>> Q, R = mg.linalg.qr(mg.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> [round(v, 4) for v in R.diagonal().tolist()]
        [-5.0, 0.4]
    """
    _check_input("linalg.qr", "A", A, "geqrf_cpu", square=False)
    return return_types.linalg_qr(*linalg_qr_op(A, mode))


@autocast_as("qr")
def qr(input: Tensor, some: bool = True) -> Any:
    """``torch.qr`` (deprecated in PyTorch for ``linalg.qr``): ``some=False`` is ``mode='complete'``."""
    _check_input("linalg.qr", "input", input, "geqrf_cpu", square=False)
    return return_types.qr(*linalg_qr_op(input, "reduced" if check_bool("qr", "some", 1, some) else "complete"))


# -- eigh, eigvalsh ------------------------------------------------------------------------------------------


def _check_uplo(op: str, name: str, pos: int, v: Any) -> str:
    """``'L'`` or ``'U'``, either case (PyTorch's)."""
    if not isinstance(v, str) or v.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {v}")
    return v.upper()


def _infer_eigh(op: str, a: Any, UPLO: str = "L") -> list[Any]:
    """InferMeta: the eigenvalues (n,) and the eigenvectors (n, n) of each symmetric matrix."""
    _matrices("linalg.eigh", a)
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    return [(tuple(a.shape[:-1]), a.dtype), (tuple(a.shape), a.dtype)]


@register_kernel("linalg_eigh", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_eigh")
def eigh_cpu(a: np.ndarray, UPLO: str = "L") -> tuple[np.ndarray, np.ndarray]:
    return eigh_arrays(np, a, UPLO)


linalg_eigh_op = defop("linalg_eigh", inputs=("A",), attrs=(Attr("UPLO", "L", _check_uplo),),
                       infer_meta=_infer_eigh, save=("out", "out1"), amp="deny", out=False,
                       doc="(eigenvalues, eigenvectors) of each symmetric matrix, from its lower (UPLO='U': upper) "
                           "triangle; the eigenvalues ascending")


def _eye_like(ops: Any, v: Any) -> Any:
    """The identity matrices (..., n, n) for a batch of vectors ``v`` (..., n) (a constant, in both modes)."""
    return ops.diag_embed(ops.fill(v, 1.0))


@linalg_eigh_op.def_backward
def linalg_eigh_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """PyTorch's ``linalg_eig_backward`` for a symmetric matrix: ``gA = V (diag(gL) + skew(V^T gV) / E) V^T``,
    ``skew(X) = (X - X^T) / 2`` and ``E_ij = L_j - L_i`` (1 on the diagonal, where ``skew`` is 0)."""
    gL, gV = grads if isinstance(grads, list) else (grads, None)
    L, V = ctx.saved()
    ops = ctx.ops
    if gV is None:
        if gL is None:
            return (None,)
        return (ops.matmul(V, ops.mul(ops.unsqueeze(gL, -1), _mT(ops, V))),)
    VgV = ops.matmul(V, gV, transpose_x=True)
    skew = ops.mul(ops.sub(VgV, _mT(ops, VgV)), 0.5)
    E = ops.add(ops.sub(ops.unsqueeze(L, -2), ops.unsqueeze(L, -1)), _eye_like(ops, L))
    inner = _quotient(ops, skew, E)
    if gL is not None:
        inner = ops.add(inner, ops.diag_embed(gL))
    return (ops.matmul(V, ops.matmul(inner, V, transpose_y=True)),)


def linalg_eigh(A: Tensor, UPLO: str = "L") -> Any:
    """``torch.linalg.eigh``: ``(eigenvalues, eigenvectors)`` of each symmetric matrix of ``A`` (only its ``UPLO``
    triangle is read), the eigenvalues ascending; a gradient only of functions that do not depend on the
    eigenvectors' signs is well defined (PyTorch's warning).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.eigh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
        [1.0, 3.0]
    """
    _check_input("linalg.eigh", "A", A, None)
    return return_types.linalg_eigh(*linalg_eigh_op(A, UPLO))


@autocast_as("linalg_eigvalsh")
def linalg_eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """``torch.linalg.eigvalsh``: the eigenvalues of each symmetric matrix (``eigh``'s node, as PyTorch's when a
    gradient is wanted)."""
    _check_input("linalg.eigh", "A", A, None)
    return linalg_eigh_op(A, UPLO)[0]


# -- svd, svdvals, the spectral and nuclear norms ---------------------------------------------------------------


def _infer_svd(op: str, a: Any, full_matrices: bool = True) -> list[Any]:
    """InferMeta: ``U`` (m, m or k), ``S`` (k,), ``Vh`` (n or k, n), ``k = min(m, n)``."""
    _matrices("linalg.svd", a, square=False)
    _floating("linalg.svd", a.dtype, "linalg_svd_cpu")
    *batch, m, n = a.shape
    k = min(m, n)
    return [((*batch, m, m if full_matrices else k), a.dtype), ((*batch, k), a.dtype),
            ((*batch, n if full_matrices else k, n), a.dtype)]


@register_kernel("linalg_svd", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_svd")
def svd_cpu(a: np.ndarray, full_matrices: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if a.size and not np.isfinite(a).all():
        raise RuntimeError("linalg.svd: The algorithm failed to converge because the input matrix contained "
                           "non-finite values.")
    return svd_arrays(np, a, full_matrices)


linalg_svd_op = defop("linalg_svd", inputs=("A",), attrs=(Attr("full_matrices", True, check_bool),),
                      infer_meta=_infer_svd, save=("out", "out1", "out2"), amp="deny", out=False,
                      doc="(U, S, Vh): the singular value decomposition U diag(S) Vh of each matrix, S descending")


def svd_grad(ops: Any, gU: Any, gS: Any, gVh: Any, U: Any, S: Any, Vh: Any) -> Any:
    """PyTorch's ``svd_backward`` (real), for the reduced factors: with ``E_ij = S_j^2 - S_i^2`` (1 on the
    diagonal) and ``skew(X) = X - X^T``, the inner matrix ``(skew(U^T gU) S + S skew(Vh gVh^T)) / E + diag(gS)``
    between ``U`` and ``Vh``, plus the parts of ``gU`` (``gVh``) outside ``U``'s (``Vh``'s) span for a tall (wide)
    matrix."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if m >= n:
            return ops.matmul(U, ops.mul(ops.unsqueeze(gS, -1), Vh))
        return ops.matmul(ops.mul(U, ops.unsqueeze(gS, -2)), Vh)
    S2 = ops.mul(S, S)
    E = ops.add(ops.sub(ops.unsqueeze(S2, -2), ops.unsqueeze(S2, -1)), _eye_like(ops, S))
    inner = None
    if gU is not None:
        UgU = ops.matmul(U, gU, transpose_x=True)
        inner = ops.mul(ops.sub(UgU, _mT(ops, UgU)), ops.unsqueeze(S, -2))
    if gVh is not None:
        VgV = ops.matmul(Vh, gVh, transpose_y=True)
        part = ops.mul(ops.unsqueeze(S, -1), ops.sub(VgV, _mT(ops, VgV)))
        inner = part if inner is None else ops.add(inner, part)
    inner = _quotient(ops, inner, E)
    if gS is not None:
        inner = ops.add(inner, ops.diag_embed(gS))
    if m > n and gU is not None:  # gA = [U inner + (I - U U^T) gU S^-1] Vh
        gUS = _quotient(ops, gU, ops.unsqueeze(S, -2))
        gA = ops.add(ops.matmul(U, inner), ops.sub(gUS, ops.matmul(U, ops.matmul(U, gUS, transpose_x=True))))
        return ops.matmul(gA, Vh)
    if m < n and gVh is not None:  # gA = U [inner Vh + S^-1 gVh (I - Vh^T Vh)]
        SgVh = _quotient(ops, gVh, ops.unsqueeze(S, -1))
        gA = ops.add(ops.matmul(inner, Vh), ops.sub(SgVh, ops.matmul(ops.matmul(SgVh, Vh, transpose_y=True), Vh)))
        return ops.matmul(U, gA)
    return ops.matmul(U, ops.matmul(inner, Vh)) if m >= n else ops.matmul(ops.matmul(U, inner), Vh)


@linalg_svd_op.def_backward
def linalg_svd_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """``svd_grad`` of the reduced factors (``full_matrices``: the first ``k`` columns of ``U``, rows of ``Vh``)."""
    gU, gS, gVh = grads if isinstance(grads, list) else (grads, None, None)
    if gU is None and gS is None and gVh is None:
        return (None,)
    U, S, Vh = ctx.saved()
    ops = ctx.ops
    if ctx.attrs["full_matrices"]:
        k = S.shape[-1]
        U, Vh = _cols(ops, U, 0, k), _rows(ops, Vh, 0, k)
        gU = None if gU is None else _cols(ops, gU, 0, k)
        gVh = None if gVh is None else _rows(ops, gVh, 0, k)
    return (svd_grad(ops, gU, gS, gVh, U, S, Vh),)


@autocast_as("linalg_svd")
def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> Any:
    """``torch.linalg.svd``: ``(U, S, Vh)`` with ``A = U diag(S) Vh``, ``S`` descending (``full_matrices=False``:
    the reduced factors). A gradient only of functions that do not depend on the singular vectors' signs is
    well defined (``S``, ``U diag(S) Vh``...).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.svd(mg.tensor([[3.0, 0.0], [0.0, -4.0]])).S.tolist()
        [4.0, 3.0]
    """
    _check_input("linalg.svd", "A", A, "linalg_svd_cpu", square=False)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    return return_types.linalg_svd(*linalg_svd_op(A, check_bool("linalg.svd", "full_matrices", 1, full_matrices)))


@autocast_as("linalg_svdvals")
def linalg_svdvals(A: Tensor, *, driver: Any = None) -> Tensor:
    """``torch.linalg.svdvals``: the singular values of each matrix, descending (``svd``'s node, as PyTorch's when
    a gradient is wanted)."""
    _check_input("linalg.svd", "A", A, "linalg_svd_cpu", square=False)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    return linalg_svd_op(A, False)[1]


@autocast_as("svd")
def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """``torch.svd`` (deprecated in PyTorch for ``linalg.svd``): ``(U, S, V)``, ``V = Vh^T`` (a transpose);
    ``some=False`` gives the full factors; ``compute_uv=False`` zero-filled ``U`` (m, m) and ``V`` (n, n)."""
    _check_input("linalg.svd", "input", input, "linalg_svd_cpu", square=False)
    some = check_bool("svd", "some", 1, some)
    if not check_bool("svd", "compute_uv", 2, compute_uv):
        S = linalg_svd_op(input, False)[1]
        m, n = input.shape[-2:]
        return return_types.svd(zeros(*input.shape[:-2], m, m, dtype=input.dtype, device=input.device), S,
                                zeros(*input.shape[:-2], n, n, dtype=input.dtype, device=input.device))
    U, S, Vh = linalg_svd_op(input, not some)
    return return_types.svd(U, S, transpose(Vh, -2, -1))


# -- pinv, lstsq ---------------------------------------------------------------------------------------------


def _check_tol(op: str, name: str, pos: int, v: Any) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number or None, but got {type_name(v)}")
    return float(v)


def _infer_pinv(op: str, a: Any, atol: float | None = None, rtol: float | None = None,
                hermitian: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta: the (n, m) pseudo-inverse of each (m, n) matrix."""
    if a.ndim < 2 or a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.pinv({scalar_type_name(a.dtype)}{{{list(a.shape)}}}): expected a tensor with 2 or "
                           f"more dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        _matrices("linalg.eigh", a)
    return (*a.shape[:-2], a.shape[-1], a.shape[-2]), a.dtype


@register_kernel("linalg_pinv", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_pinv")
def pinv_cpu(a: np.ndarray, atol: float | None = None, rtol: float | None = None,
             hermitian: bool = False) -> np.ndarray:
    return pinv_arrays(np, a, atol, rtol, hermitian)


linalg_pinv_op = defop("linalg_pinv", inputs=("A",), attrs=(Attr("atol", None, _check_tol), Attr("rtol", None, _check_tol),
                                                           Attr("hermitian", False, check_bool)),
                       infer_meta=_infer_pinv, save=("A", "out"), amp="deny",
                       doc="the pseudo-inverse of each matrix (singular values not above max(atol, rtol * largest) "
                           "dropped)")


def pinv_grad(ops: Any, g: Any, pinvA: Any, A: Any) -> Any:
    """PyTorch's ``pinv_backward``: the differential of ``A^+`` transposed, arranged so every product is of the
    smaller of ``m``, ``n`` (``P = A^+``, ``K = g^T P`` for ``m <= n``, ``K = P g^T`` else)::

        m <= n:  -(P K)^T + K P^T - A P K P^T + P^T P (g^T - K A)
        m > n:   -(K P)^T + (g^T - A K) P P^T + P^T K - P^T K P A
    """
    m, n = A.shape[-2], A.shape[-1]
    P, Pt, gt = pinvA, _mT(ops, pinvA), _mT(ops, g)
    mm = ops.matmul
    if m <= n:
        K = mm(gt, P)
        KPt = mm(K, Pt)
        out = ops.add(ops.neg(_mT(ops, mm(P, K))), KPt)
        out = ops.sub(out, mm(mm(A, P), KPt))
        return ops.add(out, mm(mm(Pt, P), ops.sub(gt, mm(K, A))))
    K = mm(P, gt)
    PtK = mm(Pt, K)
    out = ops.add(ops.neg(_mT(ops, mm(K, P))), mm(mm(ops.sub(gt, mm(A, K)), P), Pt))
    return ops.sub(ops.add(out, PtK), mm(mm(PtK, P), A))


@linalg_pinv_op.def_backward
def linalg_pinv_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``pinv_grad`` (the same formula with ``hermitian``)."""
    a, p = ctx.saved()
    return (pinv_grad(ctx.ops, grad, p, a),)


def _tolerance_value(op: str, name: str, v: Any) -> Any:
    """A tolerance given as a tensor of one element, as a number (a read: on a device, a sync); a tensor of one
    tolerance per matrix is not supported."""
    if not isinstance(v, Tensor):
        return v
    if v.numel() != 1:
        raise NotImplementedError(f"{op}: a tensor '{name}' with one tolerance per matrix is not supported; pass a "
                                  f"number (or a tensor of one element)")
    return float(to_numpy(v._data).reshape(()))


def _pinv_tolerances(op: str, atol: Any, rtol: Any, rcond: Any) -> tuple[float | None, float | None]:
    if rcond is not None:  # PyTorch's older spelling: a relative tolerance
        if atol is not None or rtol is not None:
            raise RuntimeError(f"{op}: rcond cannot be given with atol or rtol")
        rtol = rcond
    atol, rtol = _tolerance_value(op, "atol", atol), _tolerance_value(op, "rtol", rtol)
    return _check_tol(op, "atol", 1, atol), _check_tol(op, "rtol", 2, rtol)


def linalg_pinv(A: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,
                rtol: Any = None) -> Tensor:
    """``torch.linalg.pinv``: the pseudo-inverse of each matrix, from its SVD (``hermitian=True``: its
    eigendecomposition, of the lower triangle); ``rcond`` is the older name of ``rtol``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.pinv(mg.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
        [[0.5, 0.0], [0.0, 0.0]]
    """
    check_tensor("linalg.pinv", "input", 0, A)
    atol, rtol = _pinv_tolerances("linalg.pinv", atol, rtol, rcond)
    hermitian = check_bool("linalg.pinv", "hermitian", 2, hermitian)
    _infer_pinv("linalg_pinv", A._data, atol, rtol, hermitian)  # (before kernel selection, which knows no int64)
    return linalg_pinv_op(A, atol, rtol, hermitian)


@autocast_as("pinverse")
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with a relative tolerance ``rcond``."""
    check_tensor("pinverse", "input", 0, input)
    _infer_pinv("linalg_pinv", input._data)
    return linalg_pinv_op(input, None, _check_tol("pinverse", "rcond", 1, rcond), False)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _check_driver(op: str, name: str, pos: int, v: Any) -> str | None:
    if v is not None and v not in _LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    return v


def _infer_lstsq(op: str, a: Any, b: Any, rcond: float | None = None, driver: str | None = None) -> list[Any]:
    """InferMeta: the solution (n, k) (a vector ``B``: (n,)) over the broadcast batch; the residuals, the rank and
    the singular values depend on the driver and, the residuals, on the values (their shape is not checked)."""
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if b.dtype != a.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {scalar_type_name(a.dtype)} and other's dtype {scalar_type_name(b.dtype)}")
    vector = b.ndim == a.ndim - 1
    rows = b.shape[-1] if vector else (b.shape[-2] if b.ndim >= 2 else None)
    if rows != a.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-1] if vector else b.shape[:-2])
    except ValueError:
        raise RuntimeError(f"torch.linalg.lstsq: the batch dims of input {tuple(a.shape)} and other "
                           f"{tuple(b.shape)} do not broadcast") from None
    n = a.shape[-1]
    return [((*batch, n) if vector else (*batch, n, b.shape[-1]), a.dtype)]


@register_kernel("linalg_lstsq", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_lstsq")
def lstsq_cpu(a: np.ndarray, b: np.ndarray, rcond: float | None = None,
              driver: str | None = None) -> tuple[np.ndarray, ...]:
    """PyTorch's CPU default driver is ``gelsy``."""
    return lstsq_arrays(np, a, b, rcond, driver or "gelsy")


linalg_lstsq_op = defop("linalg_lstsq", inputs=("A", "B"), attrs=(Attr("rcond", None, _check_tol),
                                                                 Attr("driver", None, _check_driver)),
                        infer_meta=_infer_lstsq, save=("A", "B", "out"), amp="deny", out=False,
                        doc="(solution, residuals, rank, singular_values): the least-squares solution of A X = B")


@linalg_lstsq_op.def_backward
def linalg_lstsq_backward(ctx: Any, grads: Any) -> tuple[Any, Any]:
    """PyTorch's ``linalg_lstsq_backward``, through ``pinv(A)`` (a ``linalg_pinv`` of its own): the solution's
    ``gA`` is ``pinv_grad`` of ``gX B^T``, its ``gB = pinv(A)^T gX``. The residuals ``r = ||A X - B||^2`` (per
    column, where computed) add ``2 (A X - B) diag(g_r) X^T`` to ``gA`` and ``-2 (A X - B) diag(g_r)`` to ``gB``
    (``X`` is optimal: its own change does not move them)."""
    gX, g_res = (grads[0], grads[1]) if isinstance(grads, list) else (grads, None)
    a, b, x = ctx.saved()
    ops = ctx.ops
    vector = len(b.shape) == len(a.shape) - 1
    gXm = ops.unsqueeze(gX, -1) if vector else gX
    bm = ops.unsqueeze(b, -1) if vector else b
    xm = ops.unsqueeze(x, -1) if vector else x
    pinvA = ops.linalg_pinv(a)
    ga = pinv_grad(ops, ops.matmul(gXm, bm, transpose_y=True), pinvA, a) if ctx.needs(0) else None
    gb = ops.matmul(pinvA, gXm, transpose_x=True) if ctx.needs(1) else None
    if g_res is not None and g_res.shape[-1] != 0 and len(g_res.shape) == len(x.shape) - (0 if vector else 1):
        scaled = ops.mul(ops.sub(ops.matmul(a, xm), bm), ops.mul(ops.unsqueeze(g_res, -2), 2.0))
        ga = None if ga is None else ops.add(ga, ops.matmul(scaled, xm, transpose_y=True))
        gb = None if gb is None else ops.sub(gb, scaled)
    if ga is not None:
        ga = ops.sum_to(ga, tuple(a.shape))
    if gb is not None:
        gb = ops.sum_to(ops.squeeze(gb, -1) if vector else gb, tuple(b.shape))
    return ga, gb


def linalg_lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """``torch.linalg.lstsq``: ``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||``; the
    default driver on the CPU is ``gelsy`` (rank, no residuals), on a GPU ``gels`` (residuals for ``m > n``,
    no rank). Only ``solution`` and ``residuals`` take the node (a gradient flows from ``solution``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.lstsq(mg.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), mg.tensor([1.0, 2.0, 3.0])).solution.tolist()
        [1.0, 2.0]
    """
    check_tensor("linalg.lstsq", "input", 0, A)
    check_tensor("linalg.lstsq", "b", 1, B)
    _check_driver("linalg.lstsq", "driver", 3, driver)
    _infer_lstsq("linalg_lstsq", A._data, B._data)  # (before kernel selection, which knows no int64)
    solution, residuals, rank, values = linalg_lstsq_op(A, B, rcond, driver)
    return return_types.linalg_lstsq(solution, residuals, rank, values.detach())


# -- matrix_exp ------------------------------------------------------------------------------------------------


def _infer_matrix_exp(op: str, a: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: square matrices of a floating dtype in, the same shape out."""
    _matrices("linalg.matrix_exp", a)
    if a.dtype.kind != "f":
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(a.dtype)}")
    return tuple(a.shape), a.dtype


@register_kernel("linalg_matrix_exp", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/linalg_matrix_exp")
def matrix_exp_cpu(a: np.ndarray) -> np.ndarray:
    """``matrix_exp_arrays``; a half in float32 (PyTorch's half result is not the exponential)."""
    if a.dtype.itemsize < 4:
        return matrix_exp_arrays(np, a.astype(np.float32)).astype(a.dtype)
    return matrix_exp_arrays(np, a)


linalg_matrix_exp_op = defop("linalg_matrix_exp", inputs=("A",), infer_meta=_infer_matrix_exp, save=("A",), amp="deny",
                             doc="the exponential sum_k A^k / k! of each square matrix (Taylor's polynomial of degree 18 "
                                 "with scaling and squaring)")


@linalg_matrix_exp_op.def_backward
def linalg_matrix_exp_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``linalg_matrix_exp_differential`` (adjoint): the gradient is the upper-right block of
    ``exp([[A^T, G], [0, A^T]])``, one ``linalg_matrix_exp`` of a matrix twice the size (differentiable again)."""
    (a,) = ctx.saved()
    ops = ctx.ops
    n = a.shape[-1]
    at = _mT(ops, a)
    block = ops.concat([ops.concat([at, grad], -1), ops.concat([ops.fill(a, 0.0), at], -1)], -2)
    return (ops.getitem(ops.linalg_matrix_exp(block), (Ellipsis, slice(0, n), slice(n, 2 * n))),)


def linalg_matrix_exp(A: Tensor) -> Tensor:
    """``torch.linalg.matrix_exp`` (and ``torch.matrix_exp``): the exponential of each square matrix of ``A``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.matrix_exp(mg.zeros(2, 2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    check_tensor("linalg.matrix_exp", "A", 0, A)
    _infer_matrix_exp("linalg_matrix_exp", A._data)  # (before kernel selection, which knows no int64)
    return linalg_matrix_exp_op(A)


def matrix_exp(input: Tensor) -> Tensor:
    """``torch.matrix_exp``: ``linalg.matrix_exp``."""
    return linalg_matrix_exp(input)
