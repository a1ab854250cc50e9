"""Attention as PyTorch's ``scaled_dot_product_attention`` runs it: one fused node, or its math path.

``F.scaled_dot_product_attention`` (``nn/functional.py``) picks, as PyTorch's ``sdp_utils`` does:

- **the fused op**, ``scaled_dot_product_attention``, for batched 4-D ``(N, heads, L, E)`` inputs with no
  dropout: one node, named for the kernel PyTorch would run (``ScaledDotProductFlashAttentionForCpuBackward0``
  on a CPU; on a GPU ``ScaledDotProductFlashAttentionBackward0`` for float16/bfloat16 without a mask,
  else ``ScaledDotProductEfficientAttentionBackward0``). Like those kernels it keeps no ``L x S`` matrix
  for the backward: it saves query, key and value, and its formula recomputes the weights
  (``attention_weights``) - the memory view shows the difference from the math path;
- **the math path** (3-D inputs, dropout), a composite of ops whose graph is PyTorch's
  ``_scaled_dot_product_attention_math``: both operands scaled by ``sqrt(scale)``, ``matmul``, the mask
  added in place, ``safe_softmax`` (``SafeSoftmaxBackward0``), dropout, ``matmul``.

``safe_softmax`` is PyTorch's ``_safe_softmax``: a softmax whose rows with nothing to attend (every score
``-inf``) are zeros rather than NaN. The arithmetic on arrays is in ``kernels/attention.py``, shared by
the CPU's kernels and the GPU's (``kernels/gpu/nn.py``).

Example:
    >>> import minigrad as mg
    >>> q = mg.randn(1, 2, 3, 4, requires_grad=True)
    >>> type(mg.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True).grad_fn).__name__
    'ScaledDotProductFlashAttentionForCpuBackward0'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..errors import ShapeError
from ..kernels import attention as math_of
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.strided import laid_out_like
from ._checks import check_bool, check_int
from .activation import softmax_cpu
from .registry import Attr, Input, defop, type_name

__all__: list[str] = []  # the ops are reached through F.scaled_dot_product_attention (and mg.OPS)


def _check_scale(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be float, but got {type_name(v)}")
    return float(v)


# -- safe_softmax ---------------------------------------------------------------------------------------

@register_kernel("safe_softmax", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/safe_softmax")
def safe_softmax_cpu(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """softmax along ``dim``; rows of ``x`` that are all ``-inf`` give zeros."""
    return math_of.safe_rows(np, x, softmax_cpu(x, dim), dim)


safe_softmax = defop("safe_softmax", inputs=("x",), attrs=(Attr("dim", -1, check_int),), infer_meta=im.softmax,
                     save=("out",), amp="deny",
                     doc="softmax whose rows with every value -inf are zeros, not NaN (PyTorch's _safe_softmax: "
                         "attention's math path)")


@safe_softmax.def_backward
def _safe_softmax_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """softmax's: the zero rows have a zero gradient."""
    return (ctx.ops.softmax_backward_data(grad, ctx.saved()[0], ctx.attrs["dim"]),)


# -- the fused op --------------------------------------------------------------------------------------

def _attention_meta(op: str, query: Any, key: Any, value: Any, attn_mask: Any = None, dropped: Any = None,
                    is_causal: bool = False, scale: float = 1.0) -> Any:
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise ShapeError(f"{op}(): query, key and value must be 4-D (N, heads, L, E), but got "
                         f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}")
    if tuple(query.shape[:2]) != tuple(key.shape[:2]) or tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise ShapeError(f"{op}(): query, key and value must have the same batch and heads, but got "
                         f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ShapeError(f"{op}(): query {tuple(query.shape)}, key {tuple(key.shape)} and value "
                         f"{tuple(value.shape)} do not fit")
    if not (query.dtype == key.dtype == value.dtype):
        raise ShapeError(f"{op}(): query, key and value must have the same dtype, but got {query.dtype}, "
                         f"{key.dtype} and {value.dtype}")
    return tuple(query.shape[:-1]) + (value.shape[-1],), query.dtype


_ATTRS = (Attr("is_causal", False, check_bool), Attr("scale", 1.0, _check_scale))


@register_kernel("scaled_dot_product_attention", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/flash_attention")
def attention_cpu(query, key, value, attn_mask=None, dropped=None, is_causal=False, scale=1.0):
    # laid out as the query is, as PyTorch's kernels allocate it (empty_like): multi-head attention's
    # permute of the heads back is then already row-major
    return laid_out_like(np, math_of.attention(np, softmax_cpu, query, key, value, attn_mask, is_causal, scale,
                                               dropped), query)


scaled_dot_product_attention = defop(
    "scaled_dot_product_attention",
    inputs=("query", "key", "value", Input("attn_mask", optional=True, differentiable=False),
            Input("dropped", optional=True, differentiable=False)),
    attrs=_ATTRS,
    infer_meta=_attention_meta,
    save=("query", "key", "value", "attn_mask", "dropped"),
    doc="softmax(query @ key^T * scale + mask) @ value for (N, heads, L, E) inputs, one fused node that keeps "
        "no L x S matrix (PyTorch's flash and memory-efficient attention); ``dropped``, dropout's scaled mask "
        "(a GPU's fused kernels take dropout), multiplies the weights",
)


@scaled_dot_product_attention.def_backward
def _attention_backward(ctx: Any, grad: Any) -> tuple[Any, Any, Any, None, None]:
    """The weights recomputed from query and key (``attention_weights``), then matmul's and softmax's
    gradients: ``dv = p^T g``, ``ds = softmax_backward(g v^T, p) * scale``, ``dq = ds k``, ``dk = ds^T q``
    (with dropout, ``p`` is the dropped weights in the first two products and softmax's own in the third)."""
    saved = iter(ctx.saved())  # a missing optional input saves nothing
    q, k, v = next(saved), next(saved), next(saved)
    mask = next(saved) if ctx.given(3) else None
    dropped = next(saved) if ctx.given(4) else None
    is_causal, scale = ctx.attrs["is_causal"], ctx.attrs["scale"]
    ops = ctx.ops
    p = ops.attention_weights(q, k, mask, is_causal, scale)
    kept = p if dropped is None else ops.mul(p, dropped)
    gv = ops.matmul(kept, grad, transpose_x=True) if ctx.needs(2) else None
    gq = gk = None
    if ctx.needs(0) or ctx.needs(1):
        dkept = ops.matmul(grad, v, transpose_y=True)
        dp = dkept if dropped is None else ops.mul(dkept, dropped)
        ds = ops.mul(ops.softmax_backward_data(dp, p, -1), scale)
        gq = ops.matmul(ds, k) if ctx.needs(0) else None
        gk = ops.matmul(ds, q, transpose_x=True) if ctx.needs(1) else None
    return gq, gk, gv, None, None


def _weights_meta(op: str, query: Any, key: Any, attn_mask: Any = None, is_causal: bool = False,
                  scale: float = 1.0) -> Any:
    return tuple(query.shape[:-1]) + (key.shape[-2],), query.dtype


@register_kernel("attention_weights", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/attention_weights")
def attention_weights_cpu(query, key, attn_mask=None, is_causal=False, scale=1.0):
    return np.ascontiguousarray(math_of.weights(np, softmax_cpu, query, key, attn_mask, is_causal, scale),
                                dtype=query.dtype)


attention_weights = defop(
    "attention_weights",
    inputs=("query", "key", Input("attn_mask", optional=True, differentiable=False)),
    attrs=_ATTRS,
    infer_meta=_weights_meta,
    save=("query", "key", "out"),
    doc="softmax(query @ key^T * scale + mask): the weights the fused attention's backward recomputes",
)


@attention_weights.def_backward
def _attention_weights_backward(ctx: Any, grad: Any) -> tuple[Any, Any, None]:
    """``ds = softmax_backward(g, p) * scale``; ``dq = ds k``, ``dk = ds^T q``."""
    q, k, p = ctx.saved()
    ops = ctx.ops
    ds = ops.mul(ops.softmax_backward_data(grad, p, -1), ctx.attrs["scale"])
    return (ops.matmul(ds, k) if ctx.needs(0) else None,
            ops.matmul(ds, q, transpose_x=True) if ctx.needs(1) else None, None)
