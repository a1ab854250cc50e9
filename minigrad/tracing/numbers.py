"""Numbers as people read them in every viewer: ``2``, ``0.3333``, ``nan``, ``inf``, ``-inf``.

Previews in a trace are plain JSON numbers, and non-finite ones (``NaN``,
``Infinity``) are valid data: a NaN gradient is exactly what a student opens
the viewer to find. Every viewer formats numbers through ``fmt_number`` so
that ``int(nan)`` (``ValueError``) or ``int(inf)`` (``OverflowError``) can never
crash a log, an SVG label or a TUI pane.

Example:
    >>> [fmt_number(v) for v in (2.0, 1 / 3, float("nan"), float("-inf"), True, 7)]
    ['2', '0.3333', 'nan', '-inf', 'True', '7']
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["fmt_number"]


def fmt_number(x: Any) -> str:
    """A short text for one preview element: integral floats without ``.0``, others with 4 digits."""
    if isinstance(x, bool) or not isinstance(x, float):
        return str(x)
    if not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.4g}"
