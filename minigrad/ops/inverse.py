"""Inverses and linear systems: ``inv``, ``solve`` and ``det`` (``torch.linalg``), each an op with its formula.

For square matrices ``A`` (batched over leading dims):

- ``X = inv(A)``: ``dA = -X^T G X^T`` (differentiate ``A X = I``);
- ``X = solve(A, B)``, the ``X`` with ``A X = B``: ``dB = solve(A^T, G)`` and
  ``dA = -dB X^T`` (batch dims that broadcast are summed back);
- ``d = det(A)``: ``dA = G d inv(A)^T`` (Jacobi's formula). At a singular
  ``A`` the inverse does not exist: this formula then raises (PyTorch goes
  through the SVD there).

A singular matrix makes ``inv`` and ``solve`` raise ``RuntimeError``
(PyTorch's ``torch.linalg.LinAlgError`` is a ``RuntimeError`` too).

Example:
    >>> import minigrad as mg
    >>> A = mg.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> mg.linalg.inv(A).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    >>> mg.linalg.solve(A, mg.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    >>> mg.linalg.det(A).item()
    8.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.formula import GRAPH_OPS
from ..autograd.grad_mode import no_grad
from ..dtypes import FLOAT_DTYPES
from ..kernels.array_kernels import (column_major, lu_transposed_solve_arrays, nan_where_a_holds_nan, singular_error,
                                     vector_rhs)
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_tensor
from ._constants import constant
from .linalg import matmul
from .math import add, clone, fill
from .registry import Attr, defop, define_composite, type_name

__all__ = ["inverse", "det"]  # torch.inverse and torch.det; all three are in mg.linalg (minigrad/linalg.py)


def _square(op: str, a: Any, name: str = "A") -> None:
    if a.dtype.kind != "f":
        raise RuntimeError(f"{op}: Expected a floating point tensor as input. Got {a.dtype}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{'x'.join(map(str, a.shape[-2:])) if a.ndim >= 2 else f'{a.ndim}-D'}")


# -- inv ---------------------------------------------------------------------------------------------


def infer_inv(op: str, a: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: square matrices in, the same shape out."""
    _square("linalg.inv", a)
    return tuple(a.shape), a.dtype


@register_kernel("inv", Backend.CPU, dtypes=FLOAT_DTYPES)
def inv_cpu(a: np.ndarray) -> np.ndarray:
    """LAPACK's through NumPy; a matrix holding NaN gives NaN everywhere, as PyTorch's (``nan_where_a_holds_nan``)."""
    try:
        return column_major(np, nan_where_a_holds_nan(np, a, np.asarray(np.linalg.inv(a), dtype=a.dtype)))
    except np.linalg.LinAlgError:
        raise singular_error("linalg.inv") from None


inv_op = defop("inv", inputs=("A",), infer_meta=infer_inv, save=("out",), amp="deny",
               doc="the inverse of each square matrix")


@inv_op.def_backward
def inv_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """From ``A X = I``: ``dA = -X^T G X^T``."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.neg(ops.matmul(ops.matmul(x, grad, transpose_x=True), x, transpose_y=True)),)


# -- solve -------------------------------------------------------------------------------------------


def infer_solve(op: str, a: Any, b: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``X`` has ``B``'s shape with the batch dims of ``A`` and ``B`` broadcast."""
    _square("linalg.solve", a)
    if b.dtype != a.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type {a.dtype} "
                           f"and B of type {b.dtype} instead")
    n = a.shape[-1]
    if vector_rhs(a.shape, b.shape):
        if b.shape[-1] != n:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                               f"({tuple(a.shape)} and {tuple(b.shape)})")
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-1])
        return tuple(batch) + (n,), a.dtype
    if b.ndim < 2 or b.shape[-2] != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({tuple(a.shape)} and {tuple(b.shape)})")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise RuntimeError(f"linalg.solve: the batch dims of A {tuple(a.shape)} and B {tuple(b.shape)} do not broadcast") from None
    return tuple(batch) + tuple(b.shape[-2:]), a.dtype


@register_kernel("solve", Backend.CPU, dtypes=FLOAT_DTYPES)
def solve_cpu(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LAPACK's through NumPy; a matrix holding NaN gives NaN everywhere, as PyTorch's (``nan_where_a_holds_nan``)."""
    vector = vector_rhs(a.shape, b.shape)
    rhs = b[..., None] if vector else b
    try:
        x = nan_where_a_holds_nan(np, a, np.asarray(np.linalg.solve(a, rhs), dtype=a.dtype))
    except np.linalg.LinAlgError:
        raise singular_error("linalg.solve") from None
    return np.asarray(x[..., 0], dtype=a.dtype) if vector else column_major(np, np.asarray(x, dtype=a.dtype))


solve_op = defop("solve", inputs=("A", "B"), infer_meta=infer_solve, save=("A", "out"), amp="deny",
                 doc="the X with A X = B (B a matrix or a vector per matrix of A)")


@solve_op.def_backward
def solve_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dB = solve(A^T, G)``, ``dA = -dB X^T``, each summed back over broadcast batch dims."""
    a, x = ctx.saved()
    ops = ctx.ops
    b_shape = tuple(ctx.input_shape(1))
    vector = vector_rhs(tuple(a.shape), b_shape)
    gb = ops.solve(ops.transpose(a, -2, -1), grad)
    ga = None
    if ctx.needs(0):
        if vector:  # dA = -dB x^T, an outer product per batch element
            ga = ops.neg(ops.mul(ops.unsqueeze(gb, -1), ops.unsqueeze(x, -2)))
        else:
            ga = ops.neg(ops.matmul(gb, x, transpose_y=True))
        ga = ops.sum_to(ga, tuple(a.shape))
    return ga, (ops.sum_to(gb, b_shape) if ctx.needs(1) else None)


# -- det ---------------------------------------------------------------------------------------------


def infer_det(op: str, a: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: one number per square matrix."""
    _square("linalg.det", a)
    return tuple(a.shape[:-2]), a.dtype


@register_kernel("det", Backend.CPU, dtypes=FLOAT_DTYPES)
def det_cpu(a: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # a matrix holding inf or nan: nan, without NumPy's warning (PyTorch gives none)
        return np.asarray(np.linalg.det(a), dtype=a.dtype)


det_op = defop("det", inputs=("A",), infer_meta=infer_det, save=("A", "out"), amp="deny",
               doc="the determinant of each square matrix")


@det_op.def_backward
def det_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``linalg_det_backward``: ``dA = G det(A) A^{-T}``. Without ``create_graph``, by the LU of
    ``A^T`` with each zero pivot made ``eps`` (``lu_transposed_solve``): a singular ``A`` gets a gradient (0, as
    its determinant), no error. With ``create_graph``, differentiably: ``solve(A^T, D)``, or, where a matrix is
    singular (``|det| < 100 eps``), through its SVD (``_det_backward_singular``)."""
    a, d = ctx.saved()
    ops = ctx.ops
    scaled = ops.mul(grad, d)
    if not ctx.create_graph:
        return (ops.lu_transposed_solve(a, scaled, True),)
    with no_grad():  # PyTorch's test (a read of the device, as its); no part of the gradient's graph
        singular = d.numel() > 0 and ops.min(ops.abs(d)).item() < 100 * float(np.finfo(a.dtype.np).eps)
    if singular:
        return (_det_backward_singular(ops, a, grad),)
    return (ops.solve(ops.transpose(a, -2, -1), diag_of(ops, scaled, a.shape[-1])),)


def diag_of(ops: Any, g: Any, n: int) -> Any:
    """The ``n x n`` diagonal matrices of the numbers ``g`` (PyTorch's ``diag_embed(g.unsqueeze(-1).expand(..., n))``)."""
    return ops.diag_embed(ops.expand(ops.unsqueeze(g, -1), tuple(g.shape) + (n,)))


# reachable as ``ops.diag_of`` from the formulas of ops/factorization.py (which this module's imports reach)
define_composite("diag_of", lambda g, n, ops=GRAPH_OPS: diag_of(ops, g, n))


def _det_backward_singular(ops: Any, a: Any, grad: Any) -> Any:
    """PyTorch's gradient of ``det`` at a singular matrix, which ``det`` is smooth at: with ``A = U S V^T``,
    ``U diag(g alpha prod_{j != i} s_j) V^T`` (``alpha = det(U) det(V^T)``; the products of the others by
    running products, no division by a zero singular value)."""
    u, s, vh = ops.linalg_svd(a, False)
    alpha = ops.mul(ops.det(u), ops.det(vh))
    dd = ops.prod_safe_zeros(ops.unsqueeze(ops.mul(grad, alpha), -1), s, s.ndim - 1)  # (ops/reduce.py)
    return ops.matmul(ops.mul(u, ops.unsqueeze(dd, -2)), vh)


def _lu_solve_meta(op: str, a: Any, g: Any, perturb: bool = False) -> tuple[tuple[int, ...], Any]:
    return tuple(a.shape), a.dtype


@register_kernel("lu_transposed_solve", Backend.CPU, dtypes=FLOAT_DTYPES)
def lu_transposed_solve_cpu(a: np.ndarray, g: np.ndarray, perturb: bool = False) -> np.ndarray:
    n = a.shape[-1]
    return lu_transposed_solve_arrays(np, a, np.asarray(g)[..., None, None] * np.eye(n, dtype=a.dtype), perturb)


lu_transposed_solve = defop(
    "lu_transposed_solve", inputs=("A", "g"), attrs=(Attr("perturb", False, check_bool),), infer_meta=_lu_solve_meta,
    differentiable=False, amp="deny", out=False, key_inputs=(0,),
    doc="A^{-T} diag(g) per matrix by the LU of A^T, as PyTorch's det and slogdet backwards (a zero pivot gives "
        "inf and NaN; perturb: eps in its place): minigrad-internal")


# -- PyTorch's signatures --------------------------------------------------------------------------------


def inv(A: Tensor) -> Tensor:
    """``torch.linalg.inv``: the inverse of each square matrix of ``A``."""
    return inv_op(check_tensor("linalg.inv", "A", 0, A))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``torch.linalg.solve``: the ``X`` with ``A X = B`` (``left=False``, ``X A = B``, is not supported)."""
    check_tensor("linalg.solve", "A", 0, A)
    check_tensor("linalg.solve", "B", 1, B)
    if left is not True:
        raise NotImplementedError("linalg.solve: left=False is not supported; solve A^T X^T = B^T instead")
    return solve_op(A, B)


def det(A: Tensor) -> Tensor:
    """``torch.linalg.det``: the determinant of each square matrix of ``A``."""
    return det_op(check_tensor("linalg.det", "A", 0, A))


def inverse(input: Tensor) -> Tensor:
    """``torch.inverse``: the same as ``linalg.inv``."""
    return inv_op(check_tensor("inverse", "input", 0, input))


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` multiplied by itself ``n`` times (``torch.linalg.matrix_power``; ``n = 0`` gives the identity,
    ``n < 0`` powers of ``inv(A)``). Composite, PyTorch's: repeated squaring with ``matmul``."""
    check_tensor("linalg.matrix_power", "A", 0, A)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"linalg.matrix_power(): argument 'n' (position 1) must be int, but got {type_name(n)}")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but got shape {tuple(A.shape)}")
    if n == 0:  # the identity written into a copy: still in the graph (a zero gradient), as PyTorch's
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype.np), tuple(A.shape)).copy()
        return clone(A, memory_format="contiguous_format").copy_(constant(eye, A))
    base = inv_op(A) if n < 0 else A
    k = abs(n)
    if k == 1:  # PyTorch's fast paths: a copy of A (or inv(A) itself), A @ A, (A @ A) @ A
        return base if n < 0 else clone(A, memory_format="contiguous_format")
    if k == 2:
        return matmul(base, base)
    if k == 3:
        return matmul(matmul(base, base), base)
    result = None
    while k:  # square-and-multiply: log2(n) products, in PyTorch's order
        if k & 1:
            result = base if result is None else matmul(result, base)
        k >>= 1
        if k:
            base = matmul(base, base)
    return result
