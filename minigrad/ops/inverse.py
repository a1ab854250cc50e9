"""Inverses and linear systems: ``inv``, ``solve`` and ``det`` (``torch.linalg``), each an op with its formula.

For square matrices ``A`` (batched over leading dims):

- ``X = inv(A)``: ``dA = -X^T G X^T`` (differentiate ``A X = I``);
- ``X = solve(A, B)``, the ``X`` with ``A X = B``: ``dB = solve(A^T, G)`` and
  ``dA = -dB X^T`` (batch dims that broadcast are summed back);
- ``d = det(A)``: ``dA = G d inv(A)^T`` (Jacobi's formula). At a singular
  ``A`` the inverse does not exist: this formula then raises (PyTorch goes
  through the SVD there).

and, from a triangular factor (the section at the end):

- ``X = triangular_solve(b, A)``, ``op(A) X = b``: ``gb = op(A)^-T gX``, ``g op(A) = -gb X^T`` on ``A``'s
  triangle, plus the gradient of the copy of ``A`` it returns;
- ``X = cholesky_solve(b, L)``, ``L L^T X = b``: ``gb = cholesky_solve(gX, L)``, ``gL = S L`` with
  ``S = -(gb X^T + X gb^T)``.

A singular matrix makes ``inv`` and ``solve`` raise ``mg.linalg.LinAlgError`` (a ``RuntimeError``, as
PyTorch's ``torch.linalg.LinAlgError``), in PyTorch's words.

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
from ..kernels.infer_meta import broadcast_shapes, scalar_type_name
from ..kernels.key import Backend
from ..kernels.linalg_arrays import solve_triangular_arrays
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_tensor
from . import _return_types as return_types
from ._constants import constant
from .factorization import _DTYPES
from .linalg import matmul
from .math import add, clone, fill
from .registry import Attr, defop, define_composite, type_name

__all__ = ["inverse", "det", "triangular_solve", "cholesky_solve"]  # torch.inverse and torch.det; all three are in mg.linalg (minigrad/linalg.py)
__all__ += ["matrix_power"]  # torch.matrix_power, the same function as torch.linalg.matrix_power


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
        raise singular_error("linalg.inv", a) from None


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
        raise singular_error("linalg.solve", a) from None
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
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
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


# -- triangular_solve and cholesky_solve: systems given a triangular factor ---------------------------------------


def _solve_operands(op: str, b: Any, a: Any, what: str) -> tuple[int, ...]:
    """PyTorch's ``linearSolveCheckInputs``: the dtypes, square ``A``, rows that match; the batch dims
    broadcast (returned)."""
    if b.dtype != a.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {scalar_type_name(b.dtype)} "
                           f"and A of type {scalar_type_name(a.dtype)} instead.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {a.shape[-2]} by {a.shape[-1]} matrices")
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {what}: each A matrix is {a.shape[-2]} by {a.shape[-1]} but "
                           f"each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    batch = broadcast_shapes(op, b.shape[:-2], a.shape[:-2])
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise NotImplementedError(f"\"{what}_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    return batch


def _infer_triangular_solve(op: str, b: Any, a: Any, upper: bool = True, transpose: bool = False,
                            unitriangular: bool = False) -> list[Any]:
    """InferMeta: the solution of ``b``'s matrix shape and the coefficient copy of ``A``'s, over the broadcast
    batch dims."""
    for name, t in (("b", b), ("A", a)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it has "
                               f"{t.ndim} dimensions instead")
    batch = _solve_operands(op, b, a, "triangular_solve")
    return [((*batch, *b.shape[-2:]), a.dtype), ((*batch, *a.shape[-2:]), a.dtype)]


@register_kernel("triangular_solve", Backend.CPU, dtypes=_DTYPES, name="cpu/triangular_solve")
def triangular_solve_cpu(b: np.ndarray, a: np.ndarray, upper: bool = True, transpose: bool = False,
                         unitriangular: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's ``trtrs`` (``solve_triangular_arrays``): ``A^T``'s triangle is the other one of ``A``."""
    tri = np.swapaxes(a, -1, -2) if transpose else a
    x = solve_triangular_arrays(np, tri, b, upper != transpose, True, unitriangular)
    coefficient = np.broadcast_to(a, x.shape[:-2] + a.shape[-2:])
    return x, column_major(np, np.array(coefficient, dtype=a.dtype))


triangular_solve_op = defop(
    "triangular_solve", inputs=("input", "A"),
    attrs=(Attr("upper", True, check_bool), Attr("transpose", False, check_bool), Attr("unitriangular", False, check_bool)),
    infer_meta=_infer_triangular_solve, save=("A", "out"), amp="deny", out=False,
    doc="(solution, cloned_coefficient): the X with op(A) X = b for triangular A (op: transpose or not), and a "
        "copy of A")


@triangular_solve_op.def_backward
def triangular_solve_backward(ctx: Any, grads: Any) -> tuple[Any, Any]:
    """For ``op(A) X = b``: ``gb = op(A)^-T gX`` (a triangular solve), ``g op(A) = -gb X^T`` kept to ``A``'s
    triangle (without the diagonal where ``unitriangular``), plus the copy's gradient, whole; each summed back
    over broadcast batch dims."""
    gx, gcopy = grads
    a, x = ctx.saved()
    ops = ctx.ops
    upper, transpose, unit = ctx.attrs["upper"], ctx.attrs["transpose"], ctx.attrs["unitriangular"]
    at = ops.transpose(a, -2, -1)
    gb = ops.linalg_solve_triangular(a if transpose else at, gx, upper if transpose else not upper, True, unit)
    ga = None
    if ctx.needs(1):
        ga = ops.neg(ops.matmul(x, gb, transpose_y=True) if transpose else ops.matmul(gb, x, transpose_y=True))
        ga = ops.triu(ga, int(unit)) if upper else ops.tril(ga, -int(unit))
        ga = ops.sum_to(ops.add(ga, gcopy), tuple(ctx.input_shape(1)))
    return (ops.sum_to(gb, tuple(ctx.input_shape(0))) if ctx.needs(0) else None), ga


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    """``torch.triangular_solve`` (deprecated in PyTorch for ``linalg.solve_triangular``, whose arguments come the
    other way round): ``(solution, cloned_coefficient)``, the ``X`` with ``A X = input`` (``transpose``: ``A^T X =
    input``) reading only ``A``'s ``upper`` (or lower) triangle, and a copy of ``A``; both from one node.

    Example:
        >>> import minigrad as mg
        >>> mg.triangular_solve(mg.tensor([[3.0], [4.0]]), mg.tensor([[2.0, 1.0], [0.0, 4.0]])).solution.tolist()
        [[1.0], [1.0]]
    """
    check_tensor("triangular_solve", "input", 0, input)
    check_tensor("triangular_solve", "A", 1, A)
    flags = [check_bool("triangular_solve", n, i, v) for i, (n, v) in
             enumerate((("upper", upper), ("transpose", transpose), ("unitriangular", unitriangular)), 2)]
    _infer_triangular_solve("triangular_solve", input._data, A._data, *flags)
    return return_types.triangular_solve(*triangular_solve_op(input, A, *flags))


def _infer_cholesky_solve(op: str, b: Any, factor: Any, upper: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``X`` of ``b``'s matrix shape over the broadcast batch dims."""
    for name, t in (("b", b), ("u", factor)):
        if t.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {t.ndim} dimensions instead")
    batch = _solve_operands(op, b, factor, "cholesky_solve")
    return (*batch, *b.shape[-2:]), b.dtype


@register_kernel("cholesky_solve", Backend.CPU, dtypes=_DTYPES, name="cpu/cholesky_solve")
def cholesky_solve_cpu(b: np.ndarray, factor: np.ndarray, upper: bool = False) -> np.ndarray:
    """LAPACK's ``potrs``: ``L^-T (L^-1 b)`` (upper: ``U^-1 (U^-T b)``), two triangular solves."""
    ft = np.swapaxes(factor, -1, -2)
    first, second = (ft, factor) if upper else (factor, ft)
    return solve_triangular_arrays(np, second, solve_triangular_arrays(np, first, b, False), True)


cholesky_solve_op = defop("cholesky_solve", inputs=("input", "input2"), attrs=(Attr("upper", False, check_bool),),
                          infer_meta=_infer_cholesky_solve, save=("input2", "out"), amp="deny",
                          doc="the X with A X = b for A = L L^T (upper=True: U^T U) given its Cholesky factor")


@cholesky_solve_op.def_backward
def cholesky_solve_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``gb = A^-1 gX`` (``cholesky_solve`` again); with ``S = -(gb X^T + X gb^T)``, ``gL = S L`` (upper:
    ``gU = U S``), from ``dA = dL L^T + L dL^T``; each summed back over broadcast batch dims."""
    factor, x = ctx.saved()
    ops = ctx.ops
    upper = ctx.attrs["upper"]
    gb = ops.cholesky_solve(grad, factor, upper)
    gf = None
    if ctx.needs(1):
        m = ops.matmul(gb, x, transpose_y=True)
        s = ops.neg(ops.add(m, ops.transpose(m, -2, -1)))
        gf = ops.sum_to(ops.matmul(factor, s) if upper else ops.matmul(s, factor), tuple(ctx.input_shape(1)))
    return (ops.sum_to(gb, tuple(ctx.input_shape(0))) if ctx.needs(0) else None), gf


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky_solve``: the ``X`` with ``A X = input`` for ``A = L L^T`` (``upper=True``: ``U^T U``) given
    its Cholesky factor ``input2`` (``linalg.cholesky``'s), only that triangle read.

    Example:
        >>> import minigrad as mg
        >>> mg.cholesky_solve(mg.tensor([[8.0], [4.0]]), mg.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
        [[2.0], [4.0]]
    """
    check_tensor("cholesky_solve", "input", 0, input)
    check_tensor("cholesky_solve", "input2", 1, input2)
    upper = check_bool("cholesky_solve", "upper", 2, upper)
    _infer_cholesky_solve("cholesky_solve", input._data, input2._data, upper)
    return cholesky_solve_op(input, input2, upper)
