"""The Bessel functions of the first, second and third kinds and Airy's ``Ai`` of ``torch.special``, each an op
without a derivative, as PyTorch's (their results do not require grad): ``bessel_j0``, ``bessel_j1``,
``bessel_y0``, ``bessel_y1``, ``modified_bessel_k0``, ``modified_bessel_k1``, ``scaled_modified_bessel_k0``
(``e^x K0(x)``), ``scaled_modified_bessel_k1`` and ``airy_ai``.

The kernels are ``kernels/bessel_arrays.py``'s (series, Miller's recurrence, the trapezoidal rule on the
integrals of ``K`` and the asymptotic expansions, each where it keeps its digits), over NumPy here and over CuPy on
the GPU (``kernels/gpu/special.py``), in float64 and rounded once; integer inputs are computed in the default float
dtype, as PyTorch's. (PyTorch 2.13's own CPU kernels for ``J0``, ``J1``, ``Y0``, ``Y1`` between 2 and 20 and for
``Ai`` below -2.09 are off the true values by 1e-8 to 1e-4 relative; these agree with the true values there.)

Example:
    >>> import minigrad as mg
    >>> round(mg.special.bessel_j0(mg.tensor(1.0)).item(), 6), round(mg.special.airy_ai(mg.tensor(0.0)).item(), 6)
    (0.765198, 0.355028)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import bessel_arrays as ba
from ..kernels import infer_meta as im
from ..kernels import special_arrays as sa
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__: list[str] = []  # torch.special only: minigrad/special.py names them

#: the functions, each with its docstring
FUNCTIONS = {
    "bessel_j0": "the Bessel function of the first kind, order 0",
    "bessel_j1": "the Bessel function of the first kind, order 1",
    "bessel_y0": "the Bessel function of the second kind, order 0 (NaN below 0)",
    "bessel_y1": "the Bessel function of the second kind, order 1 (NaN below 0)",
    "modified_bessel_k0": "the modified Bessel function of the second kind, order 0 (NaN below 0)",
    "modified_bessel_k1": "the modified Bessel function of the second kind, order 1 (NaN below 0)",
    "scaled_modified_bessel_k0": "e^x K0(x), the scaled modified Bessel function of the second kind, order 0",
    "scaled_modified_bessel_k1": "e^x K1(x), the scaled modified Bessel function of the second kind, order 1",
    "airy_ai": "Airy's function Ai (0 above 103.892, NaN at the infinities, as PyTorch's)",
}


def _define(name: str) -> Any:
    """The op ``special_<name>``: ``kernels/bessel_arrays.py``'s function as its CPU kernel, no derivative."""
    fn = getattr(ba, name)

    def kernel(x: np.ndarray) -> np.ndarray:
        return np.asarray(sa.in_float64(np, fn, x))

    kernel.__name__ = f"special_{name}_cpu"
    kernel.__doc__ = f"``kernels/bessel_arrays.py``'s ``{name}`` over NumPy, in float64, rounded once."
    register_kernel(f"special_{name}", Backend.CPU, dtypes=FLOAT_DTYPES)(kernel)
    return defop(f"special_{name}", inputs=("input",), infer_meta=im.same, promote="float", differentiable=False,
                 doc=FUNCTIONS[name])


_BY_NAME = {name: _define(name) for name in FUNCTIONS}
special_bessel_j0 = _BY_NAME["bessel_j0"]
special_bessel_j1 = _BY_NAME["bessel_j1"]
special_bessel_y0 = _BY_NAME["bessel_y0"]
special_bessel_y1 = _BY_NAME["bessel_y1"]
special_modified_bessel_k0 = _BY_NAME["modified_bessel_k0"]
special_modified_bessel_k1 = _BY_NAME["modified_bessel_k1"]
special_scaled_modified_bessel_k0 = _BY_NAME["scaled_modified_bessel_k0"]
special_scaled_modified_bessel_k1 = _BY_NAME["scaled_modified_bessel_k1"]
special_airy_ai = _BY_NAME["airy_ai"]
