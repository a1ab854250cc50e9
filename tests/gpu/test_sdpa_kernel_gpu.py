"""``nn.attention.sdpa_kernel`` on the GPU: the fused node stands for flash attention (float16/bfloat16, no mask)
or memory-efficient attention (the rest); with that kernel off the math composite runs, with math off too
PyTorch's refusal."""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad.nn.attention import SDPBackend, sdpa_kernel

pytestmark = pytest.mark.gpu


def _node(dtype, backends=None, mask=False):
    q = mg.ones(1, 2, 4, 8, device="cuda", dtype=dtype).requires_grad_()
    m = mg.ones(4, 4, dtype=mg.bool, device="cuda") if mask else None
    if backends is None:
        return type(mg.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m).grad_fn).__name__
    try:
        with sdpa_kernel(backends):
            return type(mg.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m).grad_fn).__name__
    except RuntimeError as e:
        return str(e)


def test_the_gpus_fused_kernels_answer_to_their_switches():
    assert _node(mg.float16) == "ScaledDotProductFlashAttentionBackward0"
    assert _node(mg.float32) == "ScaledDotProductEfficientAttentionBackward0"
    assert _node(mg.float16, mask=True) == "ScaledDotProductEfficientAttentionBackward0"
    assert _node(mg.float16, [SDPBackend.FLASH_ATTENTION]) == "ScaledDotProductFlashAttentionBackward0"
    assert _node(mg.float32, [SDPBackend.MATH]) == "UnsafeViewBackward0"
    assert _node(mg.float32, [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]) == "UnsafeViewBackward0"
    assert _node(mg.float32, [SDPBackend.FLASH_ATTENTION]) == "No available kernel.  Aborting execution."
    assert _node(mg.float32, []).startswith("No viable backend for scaled_dot_product_attention was found.")
