"""GPU tests: ``@pytest.mark.gpu`` tests run only where CuPy imports and a CUDA device exists."""

from __future__ import annotations

import pytest

import minigrad as mg


@pytest.fixture(autouse=True)
def _skip_without_gpu(request):
    if request.node.get_closest_marker("gpu") is not None and not mg.is_gpu_available():
        pytest.skip("needs CuPy and a CUDA device (pip install -e \".[gpu]\" on a machine with an NVIDIA GPU)")


@pytest.fixture(autouse=True)
def _no_checks_left_behind():
    """A device-side check a test left failing would be reported at the next test's first sync."""
    yield
    import sys

    runtime = sys.modules.get("minigrad.kernels.gpu._runtime")
    if runtime is not None:
        runtime._PENDING.clear()


@pytest.fixture
def gpudnn_flag():
    """Restore ``mg.flags.use_gpudnn`` after a test that changes it."""
    saved = mg.flags.use_gpudnn
    yield
    mg.flags.use_gpudnn = saved



@pytest.fixture
def sync_mode():
    """Put ``mg.cuda.set_sync_debug_mode`` back to ``"default"`` after a test that changes it."""
    yield
    mg.cuda.set_sync_debug_mode("default")
