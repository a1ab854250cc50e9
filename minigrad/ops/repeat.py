"""Copies of a tensor side by side: ``repeat`` (an op); ``tile``, ``repeat_interleave``, ``meshgrid`` (composites).

``x.repeat(2, 3)`` lays out 2 x 3 copies of a 2-D ``x`` (NumPy's ``tile``);
each element of ``x`` lands in every copy, so its gradient is the sum of the
gradients of all its copies: reshape the gradient to
``(r0, d0, r1, d1, ...)`` and sum over the ``r`` axes.

``repeat_interleave`` repeats each element in place (``[a, b] -> [a, a, b, b]``):
by an int, each slice is broadcast to ``r`` copies and merged into its dim
(``unsqueeze``, ``expand``, ``clone``, ``view``: the backward sums the copies);
by a tensor of counts, ``index_select`` picks the repeated positions.

``meshgrid`` broadcasts 1-D tensors to a common grid: each output is an
``expand`` (a view), whose backward sums the copies.

Example:
    >>> import minigrad as mg
    >>> mg.tensor([1, 2]).repeat(2).tolist()
    [1, 2, 1, 2]
    >>> mg.repeat_interleave(mg.tensor([1, 2]), 2).tolist()
    [1, 1, 2, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..errors import ShapeError
from ..dtypes import ALL_DTYPES, scalar_type_name
from ..kernels.backends import to_numpy
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_int, check_shape, check_tensor, wrap_dim
from ._constants import constant
from .registry import Attr, defop, type_name
from .indexing import index_select_op
from .math import clone
from .shape import expand, reshape, unsqueeze, view

__all__ = ["tile", "repeat_interleave", "meshgrid"]  # repeat is a method only (Tensor.repeat), as in PyTorch


def infer_repeat(op: str, x: Any, sizes: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    """InferMeta: one repeat count per dim (leading new dims allowed); the shape is count times size."""
    if len(sizes) < x.ndim:
        raise RuntimeError(f"{op}(): Number of dimensions of repeat dims can not be smaller than number of "
                           f"dimensions of tensor (got {len(sizes)} repeat counts for shape {tuple(x.shape)})")
    shape = (1,) * (len(sizes) - x.ndim) + tuple(x.shape)
    out = tuple(r * s for r, s in zip(sizes, shape))
    for n in out:
        if n < 0:  # PyTorch's words for the result's shape (a negative count of a size-0 dim makes a 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(out)}")
    return out, x.dtype


def _counts(x: Tensor, sizes: tuple[int, ...]) -> tuple[int, ...]:
    """``sizes``, a negative count of a size-0 dim made 0 (the result's dim is 0 either way, as in PyTorch); a
    negative count of another dim is kept for ``infer_repeat`` to refuse."""
    if len(sizes) < x.ndim or min(sizes, default=0) >= 0:
        return sizes
    shape = (1,) * (len(sizes) - x.ndim) + tuple(x.shape)
    return tuple(0 if r < 0 and s == 0 else r for r, s in zip(sizes, shape))


def tuple_of_ints_error(op: str, name: str, pos: int, v: Any) -> TypeError:
    """PyTorch's argument parser's words for ``v`` where a tuple of ints belongs."""
    if isinstance(v, (tuple, list)):
        for i, d in enumerate(v):
            if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
                return TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, but found "
                                 f"element of type {type_name(d)} at pos {i}")
    return TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, not {type_name(v)}")


@register_kernel("repeat", Backend.CPU, dtypes=ALL_DTYPES)
def repeat_cpu(x: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    return np.array(np.tile(x, sizes), copy=False) if sizes else np.array(x, copy=True)


repeat_op = defop(
    "repeat",
    inputs=("x",),
    attrs=(Attr("sizes", check=check_shape),),
    infer_meta=infer_repeat,
    doc="x tiled sizes[i] times along each dim (new leading dims where sizes is longer)",
)


@repeat_op.def_backward
def repeat_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """Every copy of an element sends its gradient back: split each dim into (copies, size), sum the copies."""
    ops = ctx.ops
    sizes = ctx.attrs["sizes"]
    x_shape = tuple(ctx.input_shape(0))
    shape = (1,) * (len(sizes) - len(x_shape)) + x_shape
    split = tuple(n for pair in zip(sizes, shape) for n in pair)  # (r0, d0, r1, d1, ...)
    summed = ops.sum(ops.reshape(grad, split), tuple(range(0, 2 * len(sizes), 2)))
    return (ops.reshape(summed, x_shape),)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """``input.repeat(*sizes)``: ``sizes[i]`` copies along each dim (``Tensor.repeat``; also a list or tuple).

    Example:
        >>> import minigrad as mg
        >>> mg.tensor([[1, 2]]).repeat(2, 2).tolist()
        [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    check_tensor("repeat", "input", 0, input)
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    given = sizes[0] if len(sizes) == 1 else sizes  # (the one argument: an int, a tuple or list, or a mistake)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    try:
        sizes = check_shape("repeat", "repeats", 1, tuple(sizes))
    except TypeError:
        raise tuple_of_ints_error("repeat", "repeats", 1, given) from None
    return repeat_op(input, _counts(input, sizes))


def tile(input: Tensor, dims: Any) -> Tensor:
    """``torch.tile``: ``repeat`` with ``dims`` padded by leading 1s when it is shorter than ``input``'s shape."""
    check_tensor("tile", "input", 0, input)
    dims = check_shape("tile", "dims", 1, dims)
    return repeat_op(input, _counts(input, (1,) * (input.ndim - len(dims)) + dims))


def _refuse_counts_dtype(counts: Tensor) -> None:
    """PyTorch's refusal of counts that are not integers (its kernel has no case for them)."""
    if counts.dtype.is_floating or counts.dtype == _dt.bool_:
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{scalar_type_name(counts.dtype)}\'')


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Each element (or slice along ``dim``) repeated in place (``torch.repeat_interleave``).

    ``repeats`` is an int or a 1-D int tensor with one count per element;
    ``dim=None`` works on the flattened tensor; ``repeat_interleave(counts)``
    alone repeats ``arange(len(counts))``. Composite, PyTorch's: an int repeats
    each slice by ``unsqueeze``, ``expand``, a contiguous ``clone`` and ``view``;
    a tensor of counts (read on the host, as PyTorch reads it) picks the
    repeated positions with ``index_select``. No gradient to ``repeats``.
    """
    check_tensor("repeat_interleave", "input", 0, input)
    if repeats is None:  # repeat_interleave(counts): the positions, each repeated counts[i] times
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        _refuse_counts_dtype(input)
        counts = to_numpy(input._data)
        if np.any(counts < 0):
            raise RuntimeError("repeats can not be negative")
        data = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        return constant(data, input)
    by_int = isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        counts = to_numpy(repeats._data).reshape(-1)
    elif by_int:
        counts = np.array([int(repeats)])
    else:
        raise TypeError(f"repeat_interleave(): argument 'repeats' (position 1) must be int or Tensor, but got {type_name(repeats)}")
    if by_int and counts[0] < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = input
    if dim is None:
        x, d = (input if input.ndim == 1 else reshape(input, (-1,))), 0
    else:
        d = wrap_dim("repeat_interleave", check_int("repeat_interleave", "dim", 2, dim), x.ndim)
        if x.ndim == 0 and not by_int:
            x = reshape(x, (1,))
    n = x.shape[d] if x.ndim else 1
    if counts.size != 1 and counts.size != n:
        raise RuntimeError(f"repeat_interleave(): repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.size} and input.size({d}) = {n}")
    if not by_int:  # PyTorch checks the counts' dtype and signs after their size
        _refuse_counts_dtype(repeats)
        if np.any(counts < 0):
            raise RuntimeError("repeat_interleave(): repeats can not be negative")
    total = int(counts.sum()) if counts.size == n else n * int(counts[0])
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave(): output_size {output_size} does not match the result's size {total}")
    if by_int:  # PyTorch's: each slice along d repeated by a broadcast, then merged into d
        r, shape = int(counts[0]), tuple(x.shape)
        wide = expand(unsqueeze(x, d + 1), shape[:d + 1] + (r,) + shape[d + 1:])
        return view(clone(wide, memory_format="contiguous_format"), shape[:d] + (shape[d] * r,) + shape[d + 1:])
    positions = np.repeat(np.arange(n, dtype=np.int64), counts if counts.size == n else int(counts[0]))
    return index_select_op(x, index=positions, dim=d)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors (``torch.meshgrid``): output ``i`` holds ``tensors[i]`` along dim ``i``.

    ``indexing="ij"`` (the default, as PyTorch's) orders the grid dims as the
    inputs; ``"xy"`` swaps the first two (NumPy's and MATLAB's convention).
    Each output is ``expand`` of a reshape, a view.

    Example:
        >>> import minigrad as mg
        >>> xs, ys = mg.meshgrid(mg.tensor([1, 2]), mg.tensor([3, 4, 5]), indexing="ij")
        >>> xs.shape, ys.tolist()
        (minigrad.Size([2, 3]), [[3, 4, 5], [3, 4, 5]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ShapeError(f"meshgrid(): indexing must be one of 'xy' or 'ij', but got {indexing!r}")
    if not tensors:
        raise RuntimeError("meshgrid(): expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"meshgrid(): argument 'tensors' must be a list of Tensors, but element {i} is {type_name(t)}")
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid(): Expected 0D or 1D tensor in the tensor list but got a {t.ndim}-D tensor")
    sizes = [t.shape[0] if t.ndim else 1 for t in tensors]
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0  # output dim k holds input order[k]
    shape = tuple(sizes[k] for k in order)
    out = []
    for i, t in enumerate(tensors):
        axis = order.index(i)
        view = reshape(t, tuple(-1 if k == axis else 1 for k in range(len(tensors))))
        out.append(expand(view, shape))
    return tuple(out)
