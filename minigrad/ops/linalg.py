"""matmul, with the 1-D / 2-D / batched broadcasting rules of ``MatmulInferMeta`` (Paddle's paddle/phi/infermeta/binary.cc); and its
composites ``bmm`` (3-D only) and ``einsum`` (PyTorch's decomposition: ``bmm`` between ``permute``s and ``reshape``s).

Distances between tensors, one op each as PyTorch's: ``dist`` (the ``p``-norm of ``x - y``, ``DistBackward0``)
and ``cdist`` (between every row of one and every row of the other: ``CdistBackward0``, or for ``p = 2`` and
many rows PyTorch's one matrix product, ``_euclidean_dist``, ``EuclideanDistBackward0``)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from ..errors import ShapeError
from .. import dtypes as _dt
from ..dtypes import FLOAT_DTYPES, NUMERIC_DTYPES, scalar_type_name
from ..kernels.array_kernels import (euclidean_dist_arrays, pdist_arrays, pdist_backward_arrays, row_differences,
                                     vector_norm_arrays)
from ..kernels import infer_meta as im
from ..autograd.formula import MAT1_COLUMN_MAJOR, MAT2_COLUMN_MAJOR, operand_layout
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ._checks import check_bool, check_tensor, check_tensors
from .math import mul
from .norm import norm_grad
from .reduce import sum
from .views import diagonal
from .registry import Attr, call_with_out, defop, type_name
from .shape import expand, getitem, permute, reshape, squeeze, t, transpose, unsafe_view, unsqueeze, view
from ..tensor import Tensor
from ..dispatch.amp import autocast_as

__all__ = ["matmul"]


CPU = Backend.CPU


@register_kernel("matmul", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/matmul")
def matmul_cpu(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    if x.ndim > 2 and y.ndim == 2 and x.flags.c_contiguous:
        # A batch of rows times one matrix (every nn.Linear on a sequence) is one
        # matrix product over all the rows, as PyTorch folds it: NumPy would run one
        # small product per batch element (1.6x slower on a (16, 32, 64) batch).
        rows = x.reshape(math.prod(x.shape[:-1]), x.shape[-1])  # (an explicit count: -1 is ambiguous for 0 columns)
        return np.matmul(rows, y).reshape(*x.shape[:-1], y.shape[-1])
    return np.asarray(np.matmul(x, y))


def _matmul_meta(op: str, x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False) -> Any:
    """PyTorch's ``matmul`` refusals in its words where the shared rule (``im.matmul``) words them otherwise: a 0-d
    operand, two vectors of different dtypes (``dot``'s), a batch of matrices times a vector (``mv`` of the folded
    rows, its sizes checked before the dtypes) and a vector times a batch of matrices (``bmm``'s)."""
    if x.ndim == 0 or y.ndim == 0:
        raise ShapeError(f"both arguments to matmul need to be at least 1D, but they are {x.ndim}D and {y.ndim}D")
    if not (transpose_x or transpose_y):
        if x.ndim == 1 and y.ndim == 1 and x.dtype != y.dtype:
            raise ShapeError(f"dot : expected both vectors to have same dtype, but found "
                             f"{scalar_type_name(x.dtype)} and {scalar_type_name(y.dtype)}")
        if x.ndim >= 2 and y.ndim == 1 and x.shape[-1] != y.shape[0]:
            rows = math.prod(x.shape[:-1])
            raise ShapeError(f"size mismatch, got input ({rows}), mat ({rows}x{x.shape[-1]}), vec ({y.shape[0]})")
        if x.ndim == 1 and y.ndim >= 3 and x.dtype == y.dtype and x.shape[0] != y.shape[-2]:
            batch = math.prod(y.shape[:-2])
            raise ShapeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {x.shape[0]}] "
                             f"but got: [{batch}, {y.shape[-2]}].")
    return im.matmul(op, x, y, transpose_x, transpose_y)


matmul = defop(
    "matmul",
    inputs=("x", "y"),
    attrs=(Attr("transpose_x", False, check_bool), Attr("transpose_y", False, check_bool)),
    infer_meta=_matmul_meta,
    save=("x", "y"),
    save_for={"x": (1,), "y": (0,)},  # dX needs Y, dY needs X: each kept only when the other's gradient is needed
    doc="matrix product of x and y (optionally transposing either)",
    methods=("matmul",), operators=("__matmul__", "__rmatmul__"), amp="allow",
    node_extra=lambda inputs, attrs: _mm_layout(*inputs, **attrs),
)


def _mm_layout(x: Tensor, y: Tensor, transpose_x: bool, transpose_y: bool) -> int:
    """An ``mm``'s operands' layouts (PyTorch's ``MmBackward0`` keeps their strides: ``operand_layout``);
    0 for ``dot``, ``mv``, ``bmm`` and Paddle's transposed form, whose formulas have no such rule."""
    if transpose_x or transpose_y or x._data.ndim != 2 or y._data.ndim != 2:
        return 0
    return operand_layout(x, y)


@matmul.def_backward
def _matmul_backward(ctx, g):
    """``matmul_grad``: dX = G @ Y^T, dY = X^T @ G on the 2-D-promoted operands,
    transposes undone, broadcast batch dims summed away, 1-D dims squeezed."""
    x, y = ctx.saved()  # x is None when y needs no gradient, and y when x needs none (save_for)
    ops = ctx.ops
    tx, ty = ctx.attrs["transpose_x"], ctx.attrs["transpose_y"]
    x_shape, y_shape = tuple(ctx.input_shape(0)), tuple(ctx.input_shape(1))
    x2_shape = (1, *x_shape) if len(x_shape) == 1 else x_shape
    y2_shape = (*y_shape, 1) if len(y_shape) == 1 else y_shape
    g2 = g
    if len(x_shape) == 1:
        g2 = ops.unsqueeze(g2, -2 if len(y_shape) > 1 else 0)
    if len(y_shape) == 1:
        g2 = ops.unsqueeze(g2, -1)
    gx = gy = None
    layout = ctx.extra  # a column-major operand of mm gets a column-major gradient (``operand_layout``)
    if layout & MAT1_COLUMN_MAJOR and ctx.needs(0):
        gx = ops.t(ops.matmul(y, g, transpose_y=True))
    elif ctx.needs(0):
        # d(X_eff) = G @ Y_eff^T; if X was transposed, d(X) = d(X_eff)^T = Y_eff @ G^T.
        y2 = ops.unsqueeze(y, -1) if len(y_shape) == 1 else y
        gx2 = ops.matmul(y2, g2, transpose_x=ty, transpose_y=True) if tx else ops.matmul(g2, y2, transpose_y=not ty)
        gx = ops.sum_to(gx2, x2_shape)
        if len(x_shape) == 1:
            gx = ops.reshape(gx, x_shape)
    if layout & MAT2_COLUMN_MAJOR and ctx.needs(1):
        gy = ops.t(ops.matmul(g, x, transpose_x=True))
    elif ctx.needs(1) and len(y_shape) == 2 and len(x_shape) > 2 and not tx:
        # One matrix used by a batch of rows (nn.Linear on a sequence): dY is one product over
        # all the rows, as PyTorch folds it, not a product per batch element summed afterwards.
        n_rows = math.prod(x_shape[:-1])  # (a count, not -1: a batch may be empty)
        rows_x = ops.reshape(x, (n_rows, x_shape[-1]))
        rows_g = ops.reshape(g2, (n_rows, g2.shape[-1]))
        gy = ops.matmul(rows_g, rows_x, transpose_x=True) if ty else ops.matmul(rows_x, rows_g, transpose_x=True)
    elif ctx.needs(1):
        x2 = ops.unsqueeze(x, 0) if len(x_shape) == 1 else x
        gy2 = ops.matmul(g2, x2, transpose_x=True, transpose_y=tx) if ty else ops.matmul(x2, g2, transpose_x=not tx)
        gy = ops.sum_to(gy2, y2_shape)
        if len(y_shape) == 1:
            gy = ops.reshape(gy, y_shape)
    return gx, gy


@matmul.def_decomposition
def _matmul_decomposition(inputs: list[Any], attrs: dict[str, Any]) -> Any:
    """``torch.matmul`` as PyTorch runs it (``_matmul_impl`` in aten/src/ATen/native/LinearAlgebra.cpp):
    one ``dot``, ``mv`` or ``mm`` for 1-D and 2-D operands (this op, named by the dims); a vector times
    a matrix as ``unsqueeze``, ``mm``, ``squeeze_``; a batch folded into one ``mm``/``mv`` between a
    ``reshape`` and an ``unsafe_view`` where it can be (``_should_fold``); else both operands expanded
    to the broadcast batch and reshaped to 3-D for one ``bmm``. NOTE [ An op that decomposes ] in
    ops/registry.py. A call ``matmul`` refuses (shapes, dtypes) runs as this op, which refuses it
    before any node is made."""
    x, y = inputs
    if attrs["transpose_x"] or attrs["transpose_y"]:
        return None  # Paddle's form, which backward formulas call: one node
    nx, ny = x._data.ndim, y._data.ndim
    if nx <= 2 and ny <= 2 and not (nx == 1 and ny == 2):
        return None  # dot, mv, mm: this op
    try:
        _matmul_meta("matmul", x._data, y._data)
    except ShapeError:
        return None
    if nx == 1 and ny == 2:
        return _product(unsqueeze(x, 0), y).squeeze_(0)
    if _should_fold(x, y):
        return _folded(x, y)
    return _batched(x, y)


def _product(x: Tensor, y: Tensor) -> Tensor:
    """``mm``, ``mv``, ``bmm`` or ``dot``: this op itself, on operands already checked."""
    return matmul.dygraph_function(x, y, matmul._default_attrs)


def _should_fold(x: Tensor, y: Tensor) -> bool:
    """PyTorch's ``should_fold``: the operand of 3+ dims (the other one transposed, when it is that one)
    is folded into rows for one ``mm``/``mv`` when the other has at most 2 dims and either needs a
    gradient or the fold is a view (the leading dims lie in memory as one block)."""
    first_larger = x.ndim >= y.ndim
    big, small = (x, y) if first_larger else (y, x)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if x.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape = tuple(big.shape) if first_larger else tuple(big.shape[:-2]) + (big.shape[-1], big.shape[-2])
    strides = big.stride() if first_larger else big.stride()[:-2] + (big.stride()[-1], big.stride()[-2])
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded(x: Tensor, y: Tensor) -> Tensor:
    """The batch operand's rows as one matrix, one ``mm`` (or ``mv``), the result seen with the batch's shape."""
    flip = y.ndim > x.ndim  # (m, k) @ (b, k, n): computed as ((b, n, k) @ (k, m)) transposed back
    t1 = transpose(y, -2, -1) if flip else x
    t2 = (t(x) if x.ndim == 2 else x) if flip else y
    rows = math.prod(t1.shape[:-1])  # a count, not -1: a batch may be empty
    out_shape = tuple(t1.shape[:-1]) + ((t2.shape[1],) if t2.ndim == 2 else ())
    out = unsafe_view(_product(reshape(t1, (rows, t1.shape[-1])), t2), out_shape)
    return transpose(out, -2, -1).contiguous() if flip and t2.ndim == 2 else out


def _batched(x: Tensor, y: Tensor) -> Tensor:
    """Both operands expanded to the broadcast batch and reshaped to 3-D, one ``bmm``, the result seen
    with the batch's shape (a vector ``y`` as a column, squeezed after)."""
    nx, ny = x.ndim, y.ndim
    n = x.shape[-2] if nx > 1 else 1
    m1 = x.shape[-1]
    m2 = y.shape[-2] if ny > 1 else y.shape[0]
    p = y.shape[-1] if ny > 1 else 1
    batch_x, batch_y = tuple(x.shape[:max(nx - 2, 0)]), tuple(y.shape[:max(ny - 2, 0)])
    if nx == 3 and ny == 3 and batch_x[0] != batch_y[0]:
        # one batch of size 1 that needs a gradient: a matrix, folded (PyTorch keeps its gradient a matrix)
        if batch_x[0] == 1 and x.requires_grad:
            return matmul(squeeze(x, 0), y)
        if batch_y[0] == 1 and y.requires_grad:
            return matmul(x, squeeze(y, 0))
    batch = tuple(np.broadcast_shapes(batch_x, batch_y))
    b = math.prod(batch)
    x3 = reshape(expand(x, batch + (n, m1)), (b, n, m1))
    if ny == 1:
        y3 = unsqueeze(reshape(expand(y, batch + (m2,)), (b, m2)), 2)
    else:
        y3 = reshape(expand(y, batch + (m2, p)), (b, m2, p))
    out_shape = batch + ((n,) if nx > 1 else ()) + ((p,) if ny > 1 else ())
    out = _product(x3, y3)
    return unsafe_view(squeeze(out, -1) if ny == 1 else out, out_shape)


# -- bmm and einsum (composites of matmul) ---------------------------------------------------------

@autocast_as("bmm", composite=False)
def bmm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """Batched matrix product of two 3-D tensors ``(b, n, m) @ (b, m, p)``. Composite (``matmul``)."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("bmm", out, bmm, (input, mat2))
    check_tensor("bmm", "input", 0, input)
    check_tensor("bmm", "mat2", 1, mat2)
    for name, t in (("batch1", input), ("batch2", mat2)):  # PyTorch's words and order
        if t.ndim != 3:
            raise ShapeError(f"{name} must be a 3D tensor")
    if (input.shape[0], input.shape[2]) != tuple(mat2.shape[:2]):
        raise ShapeError(f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, "
                         f"{input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    if input.dtype is not mat2.dtype:
        raise ShapeError(f"expected scalar type {scalar_type_name(input.dtype)} but found {scalar_type_name(mat2.dtype)}")
    return matmul.direct(input, mat2)  # one BmmBackward0, not matmul's decomposition


# -- einsum: PyTorch's decomposition (aten/src/ATen/native/Linear.cpp, ``einsum`` and ``sumproduct_pair``) -------
#
# NOTE [ einsum aligns, then contracts pairwise by bmm ]
#     Every label gets a place in one common order: the output's labels first (an implicit output is the
#     ``...`` dims, then the labels seen once, capitals first), then the ``...`` dims if the output drops
#     them, then the other labels in letter order. Each operand is brought to that order: a repeated label
#     becomes a ``diagonal`` (moved back by ``permute``), a missing label a size-1 dim (``unsqueeze``), then
#     one ``permute``. The aligned operands are contracted left to right, each pair by
#     ``sumproduct_pair``: a dim that only one of them still has is summed away first, then the dims are
#     grouped into (both and kept, left only, summed, right only), each operand permuted and reshaped to
#     three dims, one ``bmm``, and the result viewed and permuted back (a pair with nothing to sum is a
#     ``mul``). The summed dims, left at size 1, are viewed away at the end; one operand sums them.
#     So ``einsum("ij,jk->ik", a, b)`` is PyTorch's unsqueeze / permute / bmm / view graph.

_ELLIPSIS = "..."
_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # PyTorch's label order: capitals first


def _einsum_labels(equation: str, operands: Sequence[Tensor]) -> tuple[list[list[str]], str | None]:
    """Each operand's labels (``...`` one entry), and the output's text (None without ``->``), checked in
    PyTorch's words."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 0) must be str, but got {type_name(equation)}")
    lhs, arrow, rhs = equation.partition("->")
    labels: list[list[str]] = [[]]
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if _ELLIPSIS in labels[-1]:
                raise ShapeError(f"einsum(): found '.' for operand {len(labels) - 1} for which an ellipsis was "
                                 "already found")
            if lhs[i:i + 3] != _ELLIPSIS:
                raise ShapeError(f"einsum(): found '.' for operand {len(labels) - 1} that is not part of any ellipsis")
            labels[-1].append(_ELLIPSIS)
            i += 2
        elif c == ",":
            labels.append([])
            if len(labels) > len(operands):
                raise ShapeError("einsum(): fewer operands were provided than specified in the equation")
        elif c != " ":
            if c not in _LABELS:
                raise ShapeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                 "subscripts must be in [a-zA-Z]")
            labels[-1].append(c)
        i += 1
    if len(labels) != len(operands):
        raise ShapeError("einsum(): more operands were provided than specified in the equation")
    for k, (ls, o) in enumerate(zip(labels, operands)):
        named = len([c for c in ls if c != _ELLIPSIS])
        if (_ELLIPSIS in ls and named > o.ndim) or (_ELLIPSIS not in ls and named != o.ndim):
            how = "is more than" if _ELLIPSIS in ls else "does not match"
            tail = "" if _ELLIPSIS in ls else " and no ellipsis was given"
            raise ShapeError(f"einsum(): the number of subscripts in the equation ({named}) {how} the number of "
                             f"dimensions ({o.ndim}) for operand {k}{tail}")
    return labels, (rhs if arrow else None)


def _einsum_order(labels: list[list[str]], rhs: str | None, ell_dims: int) -> tuple[dict[str, int], int, int, int]:
    """The common order of the dims: ``({label: place}, ellipsis start, output dims, all dims)``."""
    count = {c: 0 for c in _LABELS}
    for ls in labels:
        for c in ls:
            if c != _ELLIPSIS:
                count[c] += 1
    place: dict[str, int] = {}
    ell_start, ell_out, n = 0, False, 0
    if rhs is None:  # implicit: the ``...`` dims, then the labels seen once
        n, ell_out = ell_dims, True
        for c in _LABELS:
            if count[c] == 1:
                place[c], n = n, n + 1
    else:
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_out:
                    raise ShapeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if rhs[i:i + 3] != _ELLIPSIS:
                    raise ShapeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                ell_start, n, ell_out = n, n + ell_dims, True
                i += 2
            elif c != " ":
                if c not in _LABELS:
                    raise ShapeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                     "subscripts must be in [a-zA-Z]")
                if not count[c] or c in place:
                    why = "appears more than once in the output" if c in place else \
                        "does not appear in the equation for any input operand"
                    raise ShapeError(f"einsum(): output subscript {c} {why}")
                place[c], n = n, n + 1
            i += 1
    out_dims = n
    if not ell_out:
        ell_start, n = n, n + ell_dims
    for c in _LABELS:
        if count[c] and c not in place:
            place[c], n = n, n + 1
    return place, ell_start, out_dims, n


def _einsum_align(k: int, op: Tensor, ls: list[str], place: dict[str, int], ell_start: int, ell_dims: int,
                  n: int, sizes: dict[Any, int], counts: list[int]) -> Tensor:
    """Operand ``k`` in the common order: diagonals for repeated labels, ``unsqueeze`` for missing ones, one
    ``permute``; ``sizes`` and ``counts`` (operands with a dim of size != 1 at each place) are updated."""
    perm = [-1] * n
    dim = 0
    for c in ls:
        if c == _ELLIPSIS:
            covered = op.ndim - (len(ls) - 1)
            for j in range(ell_dims - covered, ell_dims):
                _einsum_size(k, ("...", j), op.shape[dim], sizes, counts, ell_start + j, dim)
                perm[ell_start + j], dim = dim, dim + 1
        elif perm[place[c]] == -1:
            _einsum_size(k, c, op.shape[dim], sizes, counts, place[c], dim)
            perm[place[c]], dim = dim, dim + 1
        else:  # a repeated label: its diagonal, moved to where the label first was
            prev = perm[place[c]]
            if op.shape[dim] != op.shape[prev]:
                raise ShapeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                                 f"{op.shape[dim]} != {op.shape[prev]}")
            op = diagonal(op, 0, prev, dim)
            order = list(range(op.ndim - 1))
            order.insert(prev, op.ndim - 1)
            op = permute(op, tuple(order))
    for p in range(n):
        if perm[p] == -1:
            op = unsqueeze(op, dim)
            perm[p], dim = dim, dim + 1
    return permute(op, tuple(perm))


def _einsum_size(k: int, label: Any, size: int, sizes: dict[Any, int], counts: list[int], p: int, dim: int) -> None:
    if size == 1:
        return
    seen = sizes.get(label, 1)
    if seen != 1 and seen != size:
        if isinstance(label, tuple):
            raise ShapeError(f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size {size} which "
                             f"does not broadcast with previously seen ellipsis with size {seen} for the respective "
                             "dimension")
        raise ShapeError(f"einsum(): subscript {label} has size {size} for operand {k} which does not broadcast "
                         f"with previously seen size {seen}")
    sizes[label] = size
    counts[p] += 1


def _pair_groups(left: Tensor, right: Tensor, sum_dims: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The kept dims of a pair: in both, in the left one only, in the right one only (or in neither)."""
    lro, lo, ro = [], [], []
    for i in range(left.ndim):
        if i in sum_dims:
            continue
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        (lro if sl and sr else lo if sl else ro).append(i)
    return lro, lo, ro


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """PyTorch's ``sumproduct_pair`` (keeping the summed dims as size 1): ``(left * right).sum(sum_dims)`` by
    one ``bmm`` of the two permuted and reshaped to (both, left only, summed) and (both, summed, right only)."""
    if not sum_dims:
        return mul(left, right)
    lro, lo, ro = _pair_groups(left, right, sum_dims)
    if lo and ro and ro[0] < lo[0]:  # PyTorch swaps the two so that the product comes out in the output's order
        left, right = right, left
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left.shape[i]
            elif sl:
                left = sum(left, dim=(i,), keepdim=True)
            elif sr:
                right = sum(right, dim=(i,), keepdim=True)
        elif sl and sr:
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = [left.shape[d] for d in lro + lo] + [1] * len(sum_dims) + [right.shape[d] for d in ro]
    grouped = lro + lo + sum_dims + ro
    left = reshape(permute(left, tuple(grouped)), (lro_size, lo_size, sum_size))
    right = reshape(permute(right, tuple(lro + sum_dims + ro + lo)), (lro_size, sum_size, ro_size))
    back = [0] * len(grouped)
    for pos, d in enumerate(grouped):
        back[d] = pos
    return permute(view(bmm(left, right), tuple(out_size)), tuple(back))


@autocast_as("einsum")
def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation (``"bij,bjk->bik"``, ``"...ij,...jk->...ik"``, ``"ii->i"``, ``"i,i->"``, ``"ij->ji"``).

    Composite, PyTorch's own decomposition (NOTE [ einsum aligns, then contracts pairwise by bmm ]):
    ``diagonal``, ``unsqueeze`` and ``permute`` align the operands, each pair is contracted by one
    ``bmm`` between ``reshape``s and ``permute``s (or a ``mul``), and one operand's summed labels by
    ``sum``, so the graph and the gradient are those ops'. ``...`` stands for the dims not named by
    letters, broadcast across operands.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ShapeError("einsum(): must provide at least one operand")
    for i, o in enumerate(operands):
        check_tensor("einsum", f"operands[{i}]", i + 1, o)
    labels, rhs = _einsum_labels(equation, operands)
    ell_dims = builtins.max([o.ndim - (len(ls) - 1) for ls, o in zip(labels, operands) if _ELLIPSIS in ls],
                            default=0)
    place, ell_start, out_dims, n = _einsum_order(labels, rhs, ell_dims)
    sizes: dict[Any, int] = {}
    counts = [0] * n
    ops = [_einsum_align(k, o, ls, place, ell_start, ell_dims, n, sizes, counts)
           for k, (o, ls) in enumerate(zip(operands, labels))]
    while len(ops) > 1:  # contract left to right
        a, b = ops[0], ops[1]
        sum_dims, a_only, b_only = [], [], []
        for d in range(out_dims, n):
            if a.shape[d] != 1 and b.shape[d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a.shape[d] != 1:
                    a_only.append(d)
                    counts[d] = 0
                elif b.shape[d] != 1:
                    b_only.append(d)
                    counts[d] = 0
        if a_only:
            a = sum(a, dim=tuple(a_only), keepdim=True)
        if b_only:
            b = sum(b, dim=tuple(b_only), keepdim=True)
        ops = [_sumproduct_pair(a, b, sum_dims)] + ops[2:]
    result = ops[0]
    if n > out_dims:  # the summed dims: size 1 after contracting (viewed away), else summed here
        if len(operands) > 1:
            return view(result, tuple(result.shape[:out_dims]))
        return sum(result, dim=tuple(range(out_dims, n)))
    return result


__all__ += ['bmm', 'einsum']


# -- distances: dist, cdist --------------------------------------------------------------------------------

_INF = math.inf


def _check_p(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type_name(v)}")
    return float(v)


def _infer_dist(op: str, x: Any, y: Any, p: float = 2.0) -> tuple[tuple[int, ...], Any]:
    """InferMeta: a 0-d result of the floating dtype the two promote to; their shapes broadcast."""
    im.broadcast(op, x, y)
    dtype = np.result_type(x.dtype, y.dtype)
    if not _dt.is_floating_np(dtype):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{im.scalar_type_name(dtype)} instead.")
    return (), dtype


@register_kernel("dist", CPU, dtypes=FLOAT_DTYPES, name="cpu/dist")
def dist_cpu(x, y, p=2.0):
    return vector_norm_arrays(np, x - y, p, None, False)


dist_op = defop("dist", inputs=("x", "y"), attrs=(Attr("p", 2.0, _check_p),), infer_meta=_infer_dist,
                save=("x", "y", "out"), transform_dtype=True, amp="deny",
                doc="the p-norm of x - y (broadcast), over all elements")


@dist_op.def_backward
def _dist_backward(ctx, g):
    """``norm_backward`` of ``x - y``: ``x`` gets it, ``y`` its negation, each summed to its shape."""
    x, y, out = ctx.saved()
    ops = ctx.ops
    gd = norm_grad(ops, ops.sub(x, y), g, out, ctx.attrs["p"])
    gx = ops.sum_to(gd, ctx.input_shape(0)) if ctx.needs(0) else None
    gy = ops.sum_to(ops.neg(gd), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast) over all elements (``torch.dist``): one op
    (``DistBackward0``), whose gradient is the norm's, 0 where the distance is 0.

    Example:
        >>> import minigrad as mg
        >>> mg.dist(mg.tensor([3.0, 0.0]), mg.tensor([0.0, 4.0])).item()
        5.0
    """
    check_tensors("dist", input=input, other=other)
    if not (input.dtype.is_floating or other.dtype.is_floating):  # refused before a kernel is looked for
        _infer_dist("dist", input._data, other._data)
    return dist_op(input, other, p=_check_p("dist", "p", 2, p))


def _infer_cdist(op: str, x1: Any, x2: Any, p: float = 2.0) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``(..., P, R)`` for rows ``(..., P, M)`` and ``(..., R, M)``, the batch dims broadcast."""
    batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    return tuple(batch) + (x1.shape[-2], x2.shape[-2]), x1.dtype


@register_kernel("cdist", CPU, dtypes=FLOAT_DTYPES, name="cpu/cdist")
def cdist_cpu(x1, x2, p=2.0):
    """The ``p``-norms of the row differences (PyTorch's direct ``_cdist_forward``)."""
    return np.ascontiguousarray(vector_norm_arrays(np, row_differences(np, x1, x2), p, -1, False))


@register_kernel("euclidean_dist", CPU, dtypes=FLOAT_DTYPES, name="cpu/euclidean_dist")
def euclidean_dist_cpu(x1, x2):
    return euclidean_dist_arrays(np, x1, x2)


cdist_op = defop("cdist", inputs=("x1", "x2"), attrs=(Attr("p", 2.0, _check_p),), infer_meta=_infer_cdist,
                 save=("x1", "x2", "out"), amp="deny",
                 doc="the p-norm distance of every row of x1 to every row of x2 (PyTorch's _cdist_forward)")
euclidean_dist_op = defop("euclidean_dist", inputs=("x1", "x2"), infer_meta=_infer_cdist, save=("x1", "x2", "out"),
                          amp="deny", doc="cdist for p = 2 by one matrix product (PyTorch's _euclidean_dist)")


@cdist_op.def_backward
def _cdist_backward(ctx, g):
    """PyTorch's ``_cdist_backward``: each row difference ``d = x1_i - x2_j`` gets ``g_ij`` times the
    derivative of its norm, ``sign(d) |d|^(p-1) / dist^(p-1)`` (``d / dist`` for 2, ``sign(d)`` for 1, 0 where
    the distance is 0; for ``inf`` ``sign(d)`` where ``|d|`` attains it, ties not shared); ``x1`` gets the
    sum over ``j``, ``x2`` the negated sum over ``i``."""
    x1, x2, out = ctx.saved()
    ops = ctx.ops
    p = ctx.attrs["p"]
    d = ops.sub(ops.unsqueeze(x1, -2), ops.unsqueeze(x2, -3))
    dist = ops.unsqueeze(out, -1)
    sign = ops.sign(d)
    if p == 0:
        slope = ops.mul(d, 0.0)
    elif p == 1:
        slope = sign
    elif p == _INF:
        slope = ops.mul(sign, ops.cast(ops.eq(ops.abs(d), dist), d.dtype))
    else:
        far = ops.ne(dist, 0.0)
        safe = ops.where(far, dist, 1.0)
        if p == 2:
            slope = ops.div(d, safe)
        else:
            a = ops.abs(d)
            power = ops.mul(sign, ops.pow(a, p - 1.0)) if p < 2 else ops.mul(d, ops.pow(a, p - 2.0))
            slope = ops.div(power, ops.pow(safe, p - 1.0))
            if p < 1:
                far = ops.bitwise_and(far, ops.ne(a, 0.0))
        slope = ops.where(far, slope, 0.0)
    each = ops.mul(ops.unsqueeze(g, -1), slope)
    g1 = ops.sum_to(ops.sum(each, dim=-2), ctx.input_shape(0)) if ctx.needs(0) else None
    g2 = ops.sum_to(ops.neg(ops.sum(each, dim=-3)), ctx.input_shape(1)) if ctx.needs(1) else None
    return g1, g2


@euclidean_dist_op.def_backward
def _euclidean_dist_backward(ctx, g):
    """PyTorch's ``_euclidean_dist_backward``: with ``r = g / dist`` (0 where the distance is 0),
    ``d x1 = x1 * sum_j r - r @ x2`` and ``d x2 = x2 * sum_i r - r^T @ x1``."""
    x1, x2, out = ctx.saved()
    ops = ctx.ops
    far = ops.ne(out, 0.0)
    ratio = ops.where(far, ops.div(g, ops.where(far, out, 1.0)), 0.0)
    g1 = g2 = None
    if ctx.needs(0):
        g1 = ops.sub(ops.mul(x1, ops.sum(ratio, dim=-1, keepdim=True)), ops.matmul(ratio, x2))
    if ctx.needs(1):
        g2 = ops.sub(ops.mul(x2, ops.unsqueeze(ops.sum(ratio, dim=-2), -1)), ops.matmul(ratio, x1, transpose_x=True))
    return g1, g2


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Any = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (``..., P, M``) and each row of ``x2`` (``..., R, M``)
    (``torch.cdist``), as PyTorch computes it: for ``p = 2`` with more than 25 rows on a side (or
    ``compute_mode="use_mm_for_euclid_dist"``) by one matrix product (``EuclideanDistBackward0``, then a
    view); otherwise from the row differences (``CdistBackward0``). The gradient at a zero distance is 0.

    Example:
        >>> import minigrad as mg
        >>> mg.cdist(mg.tensor([[0.0, 0.0]]), mg.tensor([[3.0, 4.0], [0.0, 1.0]])).tolist()
        [[5.0, 1.0]]
    """
    check_tensors("cdist", x1=x1, x2=x2)
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not (x1.dtype.is_floating and x2.dtype.is_floating):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {im.scalar_type_name(x1.dtype.np)}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, but got {p!r}")
    mode = _CDIST_MODES.get(compute_mode if compute_mode is not None else "use_mm_for_euclid_dist_if_necessary")
    if mode is None:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
        a = x1 if tuple(x1.shape[:-2]) == batch else expand(x1, batch + tuple(x1.shape[-2:]))
        b = x2 if tuple(x2.shape[:-2]) == batch else expand(x2, batch + tuple(x2.shape[-2:]))
        return view(euclidean_dist_op(a, b), batch + (r1, r2))
    return cdist_op(x1, x2, p=float(p))


__all__ += ['dist', 'cdist']


# -- pdist: the distances between the rows of one matrix, each pair once -------------------------------------


@register_kernel("pdist", CPU, dtypes=FLOAT_DTYPES, name="cpu/pdist")
def pdist_cpu(x, p=2.0):
    return pdist_arrays(np, x, p)


@register_kernel("pdist_backward", CPU, dtypes=FLOAT_DTYPES, name="cpu/pdist_backward")
def pdist_backward_cpu(grad, x, pdist, p=2.0):
    return pdist_backward_arrays(np, grad, x, pdist, p, np.add.at)


pdist_op = defop("pdist", inputs=("x",), attrs=(Attr("p", 2.0, _check_p),),
                 infer_meta=lambda op, x, p=2.0: ((x.shape[0] * (x.shape[0] - 1) // 2,), x.dtype),
                 save=("x", "out"), amp="deny",
                 doc="the p-norm distance of every pair of rows i < j of x (PyTorch's _pdist_forward, PdistBackward0)")
#: Its gradient, one kernel as PyTorch's ``_pdist_backward``, which has no derivative of its own: with
#: ``create_graph`` its node is PyTorch's ``PdistBackwardBackward0``, and a backward through it raises PyTorch's error.
pdist_backward_op = defop("pdist_backward", inputs=("grad", "x", "pdist"), attrs=(Attr("p", 2.0),),
                          infer_meta=lambda op, grad, x, pdist, p=2.0: (tuple(x.shape), x.dtype),
                          doc="pdist's gradient w.r.t. x (PyTorch's _pdist_backward)")


@pdist_op.def_backward
def _pdist_backward(ctx, g):
    x, out = ctx.saved()
    return (ctx.ops.pdist_backward(g, x, out, p=ctx.attrs["p"]),)


@pdist_backward_op.def_backward
def _pdist_backward_backward(ctx, g):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distance between each pair of rows ``i < j`` of the ``N x M`` matrix ``input``, as a vector
    of ``N (N - 1) / 2`` in row-major order of the pairs (``torch.pdist``, ``F.pdist``). One op,
    ``PdistBackward0``; its gradient is one kernel too, with no derivative of its own (as PyTorch's).

    Example:
        >>> import minigrad as mg
        >>> mg.pdist(mg.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).tolist()
        [5.0, 1.0, 4.242640495300293]
    """
    check_tensor("pdist", "input", 0, input)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating:
        raise RuntimeError("pdist only supports floating-point dtypes")
    p = _check_p("pdist", "p", 1, p)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return pdist_op(input, p=p)


__all__ += ["pdist"]
