"""Hypothesis strategies shared by the test suite (one file).

- ``shapes()``: small tensor shapes (0 to 4 dims, sizes 1 to 4);
- ``broadcastable_shapes()``: pairs of shapes that broadcast (NumPy rules);
- ``non_broadcastable_shapes()``: pairs that do not (one dim where the sizes
  differ and neither is 1);
- ``float64_arrays(shape)``: finite float64 values in a range safe for every op;
- ``binary_op_names``: the broadcasting binary ops with gradients;
- ``ALL_DTYPE_NAMES``: the dtypes in promotion order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = [
    "shapes",
    "broadcastable_shapes",
    "non_broadcastable_shapes",
    "float64_arrays",
    "binary_op_names",
    "FLOAT_DTYPE_NAMES",
    "ALL_DTYPE_NAMES",
]

#: Binary elementwise ops that broadcast and have a backward formula.
binary_op_names = st.sampled_from(["add", "sub", "mul", "div", "pow", "maximum", "minimum"])

FLOAT_DTYPE_NAMES = ("float16", "float32", "float64")
#: Every dtype, in promotion order (PyTorch's: bool < int32 < int64 < float16 < float32 < float64).
ALL_DTYPE_NAMES = ("bool", "int32", "int64", "float16", "float32", "float64")


def shapes(min_dims: int = 0, max_dims: int = 4, max_side: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    """Tensor shapes with every size in ``1..max_side``."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=max_side)


@st.composite
def broadcastable_shapes(draw: Any, max_dims: int = 4, max_side: int = 4) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast: each a suffix of a common shape, with some sizes set to 1."""
    base = draw(shapes(0, max_dims, max_side))

    def one_side() -> tuple[int, ...]:
        n = draw(st.integers(0, len(base)))
        suffix = base[len(base) - n :]
        ones = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        return tuple(1 if o else s for s, o in zip(suffix, ones))

    return one_side(), one_side()


@st.composite
def non_broadcastable_shapes(draw: Any, max_dims: int = 4) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that cannot broadcast: one aligned dim has sizes a != b, both >= 2."""
    a_shape, b_shape = draw(broadcastable_shapes(max_dims=max_dims - 1))
    size_a = draw(st.integers(2, 4))
    size_b = draw(st.integers(2, 4).filter(lambda s: s != size_a))
    # Insert the conflicting dim at the same position counted from the right.
    k = draw(st.integers(0, min(len(a_shape), len(b_shape))))
    a = a_shape[: len(a_shape) - k] + (size_a,) + a_shape[len(a_shape) - k :]
    b = b_shape[: len(b_shape) - k] + (size_b,) + b_shape[len(b_shape) - k :]
    return a, b


def float64_arrays(shape: tuple[int, ...], low: float = -2.0, high: float = 2.0) -> st.SearchStrategy[np.ndarray]:
    """float64 arrays of ``shape`` with finite values in ``[low, high]``."""
    return hnp.arrays(
        np.float64,
        shape,
        elements=st.floats(low, high, allow_nan=False, allow_infinity=False, allow_subnormal=False, width=64),
    )
