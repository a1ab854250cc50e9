"""Searching and counting values: ``searchsorted``, ``bucketize``, ``unique``, ``unique_consecutive``, ``isin``,
``bincount``, ``histc``, ``histogram``.

All are ops without a gradient (their results are positions and counts). The
shapes of ``unique``'s results depend on the values, so its InferMeta reads
them, as PyTorch synchronises with the GPU there. Two have a node that only
refuses, as PyTorch's: ``unique_consecutive``'s values (``UniqueConsecutiveBackward0``)
and ``histogram``'s results (``NotImplemented``).

Example:
    >>> import minigrad as mg
    >>> mg.searchsorted(mg.tensor([1.0, 3.0, 5.0]), mg.tensor([0.0, 3.0, 6.0])).tolist()
    [0, 1, 3]
    >>> values, counts = mg.unique(mg.tensor([3, 1, 3, 2]), return_counts=True)
    >>> values.tolist(), counts.tolist()
    ([1, 2, 3], [1, 1, 2])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES, cpp_type_name
from ..errors import OutOfRangeError
from ..kernels.array_kernels import distinct_values, histogram_range, nonzero_count, searchsorted_arrays, sorted_runs
from ..kernels.backends import to_numpy
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..ranges import linspace_array
from ..tensor import Tensor
from . import _return_types as return_types
from ._checks import check_bool, check_int, check_tensor, wrap_dim
from .registry import Attr, Input, defop, type_name

__all__ = ["searchsorted", "bucketize", "unique", "unique_consecutive", "isin", "bincount", "histc", "histogram"]


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


# -- unique_consecutive ----------------------------------------------------------------------------------


def _runs(x: np.ndarray, dim: Any) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal values (``dim``: equal slices) starts, as a bool per position, and the positions
    along the compared axis: ``x`` flattened, or ``dim`` moved to the front with the rest flattened. NaN equals
    nothing, so each NaN starts a run."""
    rows = x.reshape(-1) if dim is None else np.moveaxis(x, dim, 0).reshape(x.shape[dim], x.size // max(x.shape[dim], 1))
    starts = np.ones(rows.shape[0], dtype=bool)
    if rows.shape[0] > 1:
        differ = rows[1:] != rows[:-1]
        starts[1:] = differ if dim is None else differ.any(axis=1)
    return starts, rows


def _infer_unique_consecutive(op: str, x: Any, dim: Any = None) -> tuple[tuple[int, ...], Any]:
    """InferMeta: the values' shape, read from ``x`` (how many runs there are); refused as PyTorch refuses a
    ``dim`` and a tensor with a 0-sized dim it does not select."""
    if dim is not None:
        if x.ndim == 0:
            raise OutOfRangeError(f"Dimension specified as {dim} but tensor has no dimensions")
        dim = wrap_dim("unique_consecutive", dim, x.ndim)
        if x.size == 0 and x.shape[dim] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    starts, _ = _runs(to_numpy(x), dim)
    count = int(starts.sum())
    return ((count,) if dim is None else tuple(x.shape[:dim]) + (count,) + tuple(x.shape[dim + 1:])), x.dtype


def _infer_consecutive_runs(op: str, x: Any, dim: Any = None) -> list[tuple[tuple[int, ...], Any]]:
    """InferMeta: the inverse map (``x``'s shape, or the length of ``dim``) and one count per run (int64)."""
    shape, _ = _infer_unique_consecutive(op, x, dim)
    along = tuple(x.shape) if dim is None else (x.shape[wrap_dim(op, dim, x.ndim)],)
    n = shape[0] if dim is None else shape[wrap_dim(op, dim, x.ndim)]
    return [(along, np.dtype(np.int64)), ((n,), np.dtype(np.int64))]


@register_kernel("unique_consecutive", Backend.CPU, dtypes=ALL_DTYPES)
def unique_consecutive_cpu(x: np.ndarray, dim: Any = None) -> np.ndarray:
    """The first element (slice) of each run."""
    starts, rows = _runs(x, None if dim is None else dim % x.ndim)
    if dim is None:
        return np.ascontiguousarray(rows[starts])
    return np.ascontiguousarray(np.compress(starts, x, axis=dim % x.ndim))


@register_kernel("unique_consecutive_runs", Backend.CPU, dtypes=ALL_DTYPES)
def unique_consecutive_runs_cpu(x: np.ndarray, dim: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Each element's run (its index among the values) and each run's length."""
    starts, _ = _runs(x, None if dim is None else dim % x.ndim)
    inverse = np.cumsum(starts, dtype=np.int64) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), starts.size)).astype(np.int64)
    return (inverse.reshape(x.shape) if dim is None else inverse), counts


_unique_consecutive = defop("unique_consecutive", inputs=("input",), attrs=(Attr("dim", None, _check_dim_or_none),),
                            infer_meta=_infer_unique_consecutive,
                            doc="the first element (slice along dim) of each run of equal ones")
_consecutive_runs = defop("unique_consecutive_runs", inputs=("input",),
                          attrs=(Attr("dim", None, _check_dim_or_none),), infer_meta=_infer_consecutive_runs,
                          differentiable=False, doc="unique_consecutive's inverse map and counts")


@_unique_consecutive.def_backward
def _unique_consecutive_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch has no derivative for it: its node (``UniqueConsecutiveBackward0``) refuses, in its words."""
    raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """The first of each run of equal consecutive elements (``torch.unique_consecutive``; ``dim``: of equal
    slices along it), with each element's run (``return_inverse``) and each run's length (``return_counts``).
    The values' node is ``UniqueConsecutiveBackward0``, which refuses a backward, as PyTorch's."""
    check_tensor("unique_consecutive", "input", 0, input)
    values = _unique_consecutive(input, dim)
    if not (return_inverse or return_counts):
        return values
    inverse, counts = _consecutive_runs(input, dim)
    return (values, *[t for t, want in ((inverse, return_inverse), (counts, return_counts)) if want])


# -- isin ------------------------------------------------------------------------------------------------


def _infer_isin(op: str, x: Any, y: Any, invert: bool = False) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape), np.dtype(np.bool_)


@register_kernel("isin", Backend.CPU, dtypes=NUMERIC_DTYPES)
def isin_cpu(x: np.ndarray, y: np.ndarray, invert: bool = False) -> np.ndarray:
    """NumPy's ``isin`` on the two in their promoted dtype (NaN is in nothing)."""
    return np.asarray(np.isin(x, y, invert=invert))


_isin = defop("isin", inputs=(Input("elements", scalar_ok=True), Input("test_elements", scalar_ok=True)),
              attrs=(Attr("invert", False, check_bool),), infer_meta=_infer_isin, transform_dtype=True,
              differentiable=False, doc="whether each element is one of test_elements (invert: is not)")


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of ``elements`` occurs in ``test_elements`` (``torch.isin``): a bool tensor of
    ``elements``' shape; ``invert=True`` for the opposite. Either may be a number, not both; the two are
    compared in their promoted dtype. ``assume_unique`` only lets PyTorch pick an algorithm: the answer is
    the same."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({type_name(elements)}, "
                        f"{type_name(test_elements)}), but expected one of: (Tensor elements, Tensor "
                        "test_elements), (Number element, Tensor test_elements), (Tensor elements, Number test_element)")
    check_bool("isin", "assume_unique", 2, assume_unique)
    for t in (elements, test_elements):
        if isinstance(t, Tensor) and t.dtype.name == "bool":
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    return _isin(elements, test_elements, invert)


# -- histogram -------------------------------------------------------------------------------------------


def _infer_histogram(op: str, x: Any, bins: Any = None, weight: Any = None, bin_count: int = 1, low: float = 0.0,
                     high: float = 1.0, density: bool = False) -> list[tuple[tuple[int, ...], Any]]:
    n = bin_count if bins is None else bins.shape[0] - 1
    return [((n,), x.dtype), ((n + 1,), x.dtype)]


@register_kernel("histogram", Backend.CPU, dtypes=FLOAT_DTYPES)
def histogram_cpu(x: np.ndarray, bins: Any = None, weight: Any = None, bin_count: int = 1, low: float = 0.0,
                  high: float = 1.0, density: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Each element in ``[edges[0], edges[-1]]`` counted (or its weight added, in order, in the dtype) in the
    bin whose edges hold it, the last bin closed on the right; the rest ignored. The edges are ``bins``, or
    ``bin_count + 1`` points from ``low`` to ``high`` as ``linspace`` makes them."""
    edges = bins if bins is not None else linspace_array(low, high, bin_count + 1, x.dtype)
    flat = x.reshape(-1)
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    position = np.minimum(np.searchsorted(edges, flat[inside], side="right") - 1, edges.size - 2)
    hist = np.zeros(edges.size - 1, dtype=x.dtype)
    np.add.at(hist, position, np.ones(1, x.dtype) if weight is None else weight.reshape(-1)[inside])
    if density:  # PyTorch's two steps: over the total, then over each bin's width
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = (hist / hist.sum(dtype=x.dtype)).astype(x.dtype) / np.diff(edges)
    return hist.astype(x.dtype), np.array(edges, dtype=x.dtype)


_histogram = defop("histogram", inputs=("input", Input("bins", optional=True), Input("weight", optional=True)),
                   attrs=(Attr("bin_count", 1, check_int), Attr("low", 0.0, _number), Attr("high", 1.0, _number),
                          Attr("density", False, check_bool)),
                   infer_meta=_infer_histogram, key_inputs=(0,),
                   doc="(hist, bin_edges): the counts (or weights) of input in bins, given as edges or as a count "
                       "over [low, high]")


@_histogram.def_backward
def _histogram_backward(ctx: Any, grads: Any) -> tuple[Any, ...]:
    """PyTorch has no derivative for it: its node (``NotImplemented``) refuses, in its words."""
    raise RuntimeError("derivative for aten::histogram is not implemented")


def histogram_bounds(input: Tensor, bins: int, range: Any, dim: int = 0) -> tuple[float, float]:
    """The outer edges: ``range``, or the data's min and max ([0, 1] for no data), widened by 0.5 each way
    where they are one point; refused, in PyTorch's words, when not finite or reversed. ``dim``: which dim of
    ``histogramdd``'s points ``input`` holds (its words name it)."""
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}")
    if range is not None:
        low, high = (float(v) for v in range)
    elif input.numel() == 0:
        low, high = 0.0, 1.0
    else:  # read on the host, as PyTorch's aminmax().item() there
        low, high = float(to_numpy(input._data.min())), float(to_numpy(input._data.max()))
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for "
                           f"dimension {dim}")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{low:g}, {high:g}] is not finite")
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _check_histogram_tensors(input: Tensor, bins: Any, weight: Any) -> None:
    """PyTorch's refusals of the input's dtype, the bins tensor and the weights."""
    kernel = '"histogram_cpu"' if isinstance(bins, Tensor) else '"histogramdd"'
    if input.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f"{kernel} not implemented for '{scalar_type_name(input.dtype)}'")
    if weight is not None:
        check_tensor("histogram", "weight", 3, weight)
        if weight.numel() != input.numel():
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"[{input.numel()}, 1] and weight with shape {list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({cpp_type_name(input.dtype)}), and "
                               f"weight({cpp_type_name(weight.dtype)})")
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
                               "dimensions in the bins tensor for dimension 0")
        if bins.numel() == 0:
            raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
                               "in the bins tensor for dimension 0")
        if bins.numel() == 1:
            raise RuntimeError("torch.histogram(): bins must be > 0, but got 0 for dimension 0")
        if bins.dtype is not input.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {cpp_type_name(input.dtype)} and bins for dimension 0 with dtype "
                               f"{cpp_type_name(bins.dtype)}")


def histogram(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,
              density: bool = False) -> Any:
    """A histogram of ``input``'s values (``torch.histogram``): ``return_types.histogram(hist, bin_edges)``.

    ``bins`` is a count of equal-width bins over ``range`` (the data's min and max when None) or a 1-D
    tensor of increasing edges; ``weight`` adds each element's weight instead of 1; ``density`` divides
    by the total and by each bin's width. float32 and float64 only, as PyTorch's CPU kernel."""
    check_tensor("histogram", "input", 0, input)
    by_count = isinstance(bins, (int, np.integer)) and not isinstance(bins, bool)
    if not (by_count or isinstance(bins, Tensor)) or (isinstance(bins, Tensor) and range is not None):
        got = ", ".join(["Tensor", type_name(bins)] + (["range=tuple"] if range is not None else []))
        raise TypeError(f"histogram() received an invalid combination of arguments - got ({got}), but expected one "
                        "of: (Tensor input, Tensor bins, *, Tensor weight, bool density), (Tensor input, int bins, "
                        "*, tuple of floats range, Tensor weight, bool density)")
    _check_histogram_tensors(input, bins, weight)
    if by_count:
        low, high = histogram_bounds(input, int(bins), range)
        hist, edges = _histogram(input, None, weight, int(bins), low, high, density)
    else:
        hist, edges = _histogram(input, bins, weight, 1, 0.0, 1.0, density)
    return return_types.histogram(hist, edges)
