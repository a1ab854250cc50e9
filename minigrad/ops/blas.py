"""BLAS-style products, as PyTorch names them: ``outer``, ``addmm``, ``addmv``, ``baddbmm``, ``addbmm``.

All are composites of ``matmul``, ``mul``, ``add`` and ``sum`` (no kernel or
backward of their own), so their gradients are those ops' and a trace shows
the product and the scaled sum as separate nodes:

- ``outer(a, b) = a[:, None] * b[None, :]``;
- ``addmm(input, m1, m2, beta, alpha) = beta * input + alpha * (m1 @ m2)``,
  and likewise ``addmv`` (matrix @ vector), ``baddbmm`` (batched), ``addbmm``
  (batched products summed over the batch).

With ``beta=0`` the ``input`` is ignored (NaN or inf in it do not reach the
result), as in PyTorch; ``beta=1``/``alpha=1`` add no multiplication node.

Example:
    >>> import minigrad as mg
    >>> mg.outer(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
    >>> mg.addmm(mg.ones(2, 2), mg.eye(2), mg.eye(2), beta=0.5).tolist()
    [[1.5, 0.5], [0.5, 1.5]]
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .linalg import matmul
from .math import add, mul
from .reduce import sum as _sum
from .registry import type_name
from .shape import reshape

__all__ = ["outer", "ger", "addmm", "addmv", "baddbmm", "addbmm"]


def _tensors(op: str, **named: Any) -> None:
    for pos, (name, v) in enumerate(named.items()):
        if not isinstance(v, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, but got {type_name(v)}")


def _scale(op: str, name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, but got {type_name(v)}")
    return v


def _ndim(op: str, name: str, t: Tensor, n: int, what: str) -> None:
    if t.ndim != n:
        raise RuntimeError(f"{op}(): {name} must be a {what}, but got a {t.ndim}-D tensor of shape {tuple(t.shape)}")


def _combine(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """``beta * input + alpha * product`` (arguments checked by the caller, before the product ran)."""
    scaled = product if alpha == 1 else mul(product, alpha)
    if beta == 0:  # PyTorch ignores input here: NaN and inf in it must not leak through 0 * input
        return scaled
    return add(input if beta == 1 else mul(input, beta), scaled)


def _check_broadcast(op: str, input: Tensor, shape: tuple[int, ...]) -> None:
    """Refuse an ``input`` that does not broadcast to ``shape`` before any op runs (no node left behind)."""
    a, b = tuple(input.shape), tuple(shape)
    if len(a) > len(b) or any(x not in (1, y) for x, y in zip(a[::-1], b[::-1])):
        raise RuntimeError(f"{op}(): input of shape {a} cannot be broadcast to the product's shape {b}")


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors, ``out[i, j] = input[i] * vec2[j]`` (composite: reshapes and ``mul``)."""
    _tensors("outer", input=input, vec2=vec2)
    _ndim("outer", "input", input, 1, "vector")
    _ndim("outer", "vec2", vec2, 1, "vector")
    return mul(reshape(input, (-1, 1)), vec2)


def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """The old name of ``outer``."""
    return outer(input, vec2)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-D ``mat1`` (n, m) and ``mat2`` (m, p); ``input`` broadcasts."""
    _tensors("addmm", input=input, mat1=mat1, mat2=mat2)
    _ndim("addmm", "mat1", mat1, 2, "matrix")
    _ndim("addmm", "mat2", mat2, 2, "matrix")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"addmm(): mat1 and mat2 shapes cannot be multiplied "
                           f"({mat1.shape[0]}x{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    _check_broadcast("addmm", input, (mat1.shape[0], mat2.shape[1]))
    beta, alpha = _scale("addmm", "beta", beta), _scale("addmm", "alpha", alpha)
    return _combine(input, matmul(mat1, mat2), beta, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` for a 2-D ``mat`` (n, m) and a 1-D ``vec`` (m)."""
    _tensors("addmv", input=input, mat=mat, vec=vec)
    _ndim("addmv", "mat", mat, 2, "matrix")
    _ndim("addmv", "vec", vec, 1, "vector")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"addmv(): size mismatch, got mat {tuple(mat.shape)} and vec {tuple(vec.shape)}")
    _check_broadcast("addmv", input, (mat.shape[0],))
    beta, alpha = _scale("addmv", "beta", beta), _scale("addmv", "alpha", alpha)
    return _combine(input, matmul(mat, vec), beta, alpha)


def _check_batches(op: str, batch1: Tensor, batch2: Tensor) -> None:
    _ndim(op, "batch1", batch1, 3, "3-D tensor")
    _ndim(op, "batch2", batch2, 3, "3-D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"{op}(): batch1 {tuple(batch1.shape)} and batch2 {tuple(batch2.shape)} cannot be "
                           f"multiplied (expected (b, n, m) and (b, m, p))")


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for 3-D ``batch1`` (b, n, m) and ``batch2`` (b, m, p)."""
    _tensors("baddbmm", input=input, batch1=batch1, batch2=batch2)
    _check_batches("baddbmm", batch1, batch2)
    _check_broadcast("baddbmm", input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    beta, alpha = _scale("baddbmm", "beta", beta), _scale("baddbmm", "alpha", alpha)
    return _combine(input, matmul(batch1, batch2), beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: the batched products summed over the batch."""
    _tensors("addbmm", input=input, batch1=batch1, batch2=batch2)
    _check_batches("addbmm", batch1, batch2)
    _check_broadcast("addbmm", input, (batch1.shape[1], batch2.shape[2]))
    beta, alpha = _scale("addbmm", "beta", beta), _scale("addbmm", "alpha", alpha)
    return _combine(input, _sum(matmul(batch1, batch2), dim=0), beta, alpha)
