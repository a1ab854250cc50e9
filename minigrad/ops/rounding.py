"""Rounding: ``floor``, ``ceil``, ``trunc``, ``round`` - each an op with its InferMeta, CPU kernel and backward here.

Their derivative is 0 wherever it exists (a step function), as PyTorch
defines it; integer tensors are returned unchanged.

Example:
    >>> import minigrad as mg
    >>> mg.floor(mg.tensor([-1.5, 2.5])).tolist(), mg.trunc(mg.tensor([-1.5, 2.5])).tolist()
    ([-2.0, 2.0], [-1.0, 2.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["floor", "ceil", "trunc", "round"]


def _rounding(name: str, fn: Any, doc: str, gpu: str) -> Any:
    def kernel(x: np.ndarray) -> np.ndarray:
        return x.copy() if x.dtype.kind in "biu" else fn(x)

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=NUMERIC_DTYPES)(kernel)
    op = defop(name, inputs=("x",), infer_meta=im.same, doc=doc, gpu=("unary", gpu))
    op.def_backward(lambda ctx, g: (ctx.ops.mul(g, 0),))  # a step function: derivative 0 (where it exists)
    return op


floor = _rounding("floor", np.floor, "largest integer <= x (derivative 0)", "{floor}(a)")
ceil = _rounding("ceil", np.ceil, "smallest integer >= x (derivative 0)", "{ceil}(a)")
trunc = _rounding("trunc", np.trunc, "x rounded toward zero (derivative 0)", "{trunc}(a)")
round = _rounding("round", np.round, "x rounded to the nearest integer, halves to even (derivative 0)", "{rint}(a)")
