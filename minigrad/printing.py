"""How a tensor prints: PyTorch's formatting rules (``torch/_tensor_str.py``), so printed tensors read the same.

``format_values(array)`` is the values part of ``repr(tensor)``:
``[1.5000, 2.0000]``, ``[1., 2.]``, ``[1.0000e-05, 1.0000e+03]``, and
``...`` past 1000 elements.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dtypes import is_floating_np

__all__ = ["format_values"]


_LINE_WIDTH = 80
_EDGE_ITEMS = 3
_THRESHOLD = 1000


class _Formatter:
    """One width and one style for every element: ``1.``, ``1.5000`` or ``1.0000e-05``."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = is_floating_np(values.dtype)
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not self.floating:
            self.width = max((len(str(v)) for v in values.reshape(-1).tolist()), default=1)
            return
        v = values.astype(np.float64).reshape(-1)
        nz = v[np.isfinite(v) & (v != 0)]
        if nz.size == 0:
            return
        lo, hi = np.abs(nz).min(), np.abs(nz).max()
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        fmt = "{:.4e}" if self.sci_mode else ("{:.0f}." if self.int_mode else "{:.4f}")
        self.width = max(len(fmt.format(x)) for x in nz.tolist())

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.4e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.4f}"
        return text.rjust(self.width)


def _summarized(arr: np.ndarray) -> np.ndarray:
    """The edge items of every dimension (what a summarized repr shows)."""
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * _EDGE_ITEMS:
        arr = np.concatenate([arr[:_EDGE_ITEMS], arr[-_EDGE_ITEMS:]])
    return np.stack([_summarized(a) for a in arr]) if arr.ndim > 1 else arr


def _format_nested(arr: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if arr.ndim == 0:
        return fmt.format(arr.item())
    n = arr.shape[0]
    cut = summarize and n > 2 * _EDGE_ITEMS
    rows = list(range(_EDGE_ITEMS)) + [-1] + list(range(n - _EDGE_ITEMS, n)) if cut else list(range(n))
    if arr.ndim == 1:
        items = [" ..." if i < 0 else fmt.format(arr[i].item()) for i in rows]
        per_line = max(1, (_LINE_WIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i < 0 else _format_nested(arr[i], fmt, indent + 1, summarize) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(arr: np.ndarray) -> str:
    """The values part of ``repr``, as PyTorch prints it (``[1.5000, 2.0000]``, ``[1., 2.]``)."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > _THRESHOLD
    fmt = _Formatter(_summarized(arr) if summarize else arr)
    return _format_nested(arr, fmt, len("tensor("), summarize)

