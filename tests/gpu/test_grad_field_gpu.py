"""``.grad`` on the GPU: a gradient on another device is refused in PyTorch's words; one on the tensor's device
is kept through ``requires_grad_(False)``."""

from __future__ import annotations

import pytest

import minigrad as mg


@pytest.mark.gpu
def test_a_gradient_on_another_device_is_refused() -> None:
    x = mg.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient with device type 'cpu' to a tensor with "
                                           r"device type 'cuda'\. Please ensure that the gradient and the tensor are "
                                           r"on the same device$"):
        x.grad = mg.ones(2)
    y = mg.ones(2)
    with pytest.raises(RuntimeError, match="device type 'cuda' to a tensor with device type 'cpu'"):
        y.grad = mg.ones(2, device="cuda")


@pytest.mark.gpu
def test_a_gpu_gradient_stays_when_the_tensor_stops_requiring_grad() -> None:
    w = mg.ones(3, device="cuda", requires_grad=True)
    (w * 4).sum().backward()
    w.requires_grad_(False)
    assert w.grad.device == "cuda" and w.grad.cpu().tolist() == [4.0, 4.0, 4.0]
