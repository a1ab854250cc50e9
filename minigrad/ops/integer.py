"""Number theory on integer tensors: ``gcd`` and ``lcm``, elementwise with broadcasting.

Both are ops without a gradient (their results are integers). As PyTorch's, their
kernels exist for the integer dtypes only: a bool or floating tensor is refused
with PyTorch's words (``"gcd_cpu" not implemented for 'Float'``). The results are
never negative, except where the absolute value overflows the dtype, which PyTorch
keeps too (``gcd(int8(-128), 0)`` is ``-128``); ``lcm`` of anything with 0 is 0.

Example:
    >>> import minigrad as mg
    >>> a, b = mg.tensor([12, -18, 0, 7]), mg.tensor([8, 12, 5, 0])
    >>> mg.gcd(a, b).tolist(), mg.lcm(a, b).tolist()
    ([4, 6, 5, 7], [24, 36, 0, 0])
"""

from __future__ import annotations

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels import infer_meta as im
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["gcd", "lcm"]


def refuse_unless_integer(kernel_name: str, *arrays: np.ndarray) -> None:
    """PyTorch's refusal of a dtype its integer-only kernel has no case for (bool included)."""
    for a in arrays:
        if a.dtype.kind not in "iu":
            raise NotImplementedError(f'"{kernel_name}" not implemented for \'{scalar_type_name(a.dtype)}\'')


@register_kernel("gcd", Backend.CPU, dtypes=ALL_DTYPES)
def gcd_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Euclid's algorithm, NumPy's ``gcd`` (non-negative; ``gcd(0, 0) = 0``)."""
    refuse_unless_integer("gcd_cpu", x, y)
    return np.asarray(np.gcd(x, y))


@register_kernel("lcm", Backend.CPU, dtypes=ALL_DTYPES)
def lcm_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``|x / gcd(x, y) * y|`` as PyTorch's C++ computes it (int8 to int16 in ``int``, then cast back: an overflow
    wraps as it does there); 0 where the gcd is 0."""
    refuse_unless_integer("lcm_cpu", x, y)
    g = np.gcd(x, y)
    work = np.int32 if g.dtype.itemsize < 4 else g.dtype  # C++ computes a narrower type in int
    safe = np.where(g == 0, 1, g).astype(work)
    with np.errstate(over="ignore"):
        out = np.abs((x.astype(work) // safe) * y.astype(work))
    return np.asarray(np.where(g == 0, 0, out).astype(g.dtype))


gcd = defop("gcd", inputs=("input", "other"), infer_meta=im.broadcast, transform_dtype=True, differentiable=False,
            methods=("gcd",),
            doc="the greatest common divisor of each pair of integers (non-negative)")
lcm = defop("lcm", inputs=("input", "other"), infer_meta=im.broadcast, transform_dtype=True, differentiable=False,
            methods=("lcm",),
            doc="the least common multiple of each pair of integers (non-negative; 0 with a 0)")
