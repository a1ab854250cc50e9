"""Integer-style division: ``floor_divide`` (``//``), ``remainder`` (``%``) and ``fmod``, each an op;
``mg.div`` in PyTorch's form, whose ``rounding_mode`` picks true division (the ``div`` op) or a rounded
quotient (the ``div_rounded`` op, ``ops/rounding.py``); and ``reciprocal``, an op that saves its
result, which ``number / x`` uses as PyTorch does (``x.reciprocal() * number``).

``floor_divide(x, y) = floor(x / y)``; ``remainder(x, y) = x - floor(x / y) * y``
takes the sign of ``y`` (Python's ``%``); ``fmod(x, y) = x - trunc(x / y) * y``
takes the sign of ``x`` (C's ``fmod``). Integer inputs stay integer, and an
integer division by zero raises ``RuntimeError`` ("ZeroDivisionError"), as in
PyTorch; floats follow IEEE (``inf``, ``nan``).

Gradients: ``d remainder / dx = 1``, ``d remainder / dy = -floor_divide(x, y)``
(``fmod``: ``-trunc(x / y)``); the quotient ``floor_divide`` is piecewise
constant, so its gradient is 0, as minigrad's ``floor`` (PyTorch has no
derivative for it and raises in backward).

Example:
    >>> import minigrad as mg
    >>> (mg.tensor([7, -7]) // 2).tolist(), (mg.tensor([7, -7]) % 3).tolist()
    ([3, -4], [1, 2])
    >>> mg.fmod(mg.tensor([7, -7]), 3).tolist()
    [1, -1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError
from ..dtypes import FLOAT_DTYPES, NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from .math import div as _div_op
from .rounding import div_rounded as _div_rounded_op
from .registry import call_with_out, defop

__all__ = ["floor_divide", "remainder", "fmod", "reciprocal"]


def _integer_kernel(name: str, ufunc: np.ufunc) -> Any:
    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.kind in "iub" and y.dtype.kind in "iub" and np.any(y == 0):
            raise RuntimeError(f"{name}(): ZeroDivisionError (an integer divided by zero)")
        return np.asarray(ufunc(x, y))

    kernel.__name__ = f"{name}_cpu"
    kernel.__doc__ = f"``{ufunc.__name__}``; an integer division by zero raises, as in PyTorch."
    return kernel


def _remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PyTorch's remainder: ``fmod``, moved by ``y`` where its sign is not ``y``'s. A zero keeps ``fmod``'s sign,
    ``x``'s (``-4.0 % 2.0`` is ``-0.0``); NumPy's ``remainder`` gives it ``y``'s. Integers: NumPy's."""
    if x.dtype.kind != "f":
        return np.remainder(x, y)
    r = np.fmod(x, y)
    return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).astype(r.dtype, copy=False)


_remainder.__name__ = "remainder"
for _name, _ufunc in (("floor_divide", np.floor_divide), ("remainder", _remainder), ("fmod", np.fmod)):
    register_kernel(_name, Backend.CPU, dtypes=NUMERIC_DTYPES)(_integer_kernel(_name, _ufunc))


def _define(name: str, doc: str, gpu: str, methods: tuple[str, ...], operators: tuple[str, ...] = ()) -> Any:
    return defop(name, inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, transform_dtype=True,
                 save=("x", "y"), save_for={"x": (1,), "y": (1,)}, doc=doc, methods=methods, operators=operators,
                 gpu=("binary", gpu))


# (on the GPU, floats: PyTorch's CUDA formulas, ``cuda_src._HELPERS``)
floor_divide = _define("floor_divide", "floor(x / y)", "mg_floor_divide(a, b)", ("floor_divide",),
                       ("__floordiv__", "__rfloordiv__"))
remainder = _define("remainder", "x - floor(x / y) * y (the sign of y)", "mg_remainder(a, b)", ("remainder",),
                    ("__mod__", "__rmod__"))
fmod = _define("fmod", "x - trunc(x / y) * y (the sign of x)", "{fmod}(a, b)", ("fmod",))


@floor_divide.def_backward
def floor_divide_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """A step function: 0 for both inputs."""
    ops = ctx.ops
    zero = ops.mul(grad, 0.0)
    return (ops.sum_to(zero, ctx.input_shape(0)) if ctx.needs(0) else None,
            ops.sum_to(zero, ctx.input_shape(1)) if ctx.needs(1) else None)


@remainder.def_backward
def remainder_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dx = grad``, ``dy = -grad * floor_divide(x, y)`` (the exact floored quotient: ``floor(0.25 / 0.001)``
    would round up to 250, where ``0.25 = 249 * 0.001 + a remainder``)."""
    ops = ctx.ops
    gx = ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None
    gy = None
    if ctx.needs(1):
        x, y = ctx.saved()
        gy = ops.sum_to(ops.neg(ops.mul(grad, ops.floor_divide(x, y))), ctx.input_shape(1))
    return gx, gy


@fmod.def_backward
def fmod_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``dx = grad``, ``dy = -grad * trunc(x / y)``."""
    ops = ctx.ops
    gx = ops.sum_to(grad, ctx.input_shape(0)) if ctx.needs(0) else None
    gy = None
    if ctx.needs(1):
        x, y = ctx.saved()
        gy = ops.sum_to(ops.neg(ops.mul(grad, ops.trunc(ops.div(x, y)))), ctx.input_shape(1))
    return gx, gy


# -- mg.div with rounding_mode (exported by minigrad/__init__; the `/` operator is the div op) -----

def div(input: Any, other: Any, *, rounding_mode: str | None = None, out: Any = None) -> Tensor:
    """True division, or with ``rounding_mode`` ``"trunc"`` / ``"floor"`` the quotient rounded toward zero /
    down (integer inputs then give an exact integer result; the rounded quotient's derivative is 0).
    Composite (the ``div`` or ``div_rounded`` op).
    """
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("div", out, div, (input, other), {"rounding_mode": rounding_mode})
    if rounding_mode is None:
        return _div_op(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise ShapeError(f"div(): rounding_mode must be None, 'trunc' or 'floor', but got {rounding_mode!r}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("div(): at least one of 'input' and 'other' must be a Tensor")
    return _div_rounded_op(input, other, rounding_mode=rounding_mode)


div.name = "div"  # type: ignore[attr-defined]


@register_kernel("reciprocal", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/reciprocal")
def reciprocal_cpu(x: np.ndarray) -> np.ndarray:
    return np.asarray(np.reciprocal(x))


reciprocal = defop(
    "reciprocal",
    inputs=("input",),
    infer_meta=im.same,
    save=("out",),
    promote="float",
    doc="1 / input (integer tensors give float32); saves its result, as PyTorch's reciprocal",
    methods=("reciprocal",),
    gpu=("unary", "(ACC)1 / a"),
)


@reciprocal.def_backward
def _reciprocal_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's formula: ``-grad * (out * out)``, from the saved result (the input may change after)."""
    (out,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(ops.neg(grad), ops.mul(out, out)),)
