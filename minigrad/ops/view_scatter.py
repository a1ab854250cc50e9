"""Writing a tensor into a view of another, out of place: ``slice_scatter``, ``select_scatter`` and
``diagonal_scatter`` (PyTorch's "view scatter" ops, the functional forms of ``x[:, 1:3] = src``,
``x[2] = src`` and ``x.diagonal().copy_(src)``).

Each is one op with PyTorch's node (``SliceScatterBackward0``, ``SelectScatterBackward0``,
``DiagonalScatterBackward0``): a copy of ``input`` whose view - the slice, the selected slice, the
diagonal - holds ``src``. The backward formula is the same for the three (PyTorch's
``derivatives.yaml``): ``src`` gets the gradient read through the view, ``input`` the gradient with the
view's region zeroed, which is the op itself applied to the gradient and zeros.

Example:
    >>> import minigrad as mg
    >>> mg.slice_scatter(mg.zeros(2, 4), mg.ones(2, 2), dim=1, start=1, end=3).tolist()
    [[0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]
    >>> mg.diagonal_scatter(mg.zeros(2, 2), mg.tensor([5.0, 6.0])).tolist()
    [[5.0, 0.0], [0.0, 6.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels.array_kernels import scattered_into, select_index, slice_index
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.strided import diagonal_length, diagonal_view
from ..tensor import Tensor
from ._checks import check_int, check_tensor, wrap_dim
from .math import cast
from .registry import Attr, defop
from .scatter_gather import _zeros

__all__ = ["slice_scatter", "select_scatter", "diagonal_scatter"]

CPU = Backend.CPU


def _input_meta(op: str, x: Any, src: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``input``'s shape and dtype (the public functions checked ``src`` against the view)."""
    return tuple(x.shape), x.dtype


@register_kernel("slice_scatter", CPU, dtypes=ALL_DTYPES, name="cpu/slice_scatter")
def slice_scatter_cpu(x, src, dim, start, end, step):
    return scattered_into(np, x, src, lambda out: out[slice_index(dim, start, end, step)])


@register_kernel("select_scatter", CPU, dtypes=ALL_DTYPES, name="cpu/select_scatter")
def select_scatter_cpu(x, src, dim, index):
    return scattered_into(np, x, src, lambda out: out[select_index(dim, index)])


@register_kernel("diagonal_scatter", CPU, dtypes=ALL_DTYPES, name="cpu/diagonal_scatter")
def diagonal_scatter_cpu(x, src, offset, dim1, dim2):
    return scattered_into(np, x, src, lambda out: diagonal_view(np, out, offset, dim1, dim2))


slice_scatter_op = defop(
    "slice_scatter", inputs=("input", "src"),
    attrs=(Attr("dim"), Attr("start"), Attr("end"), Attr("step")),
    infer_meta=_input_meta, key_inputs=(0,),
    doc="input with its slice along dim (start:end:step) replaced by src (PyTorch's SliceScatterBackward0)")
select_scatter_op = defop(
    "select_scatter", inputs=("input", "src"), attrs=(Attr("dim"), Attr("index")),
    infer_meta=_input_meta, key_inputs=(0,),
    doc="input with the slice at index along dim replaced by src (PyTorch's SelectScatterBackward0)")
diagonal_scatter_op = defop(
    "diagonal_scatter", inputs=("input", "src"), attrs=(Attr("offset"), Attr("dim1"), Attr("dim2")),
    infer_meta=_input_meta, key_inputs=(0,),
    doc="input with its diagonal in the (dim1, dim2) planes replaced by src (PyTorch's DiagonalScatterBackward0)")


def _view_scatter_backward(name: str, read: Any) -> Any:
    """The three ops' formula: ``src`` gets ``read(ops, grad, attrs)``, the gradient seen through the view;
    ``input`` the gradient with zeros written into that view (the op ``name`` again, on the gradient)."""
    def backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
        ops, attrs = ctx.ops, ctx.attrs
        g_input = g_src = None
        if ctx.needs(0):
            zeros = _zeros(ops, grad, tuple(ctx.input_shape(1)))
            g_input = getattr(ops, name)(grad, zeros, **attrs)
        if ctx.needs(1):
            g_src = read(ops, grad, attrs)
        return g_input, g_src
    return backward


slice_scatter_op.def_backward(_view_scatter_backward(
    "slice_scatter", lambda ops, g, a: ops.getitem(g, slice_index(a["dim"], a["start"], a["end"], a["step"]))))
select_scatter_op.def_backward(_view_scatter_backward(
    "select_scatter", lambda ops, g, a: ops.getitem(g, select_index(a["dim"], a["index"]))))
diagonal_scatter_op.def_backward(_view_scatter_backward(
    "diagonal_scatter", lambda ops, g, a: ops.diagonal_copy(g, a["offset"], a["dim1"], a["dim2"])))


# -- the public functions: PyTorch's argument rules, then the op ------------------------------------------------


def _checked_src(op: str, input: Tensor, src: Any, view_shape: tuple[int, ...]) -> Tensor:
    """``src``, refused unless it has the view's shape (PyTorch's words, "slice" for each of the three), cast to ``input``'s dtype as
    PyTorch's copy into the view casts it."""
    check_tensor(op, "src", 1, src)
    if tuple(src.shape) != tuple(view_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view_shape)}")
    return src if src.dtype is input.dtype else cast(src, input.dtype)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` whose slice ``start:end:step`` along ``dim`` holds ``src`` (``torch.slice_scatter``;
    ``src`` must have the slice's shape). One op, ``SliceScatterBackward0``.

    Example:
        >>> import minigrad as mg
        >>> mg.slice_scatter(mg.zeros(5), mg.ones(2), start=0, step=3).tolist()
        [1.0, 0.0, 0.0, 1.0, 0.0]
    """
    check_tensor("slice_scatter", "input", 0, input)
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim("slice_scatter", check_int("slice_scatter", "dim", 2, dim), input.ndim)
    step = check_int("slice_scatter", "step", 5, step)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    size = input.shape[d]
    # PyTorch's slice: a negative bound counts from the end, and both are clamped into [0, size]
    lo = 0 if start is None else check_int("slice_scatter", "start", 3, start)
    hi = size if end is None else check_int("slice_scatter", "end", 4, end)
    lo, hi = (min(max(b + size if b < 0 else b, 0), size) for b in (lo, hi))
    hi = max(hi, lo)
    view_shape = tuple(input.shape[:d]) + (len(range(lo, hi, step)),) + tuple(input.shape[d + 1:])
    return slice_scatter_op(input, _checked_src("slice_scatter", input, src, view_shape), d, lo, hi, step)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` whose slice at ``index`` along ``dim`` holds ``src`` (``torch.select_scatter``; ``src``
    has ``input``'s shape without ``dim``). One op, ``SelectScatterBackward0``.

    Example:
        >>> import minigrad as mg
        >>> mg.select_scatter(mg.zeros(2, 2), mg.ones(2), 0, 0).tolist()
        [[1.0, 1.0], [0.0, 0.0]]
    """
    check_tensor("select_scatter", "input", 0, input)
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim("select_scatter", check_int("select_scatter", "dim", 2, dim), input.ndim)
    index = check_int("select_scatter", "index", 3, index)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    view_shape = tuple(input.shape[:d]) + tuple(input.shape[d + 1:])
    src = _checked_src("select_scatter", input, src, view_shape)
    return select_scatter_op(input, src, d, index % size)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` whose diagonal (as ``torch.diagonal(input, offset, dim1, dim2)`` reads it) holds
    ``src`` (``torch.diagonal_scatter``). One op, ``DiagonalScatterBackward0``.

    Example:
        >>> import minigrad as mg
        >>> mg.diagonal_scatter(mg.zeros(2, 3), mg.ones(2), 1).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    check_tensor("diagonal_scatter", "input", 0, input)
    offset = check_int("diagonal_scatter", "offset", 2, offset)
    d1 = wrap_dim("diagonal_scatter", check_int("diagonal_scatter", "dim1", 3, dim1), input.ndim)
    d2 = wrap_dim("diagonal_scatter", check_int("diagonal_scatter", "dim2", 4, dim2), input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rest = tuple(n for k, n in enumerate(input.shape) if k not in (d1, d2))
    view_shape = rest + (diagonal_length(input.shape[d1], input.shape[d2], offset),)
    src = _checked_src("diagonal_scatter", input, src, view_shape)
    return diagonal_scatter_op(input, src, offset, d1, d2)
