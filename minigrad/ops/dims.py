"""Moving, splitting and stacking dims: ``movedim``/``moveaxis``, ``swapaxes``/``swapdims``, ``unflatten``,
``ravel``, ``atleast_1d/2d/3d``, ``hstack``, ``vstack``/``row_stack``, ``dstack``, ``column_stack``,
``cartesian_prod``, ``combinations``, ``block_diag``.

All composites of ``permute``, ``transpose``, ``reshape``, ``unsqueeze`` and ``cat``
(``concat``), as PyTorch's own are: their gradients are those ops' (``combinations`` takes its
cells from a ``meshgrid`` with ``masked_select``). ``block_diag`` is an op,
as PyTorch's (``BlockDiagBackward0``).

Example:
    >>> import minigrad as mg
    >>> mg.movedim(mg.zeros(2, 3, 4), 0, -1).shape
    minigrad.Size([3, 4, 2])
    >>> mg.vstack([mg.tensor([1, 2]), mg.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from .. import dtypes as _dt
from ..creation import empty, zeros
from ..dtypes import ALL_DTYPES
from ..kernels.array_kernels import block_diag_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_int, check_shape, check_tensor, wrap_dim
from ._constants import constant
from .indexing import masked_select
from .registry import Input, defop, type_name
from .repeat import meshgrid, tuple_of_ints_error
from .shape import concat, permute, reshape, stack, transpose, unsqueeze, view

__all__ = ["movedim", "moveaxis", "swapaxes", "swapdims", "unflatten", "ravel", "atleast_1d", "atleast_2d",
           "atleast_3d", "hstack", "vstack", "row_stack", "dstack", "column_stack", "cartesian_prod", "combinations", "block_diag",
           "adjoint"]


def _axis(op: str, d: Any, ndim: int) -> int:
    return wrap_dim(op, check_int(op, "dim", 1, d), ndim)


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move the dims ``source`` to the positions ``destination``, the others keeping their order (``torch.movedim``)."""
    check_tensor("movedim", "input", 0, input)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    n = input.ndim
    given_src, given_dst = src, dst
    src = tuple(_axis("movedim", d, n) for d in src)
    dst = tuple(_axis("movedim", d, n) for d in dst)
    if len(set(src)) != len(src):  # (the dims as given, in PyTorch's words)
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(given_src)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(given_dst)})")
    if n == 0:
        return input
    order: list[int | None] = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(k for k in range(n) if k not in src)
    perm = tuple(o if o is not None else next(rest) for o in order)
    return permute(input, perm) if perm != tuple(range(n)) else input


def moveaxis(input: Tensor, source: Any, destination: Any) -> Tensor:
    """NumPy's name for ``movedim``."""
    return movedim(input, source, destination)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose(input, axis0, axis1)`` (NumPy's name)."""
    check_tensor("swapaxes", "input", 0, input)
    return transpose(input, check_int("swapaxes", "axis0", 1, axis0), check_int("swapaxes", "axis1", 2, axis1))


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``transpose(input, dim0, dim1)``."""
    check_tensor("swapdims", "input", 0, input)
    return transpose(input, check_int("swapdims", "dim0", 1, dim0), check_int("swapdims", "dim1", 2, dim1))


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (``torch.adjoint``, ``Tensor.adjoint``): for minigrad's real
    tensors ``transpose(input, -2, -1)``, a view (``TransposeBackward0``). A 0-d tensor is returned as it is, with
    PyTorch's deprecation warning."""
    check_tensor("adjoint", "input", 0, input)
    if input.ndim == 0:
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return input
    if input.ndim == 1:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(input, -2, -1)


def _unflatten_error(message: str) -> RuntimeError:
    """PyTorch's ``unflatten`` wraps an error of its size inference so (its C++ trace left out)."""
    return RuntimeError(f"unflatten got an unexpected error:\n{message}")


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one entry may be -1) (``torch.unflatten``; a ``view``, which splitting
    one dim always allows: ``ViewBackward0`` whatever the layout, as in PyTorch)."""
    check_tensor("unflatten", "input", 0, input)
    try:
        sizes = check_shape("unflatten", "sizes", 2, sizes)
    except TypeError:
        raise tuple_of_ints_error("unflatten", "sizes", 2, sizes) from None
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _axis("unflatten", dim, input.ndim)
    if input.ndim == 0:
        raise _unflatten_error(f"Dimension specified as {d} but tensor has no dimensions")
    n, known, inferred = input.shape[d], 1, False
    for i, s in enumerate(sizes):  # PyTorch's infer_size, in its order
        if s == -1:
            if inferred:
                raise _unflatten_error("only one dimension can be inferred")
            inferred = True
        elif s >= 0:
            known *= s
        else:
            raise _unflatten_error(f"invalid shape dimension {s} at index {i} of shape {list(sizes)}")
    if n == 0 and inferred and known == 0:
        raise _unflatten_error(f"cannot reshape tensor of 0 elements into shape {list(sizes)} because the "
                               f"unspecified dimension size -1 can be any value and is ambiguous")
    if (inferred and (known == 0 or n % known)) or (not inferred and known != n):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({n}) in the input tensor")
    sizes = tuple(input.shape[d] // known if s == -1 else s for s in sizes)
    return view(input, tuple(input.shape[:d]) + sizes + tuple(input.shape[d + 1:]))


def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-D tensor (``torch.ravel``): PyTorch's ``contiguous().view(-1)``, a view of a
    contiguous tensor, else a ``clone`` viewed."""
    check_tensor("ravel", "input", 0, input)
    n = 1
    for s in input.shape:
        n *= s
    return view(input.contiguous(), (n,))


def _atleast(op: str, nd: int, tensors: tuple[Any, ...]) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast(op, nd, (t,)) for t in tensors[0])
    if len(tensors) > 1:
        return tuple(_atleast(op, nd, (t,)) for t in tensors)
    t = check_tensor(op, "tensors", 0, tensors[0])
    if t.ndim >= nd:
        return t
    if t.ndim == 0:  # PyTorch's reshape to (1,), (1, 1) or (1, 1, 1): a view
        return reshape(t, (1,) * nd)
    # Dims added one at a time, as PyTorch's (one UnsqueezeBackward0 each): in front for atleast_2d,
    # NumPy's (n,) -> (1, n, 1) and (m, n) -> (m, n, 1) for atleast_3d
    if t.ndim == 1:
        t = unsqueeze(t, 0)
    return unsqueeze(t, -1) if nd == 3 else t


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dim (a 0-d one becomes shape ``(1,)``)."""
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dims (leading 1s added)."""
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dims (NumPy's rule: ``(n,) -> (1, n, 1)``, ``(m, n) -> (m, n, 1)``)."""
    return _atleast("atleast_3d", 3, tensors)


def _seq(op: str, tensors: Any) -> list[Tensor]:
    """The tensors of a joining form (``hstack`` ...), checked in PyTorch's words."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' (position 0) must be tuple of Tensors, not {type_name(tensors)}")
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return [check_tensor(op, "tensors", 0, t) for t in tensors]


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 1, or dim 0 for 1-D tensors (``torch.hstack``)."""
    ts = [atleast_1d(t) for t in _seq("hstack", tensors)]
    return concat(ts, dim=0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 0, 1-D tensors as rows (``torch.vstack``)."""
    return concat([atleast_2d(t) for t in _seq("vstack", tensors)], dim=0)


def row_stack(tensors: Sequence[Tensor]) -> Tensor:
    """The old name of ``vstack``."""
    return vstack(tensors)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Join along dim 2, after ``atleast_3d`` (``torch.dstack``)."""
    return concat([atleast_3d(t) for t in _seq("dstack", tensors)], dim=2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Join as columns: 0-d and 1-D tensors become columns ``(n, 1)``, then ``hstack`` (``torch.column_stack``)."""
    ts = [reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in _seq("column_stack", tensors)]
    return concat(ts, dim=1)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, one row each (``torch.cartesian_prod``; a
    single tensor is returned as it is). Composite: ``meshgrid``, then the grids flattened and stacked."""
    ts = [check_tensor("cartesian_prod", "tensors", 0, t) for t in tensors]
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def _combination_mask(n: int, r: int, with_replacement: bool) -> np.ndarray:
    """Which cells of the ``n x ... x n`` (``r`` dims) grid hold a combination: indices strictly increasing
    along the dims (non-decreasing ``with_replacement``)."""
    index = np.indices((n,) * r, sparse=True)
    mask = np.ones((n,) * r, dtype=bool)
    for a, b in zip(index[:-1], index[1:]):
        mask &= (a <= b) if with_replacement else (a < b)
    return mask


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every length-``r`` combination of the 1-D ``input``'s elements, one row each, in lexicographic order of
    their positions (``torch.combinations``; Python's ``itertools.combinations``, or
    ``combinations_with_replacement``). Composite, as PyTorch's: ``meshgrid`` of ``r`` copies of ``input``,
    each grid's combination cells taken with ``masked_select``, the columns stacked (``StackBackward0`` over
    ``MaskedSelectBackward0``s)."""
    check_tensor("combinations", "input", 0, input)
    check_int("combinations", "r", 1, r)
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty((0,), dtype=input.dtype, device=input.device)
    mask = constant(_combination_mask(input.shape[0], r, bool(with_replacement)), input, _dt.bool_)
    return stack([masked_select(g, mask) for g in meshgrid(*[input] * r, indexing="ij")], 1)


def _block_shapes(shapes: Sequence[tuple[int, ...]]) -> list[tuple[int, int]]:
    """Each block's (rows, columns): a 0-d tensor is 1 x 1, a 1-D one a single row."""
    return [(1, 1) if len(s) == 0 else (1, s[0]) if len(s) == 1 else (s[0], s[1]) for s in shapes]


def _block_diag_meta(op: str, xs: Any) -> tuple[tuple[int, ...], Any]:
    blocks = _block_shapes([tuple(x.shape) for x in xs])
    return (sum(r for r, _ in blocks), sum(c for _, c in blocks)), np.result_type(*[x.dtype for x in xs])


@register_kernel("block_diag", Backend.CPU, dtypes=ALL_DTYPES, name="cpu/block_diag")
def block_diag_cpu(xs):
    return block_diag_arrays(np, xs)


_block_diag = defop("block_diag", inputs=(Input("xs", is_list=True),), infer_meta=_block_diag_meta,
                    doc="the tensors (0-, 1- or 2-D) as the blocks of a block-diagonal matrix (BlockDiagBackward0)")


@_block_diag.def_backward
def _block_diag_backward(ctx: Any, g: Any) -> tuple[Any]:
    """PyTorch's ``block_diag_backward``: each input's block of the gradient, in the input's shape."""
    pieces, top, left = [], 0, 0
    shapes, dtypes = ctx.input_shapes(0), ctx.input_dtypes(0)
    g_dtype = g.dtype if isinstance(g.dtype, np.dtype) else g.dtype.np  # (an array's, or a tensor's)
    for rank, (shape, (r, c)) in enumerate(zip(shapes, _block_shapes([tuple(s) for s in shapes]))):
        if ctx.needs(0, rank):
            block = ctx.ops.getitem(g, (slice(top, top + r), slice(left, left + c)))
            block = ctx.ops.reshape(block, tuple(shape)) if len(shape) < 2 else block
            pieces.append(block if dtypes[rank].np == g_dtype else ctx.ops.cast(block, dtypes[rank]))  # promoted
        else:
            pieces.append(None)
        top, left = top + r, left + c
    return (pieces,)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-D) as the blocks of a block-diagonal matrix, zeros elsewhere, in the dtype they
    promote to (``torch.block_diag``): one op, ``BlockDiagBackward0``, each input's gradient its block."""
    for i, t in enumerate(tensors):
        check_tensor("block_diag", "tensors", i, t)
        if t.ndim > 2:
            raise RuntimeError(f"block_diag(): Input tensors must have 2 or fewer dimensions. Input {i} has {t.ndim} dimensions")
    if not tensors:  # PyTorch's answer: one row of no columns
        return zeros(1, 0)
    return _block_diag(list(tensors))
