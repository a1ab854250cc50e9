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

from typing import Any, Callable

import numpy as np

from ..dtypes import DType
from ..devices import device_of_array
from ..kernels.backends import move_array
from ..tensor import Tensor


def constant(arr: np.ndarray, like: Tensor, dtype: DType | None = None) -> Tensor:
    """``arr`` as a constant tensor (no graph) on ``like``'s device, of ``dtype`` (``like``'s by default).

    Used by composites for an operand computed on the host; ``arr`` is cast to
    ``dtype`` where it differs (no copy where it does not).

    Args:
        arr: the host (NumPy) values, or an array already on ``like``'s device (used as it is).
        like: the tensor whose device (and by default dtype) the constant takes.
        dtype: the constant's dtype; ``like.dtype`` when ``None``.

    Returns:
        A tensor with ``requires_grad=False``, not announced to a recorder.
    """
    dt = like.dtype if dtype is None else dtype
    if like.device != "cpu" and device_of_array(arr) == like.device:  # made on the device already (draws)
        return Tensor._make(arr if arr.dtype == dt.np else arr.astype(dt.np), dt, like.device)
    data = np.asarray(arr, dtype=dt.np)
    return Tensor._make(data if like.device == "cpu" else move_array(data, "cpu", like.device), dt, like.device)


# NOTE [ A mask made from shapes alone is copied to the device once ]
#     Some constants depend only on numbers a program passes again at every step: the causal mask of
#     ``scaled_dot_product_attention(..., is_causal=True)`` on (L, S), the triangle of ``tril``/``triu``
#     on (rows, cols, diagonal). Built on the host, each would be a host -> device copy, and a sync,
#     at every step on the GPU, where PyTorch's CUDA kernels compute them from indices. So on a device
#     other than the CPU such a constant is copied once per key and device and its array reused (up to
#     ``_KEPT_MAX`` arrays of at most ``_KEPT_BYTES`` each; a larger one is copied at each call, a visible
#     ``device.copy``). The array is only read: ``kept_constant`` serves operands of a composite's ops
#     (the condition of a ``where``), never a tensor handed to the program.
_KEPT: dict[tuple[Any, ...], Any] = {}
_KEPT_MAX, _KEPT_BYTES = 64, 1 << 20


def kept_constant(key: tuple[Any, ...], make: Callable[[], np.ndarray], like: Tensor, dtype: DType) -> Tensor:
    """``constant(make(), like, dtype)``, kept on ``like``'s device by ``key`` (NOTE [ A mask made from
    shapes alone is copied to the device once ]); ``make`` is called only when the array is not kept."""
    if like.device == "cpu":
        return constant(make(), like, dtype)
    full_key = (key, like.device, dtype.name)
    data = _KEPT.get(full_key)
    if data is None:
        host = np.asarray(make(), dtype=dtype.np)
        data = move_array(host, "cpu", like.device)
        if host.nbytes <= _KEPT_BYTES:
            if len(_KEPT) >= _KEPT_MAX:
                del _KEPT[next(iter(_KEPT))]  # the oldest
            _KEPT[full_key] = data
    return Tensor._make(data, dtype, like.device)
