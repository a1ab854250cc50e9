"""A GPU tensor prints its device as PyTorch's does: ``device='cuda:0'`` in its repr, ``cuda:0`` for
``x.device``, so a tutorial run on a GPU prints PyTorch's lines."""

from __future__ import annotations

import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu


def test_a_gpu_tensor_prints_cuda_0() -> None:
    x = mg.ones(2, device="cuda", requires_grad=True)
    assert repr(x) == "tensor([1., 1.], device='cuda:0', requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 2.], device='cuda:0', grad_fn=<MulBackward0>)"
    assert f"Device tensor is stored on: {x.device}" == "Device tensor is stored on: cuda:0"
    assert x.device == "gpu" and x.device.type == "cuda" and x.device.index == 0
    assert mg.ones(1, device=str(x.device)).device == x.device
