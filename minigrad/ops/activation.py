"""Activations, each defined in one place. ``softplus``: InferMeta, CPU kernel, OpDef and backward.

``softplus(x, beta=1, threshold=20) = log(1 + exp(beta * x)) / beta``, and
``x`` itself where ``beta * x > threshold`` (as ``torch.nn.functional.softplus``).
It is the op of lesson 1: its reference code sits in the marked regions
below, which ``minigrad lessons build`` turns into the student's holes.
Each piece is what one layer of the forward path (PaddlePaddle's eager forward path) calls:

- the **API layer** checks the arguments (the ``Attr`` checkers);
- the **kernel layer** selects ``softplus_cpu`` by KernelKey, then calls
  ``infer_softplus`` (InferMeta) before the kernel;
- the **dygraph layer** creates a ``SoftplusGradNode`` that saves ``x``;
  ``softplus_backward`` is its formula, written with minigrad ops so that
  ``create_graph=True`` can differentiate it again.

Example:
    >>> import minigrad as mg
    >>> round(mg.softplus(mg.tensor([0.0])).item(), 4)
    0.6931
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import Attr, defop

__all__ = ["softplus"]  # the public API; the pieces below are imported from this module by name


def _check_positive(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type(v).__name__}")
    if name == "beta" and v <= 0:
        raise ValueError(f"{op}(): argument 'beta' (position {pos}) must be positive, but got {v}")
    return float(v)


def infer_softplus(op: str, x: Any, beta: float = 1.0, threshold: float = 20.0) -> tuple[tuple[int, ...], Any]:
    """InferMeta of softplus: the output has ``x``'s shape and (floating) dtype.

    Raises:
        ValueError: ``x`` is not a floating-point array (the kernel layer casts
            integer inputs first, so this means a kernel-layer bug or a direct call).
    """
    # BEGIN LESSON 1 TASK 1.2: InferMeta
    if np.dtype(x.dtype).kind != "f":
        raise ValueError(f"{op}(): 'x' must have a floating-point dtype, but has {x.dtype}")
    return tuple(x.shape), x.dtype
    # END LESSON 1 TASK 1.2


@register_kernel("softplus", Backend.CPU, dtypes=FLOAT_DTYPES)
def softplus_cpu(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """The CPU kernel: ``log1p(exp(beta*x)) / beta``, stable for large ``|x|``, linear above ``threshold``."""
    # BEGIN LESSON 1 TASK 1.1: the forward kernel
    bx = x * beta
    # log(1 + e^t) = max(t, 0) + log1p(e^-|t|): exp of a non-positive number never overflows.
    soft = (np.maximum(bx, 0) + np.log1p(np.exp(-np.abs(bx)))) / beta
    return np.where(bx > threshold, x, soft).astype(x.dtype, copy=False)
    # END LESSON 1 TASK 1.1


softplus = defop(
    "softplus",
    inputs=("x",),
    attrs=(Attr("beta", 1.0, _check_positive), Attr("threshold", 20.0, _check_positive)),
    infer_meta=infer_softplus,
    save=("x",),
    promote="float",
    transform_dtype=True,
    doc="log(1 + exp(beta * x)) / beta; x where beta * x > threshold",
)


@softplus.def_backward
def softplus_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d softplus / dx = sigmoid(beta * x) (1 in the linear region), times the incoming gradient."""
    # BEGIN LESSON 1 TASK 1.3: the backward formula
    (x,) = ctx.saved()
    beta, threshold = ctx.attrs["beta"], ctx.attrs["threshold"]
    ops = ctx.ops
    bx = ops.mul(x, beta)
    slope = ops.where(ops.gt(bx, threshold), 1.0, ops.sigmoid(bx))
    return (ops.mul(grad, slope),)
    # END LESSON 1 TASK 1.3
