"""Shared fixtures: every test starts with default flags, grad mode on and no recorder.

NOTE [ PyTorch's oracle on any x86 CPU ]
    PyTorch's CPU answers depend on the CPU under it, in the last bits: on an AVX-512 machine MKL's
    ``vdSqrt`` (``x ** 0.5``) is 1 ulp off the rounded root and its LU's fused multiply-adds leave a
    singular matrix a tiny pivot where an exact zero was (``slogdet``'s gradient finite, not inf), and
    oneDNN's float32 GELU is a polynomial 1e-4 off near -3 (``nn.GELU`` printing -0.0041 for -0.0040) and NaN
    at +inf. minigrad follows PyTorch's portable paths, so the tests pin the oracle there, for every
    process they start too: MKL's reproducible code path (``MKL_CBWR=COMPATIBLE``) and oneDNN's AVX2 kernels
    (``ONEDNN_MAX_CPU_ISA=AVX2``). Set before anything loads MKL or oneDNN; a value already in the
    environment is kept.
"""

from __future__ import annotations

import os

import sys

os.environ.setdefault("MKL_CBWR", "COMPATIBLE")
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")

# The stand-in CuPy (tests/gpu/fake_cupy.py) in a run with MINIGRAD_FAKE_CUPY=1, for every test it collects: the
# GPU suite (tests/gpu/test_emulated_gpu.py starts it so), the fuzzer's and the conformance suite's device modes.
if os.environ.get("MINIGRAD_FAKE_CUPY") == "1":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "gpu"))
    import fake_cupy

    fake_cupy.install()

import pytest  # noqa: E402  (after the pins and the stand-in above)

import minigrad as mg  # noqa: E402
from minigrad.autograd.grad_mode import GRAD_MODE  # noqa: E402
from minigrad.tracing import bus  # noqa: E402


@pytest.fixture(autouse=True)
def _clean_state():
    names = ("enable_api_kernel_fallback", "use_gpudnn", "retain_grad_for_all_tensor", "deterministic_algorithms",
             "deterministic_warn_only", "fill_uninitialized_memory")
    flags = {n: getattr(mg.flags, n) for n in names}
    yield
    GRAD_MODE.enabled = True
    for n, v in flags.items():
        setattr(mg.flags, n, v)
    while bus._stack:
        bus.pop(bus._stack[-1])
