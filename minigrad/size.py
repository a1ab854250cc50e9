"""``minigrad.Size``: the type of ``x.shape`` and ``x.size()``, as ``torch.Size``.

A tuple of ints (so ``x.shape == (2, 3)``, unpacking and indexing work as on any
tuple) that prints as ``minigrad.Size([2, 3])``, keeps its type when sliced,
added to or repeated, and counts its elements with ``numel()``.

Example:
    >>> import minigrad as mg
    >>> s = mg.zeros(4163, 8).shape
    >>> s
    minigrad.Size([4163, 8])
    >>> s.numel(), s[1:]
    (33304, minigrad.Size([8]))
"""

from __future__ import annotations

import math
import operator
from typing import Any, Iterable, SupportsIndex

__all__ = ["Size"]

_getitem = tuple.__getitem__
_new = tuple.__new__


class Size(tuple):
    """A tensor's shape: a tuple of ints with PyTorch's ``torch.Size`` behaviour."""

    __slots__ = ()

    def __new__(cls, sizes: Iterable[Any] = ()) -> "Size":
        items = tuple(sizes)
        for i, d in enumerate(items):
            if type(d) is not int:
                try:
                    items = items[:i] + (operator.index(d),) + items[i + 1:]
                except TypeError:
                    raise TypeError(
                        f"minigrad.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')"
                    ) from None
        return tuple.__new__(cls, items)

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds (1 for ``Size([])``)."""
        return math.prod(self)

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, index: Any) -> Any:
        out = _getitem(self, index)
        return _new(Size, out) if type(index) is slice else out

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: SupportsIndex) -> "Size":
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self) -> Any:
        return (Size, (tuple(self),))
