"""Normalization layers' functions of ``torch.nn.functional``: ``layer_norm``, ``batch_norm``,
``group_norm``, ``instance_norm`` and ``local_response_norm``.

``layer_norm`` is an op of its own (one kernel forward, one node, one formula
backward), as PyTorch's ``native_layer_norm`` is: a transformer calls it five
times a step on its largest activations, and as a composite its nine ops made
nine arrays and nine nodes each time. ``batch_norm`` and ``group_norm`` are ops
too (PyTorch's ``native_batch_norm`` and ``native_group_norm``); the others are
composites, PyTorch's own decompositions.

``layer_norm`` normalises each sample over its last dims; ``batch_norm`` each
channel over the batch (and updates the running statistics in place when
training); ``group_norm`` each group of channels of each sample, on its own
statistics, ``(x - mean) / sqrt(var + eps)`` (biased variance, as PyTorch), then
scales and shifts each channel by ``weight`` and ``bias``. A group norm with one
group per channel is an instance norm; PyTorch computes ``instance_norm`` as the
batch norm of the input viewed as one sample of ``N * C`` channels, and so does
minigrad. ``local_response_norm`` averages the squares over neighbouring
channels with ``avg_pool3d``, as PyTorch's.

Example:
    >>> import minigrad as mg
    >>> x = mg.arange(8.0).reshape(1, 4, 2)
    >>> y = mg.nn.functional.group_norm(x, 2)
    >>> [round(v, 4) for v in y[0, :2].reshape(-1).tolist()]
    [-1.3416, -0.4472, 0.4472, 1.3416]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ShapeError
from ..autograd.grad_mode import no_grad
from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.normalization import batch_norm_backward_arrays, layer_norm_arrays, layer_norm_backward_arrays
from ..kernels.registry import kernel_of, register_kernel
from ..tensor import Tensor, VersionCounter, storage_viewed
from ..tracing import bus
from ._checks import _is_int, check_bool, check_int, check_tensor, wrap_dim
from ._constants import kept_constant
from .. import dtypes as _dt
from .math import add, add_scalar, cast, clone, div, mul, pow
from .pointwise import rsqrt
from .padding import constant_pad_nd
from .pooling import avg_pool2d, avg_pool3d
from .reduce import mean
from .registry import Attr, Input, defop, type_name
from .repeat import repeat
from .shape import getitem, squeeze, unsqueeze, view
from ..dispatch.amp import autocast_as

__all__: list[str] = ["rms_norm"]  # torch.rms_norm; the others F only


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims: ``(x - mean) / sqrt(var + eps) * w + b``
    (biased variance, as PyTorch). The ``layer_norm`` op; a missing ``weight`` is ones and a missing
    ``bias`` zeros (constants: no gradient).
    """
    check_tensor("layer_norm", "input", 0, input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    # PyTorch's _check_layer_norm_inputs, in its order and words
    if not shape:
        raise ShapeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                         f"element, but got normalized_shape = {list(shape)}")
    for name, v in (("weight", weight), ("bias", bias)):
        if isinstance(v, Tensor) and tuple(v.shape) != shape:
            raise ShapeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                             f"{list(v.shape)} and normalized_shape = {list(shape)}")
    if len(shape) > input.ndim or tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise ShapeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                         f"[*{''.join(f', {n}' for n in shape)}], but got input of size{list(input.shape)}")
    if weight is None:  # (of the input's dtype: an integer input finds no kernel, as before the op existed)
        weight = _filled(1, shape, input)
    if bias is None:
        bias = _filled(0, shape, input)
    return _layer_norm_op(input, weight, bias, normalized_ndim=len(shape), eps=eps)


@autocast_as("rms_norm")
def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims (Zhang and Sennrich, 2019):
    ``x * rsqrt(mean(x^2) + eps) * weight``; ``eps`` defaults to the machine epsilon of the dtype computed in.

    Composite, PyTorch's ``rms_norm`` op for op: ``pow``, ``mean`` (kept dims), ``add_scalar`` (its in-place
    ``add_``), ``rsqrt``, ``mul`` and ``mul`` by ``weight``; a half (or bfloat16) input computed in float32
    and cast back, as PyTorch's opmath.

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.rms_norm(mg.tensor([[2.0, -2.0], [4.0, 0.0]]), (2,), eps=0.0).tolist()
        [[1.0, -1.0], [1.4142135381698608, 0.0]]
    """
    check_tensor("rms_norm", "input", 0, input)
    if not isinstance(normalized_shape, (tuple, list)) or not all(_is_int(d) for d in normalized_shape):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type_name(normalized_shape)}")
    shape = tuple(normalized_shape)
    if len(shape) > input.ndim or tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"rms_norm(): Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"rms_norm(): Expected weight to be of same shape as normalized_shape, but got weight of "
                           f"shape {list(weight.shape)} and normalized_shape = {list(shape)}")
    x = cast(input, _dt.float32) if input.dtype in (_dt.float16, _dt.bfloat16) else input
    if eps is None:
        eps = float(np.finfo(x.dtype.np).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = mul(x, rsqrt(add_scalar(mean(pow(x, 2), dim=dims, keepdim=True), eps)))
    if weight is not None:
        out = mul(out, weight)
    return out if out.dtype is input.dtype else cast(out, input.dtype)


def _filled(value: int, shape: tuple[int, ...], like: Tensor) -> Tensor:
    """The ones or zeros standing for a missing weight or bias: on a GPU made there once per shape and kept
    (``kept_constant``), where a host array would be copied to the device at every call, a sync each."""
    return kept_constant(("filled", value, shape), lambda: np.full(shape, value), like, like.dtype)


@register_kernel("layer_norm", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/layer_norm")
def layer_norm_cpu(x, weight, bias, normalized_ndim=1, eps=1e-5):
    return layer_norm_arrays(np, x, weight, bias, normalized_ndim, eps)


def _layer_norm_meta(op: str, x: Any, weight: Any, bias: Any, normalized_ndim: int = 1, eps: float = 1e-5) -> Any:
    tail = tuple(x.shape[x.ndim - normalized_ndim:]) if 0 < normalized_ndim <= x.ndim else None
    for name, v in (("weight", weight), ("bias", bias)):
        if tail is None or tuple(v.shape) != tail:
            raise ShapeError(f"{op}(): '{name}' has shape {tuple(v.shape)} but the input's last "
                             f"{normalized_ndim} dims are {tuple(x.shape[x.ndim - normalized_ndim:])}")
    return tuple(x.shape), x.dtype


def _check_eps(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a float, but got {type_name(v)}")
    return float(v)


_LN_ATTRS = (Attr("normalized_ndim", 1, check_int), Attr("eps", 1e-5, _check_eps))

_layer_norm_op = defop(
    "layer_norm",
    inputs=("x", "weight", "bias"),
    attrs=_LN_ATTRS,
    infer_meta=_layer_norm_meta,
    save=("x", "weight"),
    save_for={"weight": (0,)},
    transform_dtype=True,
    layout="contiguous",
    doc="layer normalization over the last normalized_ndim dims: (x - mean) / sqrt(var + eps) * weight + bias",
)


@_layer_norm_op.def_backward
def _layer_norm_backward(ctx, g):
    """The input's and the weight's gradients are fused ops of their own (PyTorch's
    ``native_layer_norm_backward``, one output each); the bias's is ``sum(g)``."""
    x, w = ctx.saved()  # weight is kept only for x's gradient (save_for)
    ops = ctx.ops
    n, eps = ctx.attrs["normalized_ndim"], ctx.attrs["eps"]
    return (
        ops.layer_norm_backward(g, x, w, n, eps) if ctx.needs(0) else None,
        ops.layer_norm_weight_grad(g, x, n, eps) if ctx.needs(1) else None,
        ops.sum_to(g, ctx.input_shape(2)) if ctx.needs(2) else None,
    )


@register_kernel("layer_norm_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/layer_norm_backward")
def layer_norm_backward_cpu(grad, x, weight, normalized_ndim=1, eps=1e-5):
    return layer_norm_backward_arrays(np, grad, x, weight, normalized_ndim, eps, "input")


@register_kernel("layer_norm_weight_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/layer_norm_weight_grad")
def layer_norm_weight_grad_cpu(grad, x, normalized_ndim=1, eps=1e-5):
    return layer_norm_backward_arrays(np, grad, x, None, normalized_ndim, eps, "weight")


def _layer_norm_backward_meta(op: str, grad: Any, x: Any, weight: Any, normalized_ndim: int = 1,
                              eps: float = 1e-5) -> Any:
    _layer_norm_meta(op, x, weight, weight, normalized_ndim, eps)
    return im.grad_like(op, grad, x)


def _layer_norm_weight_grad_meta(op: str, grad: Any, x: Any, normalized_ndim: int = 1, eps: float = 1e-5) -> Any:
    im.grad_like(op, grad, x)
    if not 0 < normalized_ndim <= x.ndim:
        raise ShapeError(f"{op}(): normalized_ndim {normalized_ndim} must be in [1, {x.ndim}] for an input of "
                         f"{x.ndim} dims")
    return tuple(x.shape[x.ndim - normalized_ndim:]), grad.dtype


_layer_norm_backward_op = defop(
    "layer_norm_backward",
    inputs=("grad", "x", "weight"),
    attrs=_LN_ATTRS,
    infer_meta=_layer_norm_backward_meta,
    save=("grad", "x", "weight"),
    transform_dtype=True,
    doc="layer_norm's input gradient, one fused kernel: rstd * (d - mean(d) - xhat * mean(d * xhat)), d = grad * weight",
)

_layer_norm_weight_grad_op = defop(
    "layer_norm_weight_grad",
    inputs=("grad", "x"),
    attrs=_LN_ATTRS,
    infer_meta=_layer_norm_weight_grad_meta,
    save=("grad", "x"),
    transform_dtype=True,
    doc="layer_norm's weight gradient, one fused kernel: sum(grad * xhat) over the leading dims",
)


def _normalized(ops: Any, x: Any, dims: tuple[int, ...], eps: float) -> tuple[Any, Any]:
    """``(xhat, rstd)`` of ``x`` over ``dims``, with the namespace's ops (the double backward formulas')."""
    centered = ops.sub(x, ops.mean(x, dim=dims, keepdim=True))
    rstd = ops.reciprocal(ops.sqrt(ops.add(ops.mean(ops.mul(centered, centered), dim=dims, keepdim=True), eps)))
    return ops.mul(centered, rstd), rstd


@_layer_norm_backward_op.def_backward
def _layer_norm_double_backward(ctx, a):
    """Of ``rstd * P(grad * weight)``, ``P(v) = v - mean(v) - xhat * mean(v * xhat)`` (self-adjoint):
    d/dgrad is ``weight * rstd * P(a)``, d/dweight ``sum(grad * rstd * P(a))``, and d/dx
    ``-rstd**2 * (xhat * (mean(a*d) - mean(a)*mean(d) - mean(a*xhat)*mean(d*xhat)) + mean(d*xhat) * P(a)
    + mean(a*xhat) * P(d))`` with ``d = grad * weight``."""
    g, x, w = ctx.saved()
    ops = ctx.ops
    dims = tuple(range(x.ndim - ctx.attrs["normalized_ndim"], x.ndim))

    def mean(v: Any) -> Any:
        return ops.mean(v, dim=dims, keepdim=True)

    xhat, rstd = _normalized(ops, x, dims, ctx.attrs["eps"])
    a_xhat = mean(ops.mul(a, xhat))
    pa = ops.sub(ops.sub(a, mean(a)), ops.mul(xhat, a_xhat))
    gg = gx = gw = None
    if ctx.needs(0):
        gg = ops.mul(ops.mul(pa, rstd), w)
    if ctx.needs(2):
        gw = ops.sum_to(ops.mul(g, ops.mul(pa, rstd)), ctx.input_shape(2))
    if ctx.needs(1):
        d = ops.mul(g, w)
        d_mean, d_xhat = mean(d), mean(ops.mul(d, xhat))
        pd = ops.sub(ops.sub(d, d_mean), ops.mul(xhat, d_xhat))
        k = ops.sub(ops.sub(mean(ops.mul(a, d)), ops.mul(mean(a), d_mean)), ops.mul(a_xhat, d_xhat))
        inner = ops.add(ops.add(ops.mul(xhat, k), ops.mul(d_xhat, pa)), ops.mul(a_xhat, pd))
        gx = ops.neg(ops.mul(inner, ops.mul(rstd, rstd)))
    return gg, gx, gw


@_layer_norm_weight_grad_op.def_backward
def _layer_norm_weight_grad_backward(ctx, b):
    """Of ``sum(grad * xhat)``: d/dgrad is ``b * xhat``; d/dx is layer_norm's input gradient with ``b``
    as the weight, ``layer_norm_backward(grad, x, b)``."""
    g, x = ctx.saved()
    ops = ctx.ops
    n, eps = ctx.attrs["normalized_ndim"], ctx.attrs["eps"]
    gg = gx = None
    if ctx.needs(0):
        xhat, _ = _normalized(ops, x, tuple(range(x.ndim - n, x.ndim)), eps)
        gg = ops.mul(xhat, b)
    if ctx.needs(1):
        gx = ops.layer_norm_backward(g, x, b, n, eps)
    return gg, gx


def _in_dtype_of(ctx: Any, slot: int, grad: Any) -> Any:
    """``grad`` in the dtype of input ``slot``: a half input's float32 weight and bias (the mixed dtypes PyTorch's
    CPU allows) get float32 gradients."""
    want = ctx.input_dtype(slot)
    return grad if want is ctx.input_dtype(0) else ctx.ops.cast(grad, want)


def _check_mixed_dtypes(input: Tensor, *params: Tensor | None) -> None:
    """PyTorch's CPU rule for a normalization's parameters (and running statistics): of the input's dtype, or
    float32 for a half (or bfloat16) input; refused in its words."""
    if str(input.device) != "cpu":
        return
    reduced = input.dtype in (_dt.float16, _dt.bfloat16)
    for v in params:
        if v is None or v.dtype is input.dtype or (reduced and v.dtype is _dt.float32):
            continue
        if input.dtype is _dt.float64:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _bn_shape(x: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The dims a batch norm reduces (all but the channels, dim 1) and the channels' broadcast shape."""
    return (0,) + tuple(range(2, x.ndim)), (1, x.shape[1]) + (1,) * (x.ndim - 2)


@register_kernel("batch_norm", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/batch_norm")
def batch_norm_cpu(x, weight, bias, running_mean=None, running_var=None, training=True, eps=1e-5):
    dims, view = _bn_shape(x)
    work = x if x.itemsize >= 4 else x.astype(np.float32)  # a half's statistics in float, as PyTorch's
    if training:
        count = x.size // max(x.shape[1], 1)
        mu = np.sum(work, axis=dims, keepdims=True) / max(count, 1)
        centered = work - mu
        var = np.sum(centered * centered, axis=dims, keepdims=True) / max(count, 1)
    else:
        centered = work - running_mean.reshape(view)
        var = running_var.reshape(view)
    out = centered / np.sqrt(var + eps) * weight.reshape(view) + bias.reshape(view)
    return np.ascontiguousarray(out, dtype=x.dtype)


def _batch_norm_meta(op: str, x: Any, weight: Any, bias: Any, running_mean: Any = None, running_var: Any = None,
                     training: bool = True, eps: float = 1e-5) -> Any:
    c = x.shape[1]
    for name, v in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if v is not None and tuple(v.shape) != (c,):
            raise ShapeError(f"{op}(): Expected {name} to be a vector of size equal to the number of channels in "
                             f"input, but got {name} of shape {list(v.shape)} and input of {c} channels")
    return tuple(x.shape), x.dtype


_BN_ATTRS = (Attr("training", True, check_bool), Attr("eps", 1e-5, _check_eps))
_BN_RUNNING = (Input("running_mean", differentiable=False, optional=True),
               Input("running_var", differentiable=False, optional=True))

_batch_norm_op = defop(
    "batch_norm",
    inputs=("x", "weight", "bias") + _BN_RUNNING,
    attrs=_BN_ATTRS,
    infer_meta=_batch_norm_meta,
    save=("x", "weight", "running_mean", "running_var"),
    save_for={"weight": (0,)},
    key_inputs=(0,),  # a half input's float32 parameters stay float32, as PyTorch's (its result is half)
    layout="memory_format",
    doc="batch normalization of each channel (dim 1): with the batch's statistics when training, else the "
        "running ones; then weight and bias",
)


@_batch_norm_op.def_backward
def _batch_norm_backward(ctx, g):
    """The input's and the weight's gradients are fused ops of their own (PyTorch's
    ``native_batch_norm_backward``, one output each, as layer_norm's); the bias's is ``sum(g)`` over every
    dim but the channels'."""
    x, w, *running = ctx.saved()  # (the running statistics are given, and saved, when evaluating only)
    rm, rv = running or (None, None)
    ops = ctx.ops
    training, eps = ctx.attrs["training"], ctx.attrs["eps"]
    return (
        ops.batch_norm_backward(g, x, w, rm, rv, training, eps) if ctx.needs(0) else None,
        _in_dtype_of(ctx, 1, ops.batch_norm_weight_grad(g, x, rm, rv, training, eps)) if ctx.needs(1) else None,
        _in_dtype_of(ctx, 2, ops.sum(g, dim=_bn_shape(x)[0])) if ctx.needs(2) else None,
        None, None,
    )


@register_kernel("batch_norm_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/batch_norm_backward")
def batch_norm_backward_cpu(grad, x, weight, running_mean=None, running_var=None, training=True, eps=1e-5):
    return batch_norm_backward_arrays(np, grad, x, weight, running_mean, running_var, training, eps, "input")


@register_kernel("batch_norm_weight_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/batch_norm_weight_grad")
def batch_norm_weight_grad_cpu(grad, x, running_mean=None, running_var=None, training=True, eps=1e-5):
    return batch_norm_backward_arrays(np, grad, x, None, running_mean, running_var, training, eps, "weight")


def _batch_norm_backward_meta(op: str, grad: Any, x: Any, weight: Any, running_mean: Any = None,
                              running_var: Any = None, training: bool = True, eps: float = 1e-5) -> Any:
    _batch_norm_meta(op, x, weight, None, running_mean, running_var, training, eps)
    return im.grad_like(op, grad, x)


def _batch_norm_weight_grad_meta(op: str, grad: Any, x: Any, running_mean: Any = None, running_var: Any = None,
                                 training: bool = True, eps: float = 1e-5) -> Any:
    _batch_norm_meta(op, x, None, None, running_mean, running_var, training, eps)
    im.grad_like(op, grad, x)
    return (x.shape[1],), grad.dtype


_batch_norm_backward_op = defop(
    "batch_norm_backward",
    inputs=("grad", "x", "weight") + _BN_RUNNING,
    attrs=_BN_ATTRS,
    infer_meta=_batch_norm_backward_meta,
    save=("grad", "x", "weight", "running_mean", "running_var"),
    key_inputs=(0, 1),
    doc="batch_norm's input gradient, fused: training, weight * invstd * (g - mean(g) - xhat * mean(g * xhat)) "
        "over every dim but the channels'; evaluating, g * weight * invstd of the running statistics",
)

_batch_norm_weight_grad_op = defop(
    "batch_norm_weight_grad",
    inputs=("grad", "x") + _BN_RUNNING,
    attrs=_BN_ATTRS,
    infer_meta=_batch_norm_weight_grad_meta,
    save=("grad", "x", "running_mean", "running_var"),
    key_inputs=(0, 1),
    doc="batch_norm's weight gradient, fused: sum(grad * xhat) per channel (dim 1)",
)


def _bn_normalized(ctx: Any, x: Any, rm: Any, rv: Any) -> tuple[Any, Any]:
    """``(xhat, invstd)`` of a batch norm's input with the namespace's ops (the double backward formulas'):
    the batch's statistics when training, else the running ones."""
    ops = ctx.ops
    dims, view = _bn_shape(x)
    if ctx.attrs["training"]:
        return _normalized(ops, x, dims, ctx.attrs["eps"])
    invstd = ops.reciprocal(ops.sqrt(ops.add(ops.reshape(rv, view), ctx.attrs["eps"])))
    return ops.mul(ops.sub(x, ops.reshape(rm, view)), invstd), invstd


@_batch_norm_backward_op.def_backward
def _batch_norm_double_backward(ctx, a):
    """Of ``invstd * P(grad * weight)`` when training, ``P(v) = v - mean(v) - xhat * mean(v * xhat)``
    (self-adjoint, layer_norm's with the channels' means): d/dgrad is ``weight * invstd * P(a)``, d/dweight
    ``sum(grad * invstd * P(a))`` per channel, d/dx ``-invstd**2 * (xhat * (mean(a*d) - mean(a)*mean(d) -
    mean(a*xhat)*mean(d*xhat)) + mean(d*xhat) * P(a) + mean(a*xhat) * P(d))`` with ``d = grad * weight``.
    Evaluating, ``grad * weight * invstd`` is linear in each: d/dx is none."""
    g, x, w, *running = ctx.saved()
    rm, rv = running or (None, None)
    ops = ctx.ops
    dims, view = _bn_shape(x)

    def mean(v: Any) -> Any:  # over every dim but the channels'
        return ops.mean(v, dim=dims, keepdim=True)

    training = ctx.attrs["training"]
    xhat, invstd = _bn_normalized(ctx, x, rm, rv)
    wv = ops.reshape(w, view)
    if training:
        a_xhat = mean(ops.mul(a, xhat))
        pa = ops.sub(ops.sub(a, mean(a)), ops.mul(xhat, a_xhat))
    else:  # (no statistics of the batch: P is the identity)
        pa = a
    gg = gx = gw = None
    if ctx.needs(0):
        gg = _in_dtype_of(ctx, 0, ops.mul(ops.mul(pa, invstd), wv))
    if ctx.needs(2):
        gw = _in_dtype_of(ctx, 2, ops.sum(ops.mul(g, ops.mul(pa, invstd)), dim=dims))
    if ctx.needs(1) and training:
        d = ops.mul(g, wv)
        d_mean, d_xhat = mean(d), mean(ops.mul(d, xhat))
        pd = ops.sub(ops.sub(d, d_mean), ops.mul(xhat, d_xhat))
        k = ops.sub(ops.sub(mean(ops.mul(a, d)), ops.mul(mean(a), d_mean)), ops.mul(a_xhat, d_xhat))
        inner = ops.add(ops.add(ops.mul(xhat, k), ops.mul(d_xhat, pa)), ops.mul(a_xhat, pd))
        gx = _in_dtype_of(ctx, 1, ops.neg(ops.mul(inner, ops.mul(invstd, invstd))))
    return gg, gx, gw, None, None


@_batch_norm_weight_grad_op.def_backward
def _batch_norm_weight_grad_backward(ctx, b):
    """Of ``sum(grad * xhat)`` per channel: d/dgrad is ``b * xhat``; d/dx is batch_norm's input gradient with
    ``b`` as the weight, ``batch_norm_backward(grad, x, b)``."""
    g, x, *running = ctx.saved()
    rm, rv = running or (None, None)
    ops = ctx.ops
    gg = gx = None
    if ctx.needs(0):
        gg = _in_dtype_of(ctx, 0, ops.mul(_bn_normalized(ctx, x, rm, rv)[0], ops.reshape(b, _bn_shape(x)[1])))
    if ctx.needs(1):
        gx = ops.batch_norm_backward(g, x, b, rm, rv, ctx.attrs["training"], ctx.attrs["eps"])
    return gg, gx, None, None


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) over the batch and spatial dims: one op, PyTorch's
    (``NativeBatchNormBackward0``, next functions input, weight and bias).

    Training: the batch's mean and biased variance; the running statistics
    are updated in place with ``momentum`` (the running variance with the
    unbiased estimate, as PyTorch). Evaluation: the running statistics.
    """
    check_tensor("batch_norm", "input", 0, input)
    shape = tuple(input.shape)
    if training:  # PyTorch's _verify_batch_size (its words; a 0-d input fails reading its size)
        if not shape:
            raise IndexError("tuple index out of range")
        if shape[0] * math.prod(shape[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"torch.Size({list(input.shape)})")
    if input.numel() == 0:  # PyTorch's empty-input path: a copy, times weight[0], plus bias[0]
        out = clone(input)
        if weight is not None:
            out = mul(out, getitem(weight, 0))
        if bias is not None:
            out = add(out, getitem(bias, 0))
        return out
    if input.ndim < 2:
        wrap_dim("batch_norm", 1, input.ndim)  # PyTorch's IndexError: the channels' dim 1 is out of range
    c = shape[1]
    # (checked before anything runs: a running statistic of the wrong size was scaled, then refused at its update)
    for name, v in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if v is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if v is not None and v.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {v.numel()}")
    _check_mixed_dtypes(input, weight, bias, running_mean, running_var)
    if weight is None:  # (of the input's dtype, as layer_norm's)
        weight = _filled(1, (c,), input)
    if bias is None:
        bias = _filled(0, (c,), input)
    if not training:
        return _batch_norm_op(input, weight, bias, running_mean, running_var, training=False, eps=eps)
    out = _batch_norm_op(input, weight, bias, None, None, training=True, eps=eps)
    if running_mean is not None and running_var is not None and input.numel():  # (an empty batch leaves them)
        _update_running_statistics(input, running_mean, running_var, momentum)
    return out


@register_kernel("batch_norm_moments", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/batch_norm_moments")
def batch_norm_moments_cpu(x):
    dims, _ = _bn_shape(x)
    work = x if x.itemsize >= 4 else x.astype(np.float32)  # a half's statistics in float, as PyTorch's
    count = x.size // max(x.shape[1], 1)
    mu = np.sum(work, axis=dims, keepdims=True) / max(count, 1)
    centered = work - mu
    with np.errstate(all="ignore"):  # one value a channel: 0 / 0, NaN (batch_norm refuses it before)
        variance = np.sum(centered * centered, axis=dims) / (count - 1)
    return mu.reshape(-1).astype(x.dtype), variance.astype(x.dtype)


def _batch_norm_moments_meta(op: str, x: Any) -> Any:
    if len(x.shape) < 2:
        raise ShapeError(f"{op}(): expected an input of at least 2 dims (batch, channels, ...), got {len(x.shape)}")
    return [((x.shape[1],), x.dtype), ((x.shape[1],), x.dtype)]


_batch_norm_moments_op = defop(
    "batch_norm_moments",
    inputs=("x",),
    infer_meta=_batch_norm_moments_meta,
    differentiable=False,
    doc="each channel's (dim 1) mean and unbiased variance over every other dim, from one kernel: what "
        "batch_norm's running statistics are updated with when training",
)


def _update_running_statistics(input: Tensor, running_mean: Tensor, running_var: Tensor, momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * batch`` for the mean and the unbiased variance,
    as PyTorch's statistics kernel updates them, under ``no_grad``.

    The batch's moments come from one op (``batch_norm_moments``: one launch on a GPU). With a recorder,
    or statistics a multi-tensor kernel can't take, each step is an op (``mul_``, ``mul``, ``add_``), as a
    trace shows them; otherwise the same three steps are three calls of the backend's ``_foreach_binary``
    kernel over both statistics, written in place with the version bumps the ops would make (the
    optimizers' foreach form: NOTE [ One rule, three forms ] in ``optim/update.py``), where the op path
    took six ops, six launches and four copies back on a GPU.
    """
    with no_grad():
        batch = _batch_norm_moments_op(input)
        running = (running_mean, running_var)
        kernel = _foreach_binary_for(running, batch)
        if kernel is None:
            for r, b in zip(running, batch):
                r.mul_(1 - momentum).add_(mul(b, momentum))
            return
        arrays = [r._data for r in running]
        kernel("mul", arrays, 1 - momentum, out=arrays)
        kernel("add", arrays, kernel("mul", [b._data for b in batch], momentum), out=arrays)
        for r in running:
            if r._vc is None:
                r._vc = VersionCounter()
            r._vc.bump()  # (as mul_ did)
            r._vc.bump()  # (as add_ did)


def _foreach_binary_for(running: tuple[Tensor, Tensor], batch: Any) -> Any:
    """The backend's ``_foreach_binary`` kernel when the running statistics may be updated by it: no
    recorder, one device and dtype for them and the batch's moments, row-major and writable arrays, no
    live view of their storage (a view must get its fresh node from the ops); else None."""
    r0 = running[0]
    if bus.steps_traced():
        return None
    for t in (*running, *batch):
        data = t._data
        if (t._device != r0._device or t._dtype is not r0._dtype or not data.flags.c_contiguous
                or not getattr(data.flags, "writeable", True)):
            return None
    if any(storage_viewed(r) for r in running):
        return None
    return kernel_of("_foreach_binary", r0)


# -- group_norm: PyTorch's native_group_norm, one op -------------------------------------------------


def _group_rows(x: Any, group: int) -> tuple[int, int, tuple[int, ...]]:
    """A group norm's rows (one per sample and group), the elements in each, and the channels' broadcast shape."""
    n, c = x.shape[:2]
    return n * group, math.prod(x.shape[1:]) // group if group else 0, (1, c) + (1,) * (x.ndim - 2)


@register_kernel("group_norm", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/group_norm")
def group_norm_cpu(x, weight=None, bias=None, group=1, eps=1e-5):
    rows, cols, view = _group_rows(x, group)
    work = (x if x.itemsize >= 4 else x.astype(np.float32)).reshape(rows, cols)  # a half in float, as PyTorch's
    out = np.empty_like(work)
    if work.size:
        centered = work - work.mean(axis=1, keepdims=True)
        rstd = 1.0 / np.sqrt((centered * centered).mean(axis=1, keepdims=True) + eps)
        out = centered * rstd
    out = out.reshape(x.shape)
    if weight is not None:
        out = out * weight.astype(out.dtype, copy=False).reshape(view)
    if bias is not None:
        out = out + bias.astype(out.dtype, copy=False).reshape(view)
    return np.ascontiguousarray(out, dtype=x.dtype)


def _group_norm_meta(op: str, x: Any, weight: Any = None, bias: Any = None, group: int = 1,
                     eps: float = 1e-5) -> Any:
    if x.ndim < 2 or group <= 0 or x.shape[1] % group:
        raise ShapeError(f"{op}(): an (N, C, *) input with C divisible by group={group}, but got {list(x.shape)}")
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and tuple(v.shape) != (x.shape[1],):
            raise ShapeError(f"{op}(): Expected {name} to be a vector of size equal to the number of channels in "
                             f"input, but got {name} of shape {list(v.shape)} and input of shape {list(x.shape)}")
    return tuple(x.shape), x.dtype


_group_norm_op = defop(
    "group_norm",
    inputs=("x", Input("weight", optional=True), Input("bias", optional=True)),
    attrs=(Attr("group", 1, check_int), Attr("eps", 1e-5, _check_eps)),
    infer_meta=_group_norm_meta,
    save=("x", "weight"),
    save_for={"weight": (0,)},
    key_inputs=(0,),
    layout="memory_format",
    doc="group normalization of (N, C, *): each sample's channels in `group` groups, each group on its own "
        "mean and biased variance; then weight and bias per channel (PyTorch's native_group_norm)",
)


@_group_norm_op.def_backward
def _group_norm_backward(ctx, g):
    """PyTorch's ``native_group_norm_backward``, with ``xhat = (x - mean) * rstd`` over each (sample, group)
    row: the input's gradient ``rstd * (d - mean(d) - xhat * mean(d * xhat))`` of ``d = g * weight``, the
    weight's ``sum(g * xhat)`` and the bias's ``sum(g)`` over the batch and the positions. The statistics are
    computed again from the saved input (as the batch and layer norms' formulas do). Written with ops, so
    it is differentiable again."""
    x, *kept = ctx.saved()  # the weight: kept only for x's gradient (save_for), and not there when not given
    w = kept[0] if kept else None
    ops = ctx.ops
    rows, cols, view = _group_rows(x, ctx.attrs["group"])
    if rows * cols == 0:  # an empty input: every gradient is empty, or zeros of the channels
        return (ops.mul(g, 0.0) if ctx.needs(0) else None,
                *(ops.sum(g, dim=(0,) + tuple(range(2, g.ndim))) if ctx.needs(k) else None for k in (1, 2)))
    sums = (0,) + tuple(range(2, x.ndim))
    flat = (x.shape[0], rows // max(x.shape[0], 1), cols)
    xhat, rstd = _normalized(ops, ops.reshape(x, flat), (2,), ctx.attrs["eps"])
    gx = gw = gb = None
    if ctx.needs(0):
        d = ops.reshape(g if w is None else ops.mul(g, ops.reshape(w, view)), flat)
        d_mean = ops.mean(d, dim=2, keepdim=True)
        d_xhat = ops.mean(ops.mul(d, xhat), dim=2, keepdim=True)
        gx = ops.reshape(ops.mul(rstd, ops.sub(ops.sub(d, d_mean), ops.mul(xhat, d_xhat))), tuple(x.shape))
        if w is not None and ctx.input_dtype(1) is not ctx.input_dtype(0):  # a half input's float32 weight
            gx = ops.cast(gx, ctx.input_dtype(0))
    if ctx.needs(1):
        gw = _in_dtype_of(ctx, 1, ops.sum(ops.mul(g, ops.reshape(xhat, tuple(x.shape))), dim=sums))
    if ctx.needs(2):
        gb = _in_dtype_of(ctx, 2, ops.sum(g, dim=sums))
    return gx, gw, gb


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Group normalisation (Wu and He, 2018) of ``(N, C, *)``: channels split into ``num_groups`` groups.

    One op, PyTorch's ``native_group_norm`` (``NativeGroupNormBackward0``, next functions the input, the
    weight and the bias, None for a missing one); PyTorch's checks and words, in its order.

    Example:
        >>> import minigrad as mg
        >>> y = mg.nn.functional.group_norm(mg.arange(8.0).reshape(1, 4, 2).requires_grad_(), 2)
        >>> type(y.grad_fn).__name__
        'NativeGroupNormBackward0'
    """
    op = "group_norm"
    check_tensor(op, "input", 0, input)
    if not _is_int(num_groups):
        raise TypeError(f"{op}(): argument 'num_groups' (position 2) must be int, not {type_name(num_groups)}")
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[:2]
    _verify_batch_size([n * c // num_groups, num_groups] + list(input.shape[2:]))  # (0 groups: ZeroDivisionError)
    if num_groups < 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for pos, name, v in ((3, "weight", weight), (4, "bias", bias)):
        if v is not None and not isinstance(v, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type_name(v)}")
        if v is not None and (v.ndim != 1 or v.numel() != c):
            # (PyTorch's bias message shows the weight's shape, [0] without one: its words, kept)
            shown = v.shape if name == "weight" else (weight.shape if weight is not None else (0,))
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                               f"got {name} of shape {list(shown)} and input of shape {list(input.shape)}")
    _check_mixed_dtypes(input, weight, bias)
    if not input.dtype.is_floating:
        raise NotImplementedError(f'"GroupNormKernelImpl" not implemented for \'{im.scalar_type_name(input.dtype.np)}\'')
    return _group_norm_op(input, weight, bias, group=int(num_groups), eps=eps)


def _verify_batch_size(size: list[int]) -> None:
    """PyTorch's ``_verify_batch_size``: a statistic over a single value is refused."""
    if math.prod(size[:1] + size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Instance normalisation of ``(N, C, *)``: every channel of every sample on its own statistics.

    Composite, PyTorch's decomposition op for op: the input viewed as one sample of ``N * C`` channels
    (``ViewBackward0``), the weight, bias and running statistics repeated ``N`` times (``RepeatBackward0``),
    ``batch_norm`` of that (``NativeBatchNormBackward0``: training with ``use_input_stats``, else the
    running statistics), viewed back. The repeated running statistics are updated by the batch norm and
    averaged back over the batch into the given buffers.

    Example:
        >>> import minigrad as mg
        >>> y = mg.nn.functional.instance_norm(mg.arange(8.0).reshape(1, 2, 4).requires_grad_())
        >>> type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__
        ('ViewBackward0', 'NativeBatchNormBackward0')
    """
    op = "instance_norm"
    check_tensor(op, "input", 0, input)
    shape = tuple(input.shape)
    if use_input_stats and math.prod(shape[2:]) == 1:  # PyTorch's _verify_spatial_size
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size({list(input.shape)})")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    b, c = shape[:2]
    w, bi, rm, rv = (None if v is None else repeat(v, b) for v in (weight, bias, running_mean, running_var))
    out = batch_norm(view(input.contiguous(), (1, b * c) + shape[2:]), rm, rv, w, bi, use_input_stats, momentum, eps)
    with no_grad():  # (PyTorch's alias(running_mean).copy_: the batch's average of the instances' statistics)
        for given, repeated in ((running_mean, rm), (running_var, rv)):
            if given is not None:
                given.copy_(mean(view(repeated, (b, c)), dim=0))
    return view(out, shape)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """AlexNet's local response normalisation: ``x / (k + alpha * mean of x^2 over size neighbouring channels)^beta``.

    Composite, PyTorch's decomposition op for op: the squares (``mul``) with a dim of 1 before the channels
    (``unsqueeze`` of a 3-D input, else a ``view`` as ``(N, 1, C, H, rest)``), padded with zeros along the
    channels (``constant_pad_nd``), averaged over windows of ``size`` channels (``avg_pool2d`` of a ``(size, 1)``
    kernel, or ``avg_pool3d`` of a ``(size, 1, 1)`` one), ``squeeze``d (and viewed back), then ``mul``, ``add``,
    ``pow`` and ``div``.

    Example:
        >>> import minigrad as mg
        >>> y = mg.nn.functional.local_response_norm(mg.ones(1, 3, 2, 2, requires_grad=True), 2)
        >>> type(y.grad_fn).__name__
        'DivBackward0'
    """
    op = "local_response_norm"
    check_tensor(op, "input", 0, input)
    if input.ndim < 3:  # (PyTorch's message has a run of spaces in it, kept)
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {input.ndim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    div_ = mul(input, input)
    if input.ndim == 3:
        div_ = constant_pad_nd(unsqueeze(div_, 1), (0, 0, size // 2, (size - 1) // 2))
        div_ = squeeze(avg_pool2d(div_, (size, 1), stride=1), 1)
    else:
        sizes = tuple(input.shape)
        div_ = view(div_, (sizes[0], 1, sizes[1], sizes[2], -1))
        div_ = constant_pad_nd(div_, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div_ = view(squeeze(avg_pool3d(div_, (size, 1, 1), stride=1), 1), sizes)
    return div(input, pow(add(mul(div_, alpha), k), beta))
