"""Which elements are NaN or infinite: ``isnan``, ``isinf``, ``isfinite``, ``isposinf``, ``isneginf``, and which
carry a minus sign (``signbit``, true for ``-0.0`` too), and ``copysign`` (ops). (``nan_to_num``, which
replaces them, is in ``ops/pointwise.py``.)

Each is an op with a bool result and no gradient (it compares values). Integer
and bool tensors hold no NaN or infinity: ``isnan``/``isinf`` are all False
there and ``isfinite`` all True, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> mg.isnan(mg.tensor([1.0, float("nan")])).tolist()
    [False, True]
    >>> mg.tensor([1.0, float("inf")]).isfinite().tolist()
    [True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, is_floating_np
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "copysign"]


def _classify(ufunc: Any, name: str, for_ints: bool) -> Any:
    def kernel(x: np.ndarray) -> np.ndarray:
        if not is_floating_np(x.dtype):  # integers and bools: never NaN or infinite
            return np.full(x.shape, for_ints, dtype=bool)
        return np.asarray(ufunc(x))

    kernel.__name__ = f"{name}_cpu"
    kernel.__doc__ = f"``numpy.{ufunc.__name__}``; {for_ints} everywhere for integer and bool tensors."
    return kernel


def _define(name: str, ufunc: Any, for_ints: bool, doc: str, gpu: str, out: bool = True) -> Any:
    register_kernel(name, Backend.CPU, dtypes=ALL_DTYPES)(_classify(ufunc, name, for_ints))
    return defop(name, inputs=("x",), infer_meta=im.to_bool, differentiable=False, methods=(name,), doc=doc, out=out,
                 gpu=("test", gpu))


# PyTorch's isnan, isinf and isfinite take no out= (isposinf and isneginf do); on the GPU each is a test of
# ``a`` in the float kernels (``(a - a)`` is NaN exactly for an infinity or a NaN)
isnan = _define("isnan", np.isnan, False, "True where x is NaN", "a != a", out=False)
isinf = _define("isinf", np.isinf, False, "True where x is +inf or -inf", "mg_isinf(a)", out=False)
isfinite = _define("isfinite", np.isfinite, True, "True where x is neither NaN nor infinite", "(a - a) == (a - a)",
                   out=False)
isposinf = _define("isposinf", np.isposinf, False, "True where x is +inf", "a == mg_inf(a)")
isneginf = _define("isneginf", np.isneginf, False, "True where x is -inf", "a == -mg_inf(a)")


@register_kernel("signbit", Backend.CPU, dtypes=ALL_DTYPES)
def signbit_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.signbit`` (bools have no sign)."""
    return np.zeros(x.shape, dtype=bool) if x.dtype.kind == "b" else np.asarray(np.signbit(x))


signbit = defop("signbit", inputs=("x",), infer_meta=im.to_bool, differentiable=False, methods=("signbit",),
                doc="True where x has its sign bit set (negative numbers, -0.0)", gpu=("test", "mg_signbit(a)"))


@register_kernel("copysign", Backend.CPU, dtypes=FLOAT_DTYPES)
def copysign_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``numpy.copysign``: ``|x|`` with the sign bit of ``y``."""
    return np.asarray(np.copysign(x, y))


copysign = defop("copysign", inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, promote="float",
                 save=("x", "out"), save_for={"x": (0,), "out": (0,)}, methods=("copysign",), doc="|x| with the sign of y (its sign bit: -0.0 is negative)",
                 gpu=("binary", "{copysign}(a, b)"))


@copysign.def_backward
def copysign_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dx = grad * out / x`` (the sign that was applied), 0 where ``x = 0``; ``y`` only lends its sign: 0."""
    x, out = ctx.saved()  # both None when only y needs a gradient (save_for)
    ops = ctx.ops
    gx = gy = None
    if ctx.needs(0):
        ratio = ops.where(ops.eq(x, 0.0), 0.0, ops.div(out, ops.where(ops.eq(x, 0.0), 1.0, x)))
        gx = ops.sum_to(ops.mul(grad, ratio), ctx.input_shape(0))
    if ctx.needs(1):
        gy = ops.fill(ops.sum_to(grad, ctx.input_shape(1)), 0)  # zeros, as ``zero_backward`` (ops/math.py)
    return gx, gy
