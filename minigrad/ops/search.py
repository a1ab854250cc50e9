"""Searching and counting values: ``searchsorted``, ``bucketize``, ``unique``, ``bincount``, ``histc``.

All are ops without a gradient (their results are positions and counts). The
shapes of ``unique``'s results depend on the values, so its InferMeta reads
them, as PyTorch synchronises with the GPU there.

Example:
    >>> import minigrad as mg
    >>> mg.searchsorted(mg.tensor([1.0, 3.0, 5.0]), mg.tensor([0.0, 3.0, 6.0])).tolist()
    [0, 1, 3]
    >>> values, counts = mg.unique(mg.tensor([3, 1, 3, 2]), return_counts=True)
    >>> values.tolist(), counts.tolist()
    ([1, 2, 3], [1, 1, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES
from ..kernels.array_kernels import distinct_values, histogram_range, nonzero_count, searchsorted_arrays, sorted_runs
from ..kernels.backends import to_numpy
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_int, check_tensor, wrap_dim
from .registry import Attr, Input, defop, type_name

__all__ = ["searchsorted", "bucketize", "unique", "bincount", "histc"]


# -- searchsorted ------------------------------------------------------------------------------------


def infer_searchsorted(op: str, seq: Any, values: Any, right: bool = False) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``values``' shape, int64; a batched ``seq`` must match ``values`` in its leading dims."""
    if seq.ndim > 1 and (values.ndim != seq.ndim or tuple(values.shape[:-1]) != tuple(seq.shape[:-1])):
        raise RuntimeError(f"{op}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                           f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(values.shape)}")
    return tuple(values.shape), np.dtype(np.int64)


@register_kernel("searchsorted", Backend.CPU, dtypes=NUMERIC_DTYPES)
def searchsorted_cpu(seq: np.ndarray, values: np.ndarray, right: bool = False) -> np.ndarray:
    return searchsorted_arrays(np, seq, values, right)


searchsorted_op = defop("searchsorted", inputs=("sorted_sequence", Input("values", scalar_ok=True)),
                        attrs=(Attr("right", False, check_bool),), infer_meta=infer_searchsorted,
                        differentiable=False, doc="where each value would go in the sorted last dim (int64)")


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Any = None) -> Tensor:
    """The index at which each element of ``input`` would be inserted into ``sorted_sequence``'s last dim
    to keep it sorted (``torch.searchsorted``; ``side="right"`` or ``right=True`` for the last such index)."""
    check_tensor("searchsorted", "sorted_sequence", 0, sorted_sequence)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side!r}")
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    out = searchsorted_op(sorted_sequence, input, right)
    return out.int() if out_int32 else out


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each element of ``input`` for the sorted 1-D ``boundaries`` (``torch.bucketize``):
    ``i`` with ``boundaries[i-1] < x <= boundaries[i]`` (``<=`` / ``<`` swapped with ``right=True``)."""
    check_tensor("bucketize", "boundaries", 1, boundaries)
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    out = searchsorted_op(boundaries, input, right)
    return out.int() if out_int32 else out


# -- unique --------------------------------------------------------------------------------------------


def _unique_slices(x: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``unique`` with ``dim``: NumPy's ``unique`` of the slices along ``dim``."""
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
    return values, inverse.reshape(x.shape[dim]).astype(np.int64), counts.astype(np.int64)


def infer_unique(op: str, x: Any, dim: Any = None, count: int = -1) -> list[tuple[tuple[int, ...], Any]]:
    """InferMeta: the ``count`` distinct values (read by the caller), the inverse map and the counts; with
    ``dim``, the distinct slices, read from ``x`` here."""
    if dim is not None:
        values, inverse, counts = _unique_slices(to_numpy(x), wrap_dim("unique", dim, x.ndim))
        return [(values.shape, x.dtype), (inverse.shape, np.dtype(np.int64)), (counts.shape, np.dtype(np.int64))]
    return [((count,), x.dtype), (tuple(x.shape), np.dtype(np.int64)), ((count,), np.dtype(np.int64))]


@register_kernel("unique", Backend.CPU, dtypes=ALL_DTYPES)
def unique_cpu(x: np.ndarray, dim: Any = None, count: int = -1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if dim is not None:
        return _unique_slices(x, dim % max(x.ndim, 1))
    return distinct_values(x, "cpu", count)


def _check_dim_or_none(op: str, name: str, pos: int, v: Any) -> Any:
    return None if v is None else check_int(op, name, pos, v)


unique_op = defop("unique", inputs=("x",), attrs=(Attr("dim", None, _check_dim_or_none), Attr("count", -1, check_int)),
                  infer_meta=infer_unique, differentiable=False,
                  doc="the sorted distinct values, where each element went, and their counts (count: how many "
                      "distinct values, read by the caller; -1 with dim)")


def distinct_count(array: Any) -> int:
    """How many distinct values ``array`` holds (each NaN its own), read on the host: from a GPU one int64
    copied back and a sync, as PyTorch's CUDA ``unique`` makes (NOTE [ unique sorts, then marks where the value
    changes ] in kernels/array_kernels.py)."""
    return nonzero_count(sorted_runs(array)[2])


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """The distinct values of ``input`` in sorted order (``torch.unique``), with the index of each element's
    value (``return_inverse``) and how often each value occurs (``return_counts``); ``dim`` compares slices.
    The values are always sorted (PyTorch's CPU result is too)."""
    check_tensor("unique", "input", 0, input)
    values, inverse, counts = unique_op(input, dim, -1 if dim is not None else distinct_count(input._data))
    extra = [t for t, want in ((inverse, return_inverse), (counts, return_counts)) if want]
    return (values, *extra) if extra else values


# -- bincount, histc -------------------------------------------------------------------------------------


def infer_bincount(op: str, x: Any, weights: Any = None, minlength: int = 0, size: int = -1) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``size`` bins (``max(x) + 1``, at least ``minlength``: read by the caller); int64 counts, or the
    weights' float dtype."""
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise RuntimeError(f"bincount(): input must be a 1-d non-negative integer tensor, but got {x.dtype} "
                           f"of shape {tuple(x.shape)}")
    if minlength < 0:
        raise RuntimeError("bincount(): minlength should be >= 0")
    if weights is not None and tuple(weights.shape) != tuple(x.shape):
        raise RuntimeError("bincount(): weights should be 1-d and have the same length as input")
    dtype = np.dtype(np.int64) if weights is None else (weights.dtype if weights.dtype.kind == "f" else np.dtype(np.float64))
    return (size,), dtype


@register_kernel("bincount", Backend.CPU, dtypes=INT_DTYPES)
def bincount_cpu(x: np.ndarray, weights: Any = None, minlength: int = 0, size: int = -1) -> np.ndarray:
    out = np.bincount(x, weights=weights, minlength=size)
    dtype = np.int64 if weights is None else (weights.dtype if weights.dtype.kind == "f" else np.float64)
    return np.asarray(out, dtype=dtype)


bincount_op = defop("bincount", inputs=("x", Input("weights", optional=True, differentiable=False)),
                    attrs=(Attr("minlength", 0, check_int), Attr("size", -1, check_int)), key_inputs=(0,),
                    infer_meta=infer_bincount, differentiable=False,
                    doc="how often each non-negative integer occurs (or the sum of its weights), in size bins "
                        "(max(x) + 1, at least minlength: read by the caller)")


def _bins(x: Any, minlength: int) -> int:
    """``max(x) + 1`` bins, at least ``minlength``, for a 1-D integer array, refusing a negative value: its min and
    max read on the host (from a GPU, two copies and two syncs: PyTorch CUDA's two ``.item()``); -1 for an array
    or a ``minlength`` InferMeta will refuse."""
    if x.ndim != 1 or x.dtype.kind not in "iu" or minlength < 0:
        return -1
    if x.size and to_numpy(x.min()) < 0:
        raise RuntimeError("bincount(): input must contain only non-negative integers")
    return max(int(to_numpy(x.max())) + 1 if x.size else 0, minlength)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value ``0 .. max(input)`` occurs in the 1-D int tensor ``input`` (``torch.bincount``);
    with ``weights`` the sum of the weights of its occurrences."""
    check_tensor("bincount", "input", 0, input)
    return bincount_op(input, weights, minlength, _bins(input._data, check_int("bincount", "minlength", 2, minlength)))


def infer_histc(op: str, x: Any, bins: int = 100, min: float = 0.0, max: float = 0.0) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``bins`` counts in ``x``'s floating dtype."""
    if x.dtype.kind != "f":
        raise RuntimeError(f"histc(): input must be a floating-point tensor, but got {x.dtype}")
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins}")
    if max < min:
        raise RuntimeError("histc(): max must be larger than min")
    return (bins,), x.dtype


@register_kernel("histc", Backend.CPU, dtypes=FLOAT_DTYPES)
def histc_cpu(x: np.ndarray, bins: int = 100, min: float = 0.0, max: float = 0.0) -> np.ndarray:
    lo, hi = histogram_range(float(min), float(max), lambda: (float(np.min(x)), float(np.max(x))) if x.size else (min, max))
    counts, _ = np.histogram(x, bins=bins, range=(lo, hi))
    return np.asarray(counts, dtype=x.dtype)


def _number(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type_name(v)}")
    return float(v)


histc = defop("histc", inputs=("x",), attrs=(Attr("bins", 100, check_int), Attr("min", 0.0, _number),
                                              Attr("max", 0.0, _number)),
              infer_meta=infer_histc, differentiable=False, methods=("histc",),
              doc="a histogram of x with bins equal-width bins over [min, max] (the data's range when equal)")
