"""Shared fixtures: every test starts with default flags, grad mode on and no recorder."""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad.autograd.grad_mode import GRAD_MODE
from minigrad.tracing import bus


@pytest.fixture(autouse=True)
def _clean_state():
    flags = (mg.flags.enable_api_kernel_fallback, mg.flags.use_gpudnn, mg.flags.retain_grad_for_all_tensor)
    yield
    GRAD_MODE.enabled = True
    (mg.flags.enable_api_kernel_fallback, mg.flags.use_gpudnn, mg.flags.retain_grad_for_all_tensor) = flags
    while bus._stack:
        bus.pop(bus._stack[-1])
