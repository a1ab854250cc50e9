"""The layer-norm kernel bodies, forward and backward, written for any array module ``xp``: the CPU
kernels (``ops/normalization.py``) call them with NumPy. The GPU runs the same steps in one launch a
row (``cuda_src.layer_norm_source``, NOTE [ Layer norm in one launch a row ]); these would be a dozen
launches there.

Example:
    >>> import numpy as np
    >>> from minigrad.kernels.normalization import layer_norm_arrays
    >>> x = np.array([[1.0, 2.0, 3.0]])
    >>> layer_norm_arrays(np, x, np.ones(3), np.zeros(3), 1, 0.0).round(4).tolist()
    [[-1.2247, 0.0, 1.2247]]
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["layer_norm_arrays", "layer_norm_backward_arrays", "row_means", "batch_norm_backward_arrays"]


def row_means(xp: Any, a: Any, normalized_ndim: int) -> Any:
    """The mean of ``a`` over its last ``normalized_ndim`` dims (kept as 1s), as a matrix-vector product.

    A layer norm's rows are short (a transformer's 64 to 1024 features) and many;
    NumPy reduces each row on its own, and a product with a vector of ones
    (BLAS) sums them all together: 4 us instead of 16 for (512, 64).
    """
    count = math.prod(a.shape[a.ndim - normalized_ndim:])
    rows = a.reshape(a.size // count if count else math.prod(a.shape[:a.ndim - normalized_ndim]), count)
    sums = rows @ xp.ones(count, dtype=a.dtype)
    return sums.reshape(a.shape[:a.ndim - normalized_ndim] + (1,) * normalized_ndim) / a.dtype.type(count)


def _centred_and_std(xp: Any, x: Any, normalized_ndim: int, eps: float) -> tuple[Any, Any]:
    """``x - mean`` (a new array) and ``sqrt(var + eps)`` over the last ``normalized_ndim`` dims: the
    statistics both kernels compute, in the same steps."""
    centred = x - row_means(xp, x, normalized_ndim)
    std = row_means(xp, centred * centred, normalized_ndim)
    std += std.dtype.type(eps)
    xp.sqrt(std, out=std)
    return centred, std


def layer_norm_arrays(xp: Any, x: Any, weight: Any, bias: Any, normalized_ndim: int, eps: float) -> Any:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last ``normalized_ndim`` dims.

    The biased variance, as PyTorch; float16 is computed in float32 and rounded
    once (PyTorch's opmath). The steps and their order are those of the
    composite it replaced (mean, centre, mean of squares, sqrt, divide, scale,
    shift), in three temporaries instead of nine, the means by ``row_means``.
    """
    work = x.astype(xp.float32) if x.dtype == xp.float16 else x
    out, std = _centred_and_std(xp, work, normalized_ndim, eps)
    out /= std
    out *= weight
    out += bias
    return out.astype(x.dtype, copy=False)


def layer_norm_backward_arrays(xp: Any, grad: Any, x: Any, weight: Any, normalized_ndim: int, eps: float,
                               wrt: str) -> Any:
    """One gradient of ``layer_norm`` (PyTorch's ``native_layer_norm_backward``, one output at a time).

    With ``xhat = (x - mean) * rstd`` and means over the normalized dims:

    - ``wrt="input"``: ``rstd * (d - mean(d) - xhat * mean(d * xhat))``, ``d = grad * weight``;
    - ``wrt="weight"``: ``sum(grad * xhat)`` over the leading dims (``weight``'s shape).

    The statistics are computed again from ``x``, as the forward kernel computes
    them; float16 in float32, rounded once.
    """
    work = xp.dtype(xp.float32) if x.dtype == xp.float16 else x.dtype
    g = grad.astype(work, copy=False)
    xhat, rstd = _centred_and_std(xp, x.astype(work, copy=False), normalized_ndim, eps)
    xp.divide(1, rstd, out=rstd)
    xhat *= rstd
    if wrt == "weight":
        lead = x.ndim - normalized_ndim
        out = (g * xhat).reshape(math.prod(x.shape[:lead]), math.prod(x.shape[lead:])).sum(axis=0) if lead else g * xhat
        return out.reshape(x.shape[lead:]).astype(grad.dtype, copy=False)
    d = g * weight.astype(work, copy=False)
    out = d - row_means(xp, d, normalized_ndim)
    d *= xhat
    xhat *= row_means(xp, d, normalized_ndim)
    out -= xhat
    out *= rstd
    return out.astype(grad.dtype, copy=False)


def batch_norm_backward_arrays(xp: Any, grad: Any, x: Any, weight: Any, running_mean: Any, running_var: Any,
                               training: bool, eps: float, wrt: str) -> Any:
    """One gradient of ``batch_norm`` (PyTorch's ``native_batch_norm_backward``, one output at a time), the
    means over every dim but the channels' (dim 1), ``xhat = (x - mean) * invstd``:

    - ``wrt="input"``: training, ``weight * invstd * (g - mean(g) - xhat * mean(g * xhat))`` (the batch's
      statistics depend on ``x``); evaluating, ``g * weight * invstd`` of the running statistics;
    - ``wrt="weight"``: ``sum(g * xhat)`` per channel.

    The statistics are computed again from ``x`` as the forward kernel computes them (biased variance);
    float16 and bfloat16 in float32, rounded once.
    """
    dims, view = (0,) + tuple(range(2, x.ndim)), (1, x.shape[1]) + (1,) * (x.ndim - 2)
    work = xp.dtype(xp.float32) if x.itemsize < 4 else x.dtype
    g = grad.astype(work, copy=False)
    count = max(x.size // max(x.shape[1], 1), 1)
    if training:
        xw = x.astype(work, copy=False)
        xhat = xw - xp.sum(xw, axis=dims, keepdims=True) / count
        var = xp.sum(xhat * xhat, axis=dims, keepdims=True) / count
    else:
        xhat = x.astype(work, copy=False) - running_mean.astype(work, copy=False).reshape(view)
        var = running_var.astype(work, copy=False).reshape(view)
    invstd = 1 / xp.sqrt(var + work.type(eps))
    xhat *= invstd
    if wrt == "weight":
        return xp.sum(g * xhat, axis=dims).astype(grad.dtype, copy=False)
    scale = weight.astype(work, copy=False).reshape(view) * invstd
    if not training:
        return (g * scale).astype(grad.dtype, copy=False)
    out = g - xp.sum(g, axis=dims, keepdims=True) / count
    out -= xhat * (xp.sum(g * xhat, axis=dims, keepdims=True) / count)
    out *= scale
    return out.astype(grad.dtype, copy=False)
