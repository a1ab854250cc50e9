"""``pin_memory()`` and ``non_blocking=`` where no GPU is usable: PyTorch's answers (its CPU build is the oracle).

Where a GPU is, ``tests/gpu/test_no_hidden_sync.py`` checks that a pinned tensor's ``non_blocking`` copy is
the one copy the host does not wait for.
"""

from __future__ import annotations

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.torch,
              pytest.mark.skipif(mg.is_gpu_available(), reason="the answers of a machine without a GPU")]


def _raised(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - compared with PyTorch's
        return type(exc), str(exc)
    return None


def test_pinning_without_an_accelerator_is_refused_in_pytorchs_words():
    assert _raised(lambda: mg.ones(2).pin_memory()) == _raised(lambda: torch.ones(2).pin_memory())
    assert _raised(lambda: mg.ones(2).pin_memory()) is not None


def test_nothing_is_pinned_and_a_non_blocking_copy_to_the_cpu_is_a_move():
    assert mg.ones(2).is_pinned() is torch.ones(2).is_pinned() is False
    x = mg.ones(2, requires_grad=True)
    assert x.to("cpu", non_blocking=True) is x and x.to(mg.float64, non_blocking=True).dtype == mg.float64


def test_bfloat16_is_not_offered_on_the_gpu():
    """nanoGPT picks its autocast dtype by asking: minigrad's GPU has no bfloat16 kernels."""
    assert mg.cuda.is_bf16_supported() is False
