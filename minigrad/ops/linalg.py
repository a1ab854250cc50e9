"""matmul, with the 1-D / 2-D / batched broadcasting rules of ``MatmulInferMeta`` (seed 004)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ._checks import check_bool
from .registry import Attr, defop

__all__ = ["matmul"]


CPU = Backend.CPU


@register_kernel("matmul", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/matmul")
def matmul_cpu(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.asarray(np.matmul(x, y))


matmul = defop(
    "matmul",
    inputs=("x", "y"),
    attrs=(Attr("transpose_x", False, check_bool), Attr("transpose_y", False, check_bool)),
    infer_meta=im.matmul,
    save=("x", "y"),
    doc="matrix product of x and y (optionally transposing either)",
    methods=("matmul",), operators=("__matmul__", "__rmatmul__"), amp="allow",
)


@matmul.def_backward
def _matmul_backward(ctx, g):
    """``matmul_grad``: dX = G @ Y^T, dY = X^T @ G on the 2-D-promoted operands,
    transposes undone, broadcast batch dims summed away, 1-D dims squeezed."""
    x, y = ctx.saved()
    ops = ctx.ops
    tx, ty = ctx.attrs["transpose_x"], ctx.attrs["transpose_y"]
    x2 = ops.unsqueeze(x, 0) if x.ndim == 1 else x
    y2 = ops.unsqueeze(y, -1) if y.ndim == 1 else y
    g2 = g
    if x.ndim == 1:
        g2 = ops.unsqueeze(g2, -2 if y.ndim > 1 else 0)
    if y.ndim == 1:
        g2 = ops.unsqueeze(g2, -1)
    gx = gy = None
    if ctx.needs(0):
        # d(X_eff) = G @ Y_eff^T; if X was transposed, d(X) = d(X_eff)^T = Y_eff @ G^T.
        gx2 = ops.matmul(y2, g2, transpose_x=ty, transpose_y=True) if tx else ops.matmul(g2, y2, transpose_y=not ty)
        gx = ops.sum_to(gx2, x2.shape)
        if x.ndim == 1:
            gx = ops.reshape(gx, x.shape)
    if ctx.needs(1):
        gy2 = ops.matmul(g2, x2, transpose_x=True, transpose_y=tx) if ty else ops.matmul(x2, g2, transpose_x=not tx)
        gy = ops.sum_to(gy2, y2.shape)
        if y.ndim == 1:
            gy = ops.reshape(gy, y.shape)
    return gx, gy
