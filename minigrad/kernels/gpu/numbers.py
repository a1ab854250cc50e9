"""GPU kernels made of CuPy's functions for the number functions: ``gcd``, ``lcm`` (``ops/integer.py``),
``nextafter``, ``frexp``, ``ldexp`` (``ops/floating.py``), ``i0`` (``ops/bessel.py``) and ``isin``
(``ops/search.py``) - each its CPU twin's steps on CuPy's arrays, one or a few kernels, nothing read back.

float16 steps are taken in float32 and rounded, as on the CPU; bfloat16 (which CuPy lacks) and the ops
not here (``special_i1``, ``histogram``, ``unique_consecutive``) fall back to their CPU kernels, visibly.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import INT_DTYPES, NUMERIC_DTYPES, float16, float32, float64
from ..key import Backend
from ..registry import register_kernel

GPU = Backend.GPU
_FLOATS = (float16, float32, float64)


def _wide(x: Any) -> Any:
    """float16 in float32 (PyTorch's opmath type), the other floats as they are."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


@register_kernel("gcd", GPU, dtypes=INT_DTYPES, name="gpu/cupy_gcd")
def gcd_gpu(x: Any, y: Any) -> Any:
    return cupy.gcd(x, y)


@register_kernel("lcm", GPU, dtypes=INT_DTYPES, name="gpu/cupy_lcm")
def lcm_gpu(x: Any, y: Any) -> Any:
    """``ops/integer.py``'s ``lcm_cpu`` on the device: narrow types in ``int``, 0 where the gcd is 0."""
    g = cupy.gcd(x, y)
    work = np.int32 if g.dtype.itemsize < 4 else g.dtype
    safe = cupy.where(g == 0, 1, g).astype(work)
    out = cupy.abs((x.astype(work) // safe) * y.astype(work))
    return cupy.where(g == 0, 0, out).astype(g.dtype)


@register_kernel("nextafter", GPU, dtypes=_FLOATS, name="gpu/cupy_nextafter")
def nextafter_gpu(x: Any, y: Any) -> Any:
    return cupy.nextafter(x, y)


@register_kernel("frexp", GPU, dtypes=_FLOATS, name="gpu/cupy_frexp")
def frexp_gpu(x: Any) -> Any:
    return cupy.frexp(x)[0].astype(x.dtype)


@register_kernel("frexp_exponent", GPU, dtypes=_FLOATS, name="gpu/cupy_frexp_exponent")
def frexp_exponent_gpu(x: Any) -> Any:
    return cupy.frexp(x)[1].astype(np.int32)


@register_kernel("ldexp", GPU, dtypes=_FLOATS, name="gpu/cupy_ldexp")
def ldexp_gpu(x: Any, e: Any, exponent_dtype: str = "") -> Any:
    """``ops/floating.py``'s ``ldexp_cpu`` on the device (NOTE [ ldexp of an integer exponent is exact ])."""
    wide = _wide(x)
    if exponent_dtype:
        steps = cupy.clip(e.astype(wide.dtype), -(1 << 20), 1 << 20).astype(np.int32)
        return cupy.ldexp(wide, steps).astype(x.dtype)
    return (wide * cupy.exp2(e.astype(wide.dtype))).astype(x.dtype)


@register_kernel("i0", GPU, dtypes=_FLOATS, name="gpu/cupy_i0")
def i0_gpu(x: Any) -> Any:
    """CuPy's ``i0`` (Cephes' expansions, as the CPU's), float16 in float32."""
    return cupy.i0(_wide(x)).astype(x.dtype)


@register_kernel("isin", GPU, dtypes=NUMERIC_DTYPES, name="gpu/cupy_isin")
def isin_gpu(x: Any, y: Any, invert: bool = False) -> Any:
    return cupy.isin(x, y, invert=invert)
