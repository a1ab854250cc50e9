"""The LU factorization's packed form: ``linalg.lu_factor`` (and ``lu_factor_ex``, ``torch.lu``) makes it,
``linalg.lu`` gives it unpacked (``P``, ``L``, ``U`` from one node),
``lu_unpack`` (``P``, ``L``, ``U`` from ``(LU, pivots)``) unpacks it and ``linalg.lu_solve`` (the ``X`` with
``A X = B`` from it; ``torch.lu_solve`` its older spelling) uses it.

``(LU, pivots)`` is what LAPACK's ``getrf`` leaves (PyTorch's ``linalg.lu_factor``): ``U`` on and above the
diagonal of ``LU``, the unit lower-triangular ``L`` below it, and ``A = P L U`` with ``P`` the row swaps
``pivots`` lists (1-based, applied in turn). The pivots are integers and take no gradient; the formulas:

- ``(LU, pivots) = lu_factor(A)``: with ``P^T dA = dL U + L dU`` and ``L^-1 dL`` strictly lower, ``dU U^-1``
  upper, ``gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T`` (a wide or tall ``A``: its extra columns or
  rows through ``U`` or ``L`` alone, ``linalg_lu_factor_ex_backward``);
- ``(P, L, U) = linalg.lu(A)``: the same formula (``lu_grad``) from ``gL`` and ``gU`` directly;
- ``(L, U) = lu_unpack(LU)``: ``gLU = tril(gL, -1) + triu(gU)``, each where its factor sits in ``LU``
  (``P`` comes from its own op, without gradient, as PyTorch's ``P`` has none);
- ``X = A^-1 B`` (``lu_solve``): ``gB = A^-T G``, ``gA = -gB X^T`` (the adjoint and right-hand forms
  alike), and from ``dA = P (dL U + L dU)``: ``gLU = tril(P^T gA U^T, -1) + triu(L^T P^T gA)``.

Example:
    >>> import minigrad as mg
    >>> LU, piv = mg.tensor([[2.0, 1.0], [0.5, 1.5]]), mg.tensor([1, 2], dtype=mg.int32)
    >>> mg.linalg.lu_solve(LU, piv, mg.tensor([[3.0], [3.0]])).flatten().tolist()
    [1.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..dtypes import ALL_DTYPES
from ..kernels.infer_meta import broadcast_shapes, scalar_type_name
from ..kernels.key import Backend
from ..kernels.backends import to_numpy
from ..kernels.linalg_arrays import lu_factor_arrays, lu_solve_arrays, lu_unpack_arrays, permutation_matrix
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ..creation import empty
from . import _return_types as return_types
from ._checks import check_bool, check_tensor
from .factorization import _DTYPES, _cols, _mT
from .registry import Attr, Input, defop
from ..dispatch.amp import autocast_as

__all__ = ["lu", "lu_unpack", "lu_solve"]  # torch.lu, lu_unpack and lu_solve; the linalg names are in mg.linalg


def _int32_pivots(op: str, message: str, pivots: Any) -> None:
    if pivots.dtype != np.int32:
        raise RuntimeError(f"{op}: {message}")


# -- lu_factor: getrf ----------------------------------------------------------------------------------------------


def _check_pivot(op: str, name: str, pos: int, v: Any) -> bool:
    if not check_bool(op, name, pos, v):
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return v


def _infer_lu_factor(op: str, a: Any, pivot: bool = True) -> list[Any]:
    """InferMeta: ``LU`` of ``A``'s shape, ``pivots`` (``min(m, n)``) and ``info`` (one per matrix), int32."""
    if a.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(a.shape)} "
                           f"instead")
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    *batch, m, n = a.shape
    return [(tuple(a.shape), a.dtype), ((*batch, min(m, n)), np.dtype(np.int32)), (tuple(batch), np.dtype(np.int32))]


@register_kernel("linalg_lu_factor_ex", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_lu_factor_ex")
def lu_factor_cpu(a: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's ``getrf`` with partial pivoting (``lu_factor_arrays``)."""
    return lu_factor_arrays(np, a)


linalg_lu_factor_ex_op = defop(
    "linalg_lu_factor_ex", inputs=("A",), attrs=(Attr("pivot", True, _check_pivot),), infer_meta=_infer_lu_factor,
    save=("out", "out1"), amp="deny", out=False,
    doc="(LU, pivots, info): A = P L U with partial pivoting, L below the diagonal of LU, U on and above it")


def _lu_square_grad(ops: Any, L: Any, U: Any, M: Any) -> Any:
    """``L^-T M U^-T``, two triangular solves (``L`` unit lower, ``U`` upper)."""
    x = ops.linalg_solve_triangular(_mT(ops, L), M, True, True, True)
    return ops.linalg_solve_triangular(_mT(ops, U), x, False, False, False)


def lu_grad(ops: Any, L: Any, U: Any, gL: Any, gU: Any) -> Any:
    """PyTorch's ``linalg_lu_backward`` (torch/csrc/autograd/FunctionsManual.cpp) before ``P``: the gradient of
    ``A`` from those of ``L`` (``m x k``, strictly lower part) and ``U`` (``k x n``, upper part), ``gA = P`` times it.
    Square: ``L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T``. A wide ``A = P L [U1 | U2]`` adds ``gA2 = L^-T gU2``
    and takes ``gU2 U2^T`` off ``L^T gL``; a tall ``A = P [L1; L2] U`` adds ``gA2 = gL2 U^-T`` and takes
    ``L2^T gL2`` off ``gU U^T``. Shared by ``linalg.lu_factor`` (its packed gradient split in two) and ``linalg.lu``."""
    m, n = L.shape[-2], U.shape[-1]
    gL, gU = ops.tril(gL, -1), ops.triu(gU)
    if m == n:
        return _lu_square_grad(ops, L, U, ops.add(ops.tril(ops.matmul(L, gL, transpose_x=True), -1),
                                                  ops.triu(ops.matmul(gU, U, transpose_y=True))))
    if m < n:
        U1, U2, gU1, gU2 = _cols(ops, U, 0, m), _cols(ops, U, m, n), _cols(ops, gU, 0, m), _cols(ops, gU, m, n)
        low = ops.sub(ops.matmul(L, gL, transpose_x=True), ops.matmul(gU2, U2, transpose_y=True))
        ga1 = _lu_square_grad(ops, L, U1, ops.add(ops.tril(low, -1), ops.triu(ops.matmul(gU1, U1, transpose_y=True))))
        return ops.concat([ga1, ops.linalg_solve_triangular(_mT(ops, L), gU2, True, True, True)], -1)
    L1, L2 = ops.getitem(L, (Ellipsis, slice(0, n), slice(None))), ops.getitem(L, (Ellipsis, slice(n, m), slice(None)))
    gL1, gL2 = ops.getitem(gL, (Ellipsis, slice(0, n), slice(None))), ops.getitem(gL, (Ellipsis, slice(n, m), slice(None)))
    up = ops.sub(ops.matmul(gU, U, transpose_y=True), ops.matmul(L2, gL2, transpose_x=True))
    ga1 = _lu_square_grad(ops, L1, U, ops.add(ops.tril(ops.matmul(L1, gL1, transpose_x=True), -1), ops.triu(up)))
    return ops.concat([ga1, ops.linalg_solve_triangular(_mT(ops, U), gL2, False, False, False)], -2)


@linalg_lu_factor_ex_op.def_backward
def linalg_lu_factor_ex_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """``gA = P lu_grad(L, U, gL, gU)``, the packed gradient split where ``L`` and ``U`` sit in ``LU``; ``pivots``
    and ``info`` take none."""
    g = grads[0] if isinstance(grads, list) else grads
    lu, pivots = ctx.saved()
    ops = ctx.ops
    m, n = lu.shape[-2:]
    if m == 0 or n == 0:
        return (ops.fill(g, 0.0),)
    k = min(m, n)
    L, U = ops.lu_unpack(lu)
    ga = lu_grad(ops, L, U, _cols(ops, g, 0, k), ops.getitem(g, (Ellipsis, slice(0, k), slice(None))))
    return (ops.matmul(ops.lu_permutation(lu, pivots), ga),)


def _singular_u(op: str, info: Tensor) -> None:
    """PyTorch's ``_linalg_check_errors`` for an LU: the first matrix with a zero on ``U``'s diagonal, named (a read
    of ``info``: a sync on a device, as PyTorch's)."""
    codes = to_numpy(info._data).reshape(-1)
    bad = np.flatnonzero(codes)
    if not bad.size:
        return
    where = f"(Batch element {int(bad[0])}): " if info.ndim else ""
    j = int(codes[bad[0]])
    raise RuntimeError(f"{op}: {where}U[{j},{j}] is zero and using it on lu_solve would result in a division by zero. "
                       f"If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                       f"linalg.lu_factor_ex(A, pivot)")


def linalg_lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    """``torch.linalg.lu_factor_ex``: ``(LU, pivots, info)``, ``info`` the first zero of ``U``'s diagonal (1-based, 0:
    none) of each matrix; reads nothing unless ``check_errors``. Only ``LU`` takes a gradient.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.lu_factor_ex(mg.tensor([[1.0, 2.0], [2.0, 4.0]])).info.item()
        2
    """
    check_tensor("linalg.lu_factor_ex", "A", 0, A)
    _infer_lu_factor("linalg_lu_factor_ex", A._data, _check_pivot("linalg.lu_factor_ex", "pivot", 1, pivot))
    LU, pivots, info = linalg_lu_factor_ex_op(A, pivot)
    if check_bool("linalg.lu_factor_ex", "check_errors", 2, check_errors):
        _singular_u("torch.linalg.lu_factor_ex", info)
    return return_types.linalg_lu_factor_ex(LU, pivots, info)


def linalg_lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``torch.linalg.lu_factor``: ``(LU, pivots)`` with ``A = P L U`` (LAPACK's ``getrf``: ``U`` on and above the
    diagonal of ``LU``, the unit lower-triangular ``L`` below it), for ``linalg.lu_solve`` and ``lu_unpack``; a zero
    on ``U``'s diagonal raises in PyTorch's words (a read).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.lu_factor(mg.tensor([[1.0, 2.0], [2.0, 1.0]])).pivots.tolist()
        [2, 2]
    """
    check_tensor("linalg.lu_factor", "A", 0, A)
    _infer_lu_factor("linalg_lu_factor_ex", A._data, _check_pivot("linalg.lu_factor", "pivot", 1, pivot))
    LU, pivots, info = linalg_lu_factor_ex_op(A, pivot)
    _singular_u("torch.linalg.lu_factor", info)
    return return_types.linalg_lu_factor(LU, pivots)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """``torch.lu`` (deprecated in PyTorch for ``linalg.lu_factor``): ``(LU, pivots)``, with ``get_infos`` the named
    tuple ``(LU, pivots, info)``; a singular matrix is not refused."""
    check_tensor("lu", "A", 0, A)
    _infer_lu_factor("linalg_lu_factor_ex", A._data, _check_pivot("lu", "pivot", 1, pivot))
    LU, pivots, info = linalg_lu_factor_ex_op(A, pivot)
    return return_types._lu_with_info(LU, pivots, info) if check_bool("lu", "get_infos", 2, get_infos) else (LU, pivots)


# -- linalg.lu: P, L, U in one node ---------------------------------------------------------------------------



def _infer_linalg_lu(op: str, a: Any, pivot: bool = True) -> list[Any]:
    """InferMeta: ``L`` ``(m, k)``, ``U`` ``(k, n)`` and getrf's pivots (``k``, int32: minigrad-internal, ``P`` is
    made from them), in PyTorch's words for a vector or a non-floating ``A``."""
    if a.ndim < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(a.shape)} instead")
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    *batch, m, n = a.shape
    k = min(m, n)
    return [((*batch, m, k), a.dtype), ((*batch, k, n), a.dtype), ((*batch, k), np.dtype(np.int32))]


@register_kernel("linalg_lu", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_lu")
def linalg_lu_cpu(a: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """getrf (``lu_factor_arrays``), then its packed result unpacked (``lu_unpack_arrays``)."""
    lu, pivots, _ = lu_factor_arrays(np, a)
    L, U = lu_unpack_arrays(np, lu)
    return L, U, pivots


linalg_lu_op = defop(
    "linalg_lu", inputs=("A",), attrs=(Attr("pivot", True, _check_pivot),), infer_meta=_infer_linalg_lu,
    save=("out", "out1", "out2"), amp="deny", out=False,
    doc="(L, U, pivots): A = P L U with partial pivoting, L unit lower (m x k), U upper (k x n); P from the pivots")


@linalg_lu_op.def_backward
def linalg_lu_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """PyTorch's ``LinalgLuBackward0``: ``gA = P lu_grad(L, U, gL, gU)`` (a missing one of ``gL``, ``gU`` is 0)."""
    L, U, pivots = ctx.saved()
    ops = ctx.ops
    gL, gU = grads[0], grads[1]
    m, n = L.shape[-2], U.shape[-1]
    if gL is None and gU is None:
        return (None,)
    gL = ops.fill(L, 0.0) if gL is None else gL
    gU = ops.fill(U, 0.0) if gU is None else gU
    if m == 0 or n == 0:
        return (ops.fill(ops.matmul(L, U), 0.0),)
    return (ops.matmul(ops.lu_permutation(L, pivots), lu_grad(ops, L, U, gL, gU)),)


def linalg_lu(A: Tensor, *, pivot: bool = True) -> Any:
    """``torch.linalg.lu``: ``(P, L, U)`` with ``A = P L U``, ``L`` unit lower-triangular ``(m, k)``, ``U`` upper
    ``(k, n)``, ``k = min(m, n)``, over any batch dims. ``L`` and ``U`` come from one node (``LinalgLuBackward0``);
    ``P`` takes no gradient. ``pivot=False`` is refused on the CPU, in PyTorch's words.

    Example:
        >>> import minigrad as mg
        >>> P, L, U = mg.linalg.lu(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> P.tolist(), L.tolist(), U.tolist()
        ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.3333333432674408, 1.0]], [[3.0, 4.0], [0.0, 0.6666666269302368]])
    """
    check_tensor("linalg.lu", "A", 0, A)
    pivot = check_bool("linalg.lu", "pivot", 1, pivot)
    _infer_linalg_lu("linalg_lu", A._data, pivot)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    L, U, pivots = linalg_lu_op(A, pivot)
    return return_types.linalg_lu(lu_permutation(L, pivots), L, U)


# -- lu_unpack ------------------------------------------------------------------------------------------------


def _infer_lu_unpack(op: str, lu: Any) -> list[Any]:
    """InferMeta: ``L`` ``(m, k)`` and ``U`` ``(k, n)``, ``k = min(m, n)``."""
    if lu.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(lu.shape)} "
                           f"instead")
    *batch, m, n = lu.shape
    k = min(m, n)
    return [((*batch, m, k), lu.dtype), ((*batch, k, n), lu.dtype)]


@register_kernel("lu_unpack", Backend.CPU, dtypes=ALL_DTYPES, name="cpu/lu_unpack")
def lu_unpack_cpu(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return lu_unpack_arrays(np, lu)


lu_unpack_op = defop("lu_unpack", inputs=("LU_data",), infer_meta=_infer_lu_unpack, amp="deny", out=False,
                     doc="(L, U) of a packed LU: the unit lower triangle below the diagonal, the upper on and above")


@lu_unpack_op.def_backward
def lu_unpack_backward(ctx: Any, grads: Any) -> tuple[Any]:
    """``gLU = tril(gL, -1) + triu(gU)``, the two factors' blocks padded with zeros to ``LU``'s shape."""
    gL, gU = grads
    ops = ctx.ops
    m, n = ctx.input_shape(0)[-2:]
    low, up = ops.tril(gL, -1), ops.triu(gU)
    if m > n:  # U is the first n rows
        up = ops.concat([up, ops.fill(ops.getitem(low, (Ellipsis, slice(n, m), slice(None))), 0.0)], -2)
    elif n > m:  # L is the first m columns
        low = ops.concat([low, ops.fill(ops.getitem(up, (Ellipsis, slice(None), slice(m, n))), 0.0)], -1)
    return (ops.add(low, up),)


def _infer_lu_permutation(op: str, lu: Any, pivots: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: one ``(m, m)`` permutation matrix per matrix of ``LU`` (the pivots' batch broadcast to it)."""
    m = lu.shape[-2]
    batch = broadcast_shapes("lu_unpack", lu.shape[:-2], pivots.shape[:-1])
    return (*batch, m, m), lu.dtype


@register_kernel("lu_permutation", Backend.CPU, dtypes=ALL_DTYPES, name="cpu/lu_permutation")
def lu_permutation_cpu(lu: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    m = lu.shape[-2]
    p = permutation_matrix(np, pivots, m, lu.dtype)
    return np.ascontiguousarray(np.broadcast_to(p, tuple(np.broadcast_shapes(lu.shape[:-2], p.shape[:-2])) + (m, m)))


lu_permutation = defop("lu_permutation", inputs=("LU", Input("pivots", differentiable=False)),
                       infer_meta=_infer_lu_permutation, differentiable=False, key_inputs=(0,), out=False,
                       doc="P of A = P L U from getrf's pivots, in LU's dtype (no gradient, as PyTorch's P): "
                           "minigrad-internal")


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """``torch.lu_unpack``: ``(P, L, U)`` with ``A = P L U`` from ``linalg.lu_factor``'s ``(LU, pivots)``; ``L``
    and ``U`` take gradients (``LuUnpackBackward0``), ``P`` none. ``unpack_data=False`` gives empty ``L`` and
    ``U``, ``unpack_pivots=False`` an empty ``P``.

    Example:
        >>> import minigrad as mg
        >>> P, L, U = mg.lu_unpack(mg.tensor([[2.0, 1.0], [0.5, 1.5]]), mg.tensor([2, 2], dtype=mg.int32))
        >>> P.tolist(), L.tolist()
        ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.5, 1.0]])
    """
    check_tensor("lu_unpack", "LU_data", 0, LU_data)
    check_tensor("lu_unpack", "LU_pivots", 1, LU_pivots)
    check_bool("lu_unpack", "unpack_data", 2, unpack_data)
    check_bool("lu_unpack", "unpack_pivots", 3, unpack_pivots)
    if LU_data.ndim < 2 and LU_data.requires_grad and is_grad_enabled():  # PyTorch's autograd path sizes it first
        raise IndexError("Dimension specified as -1 but tensor has no dimensions" if LU_data.ndim == 0 else
                         "Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    _infer_lu_unpack("lu_unpack", LU_data._data)
    if unpack_pivots:
        _int32_pivots("torch.lu_unpack", "LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.",
                      LU_pivots._data)
    nothing = empty(0, dtype=LU_data.dtype, device=LU_data.device)
    L, U = lu_unpack_op(LU_data) if unpack_data else (nothing, nothing)
    P = lu_permutation(LU_data, LU_pivots) if unpack_pivots else nothing
    return return_types.lu_unpack(P, L, U)


# -- linalg.lu_solve --------------------------------------------------------------------------------------------


def _infer_lu_solve(op: str, lu: Any, pivots: Any, b: Any, left: bool = True,
                    adjoint: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta, in PyTorch's order of checks: ``X`` of ``B``'s matrix shape over the broadcast batch dims."""
    name = "linalg.lu_solve"
    if lu.ndim < 2:
        raise RuntimeError(f"torch.{name}: The input tensor A must have at least 2 dimensions.")
    if lu.shape[-1] != lu.shape[-2]:
        raise RuntimeError(f"torch.{name}: A must be batches of square matrices, but they are {lu.shape[-2]} by "
                           f"{lu.shape[-1]} matrices")
    if lu.dtype.kind != "f":
        raise RuntimeError(f"torch.{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(lu.dtype)}")
    if b.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if b.dtype != lu.dtype:
        raise RuntimeError(f"{name}: Expected LU and B to have the same dtype, but found LU of type "
                           f"{scalar_type_name(lu.dtype)} and B of type {scalar_type_name(b.dtype)} instead")
    _int32_pivots(name, "pivots should be a Tensor of scalar type torch.int32", pivots)
    n = lu.shape[-1]
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError(f"{name}: Number of pivots per batch should be same as the dimension of the matrix")
    if tuple(pivots.shape) != tuple(lu.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    if lu.dtype.itemsize < 4:
        raise NotImplementedError(f"\"linalg.lu_solve_cpu\" not implemented for '{scalar_type_name(lu.dtype)}'")
    batch = broadcast_shapes(name, b.shape[:-2], lu.shape[:-2])
    return (*batch, *b.shape[-2:]), lu.dtype


@register_kernel("linalg_lu_solve", Backend.CPU, dtypes=_DTYPES, name="cpu/linalg_lu_solve")
def lu_solve_cpu(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool = True,
                 adjoint: bool = False) -> np.ndarray:
    """LAPACK's ``getrs``: the row swaps and two triangular solves (``lu_solve_arrays``)."""
    return lu_solve_arrays(np, lu, pivots, b, left, adjoint)


linalg_lu_solve_op = defop(
    "linalg_lu_solve", inputs=("LU", Input("pivots", differentiable=False), "B"),
    attrs=(Attr("left", True, check_bool), Attr("adjoint", False, check_bool)), infer_meta=_infer_lu_solve,
    save=("LU", "pivots", "out"), key_inputs=(0, 2), amp="deny",
    doc="the X with A X = B (adjoint: A^T X = B; left=False: X A = B) for A = P L U given as getrf's (LU, pivots)")


def _lu_grad_of_a(ops: Any, lu: Any, pivots: Any, ga: Any) -> Any:
    """``gLU`` from ``gA`` through ``A = P L U``: ``tril(P^T gA U^T, -1) + triu(L^T P^T gA)``."""
    L, U = ops.lu_unpack(lu)
    pga = ops.matmul(ops.lu_permutation(lu, pivots), ga, transpose_x=True)
    return ops.add(ops.tril(ops.matmul(pga, U, transpose_y=True), -1), ops.triu(ops.matmul(L, pga, transpose_x=True)))


@linalg_lu_solve_op.def_backward
def linalg_lu_solve_backward(ctx: Any, grad: Any) -> tuple[Any, None, Any]:
    """``gB`` solves the adjoint system with ``G``; ``gA`` is ``-gB X^T`` (``A^T X = B``: ``-X gB^T``; ``X A = B``:
    ``-X^T gB``; ``X A^T = B``: ``-gB^T X``), taken to ``LU`` by ``_lu_grad_of_a``; both summed back over
    broadcast batch dims."""
    lu, pivots, x = ctx.saved()
    ops = ctx.ops
    left, adjoint = ctx.attrs["left"], ctx.attrs["adjoint"]
    gb = ops.linalg_lu_solve(lu, pivots, grad, left, not adjoint)
    glu = None
    if ctx.needs(0):
        if left:
            ga = ops.matmul(x, gb, transpose_y=True) if adjoint else ops.matmul(gb, x, transpose_y=True)
        else:
            ga = ops.matmul(gb, x, transpose_x=True) if adjoint else ops.matmul(x, gb, transpose_x=True)
        glu = ops.sum_to(_lu_grad_of_a(ops, lu, pivots, ops.neg(ga)), tuple(ctx.input_shape(0)))
    return glu, None, (ops.sum_to(gb, tuple(ctx.input_shape(2))) if ctx.needs(2) else None)


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """``torch.linalg.lu_solve``: the ``X`` with ``A X = B`` (``adjoint``: ``A^T X = B``; ``left=False``: ``X A =
    B``) for ``A = P L U`` given as ``linalg.lu_factor``'s ``(LU, pivots)``; differentiable in ``LU`` and ``B``."""
    check_tensor("linalg.lu_solve", "LU", 0, LU)
    check_tensor("linalg.lu_solve", "pivots", 1, pivots)
    check_tensor("linalg.lu_solve", "B", 2, B)
    left = check_bool("linalg.lu_solve", "left", 3, left)
    adjoint = check_bool("linalg.lu_solve", "adjoint", 4, adjoint)
    _infer_lu_solve("linalg_lu_solve", LU._data, pivots._data, B._data, left, adjoint)
    return linalg_lu_solve_op(LU, pivots, B, left, adjoint)


@autocast_as("lu_solve")
def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """``torch.lu_solve`` (deprecated in PyTorch for ``linalg.lu_solve``, whose arguments come the other way
    round): the ``X`` with ``A X = input``."""
    check_tensor("lu_solve", "input", 0, input)
    check_tensor("lu_solve", "LU_data", 1, LU_data)
    check_tensor("lu_solve", "LU_pivots", 2, LU_pivots)
    _infer_lu_solve("linalg_lu_solve", LU_data._data, LU_pivots._data, input._data)
    return linalg_lu_solve_op(LU_data, LU_pivots, input, True, False)
