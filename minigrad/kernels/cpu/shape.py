"""CPU kernels of the shape and indexing ops (views where NumPy gives them)."""

from __future__ import annotations

import numpy as np

from ...dtypes import ALL_DTYPES
from ..key import Backend
from ..registry import register_kernel

CPU = Backend.CPU


def _owned(out, x):
    """``out`` if it is a view of ``x``; otherwise an array that owns its data.

    When NumPy has to copy (reshaping a non-contiguous array, fancy indexing
    with slices) it returns a view of a private temporary, whose ``.base`` is
    set; the dygraph layer and in-place checks would take that for a view of
    ``x`` (shared version counter, "in-place change of a view" refused).
    """
    if out.base is None or np.may_share_memory(out, x):
        return out
    return out.copy()


@register_kernel("reshape", CPU, dtypes=ALL_DTYPES)
def reshape(x, shape):
    return _owned(x.reshape(shape), x)


@register_kernel("transpose", CPU, dtypes=ALL_DTYPES)
def transpose(x, dim0, dim1):
    return np.swapaxes(x, dim0, dim1)


@register_kernel("permute", CPU, dtypes=ALL_DTYPES)
def permute(x, dims):
    return np.transpose(x, dims)


@register_kernel("expand", CPU, dtypes=ALL_DTYPES)
def expand(x, shape):
    lead = len(shape) - x.ndim
    target = tuple(x.shape[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(shape))
    return np.broadcast_to(x, target)


@register_kernel("squeeze", CPU, dtypes=ALL_DTYPES)
def squeeze(x, dim=None):
    if dim is None:
        return np.squeeze(x)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    axes = tuple(d % x.ndim for d in dims if x.shape[d % x.ndim] == 1)
    return np.squeeze(x, axis=axes) if axes else x.view()


@register_kernel("unsqueeze", CPU, dtypes=ALL_DTYPES)
def unsqueeze(x, dim):
    return np.expand_dims(x, dim % (x.ndim + 1))


@register_kernel("concat", CPU, dtypes=ALL_DTYPES)
def concat(xs, dim=0):
    return np.concatenate(xs, axis=dim)


@register_kernel("stack", CPU, dtypes=ALL_DTYPES)
def stack(xs, dim=0):
    return np.stack(xs, axis=dim)


@register_kernel("getitem", CPU, dtypes=ALL_DTYPES)
def getitem(x, index):
    return _owned(np.asarray(x[index]), x)


@register_kernel("getitem_grad", CPU, dtypes=ALL_DTYPES)
def getitem_grad(grad, index, shape):
    out = np.zeros(shape, dtype=grad.dtype)
    # add.at accumulates repeated integer indices (x[[0, 0]] gets both gradients).
    np.add.at(out, index, grad)
    return out
