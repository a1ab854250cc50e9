"""The Hurwitz zeta and the regularized incomplete gamma functions, each an op with PyTorch's node:
``special.zeta(x, q)`` (``SpecialZetaBackward0/1/2`` for its tensor, number-``x`` and number-``q`` forms),
``igamma(a, x)`` = ``special.gammainc`` (``IgammaBackward0``) and ``igammac(a, x)`` = ``special.gammaincc``
(``IgammacBackward0``), with the Tensor methods ``igamma``, ``igammac`` and their in-place forms.

==================  ==================================  ===============================================
function            value                               derivative (PyTorch's formula)
==================  ==================================  ===============================================
``zeta(x, q)``      ``sum_k (q + k)^-x``                wrt ``q``: ``-x zeta(x + 1, q)``; wrt ``x``: none
``igamma(a, x)``    ``P(a, x) = gamma(a, x) / Gamma(a)``  wrt ``x``: ``e^((a - 1) log x - x - lgamma(a))``
``igammac(a, x)``   ``Q(a, x) = 1 - P(a, x)``            wrt ``x``: minus that; wrt ``a``: none
==================  ==================================  ===============================================

Where PyTorch has no derivative its node refuses in backward, in its words (``NotImplementedError: the derivative
for 'igamma: input' is not implemented.``). The kernels are ``kernels/gamma_arrays.py``'s, over NumPy here and
over CuPy on the GPU (``kernels/gpu/special.py``), in float64 and rounded once. ``zeta`` computes integers in the
default float dtype; ``igamma`` refuses them, as PyTorch's CPU kernel (``"igamma_cpu" not implemented for
'Long'``).

Example:
    >>> import minigrad as mg
    >>> round(mg.special.zeta(mg.tensor(2.0), 1.0).item(), 6), round(mg.igamma(mg.tensor(1.0), mg.tensor(1.0)).item(), 6)
    (1.644934, 0.632121)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import gamma_arrays as ga
from ..kernels import infer_meta as im
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..dtypes import promote_types
from ..tensor import Tensor
from .registry import defop, type_name

__all__ = ["igamma", "igammac"]

CPU = Backend.CPU


def _binary_kernel(name: str, fn: Any) -> None:
    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dtype = np.result_type(a, b)
        a64, b64 = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
        with np.errstate(all="ignore"):
            out = fn(np, a64.copy(), b64.copy())
        return np.asarray(out.astype(dtype))

    kernel.__name__ = f"{name}_cpu"
    kernel.__doc__ = f"``kernels/gamma_arrays.py``'s ``{fn.__name__}`` over NumPy, in float64, rounded once."
    register_kernel(name, CPU, dtypes=FLOAT_DTYPES)(kernel)


_binary_kernel("special_zeta", ga.zeta)
_binary_kernel("igamma", ga.gammainc)
_binary_kernel("igammac", ga.gammaincc)

special_zeta = defop("special_zeta", inputs=("input", "other"), infer_meta=im.broadcast, scalars=True,
                     promote="float", save=("input", "other"), doc="the Hurwitz zeta function sum_k (q + k)^-x")
_igamma_op = defop("igamma", inputs=("input", "other"), infer_meta=im.broadcast, scalars=True, transform_dtype=True,
                   save=("input", "other"),
                   doc="the regularized lower incomplete gamma function P(a, x)")
_igammac_op = defop("igammac", inputs=("input", "other"), infer_meta=im.broadcast, scalars=True, transform_dtype=True,
                    save=("input", "other"),
                    doc="the regularized upper incomplete gamma function Q(a, x)")


@special_zeta.def_backward
def _zeta_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """wrt ``q``: ``grad * -x * zeta(x + 1, q)``; wrt ``x`` PyTorch has none: the node refuses."""
    if ctx.needs(0):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    x, q = ctx.saved()
    ops = ctx.ops
    gq = ops.mul(ops.mul(grad, ops.neg(x)), ops.special_zeta(ops.add(x, 1.0), q))
    return None, ops.sum_to(gq, ctx.input_shape(1))


def _slope(ctx: Any, grad: Any, name: str, sign: float) -> tuple[Any, Any]:
    """wrt ``x``: ``sign * grad * e^((a - 1) log x - x - lgamma(a))``; wrt ``a`` PyTorch has none."""
    if ctx.needs(0):
        raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
    a, x = ctx.saved()
    ops = ctx.ops
    exponent = ops.sub(ops.sub(ops.mul(ops.sub(a, 1.0), ops.log(x)), x), ops.lgamma(a))
    gx = ops.mul(grad, ops.exp(exponent))
    return None, ops.sum_to(gx if sign > 0 else ops.neg(gx), ctx.input_shape(1))


@_igamma_op.def_backward
def _igamma_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``grad * e^((a - 1) log x - x - lgamma(a))`` for ``x``."""
    return _slope(ctx, grad, "igamma", 1.0)


@_igammac_op.def_backward
def _igammac_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``-grad * e^((a - 1) log x - x - lgamma(a))`` for ``x``."""
    return _slope(ctx, grad, "igammac", -1.0)


def _tensors(name: str, input: Any, other: Any, first: int = 1, kernel: str = "igamma") -> None:
    """PyTorch's ``TypeError`` for a number where its ``igamma`` forms take tensors only, and its
    ``NotImplementedError`` for integers (its CPU kernel has floating types only)."""
    for pos, (arg, v) in enumerate((("input", input), ("other", other)), start=first):
        if not isinstance(v, Tensor) and (pos > 0 or first == 1):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(v)}")
    dtype = promote_types(input.dtype, other.dtype)
    if not dtype.is_floating:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{scalar_type_name(dtype)}\'')


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """``torch.igamma``: ``P(input, other)``, the regularized lower incomplete gamma function (``IgammaBackward0``).

    Example:
        >>> import minigrad as mg
        >>> round(mg.igamma(mg.tensor(2.0), mg.tensor(1.0)).item(), 6)
        0.264241
    """
    _tensors("igamma", input, other)
    return _igamma_op(input, other)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """``torch.igammac``: ``Q(input, other) = 1 - P(input, other)`` (``IgammacBackward0``).

    Example:
        >>> import minigrad as mg
        >>> round(mg.igammac(mg.tensor(2.0), mg.tensor(1.0)).item(), 6)
        0.735759
    """
    _tensors("igammac", input, other, kernel="igammac")
    return _igammac_op(input, other)


def special_gammainc(input: Tensor, other: Tensor) -> Tensor:
    """``torch.special.gammainc``: ``igamma`` under ``torch.special``'s name (the same node)."""
    _tensors("special_gammainc", input, other)
    return _igamma_op(input, other)


def special_gammaincc(input: Tensor, other: Tensor) -> Tensor:
    """``torch.special.gammaincc``: ``igammac`` under ``torch.special``'s name (the same node)."""
    _tensors("special_gammaincc", input, other, kernel="igammac")
    return _igammac_op(input, other)


def igamma_method(self: Tensor, other: Tensor) -> Tensor:
    """``Tensor.igamma(other)``: ``igamma(self, other)``, ``other`` at position 1 in PyTorch's messages."""
    _tensors("igamma", self, other, first=0)
    return _igamma_op(self, other)


def igammac_method(self: Tensor, other: Tensor) -> Tensor:
    """``Tensor.igammac(other)``: ``igammac(self, other)``."""
    _tensors("igammac", self, other, first=0, kernel="igammac")
    return _igammac_op(self, other)
