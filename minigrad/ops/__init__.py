"""The user-facing ops (API layer). Each is defined once, in the module of its family."""

from __future__ import annotations

from .linalg import matmul
from .math import (
    abs, add, cast, clip, clone, cos, div, eq, erf, exp, fill, ge, gelu, gt, le, log, lt, maximum, minimum,
    mul, ne, neg, pow, relu, sigmoid, sign, sin, sqrt, sub, sum_to, tanh, where,
)
from .nn import (
    conv2d, conv2d_input_grad, conv2d_weight_grad, cross_entropy, log_softmax, max_pool2d, max_pool2d_grad,
    max_pool2d_select, mse_loss, softmax,
)
from .reduce import logsumexp, max, mean, min, sum
from .registry import OPS, OpDef
from .activation import softplus
from .log1p import expm1, log1p
from .argmax import argmax, argmin
from .rounding import ceil, floor, round, trunc
from .shape import concat, expand, flatten, getitem, getitem_grad, permute, reshape, squeeze, stack, transpose, unsqueeze

__all__ = [
    "OPS", "OpDef", "abs", "add", "cast", "clip", "clone", "concat", "conv2d", "conv2d_input_grad",
    "conv2d_weight_grad", "cos", "cross_entropy", "div", "eq", "erf", "exp", "expand", "fill", "flatten", "ge",
    "gelu", "getitem", "getitem_grad", "gt", "le", "log", "log_softmax", "logsumexp", "lt", "matmul", "max",
    "max_pool2d", "max_pool2d_grad", "max_pool2d_select", "maximum", "mean", "min", "minimum", "mse_loss", "mul",
    "ne", "neg", "permute", "pow", "relu", "reshape", "sigmoid", "sign", "sin", "softmax", "softplus", "sqrt", "squeeze",
    "stack", "sub", "sum", "sum_to", "tanh", "transpose", "unsqueeze", "where",
    "log1p", "expm1", "argmax", "argmin",
]

# PyTorch's composite functions (ops/torch_forms.py); ``max``/``min`` there return
# ``(values, indices)`` with a ``dim``, wrapping the registered ``max``/``min`` reductions.
from .torch_forms import (  # noqa: E402
    allclose, amax, amin, bmm, cat, chunk, clamp, clamp_max, clamp_min, einsum, isclose, masked_fill, max, min, return_types,
    split, std, t, tril, triu, var,
)

# PyTorch's conv2d / max_pool2d forms (unbatched, padding="same", dilation, groups, ceil_mode,
# return_indices) over the registered ops; ``OPS["conv2d"]`` and ``OPS["max_pool2d"]`` stay the ops.
from .conv_forms import conv2d, max_pool2d  # noqa: E402

__all__ += [
    "floor", "ceil", "trunc", "round",
    "allclose", "amax", "amin", "bmm", "cat", "chunk", "clamp", "clamp_max", "clamp_min", "einsum", "isclose", "masked_fill",
    "return_types", "split", "std", "t", "tril", "triu", "var",
]
