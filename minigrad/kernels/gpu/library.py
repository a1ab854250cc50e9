"""GPU kernels made of CuPy's own functions (library kernels): integer arithmetic, gather and scatter,
flip, roll, repeat, padding with a constant, pixel_shuffle and pixel_unshuffle, interpolate's upsample ops (gathers
and scatter-adds of taps kept on the device), the running sums and products, argsort, average pooling
(two matrix products, cuBLAS's; three in 3-D), the losses ``binary_cross_entropy`` and ``_with_logits``, ``soft_margin_loss``,
``smooth_l1_loss`` and ``huber_loss``,
``vector_norm`` (and ``norm``), ``div`` with a rounding mode and the in-place comparisons' values (``x.eq_(y)``).

Each of these ops had only its CPU kernel, so on the GPU it fell back: the
input copied to the host, the CPU kernel, the result copied back - two copies
and a sync at every call (``kernel.select`` with ``fallback_cpu: true``), in a
training step as much as anywhere: ``x.gather(1, y)``, ``(pred == y).sum()``,
``idx + 1``, ``F.pad``, and the backward of ``max(dim)``/``sort``/``topk``
(a ``scatter_add``). CuPy computes each with one or two kernels, on the device.

An index that can be out of range (gather, scatter) is checked on the device
(``_runtime.check_later``): the error, in the CPU kernel's words, is raised at
the next sync, as CUDA reports a device-side assert.
"""

from __future__ import annotations

from typing import Any

import cupy
import cupyx
import numpy as np

from ...devices import move_array, to_numpy
from ...dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, bool_ as BOOL, int32, int64
from ..kept import kept
from ..key import Backend
from ..registry import in_dtype, register_kernel
from ..array_kernels import (block_diag_arrays, mode_positions_arrays, distinct_values, histogram_range, inclusive_scan, index_pad_arrays, index_pad_backward_arrays,
                             log_add_exp, nonzero_positions, pad_geometry, pixel_shuffle_arrays, pixel_unshuffle_arrays,
                             product_at, spread_index, running_extreme_positions, rot90_steps, scatter_arrays, scatter_reduce_arrays,
                             searchsorted_arrays,
                             vector_norm_arrays, weight_norm_arrays, pack_padded_arrays, pack_padded_backward_arrays)
from ..loss_terms import (bce_terms, bce_with_logits_terms, huber_terms, multi_margin_grad, multi_margin_terms,
                          multilabel_margin_grad, multilabel_margin_terms, reduce_terms, smooth_l1_terms, soft_margin_terms)
from ..pool_windows import (adaptive_matrix, adaptive_tiles, apply_windows, apply_windows_3d, avg_matrices,
                            avg_matrices_3d, avg_tiles, tiled_mean, tiled_mean_adjoint)
from ..upsample import UPSAMPLE_OPS, dim_taps, kernel_dtypes, resample_arrays, resample_backward_arrays
from ..strided import copy_in_order, laid_out_like, order_and_inverse, row_major
from ._runtime import check_later, upload
from .ordered import add_at, set_at
from .elementwise import run_elementwise
from .shape import _DeviceScatter, _on_device

GPU = Backend.GPU

# -- integer and bool arithmetic: CuPy's ufuncs (the hand-written kernels are for floats) --------------

_ARITHMETIC = {  # op -> (CuPy ufunc, dtypes beyond the integers)
    "add": ("add", (BOOL,)), "sub": ("subtract", (BOOL,)), "mul": ("multiply", (BOOL,)),
    "maximum": ("maximum", (BOOL,)), "minimum": ("minimum", (BOOL,)),
    # Python's rules (a remainder takes the divisor's sign), as PyTorch's; a division by zero is not refused, as
    # on CUDA (the CPU kernel reads the divisor to refuse it: on a GPU that read would be a sync)
    "remainder": ("remainder", ()), "floor_divide": ("floor_divide", ()), "fmod": ("fmod", ()),
    # bit by bit (logical on bool): masks combined on the device (``~ignored``, ``causal & padding``)
    "bitwise_and": ("bitwise_and", (BOOL,)), "bitwise_or": ("bitwise_or", (BOOL,)),
    "bitwise_xor": ("bitwise_xor", (BOOL,)), "bitwise_left_shift": ("left_shift", ()),
    "bitwise_right_shift": ("right_shift", ()),
}


def _library_binary(op: str, fn_name: str, extra: tuple[Any, ...]) -> None:
    fn = getattr(cupy, fn_name)

    def kernel(x: Any, y: Any) -> Any:
        return fn(x, y)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=INT_DTYPES + extra, name=f"gpu/cupy_{op}")(kernel)


for _op, (_fn, _extra) in _ARITHMETIC.items():
    _library_binary(_op, _fn, _extra)


def _library_alpha(op: str, sign: int) -> None:
    """``add``/``sub`` with ``alpha`` on integers and bools: CuPy's ufuncs, ``alpha`` by value (``sub`` of bools
    is refused by the op's InferMeta before this runs)."""
    def kernel(x: Any, y: Any, alpha: Any = 1) -> Any:
        if x.dtype == np.bool_:
            return cupy.logical_or(x, y) if alpha else x.copy()
        return x + y * np.asarray(sign * alpha, np.int64).astype(x.dtype)[()]  # wraps, as C++

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=INT_DTYPES + (BOOL,), name=f"gpu/cupy_{op}")(kernel)


_library_alpha("add_alpha", 1)
_library_alpha("sub_alpha", -1)


@register_kernel("rsub", GPU, dtypes=INT_DTYPES, name="gpu/cupy_rsub")
def rsub(x: Any, y: Any, alpha: Any = 1) -> Any:
    """``y - alpha * x`` on integers (bools are refused before the call)."""
    return y + x * np.asarray(-alpha, np.int64).astype(x.dtype)[()]


@register_kernel("neg", GPU, dtypes=INT_DTYPES, name="gpu/cupy_neg")
def neg(x: Any) -> Any:
    return cupy.negative(x)


@register_kernel("abs", GPU, dtypes=INT_DTYPES, name="gpu/cupy_abs")
def abs_(x: Any) -> Any:
    return cupy.absolute(x)


@register_kernel("bitwise_not", GPU, dtypes=INT_DTYPES + (BOOL,), name="gpu/cupy_bitwise_not")
def bitwise_not(x: Any) -> Any:
    return cupy.invert(x)


# -- gather, scatter, scatter_add ----------------------------------------------------------------


def _positions(op: str, x: Any, index: Any, d: int) -> tuple[Any, ...]:
    """The CuPy index of every element ``index`` names (the CPU kernel's ``_positions``): ``index`` along
    ``d``, each element's own coordinate along the other dims (host ranges, on the device once per shape).
    The range of ``index`` is checked on the device."""
    size = x.shape[d] if x.ndim else 1

    def error(bad: np.ndarray, values: np.ndarray) -> RuntimeError:
        return RuntimeError(f"{op}(): index {int(bad[0])} is out of bounds for dimension {d} with size {size}")

    check_later(index, 0, size, error)
    grid: list[Any] = [_on_device(np.ascontiguousarray(g)) for g in np.indices(index.shape, sparse=True)]
    grid[d] = index
    return tuple(grid)


@register_kernel("gather", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_gather")
def gather(x: Any, index: Any, dim: int) -> Any:
    d = dim % max(x.ndim, 1)
    if index.size == 0:
        return cupy.empty(index.shape, dtype=x.dtype)
    if x.ndim == 0:
        return x.reshape(1)[_positions("gather", x, index.reshape(-1), 0)].reshape(index.shape)
    return x[_positions("gather", x, index, d)]


def _scatter(op: str, accumulate: bool) -> Any:
    def kernel(x: Any, index: Any, src: Any, dim: int) -> Any:
        # (repeated indices: atomic adds, or in order under the deterministic mode: kernels/gpu/ordered.py)
        return scatter_arrays(x, index, src, dim, lambda out, idx, d: _positions(op, out, idx, d),
                              add_at if accumulate else None, None if accumulate else set_at)

    kernel.__name__ = op
    return kernel


# (CuPy's atomic scatter_add takes floats and 32/64-bit integers; a repeated index of ``scatter`` keeps one of
# its values, as PyTorch's CUDA kernel does: which one is not defined, but for the last under the deterministic mode)
register_kernel("scatter_add", GPU, dtypes=FLOAT_DTYPES + (int32, int64), name="gpu/cupyx_scatter_add")(
    _scatter("scatter_add", True))
register_kernel("scatter", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_scatter")(_scatter("scatter", False))


@register_kernel("scatter_value", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_scatter_value")
def scatter_value(x: Any, index: Any, dim: int, value: Any = 0) -> Any:
    """``scatter`` of the number ``value`` (filled on the device, by value: no host data)."""
    return _scatter("scatter_value", False)(x, index, cupy.full(index.shape, value, dtype=x.dtype), dim)


class _DeviceReduce(_DeviceScatter):
    """CuPy's atomic scatters (sum, mean, amax, amin) and, as CuPy has no atomic product, ``product_at``: a sort by
    position and a segmented scan, all on the device."""

    @staticmethod
    def multiply(a: Any, index: Any, v: Any) -> None:
        product_at(cupy, a, index, v)


@register_kernel("scatter_reduce", GPU, dtypes=FLOAT_DTYPES + (int32, int64), name="gpu/cupy_scatter_reduce")
def scatter_reduce(x: Any, index: Any, src: Any, dim: int, reduce: str = "sum", include_self: bool = True) -> Any:
    """The CPU kernel's ``scatter_reduce_arrays`` with the device's scatters; float16 reduces in float32 (CuPy's
    atomic maximum and minimum take 32- and 64-bit types), rounded back once."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if x.dtype == np.float16:
        return scatter_reduce(x.astype(np.float32), index, src.astype(np.float32), dim, reduce,
                              include_self).astype(np.float16)
    return scatter_reduce_arrays(cupy, _DeviceReduce, x, index, src, dim, reduce, include_self,
                                 lambda out, idx, d: _positions("scatter_reduce", out, idx, d))


@register_kernel("index_reduce", GPU, dtypes=FLOAT_DTYPES + (int32, int64), name="gpu/cupy_index_reduce")
def index_reduce(x: Any, source: Any, index: Any, dim: int, reduce: str = "prod", include_self: bool = True) -> Any:
    """``scatter_reduce``'s kernel with ``index`` (a host one uploaded once per value) spread over the slices."""
    return scatter_reduce(x, spread_index(cupy, _on_device(index), source, dim), source, dim, reduce, include_self)


# -- flip, roll, rot90, repeat, constant_pad_nd, reflection_pad, replication_pad ---------------------------


@register_kernel("flip", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_flip")
def flip(x: Any, dims: Any) -> Any:
    """One copy of the reversed view, laid out as ``clone`` lays out the input (PyTorch's ``empty_like``)."""
    axes = tuple(sorted({d % x.ndim for d in dims})) if x.ndim else ()
    entry = None if row_major(x) else order_and_inverse(x.shape, (x,))
    view = cupy.flip(x, axis=axes) if axes else x
    return cupy.copy(view, order="C") if entry is None else copy_in_order(cupy, view, *entry)


@register_kernel("roll", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_roll")
def roll(x: Any, shifts: Any, dims: Any = None) -> Any:
    if x.ndim == 0:
        return x.copy()
    if dims is None:  # roll the flattened tensor, keep the shape
        return cupy.ascontiguousarray(cupy.roll(x, shifts if isinstance(shifts, int) else shifts[0]))
    return cupy.ascontiguousarray(cupy.roll(x, shifts, axis=dims))  # row-major, as PyTorch's


@register_kernel("rot90", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_rot90")
def rot90(x: Any, k: int, dims: Any) -> Any:
    """A flip copied, its two dims swapped: the CPU kernel's steps on CuPy's arrays."""
    return rot90_steps(cupy, x, k, dims)


@register_kernel("repeat", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_repeat")
def repeat(x: Any, sizes: tuple[int, ...]) -> Any:
    return cupy.ascontiguousarray(cupy.tile(x, sizes)) if sizes else x.copy()


@register_kernel("constant_pad_nd", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_constant_pad_nd")
def constant_pad_nd(x: Any, pad: tuple[int, ...], value: float = 0.0) -> Any:
    """A fill with ``value`` (by value: no host data), then the cropped input copied into its middle; a pad
    that only crops is a copy of the cropped view in its own layout (PyTorch's ``clone``)."""
    crop, widths = pad_geometry(x.shape, pad)
    core = x[crop]
    if not any(p > 0 for p in pad):
        return core.copy(order="K")
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(core.shape, widths))
    out = cupy.full(shape, np.asarray(value).astype(x.dtype)[()], dtype=x.dtype)
    if core.size:
        out[tuple(slice(lo, lo + n) for n, (lo, _) in zip(core.shape, widths))] = core
    return out


# -- cumsum, cumprod -----------------------------------------------------------------------------


def _cumulative(fn: Any, name: str) -> Any:
    def kernel(x: Any, dim: int, dtype: Any = None) -> Any:
        if dtype is not None and dtype.np != x.dtype:  # ``dtype=``: that dtype's kernel on x cast to it
            return in_dtype(name, GPU, x, dtype, dim)
        dtype = (np.int64 if x.dtype.kind in "biu" else x.dtype) if dtype is None else dtype.np
        if x.ndim == 0:
            return x.astype(dtype)
        if x.dtype == np.float16:  # accumulated in float32, as PyTorch's CUDA kernel (its opmath type)
            return cupy.ascontiguousarray(fn(x.astype(np.float32), axis=dim).astype(np.float16))
        return cupy.ascontiguousarray(fn(x, axis=dim, dtype=dtype))  # row-major, as PyTorch's

    kernel.__name__ = name
    return kernel


register_kernel("cumsum", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_cumsum")(_cumulative(cupy.cumsum, "cumsum"))
register_kernel("cumprod", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_cumprod")(_cumulative(cupy.cumprod, "cumprod"))


def _argcum(name: str, largest: bool) -> None:
    def kernel(x: Any, dim: int) -> Any:
        return running_extreme_positions(cupy, x, dim % max(x.ndim, 1), largest)

    kernel.__name__ = name
    kernel.__doc__ = f"{name}: a parallel scan (NOTE [ A running op on a GPU is a parallel scan ])."
    register_kernel(name, GPU, dtypes=FLOAT_DTYPES + INT_DTYPES + (BOOL,), name=f"gpu/cupy_{name}")(kernel)


_argcum("argcummax", True)
_argcum("argcummin", False)


@register_kernel("logcumsumexp", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_logcumsumexp")
def logcumsumexp(x: Any, dim: int) -> Any:
    """A parallel scan of PyTorch's log-add-exp (NOTE [ A running op on a GPU is a parallel scan ]), a half
    in float32 as PyTorch's CUDA kernel."""
    if x.ndim == 0:
        return x.copy()
    acc = x.astype(np.float32) if x.dtype == np.float16 else x
    [out] = inclusive_scan(cupy, lambda left, right: [log_add_exp(cupy, left[0], right[0])], [acc], dim % x.ndim)
    return out.astype(x.dtype, copy=False)


@register_kernel("nonzero", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_nonzero")
def nonzero(x: Any, count: int) -> Any:
    """The rows of the ``count`` non-zero elements (read by the caller), filled on the device: a running sum
    ranks them (``nonzero_positions``). CuPy's own ``nonzero`` would read the count again."""
    return nonzero_positions(x, "gpu", count)


@register_kernel("unique", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_unique")
def unique(x: Any, dim: Any = None, count: int = -1) -> tuple[Any, Any, Any]:
    """Without ``dim``: the ``count`` runs of the sorted values (read by the caller), made on the device (NOTE
    [ unique sorts, then marks where the value changes ]). With ``dim``, the slices are compared on the host:
    the input copied there and the three results back, each copy an event."""
    if dim is None:
        return distinct_values(x, "gpu", count)
    values, inverse, counts = np.unique(to_numpy(x), return_inverse=True, return_counts=True, axis=dim % max(x.ndim, 1))
    return tuple(move_array(a, "cpu", "gpu") for a in (values, inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)))


# -- histc, bincount: counts added with atomics, no count read back ------------------------------------------


@register_kernel("histc", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_histc")
def histc(x: Any, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Any:
    """PyTorch's CUDA histogram: bin ``(x - min) * bins / (max - min)`` (the last bin takes ``max``), the
    elements outside ``[min, max]`` (and NaN) left out, each count added atomically. ``min == max`` takes the
    data's range, read on the host: a copy and a sync, as PyTorch CUDA's ``.item()`` there."""
    acc = np.float32 if x.dtype == np.float16 else x.dtype
    v = x.reshape(-1).astype(acc, copy=False)

    def data_range() -> tuple[float, float]:
        ends = to_numpy(cupy.stack([v.min(), v.max()])) if v.size else (min, max)
        return float(ends[0]), float(ends[1])

    lo, hi = histogram_range(float(min), float(max), data_range)
    lo_, hi_ = acc.type(lo), acc.type(hi)
    inside = (v >= lo_) & (v <= hi_)  # False for NaN
    where = ((cupy.where(inside, v, lo_) - lo_) * acc.type(bins) / (hi_ - lo_)).astype(np.int64)
    where = cupy.where(inside, cupy.minimum(where, bins - 1), bins)  # max in the last bin; the rest: a spare slot
    counts = cupy.zeros(bins + 1, dtype=acc)
    cupyx.scatter_add(counts, where, acc.type(1))  # (whole counts: the same sum in any order)
    return counts[:bins].astype(x.dtype)


@register_kernel("bincount", GPU, dtypes=INT_DTYPES, name="gpu/cupy_bincount")
def bincount(x: Any, weights: Any = None, minlength: int = 0, size: int = -1) -> Any:
    """The counts (or summed weights) added atomically into ``size`` bins, which the caller read (``max(x) + 1``:
    PyTorch CUDA's ``.item()`` of the min and the max); CuPy's own ``bincount`` would read the max again."""
    dtype = np.int64 if weights is None else (weights.dtype if weights.dtype.kind == "f" else np.float64)
    counts = cupy.zeros(size, dtype=dtype)
    if x.size:
        add_at(counts, x, 1 if weights is None else weights.astype(dtype, copy=False))
    return counts


# -- argsort (sort, topk, kthvalue, median take their positions from it) ---------------------------------


@register_kernel("searchsorted", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_searchsorted")
def searchsorted(seq: Any, values: Any, right: bool = False) -> Any:
    """``torch.searchsorted``/``bucketize`` (a histogram's bins, a sampler's cumulative weights): CuPy's binary
    search, one launch (one a row for a batched sequence)."""
    return searchsorted_arrays(cupy, seq, values, right)


@register_kernel("argsort", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_argsort")
def argsort(x: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """CuPy's argsort (a stable radix sort; NaN last, as NumPy's); descending order as the CPU kernel's: the
    reversed array sorted and the order reversed back, which keeps ties in order and puts NaN first."""
    if x.ndim == 0:
        return cupy.zeros((), dtype=np.int64)
    if not descending:
        return laid_out_like(cupy, cupy.argsort(x, axis=dim).astype(np.int64, copy=False), x)
    n = x.shape[dim]
    order = cupy.flip(cupy.argsort(cupy.flip(x, axis=dim), axis=dim), axis=dim)
    return laid_out_like(cupy, (n - 1 - order).astype(np.int64, copy=False), x)


@register_kernel("topk_indices", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_topk_indices")
def topk_indices(x: Any, k: int = 1, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``topk``'s positions on the device: the first ``k`` of the stable sort (``argsort``; in sorted order, and
    among tied values the lowest positions, where the CPU's ``partial_sort``/``nth_element`` may pick others)."""
    d = dim % x.ndim
    return cupy.ascontiguousarray(cupy.take(argsort(x, d, largest, True), cupy.arange(k), axis=d))


@register_kernel("kthvalue_indices", GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name="gpu/cupy_kthvalue_indices")
def kthvalue_indices(x: Any, k: int = 1, dim: int = -1) -> Any:
    """``kthvalue``'s positions on the device: the ``k``-th of a stable sort along ``dim`` (among tied values
    the CPU's quickselect may return another position; PyTorch's CPU and CUDA kernels differ there as well)."""
    if x.ndim == 0:
        return cupy.zeros((), dtype=np.int64)
    order = cupy.argsort(x, axis=dim % x.ndim)
    return cupy.ascontiguousarray(cupy.take(order, cupy.asarray([k - 1]), axis=dim % x.ndim)).astype(np.int64)


@register_kernel("mode_indices", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_mode_indices")
def mode_indices(x: Any, dim: int = -1) -> Any:
    """``mode``'s positions on the device: a stable sort along ``dim`` and a scan over the runs of equal values
    (``mode_positions_arrays``). The value is the CPU's; among its positions the last one, where the CPU's
    ``std::sort`` may leave another, and with NaN in a slice, where that sort's false comparisons can split a run
    of equal values, the CPU's value may differ too (PyTorch's CPU and CUDA kernels differ there as well)."""
    if x.ndim == 0:
        return cupy.zeros((), dtype=np.int64)
    return mode_positions_arrays(cupy, x, dim % x.ndim)



# -- average pooling: the two small matrix products of the CPU kernel, the matrices kept on the device --------

#: (kind, plane, attributes, dtype) -> the device matrices and the scale (NOTE [ Average pooling is two small
#: matrix products ] in ``ops/pooling.py``): made on the host and copied once per geometry, as a stride table
_WINDOWS: dict[tuple[Any, ...], tuple[Any, Any, float]] = {}
_WINDOWS_MAX = 64


def _windows(key: tuple[Any, ...], make: Any, dtype: Any) -> tuple[Any, ...]:
    """The device matrices of ``make()`` (its matrices, then the scale), made and copied once per geometry."""
    def upload_all() -> tuple[Any, ...]:
        *mats, scale = make()
        return (*(upload(m.astype(dtype)) for m in mats), scale)

    return kept(_WINDOWS, (*key, np.dtype(dtype).str), upload_all, _WINDOWS_MAX)


def _avg_key(hw: tuple[int, int], a: dict[str, Any]) -> tuple[Any, ...]:
    return ("avg", tuple(hw), tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in a.items())))


@register_kernel("avg_pool2d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_avg_pool2d")
def avg_pool2d(x: Any, **a: Any) -> Any:
    hw = x.shape[-2:]
    tiled = avg_tiles(hw, a)
    if tiled is not None:  # windows that tile the plane: one reduction, no product
        return tiled_mean(cupy, x, *tiled)
    rows, cols, scale = _windows(_avg_key(hw, a), lambda: avg_matrices(hw, a), x.dtype)
    return apply_windows(cupy, x, rows, cols, scale)


@register_kernel("avg_pool2d_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_avg_pool2d_backward")
def avg_pool2d_backward(grad: Any, input_size: tuple[int, int], **a: Any) -> Any:
    tiled = avg_tiles(tuple(input_size), a)
    if tiled is not None:
        return tiled_mean_adjoint(cupy, grad, *tiled)
    rows, cols, scale = _windows(_avg_key(input_size, a), lambda: avg_matrices(tuple(input_size), a), grad.dtype)
    return apply_windows(cupy, grad, rows.T, cols.T, scale)


@register_kernel("avg_pool3d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_avg_pool3d")
def avg_pool3d(x: Any, **a: Any) -> Any:
    dhw = tuple(x.shape[-3:])
    depth, rows, cols, scale = _windows(_avg_key(dhw, a), lambda: avg_matrices_3d(dhw, a), x.dtype)
    return apply_windows_3d(cupy, x, depth, rows, cols, scale)


@register_kernel("avg_pool3d_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_avg_pool3d_backward")
def avg_pool3d_backward(grad: Any, input_size: tuple[int, int, int], **a: Any) -> Any:
    dhw = tuple(input_size)
    depth, rows, cols, scale = _windows(_avg_key(dhw, a), lambda: avg_matrices_3d(dhw, a), grad.dtype)
    return apply_windows_3d(cupy, grad, depth.T, rows.T, cols.T, scale)


def _adaptive(hw: tuple[int, int], out: tuple[int, int]) -> tuple[Any, Any, float]:
    return adaptive_matrix(hw[0], out[0]), adaptive_matrix(hw[1], out[1]), 1.0


@register_kernel("adaptive_avg_pool2d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_adaptive_avg_pool2d")
def adaptive_avg_pool2d(x: Any, output_size: tuple[int, int]) -> Any:
    hw, out = tuple(x.shape[2:]), tuple(output_size)
    tiled = adaptive_tiles(hw, out)
    if tiled is not None:
        return tiled_mean(cupy, x, *tiled)
    rows, cols, scale = _windows(("adaptive", hw, out), lambda: _adaptive(hw, out), x.dtype)
    return apply_windows(cupy, x, rows, cols, scale)


@register_kernel("adaptive_avg_pool2d_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(grad: Any, input_size: tuple[int, int]) -> Any:
    hw, out = tuple(input_size), tuple(grad.shape[2:])
    tiled = adaptive_tiles(hw, out)
    if tiled is not None:
        return tiled_mean_adjoint(cupy, grad, *tiled)
    rows, cols, scale = _windows(("adaptive", hw, out), lambda: _adaptive(hw, out), grad.dtype)
    return apply_windows(cupy, grad, rows.T, cols.T, scale)


# -- the losses whose op includes its reduction: PyTorch's formula (kernels/loss_terms.py) in CuPy's kernels ---


@register_kernel("binary_cross_entropy", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_binary_cross_entropy")
def binary_cross_entropy(input: Any, target: Any, weight: Any = None, reduction: str = "mean") -> Any:
    return reduce_terms(cupy, bce_terms(cupy, input, target, weight), reduction, input.dtype)


@register_kernel("binary_cross_entropy_with_logits", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_bce_with_logits")
def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None, pos_weight: Any = None,
                                     reduction: str = "mean") -> Any:
    terms = bce_with_logits_terms(cupy, input, target, weight, pos_weight)
    return reduce_terms(cupy, terms, reduction, input.dtype)


@register_kernel("soft_margin_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_soft_margin_loss")
def soft_margin_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    return reduce_terms(cupy, soft_margin_terms(cupy, input, target), reduction, input.dtype)


@register_kernel("multi_margin_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_multi_margin_loss")
def multi_margin_loss(input: Any, target: Any, weight: Any = None, p: int = 1, margin: float = 1.0,
                      reduction: str = "mean") -> Any:
    rows = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    terms = multi_margin_terms(cupy, rows, target.reshape(-1), p, margin, weight)
    return reduce_terms(cupy, terms if input.ndim == 2 else terms.reshape(()), reduction, input.dtype)


@register_kernel("multi_margin_loss_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_multi_margin_loss_backward")
def multi_margin_loss_backward(grad: Any, input: Any, target: Any, weight: Any = None, p: int = 1, margin: float = 1.0,
                               reduction: str = "mean") -> Any:
    rows = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    return multi_margin_grad(cupy, grad, rows, target.reshape(-1), p, margin, weight, reduction).reshape(input.shape)


def _multilabel_rows(input: Any, target: Any) -> tuple[Any, Any]:
    """``(N, C)`` as it is, one sample ``(C,)`` or a 0-d input as one row; the target alike."""
    c = input.shape[-1] if input.ndim else 1
    return input.reshape(-1, c), target.reshape(-1, c)


@register_kernel("multilabel_margin_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_multilabel_margin_loss")
def multilabel_margin_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    rows, t = _multilabel_rows(input, target)
    c = rows.shape[1]
    check_later(t, -1, c, lambda bad, values: RuntimeError("argument #2 'target' is out of range"))
    terms = multilabel_margin_terms(cupy, rows, t)
    return reduce_terms(cupy, terms if input.ndim == 2 else terms.reshape(()), reduction, input.dtype)


@register_kernel("multilabel_margin_loss_backward", GPU, dtypes=FLOAT_DTYPES,
                 name="gpu/cupy_multilabel_margin_loss_backward")
def multilabel_margin_loss_backward(grad: Any, input: Any, target: Any, reduction: str = "mean") -> Any:
    rows, t = _multilabel_rows(input, target)
    return multilabel_margin_grad(cupy, grad, rows, t, reduction).reshape(input.shape)


@register_kernel("smooth_l1_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_smooth_l1_loss")
def smooth_l1_loss(input: Any, target: Any, reduction: str = "mean", beta: float = 1.0) -> Any:
    return reduce_terms(cupy, smooth_l1_terms(cupy, input, target, beta), reduction, input.dtype)


@register_kernel("huber_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_huber_loss")
def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Any:
    return reduce_terms(cupy, huber_terms(cupy, input, target, delta), reduction, input.dtype)


# -- vector_norm (x.norm(), F.normalize, linalg.vector_norm) and div with a rounding mode --------------------


@register_kernel("vector_norm", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_vector_norm")  # (InferMeta refuses integers)
def vector_norm(x: Any, ord: float = 2.0, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """The CPU kernel's body in CuPy's reductions, a half accumulated in float32 (as PyTorch's CUDA kernel)."""
    if dtype is not None and dtype.np != x.dtype:
        return in_dtype("vector_norm", GPU, x, dtype, ord, dim, keepdim)
    return vector_norm_arrays(cupy, x, ord, dim, keepdim, acc=np.float32 if x.dtype == np.float16 else None)


@register_kernel("norm", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_norm")
def norm(x: Any, p: float = 2.0, dim: Any = None, keepdim: bool = False) -> Any:
    """PyTorch's ``at::norm``: ``vector_norm``'s kernel."""
    return vector_norm(x, p, dim, keepdim)


@register_kernel("div_rounded", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_div_rounded")
def div_rounded(x: Any, y: Any, rounding_mode: str = "trunc") -> Any:
    """``floor``: the ``floor_divide`` kernel (PyTorch's ``div_floor``); ``trunc``: ``trunc(x / y)``, two launches."""
    if rounding_mode == "floor":
        return run_elementwise("floor_divide", "binary", (x, y), x.dtype)
    return run_elementwise("trunc", "unary", (run_elementwise("div", "binary", (x, y), x.dtype),), x.dtype)


# -- the in-place comparisons' values (x.eq_(y): ops/compare_inplace.py): CuPy's comparison in the tensor's dtype --


def _compare_inplace(op: str, fn: Any) -> None:
    def kernel(input: Any, other: Any, dtype: Any) -> Any:
        return fn(input, other).astype(dtype.np)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=ALL_DTYPES, name=f"gpu/cupy_{op}")(kernel)


for _op, _fn in (("eq_", cupy.equal), ("ne_", cupy.not_equal), ("lt_", cupy.less), ("le_", cupy.less_equal),
                 ("gt_", cupy.greater), ("ge_", cupy.greater_equal)):
    _compare_inplace(_op, _fn)


# -- clamp_min / clamp_max by a tensor: the NaN-propagating maximum / minimum -----------------------------


def _tensor_bound(op: str, kernel_op: str, cupy_fn: Any) -> None:
    def kernel(x: Any, bound: Any) -> Any:
        return run_elementwise(kernel_op, "binary", (x, bound), x.dtype) if x.dtype.kind == "f" else cupy_fn(x, bound)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=FLOAT_DTYPES + INT_DTYPES, name=f"gpu/cuda_{op}")(kernel)


_tensor_bound("clamp_min_tensor", "maximum", cupy.maximum)
_tensor_bound("clamp_max_tensor", "minimum", cupy.minimum)


def _index_pad(name: str, mode: str) -> None:
    """``reflect``/``replicate`` padding: one gather per padded dim, its positions uploaded once per geometry
    (``_on_device``); the backward one scatter-add per dim (``add_at``: an edge read twice sums)."""
    @register_kernel(name, GPU, dtypes=ALL_DTYPES, name=f"gpu/cupy_{name}")
    def forward(x: Any, pad: tuple[int, ...]) -> Any:
        return index_pad_arrays(cupy, x, mode, pad, _on_device)

    @register_kernel(f"{name}_backward", GPU, dtypes=ALL_DTYPES, name=f"gpu/cupy_{name}_backward")
    def backward(grad: Any, x: Any, pad: tuple[int, ...]) -> Any:
        return index_pad_backward_arrays(cupy, grad, mode, pad, tuple(x.shape), _on_device, add_at)


_index_pad("reflection_pad", "reflect")
_index_pad("replication_pad", "replicate")


@register_kernel("take", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_take")
def take(x: Any, index: Any) -> Any:
    """One gather from the flattened input (a negative index counts from the end, as CuPy's wrap does)."""
    return cupy.take(x.reshape(-1), _on_device(index))


# -- pixel_shuffle / pixel_unshuffle: the CPU kernels' reshape and transposed copy, on CuPy's arrays -------------


@register_kernel("pixel_shuffle", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_pixel_shuffle")
def pixel_shuffle(x: Any, upscale_factor: int) -> Any:
    return pixel_shuffle_arrays(cupy, x, upscale_factor)


@register_kernel("pixel_unshuffle", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_pixel_unshuffle")
def pixel_unshuffle(x: Any, downscale_factor: int) -> Any:
    return pixel_unshuffle_arrays(cupy, x, downscale_factor)


# -- interpolate's upsample ops: the CPU kernels' taps, copied to the device once per geometry, read by take ----------

#: (op, sizes, attributes, dtype, backward) -> the taps with device arrays (NOTE [ Upsampling is separable ] in
#: ``kernels/upsample.py``); a geometry's index and weight arrays are copied once, as a stride table is
_TAPS: dict[tuple[Any, ...], Any] = {}


def _device_taps(*key: Any) -> Any:
    return kept(_TAPS, key, lambda: tuple([(upload(i), None if w is None else upload(w)) for i, w in dim]
                                          for dim in dim_taps(*key)), _WINDOWS_MAX)


def _upsample_kernels(name: str, mode: str, rank: int) -> None:
    def forward(x: Any, output_size: Any, align_corners: bool = False, scales: Any = None) -> Any:
        taps = _device_taps(name, tuple(x.shape[-rank:]), tuple(output_size), bool(align_corners),
                            scales or (None,) * rank, x.dtype.str)
        return resample_arrays(cupy, x, taps)

    def backward(grad: Any, input_size: Any, align_corners: bool = False, scales: Any = None) -> Any:
        taps = _device_taps(name, tuple(input_size), tuple(grad.shape[-rank:]), bool(align_corners),
                            scales or (None,) * rank, grad.dtype.str, True)
        return resample_backward_arrays(cupy, add_at, grad, tuple(input_size), taps)

    forward.__name__, backward.__name__ = name, f"{name}_backward"
    register_kernel(name, GPU, dtypes=kernel_dtypes(mode), name=f"gpu/cupy_{name}")(forward)
    register_kernel(f"{name}_backward", GPU, dtypes=kernel_dtypes(mode), name=f"gpu/cupy_{name}_backward")(backward)


for _name, (_mode, _rank) in UPSAMPLE_OPS.items():
    _upsample_kernels(_name, _mode, _rank)


# -- grid sampling (ops/grid_sample.py): kernels/grid_sample.py's sums of taps on CuPy's arrays ---------------
# A gather (advanced indexing) a combination of taps forward, ``add_at`` backward; the base grid of
# affine_grid is made on the device (``arange``, no copy).

from .. import grid_sample as grid_math  # noqa: E402  (this section's own import, kept with it)


def _grid_modes(a: dict[str, Any]) -> tuple[int, int, bool]:
    return a["interpolation_mode"], a["padding_mode"], a["align_corners"]


@register_kernel("affine_grid_generator", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_affine_grid_generator")
def affine_grid_generator(theta: Any, size: tuple[int, ...], align_corners: bool) -> Any:
    return grid_math.affine_grid(cupy, theta, size, align_corners)


@register_kernel("affine_grid_base", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_affine_grid_base")
def affine_grid_base(like: Any, size: tuple[int, ...], align_corners: bool) -> Any:
    return grid_math.batched_base(cupy, size, align_corners, like.dtype)


def _grid_sampler(dims: int) -> None:
    def forward(input: Any, grid: Any, **a: Any) -> Any:
        return grid_math.sample(cupy, input, grid, (0,) * dims, *_grid_modes(a))

    def backward(grad: Any, input: Any, grid: Any, output_mask: tuple[bool, bool] = (True, True), **a: Any) -> Any:
        return grid_math.sampler_backward(cupy, add_at, grad, input, grid, output_mask, *_grid_modes(a))

    name = f"grid_sampler_{dims}d"
    forward.__name__, backward.__name__ = name, f"{name}_backward"
    register_kernel(name, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cupy_{name}")(forward)
    register_kernel(f"{name}_backward", GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cupy_{name}_backward")(backward)


_grid_sampler(2)
_grid_sampler(3)


@register_kernel("grid_sampler_derivative", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_grid_sampler_derivative")
def grid_sampler_derivative(input: Any, grid: Any, order: tuple[int, ...], **a: Any) -> Any:
    return grid_math.sample(cupy, input, grid, order, *_grid_modes(a))


@register_kernel("grid_sampler_derivative_backward", GPU, dtypes=FLOAT_DTYPES,
                 name="gpu/cupy_grid_sampler_derivative_backward")
def grid_sampler_derivative_backward(grad: Any, grid: Any, input_size: tuple[int, ...], order: tuple[int, ...],
                                     **a: Any) -> Any:
    return grid_math.sample_adjoint(cupy, add_at, grad, grid, tuple(input_size), order, *_grid_modes(a))


@register_kernel("block_diag", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_block_diag")
def block_diag(xs: Any) -> Any:
    """A fill of zeros, then one copy per block into its place."""
    return block_diag_arrays(cupy, xs)


@register_kernel("weight_norm_interface", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_weight_norm_interface")
def weight_norm_interface(v: Any, g: Any, dim: int = 0) -> Any:
    """The CPU kernel's body in CuPy: a reduction and two elementwise launches, the norms kept on the device."""
    return weight_norm_arrays(cupy, v, g, dim)


# -- writing a source into part of a copy (view scatters, masked_scatter, put), channel_shuffle, renorm, pdist: ----
#    the CPU kernels' bodies (kernels/array_kernels.py) on CuPy's arrays

from ..array_kernels import (SOURCE_TOO_SMALL, channel_shuffle_arrays, mask_count,  # noqa: E402  (this section's own)
                             masked_scatter_arrays, masked_scatter_backward_arrays, pdist_arrays, pdist_backward_arrays,
                             put_arrays, renorm_arrays, scattered_into, select_index, slice_index)
from ..strided import diagonal_view  # noqa: E402


@register_kernel("slice_scatter", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_slice_scatter")
def slice_scatter(x: Any, src: Any, dim: int, start: int, end: int, step: int) -> Any:
    return scattered_into(cupy, x, src, lambda out: out[slice_index(dim, start, end, step)])


@register_kernel("select_scatter", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_select_scatter")
def select_scatter(x: Any, src: Any, dim: int, index: int) -> Any:
    return scattered_into(cupy, x, src, lambda out: out[select_index(dim, index)])


@register_kernel("diagonal_scatter", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_diagonal_scatter")
def diagonal_scatter(x: Any, src: Any, offset: int, dim1: int, dim2: int) -> Any:
    return scattered_into(cupy, x, src, lambda out: diagonal_view(cupy, out, offset, dim1, dim2))


@register_kernel("masked_scatter", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_masked_scatter")
def masked_scatter(x: Any, mask: Any, source: Any) -> Any:
    """The running count of the mask picks each True position's element; whether the source has enough is
    checked on the device, reported at the next sync (nothing read back now)."""
    shape = x.shape if x.shape == mask.shape else np.broadcast_shapes(x.shape, mask.shape)
    check_later(mask_count(cupy, mask, shape), 0, source.size + 1, lambda bad, values: RuntimeError(SOURCE_TOO_SMALL))
    return masked_scatter_arrays(cupy, x, mask, source)


@register_kernel("masked_scatter_backward", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_masked_scatter_backward")
def masked_scatter_backward(grad: Any, mask: Any, sizes: tuple[int, ...]) -> Any:
    return masked_scatter_backward_arrays(cupy, grad, mask, sizes)


@register_kernel("put", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_put")
def put(x: Any, source: Any, index: Any, accumulate: bool = False) -> Any:
    return put_arrays(cupy, x, source, _on_device(index), accumulate, add_at, set_at)


@register_kernel("channel_shuffle", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_channel_shuffle")
def channel_shuffle(x: Any, groups: int) -> Any:
    return channel_shuffle_arrays(cupy, x, groups)


@register_kernel("renorm", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_renorm")
def renorm(x: Any, p: float, dim: int, maxnorm: float) -> Any:
    """The norms in CuPy's reductions, a half's accumulated in float32 (as ``vector_norm``'s GPU kernel)."""
    return renorm_arrays(cupy, x, p, dim, maxnorm, acc=np.float32 if x.dtype == np.float16 else None)


@register_kernel("pdist", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_pdist")
def pdist(x: Any, p: float = 2.0) -> Any:
    """The pairs made on the device (``cupy.triu_indices``), their differences' norms in CuPy's reductions."""
    return pdist_arrays(cupy, x, p, acc=np.float32 if x.dtype == np.float16 else None)


@register_kernel("pdist_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_pdist_backward")
def pdist_backward(grad: Any, x: Any, pdist: Any, p: float = 2.0) -> Any:
    return pdist_backward_arrays(cupy, grad, x, pdist, p, add_at)


@register_kernel("_pack_padded_sequence", GPU, dtypes=ALL_DTYPES, name="gpu/cupy__pack_padded_sequence")
def pack_padded_sequence(input: Any, lengths: tuple[int, ...] = (), batch_first: bool = False) -> Any:
    """The packed rows: one ``concatenate`` of each run of steps' slice (the lengths are host numbers)."""
    return pack_padded_arrays(cupy, input, lengths, batch_first)


@register_kernel("_pack_padded_sequence_backward", GPU, dtypes=ALL_DTYPES,
                 name="gpu/cupy__pack_padded_sequence_backward")
def pack_padded_sequence_backward(grad: Any, input_size: tuple[int, ...] = (), lengths: tuple[int, ...] = (),
                                  batch_first: bool = False) -> Any:
    """Zeros, each run of steps' rows copied into its slice."""
    return pack_padded_backward_arrays(cupy, grad, input_size, lengths, batch_first)
