"""GPU kernels of the reductions: hand-written CUDA (``cuda_src.reduce_source``).

A reduction over ``dim`` is turned into a row reduction: the kept axes are
moved first and the reduced ones last (a copy only when they are not already
in that order), giving a ``rows x cols`` matrix. Many rows: one block per
row. Few long rows (a full ``x.sum()``): each row is cut into chunks, one
block per chunk writes a partial, and the last block of the row to finish
combines the partials - one launch, so a 16M-element sum keeps every SM busy
without paying for a second launch from Python.
"""

from __future__ import annotations

import math
from typing import Any

import cupy
import numpy as np

from ...dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, bool_ as BOOL
from ..infer_meta import normalize_dims
from ..kept import kept
from ..key import Backend
from ..registry import in_dtype, register_kernel
from ..strided import laid_out_like
from . import cuda_src as src
from ._runtime import block_for, dtype_name, function
from .gemm import matmul as gemm

GPU = Backend.GPU

__all__ = ["reduce_rows", "combine_partials", "as_rows", "logsumexp"]

#: a chunk is at least this many elements (enough work per block to hide latency)
_MIN_CHUNK = 16384
#: aim for about this many blocks in flight when rows are few
_TARGET_BLOCKS = 2048


def as_rows(x: Any, dim: Any) -> tuple[Any, int, int, tuple[int, ...], tuple[int, ...]]:
    """``x`` as a contiguous (rows, cols) matrix with the reduced dims last.

    Returns ``(matrix, rows, cols, kept_shape, reduced_dims)``.
    """
    if dim is None and x.flags.c_contiguous and x.ndim:  # the common full reduction: no reordering
        return x.reshape(1, x.size), 1, x.size, (), tuple(range(x.ndim))
    dims = normalize_dims("reduce", dim, x.ndim)
    red = tuple(d for d in sorted(dims) if d < x.ndim)  # a 0-d x reduces over nothing
    keep = tuple(d for d in range(x.ndim) if d not in red)
    order = keep + red
    xt = x if order == tuple(range(x.ndim)) else x.transpose(order)
    xt = cupy.ascontiguousarray(xt)
    kept_shape = tuple(x.shape[d] for d in keep)
    rows = int(np.prod(kept_shape, dtype=np.int64)) if keep else 1
    cols = int(np.prod([x.shape[d] for d in red], dtype=np.int64)) if red else 1
    return xt.reshape(rows, cols), rows, cols, kept_shape, red


def _geometry(rows: int, cols: int) -> tuple[int, int, int]:
    """(chunks per row, chunk length, threads per block) for a rows x cols reduction."""
    chunks = 1
    if rows < _TARGET_BLOCKS and cols > 2 * _MIN_CHUNK:
        chunks = min(-(-cols // _MIN_CHUNK), max(1, _TARGET_BLOCKS // rows))
    chunk_len = -(-cols // chunks)
    if chunks > 1:  # chunks start on 16-byte boundaries (whole vectors), and none is empty
        chunk_len = -(-chunk_len // 8) * 8
        chunks = -(-cols // chunk_len)
    return chunks, chunk_len, block_for(chunk_len)


_WORK: dict[Any, Any] = {}


def _workspace(acc: Any, partials: int, rows: int) -> tuple[Any, Any, Any]:
    """Cached (partials buffer, zeroed tickets, dummy aux) for one-launch reductions, grown on demand.

    Safe to share because every kernel runs on the one default stream, in
    order; the kernel resets each ticket it used to 0 before it exits.
    """
    work = _WORK.get(acc)
    if work is None or work[0].size < partials or work[1].size < rows:
        dt = acc[0] if isinstance(acc, tuple) else acc  # (dtype, purpose): a second buffer of that dtype
        work = (cupy.empty((max(partials, 4096),), dtype=dt), cupy.zeros((max(rows, 4096),), dtype=np.uint32),
                cupy.empty((1,), dtype=dt))
        _WORK[acc] = work
    return work


def reduce_rows(op: str, m: Any, rows: int, cols: int, aux: Any = None, scale: float = 1.0) -> Any:
    """Reduce each row of the contiguous matrix ``m`` with ``op``; returns a (rows,) array of m's dtype."""
    acc = np.float64 if m.dtype == np.float64 else np.float32
    out = cupy.empty((rows,), dtype=m.dtype)
    if rows == 0:
        return out
    label, base, make = _names(op, m.dtype)
    chunks, chunk_len, threads = _geometry(rows, cols)
    partial, ticket, dummy = _workspace(acc, rows * chunks, rows)
    aux_arr = aux if aux is not None else dummy
    if chunks == 1:
        fn = function(label, make, base + "_final")
        fn((rows,), (threads,), (m, out, aux_arr, np.int64(rows), np.int64(cols), np.int64(1), np.int64(cols),
                                 np.float64(scale)))
        return out
    fn = function(label, make, base + "_single")
    fn((rows * chunks,), (threads,), (m, out, partial, ticket, aux_arr, np.int64(rows), np.int64(cols),
                                       np.int64(chunks), np.int64(chunk_len), np.float64(scale)))
    return out


#: (op, dtype) -> the module's label, the kernels' base name and the source's maker: strings built once, not
#: at every launch (as the elementwise kernels' ``_NAMES``)
_NAMES: dict[tuple[str, Any], tuple[str, str, Any]] = {}


def _names(op: str, dtype: Any) -> tuple[str, str, Any]:
    """The reduction module of ``op`` on ``dtype``: its label, its kernels' base name, its source's maker."""
    names = _NAMES.get((op, dtype))
    if names is None:
        dt = dtype_name(dtype)
        names = _NAMES[(op, dtype)] = (f"reduce_{op}_{dt}", src.kernel_name("reduce", op, dt),
                                       lambda: src.reduce_source(op, dt))
    return names


def combine_partials(op: str, partial: Any, out_dtype: Any, scale: float = 1.0, aux: Any = None) -> Any:
    """The second pass: reduce each row of the (rows, chunks) partials (in the accumulation type) to ``out_dtype``.

    ``op``'s post-step is applied here (``mean`` multiplies by ``scale``).
    """
    rows, chunks = partial.shape
    out = cupy.empty((rows,), dtype=out_dtype)
    if aux is None:
        aux = cupy.empty((1,), dtype=partial.dtype)
    label, base, make = _names(op, np.dtype(out_dtype))
    comb = function(label, make, base + "_combine")
    comb((rows,), (block_for(chunks),), (partial, out, aux, np.int64(rows), np.int64(chunks), np.int64(1),
                                         np.int64(chunks), np.float64(scale)))
    return out


def _finish(r: Any, x: Any, kept_shape: tuple[int, ...], red: tuple[int, ...], keepdim: bool) -> Any:
    if keepdim:
        return r.reshape(tuple(1 if d in red else s for d, s in enumerate(x.shape)))
    return r.reshape(kept_shape)


# NOTE [ A sum over the leading dims is a matrix-vector product ]
#     A bias's gradient sums the output's gradient over every dim but the last: ``(B, T, C)`` to ``(C,)``.
#     As a row reduction that needs the reduced dims last, a transposing copy of the whole gradient (a
#     launch, and a pass over memory) before the reduction's launch. A row-major ``(N, C)`` summed over N
#     is ``ones(N) @ x`` instead: one cuBLAS matrix-vector product reading ``x`` once, in order (cuBLAS is
#     deterministic without its atomics mode, the default). The vector of ones is kept per length and
#     dtype, so it is filled once. float16 keeps the row reduction (its accumulation type is cuBLAS's
#     choice there).
_ONES: dict[tuple[int, str], Any] = {}
_ONES_MAX = 64


def _leading_sum(x: Any, red: tuple[int, ...]) -> Any:
    """``x`` (row-major, float32/64) summed over ``red`` when those are its leading dims (not all of them),
    else None."""
    if x.dtype == np.float16 or not x.flags.c_contiguous or red != tuple(range(len(red))) or len(red) >= x.ndim:
        return None
    n = int(np.prod(x.shape[:len(red)], dtype=np.int64))
    c = x.size // n if n else 0
    if n == 0 or c == 0:
        return None
    ones = kept(_ONES, (n, x.dtype.str), lambda: cupy.ones((n,), dtype=x.dtype), _ONES_MAX)
    return gemm(ones.reshape(1, n), x.reshape(n, c)).reshape(c)


def _reduction(op: str, kernel_op: str, x: Any, dim: Any, keepdim: bool) -> Any:
    if op == "sum" and dim is not None and x.ndim >= 2:
        red = normalize_dims("reduce", dim, x.ndim)
        r = _leading_sum(x, red)
        if r is not None:
            return _finish(r, x, x.shape[len(red):], red, keepdim)
    m, rows, cols, kept_shape, red = as_rows(x, dim)
    if cols == 0:  # empty reductions: CuPy's own semantics (0 for sum, nan for mean, error for max)
        fn = {"sum": cupy.sum, "mean": cupy.mean, "max": cupy.max, "min": cupy.min}[op]
        return cupy.asarray(fn(x, axis=red, keepdims=keepdim), dtype=x.dtype)
    r = reduce_rows(kernel_op, m, rows, cols, scale=1.0 / cols)
    return _finish(r, x, kept_shape, red, keepdim)


@register_kernel("sum", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_sum")
def sum_(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    if dtype is not None and dtype.np != x.dtype:  # ``sum(x, dtype=...)``: that dtype's kernel on x cast to it
        return in_dtype("sum", GPU, x, dtype, dim, keepdim)
    return _reduction("sum", "sum", x, dim, keepdim)


# (integer inputs only with a floating ``dtype=``: InferMeta refuses them otherwise)
@register_kernel("mean", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cuda_mean")
def mean(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("mean", GPU, x, dtype, dim, keepdim)
    return _reduction("mean", "mean", x, dim, keepdim)


def _var_std(op: str, x: Any, dim: Any, correction: float, keepdim: bool) -> Any:
    """Two launches: the means of the rows shifted by their first element, then the sum of the shifted rows'
    squared deviations from them, times ``1 / (N - correction)`` (and its square root for ``std``). The shift
    makes a row of equal values exactly 0 apart, so its variance is exactly 0, as PyTorch's Welford gives it."""
    m, rows, cols, kept_shape, red = as_rows(x, dim)
    if cols == 0:  # an empty reduction: NaN, as PyTorch's
        return cupy.full(_finish(cupy.empty((rows,), dtype=x.dtype), x, kept_shape, red, keepdim).shape, np.nan,
                         dtype=x.dtype)
    mu = reduce_rows("mean_shifted", m, rows, cols, scale=1.0 / cols)
    acc = np.float64 if x.dtype == np.float64 else np.float32
    if mu.dtype != acc:  # float16 / bfloat16: the mean goes to the kernel in its accumulation type
        mu = mu.astype(acc)
    dof = cols - correction
    r = reduce_rows(op, m, rows, cols, aux=mu, scale=1.0 / dof if dof > 0 else math.inf)
    return _finish(r, x, kept_shape, red, keepdim)


@register_kernel("var", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_var")
def var(x: Any, dim: Any = None, correction: float = 1.0, keepdim: bool = False) -> Any:
    return _var_std("var", x, dim, correction, keepdim)


@register_kernel("std", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_std")
def std(x: Any, dim: Any = None, correction: float = 1.0, keepdim: bool = False) -> Any:
    return _var_std("std", x, dim, correction, keepdim)


@register_kernel("max", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_max")
def max_(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _reduction("max", "max", x, dim, keepdim)


@register_kernel("min", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_min")
def min_(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _reduction("min", "min", x, dim, keepdim)


@register_kernel("logsumexp", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_logsumexp")
def logsumexp(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """One pass over x with an online (max, scaled sum) state (``cuda_src.lse_source``)."""
    m, rows, cols, kept, red = as_rows(x, dim)
    out = cupy.empty((rows,), dtype=x.dtype)
    if cols == 0 or rows == 0:
        out.fill(-np.inf)
        return _finish(out, x, kept, red, keepdim)
    dt = dtype_name(x.dtype)
    acc = np.float64 if x.dtype == np.float64 else np.float32
    make = lambda: src.lse_source(dt)  # noqa: E731
    base = f"mg_lse_{src.DTYPES[dt][2]}"
    label = f"lse_{dt}"
    chunks, chunk_len, threads = _geometry(rows, cols)
    if chunks == 1:
        fn = function(label, make, base + "_final")
        fn((rows,), (threads,), (m, out, np.int64(rows), np.int64(cols), np.int64(1), np.int64(cols)))
    else:
        pm, ticket, _ = _workspace(acc, rows * chunks, rows)
        ps, _, _ = _workspace((acc, "lse"), rows * chunks, rows)
        fn = function(label, make, base + "_single")
        fn((rows * chunks,), (threads,), (m, out, pm, ps, ticket, np.int64(rows), np.int64(cols), np.int64(chunks),
                                           np.int64(chunk_len)))
    return _finish(out, x, kept, red, keepdim)


# -- two results from one node: each the kernel above ----------------------------------------------------


@register_kernel("var_mean", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_var_mean")
def var_mean(x: Any, dim: Any = None, correction: float = 1.0, keepdim: bool = False) -> tuple[Any, Any]:
    return var(x, dim, correction, keepdim), mean(x, dim, keepdim)


@register_kernel("std_mean", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_std_mean")
def std_mean(x: Any, dim: Any = None, correction: float = 1.0, keepdim: bool = False) -> tuple[Any, Any]:
    return std(x, dim, correction, keepdim), mean(x, dim, keepdim)


@register_kernel("aminmax", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_aminmax")
def aminmax(x: Any, dim: Any = None, keepdim: bool = False) -> tuple[Any, Any]:
    return min_(x, dim, keepdim), max_(x, dim, keepdim)


# -- argmax / argmin: CuPy's built-in reductions (library kernels, like cast and clone) ------------------


def _arg_kernel(fn: Any, name: str) -> Any:
    def kernel(x: Any, dim: Any = None, keepdim: bool = False) -> Any:
        if dim is None or x.ndim == 0:
            out = fn(x.reshape(-1)).astype(np.int64)
            return out.reshape((1,) * x.ndim) if keepdim else out
        return fn(x, axis=dim, keepdims=keepdim).astype(np.int64)

    kernel.__name__ = name
    return kernel


register_kernel("argmax", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_argmax")(_arg_kernel(cupy.argmax, "argmax"))
register_kernel("argmin", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_argmin")(_arg_kernel(cupy.argmin, "argmin"))


@register_kernel("sum", GPU, dtypes=INT_DTYPES + (BOOL,), name="gpu/cupy_sum_int")
def sum_int(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """An integer or bool tensor's sum, in int64 (``(pred == y).sum()``): CuPy's reduction, on the device."""
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("sum", GPU, x, dtype, dim, keepdim)
    axis = None if dim is None or x.ndim == 0 else (tuple(dim) if isinstance(dim, (list, tuple)) else dim)
    return cupy.sum(x, axis=axis, dtype=np.int64 if dtype is None else dtype.np, keepdims=keepdim)


def _library_axis(x: Any, dim: Any) -> Any:
    return None if dim is None or x.ndim == 0 else (tuple(dim) if isinstance(dim, (list, tuple)) else dim)


@register_kernel("prod", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_prod")
def prod(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """CuPy's product reduction; integers and bools in int64, a half multiplied in float32 (PyTorch's
    accumulation type), as the CPU kernel."""
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("prod", GPU, x, dtype, dim, keepdim)
    dtype = (np.int64 if x.dtype.kind in "biu" else x.dtype) if dtype is None else dtype.np
    acc = np.float32 if x.dtype == np.float16 else dtype
    return cupy.prod(x, axis=_library_axis(x, dim), dtype=acc, keepdims=keepdim).astype(dtype, copy=False)


@register_kernel("nansum", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_nansum")
def nansum(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """CuPy's sum of the elements with NaN read as 0 (integers and bools in int64)."""
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("nansum", GPU, x, dtype, dim, keepdim)
    dtype = (np.int64 if x.dtype.kind in "biu" else x.dtype) if dtype is None else dtype.np
    work = cupy.where(cupy.isnan(x), x.dtype.type(0), x) if x.dtype.kind == "f" else x
    return cupy.sum(work, axis=_library_axis(x, dim), dtype=dtype, keepdims=keepdim)


@register_kernel("trace", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_trace")
def trace(x: Any) -> Any:
    """The sum of the diagonal view, on the device (integers in int64)."""
    return cupy.sum(cupy.diagonal(x), dtype=np.int64 if x.dtype.kind in "biu" else x.dtype)


def _picked(x: Any, indices: Any, dim: int = 0, keepdim: bool = False) -> Any:
    """``max(dim)``/``min(dim)``'s values: one gather at the indices, read on the device (no host copy)."""
    idx = indices if keepdim else cupy.expand_dims(indices, dim)
    out = cupy.take_along_axis(x, idx, axis=dim)
    return (out if keepdim else cupy.squeeze(out, axis=dim)).copy()  # row-major (a 0-d stays 0-d)


register_kernel("max_values", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_max_values")(_picked)
register_kernel("min_values", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_min_values")(_picked)


def _picked_any(x: Any, indices: Any, dim: int = 0, keepdim: bool = True) -> Any:
    """``sort``'s, ``topk``'s, ``kthvalue``'s and ``median(dim)``'s values: one gather at argsort's positions;
    ``cummax``'s and ``cummin``'s at argcummax's and argcummin's (a 0-d input is its own value)."""
    return x.copy() if x.ndim == 0 else _picked(x, indices, dim, keepdim)


for _name in ("topk_values", "kthvalue_values", "median_values", "mode_values", "cummax_values", "cummin_values"):
    register_kernel(_name, GPU, dtypes=ALL_DTYPES, name=f"gpu/cupy_{_name}")(_picked_any)


@register_kernel("sort_values", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_sort_values")
def sort_values(x: Any, indices: Any, dim: int = 0, keepdim: bool = True) -> Any:
    """``sort``'s values, laid out as its indices (PyTorch's ``sort``: a dense input's strides)."""
    return laid_out_like(cupy, _picked_any(x, indices, dim, keepdim), x)


@register_kernel("median_all", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_median_all")
def median_all(x: Any, index: Any) -> Any:
    """``median()``'s value: the element at the flat position argsort found, read on the device."""
    return x.reshape(-1)[index.reshape(-1)].reshape(())


register_kernel("nanmedian_values", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_nanmedian_values")(_picked_any)
register_kernel("nanmedian_all", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_nanmedian_all")(median_all)


@register_kernel("nanmedian_indices", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_nanmedian_indices")
def nanmedian_indices(x: Any, dim: int = -1) -> Any:
    """``nanmedian``'s positions on the device: per slice the ``(n - 1) // 2``-th of its ``n`` numbers in a stable
    sort (NaN last), the CPU's choice; a slice of NaN only gives its first position, where the CPU's
    ``nth_element`` may leave another (PyTorch's CPU and CUDA kernels differ there as well)."""
    if x.ndim == 0:
        return cupy.zeros((), dtype=np.int64)
    d = dim % x.ndim
    order = cupy.argsort(x, axis=d)
    numbers = x.shape[d] - (cupy.isnan(x).sum(axis=d, keepdims=True) if x.dtype.kind == "f" else 0)
    k = cupy.maximum(numbers - 1, 0) // 2
    return cupy.ascontiguousarray(cupy.take_along_axis(order, cupy.asarray(k, dtype=np.int64), axis=d)).astype(np.int64)
