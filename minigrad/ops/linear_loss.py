"""Linear cross entropy: ``cross_entropy(linear(x, W, b), target)`` in one call, and its chunked form (PyTorch 2.13).

``F.linear_cross_entropy`` (``torch/nn/functional.py``), ``nn.LinearCrossEntropyLoss`` (``torch/nn/modules/loss.py``)
and ``nn.LinearCrossEntropyOptions`` (``torch/nn/modules/linear_cross_entropy_options.py``), with the chunked
operation of ``torch/nn/modules/linear_cross_entropy.py``. A language model's head ends in
``F.cross_entropy(self.lm_head(x), targets)``, whose ``(tokens, vocab)`` logits are the largest tensor of the step.

Two paths, as PyTorch's:

1. ``options=None`` (the reference): a composite, ``cross_entropy(linear(input, W, b).reshape(...))``; its graph is
   ``NllLossBackward0 <- LogSoftmaxBackward0 <- ViewBackward0 <- AddmmBackward0`` (``MmBackward0`` without a bias).
2. ``options`` given (the chunked path): the rows of ``input`` go through in chunks of ``batch_chunk_size``; each
   chunk's logits are written into one ``(batch_chunk_size, C)`` buffer, turned into the loss and - for the ``mean``
   and ``sum`` reductions - straight into the gradients of ``input``, ``W`` and ``b``, so the full logits never exist.
   The loss is one custom Function node, under the name ``torch.library.custom_op`` gives PyTorch's
   (``GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_defaultBackward``); its backward only scales
   the gradients made in forward. ``reduction='none'`` cannot precompute (the upstream gradient weighs each row), so
   its node (``..._no_reduction_defaultBackward``) saves the inputs and runs the chunks again in backward.

The chunk's algebra (``neg_weight_target`` folds class weight, ignored rows and the mean's divisor into one number per
row ``w_n``; ``s_n`` is the row's softmax)::

    loss  = sum_n w_n * (z[n, t_n] - max_n) - w_n * log(sum_j exp(z[n, j] - max_n))      (w_n < 0 for mean/sum)
    dL/dz = -w_n * softmax(z_n) + w_n * onehot(t_n)           dL/dx = dL/dz @ W,  dL/dW = dL/dz.T @ x,  dL/db = sum_n dL/dz

Example:
    >>> import minigrad as mg
    >>> import minigrad.nn.functional as F
    >>> x, W, t = mg.randn(8, 4), mg.randn(16, 4), mg.tensor([0, 3, 5, 1, 2, 9, 15, 4])
    >>> ref = F.linear_cross_entropy(x, W, t)
    >>> chunked = F.linear_cross_entropy(x, W, t, options=mg.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    >>> bool(abs(ref - chunked) < 1e-5)
    True
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Literal, NamedTuple

from .. import dtypes as _dt
from ..autograd.function import Function, FunctionCtx
from ..autograd.grad_mode import is_grad_enabled
from ..creation import empty, zeros
from ..tensor import Tensor
from .blas import linear, mm
from .math import div, mul
from .loss import cross_entropy_loss
from .nonzero import where

# (nothing for ops/__init__.py to export: the names are torch.nn.functional's and torch.nn's, published there)
__all__: list[str] = []


# -- LinearCrossEntropyOptions (torch/nn/modules/linear_cross_entropy_options.py) --------------------------------


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


#: PyTorch's picks for ``"auto"``, by (device type, input dtype); other pairs take ``_AUTO_FALLBACK``.
_AUTO_DEFAULTS: dict[tuple[str, Any], _AutoDefault] = {
    ("cuda", _dt.bfloat16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cuda", _dt.float16): _AutoDefault("compact", "aspect_ratio:2"),
    ("cpu", _dt.bfloat16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", _dt.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_DTYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How the chunked path of :func:`linear_cross_entropy` runs (``options=None`` is the reference path).

    - ``allow_retain_graph``: keep the precomputed gradients so that a second backward works (``mean``/``sum``);
    - ``batch_chunk_size``: rows per chunk (``None``: from ``chunking_method``, else one chunk);
    - ``chunking_method``: ``"aspect_ratio[:N]"`` sizes a chunk's ``(rows, C)`` logits like the ``(N, in_features)``
      input (divided by ``N``): ``next_pow2(ceil(N / ceil(C / in_features))) // N``; ``"auto"`` picks per device
      and dtype; ``None`` uses ``batch_chunk_size``;
    - ``acc_policy`` and ``acc_dtype``: which intermediates a float16/bfloat16 input keeps in float32.

    Example:
        >>> import minigrad as mg
        >>> mg.nn.LinearCrossEntropyOptions()._adjust(4096, 64, 32000, mg.float32).batch_chunk_size
        8
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not (name == "aspect_ratio" and (not sep or factor.isdigit() and int(factor) > 0)):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError(
                f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, torch.float64}}, got "
                f"{self.acc_dtype!r}. Pass acc_dtype=None to let the op pick automatically.")

    @staticmethod
    def _ceil_div(a: int, b: int) -> int:
        """ceil(a / b) for non-negative integers."""
        return -(-a // b)

    @staticmethod
    def _resolve_auto_acc_dtype(dtype: Any, device: Any) -> Any:
        """float32 for a float16/bfloat16 input on a device with a mixed-precision product (CPU, minigrad's GPU)."""
        if device is None or dtype not in (_dt.float16, _dt.bfloat16):
            return None
        return _dt.float32 if device.type in ("cpu", "cuda") else None

    def _compute_batch_chunk_size(self, num_batches: int, in_features: int, num_classes: int,
                                  method: str | None = None) -> int:
        """The chunk size ``chunking_method`` (or ``method``) gives for these shapes."""
        method = str(method if method is not None else self.chunking_method)
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        target = self._ceil_div(num_batches, self._ceil_div(num_classes, in_features))
        chunk_size = 1 << (target - 1).bit_length()  # the power of 2 at or above target
        return min(chunk_size // factor, num_batches)

    def _adjust(self, num_batches: int, in_features: int, num_classes: int, dtype: Any,
                device: Any = None) -> LinearCrossEntropyOptions:
        """These options with ``"auto"`` and ``None`` resolved for one call (``device=None``: the fallback picks)."""
        acc_policy, chunking_method = self.acc_policy, self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None  # an explicit size wins over the heuristic
        if acc_policy == "auto" or chunking_method == "auto":
            picks = _AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK) if device is not None else _AUTO_FALLBACK
            acc_policy = picks.acc_policy if acc_policy == "auto" else acc_policy
            chunking_method = picks.chunking_method if chunking_method == "auto" else chunking_method
        batch_chunk_size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            batch_chunk_size = self._compute_batch_chunk_size(num_batches, in_features, num_classes, chunking_method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != batch_chunk_size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{chunking_method}') give "
                    f"different chunk sizes ({self.batch_chunk_size} vs {batch_chunk_size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            auto = self._resolve_auto_acc_dtype(dtype, device) if self.acc_policy == "auto" else None
            acc_dtype = auto if auto is not None else dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, batch_chunk_size), acc_dtype=acc_dtype)


# -- the chunked loop (torch/nn/modules/linear_cross_entropy.py) ------------------------------------------------


class _Call(NamedTuple):
    """The resolved non-Tensor arguments of one chunked call."""

    reduction: str
    ignore_index: int
    batch_chunk_size: int
    acc_policy: str
    acc_dtype: Any
    allow_retain_graph: bool


@dataclasses.dataclass
class _Plan:
    """One call's dtypes and buffers (PyTorch's ``_ChunkContext.build``), decided before the first chunk.

    ``cd`` is the dtype the chunk computes in: the input's, or ``acc_dtype`` for a float16/bfloat16 input. minigrad
    takes PyTorch's CPU layout for a mixed-precision call on every device (the input chunk and ``W`` copied up to
    ``cd``; PyTorch's CUDA path multiplies in the input dtype with ``out_dtype=``)."""

    dtype: Any
    cd: Any
    logits: Tensor  # (batch_chunk_size, C) in cd: the only (rows, C) tensor of the call
    weight_cast: Tensor  # W in cd
    bias_cast: Tensor | None
    input_acc: Tensor | None  # (batch_chunk_size, F) in cd, for a mixed-precision input
    grad_w_scratch: Tensor | None  # (C, F) in cd: each chunk's W gradient before it joins the total


def _plan(input: Tensor, linear_weight: Tensor, linear_bias: Tensor | None, call: _Call,
          compute_weight_grad: bool) -> _Plan:
    """PyTorch's checks of the chunked op, then the call's dtypes and buffers."""
    dtype, acc = input.dtype, call.acc_dtype
    if dtype != acc and not (dtype in (_dt.float16, _dt.bfloat16) and acc == _dt.float32):
        raise RuntimeError("linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
                           f"{acc} acc_dtype and {dtype} inputs.")
    mixed = dtype != acc
    rows, (classes, features) = call.batch_chunk_size, linear_weight.shape
    # compact accumulates each chunk's W gradient straight into the total; the others keep a (C, F) scratch
    scratch = compute_weight_grad and (call.acc_policy != "compact" or mixed)
    return _Plan(
        dtype=dtype, cd=acc,
        logits=empty((rows, classes), dtype=acc, device=input.device),
        weight_cast=linear_weight.to(acc),
        bias_cast=None if linear_bias is None else linear_bias.to(acc),
        input_acc=empty((rows, features), dtype=acc, device=input.device) if mixed else None,
        grad_w_scratch=empty((classes, features), dtype=acc, device=input.device) if scratch else None,
    )


def _row_weights(target: Tensor, weight: Tensor | None, call: _Call, num_classes: int, cd: Any,
                 loss_grad_output: Tensor | None) -> tuple[Tensor, Tensor]:
    """The class indices made safe to index with, and ``w_n`` per row (PyTorch's ``neg_weight_target``).

    ``w_n`` is ``-weight[t_n] / d`` (``d`` the summed weights of the counted rows; NaN's divisor when none count) for
    ``mean``, ``-weight[t_n]`` for ``sum``, and 0 on ignored rows. For ``none`` it is ``+weight[t_n]`` (the loss's
    weight) in forward and ``-weight[t_n] * grad_output[n]`` in backward."""
    mask = target == call.ignore_index
    if call.ignore_index < 0 or call.ignore_index >= num_classes:
        target = where(mask, 0, target)
    if weight is None:
        w = (~mask).to(cd)
    elif target.numel() > weight.numel():
        w = where(mask, 0, weight.to(cd).index_select(0, target))
    else:
        w = where(mask, 0, weight.index_select(0, target).to(cd))
    if call.reduction == "mean":
        d = w.sum()
        w.div_(where(d == 0, math.nan, -d))
    elif call.reduction == "sum":
        w.neg_()
    elif loss_grad_output is not None:
        w.neg_().mul_(loss_grad_output.to(w.dtype))
    return target, w


def _chunk_logits(plan: _Plan, x: Tensor, rows: int) -> Tensor:
    """The chunk's logits ``x @ W.T + b`` in the buffer, shifted by each row's max (softmax's stability)."""
    logits = plan.logits.narrow(0, 0, rows)
    if plan.input_acc is not None:
        x = plan.input_acc.narrow(0, 0, rows).copy_(x)
    mm(x, plan.weight_cast.T, out=logits)
    if plan.bias_cast is not None:
        logits.add_(plan.bias_cast)
    return logits.sub_(logits.amax(1, keepdim=True))


def _loss_rows(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias: Tensor | None,
               weight: Tensor | None, call: _Call) -> Tensor:
    """``reduction='none'`` forward: each row's loss ``w_n * (log sum_j exp(z_nj) - z_n,t_n)``, chunk by chunk."""
    plan = _plan(input, linear_weight, linear_bias, call, False)
    n = input.shape[0]
    target, w = _row_weights(target, weight, call, linear_weight.shape[0], plan.cd, None)
    out = empty((n,), dtype=plan.dtype, device=input.device)
    for start in range(0, n, call.batch_chunk_size):
        rows = min(call.batch_chunk_size, n - start)
        logits = _chunk_logits(plan, input.narrow(0, start, rows), rows)
        picked = logits.gather(1, target.narrow(0, start, rows).unsqueeze(1)).squeeze(1)  # before exp_ overwrites
        denom = logits.exp_().sum(1)
        loss = denom.log_().sub_(picked.to(denom.dtype)).mul_(w.narrow(0, start, rows).to(denom.dtype))
        out.narrow(0, start, rows).copy_(loss)
    return out


def _loss_and_grads(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias: Tensor | None,
                    weight: Tensor | None, call: _Call, needs: tuple[bool, bool, bool],
                    loss_grad_output: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The loss and the gradients of ``input``, ``W`` and ``b`` (those ``needs`` asks for; the others empty), in one
    pass over the chunks (PyTorch's ``_linear_cross_entropy_batch_chunked_accumulator``).

    With ``loss_grad_output`` (``reduction='none'``'s backward) the rows are weighed by the upstream gradient, and
    the gradients are the vector-Jacobian product (the loss made alongside is not used)."""
    plan = _plan(input, linear_weight, linear_bias, call, needs[1])
    n, features = input.shape
    classes = linear_weight.shape[0]
    dev, dtype, cd = input.device, plan.dtype, plan.cd
    target, w = _row_weights(target, weight, call, classes, cd, loss_grad_output)
    output = zeros((), dtype=cd if dtype == _dt.float16 else dtype, device=dev)  # float16 sums in float32
    grad_input = empty(input.shape if needs[0] else (0, 0), dtype=cd, device=dev)
    grad_weight = zeros(linear_weight.shape if needs[1] else (0, 0), dtype=dtype, device=dev)
    grad_bias = zeros(linear_weight.shape[:-1] if needs[2] else (0,), dtype=dtype, device=dev)
    bias_acc = zeros((classes,), dtype=cd, device=dev) if needs[2] and cd != dtype else grad_bias
    if call.reduction == "mean" and n == 0:
        output.fill_(math.nan)
    for start in range(0, n, call.batch_chunk_size):
        rows = min(call.batch_chunk_size, n - start)
        t, w_rows = target.narrow(0, start, rows), w.narrow(0, start, rows)
        logits = _chunk_logits(plan, input.narrow(0, start, rows), rows)
        output.add_(w_rows.dot(logits.gather(1, t.unsqueeze(1)).squeeze(1).to(w_rows.dtype)))
        denom = logits.exp_().sum(1)
        if any(needs):  # logits becomes w_n * softmax(z_n): minus the gradient of the logits, less the one-hot term
            mul(logits, div(w_rows, denom).to(logits.dtype).unsqueeze(1), out=logits)
        output.sub_(w_rows.to(denom.dtype).dot(denom.log_()))
        if needs[2]:  # dL/db = sum_n w_n * (onehot(t_n) - softmax(z_n)), read before _weight_grad reuses the buffer
            bias_acc.sub_(logits.sum(0)).index_add_(0, t, w_rows)
            if bias_acc is not grad_bias:
                grad_bias.add_(bias_acc.to(dtype))
                bias_acc.zero_()
        if needs[0]:  # dL/dx = w_n * W[t_n] - (w_n * softmax) @ W
            grad_rows = grad_input.narrow(0, start, rows)
            mul(plan.weight_cast.index_select(0, t), w_rows.to(cd).unsqueeze(1), out=grad_rows)
            grad_rows.addmm_(logits, plan.weight_cast, alpha=-1)
        if needs[1]:
            _weight_grad(plan, grad_weight, logits, input.narrow(0, start, rows), t, w_rows, rows)
    return output.to(dtype), grad_input.to(dtype), grad_weight, grad_bias


def _weight_grad(plan: _Plan, grad_weight: Tensor, logits: Tensor, x: Tensor, t: Tensor, w_rows: Tensor,
                 rows: int) -> None:
    """Add one chunk's ``dL/dW = onehot(t)^T (w * x) - (w * softmax)^T x`` to ``grad_weight``."""
    x_cd = x if plan.input_acc is None else plan.input_acc.narrow(0, 0, rows)
    scratch = plan.grad_w_scratch
    if scratch is None:  # compact: straight into the total, no (C, F) scratch
        grad_weight.addmm_(logits.T, x, alpha=-1)
        grad_weight.index_add_(0, t, _scaled_rows(plan, x_cd, w_rows), alpha=1)
        return
    mm(logits.T, x_cd, out=scratch)
    scratch.index_add_(0, t, _scaled_rows(plan, x_cd, w_rows), alpha=-1)
    grad_weight.sub_(scratch)


def _scaled_rows(plan: _Plan, x: Tensor, w_rows: Tensor) -> Tensor:
    """``x * w_n`` row by row, into memory the chunk is done with (PyTorch's ``_ChunkContext.mul``): the copied-up
    input chunk for a mixed-precision call, else the first ``F`` columns of the logits buffer when they fit."""
    if plan.input_acc is not None:
        return x.mul_(w_rows.unsqueeze(1))
    rows, features = x.shape
    if plan.logits.shape[1] >= features:
        return mul(x, w_rows.unsqueeze(1), out=plan.logits.narrow(0, 0, rows).narrow(1, 0, features))
    return x * w_rows.unsqueeze(1)


def _empty_rank(t: Tensor, when: bool) -> Tensor:
    return t if when else empty((0,) * t.ndim, dtype=t.dtype, device=t.device)


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):
    """The ``mean``/``sum`` chunked op. ``torch.library.custom_op("torch_nn::_linear_cross_entropy_batch_chunked")``
    wraps PyTorch's in a Function of this name; its node is ``<name>Backward``.

    Forward makes the loss and the gradients together; backward multiplies the kept gradients by the upstream one,
    in place unless ``allow_retain_graph`` (so a second backward finds them gone, as PyTorch's does)."""

    @staticmethod
    def forward(ctx: FunctionCtx, input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias: Tensor | None,
                weight: Tensor | None, call: _Call) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        needs = (ctx.needs_input_grad[0], ctx.needs_input_grad[1], linear_bias is not None and ctx.needs_input_grad[3])
        loss, gi, gw, gb = _loss_and_grads(input, linear_weight, target, linear_bias, weight, call, needs)
        ctx.allow_retain_graph = call.allow_retain_graph
        ctx.grads = [g if need else None for g, need in zip((gi, gw, gb), needs)]
        ctx.mark_non_differentiable(gi, gw, gb)
        return loss, gi, gw, gb

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor, *unused: Any) -> tuple[Tensor | None, ...]:
        scaled = []
        for k, g in enumerate(ctx.grads):
            if g is None and ctx.needs_input_grad[(0, 1, 3)[k]]:
                raise RuntimeError("linear_cross_entropy chunked backward called twice; "
                                   "retain_graph=True / double backward are not supported.")
            if g is not None and not ctx.allow_retain_graph:
                ctx.grads[k] = None  # consumed: the in-place product is the gradient
                g = g.mul_(grad_output)
            elif g is not None:
                g = g * grad_output
            scaled.append(g)
        gi, gw, gb = scaled
        return gi, gw, None, gb, None, None


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(Function):
    """The ``reduction='none'`` chunked op (PyTorch's ``torch_nn::_linear_cross_entropy_batch_chunked_no_reduction``):
    forward makes each row's loss; backward runs the chunks again with the upstream gradient folded into the rows'
    weights, so ``retain_graph=True`` works and nothing of size ``(N, C)`` is kept."""

    @staticmethod
    def forward(ctx: FunctionCtx, input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias: Tensor | None,
                weight: Tensor | None, call: _Call) -> Tensor:
        ctx.save_for_backward(input.detach(), linear_weight.detach(), target,
                              None if linear_bias is None else linear_bias.detach(),
                              None if weight is None else weight.detach())
        ctx.call = call
        return _loss_rows(input, linear_weight, target, linear_bias, weight, call)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        input, linear_weight, target, linear_bias, weight = ctx.saved_tensors
        needs = (ctx.needs_input_grad[0], ctx.needs_input_grad[1], linear_bias is not None and ctx.needs_input_grad[3])
        if not any(needs):
            return None, None, None, None, None, None
        _, gi, gw, gb = _loss_and_grads(input, linear_weight, target, linear_bias, weight, ctx.call, needs,
                                        loss_grad_output=grad_output)
        return (gi if needs[0] else None), (gw if needs[1] else None), None, (gb if needs[2] else None), None, None


# -- F.linear_cross_entropy (torch/nn/functional.py) ---------------------------------------------------------------


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``; chunked when ``options`` is given.

    ``input`` is ``(F,)`` or ``(N, F)``; ``linear_weight`` ``(C, F)`` or ``(C, d1, ..., dK, F)`` (a K-dimensional
    loss, batched input only); ``linear_bias`` ``(C, d1, ..., dK)``. ``target`` holds class indices, or class
    probabilities when its shape is the logits'. ``ignore_index=None`` means -100 for indices; with probabilities it
    must stay ``None``. The chunked path takes ``mean``/``sum``/``none``, no label smoothing, int64 indices and no
    ``d1, ..., dK``; anything else warns and takes the reference path.

    Example:
        >>> import minigrad as mg
        >>> x, W = mg.zeros(2, 3), mg.zeros(5, 3)
        >>> round(mg.nn.functional.linear_cross_entropy(x, W, mg.tensor([1, 4])).item(), 4)  # log(5)
        1.6094
    """
    num_classes, out_features, logits_shape = _check(input, linear_weight, linear_bias)
    if target.shape == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    chunkable = (reduction in {"mean", "sum", "none"} and label_smoothing == 0.0 and target.dtype == _dt.int64
                 and not out_features)
    if options is not None and not chunkable:
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
            f"label_smoothing == 0, target.dtype == int64, out_features == (). Got reduction={reduction!r}, "
            f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, out_features={tuple(out_features)}, "
            f"tracing=False, linear_bias.shape={None if linear_bias is None else tuple(linear_bias.shape)}.",
            stacklevel=2)
    if options is not None and chunkable:
        return _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options)
    if out_features:  # one (C * d1 * ... * dK, F) matrix for linear, its logits viewed back
        linear_weight = linear_weight.reshape((math.prod(out_features, start=num_classes), input.shape[-1]))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(math.prod(out_features, start=num_classes))
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy_loss(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                           label_smoothing=label_smoothing)


def _check(input: Tensor, linear_weight: Tensor, linear_bias: Tensor | None) -> tuple[int, tuple[int, ...], tuple]:
    """PyTorch's refusals of the shapes, in its order; the class count, the K dims and the logits' shape."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires batched input, "
            f"(N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    return num_classes, out_features, (*batch, num_classes, *out_features)


def _chunked(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias: Tensor | None,
             weight: Tensor | None, reduction: str, ignore_index: int, options: LinearCrossEntropyOptions) -> Tensor:
    """The chunked path: one row made a batch of one, the options resolved for these shapes, one Function node."""
    batched = input.dim() == 2
    if not batched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    num_classes, in_features = linear_weight.shape
    options = options._adjust(input.shape[0], in_features, num_classes, input.dtype, input.device)
    call = _Call(reduction, ignore_index, options.batch_chunk_size, options.acc_policy, options.acc_dtype,
                 options.allow_retain_graph)
    if reduction == "none":
        result = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default.apply(
            input, linear_weight, target, linear_bias, weight, call)
    else:
        result = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default.apply(
            input, linear_weight, target, linear_bias, weight, call)[0]
    return result if batched else result.squeeze(0)
