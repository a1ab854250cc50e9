"""Rounding: ``floor``, ``ceil``, ``trunc`` (also named ``fix``), ``round`` - each an op with its InferMeta, CPU kernel and backward here.

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

from ..errors import ShapeError
from ..dtypes import NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .math import zero_backward
from .registry import Attr, defop

__all__ = ["floor", "ceil", "trunc", "fix", "round"]


def _rounding(name: str, fn: Any, doc: str, gpu: str) -> Any:
    def kernel(x: np.ndarray) -> np.ndarray:
        # np.asarray: NumPy gives a 0-d input's result as an immutable scalar; a tensor needs an array.
        return x.copy() if x.dtype.kind in "biu" else np.asarray(fn(x))

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=NUMERIC_DTYPES)(kernel)
    op = defop(name, inputs=("x",), infer_meta=im.same, doc=doc, gpu=("unary", gpu))
    op.def_backward(zero_backward)  # a step function: derivative 0 where it exists
    return op


floor = _rounding("floor", np.floor, "largest integer <= x (derivative 0)", "{floor}(a)")
ceil = _rounding("ceil", np.ceil, "smallest integer >= x (derivative 0)", "{ceil}(a)")
trunc = _rounding("trunc", np.trunc, "x rounded toward zero (derivative 0)", "{trunc}(a)")
fix = trunc  # PyTorch's other name of trunc (``torch.fix``: the trunc op, ``TruncBackward0``)



# -- round, to a number of decimals ------------------------------------------------------

def _check_decimals(op: str, name: str, pos: int, v: Any) -> Any:
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
        raise TypeError(f"round() received an invalid combination of arguments - got decimals={type(v).__name__}, "
                        "expected int")
    return v


@register_kernel("round", Backend.CPU, dtypes=NUMERIC_DTYPES)
def round_cpu(x: np.ndarray, decimals: int | None = None) -> np.ndarray:
    """PyTorch's ``round`` (halves to even); with ``decimals`` (``round.decimals``): ``rint(x * 10**d) / 10**d``,
    or ``rint(x / 10**-d) * 10**-d`` for a negative ``d``, in the op's math type (float32 for a half), as
    PyTorch's kernel computes it - ``2.675`` in float32 rounds to ``2.68``."""
    if x.dtype.kind in "biu":
        if decimals is None:
            return x.copy()  # an integer is already round
        # PyTorch has no integer case for round.decimals (decimals=0 goes to its vectorised kernel)
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{im.scalar_type_name(x.dtype)}'")
    if not decimals:
        return np.asarray(np.rint(x))  # np.asarray: NumPy gives a 0-d result as an immutable scalar
    math = np.float64 if x.dtype == np.float64 else np.float32
    with np.errstate(over="ignore", invalid="ignore"):  # 10**40 is inf in float32, as in PyTorch's
        ten_pow = math(10.0 ** abs(decimals)) if abs(decimals) < 309 else math(np.inf)
        a = x.astype(math, copy=False)
        r = np.rint(a * ten_pow) / ten_pow if decimals > 0 else np.rint(a / ten_pow) * ten_pow
    return np.asarray(r.astype(x.dtype, copy=False))


round = defop(
    "round",
    inputs=("x",),
    attrs=(Attr("decimals", None, _check_decimals),),
    infer_meta=im.same,
    doc="x rounded to the nearest integer, halves to even, or to ``decimals`` decimal places (derivative 0)",
    gpu=("param", "mg_round_decimals(a, p0)"),
)
round.def_backward(zero_backward)  # a step function: derivative 0 where it exists


# -- division with a rounding mode ---------------------------------------------------

def _check_rounding_mode(op: str, name: str, pos: int, v: Any) -> str:
    if v not in ("trunc", "floor"):
        raise ShapeError(f"div(): rounding_mode must be None, 'trunc' or 'floor', but got {v!r}")
    return v


@register_kernel("div_rounded", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/div_rounded")
def div_rounded_cpu(x: np.ndarray, y: np.ndarray, rounding_mode: str = "trunc") -> np.ndarray:
    """``x / y`` rounded toward zero (``trunc``) or down (``floor``); exact on integers, as PyTorch."""
    if np.result_type(x, y).kind in "biu":
        if np.any(np.asarray(y) == 0):
            raise RuntimeError("div(): ZeroDivisionError in integer division with rounding_mode")
        q = np.floor_divide(x, y)
        if rounding_mode == "trunc":  # floor is one below trunc where the exact quotient is negative and inexact
            q = q + ((np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0)))
        return np.asarray(q)
    with np.errstate(divide="ignore", invalid="ignore"):
        # NumPy's floor_divide works from fmod, as PyTorch does: 0.25 // 0.001 is 249, not floor(250.0).
        return np.asarray(np.floor_divide(x, y) if rounding_mode == "floor" else np.trunc(np.divide(x, y)))


div_rounded = defop(
    "div_rounded",
    inputs=("x", "y"),
    attrs=(Attr("rounding_mode", "trunc", _check_rounding_mode),),
    infer_meta=im.broadcast,
    scalars=True,
    transform_dtype=True,
    doc="x / y rounded toward zero ('trunc') or down ('floor'): mg.div(x, y, rounding_mode=...); derivative 0",
)


@div_rounded.def_backward
def div_rounded_backward(ctx, grad):
    # A step function of both inputs: PyTorch defines its derivative as 0 everywhere, even
    # where the divisor is 0 (floor(div(x, y)) would pass 0 / 0 = NaN back through div).
    ops = ctx.ops
    zero = ops.fill(grad, 0)
    return (
        ops.sum_to(zero, ctx.input_shape(0)) if ctx.needs(0) else None,
        ops.sum_to(zero, ctx.input_shape(1)) if ctx.needs(1) else None,
    )
