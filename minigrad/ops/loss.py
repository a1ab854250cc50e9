"""The losses of ``torch.nn.functional``: ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``, ``kl_div``,
``binary_cross_entropy``, ``binary_cross_entropy_with_logits``, and the margin, embedding and likelihood
losses (``margin_ranking_loss``, ``hinge_embedding_loss``, ``soft_margin_loss``, ``multilabel_soft_margin_loss``,
``cosine_embedding_loss``, ``triplet_margin_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``).

Ops: ``cross_entropy`` (softmax cross-entropy of class indices, with its fused backward
``cross_entropy_backward``, as PyTorch's), ``mse_loss``, ``smooth_l1_loss``, ``huber_loss``,
``soft_margin_loss``, ``binary_cross_entropy`` (with PyTorch's clamped logs and its finite
derivative at probabilities 0 and 1) and ``_with_logits``, each with its reduction inside, as
PyTorch's. The rest are composite: each is written with registered ops (``sub``, ``abs``, ``where``,
``log``, ``log_sigmoid``, ``sum`` ...), so its gradient, with respect to the input and the target
alike, is the one those ops give, and a trace shows their nodes. ``cross_entropy_loss`` is
PyTorch's full form (``F.cross_entropy``, PyTorch's own ``cross_entropy_loss``), which keeps the
op for the common call and composes ``log_softmax``, indexing and sums for the rest;
``nll_loss`` is in ``nn/functional.py``.

Every function checks its arguments - types, shapes, ``reduction``, the
loss's own parameters - before its first op runs, so a failed call leaves no
node. ``reduction`` is ``"mean"``, ``"sum"`` or ``"none"`` (``kl_div`` also
takes ``"batchmean"``); PyTorch's legacy ``size_average``/``reduce`` flags map
onto it as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.l1_loss(mg.tensor([1.0, 2.0]), mg.tensor([0.0, 4.0])).item()
    1.5
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any

import numpy as np

from ..errors import OutOfRangeError, ShapeError
from .. import dtypes as _dt
from ..dtypes import FLOAT_DTYPES
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..devices import check_range, mixed_devices_error
from ..kernels.backends import to_numpy
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels import infer_meta as im
from ..kernels.infer_meta import broadcast_shapes
from ..kernels.loss_terms import (bce_terms, bce_with_logits_terms, huber_terms, multi_margin_grad, multi_margin_terms,
                                  one_sample_nll, one_sample_nll_backward,
                                  reduce_terms, nll2d_backward_of_rows, nll2d_of_rows, shaped_by_input, smooth_l1_terms,
                                  soft_margin_terms, weighted_nll, weighted_nll_grad)
from ..kernels.special import row_max
from ..tensor import Tensor
from ._checks import check_reduction, check_tensors
from .activation import log_sigmoid, log_softmax, softmax_cpu
from .clamp import _clamp_min_op
from .distance import pairwise_distance
from .math import (abs, add, add_scalar, cast, clip, clone, div, div_scalar, eq, exp, fill, gt, le, log, lt, minimum, mul,
                   mul_scalar, ne, neg, number_minus, pow, sqrt, sub, sub_scalar, where)
from .logarithm import xlogy
from .reduce import mean, sum
from .registry import Attr, Input, defop, type_name
from .indexing import masked_fill
from .shape import expand, getitem, reshape, unsqueeze
from ..dispatch.amp import autocast_as

__all__ = ["cross_entropy", "cross_entropy_backward", "nll_loss_op", "nll_loss_backward", "nll_loss2d",
           "nll_loss2d_backward", "mse_loss"]  # the ops; the other losses live in F only


# -- the fused losses of every classifier and regressor: cross_entropy and mse_loss, each an op ----------------

@register_kernel("cross_entropy", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/cross_entropy")
def cross_entropy_cpu(input, target, reduction="mean"):
    n, c = input.shape
    if n and (target.min() < 0 or target.max() >= c):
        raise ShapeError(f"cross_entropy(): target values must be class indices in [0, {c - 1}], got {target.min()}..{target.max()}")
    if n == 0:  # (a target into zero classes was refused above)
        nll = np.zeros((0,), dtype=input.dtype)
    else:
        # -log_softmax(input)[i, target[i]] = log(sum(exp(z_i))) - z_i[target[i]], z = input - rowmax,
        # computed for the picked entries only (the same operations, so the same bits, as
        # indexing the whole log_softmax).
        e = np.subtract(input, row_max(input, 1))
        picked = e[np.arange(n), target]
        np.exp(e, out=e)
        nll = -(picked - np.log(e.sum(axis=1)))
    if reduction == "none":
        return nll.astype(input.dtype, copy=False)
    out = nll.sum() if reduction == "sum" else nll.sum() / nll.size  # sum/size: no NumPy warning when empty
    return np.asarray(out, dtype=input.dtype)


cross_entropy = defop(
    "cross_entropy",
    inputs=("input", Input("target", differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=im.cross_entropy,
    save=("input", "target"),
    key_inputs=(0,),
    doc="softmax cross-entropy of logits (N, C) against class indices (N,)",
    amp="deny",
)


@cross_entropy.def_backward
def _cross_entropy_backward(ctx, g):
    x, target = ctx.saved()
    return ctx.ops.cross_entropy_backward(g, x, target, ctx.attrs["reduction"]), None


@register_kernel("cross_entropy_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/cross_entropy_backward")
def cross_entropy_backward_cpu(grad, input, target, reduction="mean"):
    n, c = input.shape
    diff = softmax_cpu(input, dim=1)
    diff[np.arange(n), target] -= 1  # softmax - onehot, subtracting only where the one is
    if reduction == "none":
        return np.multiply(diff, np.expand_dims(grad, 1))
    scale = np.multiply(grad, np.asarray(1.0 / n, dtype=grad.dtype)) if reduction == "mean" and n else grad
    return np.multiply(diff, scale)


def _cross_entropy_backward_meta(op: str, grad: Any, input: Any, target: Any, reduction: str = "mean") -> Any:
    return tuple(input.shape), input.dtype


cross_entropy_backward = defop(
    "cross_entropy_backward",
    inputs=("grad", "input", Input("target", differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=_cross_entropy_backward_meta,
    save=("grad", "input", "target"),
    key_inputs=(0, 1),
    doc="cross_entropy's gradient w.r.t. its logits: (softmax(input) - onehot(target)) * grad, scaled by the reduction",
    amp="deny",
)


@cross_entropy_backward.def_backward
def _cross_entropy_backward_backward(ctx, h):
    """out = (softmax(x) - onehot) * s(grad): linear in grad; softmax's backward for x."""
    g, x, target = ctx.saved()
    ops = ctx.ops
    reduction = ctx.attrs["reduction"]
    n = x.shape[0]
    gg = gx = None
    if ctx.needs(0):
        diff = ops.cross_entropy_backward(ops.fill(g, 1), x, target, reduction)  # d out / d grad
        prod = ops.mul(diff, h)
        gg = ops.sum(prod, dim=1) if reduction == "none" else ops.sum(prod)
    if ctx.needs(1):
        if reduction == "none":
            scale = ops.unsqueeze(g, 1)
        else:
            scale = ops.mul(g, 1.0 / n) if reduction == "mean" and n else g
        u = ops.mul(h, scale)
        p = ops.softmax(x, 1)
        gx = ops.mul(p, ops.sub(u, ops.sum(ops.mul(u, p), dim=1, keepdim=True)))
    return gg, gx, None


# -- nll_loss: the loss PyTorch's cross_entropy ends in (NllLossBackward0 over LogSoftmaxBackward0) --------

def _check_int_attr(op: str, name: str, pos: int, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}(): argument '{name}' must be int, but got {type(v).__name__}")
    return int(v)


def _check_weight_dtype(input: Any, weight: Any) -> None:
    if weight is not None and weight.dtype != input.dtype:  # PyTorch's kernel takes one dtype
        raise RuntimeError(f"expected scalar type {im.scalar_type_name(input.dtype)} but found "
                           f"{im.scalar_type_name(weight.dtype)}")


def _nll_loss_meta(op: str, input: Any, target: Any, weight: Any = None, reduction: str = "mean",
                   ignore_index: int = -100) -> Any:
    _check_weight_dtype(input, weight)
    if input.ndim == 1 and target.shape in ((), (1,)):  # one sample (PyTorch's unbatched form): a 0-d loss
        im.cross_entropy(op, input.reshape(1, -1), target.reshape(1), reduction)
        return (), input.dtype
    return im.cross_entropy(op, input, target, reduction)


def _check_targets(op: str, target: Any, c: int) -> None:
    if target.size and (target.min() < 0 or target.max() >= c):
        raise ShapeError(f"{op}(): target values must be class indices in [0, {c - 1}], got {target.min()}..{target.max()}")


@register_kernel("nll_loss", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/nll_loss")
@one_sample_nll
def nll_loss_cpu(input, target, weight=None, reduction="mean", ignore_index=-100):
    n, c = input.shape
    valid = target != ignore_index
    _check_targets("nll_loss", target if valid.all() else target[valid], c)  # (an ignored one may be any number)
    if weight is not None:
        return weighted_nll(np, input, target, weight, reduction, ignore_index)
    if c == 0:  # no class: every target was ignored (checked above), so no term counts
        nll, count = np.zeros(n, dtype=input.dtype), 0
    elif valid.all():  # the common call: every row counts
        nll, count = -input[np.arange(n), target], n
    else:
        safe = np.where(valid, target, 0)
        nll, count = np.where(valid, -input[np.arange(n), safe], input.dtype.type(0)), int(valid.sum())
    if reduction == "none":
        return np.asarray(nll, dtype=input.dtype)
    total = np.add.reduce(nll)
    if reduction == "sum":
        return np.asarray(total, dtype=input.dtype)
    with np.errstate(invalid="ignore"):  # every target ignored: 0 / 0 = nan, as PyTorch
        return np.asarray(total / input.dtype.type(count), dtype=input.dtype)


@one_sample_nll_backward
def nll_loss_backward_cpu(grad, target, weight=None, shape=(), reduction="mean", ignore_index=-100):
    if weight is not None:
        return weighted_nll_grad(np, grad, target, weight, shape, reduction, ignore_index)
    n = shape[0]
    out = np.zeros(shape, dtype=grad.dtype)
    valid = target != ignore_index
    if valid.all():  # the common call: every row counts
        rows, picked, count = np.arange(n), target, n
    else:
        rows, picked, count = np.arange(n)[valid], target[valid], int(valid.sum())
    if reduction == "none":
        out[rows, picked] = -(grad if count == n else grad[valid])
    elif count:
        out[rows, picked] = -(grad / grad.dtype.type(count) if reduction == "mean" else grad)
    return out


register_kernel("nll_loss_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/nll_loss_backward")(
    shaped_by_input(nll_loss_backward_cpu))


def _shape_meta(op: str, grad: Any, input: Any, target: Any, weight: Any = None, reduction: str = "mean",
                ignore_index: int = -100) -> Any:
    return tuple(input.shape), grad.dtype


def _one_sample_target(shape: tuple[int, ...], target: Any) -> None:
    if len(shape) == 1 and target.ndim == 1:  # PyTorch's forward takes a (1,) target for one sample, not its backward
        raise RuntimeError(f"size mismatch (got input: [{shape[0]}], target: [{target.shape[0]}])")


def _nll_ops(name: str, meta: Any, doc: str, backward_doc: str, check: Any = None) -> tuple[Any, Any]:
    """An nll loss op (``nll_loss``, ``nll_loss2d``) and its gradient op ``<name>_backward``, PyTorch's pair:
    the input saved for its shape (an in-place change of it refuses backward in both), the target and the
    optional weight taking no gradient; the gradient op is linear in the incoming gradient, so its own
    backward picks that gradient at the targets with the loss op again (the double backward)."""
    inputs = (Input("target", differentiable=False), Input("weight", optional=True, differentiable=False))
    common = (Attr("reduction", "mean", check_reduction), Attr("ignore_index", -100, _check_int_attr))
    op = defop(name, inputs=("input",) + inputs, attrs=common, infer_meta=meta, save=("input", "target", "weight"),
               key_inputs=(0,), doc=doc, amp="deny")
    # (PyTorch's nll_loss_backward takes ``self`` for its shape: its double backward's node keeps an edge to it)
    grad_op = defop(f"{name}_backward", inputs=("grad", "input") + inputs, attrs=common, infer_meta=_shape_meta,
                    save=("target", "weight"), key_inputs=(0,), doc=backward_doc, amp="deny")

    @op.def_backward
    def backward(ctx: Any, g: Any) -> tuple[Any, ...]:
        saved = ctx.saved()  # a weight not given saves nothing
        target, weight = saved[1], (saved[2] if ctx.given(2) else None)
        shape = tuple(ctx.input_shape(0))
        if check is not None:
            check(shape, target)
        return getattr(ctx.ops, f"{name}_backward")(g, saved[0], target, weight, reduction=ctx.attrs["reduction"],
                                                    ignore_index=ctx.attrs["ignore_index"]), None, None

    @grad_op.def_backward
    def backward_backward(ctx: Any, h: Any) -> tuple[Any, ...]:
        saved = ctx.saved()
        target, weight = saved[0], (saved[1] if ctx.given(3) else None)
        # the input gave only its shape: its gradient is zeros (PyTorch's zeros_like)
        return (getattr(ctx.ops, name)(h, target, weight, ctx.attrs["reduction"], ctx.attrs["ignore_index"]),
                ctx.ops.fill(h, 0.0), None, None)

    return op, grad_op


nll_loss_op, nll_loss_backward = _nll_ops(
    "nll_loss", _nll_loss_meta,
    "negative log-likelihood of log-probabilities (N, C) at class indices (N,), or (C,) at a 0-d index; a weight "
    "per class scales each row (the mean divides by the counted rows' weights); ignore_index rows add nothing",
    "nll_loss's gradient w.r.t. its log-probabilities: -grad (times the class's weight) at each row's target, "
    "scaled by the reduction", check=_one_sample_target)


# -- nll_loss2d: nll_loss of images, (N, C, H, W) at (N, H, W) (PyTorch's NllLoss2DBackward0) -----------------

def _nll_loss2d_meta(op: str, input: Any, target: Any, weight: Any = None, reduction: str = "mean",
                     ignore_index: int = -100) -> Any:
    _check_weight_dtype(input, weight)
    if input.ndim != 4 or target.shape != (input.shape[0],) + tuple(input.shape[2:]):
        raise ShapeError(f"{op}(): expected input (N, C, H, W) and target (N, H, W), but got input "
                         f"{list(input.shape)} and target {list(target.shape)}")
    if target.dtype.kind not in "iu":
        raise ShapeError(f"{op}(): 'target' must hold integer class indices, but has dtype {target.dtype}")
    return ((target.shape if reduction == "none" else ()), input.dtype)


register_kernel("nll_loss2d", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/nll_loss2d")(nll2d_of_rows(nll_loss_cpu))

register_kernel("nll_loss2d_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/nll_loss2d_backward")(
    shaped_by_input(nll2d_backward_of_rows(nll_loss_backward_cpu)))

nll_loss2d, nll_loss2d_backward = _nll_ops(
    "nll_loss2d", _nll_loss2d_meta,
    "nll_loss of log-probabilities (N, C, H, W) at class indices (N, H, W): each position a row of nll_loss",
    "nll_loss2d's gradient w.r.t. its log-probabilities (nll_loss_backward's, per position)")


def _mean_scale(reduction: str, shape: tuple[int, ...]) -> float:
    """The factor a loss's gradient takes from its reduction: ``1 / N`` for the mean of ``N`` terms, else 1."""
    n = math.prod(shape)
    return 1.0 / n if reduction == "mean" and n else 1.0


@register_kernel("mse_loss", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/mse_loss")
def mse_loss_cpu(input, target, reduction="mean"):
    sq = np.asarray((input - target) ** 2)
    if reduction == "none":
        return sq
    return np.asarray(sq.sum() if reduction == "sum" else sq.sum() / sq.size, dtype=input.dtype)


def _reduced_pair_op(name: str, doc: str, target: Any = "target") -> Any:
    """The op of a loss of ``input`` and ``target`` (same shape and dtype) with PyTorch's ``reduction``."""
    return defop(name, inputs=("input", target), attrs=(Attr("reduction", "mean", check_reduction),),
                 infer_meta=im.loss_pair, save=("input", "target"), doc=doc, amp="deny")


mse_loss = _reduced_pair_op("mse_loss", "mean squared error")


@mse_loss.def_backward
def _mse_backward(ctx, g):
    x, t = ctx.saved()
    ops = ctx.ops
    diff = ops.sub(x, t)
    scale = 2.0 * _mean_scale(ctx.attrs["reduction"], diff.shape)
    gd = ops.mul(ops.mul(diff, g), scale)
    return (gd if ctx.needs(0) else None, ops.mul(gd, -1) if ctx.needs(1) else None)

_REDUCTIONS = ("mean", "sum", "none")


def _refuse_kernel_dtype(kernel: str, dtype: Any) -> None:
    """PyTorch's refusal of a dtype its CPU kernel has no case for (``"nll_loss_out_frame" not implemented for
    'Long'``). ``dtype`` is a minigrad dtype or, in an op's shape function, a NumPy one."""
    if not (dtype.is_floating if isinstance(dtype, _dt.DType) else _dt.is_floating_np(dtype)):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dt.scalar_type_name(dtype)}\'')


def _check_class_weight(op: str, weight: Any, c: int, spatial: bool) -> None:
    """``weight`` holds one number per class: PyTorch's ``nll_loss`` wants a 1-D weight of ``c`` numbers and
    ``nll_loss2d`` any weight of ``c`` numbers, each in its own words."""
    if weight is None:
        return
    if spatial and weight.numel() != c:
        raise ShapeError(f"{op}(): weight tensor should be defined either for all or no classes")
    if not spatial and (weight.ndim != 1 or weight.numel() != c):
        raise ShapeError(f"{op}(): weight tensor should be defined either for all {c} classes or no classes "
                         f"but got weight tensor of shape: {list(weight.shape)}")


def _check_probability_target(op: str, input: Tensor, target: Tensor, weight: Tensor | None,
                              ignore_index: int) -> None:
    """PyTorch's checks of class probabilities (a target of ``input``'s shape), in its order: a floating
    target, no ``ignore_index`` (a negative one is let through), then the weight's size."""
    if not target.dtype.is_floating:
        raise ShapeError(f"{op}(): Expected floating point type for target with class probabilities, got "
                         f"{_dt.scalar_type_name(target.dtype)}")
    if ignore_index >= 0:
        raise ShapeError(f"{op}(): ignore_index is not supported for floating point target")
    if input.ndim == 0:  # (PyTorch reads the classes at dim 1 of a 0-d input)
        raise OutOfRangeError(f"{op}(): Dimension specified as 1 but tensor has no dimensions")
    c = input.shape[0 if input.ndim == 1 else 1]
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise ShapeError(f"{op}(): cross_entropy: weight tensor should be defined either for all {c} classes or no "
                         f"classes but got weight tensor of shape: {list(weight.shape)}")


def check_class_target(op: str, input: Tensor, target: Tensor, weight: Tensor | None = None,
                       ignore_index: int = -100, probabilities: bool = False, read: bool = True) -> np.ndarray | None:
    """Check a classification loss's ``target`` (and ``weight``) against ``input`` as PyTorch's ``nll_loss_nd``
    does, in its order and words.

    Called before the loss's first op, so a refused call leaves no node behind
    (docs/architecture.md, bad input). ``input`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``; class
    indices are ``()``/``(1,)``, ``(N,)`` or ``(N, d1, ...)``, int64 or uint8 (PyTorch's Long or Byte), each in
    ``[0, C)`` or ``ignore_index``; with ``probabilities`` the target is a float tensor of ``input``'s own
    shape. The order is PyTorch's: the input's rank and the batch size (``ValueError``), the target's rank
    and shape, its dtype, the weight's size, the input's dtype (``NotImplementedError``), the weight's dtype,
    then each index (``IndexError``). A (N, C, d...) input other than 4-D is viewed as (N, C, 1, D) as PyTorch
    does, so it takes ``nll_loss2d``'s checks after its own of the target's shape.

    With ``read=False`` the class indices are not read on the host: on the GPU their range is checked on
    the device and a failure is reported at the next sync (``devices.check_range``), and ``None`` is returned.

    Returns:
        The class indices as an int64 NumPy array (``None`` for probabilities, or with ``read=False``).

    Example:
        >>> check_class_target("nll_loss", mg.ones(2, 3), mg.tensor([0, 2])).tolist()
        [0, 2]
    """
    for name, v in (("input", input), ("target", target), ("weight", weight)):
        if v is not None and not isinstance(v, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, but got {type(v).__name__}")
    for name, v in (("target", target), ("weight", weight)):
        if v is not None and v._device != input._device:  # PyTorch's nll_loss refuses a mix of devices
            raise mixed_devices_error(input._device, v._device, f"{name} in method wrapper_CUDA_nll_loss_forward")
    if probabilities:
        _check_probability_target(op, input, target, weight, ignore_index)
        return None
    shape, tshape = tuple(input.shape), tuple(target.shape)
    if not shape:
        raise ShapeError(f"{op}(): Expected 1 or more dimensions (got 0)")
    if len(shape) != 1 and shape[0] != (tshape[0] if tshape else 0):  # (PyTorch reads a 0-d target's batch as 0)
        raise ShapeError(f"{op}(): Expected input batch_size ({shape[0]}) to match target batch_size "
                         f"({tshape[0] if tshape else 0}).")
    c = shape[0] if len(shape) == 1 else shape[1]
    if len(shape) not in (1, 2, 4) and tshape[1:] != shape[2:]:
        raise ShapeError(f"{op}(): Expected target size {list(shape[:1] + shape[2:])}, got {list(tshape)}")
    if len(shape) not in (1, 2, 4) and c == 0 and shape[0] and math.prod(shape[2:]):
        # PyTorch's nll_loss_nd views no classes as (N, 0, 0, 0), which the targets never fit
        raise ShapeError(f"{op}(): size mismatch (got input: [{shape[0]}, 0, 0, 0] , target: "
                         f"[{shape[0]}, 1, {math.prod(shape[2:])}]")
    spatial = len(shape) > 2
    if spatial and len(shape) == 4 and len(tshape) != 3:
        raise ShapeError(f"{op}(): only batches of spatial targets supported (3D tensors) but got targets of "
                         f"dimension: {len(tshape)}")
    if not spatial and len(tshape) > 1:
        raise ShapeError(f"{op}(): 0D or 1D target tensor expected, multi-target not supported")
    if target.dtype not in (_dt.int64, _dt.uint8):
        raise ShapeError(f"{op}(): expected target dtype to be Long or Byte, but got "
                         f"{_dt.scalar_type_name(target.dtype)}")
    if len(shape) == 1 and len(tshape) == 1 and tshape[0] != 1:
        raise ShapeError(f"{op}(): For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
    _check_class_weight(op, weight, c, spatial)
    if len(shape) == 4 and tshape != shape[:1] + shape[2:]:
        raise ShapeError(f"{op}(): size mismatch (got input: {list(shape)} , target: {list(tshape)}")
    _refuse_kernel_dtype("nll_loss2d_forward_out_frame" if spatial else "nll_loss_out_frame", input.dtype)
    _check_weight_dtype(input, weight)
    if not read:
        check_range(target._data, target._device, 0, c, lambda bad, _: OutOfRangeError(
            f"Target {int(bad[0])} is out of bounds. ({op}(): class indices must be in [0, {c - 1}] or ignore_index)"),
            ignore=ignore_index)
        return None
    idx = np.asarray(to_numpy(target._data), dtype=np.int64)
    if idx.size == 0 or (idx.min() >= 0 and idx.max() < c):  # every index a class: the common case
        return idx
    bad = (idx != ignore_index) & ((idx < 0) | (idx >= c))
    if np.any(bad):
        raise OutOfRangeError(f"Target {int(idx[bad].flat[0])} is out of bounds. ({op}(): class indices must be in "
                              f"[0, {c - 1}] or ignore_index)")
    return idx


def reduction_of(op: str, size_average: Any, reduce: Any, reduction: str, allowed: tuple[str, ...] = _REDUCTIONS) -> str:
    """The ``reduction`` string, from PyTorch's legacy ``size_average``/``reduce`` flags when either is given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in allowed:
        raise ValueError(f"{op}(): {reduction} is not a valid value for reduction")
    return reduction


#: PyTorch's kernel of each elementwise loss that refuses integer tensors, by the name its refusal gives
_INTEGRAL_KERNELS = {"mse_loss": "mse_cpu", "smooth_l1_loss": "smooth_l1_cpu", "huber_loss": "huber_cpu"}


def _refuse_integral(op: str, dtype: Any) -> None:
    """PyTorch's refusal of an elementwise loss of integer tensors, in the words of the step that refuses it:
    the kernel (mse_loss), ``mean`` (l1_loss), or an in-place op writing floats into the integers."""
    name = _dt.scalar_type_name(dtype)
    if op in _INTEGRAL_KERNELS:
        raise NotImplementedError(f'"{_INTEGRAL_KERNELS[op]}" not implemented for \'{name}\'')
    if op == "l1_loss":
        raise ShapeError(f"{op}(): mean(): could not infer output dtype. Input dtype must be either a floating point "
                         f"or complex dtype. Got: {name}")
    if op in ("soft_margin_loss", "gaussian_nll_loss"):
        out = name if op == "soft_margin_loss" else _dt.cpp_type_name(dtype)
        raise ShapeError(f"{op}(): result type Float can't be cast to the desired output type {out}")


def check_pair(op: str, input: Any, target: Any, same_shape: str | None = None) -> tuple[int, ...]:
    """``input`` and ``target`` are floating tensors whose shapes broadcast (or match, with ``same_shape``'s message)."""
    check_tensors(op, input=input, target=target)
    if not input.dtype.is_floating:
        if not _dt.promote(input.dtype, target.dtype).is_floating:
            _refuse_integral(op, input.dtype)
        raise RuntimeError(f"{op}(): expected a floating point 'input', but got {input.dtype}")
    if same_shape is not None and tuple(input.shape) != tuple(target.shape):
        raise ShapeError(same_shape.format(op=op, target=tuple(target.shape), input=tuple(input.shape)))
    return broadcast_shapes(op, tuple(input.shape), tuple(target.shape), ("input", "target"))


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """Apply ``reduction`` to the elementwise losses."""
    if reduction == "none":
        return loss
    return sum(loss) if reduction == "sum" else mean(loss)


@autocast_as("l1_loss")
def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error ``|input - target|`` (composite, as PyTorch's: the inputs broadcast by ``expand``,
    ``abs`` of ``sub``, then ``mean``/``sum``; the gradient at 0 is 0). ``weight`` (PyTorch 2.6 on, of the
    input's shape) scales each term; its mean divides by the weights' sum, as PyTorch's Python does.

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.l1_loss(mg.tensor([0.0, 3.0]), mg.tensor([1.0, 1.0]), reduction="sum").item()
        3.0
    """
    reduction = reduction_of("l1_loss", size_average, reduce, reduction)
    _check_elementwise_weight("l1_loss", input, weight)
    input, target = _expanded_pair("l1_loss", input, target)
    loss = abs(sub(input, target))
    if weight is None:
        return reduce_loss(loss, reduction)
    loss = mul(loss, weight)
    return div(sum(loss), sum(weight)) if reduction == "mean" else reduce_loss(loss, reduction)


def _check_elementwise_weight(op: str, input: Any, weight: Any) -> None:
    """The ``weight`` of PyTorch's Python regression losses: None or a tensor of the input's shape."""
    if weight is None:
        return
    if not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor or None, but got {type_name(weight)}")
    if isinstance(input, Tensor) and tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{op}(): Weights and input must have the same size.")


def mse_loss_functional(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """``F.mse_loss``: the inputs broadcast by ``expand`` (PyTorch's ``broadcast_tensors``), then the ``mse_loss``
    op (``MseLossBackward0``); with ``weight`` (of the input's shape) PyTorch's Python composite, ``pow``, ``mul``
    and ``sum`` (the mean divides by the weights' sum)."""
    reduction = reduction_of("mse_loss", size_average, reduce, reduction)
    _check_elementwise_weight("mse_loss", input, weight)
    input, target = _expanded_pair("mse_loss", input, target)
    if weight is None:
        return mse_loss(input, target, reduction=reduction)
    loss = mul(pow(sub(input, target), 2), weight)
    return div(sum(loss), sum(weight)) if reduction == "mean" else reduce_loss(loss, reduction)


@register_kernel("smooth_l1_loss", Backend.CPU, dtypes=FLOAT_DTYPES)
def smooth_l1_loss_cpu(input: np.ndarray, target: np.ndarray, reduction: str = "mean", beta: float = 1.0) -> np.ndarray:
    return reduce_terms(np, smooth_l1_terms(np, input, target, beta), reduction, input.dtype)


@register_kernel("huber_loss", Backend.CPU, dtypes=FLOAT_DTYPES)
def huber_loss_cpu(input: np.ndarray, target: np.ndarray, reduction: str = "mean", delta: float = 1.0) -> np.ndarray:
    return reduce_terms(np, huber_terms(np, input, target, delta), reduction, input.dtype)


def _smooth_pair_op(name: str, width: str, doc: str) -> Any:
    """The op of a loss quadratic below ``width`` and linear above (``smooth_l1_loss``'s ``beta``, ``huber_loss``'s
    ``delta``): ``input`` and ``target`` of one shape, promoted to one dtype, and PyTorch's ``reduction``."""
    def meta(op: str, input: Any, target: Any, reduction: str = "mean", **width: float) -> Any:
        return im.loss_pair(op, input, target, reduction)

    return defop(name, inputs=("input", "target"), attrs=(Attr("reduction", "mean", check_reduction), Attr(width, 1.0)),
                 infer_meta=meta, save=("input", "target"), transform_dtype=True, doc=doc, amp="deny")


_smooth_l1_loss = _smooth_pair_op("smooth_l1_loss", "beta", "0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta "
                                                            "elsewhere (d = input - target), reduced")
_huber_loss = _smooth_pair_op("huber_loss", "delta", "0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere "
                                                     "(d = input - target), reduced")


def _smooth_backward(ctx: Any, grad: Any, width: float, slope: float) -> tuple[Any, Any]:
    """PyTorch's ``smooth_l1_loss_backward`` and ``huber_loss_backward``: of ``d = input - target``, ``d * slope /
    width`` inside ``(-width, width)``, ``-slope`` below, ``slope`` above (``slope`` 1 for smooth_l1, ``delta`` for
    huber), times the gradient and ``1 / N`` for the mean; the target's is its negative."""
    x, t = ctx.saved()
    ops = ctx.ops
    d = ops.sub(x, t)
    inside = d if slope == width else ops.mul(d, slope / width)
    local = ops.where(ops.lt(d, -width), -slope, ops.where(ops.gt(d, width), slope, inside))
    g = ops.mul(ops.mul(local, grad), _mean_scale(ctx.attrs["reduction"], x.shape))
    return (g if ctx.needs(0) else None), (ops.neg(g) if ctx.needs(1) else None)


@_smooth_l1_loss.def_backward
def _smooth_l1_loss_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``_smooth_backward`` with slope 1 outside ``(-beta, beta)``."""
    return _smooth_backward(ctx, grad, ctx.attrs["beta"], 1.0)


@_huber_loss.def_backward
def _huber_loss_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """``_smooth_backward`` with slope ``delta`` outside ``(-delta, delta)``."""
    delta = ctx.attrs["delta"]
    return _smooth_backward(ctx, grad, delta, delta)


def _expanded_pair(op: str, input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """PyTorch's ``broadcast_tensors(input, target)`` of a loss: each expanded where its shape differs
    (``ExpandBackward0``), after ``check_pair``."""
    shape = check_pair(op, input, target)
    return (input if tuple(input.shape) == shape else expand(input, shape),
            target if tuple(target.shape) == shape else expand(target, shape))


def _check_width(op: str, name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, but got {type_name(v)}")
    return float(v)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Quadratic below ``beta``, linear above (Fast R-CNN's loss): the ``smooth_l1_loss`` op
    (``SmoothL1LossBackward0``, its reduction inside, as PyTorch's); ``beta=0`` is ``l1_loss``, as PyTorch's."""
    reduction = reduction_of("smooth_l1_loss", size_average, reduce, reduction)
    beta = _check_width("smooth_l1_loss", "beta", beta)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss(): smooth_l1_loss does not support negative values for beta.")
    input, target = _expanded_pair("smooth_l1_loss", input, target)
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return _smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere: the ``huber_loss`` op
    (``HuberLossBackward0``, its reduction inside, as PyTorch's).

    ``weight`` (PyTorch 2.6 on, of the input's shape) scales each element's loss, then ``mul`` and ``sum`` or
    ``mean`` reduce it, as PyTorch's Python code does.
    """
    reduction = reduction_of("huber_loss", None, None, reduction)
    delta = _check_width("huber_loss", "delta", delta)
    if delta <= 0:
        raise RuntimeError("huber_loss(): huber_loss does not support non-positive values for delta.")
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"huber_loss(): argument 'weight' must be Tensor or None, but got {type_name(weight)}")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("huber_loss(): Weights and input must have the same size.")
    input, target = _expanded_pair("huber_loss", input, target)
    if weight is None:
        return _huber_loss(input, target, reduction, delta)
    return reduce_loss(mul(_huber_loss(input, target, "none", delta), weight), reduction)


@autocast_as("kl_div")
def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of ``target`` from ``input`` (log-probabilities). Composite, as PyTorch's.

    Pointwise ``xlogy(target, target) - target * input`` (0 where ``target`` is 0), or with
    ``log_target=True`` ``exp(target) * (target - input)``, then ``mean``/``sum`` - PyTorch's
    ``torch.kl_div``, op for op. ``reduction="batchmean"`` divides the sum by the batch size (the
    mathematically right KL, PyTorch's Python ``reduced / input.size(0)``); ``"mean"`` divides by the
    number of elements, as PyTorch does.
    """
    reduction = reduction_of("kl_div", size_average, reduce, reduction, _REDUCTIONS + ("batchmean",))
    check_tensors("kl_div", input=input, target=target)
    if not (input.dtype.is_floating and target.dtype.is_floating):
        raise ShapeError("kl_div(): kl_div: Integral inputs not supported.")
    # (PyTorch's target * input, or target - input: the target is tensor a of a broadcast's refusal)
    broadcast_shapes("kl_div", tuple(target.shape), tuple(input.shape), ("target", "input"))
    loss = _kl_div_terms(input, target, log_target)
    if reduction == "batchmean":
        total = sum(loss)
        return total if input.ndim == 0 else div(total, input.shape[0])
    return reduce_loss(loss, reduction)


def _kl_div_terms(input: Tensor, target: Tensor, log_target: Any) -> Tensor:
    """The pointwise KL terms, PyTorch's ops: ``xlogy(target, target) - target * input``, or with ``log_target``
    ``exp(target) * (target - input)``."""
    if not isinstance(log_target, bool):
        raise TypeError(f"kl_div(): argument 'log_target' must be bool, but got {type_name(log_target)}")
    if log_target:
        return mul(exp(target), sub(target, input))
    return sub(xlogy(target, target), mul(target, input))


def aten_kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """``torch.kl_div`` (minigrad exports it as ``minigrad.kl_div``): ``F.kl_div``'s terms with PyTorch's
    ``at::kl_div`` signature, ``reduction`` an int of PyTorch's ``Reduction`` enum - 1 the mean, 2 the sum, any other
    value (the default among them) the terms unreduced. Composite, as PyTorch's.

    Example:
        >>> import minigrad as mg
        >>> mg.kl_div(mg.tensor([0.0, 0.0]), mg.tensor([0.5, 0.5]), 2).item()  # 2 * 0.5 log 0.5
        -0.6931471824645996
    """
    check_tensors("kl_div", input=input, target=target)
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"kl_div(): argument 'reduction' (position 3) must be int, not {type_name(reduction)}")
    if not (input.dtype.is_floating and target.dtype.is_floating):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    check_pair("kl_div", input, target)
    return reduce_loss(_kl_div_terms(input, target, log_target), {1: "mean", 2: "sum"}.get(reduction, "none"))


@register_kernel("binary_cross_entropy", Backend.CPU, dtypes=FLOAT_DTYPES)
def binary_cross_entropy_cpu(input: np.ndarray, target: np.ndarray, weight: Any = None,
                             reduction: str = "mean") -> np.ndarray:
    return reduce_terms(np, bce_terms(np, input, target, weight), reduction, input.dtype)


def _bce_meta(op: str, input: Any, target: Any, weight: Any = None, reduction: str = "mean") -> tuple[tuple[int, ...], Any]:
    if tuple(input.shape) != tuple(target.shape):
        raise ShapeError(f"{op}(): 'input' {tuple(input.shape)} and 'target' {tuple(target.shape)} must have the same shape")
    _check_weight_dtype(input, weight)
    if weight is not None and np.broadcast_shapes(weight.shape, input.shape) != tuple(input.shape):
        raise ShapeError(f"{op}(): 'weight' of shape {tuple(weight.shape)} cannot be broadcast to the input's shape "
                         f"{tuple(input.shape)}")
    return (tuple(input.shape) if reduction == "none" else ()), input.dtype


#: The loss with its weight and reduction, one op as PyTorch's: its derivative must stay finite where a
#: probability is exactly 0 or 1 (a saturated float32 sigmoid), which the clamped logs of a composite cannot give.
_binary_cross_entropy = defop(
    "binary_cross_entropy",
    inputs=("input", "target", Input("weight", optional=True, differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=_bce_meta,
    save=("input", "target", "weight"),
    doc="-w (t log(x) + (1 - t) log(1 - x)), each log clamped at -100, reduced",
    amp="deny",
)


@_binary_cross_entropy.def_backward
def _binary_cross_entropy_backward(ctx: Any, grad: Any) -> tuple[Any, Any, None]:
    """PyTorch's ``binary_cross_entropy_backward``: ``g (x - t) / max(x (1 - x), 1e-12)``; for the target
    ``g (log(1 - x) - log(x))`` (unclamped, as PyTorch's: infinite at 0 and 1); each times the weight and
    ``1 / N`` for the mean."""
    saved = iter(ctx.saved())  # a weight not given saves nothing
    x, t = next(saved), next(saved)
    w = next(saved) if ctx.given(2) else None
    ops = ctx.ops
    scale = _mean_scale(ctx.attrs["reduction"], x.shape)

    def finish(v: Any) -> Any:
        v = ops.mul(v, grad) if w is None else ops.mul(ops.mul(v, w), grad)
        return v if scale == 1.0 else ops.mul(v, scale)

    gx = gt = None
    if ctx.needs(0):
        denom = ops.clip(ops.mul(x, ops.sub(1.0, x)), 1e-12, None)
        gx = finish(ops.div(ops.sub(x, t), denom))
    if ctx.needs(1):
        gt = finish(ops.sub(ops.log1p(ops.neg(x)), ops.log(x)))
    return gx, gt, None


def _check_probabilities(input: Tensor) -> None:
    """PyTorch's refusal of an input outside [0, 1], NaN too (its kernels check ``0 <= x <= 1``). On a GPU the
    check runs there and fails at the next sync (``devices.check_range``, as CUDA's device-side assert):
    reading the input on the host would make every call wait for the device."""
    data = input._data
    outside = ~((data >= 0) & (data <= 1))

    def error(bad: Any = None, values: Any = None) -> RuntimeError:
        return RuntimeError("binary_cross_entropy(): all elements of input should be between 0 and 1")

    if input._device == "cpu":
        if outside.any():
            raise error()
        return
    check_range(outside.any().astype(np.int64).reshape(1), input._device, 0, 1, error)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``-w (t log(x) + (1 - t) log(1 - x))`` for probabilities ``x``; each log is clamped at -100, as in PyTorch.

    The ``binary_cross_entropy`` op, with ``weight`` (broadcast against the input, as PyTorch's
    ``weight.expand``) and the reduction inside (one ``BinaryCrossEntropyBackward0``, as PyTorch's).
    ``input`` must lie in [0, 1] (``RuntimeError`` otherwise) and have ``target``'s
    shape and dtype; ``weight`` takes no gradient (PyTorch refuses one that requires it).
    """
    op = "binary_cross_entropy"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input=input, target=target)
    # PyTorch's order: F's checks of the sizes and of the weight's broadcast, then its kernel's of the dtypes,
    # of the weight's broadcast shape and of the input's range.
    if tuple(input.shape) != tuple(target.shape):
        raise ShapeError(f"{op}(): Using a target size ({_torch_size(target.shape)}) that is different to the "
                         f"input size ({_torch_size(input.shape)}) is deprecated. Please ensure they have the same "
                         f"size.")
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor or None, but got {type_name(weight)}")
    wshape = None if weight is None else _refs_broadcast(op, tuple(target.shape), tuple(weight.shape))
    if input.dtype != target.dtype:
        raise ShapeError(f"{op}(): Found dtype {_dt.scalar_type_name(target.dtype)} but expected "
                         f"{_dt.scalar_type_name(input.dtype)}")
    if wshape is not None:
        _in_place_broadcast(op, tuple(input.shape), wshape)
    _refuse_kernel_dtype(op, input.dtype)
    _not_differentiable(op, weight=weight)
    _check_probabilities(input)
    if weight is not None and weight.dtype != input.dtype:  # (PyTorch's kernel reads the weight in the input's dtype)
        weight = cast(weight, input.dtype)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        weight = expand(weight, tuple(input.shape))
    return _binary_cross_entropy(input, target, weight, reduction)


def _not_differentiable(op: str, **named: Any) -> None:
    """PyTorch's refusal of an argument its op takes no gradient for, while grad mode is on."""
    if not is_grad_enabled():
        return
    for name, v in named.items():
        if isinstance(v, Tensor) and v.requires_grad:
            raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument '{name}'. "
                               "This input cannot have requires_grad True.")


def _bce_logits_meta(op: str, input: Any, target: Any, weight: Any = None, pos_weight: Any = None,
                     reduction: str = "mean") -> tuple[tuple[int, ...], Any]:
    return (tuple(input.shape) if reduction == "none" else ()), input.dtype


@register_kernel("binary_cross_entropy_with_logits", Backend.CPU, dtypes=FLOAT_DTYPES)
def binary_cross_entropy_with_logits_cpu(input: np.ndarray, target: np.ndarray, weight: Any = None,
                                         pos_weight: Any = None, reduction: str = "mean") -> np.ndarray:
    return reduce_terms(np, bce_with_logits_terms(np, input, target, weight, pos_weight), reduction, input.dtype)


_bce_with_logits = defop(
    "binary_cross_entropy_with_logits",
    inputs=("input", "target", Input("weight", optional=True, differentiable=False),
            Input("pos_weight", optional=True, differentiable=False)),
    attrs=(Attr("reduction", "mean", check_reduction),),
    infer_meta=_bce_logits_meta,
    save=("input", "target", "weight", "pos_weight"),
    doc="PyTorch's (1 - t) x - (1 + (p - 1) t) log_sigmoid(x), times the weight, reduced",
    amp="deny",
)


@_bce_with_logits.def_backward
def _bce_with_logits_backward(ctx: Any, grad: Any) -> tuple[Any, ...]:
    """PyTorch's ``binary_cross_entropy_with_logits_backward`` and its ``_target_backward``: for the input
    ``sigmoid(x) - t`` (with ``p``: ``(p t + 1 - t) sigmoid(x) - p t``), for the target ``-x`` (with ``p``:
    ``log_sigmoid(-x) - p log_sigmoid(x)``); times the weight, the gradient, and ``1 / N`` for the mean."""
    saved = iter(ctx.saved())  # a weight not given saves nothing
    x, t = next(saved), next(saved)
    w = next(saved) if ctx.given(2) else None
    pw = next(saved) if ctx.given(3) else None
    ops = ctx.ops
    scale = _mean_scale(ctx.attrs["reduction"], x.shape)

    def finish(v: Any) -> Any:
        if w is not None:
            v = ops.mul(v, w)
        return ops.mul(ops.mul(v, grad), scale)

    gx = gt = None
    if ctx.needs(0):
        if pw is None:
            gx = ops.sub(ops.sigmoid(x), t)
        else:
            tp = ops.mul(pw, t)
            gx = ops.sub(ops.mul(ops.sub(ops.add(tp, 1.0), t), ops.sigmoid(x)), tp)
        gx = ops.sum_to(finish(gx), tuple(x.shape))
    if ctx.needs(1):
        gt = ops.neg(x) if pw is None else ops.sub(ops.log_sigmoid(ops.neg(x)), ops.mul(ops.log_sigmoid(x), pw))
        gt = ops.sum_to(finish(gt), tuple(t.shape))
    return gx, gt, None, None


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """``binary_cross_entropy(sigmoid(x), t)`` computed stably from the logits ``x``: the
    ``binary_cross_entropy_with_logits`` op (``BinaryCrossEntropyWithLogitsBackward0``, as PyTorch's).

    PyTorch's ``(1 - t) x - (1 + (p - 1) t) log_sigmoid(x)`` with ``p = pos_weight`` (the weight
    of the positive class, broadcast along the last dim): ``log_sigmoid`` never overflows and its
    derivative is ``sigmoid(-x)``, so the gradient is right everywhere. ``weight`` and ``pos_weight``
    take no gradient (PyTorch refuses them requiring one).
    """
    op = "binary_cross_entropy_with_logits"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input=input, target=target)
    shape = tuple(input.shape)
    if shape != tuple(target.shape):
        raise ShapeError(f"{op}(): Target size ({_torch_size(target.shape)}) must be the same as input size "
                         f"({_torch_size(shape)})")
    for name, w in (("weight", weight), ("pos_weight", pos_weight)):
        if w is not None and not isinstance(w, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor or None, but got {type_name(w)}")
    # PyTorch's composite, in its order: log_sigmoid(input), (pos_weight - 1) * target multiplied into it in
    # place, (1 - target) * input in place, then the weight multiplied in place; each step's refusal is its own.
    _refuse_kernel_dtype("log_sigmoid_cpu", input.dtype)
    if pos_weight is not None:
        _in_place_broadcast(op, shape, broadcast_shapes(op, tuple(pos_weight.shape), shape, ("pos_weight", "target")))
    if not target.dtype.is_floating:
        raise ShapeError(f"{op}(): result type {_dt.scalar_type_name(_dt.promote(input.dtype, target.dtype))} can't "
                         f"be cast to the desired output type {_dt.scalar_type_name(target.dtype)}")
    if weight is not None:
        _in_place_broadcast(op, shape, broadcast_shapes(op, shape, tuple(weight.shape), ("input", "weight")))
    _not_differentiable(op, weight=weight, pos_weight=pos_weight)
    dt = functools.reduce(_dt.promote, [v.dtype for v in (input, target, weight, pos_weight) if v is not None])
    args = [v if v is None or v.dtype is dt else cast(v, dt) for v in (input, target, weight, pos_weight)]
    return _bce_with_logits(*args, reduction=reduction)


def _torch_size(shape: Any) -> str:
    """A shape as PyTorch's messages print it: ``torch.Size([2, 3])``."""
    return f"torch.Size({list(shape)})"


def _refs_broadcast(op: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of ``shapes`` as PyTorch's Python functional computes it (``torch._refs``'
    ``_broadcast_shapes``, behind ``F.binary_cross_entropy``'s weight), refusing in its words."""
    common = [1] * builtins.max(len(s) for s in shapes)
    for arg, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if common[idx] == 1:
                common[idx] = shape[idx]
            elif shape[idx] != 1 and common[idx] != shape[idx]:
                raise ShapeError(f"{op}(): Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                                 f"Mismatching argument at index {arg} had {_torch_size(shape)}; but expected shape "
                                 f"should be broadcastable to {common}")
    return tuple(common)


def _in_place_broadcast(op: str, shape: tuple[int, ...], out: tuple[int, ...]) -> None:
    """PyTorch's refusal of an in-place op whose broadcast outgrows its ``shape``."""
    if tuple(out) != tuple(shape):
        raise ShapeError(f"{op}(): output with shape {list(shape)} doesn't match the broadcast shape {list(out)}")


def _check_weight(op: str, name: str, w: Any, shape: tuple[int, ...]) -> None:
    if w is None:
        return
    if not isinstance(w, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor or None, but got {type_name(w)}")
    try:
        out = broadcast_shapes(op, tuple(w.shape), shape, (name, "input"))
    except ValueError:
        out = None
    if out != shape:
        raise RuntimeError(f"{op}(): '{name}' of shape {tuple(w.shape)} cannot be broadcast to the input's shape {shape}")


# -- margin, embedding and likelihood losses (composite) --------------------------------------

def _broadcast_all(op: str, **named: Tensor) -> tuple[int, ...]:
    items = list(named.items())
    shape = tuple(items[0][1].shape)
    for name, v in items[1:]:
        shape = broadcast_shapes(op, shape, tuple(v.shape), (items[0][0], name))
    return shape


def _clamp_min0(x: Tensor) -> Tensor:
    """``max(x, 0)`` as PyTorch's ``clamp_min(0)`` (``ClampMinBackward0``; the gradient passes at 0 itself)."""
    return _clamp_min_op(x, 0.0)


@autocast_as("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average: Any = None,
                        reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``max(0, -y (x1 - x2) + margin)``: ``y = 1`` asks ``x1`` to rank above ``x2`` by ``margin``. Composite."""
    op = "margin_ranking_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input1=input1, input2=input2, target=target)
    if not input1.ndim == input2.ndim == target.ndim:
        raise ShapeError(f"{op} : All input tensors should have same dimension but got sizes: input1: "
                         f"{_torch_size(input1.shape)}, input2: {_torch_size(input2.shape)}, target: "
                         f"{_torch_size(target.shape)} ")
    # (PyTorch's -target * (input1 - input2): the difference's refusal first, then the target's as tensor a)
    diff = broadcast_shapes(op, tuple(input1.shape), tuple(input2.shape), ("input1", "input2"))
    broadcast_shapes(op, tuple(target.shape), diff, ("target", "input1 - input2"))
    # PyTorch's margin_ranking_loss: (-target * (input1 - input2) + margin).clamp_min_(0), the margin by add.Scalar
    return reduce_loss(_clamp_min0(add_scalar(mul(neg(target), sub(input1, input2)), float(margin))), reduction)


@autocast_as("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (``x`` a distance). Composite."""
    op = "hinge_embedding_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input=input, target=target)
    # (PyTorch's where(target != 1, ...): the target is tensor a of a broadcast's refusal)
    broadcast_shapes(op, tuple(target.shape), tuple(input.shape), ("target", "input"))
    if reduction == "mean" and not input.dtype.is_floating:  # (the loss keeps the input's dtype, which mean refuses)
        raise ShapeError(f"{op}(): mean(): could not infer output dtype. Input dtype must be either a floating point "
                         f"or complex dtype. Got: {_dt.scalar_type_name(input.dtype)}")
    # PyTorch's hinge_embedding_loss: (margin - self).clamp_min_(0), the C++ Scalar - Tensor (SubBackward0)
    hinge = where(ne(target, 1.0), _clamp_min0(number_minus(float(margin), input)), 0.0)
    own = where(ne(target, -1.0), input, 0.0)
    return reduce_loss(add(hinge, own), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                                reduce: Any = None, reduction: str = "mean") -> Tensor:
    """One-versus-all logistic loss of each class: ``-(t log_sigmoid(x) + (1 - t) log_sigmoid(-x))``, times
    ``weight``, averaged over the classes (the last dim), then reduced. Composite, PyTorch's Python op for op."""
    op = "multilabel_soft_margin_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input=input, target=target)
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): argument 'weight' must be Tensor or None, but got {type_name(weight)}")
    # (PyTorch's target * logsigmoid(input): the target is tensor a of a broadcast's refusal)
    shape = broadcast_shapes(op, tuple(target.shape), tuple(input.shape), ("target", "input"))
    if weight is not None:
        broadcast_shapes(op, shape, tuple(weight.shape), ("loss", "weight"))
    if input.ndim == 0:
        raise IndexError(f"{op}(): Dimension specified as -1 but tensor has no dimensions")
    loss = neg(add(mul(target, log_sigmoid(input)), mul(sub(1, target), log_sigmoid(neg(input)))))
    if weight is not None:
        loss = mul(loss, weight)
    c = input.shape[-1]
    return reduce_loss(div(sum(loss, dim=input.ndim - 1), c), reduction)


def _multi_margin_meta(op: str, input: Any, target: Any, weight: Any = None, p: int = 1, margin: float = 1.0,
                       reduction: str = "mean") -> Any:
    """PyTorch's shape checks of ``multi_margin_loss``: ``(N, C)`` with ``(N,)`` targets, or one sample ``(C,)``
    (or a 0-d input, one class) with one target; a weight of ``C``; the loss ``(N,)`` for ``"none"`` (0-d for one
    sample), else 0-d."""
    if input.ndim > 2 or (input.ndim and input.shape[-1] == 0):
        raise RuntimeError(f"{op}(): Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    n, c = (input.shape[0] if input.ndim == 2 else 1), (input.shape[-1] if input.ndim else 1)
    if target.ndim > 1 or target.size != n:
        raise RuntimeError(f"{op}: target tensor should be 1-D with size equal to the number of input samples (batch "
                         f"size). Expected target size [{n}], but got {list(target.shape)}. Input has shape "
                         f"{list(input.shape)}.")
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != c):
        raise RuntimeError(f"{op}(): inconsistent weight size, expected {c} but got {list(weight.shape)}")
    _refuse_kernel_dtype("multi_margin_loss_cpu_kernel", input.dtype)
    if target.dtype != np.int64:
        raise RuntimeError(f"{op}(): expected scalar type Long but found {_dt.scalar_type_name(target.dtype)}")
    _check_weight_dtype(input, weight)
    return ((n,) if reduction == "none" and input.ndim == 2 else ()), input.dtype


def _as_rows(input: Any) -> Any:
    """``(N, C)`` as it is, one sample ``(C,)`` or a 0-d input (one class) as one row."""
    return input.reshape(-1, input.shape[-1] if input.ndim else 1)


def _check_margin_targets(target: np.ndarray, c: int) -> None:
    if target.size and (target.min() < 0 or target.max() >= c):
        raise RuntimeError("multi_margin_loss(): target out of range")


@register_kernel("multi_margin_loss", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/multi_margin_loss")
def multi_margin_loss_cpu(input: np.ndarray, target: np.ndarray, weight: Any = None, p: int = 1, margin: float = 1.0,
                          reduction: str = "mean") -> np.ndarray:
    rows, t = _as_rows(input), target.reshape(-1)
    _check_margin_targets(t, rows.shape[1])
    terms = multi_margin_terms(np, rows, t, p, margin, weight)
    return reduce_terms(np, terms if input.ndim == 2 else terms.reshape(()), reduction, input.dtype)


@register_kernel("multi_margin_loss_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/multi_margin_loss_backward")
def multi_margin_loss_backward_cpu(grad: np.ndarray, input: np.ndarray, target: np.ndarray, weight: Any = None,
                                   p: int = 1, margin: float = 1.0, reduction: str = "mean") -> np.ndarray:
    return multi_margin_grad(np, grad, _as_rows(input), target.reshape(-1), p, margin, weight,
                             reduction).reshape(input.shape)


def _multi_margin_backward_meta(op: str, grad: Any, input: Any, *rest: Any, **attrs: Any) -> Any:
    """The gradient has the input's shape and dtype."""
    return tuple(input.shape), input.dtype


_MARGIN_ATTRS = (Attr("p", 1, _check_int_attr), Attr("margin", 1.0), Attr("reduction", "mean", check_reduction))
_multi_margin_loss = defop(
    "multi_margin_loss",
    inputs=("input", Input("target", differentiable=False), Input("weight", optional=True, differentiable=False)),
    attrs=_MARGIN_ATTRS, infer_meta=_multi_margin_meta, save=("input", "target", "weight"), key_inputs=(0,),
    doc="multi-class hinge loss: sum over j != y of max(0, margin - x_y + x_j)^p, times weight[y], over C; reduced",
    amp="deny",
)
#: Its gradient, one kernel as PyTorch's ``multi_margin_loss_backward``, which has no derivative of its own: with
#: ``create_graph`` its node is PyTorch's ``NotImplemented``, and a backward through it raises PyTorch's error.
_multi_margin_loss_backward = defop(
    "multi_margin_loss_backward",
    # (PyTorch's node of it has one edge, the input's: the incoming gradient is taken as a constant)
    inputs=(Input("grad", differentiable=False), "input", Input("target", differentiable=False),
            Input("weight", optional=True, differentiable=False)),
    attrs=_MARGIN_ATTRS, infer_meta=_multi_margin_backward_meta, key_inputs=(0,), differentiable=False,
    doc="multi_margin_loss's gradient w.r.t. its input", amp="deny",
)


@_multi_margin_loss_backward.def_backward
def _multi_margin_loss_backward_formula(ctx: Any, grad: Any) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::multi_margin_loss_backward is not implemented")


@_multi_margin_loss.def_backward
def _multi_margin_loss_formula(ctx: Any, grad: Any) -> tuple[Any, None, None]:
    """PyTorch's ``multi_margin_loss_backward(grad, self, target, p, margin, weight, reduction)``."""
    saved = ctx.saved()
    weight = saved[2] if ctx.given(2) else None
    a = ctx.attrs
    return ctx.ops.multi_margin_loss_backward(grad, saved[0], saved[1], weight, a["p"], a["margin"],
                                              a["reduction"]), None, None


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: the ``multi_margin_loss`` op (``MultiMarginLossBackward0``, as PyTorch's)."""
    op = "multi_margin_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input=input, target=target)
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"{op}(): only p == 1 and p == 2 supported")
    if weight is not None:
        if not isinstance(weight, Tensor):
            raise TypeError(f"{op}(): argument 'weight' must be Tensor or None, but got {type_name(weight)}")
        if weight.ndim != 1:
            raise ValueError(f"{op}(): weight must be one-dimensional")
    if input.ndim <= 2 and not input.dtype.is_floating:  # (the kernel is looked up before the shapes are checked)
        _refuse_kernel_dtype("multi_margin_loss_cpu_kernel", input.dtype)
    _not_differentiable(op, weight=weight)
    return _multi_margin_loss(input, target, weight, int(p), float(margin), reduction)


@register_kernel("soft_margin_loss", Backend.CPU, dtypes=FLOAT_DTYPES)
def soft_margin_loss_cpu(input: np.ndarray, target: np.ndarray, reduction: str = "mean") -> np.ndarray:
    return reduce_terms(np, soft_margin_terms(np, input, target), reduction, input.dtype)


_soft_margin_loss = _reduced_pair_op("soft_margin_loss", "PyTorch's log1p(exp(-t x)), reduced",
                                     Input("target", differentiable=False))


@_soft_margin_loss.def_backward
def _soft_margin_loss_backward(ctx: Any, grad: Any) -> tuple[Any, None]:
    """PyTorch's ``soft_margin_loss_backward``: ``-t z / (1 + z)`` with ``z = exp(-t x)`` (NaN where ``z``
    overflows, as PyTorch's), times the gradient and ``1 / N`` for the mean."""
    x, t = ctx.saved()
    ops = ctx.ops
    z = ops.exp(ops.neg(ops.mul(t, x)))
    g = ops.neg(ops.div(ops.mul(t, z), ops.add(z, 1.0)))
    scale = _mean_scale(ctx.attrs["reduction"], x.shape)
    return ops.mul(ops.mul(g, grad), scale), None


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-y x))`` for labels ``y`` in {-1, 1}: the ``soft_margin_loss`` op
    (``SoftMarginLossBackward0``, as PyTorch's), in the input's dtype. The target takes no gradient (PyTorch
    refuses one that requires it)."""
    op = "soft_margin_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    shape = check_pair(op, input, target)
    _not_differentiable(op, target=target)
    if tuple(input.shape) != shape:
        input = expand(input, shape)
    if tuple(target.shape) != shape or target.dtype is not input.dtype:
        target = cast(expand(target, shape), input.dtype)
    return _soft_margin_loss(input, target, reduction=reduction)


@autocast_as("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average: Any = None,
                          reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``y = 1``, ``max(0, cos(x1, x2) - margin)`` where ``y = -1``; rows of ``(N, D)``
    (or one ``(D,)`` pair). The cosine is PyTorch's: ``x1.x2 / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12))``. Composite,
    PyTorch's C++ op for op."""
    op = "cosine_embedding_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input1=input1, input2=input2, target=target)
    if target.ndim > 1:
        raise ShapeError(f"{op}(): 0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != target.ndim + 1 or input2.ndim != target.ndim + 1:
        raise ShapeError(f"{op}(): {target.ndim}D target tensor expects {target.ndim + 1}D input tensors, but found "
                         f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    # PyTorch's input1 * input2, then where(target == 1, 1 - cos, 0): each refusal of a broadcast in its order
    dim = target.ndim
    rows = broadcast_shapes(op, tuple(input1.shape), tuple(input2.shape), ("input1", "input2"))[:dim]
    broadcast_shapes(op, tuple(target.shape), rows, ("target", "cos"))
    dot = sum(mul(input1, input2), dim=dim)
    m1 = add_scalar(sum(mul(input1, input1), dim=dim), 1e-12)  # PyTorch's C++: Tensor + Scalar, Scalar - Tensor ...
    m2 = add_scalar(sum(mul(input2, input2), dim=dim), 1e-12)
    cos = div(dot, sqrt(mul(m1, m2)))
    pos = where(eq(target, 1.0), number_minus(1.0, cos), 0.0)
    negative = where(eq(target, -1.0), _clamp_min0(sub_scalar(cos, float(margin))), 0.0)
    return reduce_loss(add(pos, negative), reduction)


@autocast_as("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``pairwise_distance``; ``swap`` uses
    ``min(d(a, n), d(p, n))`` (Balntas et al.). Composite."""
    op = "triplet_margin_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, anchor=anchor, positive=positive, negative=negative)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise ShapeError(f"{op}(): The anchor, positive, and negative tensors are expected to have the same number "
                         f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                         f"{negative.ndim}D inputs")
    _broadcast_all(op, anchor=anchor, positive=positive, negative=negative)
    d_ap = pairwise_distance(anchor, positive, p, eps)
    d_an = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_an = minimum(d_an, pairwise_distance(positive, negative, p, eps))
    # PyTorch's triplet_margin_loss: clamp_min(margin + d(a, p) - d(a, n), 0), the margin by add.Scalar
    return reduce_loss(_clamp_min0(sub(add_scalar(d_ap, float(margin)), d_an)), reduction)


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


@autocast_as("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` counts under a Poisson of rate ``exp(input)`` (``log_input``) or ``input``:
    ``exp(x) - t x``, or ``x - t log(x + eps)``; ``full`` adds Stirling's ``t log t - t + log(2 pi t) / 2`` for ``t > 1``.
    Composite, PyTorch's ``poisson_nll_loss`` op for op (``add.Scalar`` and ``mul.Scalar`` where its C++ adds and
    multiplies numbers, Stirling's term ``masked_fill``-ed to 0 where ``t <= 1``: a target that requires grad gets
    NaN there from ``0 * log 0``, as PyTorch's)."""
    op = "poisson_nll_loss"
    reduction = reduction_of(op, size_average, reduce, reduction)
    check_tensors(op, input=input, target=target)
    # (PyTorch's target * input, or target * log(input + eps): the target is tensor a of a broadcast's refusal)
    broadcast_shapes(op, tuple(target.shape), tuple(input.shape), ("target", "input"))
    if log_input:
        loss = sub(exp(input), mul(target, input))
    else:
        loss = sub(input, mul(target, log(add_scalar(input, eps))))
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0 where t = 0, masked below
            stirling = add(sub(mul(target, log(target)), target),
                           mul_scalar(log(mul_scalar(target, other=2 * math.pi)), other=0.5))
        loss = add(loss, masked_fill(stirling, le(target, 1.0), 0.0))
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` under a Gaussian of mean ``input`` and variance ``var``:
    ``(log(var) + (x - t)^2 / var) / 2`` (plus ``log(2 pi) / 2`` with ``full``). ``var`` has the input's shape,
    its shape without the last dim, one dim of 1 where the input's differs, or is a number; it is cloned and
    clamped at ``eps`` in place under ``no_grad`` (the gradient passes as if unclamped). Composite, PyTorch's
    Python op for op (``CloneBackward0``, ``LogBackward0``, ``PowBackward0`` ...)."""
    op = "gaussian_nll_loss"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}(): {reduction} is not valid")
    check_pair(op, input, target)
    shape = tuple(input.shape)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ShapeError(f"{op}(): var has negative entry/entries")
    else:
        check_tensors(op, var=var)
        vshape = tuple(var.shape)
        if vshape != shape:
            if shape[:-1] == vshape:
                var = unsqueeze(var, -1)
            elif not (len(vshape) == len(shape) and builtins.sum(v for s, v in zip(shape, vshape) if s != v) == 1):
                raise ShapeError(f"{op}(): var is of incorrect size")  # (one dim of 1 where the input's differs)
        if np.any(to_numpy(var._data) < 0):
            raise ShapeError(f"{op}(): var has negative entry/entries")
    if not isinstance(var, Tensor):  # PyTorch's var * ones_like(input): a constant
        var = fill(input.detach(), float(var))
    var = clone(var)
    with no_grad():  # clamped for the value only: the gradient passes as if unclamped, as PyTorch's
        var.clamp_min_(eps)
    loss = mul(add(log(var), div(pow(sub(input, target), 2), var)), 0.5)
    if full:
        loss = add(loss, _HALF_LOG_2PI)
    return reduce_loss(loss, reduction)


@autocast_as("cross_entropy_loss")
def cross_entropy_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Softmax cross-entropy, as ``torch.nn.functional.cross_entropy``, with PyTorch's graph in every form
    (``aten/src/ATen/native/LossNLL.cpp``): ``log_softmax`` over the classes, then ``nll_loss_nd`` for class
    indices (``NllLossBackward0``, or ``NllLoss2DBackward0`` for ``(N, C, d...)``); with label smoothing,
    ``(1 - s) * nll + s / C * smooth``; for class probabilities, ``-(log_softmax * target).sum()`` reduced.

    Args:
        input: logits ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target: class indices ``(N,)`` / ``(N, d1, ...)``, or class probabilities of ``input``'s shape.
        weight: a weight per class ``(C,)``.
        ignore_index: targets equal to it add nothing (and do not count in the mean).
        reduction: ``"mean"`` (weighted mean over the counted targets), ``"sum"`` or ``"none"``.
        label_smoothing: mixes the target with the uniform distribution over classes.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"cross_entropy(): {reduction} is not a valid value for reduction")
    for name, v in (("input", input), ("target", target)):
        if not isinstance(v, Tensor):
            raise TypeError(f"cross_entropy(): argument '{name}' must be Tensor, but got {type(v).__name__}")
    # PyTorch tells the two target kinds apart by shape: probabilities have the input's shape. Its checks
    # run in its order (cross_entropy_loss in LossNLL.cpp): the probabilities' target, or label_smoothing,
    # then log_softmax's of the input, then nll_loss_nd's of the class indices.
    probs = target.shape == input.shape
    # Every argument is checked before the first op runs (a refused call leaves no node). On a GPU the class
    # indices stay there: checked on the device (never read on the host: that would wait for the device).
    on_device = target._device != "cpu"
    if probs:
        check_class_target("cross_entropy", input, target, weight, ignore_index, probabilities=True)
    elif label_smoothing > 1.0:
        raise ShapeError(f"cross_entropy(): label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not probs and input.ndim == 0:  # (log_softmax over dim 1 of a 0-d input)
        raise OutOfRangeError("cross_entropy(): Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    last = input.ndim <= 2
    _refuse_kernel_dtype("log_softmax_lastdim_kernel_impl" if last else "log_softmax_kernel_impl", input.dtype)
    if probs and label_smoothing > 1.0:
        raise ShapeError(f"cross_entropy(): label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not probs:
        check_class_target("cross_entropy", input, target, weight, ignore_index, read=not on_device)
        _not_differentiable("nll_loss_forward", weight=weight)
    label_smoothing = max(label_smoothing, 0.0)  # (PyTorch lets a negative one through: no smoothing)
    class_dim = 0 if input.ndim == 1 else 1
    c = input.shape[class_dim]
    logp = log_softmax(input, dim=class_dim)
    w_view = None if weight is None else reshape(weight, tuple(c if d == class_dim else 1 for d in range(input.ndim)))
    if probs:
        t = target * (1.0 - label_smoothing) + label_smoothing / c if label_smoothing > 0.0 else target
        terms = logp * t if w_view is None else logp * t * w_view
        if reduction == "none":
            return -sum(terms, dim=class_dim)
        if reduction == "sum":
            return -sum(terms)
        if input.numel() == 0:
            return fill(-sum(terms), float("nan"))
        return div_scalar(-sum(terms), other=input.numel() / c)
    nll = nll_loss_nd(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0.0:
        return nll
    ignored = eq(target, ignore_index)
    smooth = masked_fill(-sum(logp if w_view is None else logp * w_view, dim=class_dim), ignored, 0.0)
    if reduction == "mean":
        if weight is None:
            smooth = sum(smooth) / sum(~ignored)
        else:  # the counted targets' weights, summed on their device (PyTorch's masked_select would wait for it)
            picked = getitem(weight.detach(), reshape(where(ignored, 0, target), (-1,)))
            smooth = sum(smooth) / sum(picked * reshape(~ignored, (-1,)))
    elif reduction == "sum":
        smooth = sum(smooth)
    # (the C++ scalars: mul.Scalar, MulBackward1; no class: C++'s division by zero, inf)
    return mul_scalar(nll, other=1.0 - label_smoothing) + mul_scalar(smooth, other=label_smoothing / c if c else math.inf)


def nll_loss_nd(logp: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int) -> Tensor:
    """PyTorch's ``nll_loss_nd``: ``nll_loss`` for ``(C,)`` and ``(N, C)`` log-probabilities
    (``NllLossBackward0``), ``nll_loss2d`` for ``(N, C, H, W)`` (``NllLoss2DBackward0``), and any other
    ``(N, C, d...)`` viewed as ``(N, C, 1, D)`` for ``nll_loss2d`` (its ``"none"`` loss viewed back to
    ``(N, d...)``). The arguments were checked (``check_class_target``)."""
    nd = logp.ndim
    if nd <= 2:
        return nll_loss_op(logp, target, weight, reduction=reduction, ignore_index=ignore_index)
    if nd == 4:
        return nll_loss2d(logp, target, weight, reduction=reduction, ignore_index=ignore_index)
    n, c = logp.shape[0], logp.shape[1]
    d = math.prod(logp.shape[2:])  # not -1: ambiguous when a size is 0
    out = nll_loss2d(reshape(logp.contiguous(), (n, c, 1, d)), reshape(target.contiguous(), (n, 1, d)), weight,
                     reduction=reduction, ignore_index=ignore_index)
    return reshape(out, (n,) + tuple(logp.shape[2:])) if reduction == "none" else out
