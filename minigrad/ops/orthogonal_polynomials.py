"""The classical orthogonal polynomials of ``torch.special``, each an op of ``x`` and the degree ``n`` (tensors,
or one of them a number), with no derivative, as PyTorch's (their results do not require grad):
``chebyshev_polynomial_t/u/v/w``, ``shifted_chebyshev_polynomial_t/u/v/w``, ``hermite_polynomial_h/he``,
``laguerre_polynomial_l`` and ``legendre_polynomial_p``.

The kernels are ``kernels/orthogonal_polynomials.py``'s (the recurrences, with PyTorch's rules at the ends of the
interval and its trigonometric forms for high Chebyshev degrees), computed in float64 and rounded to the result's
dtype: ``x`` and ``n`` promoted together, integers to the default float dtype. (For a NaN ``x`` the result is NaN;
PyTorch's CPU kernel returns values that depend on the neighbouring elements there.)

Example:
    >>> import minigrad as mg
    >>> mg.special.chebyshev_polynomial_t(mg.tensor([0.5]), 2).tolist()
    [-0.5]
    >>> mg.special.hermite_polynomial_h(mg.tensor([1.0]), mg.tensor([3])).tolist()
    [-4.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.orthogonal_polynomials import POLYNOMIALS, polynomial
from ..kernels.registry import register_kernel
from .registry import defop

__all__: list[str] = []  # torch.special only: minigrad/special.py names them


def _define(name: str) -> Any:
    """The op ``special_<name>``: the polynomial's CPU kernel and its definition, without a derivative."""
    def kernel(x: np.ndarray, n: np.ndarray) -> np.ndarray:
        dtype = np.result_type(x, n)
        with np.errstate(all="ignore"):
            out = polynomial(np, name, x.astype(np.float64), n.astype(np.float64))
        return np.asarray(out.astype(dtype))

    kernel.__name__ = f"special_{name}_cpu"
    kernel.__doc__ = f"``{name}`` of ``kernels/orthogonal_polynomials.py`` in float64, rounded to the operands' dtype."
    register_kernel(f"special_{name}", Backend.CPU, dtypes=FLOAT_DTYPES)(kernel)
    return defop(f"special_{name}", inputs=("x", "n"), infer_meta=im.broadcast, scalars=True, promote="float",
                 differentiable=False, doc=f"torch.special.{name}(x, n), without a derivative")


_BY_NAME = {name: _define(name) for name in POLYNOMIALS}
special_chebyshev_polynomial_t = _BY_NAME["chebyshev_polynomial_t"]
special_chebyshev_polynomial_u = _BY_NAME["chebyshev_polynomial_u"]
special_chebyshev_polynomial_v = _BY_NAME["chebyshev_polynomial_v"]
special_chebyshev_polynomial_w = _BY_NAME["chebyshev_polynomial_w"]
special_shifted_chebyshev_polynomial_t = _BY_NAME["shifted_chebyshev_polynomial_t"]
special_shifted_chebyshev_polynomial_u = _BY_NAME["shifted_chebyshev_polynomial_u"]
special_shifted_chebyshev_polynomial_v = _BY_NAME["shifted_chebyshev_polynomial_v"]
special_shifted_chebyshev_polynomial_w = _BY_NAME["shifted_chebyshev_polynomial_w"]
special_hermite_polynomial_h = _BY_NAME["hermite_polynomial_h"]
special_hermite_polynomial_he = _BY_NAME["hermite_polynomial_he"]
special_laguerre_polynomial_l = _BY_NAME["laguerre_polynomial_l"]
special_legendre_polynomial_p = _BY_NAME["legendre_polynomial_p"]
