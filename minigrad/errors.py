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

__all__ = ["ShapeError", "OutOfRangeError", "IndexTypeError", "LinAlgError", "GradientTypeError", "ArgumentTypeError"]


class ShapeError(RuntimeError, ValueError):
    """A shape, dtype or argument value an op cannot take: PyTorch's ``RuntimeError`` (and a ``ValueError``)."""


class OutOfRangeError(IndexError, ValueError):
    """An index or dimension out of range: PyTorch's ``IndexError`` (and a ``ValueError``)."""


class GradientTypeError(RuntimeError, TypeError):
    """A custom Function's backward returned something that is not a gradient (a number, a list): PyTorch's
    ``RuntimeError`` (and a ``TypeError``, which minigrad raised before)."""


class ArgumentTypeError(RuntimeError, TypeError):
    """An argument of a type or dtype an op refuses where PyTorch raises ``RuntimeError`` (a float index to
    ``embedding``, a pooling window of the wrong length); a ``TypeError`` too, which minigrad raised before."""


class LinAlgError(RuntimeError):
    """A matrix a linear-algebra function cannot take: singular for ``inv`` and ``solve``, not positive-definite
    for ``cholesky`` (PyTorch's ``torch.linalg.LinAlgError``, a ``RuntimeError``; ``mg.linalg.LinAlgError``)."""


class IndexTypeError(IndexError, TypeError):
    """An index of the wrong type (a float tensor as indices): PyTorch's ``IndexError`` (and a ``TypeError``,
    which minigrad raised before)."""


#: minigrad's own directory: frames there are not the program's
_PACKAGE = __file__[: -len("errors.py")]


def warn_at_user_line(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` naming the program's line: the first frame outside minigrad (a tensor method and
    a composite add frames of their own, so a fixed ``stacklevel`` would name minigrad's)."""
    import sys
    import warnings

    level, frame = 2, sys._getframe(1)  # (stacklevel 2: this function's caller)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)
