"""The ops behind views and in-place changes through them: ``copy_slices`` (the base's new node when a
view of it is changed in place, NOTE [ In-place through a view: the history rewrite ] in
``autograd/views.py``), ``diagonal``, ``unfold`` and ``as_strided`` as views (``mg.diagonal``, ``Tensor.unfold``
and ``mg.as_strided`` in ``indexing.py`` call them), and ``diagonal_copy`` (``mg.diag`` of a matrix).

None is public under its op name: the forms in ``indexing.py`` check PyTorch's arguments,
and ``copy_slices`` is made only by the history rewrite (its node is PyTorch's ``CopySlices``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.strided import as_strided_view, copy_slices_array, diagonal_length, diagonal_view, unfold_view
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
    # a row-major copy, as PyTorch's and CuPy's (np.array keeps a view's memory order; ascontiguousarray would
    # make a 0-d result 1-d)
    return np.array(diagonal_view(np, x, offset, dim1, dim2), order="C")


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


def _as_strided_meta(op: str, x: Any, size: tuple[int, ...], stride: tuple[int, ...], storage_offset: int,
                     self_geometry: Any) -> Any:
    return tuple(size), x.dtype


@register_kernel("as_strided", CPU, dtypes=ALL_DTYPES, name="cpu/as_strided")
def as_strided_cpu(x, size, stride, storage_offset, self_geometry):
    return as_strided_view(np, x, size, stride, storage_offset - self_geometry[2])


as_strided = defop("as_strided", inputs=("x",),
                   attrs=(Attr("size"), Attr("stride"), Attr("storage_offset"), Attr("self_geometry")),
                   infer_meta=_as_strided_meta, view=True,
                   doc="size elements stride apart in the input's storage from storage_offset (a view); "
                       "self_geometry: the input's size, stride and storage offset")


# ``x.as_strided_(...)``: the in-place view op (``AsStridedBackward1``), the same kernel and formula; run by
# ``run_inplace_view`` as ``squeeze_`` and ``t_`` are (ops/shape.py).
register_kernel("as_strided_", CPU, dtypes=ALL_DTYPES, name="cpu/as_strided_")(as_strided_cpu)
as_strided_ = defop("as_strided_", inputs=("x",),
                    attrs=(Attr("size"), Attr("stride"), Attr("storage_offset"), Attr("self_geometry")),
                    infer_meta=_as_strided_meta, view=True,
                    doc="the tensor itself given as_strided's geometry over its storage (Tensor.as_strided_)")


def storage_positions(size: Any, stride: Any, offset: int) -> np.ndarray:
    """Where each element of a geometry lies in its storage (elements), in the geometry's shape."""
    pos = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        pos += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(size) - d - 1))
    return pos


@as_strided_.def_backward
@as_strided.def_backward
def _as_strided_backward(ctx, g):
    """PyTorch's: the gradient added into a stretch of storage at the output's positions (an output that
    reads one element twice gives it both gradients), then read at the input's; an input that sees one
    element several times (an expanded one) shares that element's gradient among them equally. Storage
    the output does not read gives zero; what the output read outside the input's elements goes nowhere."""
    size, stride, offset = ctx.attrs["size"], ctx.attrs["stride"], ctx.attrs["storage_offset"]
    out_pos = storage_positions(size, stride, offset)
    in_pos = storage_positions(*ctx.attrs["self_geometry"])
    both = [p for p in (out_pos, in_pos) if p.size]
    low = min(int(p.min()) for p in both) if both else 0
    length = max(int(p.max()) for p in both) + 1 - low if both else 0
    where = (in_pos - low,)
    storage = ctx.ops.getitem_grad(g, (out_pos - low,), (length,))
    grad = ctx.ops.getitem(storage, where)
    if in_pos.size and np.unique(in_pos).size < in_pos.size:  # the input overlaps itself
        seen = ctx.ops.getitem(ctx.ops.getitem_grad(ctx.ops.fill(grad, 1.0), where, (length,)), where)
        grad = ctx.ops.div(grad, seen)
    return (grad,)
