"""Connectionist temporal classification: the ``ctc_loss`` op (PyTorch's ``_ctc_loss``, node ``CtcLossBackward0``)
and its gradient op ``ctc_loss_backward``, and ``torch.nn.functional.ctc_loss`` around them.

The op takes log-probabilities ``(T, N, C)`` and each sample's target, and gives each sample's negative log-likelihood
``-log p(target | input)``, summed over every alignment of the target to the ``input_length`` frames (Graves et al.,
2006). A target ``l`` of length ``L`` is extended to ``l'`` of length ``2L + 1`` with the blank before, between and
after its labels; an alignment walks ``l'`` one frame at a time, staying, stepping by one, or skipping a blank between
two different labels. NOTE [ CTC in log space ]: the forward variables ``alpha[t, s]`` (the log-probability of the
alignments of the first ``t + 1`` frames ending at ``l'[s]``) and the backward variables ``beta[t, s]`` are sums of
exponentials of very negative numbers, so each step is a log-sum-exp shifted by its largest term (a shift of 0 when
all are ``-inf``, so an unreachable state stays ``-inf`` and never turns into ``nan``).

The gradient is PyTorch's (``ctc_loss_backward_cpu`` in ``aten/src/ATen/native/LossCTC.cpp``), eq. 16 of the paper:
``grad[t, n, c] = exp(lp[t, n, c]) - exp(log(sum_{s: l'[s] = c} alpha[t, s] beta[t, s]) + nll[n] - lp[t, n, c])``
for the first ``input_length`` frames, zeros after. It is the gradient with respect to the *logits* under a
``log_softmax`` (the ``exp(lp)`` term is what ``log_softmax``'s backward removes again), so it equals finite
differences of ``ctc_loss(log_softmax(x))`` with respect to ``x``, as PyTorch's. A sample whose loss is infinite
(too few frames for its target) has ``nan`` gradients, or zeros with ``zero_infinity``. PyTorch has no derivative for
the gradient op: a double backward refuses, in its words.

``ctc_loss`` (the function) is PyTorch's ``at::native::ctc_loss``: an unbatched ``(T, C)`` input is unsqueezed to
``(T, 1, C)``, ``zero_infinity`` is a ``where`` (``WhereBackward0``), ``"mean"`` divides each loss by its target
length (at least 1) and takes the mean (``DivBackward0`` under ``MeanBackward0``), ``"sum"`` sums.

Example:
    >>> import minigrad as mg
    >>> lp = mg.full((2, 1, 2), 0.5).log()  # two frames, a blank and one label, each at probability 1/2
    >>> round(mg.nn.functional.ctc_loss(lp, mg.tensor([[1]]), (2,), (1,), reduction="sum").item(), 4)  # 3 paths
    0.2877
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..creation import as_tensor
from ..dtypes import float32, float64
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_bool, check_int, check_shape, check_tensor, scalar_type_name
from .clamp import _clamp_min_op
from .math import div, eq, where
from .reduce import mean, sum
from .registry import Attr, Input, defop, type_name
from .shape import squeeze, unsqueeze

__all__ = ["ctc_loss"]  # torch.ctc_loss; F.ctc_loss is ctc_loss_functional (nn/functional.py)

_NEG_INF = -np.inf


# -- the kernels: alpha, beta and the gradient, one sample at a time ---------------------------------------

def _log_add(*terms: np.ndarray) -> np.ndarray:
    """``log(sum(exp(terms)))`` elementwise, shifted by the largest term (0 where all are ``-inf``: NOTE
    [ CTC in log space ])."""
    top = np.maximum.reduce(terms)
    top = np.where(top == _NEG_INF, 0.0, top).astype(top.dtype)
    with np.errstate(divide="ignore"):
        return np.log(np.add.reduce([np.exp(t - top) for t in terms])) + top


def _extended(target: np.ndarray, blank: int) -> np.ndarray:
    """``l'``: the target with the blank before, between and after its labels (length ``2L + 1``)."""
    ext = np.full(2 * len(target) + 1, blank, dtype=np.int64)
    ext[1::2] = target
    return ext


def _can_skip(ext: np.ndarray, blank: int) -> np.ndarray:
    """Where an alignment may jump two states forward into ``s`` (from ``s - 2``): a label that differs from the
    label two states back."""
    skip = np.zeros(len(ext), dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    return skip


def _alpha(lp: np.ndarray, ext: np.ndarray, blank: int) -> np.ndarray:
    """The forward variables ``alpha[t, s]`` of one sample (``lp``: its ``(input_length, C)`` frames)."""
    t_len, s_len = lp.shape[0], len(ext)
    alpha = np.full((t_len, s_len), _NEG_INF, dtype=lp.dtype)
    alpha[0, :2] = lp[0, ext[:2]]
    skip = _can_skip(ext, blank)
    one_back, two_back = np.full(s_len, _NEG_INF, dtype=lp.dtype), np.full(s_len, _NEG_INF, dtype=lp.dtype)
    for t in range(1, t_len):
        prev = alpha[t - 1]
        one_back[1:] = prev[:-1]  # (index 0, and 0 and 1 for two_back, stay -inf: no state before them)
        two_back[2:] = np.where(skip[2:], prev[:-2], _NEG_INF)
        alpha[t] = _log_add(prev, one_back, two_back) + lp[t, ext]
    return alpha


def _beta(lp: np.ndarray, ext: np.ndarray, blank: int) -> np.ndarray:
    """The backward variables ``beta[t, s]``: ``alpha`` of the time-reversed frames and target."""
    return _alpha(lp[::-1], ext[::-1].copy(), blank)[::-1, ::-1]


def _nll(alpha: np.ndarray, target_length: int) -> Any:
    """``-log p``: the alignments that end on the last label or the blank after it."""
    s = 2 * target_length
    last = alpha[-1, s - 1:s + 1] if target_length else alpha[-1, s:s + 1]
    return -_log_add(*last)


def _samples(lp: np.ndarray, targets: np.ndarray, input_lengths: tuple[int, ...],
             target_lengths: tuple[int, ...]) -> Any:
    """Each sample's ``(frames, target)``: a padded ``(N, S)`` target's row, or the next piece of a 1-D one."""
    start = 0
    for n, (t_len, l_len) in enumerate(zip(input_lengths, target_lengths)):
        if targets.ndim == 2:
            target = targets[n, :l_len]
        else:
            target, start = targets[start:start + l_len], start + l_len
        yield n, lp[:t_len, n], np.asarray(target, dtype=np.int64)


@register_kernel("ctc_loss", Backend.CPU, dtypes=(float32, float64), name="cpu/ctc_loss")
def ctc_loss_cpu(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    out = np.empty(log_probs.shape[1], dtype=log_probs.dtype)
    for n, lp, target in _samples(log_probs, targets, input_lengths, target_lengths):
        if lp.shape[0] == 0:  # no frame: only the empty target has an alignment
            out[n] = -(0.0 if len(target) == 0 else _NEG_INF)
        else:
            out[n] = _nll(_alpha(lp, _extended(target, blank), blank), len(target))
    return out


def _ctc_meta(op: str, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
              zero_infinity: bool = False) -> Any:
    return (log_probs.shape[1],), log_probs.dtype


_ATTRS = (Attr("input_lengths", check=check_shape), Attr("target_lengths", check=check_shape),
          Attr("blank", 0, check_int), Attr("zero_infinity", False, check_bool))

_ctc_loss_op = defop(
    "ctc_loss",
    inputs=("log_probs", Input("targets", differentiable=False)),
    attrs=_ATTRS,
    infer_meta=_ctc_meta,
    save=("log_probs", "targets", "out"),
    key_inputs=(0,),
    amp="deny",
    doc="each sample's CTC negative log-likelihood of its target under (T, N, C) log-probabilities (forward "
        "variables in log space)",
)


@_ctc_loss_op.def_backward
def _ctc_loss_backward(ctx: Any, grad: Any) -> tuple[Any, None]:
    log_probs, targets, nll = ctx.saved()
    a = ctx.attrs
    return ctx.ops.ctc_loss_backward(grad, log_probs, targets, nll, a["input_lengths"], a["target_lengths"],
                                     a["blank"], a["zero_infinity"]), None


@register_kernel("ctc_loss_backward", Backend.CPU, dtypes=(float32, float64), name="cpu/ctc_loss_backward")
def ctc_loss_backward_cpu(grad, log_probs, targets, nll, input_lengths, target_lengths, blank=0, zero_infinity=False):
    out = np.zeros_like(log_probs)  # the frames past a sample's input_length get no gradient
    for n, lp, target in _samples(log_probs, targets, input_lengths, target_lengths):
        if lp.shape[0] == 0 or (zero_infinity and nll[n] == np.inf):
            continue
        ext = _extended(target, blank)
        both = _alpha(lp, ext, blank) + _beta(lp, ext, blank)
        # log sum_{s: l'[s] = c} alpha beta, per frame and class: each class's states gathered, then log-added
        per_class = np.full(lp.shape, _NEG_INF, dtype=lp.dtype)
        for c in np.unique(ext):
            per_class[:, c] = _log_add(*both[:, ext == c].T)
        with np.errstate(invalid="ignore", over="ignore"):  # an infinite loss: nan, as PyTorch's
            out[:lp.shape[0], n] = (np.exp(lp) - np.exp(per_class + nll[n] - lp)) * grad[n]
    return out


_ctc_loss_backward_op = defop(
    "ctc_loss_backward",
    inputs=("grad", "log_probs", Input("targets", differentiable=False), "nll"),
    attrs=_ATTRS,
    infer_meta=lambda op, grad, log_probs, *rest, **attrs: (tuple(log_probs.shape), log_probs.dtype),
    key_inputs=(1,),
    amp="deny",
    doc="ctc_loss's gradient with respect to the logits of its log-probabilities (PyTorch's _ctc_loss_backward)",
)
# PyTorch has no derivative for _ctc_loss_backward: its node is NotImplemented (tracing/node_names.py), and
# refuses when reached.


@_ctc_loss_backward_op.def_backward
def _ctc_loss_backward_backward(ctx: Any, h: Any) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


# -- the function: PyTorch's at::native::ctc_loss ---------------------------------------------------------

def _lengths(name: str, v: Any) -> tuple[int, ...]:
    """``input_lengths``/``target_lengths``: an integral tensor (any shape, read flat), or a tuple/list of ints."""
    if isinstance(v, Tensor):
        if v.dtype.is_floating or v.dtype.is_complex or v.dtype.name == "bool":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(i) for i in np.asarray(v.detach().cpu().numpy()).reshape(-1))
    if isinstance(v, (tuple, list)) and all(_is_int(i) for i in v):
        return tuple(int(i) for i in v)
    raise TypeError(f"ctc_loss(): argument '{name}' must be Tensor or tuple of ints, but got {type_name(v)}")


def _check(log_probs: Tensor, targets: Tensor, il: tuple[int, ...], tl: tuple[int, ...], blank: int) -> None:
    """PyTorch's ``ctc_loss_allocate_outputs`` checks, in its words and order."""
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    if not 0 <= blank < log_probs.shape[-1]:
        raise RuntimeError("blank must be in label range")
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor for argument "
                           f"#1 'log_probs'{where}")
    if targets.ndim not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for argument #2 "
                           f"'targets'{where}")
    t_max, batch = log_probs.shape[0], log_probs.shape[1]
    if len(il) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for name, values in (("target_lengths", tl), ("input_lengths", il)):
        if values and min(values) < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value {min(values)}{where}")
    if targets.ndim == 1 and targets.shape[0] != builtins.sum(tl):
        raise RuntimeError(f"Expected tensor to have size {builtins.sum(tl)} at dimension 0, but got size "
                           f"{targets.shape[0]} for argument #2 'targets'{where}")
    if targets.ndim == 2:
        if targets.shape[0] != batch:
            raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size {targets.shape[0]} "
                               f"for argument #2 'targets'{where}")
        if tl and max(tl) > targets.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets'{where}")
    if il and max(il) > t_max:
        raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {max(il)}{where}")
    if not log_probs.dtype.is_floating or log_probs.dtype.itemsize < 4:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for \'{scalar_type_name(log_probs.dtype.np)}\'')
    if targets.numel():
        values = np.asarray(targets.detach().cpu().numpy())
        c = log_probs.shape[-1]
        if values.min() < 0 or values.max() >= c:
            raise RuntimeError(f"ctc_loss(): target labels must be in [0, {c - 1}], but got "
                               f"{values.min()}..{values.max()}")


_REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


def ctc_loss_functional(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
                        reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """``torch.nn.functional.ctc_loss``: the CTC loss of ``(T, N, C)`` (or unbatched ``(T, C)``) log-probabilities
    and targets padded ``(N, S)`` or concatenated ``(sum(target_lengths),)``; lengths as integral tensors or tuples.

    Example:
        >>> import minigrad as mg
        >>> lp = mg.randn(5, 2, 4).log_softmax(2)
        >>> loss = mg.nn.functional.ctc_loss(lp, mg.tensor([[1, 2], [3, 3]]), (5, 5), (2, 2))
        >>> loss.shape
        minigrad.Size([])
    """
    if isinstance(reduction, int) and not isinstance(reduction, bool):  # torch.ctc_loss's enum
        reduction = _REDUCTION_NAMES.get(reduction, str(reduction))
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    check_tensor("ctc_loss", "log_probs", 0, log_probs)
    check_tensor("ctc_loss", "targets", 1, targets)
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError(f"ctc_loss(): input_lengths and target_lengths must both be Tensors or both tuples of ints, "
                        f"but got {type_name(input_lengths)} and {type_name(target_lengths)}")
    il, tl = _lengths("input_lengths", input_lengths), _lengths("target_lengths", target_lengths)
    blank = check_int("ctc_loss", "blank", 4, blank)
    check_bool("ctc_loss", "zero_infinity", 6, zero_infinity)
    batched = log_probs.ndim == 3
    _check(log_probs if batched else log_probs.detach().unsqueeze(1), targets, il, tl, blank)
    if not batched:
        log_probs = unsqueeze(log_probs, 1)
    res = _ctc_loss_op(log_probs, targets, il, tl, blank, zero_infinity)
    if zero_infinity:
        res = where(eq(res, float("inf")), 0.0, res)
    if reduction == "mean":
        lengths = _clamp_min_op(as_tensor(np.asarray(tl, dtype=res.dtype.np), device=res.device), 1)
        return mean(div(res, lengths))
    if reduction == "sum":
        return sum(res)
    return res if batched else squeeze(res, 0)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
                  reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """``torch.ctc_loss``: ``ctc_loss_functional`` with PyTorch's integer ``reduction`` (0 none, 1 mean, 2 sum).
    Its default is 0, as ``torch.ctc_loss`` 2.13 behaves when the argument is left out."""
    if isinstance(reduction, str):
        raise TypeError(f"ctc_loss(): argument 'reduction' must be int, not {type_name(reduction)}")
    return ctc_loss_functional(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
