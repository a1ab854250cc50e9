"""``mg.nn.Unflatten``, as PyTorch's ``torch/nn/modules/flatten.py`` (``Flatten`` is older, in ``nn/__init__.py``).

Example:
    >>> import minigrad as mg
    >>> mg.nn.Unflatten(1, (2, 5))(mg.ones(3, 10)).shape
    minigrad.Size([3, 2, 5])
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..tensor import Tensor
from .module import Module

__all__ = ["Unflatten"]


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (a ``reshape``; one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"Unflatten(): argument 'dim' must be int, but got {type(dim).__name__}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size):
            raise TypeError(f"Unflatten(): unflattened_size must be a tuple of ints, but found {unflattened_size!r}")
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        d = self.dim + input.ndim if self.dim < 0 else self.dim
        if not 0 <= d < input.ndim:
            raise IndexError(f"Unflatten: Dimension out of range (expected to be in range of "
                             f"[{-input.ndim}, {input.ndim - 1}], but got {self.dim})")
        shape = tuple(input.shape)
        return ops.reshape(input, shape[:d] + self.unflattened_size + shape[d + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
