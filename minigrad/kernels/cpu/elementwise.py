"""CPU kernels of the elementwise ops (NumPy ufuncs)."""

from __future__ import annotations

import math

import numpy as np

from ...dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES
from ..key import Backend
from ..registry import register_kernel

CPU = Backend.CPU


def _ufunc(ufunc: np.ufunc):
    """A NumPy ufunc as a kernel. Ufuncs return NumPy *scalars* for 0-d inputs, which are
    immutable (in-place ops could not write into them); kernels always return arrays."""

    def kernel(*args):
        return np.asarray(ufunc(*args))

    kernel.__name__ = ufunc.__name__
    kernel.__doc__ = f"``numpy.{ufunc.__name__}`` (0-d results as arrays)."
    return kernel


# On bools add is "or", mul is "and" (as in PyTorch); bool - bool has no kernel (PyTorch refuses it too).
register_kernel("add", CPU, dtypes=ALL_DTYPES)(_ufunc(np.add))
register_kernel("sub", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.subtract))
register_kernel("mul", CPU, dtypes=ALL_DTYPES)(_ufunc(np.multiply))
register_kernel("maximum", CPU, dtypes=ALL_DTYPES)(_ufunc(np.maximum))
register_kernel("minimum", CPU, dtypes=ALL_DTYPES)(_ufunc(np.minimum))
register_kernel("neg", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.negative))
register_kernel("abs", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.abs))
register_kernel("sign", CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.sign))
register_kernel("exp", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.exp))
register_kernel("log", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.log))
register_kernel("sqrt", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.sqrt))
register_kernel("sin", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.sin))
register_kernel("cos", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.cos))
register_kernel("tanh", CPU, dtypes=FLOAT_DTYPES)(_ufunc(np.tanh))
register_kernel(("eq",), CPU, dtypes=ALL_DTYPES)(_ufunc(np.equal))
register_kernel(("ne",), CPU, dtypes=ALL_DTYPES)(_ufunc(np.not_equal))
register_kernel(("lt",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.less))
register_kernel(("le",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.less_equal))
register_kernel(("gt",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.greater))
register_kernel(("ge",), CPU, dtypes=NUMERIC_DTYPES)(_ufunc(np.greater_equal))


@register_kernel("div", CPU, dtypes=FLOAT_DTYPES)
def div(x, y):
    return np.asarray(np.divide(x, y))


@register_kernel("pow", CPU, dtypes=NUMERIC_DTYPES)
def pow_(x, y):
    if x.dtype.kind == "i" and np.any(y < 0):
        raise ValueError("pow(): integers to negative integer powers are not allowed")
    return np.asarray(np.power(x, y))


@register_kernel("sigmoid", CPU, dtypes=FLOAT_DTYPES)
def sigmoid(x):
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.asarray(np.where(x >= 0, 1 / (1 + e), e / (1 + e)), dtype=x.dtype)


@register_kernel("relu", CPU, dtypes=NUMERIC_DTYPES)
def relu(x):
    return np.asarray(np.maximum(x, 0), dtype=x.dtype)


_erf = np.frompyfunc(math.erf, 1, 1)


@register_kernel("erf", CPU, dtypes=FLOAT_DTYPES)
def erf(x):
    return np.asarray(_erf(x), dtype=x.dtype)  # frompyfunc gives a Python float for 0-d input


@register_kernel("gelu", CPU, dtypes=FLOAT_DTYPES)
def gelu(x):
    # Exact GELU, x * Phi(x), as PyTorch's default.
    return np.asarray(0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=x.dtype)), dtype=x.dtype)


@register_kernel("where", CPU, dtypes=ALL_DTYPES)
def where(condition, x, y):
    return np.where(condition, x, y)


@register_kernel("clip", CPU, dtypes=NUMERIC_DTYPES)
def clip(x, min=None, max=None):
    # An integer tensor with a float bound is clamped in float32 (InferMeta says so too).
    dtype = np.float32 if x.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)) else x.dtype
    return np.asarray(np.clip(x.astype(dtype, copy=False), min, max), dtype=dtype)


@register_kernel("cast", CPU, dtypes=ALL_DTYPES)
def cast(x, dtype):
    return x.astype(dtype.np)


@register_kernel("clone", CPU, dtypes=ALL_DTYPES)
def clone(x):
    return x.copy()


@register_kernel("fill", CPU, dtypes=ALL_DTYPES)
def fill(x, value):
    return np.full(x.shape, value, dtype=x.dtype)
