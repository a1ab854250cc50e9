"""Constant tensors that composites build from host arrays (a mask, a noise draw, interpolation weights).

A composite sometimes computes an operand on the host with NumPy - a dropout
mask, one-hot rows, the weights of a linear interpolation, the indices of a
max-pooling window - and then uses it in a registered op (``mul``, ``where``,
``add``). Such an operand is a constant: it has no ``requires_grad``, no node,
and, unlike ``Tensor._scalar``'s operands, no ``tensor.create`` event of its
own. ``constant`` puts it on the device of the tensor it works with, so the op
that uses it sees two operands on one device.

Example:
    >>> import numpy as np
    >>> import minigrad as mg
    >>> from minigrad.ops._constants import constant
    >>> x = mg.ones(2)
    >>> mg.mul(x, constant(np.array([0.0, 2.0]), x)).tolist()
    [0.0, 2.0]
"""

from __future__ import annotations

import numpy as np

from ..dtypes import DType
from ..kernels.backends import move_array
from ..tensor import Tensor


def constant(arr: np.ndarray, like: Tensor, dtype: DType | None = None) -> Tensor:
    """``arr`` as a constant tensor (no graph) on ``like``'s device, of ``dtype`` (``like``'s by default).

    Used by composites for an operand computed on the host; ``arr`` is cast to
    ``dtype`` where it differs (no copy where it does not).

    Args:
        arr: the host (NumPy) values.
        like: the tensor whose device (and by default dtype) the constant takes.
        dtype: the constant's dtype; ``like.dtype`` when ``None``.

    Returns:
        A tensor with ``requires_grad=False``, not announced to a recorder.
    """
    dt = like.dtype if dtype is None else dtype
    data = np.asarray(arr, dtype=dt.np)
    return Tensor._make(data if like.device == "cpu" else move_array(data, "cpu", like.device), dt, like.device)
