"""The ops behind views and in-place changes through them: ``copy_slices`` (the base's new node when a
view of it is changed in place, NOTE [ In-place through a view: the history rewrite ] in
``autograd/views.py``) and ``diagonal`` as a view (``mg.diagonal`` in ``indexing.py`` calls it), and ``diagonal_copy``
(``mg.diag`` of a matrix).

Neither is public under its op name: ``mg.diagonal`` is the form that checks PyTorch's arguments,
and ``copy_slices`` is made only by the history rewrite (its node is PyTorch's ``CopySlices``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.strided import copy_slices_array, diagonal_length, diagonal_view, unfold_view
from .registry import Attr, defop

__all__: list[str] = []

CPU = Backend.CPU


def _copy_slices_meta(op: str, base: Any, src: Any, positions: Any) -> Any:
    return tuple(base.shape), base.dtype


@register_kernel("copy_slices", CPU, dtypes=ALL_DTYPES, name="cpu/copy_slices")
def copy_slices_cpu(base, src, positions):
    return copy_slices_array(np, base, src, positions)


copy_slices = defop(
    "copy_slices",
    inputs=("base", "src"),
    attrs=(Attr("positions"),),
    infer_meta=_copy_slices_meta,
    doc="base with the elements at flat positions replaced by src (an in-place change through a view)",
)


@copy_slices.def_backward
def _copy_slices_backward(ctx, g):
    # The view's part of the gradient goes to src; the rest to the old base.
    pos = ctx.attrs["positions"]
    g_src = ctx.ops.reshape(ctx.ops.getitem(ctx.ops.reshape(g, (-1,)), (pos.reshape(-1),)), pos.shape)
    return ctx.ops.copy_slices(g, ctx.ops.fill(g_src, 0), pos), g_src  # fill: no inf * 0 = nan


def _diagonal_meta(op: str, x: Any, offset: int, dim1: int = -2, dim2: int = -1) -> Any:
    d1, d2 = dim1 % x.ndim, dim2 % x.ndim
    rest = tuple(n for k, n in enumerate(x.shape) if k not in (d1, d2))
    return rest + (diagonal_length(x.shape[d1], x.shape[d2], offset),), x.dtype


@register_kernel("diagonal", CPU, dtypes=ALL_DTYPES, name="cpu/diagonal")
def diagonal_cpu(x, offset, dim1=-2, dim2=-1):
    return diagonal_view(np, x, offset, dim1, dim2)


diagonal = defop("diagonal", inputs=("x",), attrs=(Attr("offset", 0), Attr("dim1", -2), Attr("dim2", -1)),
                 infer_meta=_diagonal_meta, view=True,
                 doc="the diagonal of the (dim1, dim2) planes, shifted by offset, as the last dim (a view)")


@diagonal.def_backward
def _diagonal_backward(ctx, g):
    """Zeros with ``g`` on the diagonal: scattered into the input's shape with the two dims last, then
    those dims put back in their places."""
    shape = tuple(ctx.input_shape(0))
    offset, nd = ctx.attrs["offset"], len(shape)
    d1, d2 = ctx.attrs["dim1"] % nd, ctx.attrs["dim2"] % nd
    order = tuple(k for k in range(nd) if k not in (d1, d2)) + (d1, d2)
    n = diagonal_length(shape[d1], shape[d2], offset)
    index = (Ellipsis, np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0))
    spread = ctx.ops.getitem_grad(g, index, tuple(shape[k] for k in order))
    if order == tuple(range(nd)):
        return (spread,)
    return (ctx.ops.permute(spread, tuple(int(k) for k in np.argsort(order))),)


@register_kernel("diagonal_copy", CPU, dtypes=ALL_DTYPES, name="cpu/diagonal_copy")
def diagonal_copy_cpu(x, offset, dim1=-2, dim2=-1):
    return np.array(diagonal_view(np, x, offset, dim1, dim2))  # a copy (ascontiguousarray would make 0-d 1-d)


diagonal_copy = defop("diagonal_copy", inputs=("x",), attrs=(Attr("offset", 0), Attr("dim1", -2), Attr("dim2", -1)),
                      infer_meta=_diagonal_meta,
                      doc="the diagonal as a new tensor (torch.diag of a matrix: DiagonalBackward0_copy)")
diagonal_copy.def_backward(_diagonal_backward)


def _unfold_meta(op: str, x: Any, dim: int, size: int, step: int) -> Any:
    shape = list(x.shape)
    shape[dim] = (shape[dim] - size) // step + 1
    return tuple(shape) + (size,), x.dtype


@register_kernel("unfold", CPU, dtypes=ALL_DTYPES, name="cpu/unfold")
def unfold_cpu(x, dim, size, step):
    return unfold_view(np, x, dim, size, step)


unfold = defop("unfold", inputs=("x",), attrs=(Attr("dim"), Attr("size"), Attr("step")), infer_meta=_unfold_meta,
               view=True, doc="every window of size elements along dim, step apart, as a new last dim (a view)")


@unfold.def_backward
def _unfold_backward(ctx, g):
    # Windows that overlap add their gradients: the window contents back next to the window
    # index, then getitem_grad's accumulating scatter of the table of positions.
    dim, size, step = ctx.attrs["dim"], ctx.attrs["size"], ctx.attrs["step"]
    shape = tuple(ctx.input_shape(0))
    windows = (shape[dim] - size) // step + 1
    table = np.arange(windows)[:, None] * step + np.arange(size)[None, :]
    order = list(range(dim + 1)) + [g.ndim - 1] + list(range(dim + 1, g.ndim - 1))
    return (ctx.ops.getitem_grad(ctx.ops.permute(g, tuple(order)), (slice(None),) * dim + (table,), shape),)
