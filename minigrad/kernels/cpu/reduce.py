"""CPU kernels of the reductions."""

from __future__ import annotations

import numpy as np

from ...dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..key import Backend
from ..registry import register_kernel

CPU = Backend.CPU


def _axis(dim):
    return None if dim is None else dim


@register_kernel("sum", CPU, dtypes=ALL_DTYPES)  # bools count (the result is int64)
def sum_(x, dim=None, keepdim=False):
    dtype = np.int64 if x.dtype.kind in "bi" else x.dtype
    return np.asarray(np.sum(x, axis=_axis(dim), keepdims=keepdim, dtype=dtype))


@register_kernel("mean", CPU, dtypes=FLOAT_DTYPES)
def mean(x, dim=None, keepdim=False):
    # sum / count rather than np.mean: np.mean of an empty slice warns from inside NumPy,
    # where the kernels' warning filter (cpu/__init__.py) does not reach; the result is NaN either way.
    axis = _axis(dim)
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    total = np.sum(x, axis=axis, keepdims=keepdim, dtype=x.dtype)
    return np.asarray(np.true_divide(total, count, dtype=x.dtype))


@register_kernel("max", CPU, dtypes=NUMERIC_DTYPES)
def max_(x, dim=None, keepdim=False):
    return np.asarray(np.max(x, axis=_axis(dim), keepdims=keepdim))


@register_kernel("min", CPU, dtypes=NUMERIC_DTYPES)
def min_(x, dim=None, keepdim=False):
    return np.asarray(np.min(x, axis=_axis(dim), keepdims=keepdim))


@register_kernel("logsumexp", CPU, dtypes=FLOAT_DTYPES)
def logsumexp(x, dim=None, keepdim=False):
    axis = _axis(dim)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    if not keepdim:
        out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return np.asarray(out, dtype=x.dtype)
