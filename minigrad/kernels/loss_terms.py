"""The elementwise terms of the losses whose op includes its reduction, and the reduction, for the CPU's and
the GPU's kernels.

Each function takes the array module ``xp`` (NumPy or CuPy) and arrays of one floating dtype, and
writes PyTorch's formula (``aten/src/ATen/native/Loss.cpp``) with that module's functions, so both
backends compute the same steps: the CPU kernels in ``ops/loss.py`` pass NumPy, the GPU kernels in
``kernels/gpu/library.py`` pass CuPy (each step one CuPy kernel on the device, nothing read back).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

__all__ = ["log_sigmoid_terms", "soft_margin_terms", "bce_terms", "bce_with_logits_terms", "smooth_l1_terms", "huber_terms",
           "multi_margin_terms", "multi_margin_grad", "multilabel_margin_terms", "multilabel_margin_grad", "reduce_terms",
           "one_sample_nll",
           "one_sample_nll_backward", "weighted_nll", "weighted_nll_grad", "nll2d_of_rows", "nll2d_backward_of_rows",
           "shaped_by_input"]


def log_sigmoid_terms(xp: Any, x: Any) -> Any:
    """``min(x, 0) - log1p(exp(-|x|))``: no ``exp`` of a positive number, so nothing overflows."""
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def soft_margin_terms(xp: Any, x: Any, t: Any) -> Any:
    """PyTorch's ``log1p(exp(-t x))`` (infinite where ``-t x`` overflows ``exp``, as PyTorch's)."""
    with np.errstate(over="ignore"):
        return xp.log1p(xp.exp(-t * x))


def bce_terms(xp: Any, x: Any, t: Any, weight: Any = None) -> Any:
    """PyTorch's ``(t - 1) max(log1p(-x), -100) - t max(log(x), -100)``, times ``weight``: each log clamped at
    -100, so a probability of exactly 0 or 1 gives a finite loss."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = xp.maximum(xp.log(x), -100)
        log_1mx = xp.maximum(xp.log1p(-x), -100)
    loss = (t - 1) * log_1mx - t * log_x
    return loss if weight is None else loss * weight


def bce_with_logits_terms(xp: Any, x: Any, t: Any, weight: Any = None, pos_weight: Any = None) -> Any:
    """PyTorch's ``(1 - t) x - (1 + (p - 1) t) log_sigmoid(x)``, times ``weight`` (``p``: ``pos_weight``)."""
    log_sig = log_sigmoid_terms(xp, x)
    if pos_weight is not None:
        log_sig = ((pos_weight - 1) * t + 1) * log_sig
    loss = (1 - t) * x - log_sig
    return loss if weight is None else loss * weight


def smooth_l1_terms(xp: Any, x: Any, t: Any, beta: float) -> Any:
    """PyTorch's ``smooth_l1_loss`` of each element: ``0.5 z^2 / beta`` where ``z = |x - t| < beta``, else
    ``z - 0.5 beta``."""
    z = xp.abs(x - t)
    return xp.where(z < beta, z * z * (0.5 / beta), z - 0.5 * beta)


def huber_terms(xp: Any, x: Any, t: Any, delta: float) -> Any:
    """PyTorch's ``huber_loss`` of each element: ``0.5 z^2`` where ``z = |x - t| < delta``, else
    ``delta (z - 0.5 delta)``."""
    z = xp.abs(x - t)
    return xp.where(z < delta, z * z * 0.5, (z - 0.5 * delta) * delta)


def _margins(xp: Any, x: Any, target: Any, margin: float) -> tuple[Any, Any, Any]:
    """``margin - x[i, y_i] + x[i, j]`` of each row ``i`` and class ``j``, which of them count (positive, ``j`` not
    the target: a NaN counts nowhere, as in PyTorch's kernel), and the rows."""
    rows = xp.arange(x.shape[0])
    z = margin - x[rows, target][:, None] + x
    with np.errstate(invalid="ignore"):
        active = z > 0
    active[rows, target] = False
    return z, active, rows


def multi_margin_terms(xp: Any, x: Any, target: Any, p: int, margin: float, weight: Any = None) -> Any:
    """PyTorch's ``multi_margin_loss`` of each row of ``(N, C)``: ``sum_{j != y} max(0, margin - x_y + x_j)^p``,
    times ``weight[y]``, over ``C``."""
    z, active, _ = _margins(xp, x, target, margin)
    h = xp.where(active, z if p == 1 else z * z, 0)
    if weight is not None:
        h = h * weight[target][:, None]
    return h.sum(axis=1) / x.shape[1]


def multi_margin_grad(xp: Any, grad: Any, x: Any, target: Any, p: int, margin: float, weight: Any = None,
                      reduction: str = "mean") -> Any:
    """``multi_margin_terms``' gradient w.r.t. ``x``: each counted margin's slope (1, or ``2 z`` for ``p = 2``) times
    ``weight[y]``, the incoming gradient and ``1 / C`` (and ``1 / N`` for the mean) at class ``j``; minus their sum
    at the target's class."""
    z, active, rows = _margins(xp, x, target, margin)
    h = xp.where(active, 1.0 if p == 1 else 2 * z, 0).astype(x.dtype, copy=False)
    if weight is not None:
        h = h * weight[target][:, None]
    g = grad.reshape(-1, 1) if reduction == "none" else grad
    scale = 1.0 / x.shape[1] / (x.shape[0] if reduction == "mean" and x.shape[0] else 1)
    h = h * (g * scale)
    h[rows, target] = -h.sum(axis=1)
    return h.astype(x.dtype, copy=False)


def reduce_terms(xp: Any, terms: Any, reduction: str, dtype: Any) -> Any:
    """``terms`` themselves (``"none"``), their sum, or their mean (NaN for no terms, without a warning), in
    ``dtype``."""
    if reduction == "none":  # (not ascontiguousarray: it makes a 0-d array 1-d)
        terms = terms.astype(dtype, copy=False)
        return terms if terms.flags.c_contiguous else terms.copy()
    total = terms.sum(dtype=_sum_dtype(terms.dtype))  # a half's sum in float, as PyTorch
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / terms.size if terms.size else total * np.nan
    return xp.asarray(total, dtype=dtype)


def one_sample_nll(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """An ``nll_loss`` kernel of ``(N, C)`` log-probabilities that also takes one sample, PyTorch's unbatched
    form: ``(C,)`` with a 0-d target is a batch of one, and its loss is 0-d whatever the reduction. PyTorch
    computes that loss as its sums are computed, from a 0 (``0 + -0.0`` is ``0.0``): a log-probability of 0
    gives a loss of ``0.0``, not ``-0.0`` (the batch's ``reduction='none'`` keeps ``-0.0``)."""
    @functools.wraps(kernel)
    def run(input: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        if input.ndim == 1:
            return kernel(input.reshape(1, -1), target.reshape(1), *args, **kwargs).reshape(()) + 0.0
        return kernel(input, target, *args, **kwargs)

    return run


def one_sample_nll_backward(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """An ``nll_loss_backward`` kernel of ``(N, C)`` that also takes one sample's ``shape`` ``(C,)`` (its
    incoming gradient 0-d, its target 0-d): a batch of one."""
    @functools.wraps(kernel)
    def run(grad: Any, target: Any, *args: Any, shape: Any = (), **kwargs: Any) -> Any:
        if len(shape) == 1:
            grad = grad.reshape(1) if grad.ndim == 0 else grad
            return kernel(grad, target.reshape(1), *args, shape=(1, shape[0]), **kwargs).reshape(tuple(shape))
        return kernel(grad, target, *args, shape=shape, **kwargs)

    return run


def _sum_dtype(dtype: Any) -> Any:
    """The dtype a loss's sums accumulate in: float32 for a half, as PyTorch's, else ``dtype`` itself."""
    return np.float32 if dtype == np.float16 else dtype


def _row_weights(xp: Any, target: Any, weight: Any, ignore_index: int, dtype: Any) -> tuple[Any, Any, Any, Any]:
    """The rows, each row's class (0 where ignored), each row's weight (0 where ignored), and which rows count."""
    valid = target != ignore_index
    safe = xp.where(valid, target, 0)
    return xp.arange(target.shape[0]), safe, weight[safe].astype(dtype, copy=False) * valid, valid


def weighted_nll(xp: Any, input: Any, target: Any, weight: Any, reduction: str, ignore_index: int) -> Any:
    """PyTorch's ``nll_loss`` with a weight per class (``aten/src/ATen/native/LossNLL.cpp``): each row's
    ``-weight[t] * input[t]``; the mean divides their sum by the rows' summed weights (NaN when that is 0)."""
    if input.shape[1] == 0:  # no class: every target was ignored, no term counts
        return weighted_nll(xp, xp.zeros((input.shape[0], 1), input.dtype), target, xp.zeros(1, input.dtype),
                            reduction, ignore_index)
    rows, safe, w, valid = _row_weights(xp, target, weight, ignore_index, input.dtype)
    # an ignored row adds nothing, whatever its input (NaN and infinities too: not 0 * NaN)
    terms = xp.where(valid, -(input[rows, safe] * w), 0)
    if reduction == "none":
        return terms
    acc = _sum_dtype(input.dtype)
    total = terms.sum(dtype=acc)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            total = total / w.sum(dtype=acc)
    return xp.asarray(total, dtype=input.dtype)


def weighted_nll_grad(xp: Any, grad: Any, target: Any, weight: Any, shape: tuple[int, ...], reduction: str,
                      ignore_index: int) -> Any:
    """``weighted_nll``'s gradient w.r.t. the input: ``-weight[t] * grad`` at each counted row's class (divided
    by the summed weights for the mean: NaN there when they are 0, as PyTorch's), 0 elsewhere."""
    if not shape[1]:
        return xp.zeros(shape, dtype=grad.dtype)
    rows, safe, w, valid = _row_weights(xp, target, weight, ignore_index, grad.dtype)
    g = grad * w
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            g = g / w.sum(dtype=_sum_dtype(grad.dtype)).astype(grad.dtype)
    g = xp.where(valid, g, 0)  # an ignored row's 0 written at class 0: no NaN, no -0
    out = xp.zeros(shape, dtype=grad.dtype)
    out[rows, safe] = 0 - g  # one write a row (not -g: a +0 stays +0)
    return out


def nll2d_of_rows(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """An ``nll_loss2d`` kernel (log-probabilities ``(N, C, H, W)``, targets ``(N, H, W)``, PyTorch's
    ``NllLoss2DBackward0``) from ``nll_loss``'s kernel of rows: each position's ``C`` classes one row, in
    row-major order of ``(N, H, W)``, so the loss of ``"none"`` is those rows' terms in that shape."""
    def run(input: Any, target: Any, weight: Any = None, reduction: str = "mean", ignore_index: int = -100) -> Any:
        n, c, h, w = input.shape
        rows = input.transpose(0, 2, 3, 1).reshape(n * h * w, c)
        out = kernel(rows, target.reshape(n * h * w), weight, reduction=reduction, ignore_index=ignore_index)
        return out.reshape(n, h, w) if reduction == "none" else out

    run.__name__ = run.__qualname__ = f"nll2d_of_rows({kernel.__name__})"
    return run


def nll2d_backward_of_rows(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``nll_loss2d``'s gradient kernel from ``nll_loss_backward``'s kernel of rows: the rows' gradient
    ``(N*H*W, C)`` laid back as ``(N, C, H, W)``, row-major (PyTorch's layout)."""
    def run(grad: Any, target: Any, weight: Any = None, shape: Any = (), reduction: str = "mean",
            ignore_index: int = -100) -> Any:
        n, c, h, w = shape
        g = grad.reshape(n * h * w) if reduction == "none" else grad
        rows = kernel(g, target.reshape(n * h * w), weight, shape=(n * h * w, c), reduction=reduction,
                      ignore_index=ignore_index)
        return rows.reshape(n, h, w, c).transpose(0, 3, 1, 2).copy(order="C")

    run.__name__ = run.__qualname__ = f"nll2d_backward_of_rows({kernel.__name__})"
    return run


def shaped_by_input(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A gradient kernel of PyTorch's ``nll_loss_backward(grad, self, target, weight, ...)`` from one of
    ``(grad, target, weight, shape=...)``: ``self``, the loss's input, gives only the shape (its values are
    not read; it is an input so that the double backward's node has PyTorch's edge to it)."""
    def run(grad: Any, input: Any, target: Any, weight: Any = None, **attrs: Any) -> Any:
        return kernel(grad, target, weight, shape=tuple(input.shape), **attrs)

    run.__name__ = run.__qualname__ = f"shaped_by_input({kernel.__name__})"
    return run


def _multilabel_margins(xp: Any, x: Any, target: Any) -> tuple[Any, Any, Any]:
    """Of each row of ``(N, C)`` and its target row (class indices up to the first ``-1``): ``1 - x[y_j] + x[d]``
    for each listed target ``j`` and class ``d`` (``(N, J, C)``), which of them count (``j`` listed, ``d`` not a
    target, positive: a NaN counts nowhere, as in PyTorch's loop), and each listed target as a one-hot row."""
    c = x.shape[1]
    listed = xp.cumprod(target >= 0, axis=1).astype(bool)
    labels = xp.where(listed, target, 0)
    one_hot = (labels[:, :, None] == xp.arange(c, dtype=labels.dtype)[None, None, :]) & listed[:, :, None]
    is_target = one_hot.any(axis=1)
    z = 1 - xp.take_along_axis(x, labels, axis=1)[:, :, None] + x[:, None, :]
    with np.errstate(invalid="ignore"):
        active = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    return z, active, one_hot


def multilabel_margin_terms(xp: Any, x: Any, target: Any) -> Any:
    """PyTorch's ``multilabel_margin_loss`` of each row of ``(N, C)``: over the listed targets ``j`` and the
    classes ``d`` that are no target, ``max(0, 1 - x[y_j] + x[d])``, summed, over ``C``."""
    z, active, _ = _multilabel_margins(xp, x, target)
    return xp.where(active, z, 0).sum(axis=(1, 2)) / x.shape[1]


def multilabel_margin_grad(xp: Any, grad: Any, x: Any, target: Any, reduction: str = "mean") -> Any:
    """``multilabel_margin_terms``' gradient w.r.t. ``x``: ``+1`` at class ``d`` and ``-1`` at target ``y_j`` for each
    counted margin, times ``1 / C`` (and ``1 / N`` for the mean) and the incoming gradient (a row's own for
    ``"none"``)."""
    _, active, one_hot = _multilabel_margins(xp, x, target)
    counts = active.sum(axis=1) - (one_hot * active.sum(axis=2)[:, :, None]).sum(axis=1)
    n, c = x.shape
    scale = 1.0 / (n * c if reduction == "mean" and n else c)
    g = grad.reshape(-1, 1) if reduction == "none" else grad
    return (counts.astype(x.dtype) * x.dtype.type(scale) * g).astype(x.dtype, copy=False)
