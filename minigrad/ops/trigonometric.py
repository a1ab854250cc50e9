"""Trigonometric and hyperbolic functions beyond ``sin``/``cos``/``tanh``: ``tan``, ``asin``, ``acos``,
``atan``, ``atan2``, ``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``, ``sinc``. Each is an op: a NumPy kernel and
its derivative, written with ``ctx.ops``:

====== =================================  ======= =================================
op     d op / dx                          op      d op / dx
====== =================================  ======= =================================
tan    1 + tan(x)^2                       sinh    cosh(x)
asin   1 / sqrt(1 - x^2)                  cosh    sinh(x)
acos   -1 / sqrt(1 - x^2)                 asinh   1 / sqrt(x^2 + 1)
atan   1 / (1 + x^2)                      acosh   1 / sqrt(x^2 - 1)
                                          atanh   1 / (1 - x^2)
====== =================================  ======= =================================

``acosh_``, ``asinh_`` and ``atanh_`` (``x.acosh_()``) are ops of their own, as in PyTorch: the same values
written in place, and a node (``AcoshBackward1``) whose backward raises ``NotImplementedError``, PyTorch
having no derivative for the in-place forms of the three.

``atan2(y, x)`` is the angle of the point ``(x, y)``: ``d/dy = x / (x^2 + y^2)``,
``d/dx = -y / (x^2 + y^2)`` (0 at the origin, as PyTorch). Integer inputs are computed in the default
float dtype; outside the domain (``asin(2)``) the result is NaN, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> round(mg.atan2(mg.tensor(1.0), mg.tensor(1.0)).item(), 4)
    0.7854
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

__all__ = ["sinc", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "atan2",
           "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh"]


def _unary(name: str, ufunc: np.ufunc, doc: str, save: str = "x") -> Any:
    def kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(ufunc(x))

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES)(kernel)
    return defop(name, inputs=("x",), infer_meta=im.same, save=(save,), promote="float", methods=(name,), doc=doc,
                 gpu=("unary", "{%s}(a)" % name))  # tanf, asinf... in float (cuda_src._F)


def _underivable_inplace_twin(op: Any) -> Any:
    """The op ``<op>_`` (``acosh_``): ``op``'s values, computed by ``op``'s kernel, for the in-place method to
    write back; its node (``AcoshBackward1``, ``node_names.py``) raises in backward, as PyTorch's, which has no
    derivative for the in-place forms of the inverse hyperbolic functions."""
    name = op.name + "_"
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(
        lambda x: np.asarray(_INVERSE_HYPERBOLIC[op.name](x)))
    twin = defop(name, inputs=("x",), infer_meta=im.same, promote="float", gpu=op.gpu_elementwise,
                 doc=f"{op.name}'s values, for the in-place x.{name}() (no derivative, as in PyTorch)")

    @twin.def_backward
    def _no_derivative(ctx: Any, grad: Any) -> tuple[Any]:
        raise NotImplementedError(f"the derivative for 'inplace version of {op.name}' is not implemented.")

    return twin


tan = _unary("tan", np.tan, "tangent", save="out")
asin = _unary("asin", np.arcsin, "inverse sine (NaN outside [-1, 1])")
acos = _unary("acos", np.arccos, "inverse cosine (NaN outside [-1, 1])")
atan = _unary("atan", np.arctan, "inverse tangent")
sinh = _unary("sinh", np.sinh, "hyperbolic sine")
cosh = _unary("cosh", np.cosh, "hyperbolic cosine")
asinh = _unary("asinh", np.arcsinh, "inverse hyperbolic sine")
acosh = _unary("acosh", np.arccosh, "inverse hyperbolic cosine (NaN below 1)")
atanh = _unary("atanh", np.arctanh, "inverse hyperbolic tangent (NaN outside [-1, 1])")
_INVERSE_HYPERBOLIC = {"acosh": np.arccosh, "asinh": np.arcsinh, "atanh": np.arctanh}
acosh_, asinh_, atanh_ = (_underivable_inplace_twin(op) for op in (acosh, asinh, atanh))


@tan.def_backward
def tan_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d tan / dx = 1 + tan(x)^2."""
    (out,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.add(ops.mul(out, out), 1.0)),)


@asin.def_backward
def asin_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d asin / dx = 1 / sqrt(1 - x^2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.sqrt(ops.sub(1.0, ops.mul(x, x)))),)


@acos.def_backward
def acos_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d acos / dx = -1 / sqrt(1 - x^2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.neg(ops.div(grad, ops.sqrt(ops.sub(1.0, ops.mul(x, x))))),)


@atan.def_backward
def atan_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d atan / dx = 1 / (1 + x^2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.add(ops.mul(x, x), 1.0)),)


@sinh.def_backward
def sinh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d sinh / dx = cosh(x)."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.cosh(x)),)


@cosh.def_backward
def cosh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d cosh / dx = sinh(x)."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.sinh(x)),)


@asinh.def_backward
def asinh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d asinh / dx = 1 / sqrt(x^2 + 1)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.sqrt(ops.add(ops.mul(x, x), 1.0))),)


@acosh.def_backward
def acosh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d acosh / dx = 1 / sqrt(x^2 - 1)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.sqrt(ops.sub(ops.mul(x, x), 1.0))),)


@atanh.def_backward
def atanh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d atanh / dx = 1 / (1 - x^2)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.div(grad, ops.sub(1.0, ops.mul(x, x))),)


@register_kernel("atan2", Backend.CPU, dtypes=FLOAT_DTYPES)
def atan2_cpu(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``numpy.arctan2``: the angle of ``(x, y)`` in ``[-pi, pi]``."""
    return np.asarray(np.arctan2(y, x))


atan2 = defop("atan2", inputs=("y", "x"), infer_meta=im.broadcast, scalars=True, promote="float", save=("y", "x"),
              methods=("atan2",), doc="the angle of the point (x, y), in [-pi, pi]",
              gpu=("binary", "{atan2}(a, b)"))


@atan2.def_backward
def atan2_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``d/dy = x / (x^2 + y^2)``, ``d/dx = -y / (x^2 + y^2)``, summed back over broadcast dims; 0 at the
    origin, where the angle has no derivative (PyTorch's choice)."""
    y, x = ctx.saved()
    ops = ctx.ops
    r2 = ops.add(ops.mul(x, x), ops.mul(y, y))
    at_origin = ops.eq(r2, 0.0)
    scale = ops.where(at_origin, 0.0, ops.div(grad, ops.where(at_origin, 1.0, r2)))
    gy = ops.sum_to(ops.mul(scale, x), ctx.input_shape(0)) if ctx.needs(0) else None
    gx = ops.sum_to(ops.neg(ops.mul(scale, y)), ctx.input_shape(1)) if ctx.needs(1) else None
    return gy, gx


@register_kernel("sinc", Backend.CPU, dtypes=FLOAT_DTYPES)
def sinc_cpu(x: np.ndarray) -> np.ndarray:
    """``sin(pi x) / (pi x)``, 1 at 0 (written out: ``numpy.sinc`` warns at 0 from NumPy's own code)."""
    at_zero = x == 0
    y = np.pi * np.where(at_zero, 1, x)
    return np.asarray(np.where(at_zero, 1, np.sin(y) / y), dtype=x.dtype)


sinc = defop("sinc", inputs=("x",), infer_meta=im.same, save=("x",), promote="float", methods=("sinc",),
             doc="the normalised sinc, sin(pi x) / (pi x), 1 at 0", gpu=("unary", "mg_sinc(a)"))


@sinc.def_backward
def sinc_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``(pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 at ``x = 0`` (PyTorch's formula, term for term)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    at_zero = ops.eq(x, 0.0)
    xs = ops.where(at_zero, 1.0, x)
    px = ops.mul(xs, math.pi)
    slope = ops.div(ops.sub(ops.mul(px, ops.cos(px)), ops.sin(px)), ops.mul(ops.mul(xs, xs), math.pi))
    return (ops.where(at_zero, 0.0, ops.mul(slope, grad)),)


# NumPy's names, as PyTorch also accepts them.
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh
