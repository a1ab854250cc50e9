"""The in-place comparisons ``x.eq_(y)``, ``x.lt_(2.0)`` ... as PyTorch has them: ops of their own
(``eq_``, ``ne_``, ``lt_``, ``le_``, ``gt_``, ``ge_``), whose result - the comparison's truth values - is
written into ``x`` in ``x``'s dtype (a float tensor gets 1. and 0.), and whose node is PyTorch's
``EqBackward0`` (a number ``y``, ``eq_.Scalar``) or ``EqBackward1`` (a tensor ``y``, ``eq_.Tensor``) with
zero gradients: a comparison's value does not change with its inputs.

The two operands are compared in the dtype they promote to (``int_tensor.lt_(2.5)`` compares 2 with 2.5,
not with 2; as ``==`` promotes them), then the truth values are cast to ``x``'s
dtype, the op's ``dtype``; ``Tensor.eq_`` and its other names (``less_``, ``not_equal_`` ...) in
``_tensor_methods.py`` pass it and write the result back through ``run_inplace``.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0, 3.0])
    >>> x.lt_(2.5).tolist()
    [1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES
from ..kernels.infer_meta import broadcast_shapes
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import Attr, defop

__all__: list[str] = []  # the ops are reached through the Tensor methods (``x.eq_(y)``), as in PyTorch

#: op -> the NumPy comparison it writes back
COMPARISONS = {"eq_": np.equal, "ne_": np.not_equal, "lt_": np.less, "le_": np.less_equal, "gt_": np.greater,
               "ge_": np.greater_equal}


def _in_dtype(op: str, input: Any, other: Any, dtype: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: the broadcast shape (``run_inplace`` refuses one that is not ``input``'s), in ``dtype``."""
    return broadcast_shapes(op, input.shape, other.shape, ("input", "other")), dtype.np


def _check_dtype(op: str, name: str, pos: int, v: Any) -> Any:
    return _dt.as_dtype(v, f"{op}(): argument '{name}' (position {pos})")


def _zero_gradients(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's ``zeros_like(self)`` and ``zeros_like(other)``: zeros shaped as each input (the engine casts
    each to its input's dtype, as for every op whose inputs were promoted)."""
    ops = ctx.ops
    zeros = ops.fill(grad, 0)
    return zeros, ops.sum_to(zeros, ctx.input_shape(1)) if ctx.needs(1) else None


def _define(name: str, compare: np.ufunc) -> Any:
    def kernel(input: np.ndarray, other: np.ndarray, dtype: Any) -> np.ndarray:
        return np.asarray(compare(input, other)).astype(dtype.np)  # (the two promoted to one dtype already)

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=ALL_DTYPES, name=f"cpu/{name}")(kernel)
    op = defop(name, inputs=("input", "other"), attrs=(Attr("dtype", check=_check_dtype),), infer_meta=_in_dtype,
               scalars=True, transform_dtype=True, out=False,
               doc=f"{name[:-1]}(input, other)'s truth values in dtype (input's, for the in-place input.{name}(other))")
    op.def_backward(_zero_gradients)
    return op


eq_, ne_, lt_, le_, gt_, ge_ = (_define(name, fn) for name, fn in COMPARISONS.items())
