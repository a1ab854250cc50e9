"""matmul, with the 1-D / 2-D / batched broadcasting rules of ``MatmulInferMeta`` (Paddle's paddle/phi/infermeta/binary.cc); and its
composites ``bmm`` (3-D only) and ``einsum`` (contractions by ``matmul``).

Distances between tensors, one op each as PyTorch's: ``dist`` (the ``p``-norm of ``x - y``, ``DistBackward0``)
and ``cdist`` (between every row of one and every row of the other: ``CdistBackward0``, or for ``p = 2`` and
many rows PyTorch's one matrix product, ``_euclidean_dist``, ``EuclideanDistBackward0``)."""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from ..errors import ShapeError
from ..dtypes import FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels.array_kernels import euclidean_dist_arrays, row_differences, vector_norm_arrays
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ._checks import check_bool, check_tensor, check_tensors
from .reduce import sum
from .registry import Attr, call_with_out, defop, type_name
from .shape import expand, getitem, permute, reshape, squeeze, t, transpose, unsafe_view, unsqueeze, view
from ..tensor import Tensor

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


matmul = defop(
    "matmul",
    inputs=("x", "y"),
    attrs=(Attr("transpose_x", False, check_bool), Attr("transpose_y", False, check_bool)),
    infer_meta=im.matmul,
    save=("x", "y"),
    save_for={"x": (1,), "y": (0,)},  # dX needs Y, dY needs X: each kept only when the other's gradient is needed
    doc="matrix product of x and y (optionally transposing either)",
    methods=("matmul",), operators=("__matmul__", "__rmatmul__"), amp="allow",
)


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
    if ctx.needs(0):
        # d(X_eff) = G @ Y_eff^T; if X was transposed, d(X) = d(X_eff)^T = Y_eff @ G^T.
        y2 = ops.unsqueeze(y, -1) if len(y_shape) == 1 else y
        gx2 = ops.matmul(y2, g2, transpose_x=ty, transpose_y=True) if tx else ops.matmul(g2, y2, transpose_y=not ty)
        gx = ops.sum_to(gx2, x2_shape)
        if len(x_shape) == 1:
            gx = ops.reshape(gx, x_shape)
    if ctx.needs(1) and len(y_shape) == 2 and len(x_shape) > 2 and not tx:
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
        im.matmul("matmul", x._data, y._data)
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

def bmm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """Batched matrix product of two 3-D tensors ``(b, n, m) @ (b, m, p)``. Composite (``matmul``)."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("bmm", out, bmm, (input, mat2))
    check_tensor("bmm", "input", 0, input)
    check_tensor("bmm", "mat2", 1, mat2)
    if input.ndim != 3 or mat2.ndim != 3:
        raise ShapeError(f"bmm(): both arguments must be 3-D, but got shapes {tuple(input.shape)} and {tuple(mat2.shape)}")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise ShapeError(f"bmm(): shapes {tuple(input.shape)} and {tuple(mat2.shape)} cannot be multiplied")
    return matmul.direct(input, mat2)  # one BmmBackward0, not matmul's decomposition


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation: str, operands: Sequence[Tensor]) -> tuple[list[str], str]:
    """The subscripts of each operand and of the output, ``...`` replaced by letters the equation does not use.

    An operand's ``...`` stands for its dims not named by letters; the
    ``...`` of all operands broadcast together, right-aligned (as NumPy's).
    Without ``->`` the output is the ``...`` dims, then the letters seen once,
    in ASCII order (capitals first, as PyTorch).
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 0) must be str, but got {type_name(equation)}")
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise ShapeError(f"einsum(): the equation has {len(ins)} operands but {len(operands)} tensors were given")
    for spec in ins + ([out] if arrow else []):
        if spec.count("...") > 1 or "." in spec.replace("...", ""):
            raise ShapeError(f"einsum(): '{spec}' may contain '...' (an ellipsis) at most once, and no other '.'")
        if not spec.replace("...", "").isalpha() and spec.replace("...", ""):
            raise ShapeError(f"einsum(): subscripts must be letters, but got '{spec}'")
    free = [c for c in _LETTERS if c not in eq]
    n_ell = 0
    for spec, o in zip(ins, operands):
        named = len(spec.replace("...", ""))
        if ("..." in spec and o.ndim < named) or ("..." not in spec and o.ndim != named):
            raise ShapeError(f"einsum(): subscripts '{spec}' name {named} dims, but the operand has shape {tuple(o.shape)}")
        n_ell = builtins.max(n_ell, o.ndim - named if "..." in spec else 0)
    ell = "".join(free[:n_ell])
    ins = [spec.replace("...", ell[n_ell - (o.ndim - len(spec.replace("...", ""))):]) if "..." in spec else spec
           for spec, o in zip(ins, operands)]
    if arrow:
        out = out.replace("...", ell)
    else:
        counts = {c: "".join(ins).count(c) for c in set("".join(ins)) if c not in ell}
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1))  # ASCII order: capitals first
    if len(set(out)) != len(out) or any(c not in "".join(ins) for c in out):
        raise ShapeError(f"einsum(): output subscripts '{equation.partition('->')[2]}' must be distinct letters of the inputs")
    return ins, out


def _diagonals(x: Tensor, spec: str) -> tuple[Tensor, str]:
    """Take the diagonal for each letter repeated within one operand (``"ii"`` reads ``x[k, k]``): move the
    two dims to the front and index both with ``arange`` (a ``getitem``, whose backward scatters back)."""
    while len(set(spec)) != len(spec):
        c = next(ch for ch in spec if spec.count(ch) > 1)
        p = spec.index(c)
        q = spec.index(c, p + 1)
        if x.shape[p] != x.shape[q]:
            raise ShapeError(f"einsum(): subscript '{c}' is repeated for dims of sizes {x.shape[p]} and {x.shape[q]}")
        rest = [k for k in range(len(spec)) if k not in (p, q)]
        x = permute(x, (p, q, *rest))
        diag = np.arange(x.shape[0])
        x = getitem(x, (diag, diag))
        spec = c + "".join(spec[k] for k in rest)
    return x, spec


def _reduce_only_here(x: Tensor, spec: str, keep: set[str]) -> tuple[Tensor, str]:
    """Sum away the letters of ``spec`` not in ``keep`` (appear in this operand only, not in the output)."""
    drop = tuple(i for i, c in enumerate(spec) if c not in keep)
    if not drop:
        return x, spec
    return sum(x, dim=drop), "".join(c for c in spec if c in keep)


def _contract(a: Tensor, sa: str, b: Tensor, sb: str, keep: str) -> tuple[Tensor, str]:
    """``einsum(f"{sa},{sb}->...")`` of two operands with one batched ``matmul``; the result keeps the letters
    of ``keep`` that appear in either operand, in the order batch, left, right."""
    keep_set = set(keep)
    a, sa = _reduce_only_here(a, sa, keep_set | set(sb))
    b, sb = _reduce_only_here(b, sb, keep_set | set(sa))
    size: dict[str, int] = {}
    for spec, o in ((sa, a), (sb, b)):
        for c, s in zip(spec, o.shape):
            if size.get(c, 1) != 1 and s != 1 and size[c] != s:
                raise ShapeError(f"einsum(): subscript '{c}' has size {size[c]} in one operand and {s} in another")
            size[c] = builtins.max(size.get(c, 1), s)
    # A size-1 dim meeting a larger one broadcasts (expand, whose backward sums the copies).
    if any(s != size[c] for c, s in zip(sa, a.shape)):
        a = expand(a, tuple(size[c] for c in sa))
    if any(s != size[c] for c, s in zip(sb, b.shape)):
        b = expand(b, tuple(size[c] for c in sb))
    batch = [c for c in sa if c in sb and c in keep_set]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    contract = [c for c in sa if c in sb and c not in keep_set]

    def prod(letters: list[str]) -> int:
        p = 1
        for c in letters:
            p *= size[c]
        return p

    a3 = reshape(permute(a, tuple(sa.index(c) for c in batch + left + contract)),
                 (prod(batch), prod(left), prod(contract)))
    b3 = reshape(permute(b, tuple(sb.index(c) for c in batch + contract + right)),
                 (prod(batch), prod(contract), prod(right)))
    r = reshape(matmul(a3, b3), tuple(size[c] for c in batch + left + right))
    return r, "".join(batch + left + right)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation (``"bij,bjk->bik"``, ``"...ij,...jk->...ik"``, ``"ii->i"``, ``"i,i->"``, ``"ij->ji"``).

    Composite. Repeated letters within one operand take a diagonal
    (``getitem``); letters in one operand only and not in the output are
    summed first (``sum``); then the operands are contracted pairwise, left
    to right, each pair with one batched ``matmul``: the letters are grouped
    into batch (both operands, still needed), left-only, right-only and
    contracted ones, each operand permuted and reshaped to
    ``(batch, rows, contracted)``. ``...`` stands for the dims not named by
    letters, broadcast across operands. The gradient is that of those ops.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ShapeError("einsum(): must provide at least one operand")
    for i, o in enumerate(operands):
        check_tensor("einsum", f"operands[{i}]", i + 1, o)
    ins, out = _parse_einsum(equation, operands)
    xs = []
    for o, spec in zip(operands, ins):
        x, spec = _diagonals(o, spec)
        xs.append((x, spec))
    # Sizes must agree (or be 1, which broadcasts) across operands.
    seen: dict[str, int] = {}
    for x, spec in xs:
        for c, s in zip(spec, x.shape):
            if seen.get(c, 1) != 1 and s != 1 and seen[c] != s:
                raise ShapeError(f"einsum(): subscript '{c}' has size {seen[c]} in one operand and {s} in another")
            seen[c] = builtins.max(seen.get(c, 1), s)
    x, spec = xs[0]
    for k in range(1, len(xs)):
        later = "".join(sp for _, sp in xs[k + 1:])
        x, spec = _contract(x, spec, xs[k][0], xs[k][1], out + later)
    x, spec = _reduce_only_here(x, spec, set(out))
    if any(x.shape[spec.index(c)] != seen[c] for c in spec):  # a size-1 dim no other operand met
        x = expand(x, tuple(seen[c] for c in spec))
    return permute(x, tuple(spec.index(c) for c in out)) if spec != out else x


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
    if dtype.kind != "f":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{im.scalar_type_name(dtype)} instead.")
    return (), dtype


@register_kernel("dist", CPU, dtypes=FLOAT_DTYPES, name="cpu/dist")
def dist_cpu(x, y, p=2.0):
    return vector_norm_arrays(np, x - y, p, None, False)


dist_op = defop("dist", inputs=("x", "y"), attrs=(Attr("p", 2.0, _check_p),), infer_meta=_infer_dist,
                save=("x", "y", "out"), transform_dtype=True, amp="deny",
                doc="the p-norm of x - y (broadcast), over all elements")


def _norm_grad(ops: Any, v: Any, norm: Any, g: Any, p: float) -> Any:
    """PyTorch's ``norm_backward`` of the ``p``-norm of all of ``v`` (``g`` and ``norm`` 0-d): ``sign(v) |v|^(p-1)
    / norm^(p-1)`` times ``g``, 0 where the norm is 0 (and for ``p < 1`` where ``v`` is 0); for ``+-inf`` ``g``
    shared among the elements that attain the norm; 0 for ``p = 0``."""
    zero = ops.mul(ops.fill(v, 0.0), 1.0)
    if p == 0:
        return zero
    sign = ops.sign(v)
    if p in (_INF, -_INF):
        hit = ops.cast(ops.eq(ops.abs(v), norm), v.dtype)
        return ops.mul(ops.mul(sign, hit), ops.div(g, ops.sum(hit)))
    if p == 1:
        return ops.mul(sign, g)
    n_zero = ops.eq(norm, 0.0)
    n_safe = ops.where(n_zero, 1.0, norm)
    if p == 2:
        return ops.where(n_zero, 0.0, ops.mul(v, ops.div(g, n_safe)))
    a = ops.abs(v)
    scaled = ops.div(ops.mul(sign, ops.pow(a, p - 1.0)), ops.pow(n_safe, p - 1.0))
    masked = ops.bitwise_or(n_zero, ops.eq(a, 0.0)) if p < 1 else n_zero
    return ops.where(masked, 0.0, ops.mul(scaled, g))


@dist_op.def_backward
def _dist_backward(ctx, g):
    """``norm_backward`` of ``x - y``: ``x`` gets it, ``y`` its negation, each summed to its shape."""
    x, y, out = ctx.saved()
    ops = ctx.ops
    gd = _norm_grad(ops, ops.sub(x, y), out, g, ctx.attrs["p"])
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
