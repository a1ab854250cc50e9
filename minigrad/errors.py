"""minigrad's exception classes: PyTorch's classes, still catchable as minigrad's older ``ValueError``.

PyTorch raises ``RuntimeError`` for a shape or dtype an op cannot take
("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)") and ``IndexError``
for an index or dimension out of range; a student's ``except RuntimeError`` or
``except IndexError`` must catch minigrad's too. Earlier minigrad raised
``ValueError`` for both, so each class here derives from ``ValueError`` as
well: a program written against that keeps working.

Example:
    >>> import minigrad as mg
    >>> try:
    ...     mg.ones(2, 3) @ mg.ones(4, 5)
    ... except RuntimeError as e:
    ...     print(e)
    mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)
"""

from __future__ import annotations

__all__ = ["ShapeError", "OutOfRangeError", "IndexTypeError"]


class ShapeError(RuntimeError, ValueError):
    """A shape, dtype or argument value an op cannot take: PyTorch's ``RuntimeError`` (and a ``ValueError``)."""


class OutOfRangeError(IndexError, ValueError):
    """An index or dimension out of range: PyTorch's ``IndexError`` (and a ``ValueError``)."""


class IndexTypeError(IndexError, TypeError):
    """An index of the wrong type (a float tensor as indices): PyTorch's ``IndexError`` (and a ``TypeError``,
    which minigrad raised before)."""
