"""A custom Function's broadcast gradient on the GPU: summed back to its input's shape on the device, as on the CPU
(PyTorch's ``validate_outputs``), with no copy and no sync."""

from __future__ import annotations

import numpy as np
import pytest

import fake_cupy
import minigrad as mg


class Spread(mg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g.expand(4, 3) * 0.5  # the gradient of a broadcast input: summed back it is 2 g


def _grad(device: str, x: mg.Tensor | None = None) -> mg.Tensor:
    x = mg.tensor([1.0, -2.0, 0.5], device=device, requires_grad=True) if x is None else x
    Spread.apply(x).sum().backward()
    return x.grad


@pytest.mark.gpu
def test_a_broadcast_gradient_is_summed_on_the_gpu_as_on_the_cpu() -> None:
    got = _grad("gpu")
    assert got.device == "gpu"
    np.testing.assert_array_equal(got.cpu().numpy(), _grad("cpu").numpy())


@pytest.mark.gpu
@pytest.mark.skipif(fake_cupy.installed() is None, reason="copies and syncs are counted by the stand-in CuPy")
def test_summing_it_copies_nothing_and_waits_for_nothing() -> None:
    fake = fake_cupy.installed()
    x = mg.tensor([1.0, -2.0, 0.5], device="gpu", requires_grad=True)  # (the program's own upload)
    _grad("gpu", x)
    x.grad = None
    fake.reset_counts()
    _grad("gpu", x)
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
