"""Functional forms of the layers and losses (``mg.nn.functional``, usually imported as ``F``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..creation import generator
from ..kernels.backends import move_array, to_numpy
from ..tensor import Tensor
from .functional_more import check_class_target

__all__ = [
    "relu", "gelu", "sigmoid", "tanh", "softmax", "log_softmax", "cross_entropy", "mse_loss", "linear",
    "dropout", "conv2d", "max_pool2d", "nll_loss",
]

relu = ops.relu
gelu = ops.gelu
sigmoid = ops.sigmoid
tanh = ops.tanh
conv2d = ops.conv2d
max_pool2d = ops.max_pool2d
mse_loss = ops.mse_loss
cross_entropy = ops.cross_entropy


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """Softmax along ``dim``."""
    return ops.softmax(x, dim)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """Log-softmax along ``dim`` (stable)."""
    return ops.log_softmax(x, dim)


def nll_loss(log_probs: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` class indices under ``log_probs``.

    ``log_probs`` is ``(N, C)``, ``(C,)`` (one sample) or ``(N, C, d1, ...)`` with ``target``
    ``(N,)``, ``()`` or ``(N, d1, ...)``, as ``torch.nn.functional.nll_loss``. ``weight`` ``(C,)``
    scales each class's terms (the mean divides by the summed weights of the counted targets);
    targets equal to ``ignore_index`` add nothing and do not count.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"nll_loss(): argument 'reduction' must be 'mean', 'sum' or 'none', but got {reduction!r}")
    # Every argument is checked before the first op runs (a refused call leaves no node).
    idx = check_class_target("nll_loss", log_probs, target, weight, ignore_index)
    nd = log_probs.ndim
    expected = () if nd == 1 else (log_probs.shape[0],) + tuple(log_probs.shape[2:])
    idx = idx.reshape(-1)
    if nd == 1:  # one sample: pick its class
        x = ops.unsqueeze(log_probs, 0)
    elif nd > 2:  # (N, C, d...) -> (N*d..., C): the classes last, one row per position
        rows = int(np.prod(expected))  # not -1: ambiguous when a size is 0
        x = ops.reshape(ops.permute(log_probs, (0,) + tuple(range(2, nd)) + (1,)), (rows, log_probs.shape[1]))
    else:
        x = log_probs
    valid = idx != ignore_index
    safe = np.where(valid, idx, 0)
    w = (to_numpy(weight._data)[safe] if weight is not None else np.ones(idx.shape)) * valid
    w_arr = np.asarray(w, dtype=x.dtype.np)
    w_t = Tensor._make(w_arr if x.device == "cpu" else move_array(w_arr, "cpu", x.device), x.dtype, x.device)
    loss = ops.neg(ops.mul(ops.getitem(x, (_rows(x), safe)), w_t))
    if reduction == "none":
        return ops.reshape(loss, expected)
    total = ops.sum(loss)
    if reduction == "sum":
        return total
    return ops.div(total, float(w.sum())) if w.sum() else ops.mul(total, float("nan"))


def _rows(x: Tensor) -> Any:
    return np.arange(x.shape[0])


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias`` (weight is (out_features, in_features), as in PyTorch)."""
    out = ops.matmul(x, weight, transpose_y=True)
    return out if bias is None else ops.add(out, bias)


def dropout(x: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` (training only)."""
    if not isinstance(p, (int, float)) or not 0.0 <= p < 1.0:
        if p == 1.0:
            return ops.mul(x, 0.0)
        raise ValueError(f"dropout(): p must be in [0, 1), but got {p!r}")
    if not training or p == 0.0:
        return x
    keep = (generator().random(x.shape) >= p).astype(x.dtype.np) / (1.0 - p)
    mask = Tensor._make(keep if x.device == "cpu" else _move(keep, x.device), x.dtype, x.device)
    return ops.mul(x, mask)


def _move(arr: Any, device: str) -> Any:
    return move_array(arr, "cpu", device)


# PyTorch's fuller forms (one_hot, embedding, layer_norm, batch_norm, gelu(approximate=),
# softmax(dtype=), cross_entropy with weight / ignore_index / label_smoothing / probabilities).
from .functional_more import (  # noqa: E402
    batch_norm, cross_entropy, embedding, gelu, layer_norm, log_softmax, one_hot, softmax,
)

__all__ += ["one_hot", "embedding", "layer_norm", "batch_norm"]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
