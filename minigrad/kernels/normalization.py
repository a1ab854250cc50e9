"""The layer-norm kernel body, written once for NumPy and CuPy (``xp``): the CPU kernel
(``ops/normalization.py``) and the GPU kernel (``kernels/gpu/nn.py``) both call it.

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

__all__ = ["layer_norm_arrays"]


def layer_norm_arrays(xp: Any, x: Any, weight: Any, bias: Any, normalized_ndim: int, eps: float) -> Any:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last ``normalized_ndim`` dims.

    The biased variance, as PyTorch; float16 is computed in float32 and rounded
    once (PyTorch's opmath). The steps and their order are those of the
    composite it replaced (mean, centre, mean of squares, sqrt, divide, scale,
    shift), in three temporaries instead of nine.
    """
    work = x.astype(xp.float32) if x.dtype == xp.float16 else x
    dims = tuple(range(x.ndim - normalized_ndim, x.ndim))
    count = math.prod(x.shape[d] for d in dims)
    out = work - xp.sum(work, axis=dims, keepdims=True) / work.dtype.type(count)
    std = xp.sum(out * out, axis=dims, keepdims=True) / work.dtype.type(count)
    std += work.dtype.type(eps)
    xp.sqrt(std, out=std)
    out /= std
    out *= weight
    out += bias
    return out.astype(x.dtype, copy=False)
