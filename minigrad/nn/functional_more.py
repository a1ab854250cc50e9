"""More of ``torch.nn.functional``, written with minigrad ops: ``one_hot``, ``embedding``, ``layer_norm``,
``batch_norm``, ``gelu(approximate=)``, ``softmax(dtype=)`` and ``cross_entropy`` with every PyTorch form.

Their gradients are those of the ops they are made of (no formula of their
own). ``cross_entropy`` keeps the fused ``cross_entropy`` op for the common
call (logits ``(N, C)``, class indices, no weight, no smoothing, nothing
ignored) and composes ``log_softmax``, indexing and sums for the rest.

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.one_hot(mg.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import ops
from ..autograd.grad_mode import no_grad
from ..kernels.backends import move_array, to_numpy
from ..tensor import Tensor

__all__ = ["one_hot", "embedding", "layer_norm", "batch_norm", "gelu", "softmax", "log_softmax", "cross_entropy"]


def _const(arr: np.ndarray, like: Tensor, dtype: Any = None) -> Tensor:
    dt = dtype or _dt.from_numpy(arr.dtype)
    data = arr if like.device == "cpu" else move_array(arr, "cpu", like.device)
    return Tensor._make(data, dt, like.device)


def check_class_target(op: str, input: Tensor, target: Tensor, weight: Tensor | None = None,
                       ignore_index: int = -100, probabilities: bool = False) -> np.ndarray | None:
    """Check a classification loss's ``target`` (and ``weight``) against ``input``, as PyTorch does.

    Called before the loss's first op, so a refused call leaves no node behind
    (DESIGN §7). ``input`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``; class
    indices are ``()``/``(1,)``, ``(N,)`` or ``(N, d1, ...)``, integer, each in
    ``[0, C)`` or ``ignore_index``; with ``probabilities`` the target is a float
    tensor of ``input``'s own shape. PyTorch raises ValueError for a batch-size
    mismatch and RuntimeError/IndexError for the rest; minigrad raises ValueError
    (a shape or dtype mismatch, DESIGN §8), in PyTorch's words.

    Returns:
        The class indices as an int64 NumPy array (``None`` for probabilities).

    Example:
        >>> check_class_target("nll_loss", mg.ones(2, 3), mg.tensor([0, 2])).tolist()
        [0, 2]
    """
    for name, v in (("input", input), ("target", target), ("weight", weight)):
        if v is not None and not isinstance(v, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, but got {type(v).__name__}")
    shape, tshape = tuple(input.shape), tuple(target.shape)
    if not shape:
        raise ValueError(f"{op}(): expected 'input' of 1 or more dimensions (got 0)")
    c = shape[0] if len(shape) == 1 else shape[1]
    if weight is not None and tuple(weight.shape) != (c,):
        raise ValueError(f"{op}(): weight tensor should be defined either for all {c} classes or no classes "
                         f"but got weight tensor of shape: {list(weight.shape)}")
    if probabilities:
        if not target.dtype.is_floating:
            raise ValueError(f"{op}(): expected floating point type for target with class probabilities, got {target.dtype}")
        if ignore_index != -100:
            raise ValueError(f"{op}(): ignore_index is not supported for floating point target")
        return None
    if target.dtype.is_floating or target.dtype == _dt.bool_:
        raise ValueError(f"{op}(): expected target dtype to be an integer type (class indices), but got {target.dtype}")
    if len(shape) == 1:
        if len(tshape) > 1 or (len(tshape) == 1 and tshape[0] != 1):
            raise ValueError(f"{op}(): for 1D input, 'target' must be 0-d or have size 1, but got target size: {list(tshape)}")
    else:
        batch = tshape[0] if tshape else 0
        if batch != shape[0]:
            raise ValueError(f"{op}(): Expected input batch_size ({shape[0]}) to match target batch_size ({batch}).")
        want = shape[:1] + shape[2:]
        if tshape != want:
            raise ValueError(f"{op}(): Expected target size {list(want)}, got {list(tshape)}")
    idx = to_numpy(target._data).astype(np.int64)
    bad = (idx != ignore_index) & ((idx < 0) | (idx >= c))
    if np.any(bad):
        raise ValueError(f"{op}(): Target {int(idx[bad].flat[0])} is out of bounds: class indices must be in "
                         f"[0, {c - 1}] or ignore_index")
    return idx


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices ``(...)`` to one-hot rows ``(..., num_classes)`` of int64 (``num_classes=-1``: max + 1)."""
    if not isinstance(tensor, Tensor) or tensor.dtype not in (_dt.int64, _dt.int32):
        raise TypeError("one_hot(): argument 'tensor' must be an integer (int64) Tensor of class indices")
    idx = to_numpy(tensor._data).astype(np.int64)
    n = int(idx.max()) + 1 if num_classes == -1 and idx.size else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"one_hot(): class values must be in [0, {n - 1}], but got {idx.min()}..{idx.max()}")
    return _const(np.eye(n, dtype=np.int64)[idx], tensor, _dt.int64)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None) -> Tensor:
    """Rows of ``weight`` picked by the integer ``input`` (``weight[input]``); the backward scatter-adds
    into the picked rows. Rows at ``padding_idx`` get no gradient, as in PyTorch."""
    if not isinstance(input, Tensor) or input.dtype.is_floating:
        raise TypeError("embedding(): argument 'input' must be an integer Tensor of indices")
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ValueError(f"embedding(): 'weight' must be a 2-D Tensor (num_embeddings, embedding_dim), "
                         f"but got {tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    # Checked before the op: a negative index would otherwise wrap around (weight[-1]), where PyTorch refuses.
    idx, rows = to_numpy(input._data), weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= rows):
        raise ValueError(f"embedding(): index out of range: indices must be in [0, {rows - 1}], "
                         f"but got {idx.min()}..{idx.max()}")
    out = weight[input]
    if padding_idx is not None:
        keep = to_numpy(input._data) != padding_idx
        mask = _const(keep[..., None], weight, _dt.bool_)
        out = ops.where(mask, out, out.detach())
    return out


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims: ``(x - mean) / sqrt(var + eps) * w + b``
    (biased variance, as PyTorch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise ValueError(
            f"layer_norm(): normalized_shape {shape} must match the last dims of the input, of shape {tuple(input.shape)}"
        )
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    mean = ops.mean(input, dim=dims, keepdim=True)
    centered = input - mean
    var = ops.mean(centered * centered, dim=dims, keepdim=True)
    out = centered / ops.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) over the batch and spatial dims.

    Training: the batch's mean and biased variance; the running statistics
    are updated in place with ``momentum`` (the running variance with the
    unbiased estimate, as PyTorch). Evaluation: the running statistics.
    """
    if input.ndim < 2:
        raise ValueError(f"batch_norm(): expected an input with at least 2 dims (N, C, ...), but got {tuple(input.shape)}")
    dims = (0,) + tuple(range(2, input.ndim))
    view = (1, input.shape[1]) + (1,) * (input.ndim - 2)
    if training:
        n = input.numel() // input.shape[1]
        mean = ops.mean(input, dim=dims, keepdim=True)
        centered = input - mean
        var = ops.mean(centered * centered, dim=dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.reshape(-1) * momentum)
                running_var.mul_(1 - momentum).add_(var.reshape(-1) * (momentum * n / max(n - 1, 1)))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm(): running_mean and running_var are needed when training=False")
        mean, var = running_mean.reshape(view), running_var.reshape(view)
        centered = input - mean
    out = centered / ops.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU: exact (``x * Phi(x)``, the ``gelu`` op) or ``approximate='tanh'``
    (``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, GPT-2's form)."""
    if approximate == "none":
        return ops.gelu(input)
    if approximate != "tanh":
        raise ValueError(f"gelu(): argument 'approximate' must be 'none' or 'tanh', but got {approximate!r}")
    inner = (input + input * input * input * 0.044715) * _SQRT_2_OVER_PI
    return input * (ops.tanh(inner) + 1.0) * 0.5


def _cast_for(op: str, x: Tensor, dtype: Any) -> Tensor:
    return x if dtype is None else ops.cast(x, _dt.as_dtype(dtype, f"{op}(): argument 'dtype'"))


def softmax(input: Tensor, dim: int = -1, dtype: Any = None) -> Tensor:
    """Softmax along ``dim``; with ``dtype`` the input is cast first (``softmax(x, -1, dtype=mg.float64)``)."""
    return ops.softmax(_cast_for("softmax", input, dtype), dim)


def log_softmax(input: Tensor, dim: int = -1, dtype: Any = None) -> Tensor:
    """Log-softmax along ``dim`` (stable); with ``dtype`` the input is cast first."""
    return ops.log_softmax(_cast_for("log_softmax", input, dtype), dim)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Softmax cross-entropy, as ``torch.nn.functional.cross_entropy``.

    Args:
        input: logits ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target: class indices ``(N,)`` / ``(N, d1, ...)``, or class probabilities of ``input``'s shape.
        weight: a weight per class ``(C,)``.
        ignore_index: targets equal to it add nothing (and do not count in the mean).
        reduction: ``"mean"`` (weighted mean over the counted targets), ``"sum"`` or ``"none"``.
        label_smoothing: mixes the target with the uniform distribution over classes.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"cross_entropy(): argument 'reduction' must be 'mean', 'sum' or 'none', but got {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy(): label_smoothing must be in [0, 1], but got {label_smoothing}")
    # PyTorch tells the two target kinds apart by shape: probabilities have the input's shape.
    probs = isinstance(target, Tensor) and isinstance(input, Tensor) and input.ndim > 0 and target.shape == input.shape
    # Every argument is checked before the first op runs (a refused call leaves no node).
    idx = check_class_target("cross_entropy", input, target, weight, ignore_index, probabilities=probs)
    simple = (
        weight is None and label_smoothing == 0.0 and input.ndim == 2 and not probs
        and not np.any(idx == ignore_index)
    )
    if simple:
        return ops.cross_entropy(input, target, reduction)
    unbatched = input.ndim == 1
    if unbatched and not probs:
        idx = idx.reshape(1)
    x = ops.unsqueeze(input, 0) if unbatched else input
    t = (ops.unsqueeze(target, 0) if unbatched else target) if probs else None
    c = x.shape[1]
    extra = tuple(x.shape[2:])
    if x.ndim > 2:  # (N, C, d...) -> (N*d..., C)
        rows = int(np.prod((x.shape[0],) + extra))  # not -1: ambiguous when a size is 0
        x = ops.reshape(ops.permute(x, (0,) + tuple(range(2, x.ndim)) + (1,)), (rows, c))
        if probs:
            t = ops.reshape(ops.permute(t, (0,) + tuple(range(2, t.ndim)) + (1,)), (rows, c))
        else:
            idx = idx.reshape(-1)
    logp = ops.log_softmax(x, dim=-1)
    w_row = weight.reshape(1, c) if weight is not None else None
    if probs:
        if label_smoothing:
            t = t * (1.0 - label_smoothing) + label_smoothing / c
        terms = logp * t if w_row is None else logp * t * w_row
        loss = -ops.sum(terms, dim=1)
        denom = float(loss.shape[0])
    else:
        valid = idx != ignore_index
        safe = np.where(valid, idx, 0)
        rows = np.arange(idx.shape[0])
        picked = logp[rows, safe]
        w_t = to_numpy(weight._data)[safe] * valid if weight is not None else valid.astype(np.float64)
        w_t_tensor = _const(w_t.astype(x.dtype.np), x)
        loss = -(picked * w_t_tensor)
        if label_smoothing:
            smooth = -ops.sum(logp if w_row is None else logp * w_row, dim=1)
            smooth = smooth * _const(valid.astype(x.dtype.np), x)
            loss = loss * (1.0 - label_smoothing) + smooth * (label_smoothing / c)
        denom = float(w_t.sum())
    if reduction == "none":
        if unbatched:
            return ops.reshape(loss, ())
        return ops.reshape(loss, (input.shape[0],) + extra) if extra else loss
    total = ops.sum(loss)
    if reduction == "sum":
        return total
    return total / denom if denom else total * float("nan")

