"""``log1p`` and ``expm1``, each defined in one place: InferMeta, CPU kernel, OpDef and backward.

Both are accurate near 0, where ``log(1 + x)`` and ``exp(x) - 1`` lose digits
to cancellation: ``log1p(1e-10)`` is ``1e-10``, ``log(1 + 1e-10)`` is not.

Example:
    >>> import minigrad as mg
    >>> mg.log1p(mg.tensor([1e-10], dtype=mg.float64)).item()
    1e-10
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["log1p", "expm1"]


@register_kernel("log1p", Backend.CPU, dtypes=FLOAT_DTYPES)
def log1p_cpu(x: np.ndarray) -> np.ndarray:
    """``log(1 + x)``, exact near 0."""
    return np.asarray(np.log1p(x))  # an array for a 0-d x too (NumPy gives a scalar)


@register_kernel("expm1", Backend.CPU, dtypes=FLOAT_DTYPES)
def expm1_cpu(x: np.ndarray) -> np.ndarray:
    """``exp(x) - 1``, exact near 0."""
    return np.asarray(np.expm1(x))  # an array for a 0-d x too (NumPy gives a scalar)


log1p = defop("log1p", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", doc="log(1 + x), accurate near 0",
              gpu=("unary", "{log1p}(a)"))


@log1p.def_backward
def _log1p_backward(ctx: Any, g: Any) -> tuple[Any]:
    """d log(1 + x) / dx = 1 / (1 + x)."""
    (x,) = ctx.saved()
    return (ctx.ops.div(g, ctx.ops.add(x, 1.0)),)


expm1 = defop("expm1", inputs=("x",), infer_meta=im.same, save=("out",), promote="float", doc="exp(x) - 1, accurate near 0",
              gpu=("unary", "{expm1}(a)"))


@expm1.def_backward
def _expm1_backward(ctx: Any, g: Any) -> tuple[Any]:
    """d (exp(x) - 1) / dx = exp(x) = out + 1."""
    (out,) = ctx.saved()
    return (ctx.ops.mul(g, ctx.ops.add(out, 1.0)),)
