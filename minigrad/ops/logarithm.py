"""Logarithms to base 2 and 10: ``log2`` and ``log10``, each an op with its kernel and backward.

``log_b(x) = ln(x) / ln(b)``, so ``d log_b(x) / dx = 1 / (x ln b)``. Integer
inputs are computed in the default float dtype, as ``log``. (``ln`` itself is
the ``log`` op of ``ops/math.py``; ``log1p`` has a file of its own.)

Example:
    >>> import minigrad as mg
    >>> mg.log2(mg.tensor([1.0, 8.0])).tolist()
    [0.0, 3.0]
    >>> mg.tensor([100.0]).log10().tolist()
    [2.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["log2", "log10"]


@register_kernel("log2", Backend.CPU, dtypes=FLOAT_DTYPES)
def log2_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.log2`` (exact at powers of two)."""
    return np.asarray(np.log2(x))


@register_kernel("log10", Backend.CPU, dtypes=FLOAT_DTYPES)
def log10_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.log10`` (exact at powers of ten)."""
    return np.asarray(np.log10(x))


log2 = defop("log2", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("log2",), amp="deny",
             doc="logarithm to base 2")
log10 = defop("log10", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("log10",),
              amp="deny", doc="logarithm to base 10")


@log2.def_backward
def log2_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d log2(x) / dx = 1 / (x ln 2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.mul(x, math.log(2.0))),)


@log10.def_backward
def log10_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d log10(x) / dx = 1 / (x ln 10)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.mul(x, math.log(10.0))),)
