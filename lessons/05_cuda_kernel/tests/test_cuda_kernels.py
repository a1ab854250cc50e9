"""Lesson 5 tests: run on a machine with CuPy and a CUDA device; skipped (with the reason) elsewhere."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg


def no_gpu_reason() -> str:
    """Why the tests skip, and exactly what to run, where, to enable them."""
    # The grader runs these tests on a copy; it names the student's real folder.
    folder = Path(os.environ.get("MINIGRAD_STUDENT_FOLDER") or Path(__file__).resolve().parents[1])
    grade = f"then, in the folder {folder.parent}, run `minigrad lessons grade {folder.name}`"
    if importlib.util.find_spec("cupy") is None:
        return (f"lesson 5 needs CuPy and an NVIDIA GPU. On a machine with one, run "
                f"`{sys.executable} -m pip install 'cupy-cuda13x>=14'` in any folder (for a CUDA 12 driver, "
                f"as `nvidia-smi` shows: 'cupy-cuda12x>=13'), {grade}")
    return (f"lesson 5 needs an NVIDIA GPU: CuPy is installed but finds no CUDA device here. "
            f"Copy {folder} to a machine with a GPU, install minigrad and CuPy there, {grade}")


@pytest.fixture
def cp():
    if not mg.is_gpu_available():
        pytest.skip(no_gpu_reason())
    import cupy

    return cupy


@pytest.fixture
def kernels(student):
    return student.cuda_kernels


def softplus_ref(x, beta=1.0, threshold=20.0):
    bx = beta * x.astype(np.float64)
    return np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta)


@pytest.mark.lesson5_task1
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softplus_values(cp, kernels, dtype):
    x = np.linspace(-30, 30, 1001).astype(dtype)
    y = kernels.softplus_gpu(cp.asarray(x))
    assert isinstance(y, cp.ndarray) and y.dtype == dtype and y.shape == x.shape
    np.testing.assert_allclose(cp.asnumpy(y), softplus_ref(x), rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-7)


@pytest.mark.lesson5_task1
def test_softplus_beta_threshold_and_large_inputs(cp, kernels):
    x = np.array([-1000.0, -2.0, 0.0, 3.0, 6.0, 1000.0])
    y = cp.asnumpy(kernels.softplus_gpu(cp.asarray(x), beta=2.0, threshold=10.0))
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y, softplus_ref(x, 2.0, 10.0), rtol=1e-12)


@pytest.mark.lesson5_task1
def test_softplus_is_minigrads_gpu_kernel(cp, kernels):
    kernels.register()
    try:
        x = mg.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        with mg.trace() as tr:
            y = mg.softplus(x.to("gpu"))
        (sel,) = [e for e in tr.events if e.kind == "kernel.select" and e.op == "softplus"]
        assert (sel.kernel, sel.backend, sel.fallback_cpu) == ("gpu/softplus_gpu", "GPU", False)
        np.testing.assert_allclose(y.detach().cpu().numpy(), softplus_ref(np.array([-1.0, 0.0, 2.0])), rtol=1e-5)
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0]))), rtol=1e-5)
    finally:
        kernels.unregister()


@pytest.mark.lesson5_task2
@pytest.mark.parametrize("shape", [(1, 1), (3, 1000), (64, 7), (5, 4099), (0, 3)])
def test_row_sums(cp, kernels, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    out = kernels.row_sum_gpu(cp.asarray(x))
    assert isinstance(out, cp.ndarray) and out.shape == (shape[0],) and out.dtype == np.float32
    np.testing.assert_allclose(cp.asnumpy(out), x.sum(axis=1, dtype=np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.lesson5_task2
def test_row_sums_of_a_non_contiguous_view(cp, kernels):
    x = np.arange(60, dtype=np.float32).reshape(6, 10)
    out = kernels.row_sum_gpu(cp.asarray(x).T)  # a transposed view: 10 rows of 6
    np.testing.assert_allclose(cp.asnumpy(out), x.T.sum(axis=1), rtol=1e-6)
