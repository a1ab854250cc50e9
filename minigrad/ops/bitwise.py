"""Bitwise ops on bool and integer tensors: ``& | ^ ~ << >>`` (no gradient: they act on bits).

``a & b`` on two bool masks is the logical and (``mask = (x > 0) & (x < 5)``);
on integers it works bit by bit, as Python's ``&`` does. ``<<``/``>>`` shift
integers (PyTorch's ``bitwise_left_shift``/``bitwise_right_shift``; NumPy's
shifts, arithmetic for signed types). Float tensors have no kernel here, as
in PyTorch, which refuses them too.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1, 4, 7])
    >>> ((x > 2) & (x < 6)).tolist(), (x | 8).tolist(), (~x).tolist(), (x << 1).tolist()
    ([False, True, False], [9, 12, 15], [-2, -5, -8], [2, 8, 14])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import INT_DTYPES, bool_
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import defop

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"]

CPU = Backend.CPU
_BITS = (bool_,) + INT_DTYPES


def _kernel(ufunc: np.ufunc) -> Any:
    def kernel(*args: Any) -> np.ndarray:
        return np.asarray(ufunc(*args))

    kernel.__name__ = ufunc.__name__
    kernel.__doc__ = f"``numpy.{ufunc.__name__}`` (0-d results as arrays)."
    return kernel


def _binary(name: str, ufunc: np.ufunc, dtypes: tuple[Any, ...], symbol: str, doc: str) -> Any:
    register_kernel((name,), CPU, dtypes=dtypes, name=f"cpu/{name}")(_kernel(ufunc))
    method = name.replace("bitwise_", "") if symbol in ("<<", ">>") else name
    dunder = {"&": "and", "|": "or", "^": "xor", "<<": "lshift", ">>": "rshift"}[symbol]
    return defop(name, inputs=("x", "y"), infer_meta=im.broadcast, scalars=True, transform_dtype=True,
                 differentiable=False, doc=doc, methods=(name,) if method == name else (name, method),
                 operators=(f"__{dunder}__", f"__r{dunder}__"))


bitwise_and = _binary("bitwise_and", np.bitwise_and, _BITS, "&", "x & y: and, bit by bit (logical and on bool)")
bitwise_or = _binary("bitwise_or", np.bitwise_or, _BITS, "|", "x | y: or, bit by bit (logical or on bool)")
bitwise_xor = _binary("bitwise_xor", np.bitwise_xor, _BITS, "^", "x ^ y: exclusive or, bit by bit")
bitwise_left_shift = _binary("bitwise_left_shift", np.left_shift, INT_DTYPES, "<<", "x << y: shift left by y bits")
bitwise_right_shift = _binary("bitwise_right_shift", np.right_shift, INT_DTYPES, ">>",
                              "x >> y: shift right by y bits (arithmetic for signed integers)")

register_kernel(("bitwise_not",), CPU, dtypes=_BITS, name="cpu/bitwise_not")(_kernel(np.invert))
bitwise_not = defop("bitwise_not", inputs=("x",), infer_meta=im.same, differentiable=False,
                    doc="~x: every bit flipped (logical not on bool)", methods=("bitwise_not",),
                    operators=("__invert__",))
