"""Modified Bessel functions of the first kind: ``i0`` (``torch.i0``, ``torch.special.i0``) and ``special_i1``
(``torch.special.i1``), the derivative of ``i0``.

``I0(x) = sum_k (x/2)^(2k) / (k!)^2`` and ``I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!)``,
even and odd, both growing as ``e^|x| / sqrt(2 pi |x|)``. ``I0' = I1`` gives ``i0``'s node
(``I0Backward0``) its formula, and ``I1' = I0 - I1 / x`` (``1/2`` at 0) gives ``i1``'s.

NOTE [ How the Bessel kernels are evaluated ]
    ``i0`` is Cephes' Chebyshev expansions, as PyTorch's ``calc_i0``, with
    the coefficients NumPy ships for its own ``i0``, evaluated in the
    tensor's dtype (float16 and bfloat16 in float32, then rounded), as
    PyTorch computes them; against PyTorch's, float32 results agree but for
    one in a thousand (by an ulp), float64 ones but for a few in a hundred
    (by up to 2 ulp: the last steps of the recurrence). NumPy has no ``i1``: it is summed here, in float64, by its
    power series for ``|x| <= 30`` (positive terms, no cancellation; 60 terms
    reach past 1e-17 of the sum) and by Hankel's asymptotic series
    ``e^x / sqrt(2 pi x) * (1 - 3/(8x) - 15/(2 (8x)^2) - ...)`` above, whose
    terms shrink below 1e-17 before they start to grow; the narrower floats
    are computed in float64 and rounded once.

Example:
    >>> import minigrad as mg
    >>> round(mg.i0(mg.tensor(1.0)).item(), 5), round(mg.special.i1(mg.tensor(1.0)).item(), 5)
    (1.26607, 0.56516)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..fma import fused_multiply_add
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["i0"]  # special_i1 is torch.special.i1 only: minigrad/special.py names it i1

try:  # Cephes' coefficients of I0, as NumPy ships them for its i0
    from numpy.lib._function_base_impl import _i0A as _I0_NEAR, _i0B as _I0_FAR
except ImportError:  # NumPy 1.x
    from numpy.lib.function_base import _i0A as _I0_NEAR, _i0B as _I0_FAR  # type: ignore[no-redef]

CPU = Backend.CPU
_SERIES_LIMIT = 30.0


def _chebyshev(t: np.ndarray, coeffs: Any) -> np.ndarray:
    """Clenshaw's recurrence for a Chebyshev series at ``t``, in ``t``'s dtype (Cephes' ``chbevl``), its
    ``t * b1 - b2`` fused as PyTorch's compiled loop fuses it."""
    kind = t.dtype.type
    b0, b1, b2 = np.full_like(t, kind(coeffs[0])), np.zeros_like(t), np.zeros_like(t)
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = fused_multiply_add(t, b1, -b2) + kind(c)
    return kind(0.5) * (b0 - b2)


def i0_array(x: np.ndarray) -> np.ndarray:
    """``I0`` of a float32 or float64 array in its own dtype, as PyTorch's ``calc_i0``: Cephes' expansions in
    ``|x| / 2 - 2`` up to 8 and in ``32 / |x| - 2`` above, times ``e^|x|`` (over ``sqrt(|x|)`` above; a float32
    ``e^|x|`` rounded from float64's, as close to PyTorch's as NumPy's float32 one is not)."""
    kind = x.dtype.type
    a = np.abs(x)
    near = a <= 8
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        grow = np.exp(a.astype(np.float64)).astype(x.dtype)
        low = grow * _chebyshev(a / kind(2) - kind(2), _I0_NEAR)
        high = grow * _chebyshev(kind(32) / np.where(near, kind(1), a) - kind(2), _I0_FAR) / np.sqrt(a)
    return np.where(near, low, high)


@register_kernel("i0", CPU, dtypes=ALL_DTYPES)
def i0_cpu(x: np.ndarray) -> np.ndarray:
    """``i0_array`` in float64 for float64, in float32 for the other dtypes (NOTE [ How the Bessel kernels are
    evaluated ])."""
    work = np.float64 if x.dtype == np.float64 else np.float32
    return np.asarray(i0_array(x.astype(work)).astype(x.dtype))


def _i1_series(a: np.ndarray) -> np.ndarray:
    """``I1(a)`` for ``0 <= a <= 30``: the power series, each term the last times ``(a/2)^2 / (k (k+1))``."""
    q = (a * 0.5) ** 2
    term = a * 0.5
    total = term.copy()
    for k in range(1, 60):
        term = term * q / (k * (k + 1))
        total += term
    return total


def _i1_asymptotic(a: np.ndarray) -> np.ndarray:
    """``I1(a)`` for ``a > 30``: Hankel's series in ``1 / (8a)``, scaled by ``e^a / sqrt(2 pi a)`` in two
    halves (``e^a`` alone overflows below where ``I1`` does)."""
    term = np.ones_like(a)
    total = term.copy()
    for k in range(1, 20):
        term = -term * (4.0 - (2 * k - 1) ** 2) / (k * 8.0 * a)
        total += term
    half = np.exp(a * 0.5)
    return half * (total / np.sqrt(2 * np.pi * a)) * half


@register_kernel("special_i1", CPU, dtypes=ALL_DTYPES)
def special_i1_cpu(x: np.ndarray) -> np.ndarray:
    """``I1`` in float64 (NOTE [ How the Bessel kernels are evaluated ]), odd: the sign of ``x``; NaN stays."""
    v = x.astype(np.float64)
    a = np.abs(v)
    small = a <= _SERIES_LIMIT
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.where(small, _i1_series(np.where(small, a, 0.0)), _i1_asymptotic(np.where(small, 2 * _SERIES_LIMIT, a)))
    out = np.where(np.isnan(v), v, np.copysign(out, v))
    return np.asarray(out.astype(x.dtype))


i0 = defop("i0", inputs=("input",), infer_meta=im.same, save=("input",), promote="float", methods=("i0",),
           doc="the modified Bessel function of the first kind, order 0")
special_i1 = defop("special_i1", inputs=("input",), infer_meta=im.same, save=("input", "out"), promote="float",
                   doc="the modified Bessel function of the first kind, order 1 (torch.special.i1)")


@i0.def_backward
def _i0_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``grad * special_i1(self)``."""
    (x,) = ctx.saved()
    return (ctx.ops.mul(grad, ctx.ops.special_i1(x)),)


@special_i1.def_backward
def _special_i1_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``grad * (i0(x) - i1(x) * (1 / x))``, and ``grad / 2`` (the limit at 0) wherever ``|x|`` is not above the
    dtype's epsilon - NaN included -, as PyTorch's ``i1_backward``."""
    x, out = ctx.saved()
    ops = ctx.ops
    eps = float(np.finfo(ctx.input_dtype(0).np).eps)
    away = ops.gt(ops.abs(x), eps)
    safe = ops.where(away, x, eps)
    slope = ops.sub(ops.i0(safe), ops.mul(out, ops.reciprocal(safe)))
    return (ops.mul(grad, ops.where(away, slope, 0.5)),)
