"""GPU kernels of softmax, log_softmax and cross_entropy: hand-written CUDA (``cuda_src.softmax_source``); glu;
and layer_norm with its two backward kernels (``cuda_src.layer_norm_source``), one block a row.

One block per row. The softmax dim is moved last (a copy unless it already
is), each block finds the row max, the sum of exp(x - max), and writes the
row - three passes over data that stays in L1/L2 for moderate rows.
cross_entropy writes one loss per row (log-sum-exp minus the target logit)
and reduces them with the hand-written ``mean``/``sum`` kernel.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import cupy
import numpy as np

from ...dtypes import FLOAT_DTYPES
from .. import attention as attention_math
from ..key import Backend
from ..loss_terms import (nll2d_backward_of_rows, nll2d_of_rows, one_sample_nll_backward, shaped_by_input,
                          weighted_nll, weighted_nll_grad)
from ..registry import register_kernel
from ..strided import laid_out_like
from . import cuda_src as src
from ._runtime import block_for, check_in_kernel, check_later, constant, dtype_name, function, launch_1d
from .elementwise import run_elementwise
from .reduce import reduce_rows

GPU = Backend.GPU

__all__ = ["softmax", "log_softmax", "softmax_backward_data", "log_softmax_backward_data", "cross_entropy", "layer_norm",
           "layer_norm_backward", "layer_norm_weight_grad", "batch_norm", "batch_norm_backward",
           "batch_norm_weight_grad", "batch_norm_moments", "group_norm", "safe_softmax", "scaled_dot_product_attention",
           "attention_weights"]


def _rowwise(kind: str, x: Any, dim: int) -> Any:
    if x.ndim == 0:
        x1 = x.reshape(1)
        return _rowwise(kind, x1, 0).reshape(())
    d = dim % x.ndim
    moved = x if d == x.ndim - 1 else cupy.moveaxis(x, d, -1)
    m = cupy.ascontiguousarray(moved)
    cols = m.shape[-1]
    rows = m.size // cols if cols else 0
    out = cupy.empty_like(m)
    if rows and cols:
        dt = dtype_name(x.dtype)
        fn = function(f"softmax_{dt}", lambda: src.softmax_source(dt), f"mg_{kind}_{src.DTYPES[dt][2]}")
        fn((rows,), (block_for(cols),), (m, out, np.int64(cols)))
    return out if d == x.ndim - 1 else cupy.ascontiguousarray(cupy.moveaxis(out, -1, d))


@register_kernel("softmax", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_softmax")
def softmax(x: Any, dim: int = -1) -> Any:
    return _rowwise("softmax", x, dim)


@register_kernel("log_softmax", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_log_softmax")
def log_softmax(x: Any, dim: int = -1) -> Any:
    return _rowwise("log_softmax", x, dim)


def _rows_last(a: Any, d: int) -> Any:
    """``a`` with dim ``d`` last, C-contiguous (a copy unless it already is)."""
    return cupy.ascontiguousarray(a if d == a.ndim - 1 else cupy.moveaxis(a, d, -1))


def _rowwise_backward(kind: str, grad: Any, out: Any, dim: int) -> Any:
    """``mg_<kind>_bwd``: the backward of softmax or log_softmax from the gradient and the forward's output,
    one launch (one block a row), where the formula's array steps took four."""
    if out.ndim == 0:
        return _rowwise_backward(kind, grad.reshape(1), out.reshape(1), 0).reshape(())
    d = dim % out.ndim
    g, y = _rows_last(grad, d), _rows_last(out, d)
    cols = y.shape[-1]
    rows = y.size // cols if cols else 0
    res = cupy.empty(y.shape, dtype=y.dtype)
    if rows and cols:
        dt = dtype_name(y.dtype)
        fn = function(f"softmax_{dt}", lambda: src.softmax_source(dt), f"mg_{kind}_bwd_{src.DTYPES[dt][2]}")
        fn((rows,), (block_for(cols),), (g, y, res, np.int64(cols)))
    return res if d == out.ndim - 1 else cupy.ascontiguousarray(cupy.moveaxis(res, -1, d))


@register_kernel("softmax_backward_data", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_softmax_backward_data")
def softmax_backward_data(grad_output: Any, output: Any, dim: int = -1) -> Any:
    return _rowwise_backward("softmax", grad_output, output, dim)


@register_kernel("log_softmax_backward_data", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_log_softmax_backward_data")
def log_softmax_backward_data(grad_output: Any, output: Any, dim: int = -1) -> Any:
    return _rowwise_backward("log_softmax", grad_output, output, dim)


@register_kernel("cross_entropy", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_cross_entropy")
def cross_entropy(input: Any, target: Any, reduction: str = "mean") -> Any:
    n, c = input.shape
    # The targets are checked on the device, reported at the next sync (NOTE [ Checks on the GPU are reported
    # at the next sync ] in _runtime.py): reading them here would make the host wait at every call. The
    # loss's own kernel checks them where it runs (no launch of its own); with no classes, the range check.
    def error(bad: Any, values: Any) -> BaseException:
        return ValueError(f"cross_entropy(): target values must be class indices in [0, {c - 1}], got "
                          f"{values.min()}..{values.max()}")

    x = cupy.ascontiguousarray(input)
    t = cupy.ascontiguousarray(target, dtype=np.int64)
    nll = cupy.empty((n,), dtype=input.dtype)
    if n and c:
        dt = dtype_name(input.dtype)
        fn = function(f"softmax_{dt}", lambda: src.softmax_source(dt), f"mg_cross_entropy_{src.DTYPES[dt][2]}")
        fn((n,), (block_for(c),), (x, t, nll, np.int64(c), *check_in_kernel(target, 0, c, error)))
    else:
        check_later(target, 0, c, error)
    if reduction == "none":
        return nll
    if n == 0:
        return cupy.full((), 0.0 if reduction == "sum" else np.nan, dtype=input.dtype)  # a fill: no copy
    op = "sum" if reduction == "sum" else "mean"
    return reduce_rows(op, nll.reshape(1, n), 1, n, scale=1.0 / n).reshape(())


def _nll(kind: str, dtype: Any) -> Any:
    dt = dtype_name(dtype)
    return function(f"nll_{dt}", lambda: src.nll_source(dt), f"mg_nll_{kind}_{src.DTYPES[dt][2]}")


def one_sample_as_cuda(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """An ``nll_loss`` kernel of ``(N, C)`` log-probabilities that also takes one sample, ``(C,)`` with a 0-d
    target, as PyTorch CUDA computes it (its ``nll_loss_forward_reduce_cuda_kernel_1d``), which is not as its
    CPU does (``loss_terms.one_sample_nll``): an ignored target gives 0 (the CPU's mean: 0 / 0, NaN); the
    mean is ``-x[t]`` itself (a log-probability of 0 gives -0.0, the CPU's 0.0), NaN where the target's
    weight is 0; the sum and ``'none'`` are ``-w[t] * x[t]``. On the device, nothing read back."""
    @functools.wraps(kernel)
    def run(input: Any, target: Any, weight: Any = None, reduction: str = "mean", ignore_index: int = -100) -> Any:
        if input.ndim != 1:
            return kernel(input, target, weight, reduction, ignore_index)
        if not input.size:  # no class: its target is ignored (any other is out of range, which the device's check
            return cupy.zeros((), dtype=input.dtype)  # reports at the next sync): PyTorch CUDA's 0, nothing indexed
        valid = target != ignore_index
        safe = cupy.where(valid, target, 0)
        x = input[safe]
        w = None if weight is None else weight[safe].astype(input.dtype, copy=False)
        if reduction == "mean":
            loss = -x if w is None else cupy.where(w == 0, math.nan, -x)
        else:
            loss = -x if w is None else -w * x
        return cupy.where(valid, loss, 0).astype(input.dtype, copy=False)

    return run


@register_kernel("nll_loss", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_nll_loss")
@one_sample_as_cuda
def nll_loss(input: Any, target: Any, weight: Any = None, reduction: str = "mean", ignore_index: int = -100) -> Any:
    """The CPU kernel's formula in one launch (``cuda_src.nll_source``); the targets' range was checked on
    the device (``check_class_target(read=False)``), and nothing here reads a device value on the host.
    With a weight per class, the CPU's steps as CuPy's kernels (``loss_terms.weighted_nll``)."""
    if weight is not None:
        return weighted_nll(cupy, input, target, weight, reduction, ignore_index)
    n, c = input.shape
    x = cupy.ascontiguousarray(input)
    t = cupy.ascontiguousarray(target, dtype=np.int64)
    if reduction == "none":
        out = cupy.empty((n,), dtype=input.dtype)
        if n:
            _nll("rows", input.dtype)((-(-n // 256),), (256,), (x, t, out, np.int64(n), np.int64(c),
                                                                np.int64(ignore_index)))
        return out
    out = cupy.empty((), dtype=input.dtype)
    _nll("total", input.dtype)((1,), (1024,), (x, t, out, np.int64(n), np.int64(c), np.int64(ignore_index),
                                               np.int32(reduction == "mean")))
    return out


@one_sample_nll_backward
def nll_loss_backward(grad: Any, target: Any, weight: Any = None, shape: Any = (), reduction: str = "mean",
                      ignore_index: int = -100) -> Any:
    if weight is not None:
        return weighted_nll_grad(cupy, grad, target, weight, shape, reduction, ignore_index)
    n, c = shape
    out = cupy.empty(shape, dtype=grad.dtype)
    if not n or not c:
        return out
    t = cupy.ascontiguousarray(target, dtype=np.int64)
    count = cupy.empty((1,), dtype=np.float64 if grad.dtype == np.float64 else np.float32)
    if reduction == "mean":
        _nll("count", grad.dtype)((1,), (1024,), (t, count, np.int64(n), np.int64(ignore_index)))
    mode = {"none": 0, "sum": 1, "mean": 2}[reduction]
    blocks = min(-(-(n * c) // 256), 65535)
    _nll("bwd", grad.dtype)((blocks,), (256,), (cupy.ascontiguousarray(grad), t, count, out, np.int64(n), np.int64(c),
                                               np.int64(ignore_index), np.int32(mode)))
    return out


register_kernel("nll_loss2d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_nll_loss2d")(nll2d_of_rows(nll_loss))
register_kernel("nll_loss_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_nll_loss_backward")(
    shaped_by_input(nll_loss_backward))
register_kernel("nll_loss2d_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_nll_loss2d_backward")(
    shaped_by_input(nll2d_backward_of_rows(nll_loss_backward)))


@register_kernel("cross_entropy_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_cross_entropy_backward")
def cross_entropy_backward(grad: Any, input: Any, target: Any, reduction: str = "mean") -> Any:
    """(softmax(input) - onehot(target)) * grad, scaled by the reduction: the CPU kernel's formula
    (``ops/loss.py``) in one launch (``mg_cross_entropy_bwd``: one block a row), the loss's gradient read on
    the device."""
    n, c = input.shape
    x = cupy.ascontiguousarray(input)
    out = cupy.empty((n, c), dtype=input.dtype)
    if n and c:
        dt = dtype_name(input.dtype)
        fn = function(f"softmax_{dt}", lambda: src.softmax_source(dt), f"mg_cross_entropy_bwd_{src.DTYPES[dt][2]}")
        fn((n,), (block_for(c),), (x, cupy.ascontiguousarray(target, dtype=np.int64),
                                   cupy.ascontiguousarray(grad), out, np.int64(c), np.int32(reduction == "none"),
                                   np.float64(1.0 / n if reduction == "mean" else 1.0)))
    return out


def _ln(kind: str, dtype: Any) -> Any:
    dt = dtype_name(dtype)
    return function(f"ln_{dt}", lambda: src.layer_norm_source(dt), f"mg_ln_{kind}_{src.DTYPES[dt][2]}")


def _rows(a: Any, normalized_ndim: int) -> tuple[Any, int, int]:
    """``a`` as a row-major (rows, cols) matrix of its leading and its normalized dims."""
    cols = math.prod(a.shape[a.ndim - normalized_ndim:])
    rows = math.prod(a.shape[:a.ndim - normalized_ndim])
    return cupy.ascontiguousarray(a).reshape(rows, cols), rows, cols


# One block a row (NOTE [ Layer norm in one launch a row ] in cuda_src.py).
@register_kernel("layer_norm", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_layer_norm")
def layer_norm(x: Any, weight: Any, bias: Any, normalized_ndim: int = 1, eps: float = 1e-5) -> Any:
    xm, rows, cols = _rows(x, normalized_ndim)
    out = cupy.empty(x.shape, dtype=x.dtype)
    if rows and cols:
        _ln("fwd", x.dtype)((rows,), (block_for(cols),), (xm, cupy.ascontiguousarray(weight),
                                                         cupy.ascontiguousarray(bias), out, np.int64(cols),
                                                         np.float64(eps)))
    return out


@register_kernel("layer_norm_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_layer_norm_backward")
def layer_norm_backward(grad: Any, x: Any, weight: Any, normalized_ndim: int = 1, eps: float = 1e-5) -> Any:
    xm, rows, cols = _rows(x, normalized_ndim)
    gm = _rows(grad, normalized_ndim)[0]
    out = cupy.empty(x.shape, dtype=grad.dtype)
    if rows and cols:
        _ln("bwd", x.dtype)((rows,), (block_for(cols),), (gm, xm, cupy.ascontiguousarray(weight), out,
                                                         np.int64(cols), np.float64(eps)))
    return out


#: rows a block of the weight gradient's partial sums covers, at least (at most 1024 chunks of rows)
_ROWS_PER_CHUNK = 32


@register_kernel("layer_norm_weight_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_layer_norm_weight_grad")
def layer_norm_weight_grad(grad: Any, x: Any, normalized_ndim: int = 1, eps: float = 1e-5) -> Any:
    xm, rows, cols = _rows(x, normalized_ndim)
    gm = _rows(grad, normalized_ndim)[0]
    if not rows or not cols:
        return cupy.zeros(x.shape[x.ndim - normalized_ndim:], dtype=grad.dtype)
    out = cupy.empty(x.shape[x.ndim - normalized_ndim:], dtype=grad.dtype)
    acc = np.float64 if x.dtype == np.float64 else np.float32
    means, rstds = cupy.empty(rows, dtype=acc), cupy.empty(rows, dtype=acc)
    _ln("stats", x.dtype)((rows,), (block_for(cols),), (xm, means, rstds, np.int64(cols), np.float64(eps)))
    per_chunk = max(_ROWS_PER_CHUNK, -(-rows // 1024))
    chunks = -(-rows // per_chunk)
    partial = cupy.empty((chunks, cols), dtype=acc)
    tiles = -(-cols // 256)
    _ln("wgrad_partial", x.dtype)((tiles, chunks), (256,), (gm, xm, means, rstds, partial, np.int64(rows),
                                                            np.int64(cols), np.int64(per_chunk)))
    _ln("wgrad_final", x.dtype)((tiles,), (256,), (partial, out, np.int64(chunks), np.int64(cols)))
    return out


def _bn(kind: str, dtype: Any) -> Any:
    dt = dtype_name(dtype)
    return function(f"bn_{dt}", lambda: src.batch_norm_source(dt), f"mg_bn_{kind}_{src.DTYPES[dt][2]}")


def _bn_geometry(x: Any) -> tuple[Any, int, int, int, Any]:
    """``x`` contiguous, its (n, C, hw) and the statistics' compute type (NOTE [ Batch norm: one block a
    channel ] in ``cuda_src.py``)."""
    n, c = x.shape[:2]
    hw = x.size // (n * c) if n * c else 0
    return cupy.ascontiguousarray(x), n, c, hw, np.float64 if x.dtype == np.float64 else np.float32


def _bn_statistics(xc: Any, n: int, c: int, hw: int, acc: Any, running_mean: Any, running_var: Any, training: bool,
                   eps: float) -> tuple[Any, Any]:
    """Each channel's mean and ``invstd``: the batch's (one block a channel), or the running ones'."""
    if training:
        means, invstds = cupy.ndarray((c,), acc), cupy.ndarray((c,), acc)
        _bn("stats", xc.dtype)((c,), (block_for(n * hw),), (xc, means, invstds, np.int64(n), np.int64(c),
                                                             np.int64(hw), np.float64(eps)))
        return means, invstds
    invstds = cupy.ndarray((c,), acc)
    launch_1d(_bn("invstd", xc.dtype), c, (cupy.ascontiguousarray(running_var.astype(acc, copy=False)), invstds,
                                            np.int64(c), np.float64(eps)))
    return cupy.ascontiguousarray(running_mean.astype(acc, copy=False)), invstds


def _bn_reduce(g: Any, geometry: tuple[Any, int, int, int, Any], running_mean: Any, running_var: Any, training: bool,
               eps: float) -> tuple[Any, ...]:
    """``(means, invstds, sum(g), sum(g * xhat))`` per channel, for the gradients: one launch a channel's block
    when training (the statistics computed again there), the running statistics' ``invstd`` first when not.
    ``geometry``: the input's ``_bn_geometry``."""
    xc, n, c, hw, acc = geometry
    sum_g, sum_gxhat = cupy.ndarray((c,), acc), cupy.ndarray((c,), acc)
    if training:
        means, invstds = cupy.ndarray((c,), acc), cupy.ndarray((c,), acc)
    else:
        means, invstds = _bn_statistics(xc, n, c, hw, acc, running_mean, running_var, False, eps)
    _bn("reduce", xc.dtype)((c,), (block_for(n * hw),), (cupy.ascontiguousarray(g), xc, means, invstds, sum_g, sum_gxhat,
                                                          np.int64(n), np.int64(c), np.int64(hw), np.float64(eps),
                                                          np.int32(training)))
    return means, invstds, sum_g, sum_gxhat


@register_kernel("batch_norm", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_batch_norm")
def batch_norm(x: Any, weight: Any, bias: Any, running_mean: Any = None, running_var: Any = None,
               training: bool = True, eps: float = 1e-5) -> Any:
    """Each channel's statistics in one block (the batch's when training, else the running ones'), then
    ``(x - mean) * invstd * weight + bias`` in one elementwise launch (NOTE [ Batch norm: one block a
    channel ] in ``cuda_src.py``): two launches."""
    xc, n, c, hw, acc = _bn_geometry(x)
    out = cupy.ndarray(x.shape, x.dtype)
    if x.size == 0:
        return out
    means, invstds = _bn_statistics(xc, n, c, hw, acc, running_mean, running_var, training, eps)
    launch_1d(_bn("fwd", x.dtype), x.size, (xc, means, invstds, cupy.ascontiguousarray(weight.astype(acc, copy=False)),
                                            cupy.ascontiguousarray(bias.astype(acc, copy=False)), out, np.int64(c),
                                            np.int64(hw), np.int64(x.size)))
    return out


@register_kernel("batch_norm_moments", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_batch_norm_moments")
def batch_norm_moments(x: Any) -> tuple[Any, Any]:
    """Each channel's mean and unbiased variance (the running statistics' update) in one launch, one block a
    channel."""
    xc, n, c, hw, _ = _bn_geometry(x)
    means, variances = cupy.ndarray((c,), x.dtype), cupy.ndarray((c,), x.dtype)
    if c:
        _bn("moments", x.dtype)((c,), (block_for(n * hw),), (xc, means, variances, np.int64(n), np.int64(c), np.int64(hw)))
    return means, variances


@register_kernel("batch_norm_backward", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_batch_norm_backward")
def batch_norm_backward(grad: Any, x: Any, weight: Any, running_mean: Any = None, running_var: Any = None,
                        training: bool = True, eps: float = 1e-5) -> Any:
    """The input's gradient: training, ``weight * invstd * (g - mean(g) - xhat * mean(g * xhat))`` from one
    reduction launch a channel and one elementwise launch; evaluating, ``g * weight * invstd`` of the running
    statistics (their ``invstd``, then the elementwise launch)."""
    geometry = xc, n, c, hw, acc = _bn_geometry(x)
    out = cupy.ndarray(x.shape, grad.dtype)
    if x.size == 0:
        return out
    g = cupy.ascontiguousarray(grad)
    if training:
        means, invstds, sum_g, sum_gxhat = _bn_reduce(g, geometry, None, None, True, eps)
    else:
        means, invstds = _bn_statistics(xc, n, c, hw, acc, running_mean, running_var, False, eps)
        sum_g = sum_gxhat = invstds  # (not read when evaluating)
    launch_1d(_bn("bwd", x.dtype), x.size, (g, xc, means, invstds, cupy.ascontiguousarray(weight.astype(acc, copy=False)),
                                            sum_g, sum_gxhat, out, np.int64(c), np.int64(hw), np.int64(x.size),
                                            np.float64(1.0 / (n * hw)), np.int32(training)))
    return out


@register_kernel("batch_norm_weight_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_batch_norm_weight_grad")
def batch_norm_weight_grad(grad: Any, x: Any, running_mean: Any = None, running_var: Any = None,
                           training: bool = True, eps: float = 1e-5) -> Any:
    """The weight's gradient ``sum(g * xhat)`` per channel: the input gradient's reduction launch alone."""
    if x.size == 0:
        return cupy.zeros((x.shape[1],), dtype=grad.dtype)
    sum_gxhat = _bn_reduce(grad, _bn_geometry(x), running_mean, running_var, training, eps)[3]
    return sum_gxhat.astype(grad.dtype, copy=False)


def _ew(op: str, *arrays: Any) -> Any:
    """``op`` of one or two arrays of one dtype by the hand-written elementwise kernels (a number's kept
    constant goes to the kernel by value): their launch costs less host time than CuPy's ufunc dispatch."""
    return run_elementwise(op, "binary" if len(arrays) == 2 else "unary", arrays, arrays[0].dtype)


@register_kernel("group_norm", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_group_norm")
def group_norm(x: Any, weight: Any = None, bias: Any = None, group: int = 1, eps: float = 1e-5) -> Any:
    """The groups' statistics by two row reductions (one row a sample's group: ``mean``, then the squared
    deviations), then ``(x - mean) * rstd`` and each channel's weight and bias, as the batch norm's kernel."""
    n, c = x.shape[:2]
    if x.size == 0:
        return cupy.empty(x.shape, dtype=x.dtype)
    acc = np.float64 if x.dtype == np.float64 else np.float32
    rows, cols = n * group, x.size // (n * group)
    m = cupy.ascontiguousarray(x).reshape(rows, cols)
    mu = reduce_rows("mean", m, rows, cols, scale=1.0 / cols).astype(acc, copy=False)
    var = reduce_rows("sq_dev", m, rows, cols, aux=mu, scale=1.0 / cols).astype(acc, copy=False)
    rstd = _ew("reciprocal", _ew("sqrt", _ew("add", var, constant(np.asarray(eps, acc)))))
    out = _ew("mul", _ew("sub", m.astype(acc, copy=False), mu.reshape(rows, 1)), rstd.reshape(rows, 1)).reshape(x.shape)
    view = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = _ew("mul", out, weight.astype(acc, copy=False).reshape(view))
    if bias is not None:
        out = _ew("add", out, bias.astype(acc, copy=False).reshape(view))
    return cupy.ascontiguousarray(out.astype(x.dtype, copy=False))


# -- attention (ops/attention.py): the arithmetic of kernels/attention.py on CuPy's arrays, the softmax this
# file's kernel ---------------------------------------------------------------------------------------------

@register_kernel("safe_softmax", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_safe_softmax")
def safe_softmax(x: Any, dim: int = -1) -> Any:
    return attention_math.safe_rows(cupy, x, softmax(x, dim), dim)


@register_kernel("scaled_dot_product_attention", GPU, dtypes=FLOAT_DTYPES, name="gpu/fused_attention")
def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None, dropped: Any = None,
                                 is_causal: bool = False, scale: float = 1.0) -> Any:
    return laid_out_like(cupy, attention_math.attention(cupy, softmax, query, key, value, attn_mask, is_causal,
                                                        scale, dropped), query)


@register_kernel("attention_weights", GPU, dtypes=FLOAT_DTYPES, name="gpu/attention_weights")
def attention_weights(query: Any, key: Any, attn_mask: Any = None, is_causal: bool = False,
                      scale: float = 1.0) -> Any:
    return attention_math.weights(cupy, softmax, query, key, attn_mask, is_causal, scale)


# -- glu: the elementwise templates' kernels on the two halves --------------------------------------------


@register_kernel("glu", GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_glu")
def glu(x: Any, dim: int = -1) -> Any:
    """``a * sigmoid(b)`` for the halves ``a, b`` of ``x`` along ``dim``: two launches (sigmoid of ``b``, then the
    product), each reading its half in place through the strided kernels."""
    a, b = cupy.split(x, 2, axis=dim)
    return run_elementwise("mul", "binary", (a, run_elementwise("sigmoid", "unary", (b,), x.dtype)), x.dtype)
