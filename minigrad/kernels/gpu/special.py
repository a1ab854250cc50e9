"""GPU kernels for the ``torch.special`` functions of ``ops/special_functions.py`` - ``entr``, ``ndtri``,
``log_ndtr``, ``erfcx``, ``xlog1py``, ``i0e`` and ``i1e`` - each its CPU twin's steps
(``kernels/special_arrays.py``) on CuPy's arrays: the same series and continued fractions, in float64, rounded
once to the tensor's dtype, nothing read back. (``ndtr`` is a composite of ``erf``, which has its template.)
bfloat16, which CuPy lacks, falls back to the CPU kernels, visibly.
"""

from __future__ import annotations

from typing import Any

import cupy

from ...dtypes import float16, float32, float64
from .. import bessel_arrays as ba  # (the Bessel, Airy, zeta and incomplete gamma functions, below)
from .. import gamma_arrays as ga
from .. import special_arrays as sa
from ..key import Backend
from ..registry import register_kernel

__all__: list[str] = []

_FLOATS = (float16, float32, float64)


def _unary(name: str, fn: Any) -> None:
    """Register ``fn`` of ``kernels/special_arrays.py`` over CuPy as the GPU kernel of ``special_<name>``."""
    def kernel(x: Any) -> Any:
        return sa.in_float64(cupy, fn, x)

    kernel.__name__ = f"special_{name}_gpu"
    kernel.__doc__ = f"``kernels/special_arrays.py``'s ``{fn.__name__}`` over CuPy, in float64, rounded once."
    register_kernel(f"special_{name}", Backend.GPU, dtypes=_FLOATS, name=f"gpu/cupy_special_{name}")(kernel)


def _i0e(xp: Any, x: Any) -> Any:
    return sa.bessel_ie(xp, x, 0)


def _i1e(xp: Any, x: Any) -> Any:
    return sa.bessel_ie(xp, x, 1)


for _name, _fn in (("entr", sa.entr), ("ndtri", sa.ndtri), ("log_ndtr", sa.log_ndtr), ("erfcx", sa.erfcx),
                   ("i0e", _i0e), ("i1e", _i1e)):
    _unary(_name, _fn)


@register_kernel("special_xlog1py", Backend.GPU, dtypes=_FLOATS, name="gpu/cupy_special_xlog1py")
def special_xlog1py_gpu(x: Any, y: Any) -> Any:
    """``x log1p(y)``, 0 where ``x == 0`` and ``y`` is not NaN, in float64, rounded to the operands' dtype."""
    out = sa.xlog1py(cupy, x.astype("float64"), y.astype("float64"))
    return out.astype(cupy.result_type(x, y))


# -- the Bessel and Airy functions (ops/special_bessel.py), zeta and the incomplete gamma functions
# (ops/incomplete_gamma.py): kernels/bessel_arrays.py's and kernels/gamma_arrays.py's steps over CuPy --------------

for _name in ba.__all__:
    _unary(_name, getattr(ba, _name))


def _binary(op: str, fn: Any) -> None:
    """Register ``fn(xp, a, b)`` over CuPy, the operands broadcast, in float64, as the GPU kernel of ``op``."""
    def kernel(a: Any, b: Any) -> Any:
        a64, b64 = cupy.broadcast_arrays(a.astype("float64"), b.astype("float64"))
        return fn(cupy, a64.copy(), b64.copy()).astype(cupy.result_type(a, b))

    kernel.__name__ = f"{op}_gpu"
    kernel.__doc__ = f"``kernels/gamma_arrays.py``'s ``{fn.__name__}`` over CuPy, in float64, rounded once."
    register_kernel(op, Backend.GPU, dtypes=_FLOATS, name=f"gpu/cupy_{op}")(kernel)


for _op, _fn in (("special_zeta", ga.zeta), ("igamma", ga.gammainc), ("igammac", ga.gammaincc)):
    _binary(_op, _fn)
