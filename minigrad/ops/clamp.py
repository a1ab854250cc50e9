"""Clamping: ``mg.clamp`` / ``clip`` / ``clamp_min`` / ``clamp_max`` (composite), and the ``clamp`` op with
tensor bounds (PyTorch's ``clamp.Tensor``): InferMeta, CPU kernel, OpDef and backward.

``mg.clamp(x, min, max)`` with *number* bounds is the ``clip`` op (``ops/math.py``);
with a tensor bound it is this op (``OPS["clamp"]``, bound here as ``_clamp_op``).
Both follow PyTorch's rules, which matter where a value is NaN or the bounds cross:

- the value is ``minimum(maximum(x, min), max)`` with NaN propagated from
  ``x`` *and* from the bounds (a NaN bound gives NaN, not ``x``);
- the gradient goes to ``x`` where ``min <= x <= max``, to ``min`` where
  ``x < min`` (and ``min < max`` when both are given), to ``max`` where
  ``x > max`` (or ``max < min``). A comparison with NaN is false, so at a
  NaN nobody gets a gradient; where ``x < min == max`` nobody does either,
  as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> mg.clamp(mg.tensor([0.0, 5.0, 1.0]), min=mg.tensor([1.0, 1.0, float("nan")])).tolist()
    [1.0, 5.0, nan]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError
from ..dtypes import NUMERIC_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .. import dtypes as _dt
from ..tensor import Tensor
from ._checks import check_tensor
from .math import _clip_meta, check_number_or_none, clip_cpu
from .math import clip as _clip_op
from .registry import Attr, Input, defop

__all__ = ["clamp", "clamp_min", "clamp_max"]  # the forms below; ``clip`` is exported by minigrad/__init__


def _check_bounds(op: str, name: str, pos: int, v: Any) -> str:
    if v not in ("min", "max", "both"):
        raise ShapeError(f"{op}(): argument '{name}' must be 'min', 'max' or 'both', but got {v!r}")
    return v


def infer_clamp(op: str, x: Any, min: Any = None, max: Any = None, bounds: str = "both") -> tuple[tuple[int, ...], Any]:
    """The broadcast shape of ``x`` and the bounds given; their (promoted) dtype."""
    shape = tuple(x.shape)
    for name, b in (("min", min), ("max", max)):
        if b is not None:
            shape = im.broadcast_shapes(op, shape, b.shape, ("input", name))
            if b.dtype != x.dtype:
                raise ShapeError(f"{op}(): 'input' has dtype {x.dtype} but '{name}' has dtype {b.dtype}")
    return shape, x.dtype


@register_kernel("clamp", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/clamp")
def clamp_cpu(x: np.ndarray, min: Any = None, max: Any = None, bounds: str = "both") -> np.ndarray:
    # np.maximum / np.minimum propagate NaN from either side, as PyTorch's clamp does.
    out = x if min is None else np.maximum(x, min)
    out = out if max is None else np.minimum(out, max)
    return np.array(np.broadcast_to(out, np.broadcast_shapes(*(np.shape(v) for v in (x, min, max) if v is not None))))


_clamp_op = defop(
    "clamp",
    inputs=("x", Input("min", optional=True), Input("max", optional=True)),
    # Which bounds were given (set by mg.clamp): the formula needs to know, since a
    # missing bound saves nothing and PyTorch's rule for one bound differs from two.
    attrs=(Attr("bounds", "both", _check_bounds),),
    infer_meta=infer_clamp, layout="elementwise",
    save=("x", "min", "max"),
    transform_dtype=True,
    doc="x clamped into [min, max] by tensor bounds (NaN from any side propagates)",
)


@_clamp_op.def_backward
def clamp_backward(ctx, grad):
    saved = ctx.saved()
    ops = ctx.ops
    x = saved[0]
    bounds = ctx.attrs["bounds"]
    lo = saved[1] if bounds in ("min", "both") else None
    hi = saved[-1] if bounds in ("max", "both") else None
    zero = ops.fill(grad, 0)
    if lo is not None and hi is not None:
        # "and" / "or" of bool tensors: mul / add (as in PyTorch).
        keep = ops.mul(ops.ge(x, lo), ops.le(x, hi))
        to_lo = ops.mul(ops.lt(x, lo), ops.lt(lo, hi))
        to_hi = ops.add(ops.gt(x, hi), ops.lt(hi, lo))
    elif lo is not None:
        keep, to_lo, to_hi = ops.ge(x, lo), ops.lt(x, lo), None
    else:
        keep, to_lo, to_hi = ops.le(x, hi), None, ops.gt(x, hi)
    gx = ops.sum_to(ops.where(keep, grad, zero), ctx.input_shape(0)) if ctx.needs(0) else None
    glo = ops.sum_to(ops.where(to_lo, grad, zero), ctx.input_shape(1)) if to_lo is not None and ctx.needs(1) else None
    ghi = ops.sum_to(ops.where(to_hi, grad, zero), ctx.input_shape(2)) if to_hi is not None and ctx.needs(2) else None
    return gx, glo, ghi


# -- PyTorch's forms: numbers or tensors as bounds -------------------------------------------------

def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp into ``[min, max]``; bounds are numbers (the ``clip`` op) or broadcastable Tensors.
    Composite (the ``clip`` or ``clamp`` op).

    With Tensor bounds the gradient goes to ``input`` where it lies inside and
    to the bound that was taken elsewhere, as in PyTorch.
    """
    check_tensor("clamp", "input", 0, input)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        return _clip_op(input, min, max)
    # A tensor bound: the clamp op (ops/clamp.py); a number beside it becomes a 0-d tensor.
    if min is None and max is None:
        raise ShapeError("clamp(): at least one of 'min' or 'max' must not be None")
    lo, hi = (b if b is None or isinstance(b, Tensor) else _scalar_like(input, b) for b in (min, max))
    bounds = "both" if lo is not None and hi is not None else ("min" if lo is not None else "max")
    return _clamp_op(input, lo, hi, bounds=bounds)


clamp.name = "clamp"  # type: ignore[attr-defined]


def _scalar_like(input: Tensor, value: Any) -> Tensor:
    """A number beside a tensor bound, as a 0-d tensor (a float with an integer input: float32, as PyTorch)."""
    dtype = input.dtype if input.dtype.is_floating or not isinstance(value, float) else _dt.float32
    return Tensor._scalar(value, dtype, input.device)


def clip(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """PyTorch's alias of ``clamp`` (numbers or tensors as bounds); ``OPS["clip"]`` is the op for numbers.

    Composite (``clamp``).
    """
    return clamp(input, min, max)


clip.name = "clip"  # type: ignore[attr-defined]


# -- clamp_min, clamp_max by a number: ops of their own, as PyTorch's (ClampMinBackward0, ClampMaxBackward0) ---


def _one_bound(name: str, bound: str, gpu: str) -> Any:
    def kernel(x: np.ndarray, **attrs: Any) -> np.ndarray:
        return clip_cpu(x, **attrs)

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=NUMERIC_DTYPES)(kernel)
    return defop(name, inputs=("x",), attrs=(Attr(bound, check=check_number_or_none),), infer_meta=_clip_meta,
                 save=("x",), doc=f"x clamped at its {bound}imum {bound} (NaN stays NaN)", gpu=("param", gpu))


_clamp_min_op = _one_bound("clamp_min", "min", "a != a ? a : (a < (ACC)p0 ? (ACC)p0 : a)")
_clamp_max_op = _one_bound("clamp_max", "max", "a != a ? a : (a > (ACC)p0 ? (ACC)p0 : a)")


@_clamp_min_op.def_backward
def _clamp_min_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``where(x >= min, grad, 0)`` (a NaN x takes none)."""
    (x,) = ctx.saved()
    return (ctx.ops.where(ctx.ops.ge(x, ctx.attrs["min"]), grad, 0.0),)


@_clamp_max_op.def_backward
def _clamp_max_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``where(x <= max, grad, 0)``."""
    (x,) = ctx.saved()
    return (ctx.ops.where(ctx.ops.le(x, ctx.attrs["max"]), grad, 0.0),)


# -- clamp_min, clamp_max by a tensor: PyTorch's Tensor overloads (ClampMinBackward1, ClampMaxBackward1), two inputs


def _tensor_bound(name: str, ufunc: Any, gpu_op: str) -> Any:
    def kernel(x: Any, bound: Any) -> Any:
        return np.asarray(ufunc(x, bound))  # NaN from either side propagates, as PyTorch's

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=NUMERIC_DTYPES)(kernel)
    return defop(name, inputs=("x", "bound"), infer_meta=im.broadcast, layout="elementwise", save=("x", "bound"),
                 transform_dtype=True, doc=f"x clamped by a tensor bound ({gpu_op} of the two, NaN propagating)")


_clamp_min_tensor = _tensor_bound("clamp_min_tensor", np.maximum, "maximum")
_clamp_max_tensor = _tensor_bound("clamp_max_tensor", np.minimum, "minimum")


def _one_tensor_bound_backward(ctx: Any, grad: Any, inside: str, outside: str) -> tuple[Any, Any]:
    """PyTorch's: the gradient to ``x`` where it is kept, to the bound where the bound was taken."""
    x, bound = ctx.saved()
    ops = ctx.ops
    zero = ops.fill(grad, 0)
    gx = ops.sum_to(ops.where(getattr(ops, inside)(x, bound), grad, zero), ctx.input_shape(0)) if ctx.needs(0) else None
    gb = ops.sum_to(ops.where(getattr(ops, outside)(x, bound), grad, zero), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gb


@_clamp_min_tensor.def_backward
def _clamp_min_tensor_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    return _one_tensor_bound_backward(ctx, grad, "ge", "lt")


@_clamp_max_tensor.def_backward
def _clamp_max_tensor_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    return _one_tensor_bound_backward(ctx, grad, "le", "gt")


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """``clamp(input, min=min)``: by a number the ``clamp_min`` op (``ClampMinBackward0``, as PyTorch's), by a
    tensor ``clamp_min_tensor`` (``ClampMinBackward1``, whose next functions are the input and the bound)."""
    if isinstance(input, Tensor) and min is not None:
        return _clamp_min_tensor(input, min) if isinstance(min, Tensor) else _clamp_min_op(input, min)
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """``clamp(input, max=max)``: by a number the ``clamp_max`` op (``ClampMaxBackward0``), by a tensor
    ``clamp_max_tensor`` (``ClampMaxBackward1``)."""
    if isinstance(input, Tensor) and max is not None:
        return _clamp_max_tensor(input, max) if isinstance(max, Tensor) else _clamp_max_op(input, max)
    return clamp(input, max=max)
