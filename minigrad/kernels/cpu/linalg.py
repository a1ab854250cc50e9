"""CPU kernel of matmul (NumPy's BLAS-backed ``matmul``)."""

from __future__ import annotations

import numpy as np

from ...dtypes import NUMERIC_DTYPES
from ..key import Backend
from ..registry import register_kernel


@register_kernel("matmul", Backend.CPU, dtypes=NUMERIC_DTYPES)
def matmul(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.asarray(np.matmul(x, y))
