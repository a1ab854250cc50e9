"""Ordering along one dim: ``argsort`` (an op, no gradient), and the composites ``sort`` and ``topk``.

``argsort`` is the one kernel: the int64 positions that put ``input`` in
order along ``dim``. ``sort`` and ``topk`` read the values at those positions
with ``gather``, so their backward is ``gather``'s: every value sends its
gradient back to the position it came from (PyTorch's ``sort``/``topk``
backward is that same scatter). In a trace they show up as an ``argsort``
and a ``gather`` node.

Order rules, as PyTorch's: NaN sorts above every number (last ascending,
first descending); ``stable=True`` keeps equal elements in their original
order; ``minigrad``'s argsort is always stable, so ``stable=False`` gives the
stable order too (PyTorch allows any order of ties then).

Example:
    >>> import minigrad as mg
    >>> v, i = mg.sort(mg.tensor([3.0, 1.0, 2.0]), descending=True)
    >>> v.tolist(), i.tolist()
    ([3.0, 2.0, 1.0], [0, 2, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_int
from .registry import Attr, defop, type_name
from .scatter_gather import gather_op
from .shape import getitem
from .torch_forms import return_types

__all__ = ["argsort", "sort", "topk", "msort"]


def infer_argsort(op: str, x: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """InferMeta: int64 positions of ``x``'s shape; ``dim`` must name one of ``x``'s dims."""
    nd = max(x.ndim, 1)
    if not -nd <= dim < nd:
        raise ValueError(f"{op}(): dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return tuple(x.shape), np.dtype(np.int64)


@register_kernel("argsort", Backend.CPU, dtypes=ALL_DTYPES)
def argsort_cpu(x: np.ndarray, dim: int = -1, descending: bool = False, stable: bool = False) -> np.ndarray:
    """A stable NumPy argsort; descending order sorts the reversed array and reverses back, which keeps
    ties in their original order and puts NaN first."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if not descending:
        return np.argsort(x, axis=dim, kind="stable").astype(np.int64, copy=False)
    n = x.shape[dim]
    rev = np.flip(x, axis=dim)
    order = np.flip(np.argsort(rev, axis=dim, kind="stable"), axis=dim)
    return np.ascontiguousarray(n - 1 - order, dtype=np.int64)


argsort_op = defop(
    "argsort",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int), Attr("descending", False, check_bool), Attr("stable", False, check_bool)),
    infer_meta=infer_argsort,
    differentiable=False,
    doc="the int64 positions that sort x along dim (stable; NaN counts as the largest value)",
)


def _check_tensor(op: str, v: Any) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 0) must be Tensor, but got {type_name(v)}")


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The positions that sort ``input`` along ``dim`` (``torch.argsort``), int64, no gradient.

    Example:
        >>> import minigrad as mg
        >>> mg.argsort(mg.tensor([3.0, 1.0, 2.0])).tolist()
        [1, 2, 0]
    """
    _check_tensor("argsort", input)
    return argsort_op(input, dim, descending, stable)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """``(values, indices)`` of ``input`` sorted along ``dim`` (``torch.sort``). Composite: ``argsort`` then
    ``gather``, whose backward puts each value's gradient back where the value came from."""
    _check_tensor("sort", input)
    indices = argsort_op(input, dim, descending, stable)
    d = dim % max(input.ndim, 1)
    return return_types.sort(gather_op(input, indices, d), indices)


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values`` (``torch.msort``)."""
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements along ``dim``
    (``torch.topk``). Composite: a stable ``argsort``, its first ``k`` positions, ``gather``. The result
    is always in sorted order (PyTorch leaves the order open for ``sorted=False``); ties keep the lower
    index first.

    Example:
        >>> import minigrad as mg
        >>> mg.topk(mg.tensor([1.0, 5.0, 3.0, 4.0]), 2).indices.tolist()
        [1, 3]
    """
    _check_tensor("topk", input)
    k = check_int("topk", "k", 1, k)
    dim = check_int("topk", "dim", 2, dim)
    check_bool("topk", "largest", 3, largest)
    check_bool("topk", "sorted", 4, sorted)
    nd = max(input.ndim, 1)
    if not -nd <= dim < nd:
        raise ValueError(f"topk(): dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    d = dim % nd
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk(): selected index k out of range (k={k}, size {size} along dim {dim})")
    order = argsort_op(input, d, largest, True)
    if k != size:
        order = getitem(order, (slice(None),) * d + (slice(0, k),))
    return return_types.topk(gather_op(input, order, d), order)
