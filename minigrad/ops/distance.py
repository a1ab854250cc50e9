"""Norms and distances of ``torch.nn.functional``: ``normalize``, ``cosine_similarity``, ``pairwise_distance``. Composite.

NOTE [ The gradient of a norm at zero ]
    ``sqrt(sum(x * x))`` has no derivative at ``x = 0``, and the chain rule
    through ``sqrt`` gives ``0 * inf = NaN`` there even when a clamp (``eps``)
    stops the gradient after it. PyTorch's norm backward returns 0 at 0. The
    norms here take the square root of ``where(s > 0, s, 1)`` and select 0
    where ``s == 0``: ``where`` sends no gradient into the branch it does not
    pick, so the gradient at the zero vector is 0, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.normalize(mg.tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    >>> round(F.cosine_similarity(mg.tensor([1.0, 0.0]), mg.tensor([1.0, 1.0]), dim=0).item(), 4)
    0.7071
"""

from __future__ import annotations

import math
from typing import Any

from ..kernels.infer_meta import broadcast_shapes
from ..tensor import Tensor
from ._checks import check_tensor, check_tensors
from .math import abs, add, cast, clip, div, gt, mul, ne, pow, sqrt, sub, where
from .reduce import amax as _max
from .reduce import amin as _min
from .reduce import sum
from .registry import type_name
from .clamp import clamp_min
from .norm import vector_norm_op
from .shape import expand

__all__ = ["cosine_similarity", "pairwise_distance"]  # torch.cosine_similarity, torch.pairwise_distance


def vector_norm(x: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """The ``p``-norm along ``dim`` (composite; NOTE [ The gradient of a norm at zero ])."""
    if p == math.inf:
        return _max(abs(x), dim=dim, keepdim=keepdim)
    if p == -math.inf:
        return _min(abs(x), dim=dim, keepdim=keepdim)
    if p == 0:  # the number of non-zero entries: no gradient, as in PyTorch (where it is 0)
        return sum(cast(ne(x, 0.0), x.dtype), dim=dim, keepdim=keepdim)
    if p == 1:
        return sum(abs(x), dim=dim, keepdim=keepdim)
    if p == 2:
        powered = mul(x, x)
    else:  # |x|^p has an infinite slope at 0 for p < 1: read it at 1 there and select 0 (as PyTorch, gradient 0)
        nonzero = ne(x, 0.0)
        powered = where(nonzero, pow(abs(where(nonzero, x, 1.0)), float(p)), 0.0)
    s = sum(powered, dim=dim, keepdim=keepdim)
    positive = gt(s, 0.0)
    safe = where(positive, s, 1.0)
    root = sqrt(safe) if p == 2 else pow(safe, 1.0 / p)
    return where(positive, root, 0.0)


def _check_dim(op: str, dim: Any, ndim: int) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{op}(): argument 'dim' must be int, but got {type_name(dim)}")
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim


def _check_p(op: str, p: Any) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{op}(): argument 'p' must be a number, but got {type_name(p)}")
    return float(p)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``: unit vectors (composite of the ``vector_norm``,
    ``clamp_min``, ``expand`` and ``div`` ops, as PyTorch's)."""
    op = "normalize"
    check_tensor(op, "input", 0, input)
    if out is not None:
        raise TypeError(f"{op}(): the 'out' argument is not supported by minigrad")
    p = _check_p(op, p)
    _check_dim(op, dim, input.ndim)
    # PyTorch's graph: the norm op, clamp_min, expand, div
    norm = clamp_min(vector_norm_op(input, p, dim, keepdim=True), eps)
    return div(input, expand(norm, tuple(input.shape)))


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps))`` along ``dim``, the inputs broadcast (composite)."""
    op = "cosine_similarity"
    check_tensors(op, x1=x1, x2=x2)
    shape = broadcast_shapes(op, tuple(x1.shape), tuple(x2.shape), ("x1", "x2"))
    _check_dim(op, dim, len(shape))
    # Broadcast first: a norm along ``dim`` counts every copy an input is broadcast to.
    x1 = x1 if tuple(x1.shape) == shape else expand(x1, shape)
    x2 = x2 if tuple(x2.shape) == shape else expand(x2, shape)
    u1 = div(x1, clip(vector_norm(x1, 2.0, dim, keepdim=True), eps, None))
    u2 = div(x2, clip(vector_norm(x2, 2.0, dim, keepdim=True), eps, None))
    return sum(mul(u1, u2), dim=dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dim, the inputs broadcast (composite)."""
    op = "pairwise_distance"
    check_tensors(op, x1=x1, x2=x2)
    shape = broadcast_shapes(op, tuple(x1.shape), tuple(x2.shape), ("x1", "x2"))
    p = _check_p(op, p)
    d = add(sub(x1, x2), eps)
    if not shape:  # two scalars: the distance is |x1 - x2 + eps|
        return abs(d)
    return vector_norm(d, p, -1, keepdim=keepdim)
