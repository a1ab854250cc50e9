"""Functional forms of the layers and losses (``mg.nn.functional``, usually imported as ``F``)."""

from __future__ import annotations

from typing import Any

import warnings

import numpy as np

from .. import ops
from ..random import bernoulli_array, device_draws, generator_arg
from ..kernels.backends import move_array, to_numpy
from ..creation import empty_like, zeros_like
from ..tensor import Tensor
from ..ops.blas import linear
from ..ops.loss import _not_differentiable, check_class_target, nll_loss_nd
from ..ops._constants import kept_constant

__all__ = [
    "relu", "gelu", "sigmoid", "tanh", "softmax", "log_softmax", "cross_entropy", "mse_loss", "linear",
    "dropout", "conv2d", "max_pool2d", "nll_loss", "gumbel_softmax",
]

relu = ops.relu
gelu = ops.gelu
sigmoid = ops.sigmoid
tanh = ops.tanh
conv2d = ops.conv2d
max_pool2d = ops.max_pool2d
from ..ops.loss import mse_loss_functional as mse_loss  # noqa: E402  (broadcasting, legacy flags, weight)
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
        raise ValueError(f"{reduction} is not a valid value for reduction")
    # Every argument is checked before the first op runs (a refused call leaves no node); on a GPU the class
    # indices are checked there, not read on the host (no wait for the device).
    check_class_target("nll_loss", log_probs, target, weight, ignore_index,
                       read=not isinstance(target, Tensor) or target._device == "cpu")
    _not_differentiable("nll_loss_forward", weight=weight)
    # PyTorch's one node: NllLossBackward0 ((C,), (N, C)) or NllLoss2DBackward0 ((N, C, d...))
    return nll_loss_nd(log_probs, target, weight, reduction, ignore_index)


def dropout(x: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` (training only)."""
    if not isinstance(p, (int, float)) or not 0.0 <= p < 1.0:
        if p == 1.0:
            return ops.mul(x, 0.0)
        raise ValueError(f"dropout(): p must be in [0, 1), but got {p!r}")
    if not training or p == 0.0:
        return x
    if x.device != "cpu":  # the scaled mask drawn on the device, in one launch (no copy)
        mask = device_draws("bernoulli", tuple(x.shape), x.dtype.np, x.device, 1.0 - p, 1.0 / (1.0 - p))
        if mask is not None:
            return ops.mul(x, Tensor._make(mask, x.dtype, x.device))
    # PyTorch's CPU dropout: a bernoulli(1 - p) mask from the generator, divided by 1 - p, times x.
    # The mask is laid out like x (empty_like) and filled in memory order: for a transposed x the
    # draws land in the transposed order.
    order = _memory_order(x._data)
    keep = bernoulli_array(generator_arg("dropout", None), 1.0 - p, x.numel())
    if order is None:
        keep = keep.reshape(x.shape)
    else:
        keep = keep.reshape(tuple(x.shape[d] for d in order)).transpose(tuple(np.argsort(order)))
    keep = keep.astype(x.dtype.np) / x.dtype.np.type(1.0 - p)
    mask = Tensor._make(keep if x.device == "cpu" else _move(keep, x.device), x.dtype, x.device)
    return ops.mul(x, mask)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A differentiable sample of a categorical (the Gumbel-softmax): ``softmax((logits + g) / tau)`` with ``g``
    Gumbel(0, 1) noise (``-log`` of exponential draws, PyTorch's numbers for a seed). ``hard=True`` returns the
    one-hot vector of the largest entry whose gradient is the soft sample's (straight through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _memory_order(arr: Any) -> tuple[int, ...] | None:
    """The axes of a dense but permuted (transposed) array from the slowest in memory to the fastest;
    None for a C-contiguous array or one that is not dense (PyTorch lays those masks out in C order)."""
    if arr.ndim < 2 or arr.flags.c_contiguous:
        return None
    order = sorted(range(arr.ndim), key=lambda d: -arr.strides[d])
    step = arr.itemsize
    for d in reversed(order):
        if arr.shape[d] != 1 and arr.strides[d] != step:
            return None
        step *= arr.shape[d]
    return tuple(order)


def _move(arr: Any, device: str) -> Any:
    return move_array(arr, "cpu", device)


# PyTorch's fuller forms (one_hot, embedding, layer_norm, batch_norm, gelu(approximate=),
# softmax(dtype=), cross_entropy with weight / ignore_index / label_smoothing / probabilities).
from ..ops.activation import gelu, log_softmax, softmax  # noqa: E402
from ..ops.blas import bilinear  # noqa: E402
from ..ops.embedding import embedding, embedding_bag, one_hot  # noqa: E402
from ..ops.loss import cross_entropy_loss as cross_entropy  # noqa: E402
from ..ops.normalization import batch_norm, layer_norm  # noqa: E402

__all__ += ["bilinear", "one_hot", "embedding", "embedding_bag", "layer_norm", "batch_norm"]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})


# -- activations, losses, padding, resampling, convolutions, pooling, normalization --
from ..ops import activation as _activation  # noqa: E402

silu = _activation.inplace_form(ops.silu)
leaky_relu = _activation.inplace_form(ops.leaky_relu, inplace_op=_activation.leaky_relu_)
elu = _activation.inplace_form(ops.elu, 1, _activation.elu_)  # F.elu(x, alpha, inplace): selu's scales are not F's
hardtanh = _activation.inplace_form(ops.hardtanh)
hardswish = _activation.inplace_form(ops.hardswish)
hardsigmoid = _activation.inplace_form(ops.hardsigmoid)
softplus = ops.softplus
relu = _activation.inplace_form(ops.relu)  # F.relu(x, inplace=True), as nn.ReLU(inplace=True)
from ..ops.activation import (  # noqa: E402
    celu, glu, logsigmoid, mish, prelu, relu6, selu, softmin, softsign, tanhshrink,
)

__all__ += [
    "silu", "leaky_relu", "elu", "hardtanh", "hardswish", "hardsigmoid", "softplus", "celu", "glu", "logsigmoid",
    "mish", "prelu", "relu6", "selu", "softmin", "softsign", "tanhshrink",
]


def relu_(input: Tensor) -> Tensor:
    """``F.relu_``: ``relu(input, inplace=True)``."""
    return relu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``F.leaky_relu_``: ``leaky_relu(input, negative_slope, inplace=True)`` (``LeakyReluBackward1``)."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.elu_``: ``elu(input, alpha, inplace=True)`` (``EluBackward1``)."""
    return elu(input, alpha, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``F.hardtanh_``: ``hardtanh(input, min_val, max_val, inplace=True)``."""
    return hardtanh(input, min_val, max_val, inplace=True)


__all__ += ["relu_", "leaky_relu_", "elu_", "hardtanh_"]

from ..ops.loss import (  # noqa: E402
    binary_cross_entropy, binary_cross_entropy_with_logits, huber_loss, kl_div, l1_loss, smooth_l1_loss,
)

__all__ += ["binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss", "kl_div", "l1_loss",
            "smooth_l1_loss"]

from ..ops.padding import pad  # noqa: E402
from ..ops.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, avg_pool3d  # noqa: E402
from ..ops.upsampling import interpolate  # noqa: E402


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """The old name of ``interpolate`` (deprecated in PyTorch)."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """``interpolate(mode="nearest")`` (deprecated in PyTorch)."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """``interpolate(mode="bilinear", align_corners=True)`` (deprecated in PyTorch)."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ += ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "avg_pool1d", "avg_pool2d",
            "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d"]

from ..ops.convolution import conv1d, conv_transpose1d, conv_transpose2d, fold, unfold  # noqa: E402

__all__ += ["conv1d", "conv_transpose1d", "conv_transpose2d", "fold", "unfold"]

# the 3-D convolutions and pools (ops/convolution3d.py, ops/pooling3d.py) and max pooling's *_with_indices forms
from ..ops.convolution3d import conv3d, conv_transpose3d  # noqa: E402
from ..ops.pooling3d import (adaptive_avg_pool3d, max_pool1d_with_indices, max_pool2d_with_indices,  # noqa: E402
                             max_pool3d, max_pool3d_with_indices)

__all__ += ["conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "max_pool1d_with_indices",
            "max_pool2d_with_indices", "adaptive_avg_pool3d"]

from ..ops.distance import cosine_similarity, normalize, pairwise_distance  # noqa: E402
from ..ops.normalization import group_norm, instance_norm, rms_norm  # noqa: E402

__all__ += ["cosine_similarity", "normalize", "pairwise_distance", "group_norm", "instance_norm", "rms_norm"]

from ..ops.linalg import pdist  # noqa: E402
from ..ops.activation import celu_, selu_, threshold_  # noqa: E402  (torch.nn.functional's in-place forms)

__all__ += ["pdist", "celu_", "selu_", "threshold_"]

from ..ops.loss import (  # noqa: E402
    cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss, margin_ranking_loss, multi_margin_loss,
    multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
)

__all__ += ["cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
            "multi_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss"]

from ..ops.multilabel_loss import multilabel_margin_loss  # noqa: E402

__all__ += ["multilabel_margin_loss"]

from ..ops.rrelu import rrelu_  # noqa: E402
from ..ops.rrelu import rrelu as _rrelu  # noqa: E402


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """``torch.nn.functional.rrelu``: ``torch.rrelu``, or ``rrelu_`` with ``inplace`` (one op either way)."""
    return rrelu_(input, lower, upper, training) if inplace else _rrelu(input, lower, upper, training)


__all__ += ["rrelu", "rrelu_"]

from ..ops.upsampling import channel_shuffle, pixel_shuffle, pixel_unshuffle  # noqa: E402

__all__ += ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]

# -- attention: the fused op or PyTorch's math path (ops/attention.py) -------------------------------

from ..dtypes import bool_ as _bool  # noqa: E402
from ..ops.attention import safe_softmax as _safe_softmax  # noqa: E402
from ..ops.attention import scaled_dot_product_attention as _fused_attention  # noqa: E402
from ..backends import SDP_ENABLED  # noqa: E402  (the attention kernels allowed: nn.attention.sdpa_kernel)
from ..tracing.node_names import attention_kernel  # noqa: E402  (the fused kernel PyTorch picks, as the node is named)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value``, PyTorch's signature, mask rules and choice of kernel.

    Shapes: query ``(..., L, E)``, key ``(..., S, E)``, value ``(..., S, Ev)`` -> ``(..., L, Ev)``;
    ``scale`` defaults to ``1/sqrt(E)``. ``attn_mask`` broadcasts to ``(..., L, S)``: a bool mask
    says which positions may be attended (False -> ``-inf``), a float mask is added to the
    scores. ``is_causal`` lets position ``i`` see keys ``0..i`` only. ``dropout_p`` drops
    attention weights (always, as PyTorch's functional form does: pass 0 in eval).
    ``enable_gqa`` repeats each key/value head for a group of query heads.

    As PyTorch's ``sdp_utils`` chooses: 4-D ``(N, heads, L, E)`` inputs with the same batch and heads,
    no dropout (on a CPU) and a mask that needs no gradient run the fused op (one node, named for the kernel
    PyTorch runs there; on a GPU not in float64, which its fused kernels do not take); the rest PyTorch's
    math path, a composite (``ops/attention.py``).

    Example:
        >>> import minigrad as mg
        >>> q = k = v = mg.ones(1, 3, 4)
        >>> mg.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        minigrad.Size([1, 3, 4])
    """
    for nm, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{nm}' must be Tensor, "
                            f"but got {type(t).__name__}")
        if t.ndim < 2:
            raise RuntimeError(f"scaled_dot_product_attention(): '{nm}' must be at least 2-D, but got shape "
                               f"{tuple(t.shape)}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention(): query's last dimension ({query.shape[-1]}) must "
                           f"equal key's ({key.shape[-1]})")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention(): key and value must have the same sequence length, "
                           f"but got {key.shape[-2]} and {value.shape[-2]}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"scaled_dot_product_attention(): dropout_p must be in [0, 1], but got {dropout_p}")
    L, S = query.shape[-2], key.shape[-2]
    if attn_mask is not None:
        if not isinstance(attn_mask, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, "
                            f"but got {type(attn_mask).__name__}")
        try:
            np.broadcast_shapes(tuple(attn_mask.shape), tuple(query.shape[:-2]) + (L, S))
        except ValueError:
            raise RuntimeError(f"scaled_dot_product_attention(): attn_mask of shape {tuple(attn_mask.shape)} does "
                               f"not broadcast to the scores' shape {tuple(query.shape[:-2]) + (L, S)}") from None
    scale = 1.0 / float(np.sqrt(query.shape[-1])) if scale is None else float(scale)
    fused = _fused_fits(query, key, value, attn_mask, dropout_p) and SDP_ENABLED[attention_kernel(query, attn_mask)]
    if not fused and not SDP_ENABLED["math"]:  # PyTorch's words: a fused kernel on that does not fit, or none on
        on = ("flash",) if query.device.type == "cpu" else ("flash", "mem_efficient", "cudnn")
        if any(SDP_ENABLED[k] for k in on):
            raise RuntimeError("No available kernel.  Aborting execution.")
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if fused:
        if dropout_p == 0.0:
            return _fused_attention(query, key, value, attn_mask, None, is_causal, scale)
        # a GPU's fused kernels drop weights themselves: the scaled mask drawn there, in one launch
        shape = tuple(query.shape[:-1]) + (key.shape[-2],)
        drawn = device_draws("bernoulli", shape, query.dtype.np, query.device, 1.0 - dropout_p, 1.0 / (1.0 - dropout_p))
        if drawn is not None:  # (None: a dtype the device does not draw; the math path draws on the host)
            dropped = Tensor._make(drawn, query.dtype, query.device)
            return _fused_attention(query, key, value, attn_mask, dropped, is_causal, scale)
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key, value = (_repeat_heads(t, groups) for t in (key, value))
    return _attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale)


def _fused_fits(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float) -> bool:
    """Whether PyTorch would run a fused kernel (the checks of ``sdp_utils_cpp.cpp`` that apply here): 4-D
    inputs, no dropout (on a CPU; a GPU's take it), the same batch and heads, one head size, no empty sequence,
    each last dim dense."""
    return (query.ndim == key.ndim == value.ndim == 4 and (dropout_p == 0.0 or query.device.type != "cpu")
            and tuple(query.shape[:2]) == tuple(key.shape[:2]) == tuple(value.shape[:2])
            and query.shape[-1] == value.shape[-1] and query.shape[-2] > 0 and key.shape[-2] > 0
            and all(t.stride(-1) == 1 for t in (query, key, value))
            and query.dtype == key.dtype == value.dtype and query.dtype.is_floating
            and not (query.device.type != "cpu" and query.dtype.name == "float64")
            and (attn_mask is None or not attn_mask.requires_grad))


def _attention_math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                    is_causal: bool, scale: float) -> Tensor:
    """PyTorch's ``_scaled_dot_product_attention_math``: each operand scaled by ``sqrt(scale)`` (a ``mul.Scalar``,
    ``MulBackward1``), the product, a bool or causal mask made a float one (``-inf`` where hidden) and added
    in place, ``safe_softmax``, dropout, the product with ``value``."""
    root = float(np.sqrt(scale))
    q = ops.OPS["mul_scalar"](query, root)
    scores = ops.matmul(q, ops.OPS["mul_scalar"](ops.transpose(key, -2, -1), root))
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        attn_mask = kept_constant(("causal kept", L, S), lambda: np.tril(np.ones((L, S), dtype=bool)), scores, _bool)
    if attn_mask is not None and attn_mask.dtype.name == "bool":  # PyTorch's convert_boolean_attn_mask
        attn_mask = ops.cast(ops.where(attn_mask, 0.0, float("-inf")), scores.dtype)
    if attn_mask is not None:
        scores.add_(attn_mask)
    weights = _safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return ops.matmul(weights, value)


def _repeat_heads(t: Tensor, groups: int) -> Tensor:
    """``(..., H, S, E)`` -> ``(..., H * groups, S, E)``, each head repeated ``groups`` times in a row."""
    shape = tuple(t.shape)
    expanded = ops.expand(ops.unsqueeze(t, -3), shape[:-2] + (groups,) + shape[-2:])
    return ops.reshape(expanded, shape[:-3] + (shape[-3] * groups,) + shape[-2:])


__all__ += ["scaled_dot_product_attention"]

from ..ops.activation import hardshrink, softshrink, threshold  # noqa: E402

__all__ += ["hardshrink", "softshrink", "threshold"]

from ..ops.normalization import local_response_norm  # noqa: E402
from ..ops.pooling import lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d  # noqa: E402
from ..ops.index_pooling import (adaptive_max_pool1d_with_indices, adaptive_max_pool2d,  # noqa: E402
                                 adaptive_max_pool2d_with_indices, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,
                                 max_unpool1d, max_unpool2d, max_unpool3d)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """``torch.nn.functional.adaptive_max_pool1d``: ``torch.adaptive_max_pool1d``'s values, and its indices with
    ``return_indices``."""
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


__all__ += ["local_response_norm", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_pool1d",
            "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
            "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d"]

from ..ops.dropout import alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout  # noqa: E402

__all__ += ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

from ..ops.grid_sample import affine_grid, grid_sample  # noqa: E402

__all__ += ["affine_grid", "grid_sample"]

from ..ops.ctc_loss import ctc_loss_functional as ctc_loss  # noqa: E402  (torch.ctc_loss, its reduction an int, is mg.ctc_loss)

__all__ += ["ctc_loss"]

from ..ops.fractional_pooling import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: E402
                                      fractional_max_pool3d, fractional_max_pool3d_with_indices)

__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
            "fractional_max_pool3d_with_indices"]


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Any = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """``torch.nn.functional.triplet_margin_with_distance_loss``: ``max(0, margin + d(a, p) - d(a, n))`` with any
    ``distance_function`` (``pairwise_distance`` when ``None``); ``swap`` takes ``min(d(a, n), d(p, n))``. Composite,
    PyTorch's Python op for op (``add``, ``sub``, ``clamp_min``, ``sum``/``mean``).

    Example:
        >>> import minigrad as mg
        >>> a, p, n = mg.zeros(1, 2), mg.ones(1, 2), mg.full((1, 2), 3.0)
        >>> round(mg.nn.functional.triplet_margin_with_distance_loss(a, p, n, margin=3.0).item(), 4)
        0.1716
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not a_dim == p_dim == n_dim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = ops.minimum(dist_neg, distance(positive, negative))
    loss = ops.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return ops.sum(loss)
    return ops.mean(loss) if reduction == "mean" else loss


__all__ += ["triplet_margin_with_distance_loss"]


# -- multi-head attention: PyTorch's multi_head_attention_forward (nn.MultiheadAttention runs it too) --------------

def _pad_last(t: Tensor | None) -> Tensor | None:
    """A float mask with one more key position (0: it may be attended)."""
    if t is None:
        return None
    arr = np.zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype.np)
    zero = Tensor._make(arr if t.device == "cpu" else move_array(arr, "cpu", t.device), t.dtype, t.device)
    return ops.cat([t, zero], -1)


def _float_mask(mask: Tensor | None, name: str, like: Tensor) -> Tensor | None:
    """A bool mask (True: not allowed) as a float ``-inf``/0 constant of ``like``'s dtype; a float mask as is."""
    if mask is None:
        return None
    if mask.dtype is _bool:
        arr = np.where(to_numpy(mask._data), -np.inf, 0.0).astype(like.dtype.np)
        data = arr if like.device == "cpu" else move_array(arr, "cpu", like.device)
        return Tensor._make(data, like.dtype, like.device)
    if not mask.dtype.is_floating:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _check_attention(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any, attn_mask: Any,
                     is_causal: bool, embed_dim: int, kdim: int, vdim: int, num_heads: int,
                     batch_first: bool = False) -> bool:
    """PyTorch's ``_mha_shape_check`` and the shape checks of ``multi_head_attention_forward``, all before the first
    op; whether the query is batched."""
    for nm, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"MultiheadAttention: argument '{nm}' must be a Tensor, but got {type(t).__name__}")
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
                             f"query tensor")
    batched, rank = query.ndim == 3, query.ndim
    form = f"{'batched' if batched else 'unbatched'} ({rank}-D) `query`"
    if key.ndim != rank or value.ndim != rank:
        raise AssertionError(f"For {form}, expected `key` and `value` to be {rank}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != rank - 1:
        raise AssertionError(f"For {form}, expected `key_padding_mask` to be `None` or {rank - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if query.shape[-1] != embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim}, but got {query.shape[-1]}")
    if (embed_dim // num_heads) * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if key.shape[-1] != kdim or value.shape[-1] != vdim:
        raise AssertionError(f"expected key and value of widths {kdim} and {vdim}, but got "
                             f"{key.shape[-1]} and {value.shape[-1]}")
    if key.shape[:-1] != value.shape[:-1]:
        raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:-1])} do not match value's "
                             f"{tuple(value.shape[:-1])}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    bf = batch_first and batched
    L = query.shape[1 if bf else 0]
    S = key.shape[1 if bf else 0]
    N = (query.shape[0 if bf else 1]) if batched else 1
    if attn_mask is not None:
        if attn_mask.ndim == 2 and tuple(attn_mask.shape) != (L, S):
            raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be {(L, S)}.")
        if attn_mask.ndim == 3 and tuple(attn_mask.shape) != (N * num_heads, L, S):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                               f"{(N * num_heads, L, S)}.")
        if attn_mask.ndim not in (2, 3):
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if key_padding_mask is not None and tuple(key_padding_mask.shape) != ((N, S) if batched else (S,)):
        raise AssertionError(f"expected shape of key_padding_mask to be {(N, S) if batched else (S,)}, but got "
                             f"{tuple(key_padding_mask.shape)}")
    return batched


def _in_projection(query: Tensor, key: Tensor, value: Tensor, w: Tensor | None, b: Tensor | None,
                   separate: tuple[Any, Any, Any]) -> tuple[Tensor, Tensor, Tensor]:
    """The input projections, as PyTorch's ``_in_projection_packed``: self-attention is one ``linear`` with
    the packed weight ``w``, its ``(L, N, 3E)`` result seen as ``(3, L, N, E)`` (``unflatten``, ``unsqueeze``,
    ``transpose``, ``squeeze``, ``contiguous``) and selected; a shared key and value one ``linear`` for both. With
    ``w`` None, the ``separate`` q, k, v weights (PyTorch's ``_in_projection``)."""
    if w is None:
        bq, bk, bv = (None, None, None) if b is None else ops.chunk(b, 3, 0)
        wq, wk, wv = separate
        return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    E = query.shape[-1]
    if key is value:
        if query is key:
            proj = _packed(linear(query, w, b), 3, E)
            return proj[0], proj[1], proj[2]
        wq, wkv = ops.split(w, [E, 2 * E])
        bq, bkv = (None, None) if b is None else ops.split(b, [E, 2 * E])
        kv = _packed(linear(key, wkv, bkv), 2, E)
        return linear(query, wq, bq), kv[0], kv[1]
    wq, wk, wv = ops.chunk(w, 3, 0)
    bq, bk, bv = (None, None, None) if b is None else ops.chunk(b, 3, 0)
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def _attention(query: Tensor, key: Tensor, value: Tensor, num_heads: int, in_proj_weight: Tensor | None,
               in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
               dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
               key_padding_mask: Tensor | None, need_weights: bool, attn_mask: Tensor | None,
               separate: tuple[Any, Any, Any], average_attn_weights: bool, is_causal: bool, batched: bool,
               static_k: Tensor | None = None, static_v: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
    """PyTorch's ``multi_head_attention_forward`` after its checks, step for step (its graph is PyTorch's):
    sequence-first ``(L, N, E)`` work, the heads as ``(N * H, L, head_dim)`` batches; with ``need_weights`` the
    scores are ``bmm`` (``baddbmm`` with a mask), ``softmax``, dropout and ``bmm``; without, the heads go to
    ``scaled_dot_product_attention`` as ``(N, H, L, head_dim)``."""
    if not batched:
        same_qk, same_kv = query is key, key is value
        query = ops.unsqueeze(query, 1)
        key = query if same_qk else ops.unsqueeze(key, 1)
        value = key if same_kv else ops.unsqueeze(value, 1)
        if key_padding_mask is not None:
            key_padding_mask = ops.unsqueeze(key_padding_mask, 0)
    L, N, E = query.shape
    H = num_heads
    hd = E // H
    kpm = _float_mask(key_padding_mask, "key_padding_mask", query)
    if is_causal and kpm is None and not need_weights:
        mask = None  # SDPA's is_causal hint stands for the mask
    else:
        mask = _float_mask(attn_mask, "attn_mask", query)
        if kpm is not None:
            is_causal = False
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)
    if mask is not None and mask.ndim == 2:
        mask = ops.unsqueeze(mask, 0)
    if bias_k is not None and bias_v is not None:  # one more key and value, the same for every sample
        k = ops.cat([k, bias_k.repeat(1, N, 1)])
        v = ops.cat([v, bias_v.repeat(1, N, 1)])
        mask, kpm = _pad_last(mask), _pad_last(kpm)
    q = ops.transpose(ops.view(q, (L, N * H, hd)), 0, 1)
    k = _static_or_heads("static_k", static_k, k, N * H, hd)
    v = _static_or_heads("static_v", static_v, v, N * H, hd)
    if add_zero_attn:  # one more all-zero key and value per head
        zeros = ops.fill(ops.getitem(k, (slice(None), slice(0, 1))), 0.0).detach()
        k, v = ops.cat([k, zeros], 1), ops.cat([v, zeros], 1)
        mask, kpm = _pad_last(mask), _pad_last(kpm)
    S = k.shape[1]
    if kpm is not None:  # merged into the mask, one row per (sample, head)
        kpm = ops.reshape(ops.expand(ops.view(kpm, (N, 1, 1, S)), (N, H, 1, S)), (N * H, 1, S))
        mask = kpm if mask is None else ops.add(mask, kpm)
    p = dropout_p
    if need_weights:
        q_scaled = ops.mul(q, float(np.sqrt(1.0 / float(hd))))
        kt = ops.transpose(k, -2, -1)
        scores = ops.bmm(q_scaled, kt) if mask is None else ops.baddbmm(mask, q_scaled, kt)
        weights = ops.softmax(scores, -1)
        if p > 0.0:
            weights = dropout(weights, p, True)
        heads = ops.bmm(weights, v)
        out = linear(ops.reshape(ops.transpose(heads, 0, 1), (L * N, E)), out_proj_weight, out_proj_bias)
        out = ops.view(out, (L, N, out.shape[1]))
        weights = ops.view(weights, (N, H, L, S))
        if average_attn_weights:
            weights = ops.mean(weights, 1)
        if not batched:
            out, weights = ops.squeeze(out, 1), ops.squeeze(weights, 0)
        return out, weights
    if mask is not None:
        mask = ops.unsqueeze(mask, 0) if mask.shape[0] == 1 and mask.ndim == 3 else ops.view(mask, (N, H, -1, S))
    q, k, v = ops.view(q, (N, H, L, hd)), ops.view(k, (N, H, S, hd)), ops.view(v, (N, H, S, hd))
    heads = scaled_dot_product_attention(q, k, v, mask, p, is_causal)
    out = linear(ops.view(ops.permute(heads, (2, 0, 1, 3)).contiguous(), (N * L, E)), out_proj_weight, out_proj_bias)
    out = ops.view(out, (L, N, out.shape[1]))
    return (ops.squeeze(out, 1) if not batched else out), None


def _static_or_heads(name: str, static: Tensor | None, t: Tensor, heads: int, hd: int) -> Tensor:
    """``t`` ``(S, N, E)`` as ``(N * H, S, head_dim)`` batches, or the given ``static_k``/``static_v`` instead."""
    if static is None:
        return ops.transpose(ops.view(t, (t.shape[0], heads, hd)), 0, 1)
    if static.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.shape[0]}")
    if static.shape[2] != hd:
        raise AssertionError(f"expecting {name}.size(2) of {hd}, but got {static.shape[2]}")
    return static


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
        add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
        training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
        k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """``torch.nn.functional.multi_head_attention_forward``: ``MultiheadAttention``'s computation on given weights,
    sequence-first ``(L, N, E)`` (or unbatched ``(L, E)``) inputs; the module runs the same code (``_attention``).

    Example:
        >>> import minigrad as mg
        >>> x, w, b = mg.randn(3, 2, 4), mg.randn(12, 4), mg.zeros(12)
        >>> out, weights = mg.nn.functional.multi_head_attention_forward(
        ...     x, x, x, 4, 2, w, b, None, None, False, 0.0, mg.eye(4), None)
        >>> out.shape, weights.shape
        (minigrad.Size([3, 2, 4]), minigrad.Size([2, 3, 3]))
    """
    batched = _check_attention(query, key, value, key_padding_mask, attn_mask, is_causal, embed_dim_to_check,
                               key.shape[-1], value.shape[-1], num_heads)
    if use_separate_proj_weight:
        for nm, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                      ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {nm} is None")
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    return _attention(query, key, value, num_heads, None if use_separate_proj_weight else in_proj_weight, in_proj_bias,
                      bias_k, bias_v, add_zero_attn, dropout_p if training else 0.0, out_proj_weight, out_proj_bias,
                      key_padding_mask, need_weights, attn_mask, (q_proj_weight, k_proj_weight, v_proj_weight),
                      average_attn_weights, is_causal, batched, static_k, static_v)


def _packed(proj: Tensor, parts: int, width: int) -> Tensor:
    """``(L, N, parts * E)`` as ``(parts, L, N, E)``, row-major (PyTorch's steps, each a node)."""
    return ops.squeeze(ops.transpose(ops.unsqueeze(ops.unflatten(proj, -1, (parts, width)), 0), 0, -2), -2).contiguous()


__all__ += ["multi_head_attention_forward"]
from .._tensor_methods_more import conv_tbc  # noqa: E402  (composite of conv1d; torch.conv_tbc is the same function)
__all__ += ["conv_tbc"]
from ..ops.linear_loss import linear_cross_entropy  # noqa: E402  (chunked with nn.LinearCrossEntropyOptions)

__all__ += ["linear_cross_entropy"]
