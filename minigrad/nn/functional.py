"""Functional forms of the layers and losses (``mg.nn.functional``, usually imported as ``F``)."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..tensor import Tensor, generator

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


def nll_loss(log_probs: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of ``target`` class indices under ``log_probs`` (N, C)."""
    picked = ops.getitem(log_probs, (_rows(log_probs), target))
    loss = ops.neg(picked)
    if reduction == "none":
        return loss
    return ops.sum(loss) if reduction == "sum" else ops.mean(loss)


def _rows(x: Tensor) -> Any:
    import numpy as np

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
    import numpy as np

    keep = (generator().random(x.shape) >= p).astype(x.dtype.np) / (1.0 - p)
    mask = Tensor._make(keep if x.device == "cpu" else _move(keep, x.device), x.dtype, x.device)
    return ops.mul(x, mask)


def _move(arr: Any, device: str) -> Any:
    from ..kernels.backends import move_array

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
