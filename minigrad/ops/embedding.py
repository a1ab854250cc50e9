"""Embedding lookups and one-hot encoding (``torch.nn.functional.embedding``, ``one_hot``). Composite.

``embedding`` picks rows of a weight matrix by integer indices: a ``getitem``,
whose backward scatter-adds each row's gradient back into the picked row (a
row picked twice gets both gradients). ``one_hot`` builds a constant (it has
no gradient: its input is integers).

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.one_hot(mg.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    >>> F.embedding(mg.tensor([1]), mg.eye(3)).tolist()
    [[0.0, 1.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from ..errors import OutOfRangeError, ShapeError
from .. import dtypes as _dt
from ..devices import check_range, mixed_devices_error
from ..kernels.backends import to_numpy
from ..tensor import Tensor
from ._constants import constant
from .math import where

__all__: list[str] = []  # F only (torch.nn.functional.embedding / one_hot)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices ``(...)`` to one-hot rows ``(..., num_classes)`` of int64 (``num_classes=-1``: max + 1).

    Composite (a constant, no graph).
    """
    if not isinstance(tensor, Tensor) or tensor.dtype not in (_dt.int64, _dt.int32):
        raise TypeError("one_hot(): argument 'tensor' must be an integer (int64) Tensor of class indices")
    idx = to_numpy(tensor._data).astype(np.int64)
    n = int(idx.max()) + 1 if num_classes == -1 and idx.size else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"one_hot(): class values must be in [0, {n - 1}], but got {idx.min()}..{idx.max()}")
    return constant(np.eye(n, dtype=np.int64)[idx], tensor, _dt.int64)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None) -> Tensor:
    """Rows of ``weight`` picked by the integer ``input`` (``weight[input]``); the backward scatter-adds
    into the picked rows. Rows at ``padding_idx`` get no gradient, as in PyTorch.
    Composite (``getitem``, ``where``).
    """
    if not isinstance(input, Tensor) or input.dtype.is_floating:
        raise TypeError("embedding(): argument 'input' must be an integer Tensor of indices")
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ShapeError(f"embedding(): 'weight' must be a 2-D Tensor (num_embeddings, embedding_dim), "
                         f"but got {tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    if input._device != weight._device:  # PyTorch's index_select refuses indices on another device
        raise mixed_devices_error(weight._device, input._device, "index in method wrapper_CUDA__index_select")
    # Checked before the op: a negative index would otherwise wrap around (weight[-1]), where PyTorch refuses.
    # On the GPU the check runs on the device and fails at the next sync (devices.check_range).
    rows = weight.shape[0]
    check_range(input._data, input._device, 0, rows, lambda bad, idx: OutOfRangeError(
        f"index out of range in self (embedding(): indices must be in [0, {rows - 1}], but got {idx.min()}..{idx.max()})"))
    out = weight[input]
    if padding_idx is not None:
        keep = to_numpy(input._data) != padding_idx
        mask = constant(keep[..., None], weight, _dt.bool_)
        out = where(mask, out, out.detach())
    return out
