"""The elementwise terms of two losses and their reduction, for the CPU's and the GPU's kernels.

Each function takes the array module ``xp`` (NumPy or CuPy) and arrays of one floating dtype, and
writes PyTorch's formula (``aten/src/ATen/native/Loss.cpp``) with that module's functions, so both
backends compute the same steps: the CPU kernels in ``ops/loss.py`` pass NumPy, the GPU kernels in
``kernels/gpu/library.py`` pass CuPy (each step one CuPy kernel on the device, nothing read back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["log_sigmoid_terms", "soft_margin_terms", "bce_with_logits_terms", "reduce_terms"]


def log_sigmoid_terms(xp: Any, x: Any) -> Any:
    """``min(x, 0) - log1p(exp(-|x|))``: no ``exp`` of a positive number, so nothing overflows."""
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def soft_margin_terms(xp: Any, x: Any, t: Any) -> Any:
    """PyTorch's ``log1p(exp(-t x))`` (infinite where ``-t x`` overflows ``exp``, as PyTorch's)."""
    with np.errstate(over="ignore"):
        return xp.log1p(xp.exp(-t * x))


def bce_with_logits_terms(xp: Any, x: Any, t: Any, weight: Any = None, pos_weight: Any = None) -> Any:
    """PyTorch's ``(1 - t) x - (1 + (p - 1) t) log_sigmoid(x)``, times ``weight`` (``p``: ``pos_weight``)."""
    log_sig = log_sigmoid_terms(xp, x)
    if pos_weight is not None:
        log_sig = ((pos_weight - 1) * t + 1) * log_sig
    loss = (1 - t) * x - log_sig
    return loss if weight is None else loss * weight


def reduce_terms(xp: Any, terms: Any, reduction: str, dtype: Any) -> Any:
    """``terms`` themselves (``"none"``), their sum, or their mean (NaN for no terms, without a warning), in
    ``dtype``."""
    if reduction == "none":  # (not ascontiguousarray: it makes a 0-d array 1-d)
        terms = terms.astype(dtype, copy=False)
        return terms if terms.flags.c_contiguous else terms.copy()
    total = terms.sum(dtype=np.float32 if terms.dtype == np.float16 else None)  # a half's sum in float, as PyTorch
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / terms.size if terms.size else total * np.nan
    return xp.asarray(total, dtype=dtype)
