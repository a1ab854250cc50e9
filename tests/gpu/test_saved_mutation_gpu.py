"""``allow_mutation_on_saved_tensors`` on the GPU: the clone is made on the device, with no copy and no sync,
and the gradient equals the CPU's."""

from __future__ import annotations

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

A = np.array([0.5, -1.0, 2.0])


def _run(device: str, a: mg.Tensor | None = None) -> mg.Tensor:
    a = mg.tensor(A, device=device, requires_grad=True) if a is None else a
    with mg.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        b = a * 1
        out = (b ** 2).sum()
        b.sin_()
        out.backward()
        assert len(ctx.cloned) == 1
    return a.grad


@pytest.mark.gpu
def test_the_gradient_on_the_gpu_equals_the_cpus() -> None:
    got = _run("gpu")
    assert got.device == "gpu"
    np.testing.assert_array_equal(got.cpu().numpy(), _run("cpu").numpy())


@pytest.mark.gpu
@pytest.mark.skipif(fake_cupy.installed() is None, reason="copies and syncs are counted by the stand-in CuPy")
def test_the_clone_copies_nothing_to_the_host_and_waits_for_nothing() -> None:
    fake = fake_cupy.installed()
    a = mg.tensor(A, device="gpu", requires_grad=True)  # (the program's own upload)
    _run("gpu", a)
    a.grad = None
    fake.reset_counts()
    _run("gpu", a)
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
