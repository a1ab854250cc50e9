"""Norms and distances of ``torch.nn.functional``: ``normalize``, ``cosine_similarity``, ``pairwise_distance``.

Composites, each PyTorch's op for op: the norms are the ``vector_norm`` and ``norm`` ops
(``ops/norm.py``), whose backward gives 0 at the zero vector, as PyTorch's; ``pairwise_distance``
adds its ``eps`` with ``add_scalar``, PyTorch's ``add.Scalar`` (``AddBackward1``; ``ops/math.py``).

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.normalize(mg.tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    >>> round(F.cosine_similarity(mg.tensor([1.0, 0.0]), mg.tensor([1.0, 1.0]), dim=0).item(), 4)
    0.7071
"""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..dtypes import get_default_dtype, promote
from ..kernels.infer_meta import broadcast_shapes, scalar_type_name
from ..tensor import Tensor
from ._checks import check_tensor, check_tensors
from .math import add_scalar, cast, clone, div, mul, sub
from .reduce import sum
from .registry import type_name
from .clamp import clamp_min
from .norm import _norm_op, vector_norm_op
from .shape import expand
from ..dispatch.amp import autocast_as

__all__ = ["cosine_similarity", "pairwise_distance"]  # torch.cosine_similarity, torch.pairwise_distance


def _check_dim(op: str, dim: Any, ndim: int) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{op}(): argument 'dim' must be int, but got {type_name(dim)}")
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
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


@autocast_as("cosine_similarity")
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps))`` along ``dim``, the inputs broadcast.

    Composite, PyTorch's ``cosine_similarity`` op for op: both inputs expanded where their shapes differ,
    each norm (``vector_norm``, kept dims) cloned and clamped at ``eps`` in place under ``no_grad`` - so the
    gradient reaches the norm as if unclamped, as PyTorch's - then ``div``, ``mul`` and ``sum``.
    """
    op = "cosine_similarity"
    check_tensors(op, x1=x1, x2=x2)
    shape = broadcast_shapes(op, tuple(x1.shape), tuple(x2.shape), ("x1", "x2"))
    _check_dim(op, dim, len(shape))
    common = promote(x1.dtype, x2.dtype)
    if not common.is_floating:
        raise RuntimeError(f"{op}(): expected common dtype to be floating point, yet common dtype is "
                           f"{scalar_type_name(common)}")
    x1 = x1 if x1.dtype.is_floating else cast(x1, common)
    x2 = x2 if x2.dtype.is_floating else cast(x2, common)
    if tuple(x1.shape) != tuple(x2.shape):  # ATen's expand_outplace: both expanded (a norm counts every copy)
        x1, x2 = expand(x1, shape), expand(x2, shape)
    n1 = clone(vector_norm_op(x1, 2.0, (dim,), True))
    n2 = clone(vector_norm_op(x2, 2.0, (dim,), True))
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return sum(mul(div(x1, n1), div(x2, n2)), dim=dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dim, the inputs broadcast: PyTorch's composite, ``sub``,
    ``add_scalar`` and the ``norm`` op over the innermost dim (``NormBackward1``)."""
    op = "pairwise_distance"
    check_tensors(op, x1=x1, x2=x2)
    broadcast_shapes(op, tuple(x1.shape), tuple(x2.shape), ("x1", "x2"))
    p = _check_p(op, p)
    d = sub(x1, x2)
    d = add_scalar(d if d.dtype.is_floating else cast(d, get_default_dtype()), eps)
    return _norm_op(d, p, (max(x1.ndim, x2.ndim) - 1,), keepdim)
