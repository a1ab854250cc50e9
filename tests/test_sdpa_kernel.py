"""``nn.attention.sdpa_kernel`` and ``backends.cuda``'s attention switches against PyTorch's CPU: which kernel
``scaled_dot_product_attention`` runs (the node it makes), and PyTorch's refusal when none may run."""

from __future__ import annotations

import importlib
import warnings

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CHOICES = {"default": None, "math": ["MATH"], "flash": ["FLASH_ATTENTION"], "efficient": ["EFFICIENT_ATTENTION"],
           "cudnn": ["CUDNN_ATTENTION"], "none": [], "math and flash": ["MATH", "FLASH_ATTENTION"],
           "one backend, not a list": "MATH"}


def _run(L, choice, shape):
    A = importlib.import_module(f"{L.__name__}.nn.attention")
    q = L.ones(*shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch says why a fused kernel is not used)
        try:
            if choice is None:
                y = L.nn.functional.scaled_dot_product_attention(q, q, q)
            else:
                backends = getattr(A.SDPBackend, choice) if isinstance(choice, str) else [
                    getattr(A.SDPBackend, c) for c in choice]
                with A.sdpa_kernel(backends):
                    y = L.nn.functional.scaled_dot_product_attention(q, q, q)
        except RuntimeError as e:
            return f"RuntimeError: {e}"
    return type(y.grad_fn).__name__


@pytest.mark.parametrize("shape", [(1, 2, 4, 8), (2, 4, 8)], ids=["4-D", "3-D"])
@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_sdpa_kernel_picks_pytorchs_kernel(choice: str, shape) -> None:
    assert _run(mg, CHOICES[choice], shape) == _run(torch, CHOICES[choice], shape)


def test_the_switches_come_back_after_the_block_and_the_old_context_warns() -> None:
    for L in (torch, mg):
        A = importlib.import_module(f"{L.__name__}.nn.attention")
        with A.sdpa_kernel([A.SDPBackend.MATH]):
            assert not L.backends.cuda.flash_sdp_enabled() and L.backends.cuda.math_sdp_enabled()
        assert L.backends.cuda.flash_sdp_enabled() and L.backends.cuda.mem_efficient_sdp_enabled()
        with pytest.warns(FutureWarning, match=r"`torch.backends.cuda.sdp_kernel\(\)` is deprecated"):
            with L.backends.cuda.sdp_kernel(enable_math=False):
                assert not L.backends.cuda.math_sdp_enabled()
        assert L.backends.cuda.math_sdp_enabled()
        L.backends.cuda.enable_flash_sdp(False)
        try:
            assert not L.backends.cuda.flash_sdp_enabled()
        finally:
            L.backends.cuda.enable_flash_sdp(True)
        with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend or a list of SDPBackend "
                                                 "instances, got str"):
            with A.sdpa_kernel("math"):
                pass
