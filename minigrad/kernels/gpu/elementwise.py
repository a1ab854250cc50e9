"""GPU kernels of the elementwise ops: hand-written CUDA (``cuda_src.ew_source``) launched with CuPy.

Each op is registered as ``Backend.GPU`` for float16, float32 and float64.
The launcher picks the vector kernel (16-byte loads) when every operand
already has the output's shape, is C-contiguous and 16-byte aligned, the
plain contiguous kernel when only the alignment is missing, and the strided one otherwise (broadcast
operands read with stride 0, views read in place - no copies).
"""

from __future__ import annotations

import math
from typing import Any

import cupy
import numpy as np

from ...dtypes import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, bool_ as BOOL
from ..kept import kept
from ..key import Backend
from ..registry import register_kernel
from . import cuda_src as src
from ...devices import CHANNELS_LAST
from ..strided import channels_last_copy, copy_in_order, order_and_inverse, row_major
from . import _runtime
from ._runtime import constant, constant_value, dtype_name, function, grid_1d, strides_meta

GPU = Backend.GPU

__all__ = ["run_elementwise"]

#: kinds with a vector variant (output and inputs of one dtype)
_VEC_KINDS = ("unary", "binary", "clip", "param", "ternary")


def _broadcast_shape(*arrays: Any) -> tuple[int, ...]:
    shapes = [a.shape for a in arrays]
    if all(s == shapes[0] for s in shapes):
        return tuple(shapes[0])
    return tuple(np.broadcast_shapes(*shapes))


def _out_order(shape: tuple[int, ...], inputs: tuple[Any, ...]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The output's dimensions from the slowest to the fastest in memory (PyTorch's order) and the inverse
    permutation, or ``None`` for row-major (NOTE [ An elementwise result is laid out as PyTorch lays it
    out ] in ``kernels/strided.py``)."""
    if len(shape) < 2 or all(row_major(a) for a in inputs):
        return None
    return order_and_inverse(shape, inputs)


# NOTE [ One launch plan per geometry ]
#     The host work of an elementwise call - the broadcast shape, PyTorch's order of the
#     result's dimensions, the kernel variant, its grid, the stride table - depends only
#     on the op and the operands' shapes, strides and dtypes. A training step repeats a
#     few geometries, so that work is done at a geometry's first call and kept as a plan:
#     later calls look it up by one key, make the output buffer and launch. The strided
#     kernel reads its operands from their data pointers through the plan's stride
#     table, so it is given the operands as they are; the contiguous and vector kernels
#     read them in the result's order, so they get the permuted views (made per call:
#     views of this call's arrays). What depends on the values stays per call too:
#     whether a 0-d operand is a number's constant (its value goes to the kernel by
#     value) and whether the pointers allow 16-byte loads. This is the per-op host time
#     measured against PyTorch CUDA's (``bench/gpu_kernels.py``).
#     The plans are bounded, as the stride tables are; while ``_runtime.recording``
#     notes launches none is kept (its kernels are wrapped per call).

class _Plan:
    __slots__ = ("shape", "order", "inverse", "buf_shape", "n", "variant", "fn", "fn_contig", "grid", "grid_vec",
                 "tail", "numbers")

    def __init__(self) -> None:
        self.numbers: tuple[tuple[int, Any], ...] = ()


_PLANS: dict[tuple[Any, ...], _Plan] = _runtime.forget_on_recording({})
_PLANS_MAX = 4096
_THREADS = (256,)


def run_elementwise(op: str, kind: str, inputs: tuple[Any, ...], out_dtype: Any, extra: tuple[Any, ...] = (),
                    value_dtype: Any = None) -> Any:
    """Launch the hand-written kernel of ``op`` on ``inputs``; returns the output array, laid out as
    PyTorch lays it out (NOTE [ An elementwise result is laid out as PyTorch lays it out ] in
    ``kernels/strided.py``), by the plan of the call's geometry (NOTE [ One launch plan per geometry ])."""
    if len(inputs) == 2:
        a, b = inputs
        key: tuple[Any, ...] = (op, kind, out_dtype, value_dtype, a.shape, a.strides, a.dtype, b.shape, b.strides,
                                b.dtype)
    elif len(inputs) == 1:
        a = inputs[0]
        key = (op, kind, out_dtype, value_dtype, a.shape, a.strides, a.dtype)
    else:
        key = (op, kind, out_dtype, value_dtype, *[g for a in inputs for g in (a.shape, a.strides, a.dtype)])
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(op, kind, inputs, out_dtype, value_dtype)
        if _runtime.recording is None:
            if len(_PLANS) >= _PLANS_MAX:
                _PLANS.clear()
            _PLANS[key] = plan
    out = cupy.ndarray(plan.buf_shape, out_dtype)  # cupy.empty's own Python call costs 0.7 us a launch (H200)
    if plan.n:
        _launch(plan, inputs, out, extra)
    return out if plan.inverse is None else out.transpose(plan.inverse)


def _views(plan: _Plan, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The operands as the kernel reads them: themselves for a row-major result, else each in the result's
    order (only an operand of another shape needs ``broadcast_to``: each CuPy view costs host time)."""
    if plan.order is None:
        return inputs
    shape, order = plan.shape, plan.order
    return tuple(a if a.ndim == 0 else (a if a.shape == shape else cupy.broadcast_to(a, shape)).transpose(order)
                 for a in inputs)


def _launch(plan: _Plan, inputs: tuple[Any, ...], out: Any, extra: tuple[Any, ...]) -> None:
    """The plan's kernel writing ``out``: by value (a number's constant operand), vector, contiguous or strided.
    The strided kernel reads its operands through the plan's stride table from their data pointers, which
    their permuted and broadcast views share: it is given the operands themselves (no view made per call)."""
    if plan.numbers:  # ``x * 0.5``: the number by value, one array read (``_scalar0``/``_scalar1``)
        views = _views(plan, inputs)
        for k, fn in plan.numbers:
            value = constant_value(views[k])
            if value is not None:
                fn(plan.grid, _THREADS, (value, views[1], out, plan.tail[0]) if k == 0 else
                   (views[0], value, out, plan.tail[0]))
                return
    if plan.variant == "strided":  # the tail holds the rank and the stride table
        plan.fn(plan.grid, _THREADS, (*inputs, out, *plan.tail, *extra))
        return
    views = _views(plan, inputs)
    if plan.variant == "vec":
        ptrs = out.data.ptr
        for a in views:
            ptrs |= a.data.ptr
        if not ptrs & 15:  # every pointer 16-byte aligned: vector loads (see cuda_src.ew_source), one thread
            plan.fn(plan.grid_vec, _THREADS, (*views, out, *plan.tail, *extra))  # moves 16 bytes per access
            return
    plan.fn_contig(plan.grid, _THREADS, (*views, out, *plan.tail, *extra))


def _plan(op: str, kind: str, inputs: tuple[Any, ...], out_dtype: Any, value_dtype: Any) -> _Plan:
    """The call's plan: computed once per geometry (NOTE [ One launch plan per geometry ])."""
    plan = _Plan()
    plan.shape = shape = _broadcast_shape(*inputs)
    entry = _out_order(shape, inputs)
    plan.order, plan.inverse = entry if entry is not None else (None, None)
    views = _views(plan, inputs)
    plan.buf_shape = buf_shape = shape if entry is None else tuple(shape[d] for d in plan.order)
    plan.n = n = math.prod(buf_shape)
    if not n:
        return plan
    dt = np.dtype(value_dtype if value_dtype is not None else views[0].dtype)
    key = (op, kind, dt)
    try:
        label, base, make = _NAMES[key]
    except KeyError:
        label, base, make = _NAMES[key] = _names(op, kind, dtype_name(dt))
    plan.grid = grid_1d(n)
    plan.tail = (np.int64(n),)
    if kind in ("binary", "compare"):
        plan.numbers = tuple((k, function(label, make, f"{base}_scalar{k}"))
                             for k, (a, other) in enumerate(((views[0], views[1]), (views[1], views[0])))
                             if a.ndim == 0 and a.dtype == other.dtype and other.shape == buf_shape
                             and other.flags.c_contiguous)
    if all(a.shape == buf_shape and a.flags.c_contiguous for a in views):
        plan.fn_contig = function(label, make, base + "_contig")
        if kind in _VEC_KINDS:
            plan.variant, plan.fn = "vec", function(label, make, base + "_vec")
            plan.grid_vec = grid_1d(max(1, n // (16 // np.dtype(out_dtype).itemsize)))
        else:
            plan.variant, plan.fn = "contig", plan.fn_contig
    else:
        plan.variant, plan.fn = "strided", function(label, make, base + "_strided")
        plan.tail = (np.int64(n), np.int32(len(buf_shape)), strides_meta(buf_shape, *views))
    return plan


#: (op, kind, dtype) -> the module's label, the kernels' base name and the source's maker: strings built once,
#: not at every launch
_NAMES: dict[tuple[str, str, Any], tuple[str, str, Any]] = {}


def _names(op: str, kind: str, dt: str) -> tuple[str, str, Any]:
    return f"ew_{op}_{dt}", src.kernel_name("ew", op, dt), lambda: src.ew_source(op, dt, kind)


def _unary(op: str) -> None:
    def kernel(x: Any) -> Any:
        return run_elementwise(op, "unary", (x,), x.dtype)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cuda_{op}")(kernel)


def _binary(op: str) -> None:
    def kernel(x: Any, y: Any) -> Any:
        return run_elementwise(op, "binary", (x, y), x.dtype)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cuda_{op}")(kernel)


def _compare(op: str) -> None:
    def kernel(x: Any, y: Any) -> Any:
        return run_elementwise(op, "compare", (x, y), np.bool_)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cuda_{op}")(kernel)


def _test(op: str) -> None:
    def kernel(x: Any) -> Any:
        return run_elementwise(op, "test", (x,), np.bool_)

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cuda_{op}")(kernel)


def _param(op: str, kind: str, names: tuple[str, ...]) -> None:
    """``leaky_relu(x, negative_slope)``, ``addcmul(x, t1, t2, value)``: the op's number attributes reach the
    kernel by value (p0, p1, p2); one that is ``None`` as NaN, which no number is (``logit``'s kernel clamps
    only for ``eps >= 0``, as PyTorch's given ``eps.value_or(-1)``; ``round`` without ``decimals`` is ``rint``)."""
    def kernel(*xs: Any, **attrs: Any) -> Any:
        values = [np.float64(np.nan if attrs[n] is None else attrs[n]) for n in names] + [np.float64(0.0)] * (3 - len(names))
        return run_elementwise(op, kind, xs, xs[0].dtype, extra=tuple(values))

    kernel.__name__ = op
    register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cuda_{op}")(kernel)


for _op in src.UNARY:
    _unary(_op)
for _op in src.BINARY:
    _binary(_op)
for _op in src.COMPARE:
    _compare(_op)
for _op in src.TEST:
    _test(_op)
for _op in src.PARAM:
    _param(_op, "param", src.PARAMS[_op])
for _op in src.TERNARY:
    _param(_op, "ternary", src.PARAMS[_op])


@register_kernel("where", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_where")
def where(condition: Any, x: Any, y: Any) -> Any:
    return run_elementwise("where", "where", (condition.astype(np.bool_, copy=False), x, y), x.dtype,
                           value_dtype=x.dtype)


@register_kernel("clip", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_clip")
def clip(x: Any, min: Any = None, max: Any = None) -> Any:
    lo = -np.inf if min is None else float(min)
    hi = np.inf if max is None else float(max)
    return run_elementwise("clip", "clip", (x,), x.dtype, extra=(np.float64(lo), np.float64(hi)))


# -- library (CuPy built-in) kernels: integer comparisons and where, conversions, copies ----------
#
# The hand-written kernels are for floats. Integer comparisons and ``where`` on integers run as CuPy's
# own elementwise kernels, so index arithmetic on the GPU (``F.cross_entropy``'s ``target != ignore_index``)
# stays there instead of falling back to the CPU (two copies and a sync).

_CUPY_COMPARE = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
                 "ge": "greater_equal"}


def _cupy_compare(op: str, fn_name: str) -> None:
    fn = getattr(cupy, fn_name)

    def kernel(x: Any, y: Any) -> Any:
        return fn(x, y)

    kernel.__name__ = op
    dts = INT_DTYPES + (BOOL,)  # bools order False < True, as PyTorch compares them
    register_kernel(op, GPU, dtypes=dts, name=f"gpu/cupy_{op}")(kernel)


for _op, _fn in _CUPY_COMPARE.items():
    _cupy_compare(_op, _fn)


@register_kernel("where", GPU, dtypes=INT_DTYPES + (BOOL,), name="gpu/cupy_where")
def where_int(condition: Any, x: Any, y: Any) -> Any:
    return cupy.where(condition.astype(np.bool_, copy=False), x, y)


# -- library (CuPy built-in) kernels: conversions and copies ------------------------------


@register_kernel("cast", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_cast")
def cast(x: Any, dtype: Any) -> Any:
    return x.astype(dtype.np)


@register_kernel("clone", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_clone")
def clone(x: Any, memory_format: str = "preserve_format") -> Any:
    """One copy, laid out as PyTorch's ``clone``: ``preserve_format`` keeps the input's order of strides,
    where a broadcast (stride 0) dim has no say (CuPy's order "K" would make it the fastest, as NumPy's);
    ``channels_last``: the channels fastest."""
    if memory_format in CHANNELS_LAST:
        return channels_last_copy(cupy, x, memory_format)
    entry = None if memory_format == "contiguous_format" or row_major(x) else order_and_inverse(x.shape, (x,))
    return cupy.copy(x, order="C") if entry is None else copy_in_order(cupy, x, *entry)


@register_kernel("to_copy", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_to_copy")
def to_copy(x: Any, dtype: Any, memory_format: str) -> Any:
    """``Tensor.to(dtype, memory_format=...)``: the cast, then the copy in the format (``clone``'s)."""
    return clone(x.astype(dtype.np, copy=False), memory_format)


@register_kernel("fill", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_fill")
def fill(x: Any, value: Any) -> Any:
    return cupy.full(x.shape, value, dtype=x.dtype)


@register_kernel("zero_", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_zero_")
def zero_(x: Any) -> Any:
    return cupy.zeros(x.shape, dtype=x.dtype)


register_kernel("fill_", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_fill_")(fill)


@register_kernel("fill_tensor_", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_fill_tensor_")
def fill_tensor_(x: Any, value: Any) -> Any:
    """The 0-d device value broadcast and cast in one copy on the device (never read back: no sync)."""
    return cupy.broadcast_to(value, x.shape).astype(x.dtype, order="C")


@register_kernel("copy_", GPU, dtypes=ALL_DTYPES, name="gpu/cupy_copy_")
def copy_(x: Any, src: Any) -> Any:
    return cupy.broadcast_to(src, x.shape).astype(x.dtype, order="C")


# -- masked_fill, tril, triu: one where launch, the result row-major (PyTorch's) -------------------

def _where_rows(mask: Any, x: Any, y: Any) -> Any:
    """``where(mask, x, y)`` in one launch (the hand-written kernel for floats, CuPy's for the rest), laid out
    row-major as PyTorch's ``masked_fill``/``tril`` results are (a copy only for a transposed input)."""
    if x.dtype.kind == "f" and x.dtype == y.dtype:
        out = run_elementwise("where", "where", (mask, x, y), x.dtype, value_dtype=x.dtype)
    else:
        out = cupy.where(mask, x, y)
    return out if out.flags.c_contiguous else cupy.ascontiguousarray(out)


@register_kernel("masked_fill", GPU, dtypes=ALL_DTYPES, name="gpu/cuda_masked_fill")
def masked_fill(x: Any, mask: Any, value: Any) -> Any:
    return _where_rows(mask, constant(np.asarray(value).astype(x.dtype)), x)


@register_kernel("masked_fill_tensor", GPU, dtypes=ALL_DTYPES, name="gpu/cuda_masked_fill_tensor")
def masked_fill_tensor(x: Any, mask: Any, value: Any) -> Any:
    return _where_rows(mask, value.astype(x.dtype, copy=False), x)


#: (rows, cols, diagonal, lower) -> the device mask of a triangle, made on the device once per geometry
_TRI: dict[tuple[int, int, int, bool], Any] = {}
_TRI_MAX = 64


def _triangle(x: Any, diagonal: int, lower: bool) -> Any:
    rows, cols = x.shape[-2], x.shape[-1]
    mask = kept(_TRI, (rows, cols, diagonal, lower),
                lambda: cupy.tri(rows, cols, k=diagonal, dtype=np.bool_) if lower
                else ~cupy.tri(rows, cols, k=diagonal - 1, dtype=np.bool_), _TRI_MAX)
    return _where_rows(mask, x, constant(np.zeros((), dtype=x.dtype)))


@register_kernel("tril", GPU, dtypes=ALL_DTYPES, name="gpu/cuda_tril")
def tril(x: Any, diagonal: int = 0) -> Any:
    return _triangle(x, diagonal, True)


@register_kernel("triu", GPU, dtypes=ALL_DTYPES, name="gpu/cuda_triu")
def triu(x: Any, diagonal: int = 0) -> Any:
    return _triangle(x, diagonal, False)


@register_kernel("clamp", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_clamp")
def clamp(x: Any, min: Any = None, max: Any = None, bounds: str = "both") -> Any:
    """``clamp`` by tensor bounds: ``minimum(maximum(x, min), max)`` with the NaN-propagating kernels of
    ``maximum``/``minimum``, one launch a bound, laid out by ``x`` first as PyTorch's (it ran on the CPU,
    whose copies to and from the device made the result row-major)."""
    out = x
    if min is not None:
        out = run_elementwise("maximum", "binary", (out, min), x.dtype)
    if max is not None:
        out = run_elementwise("minimum", "binary", (out, max), x.dtype)
    return out if out is not x else x.copy()
