"""Run the GPU kernel tests against the emulated CuPy (``fake_cupy.py``) where no GPU exists.

This exercises everything on the Python side of the GPU backend on CPU-only
CI: kernel registration and selection, argument marshalling checked against
the CUDA signatures, strides, chunked reductions, batched matmul, fallbacks
and backward on the device. It does not execute the CUDA C (nvcc compiles it
in ``test_cuda_sources.py``; only a real GPU runs it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad as mg

HERE = Path(__file__).resolve().parent


def _passes_on_the_stand_in(paths: list[Path], *options: str, timeout: int = 600, **env: str) -> None:
    """pytest on ``paths`` in a subprocess with the stand-in CuPy (and ``env``): it must pass, nothing skipped."""
    env = dict(os.environ, MINIGRAD_FAKE_CUPY="1", **env)
    env.pop("PYTEST_XDIST_WORKER", None)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *options, *map(str, paths)],
        cwd=HERE.parents[1], env=env, capture_output=True, text=True, timeout=timeout,
    )
    tail = (r.stdout + r.stderr)[-4000:]
    assert r.returncode == 0, tail
    assert " passed" in tail and "skipped" not in tail.splitlines()[-1], tail


@pytest.mark.skipif(mg.is_gpu_available(), reason="a real GPU runs test_gpu_kernels.py directly")
def test_gpu_suite_on_emulated_cupy():
    _passes_on_the_stand_in([HERE / "test_gpu_kernels.py"])


@pytest.mark.skipif(mg.is_gpu_available(), reason="a real GPU runs test_no_hidden_sync.py directly")
def test_steady_steps_copy_nothing_on_emulated_cupy():
    """tests/gpu/test_no_hidden_sync.py and test_device_random.py with the stand-in: zero copies and syncs
    a step, launch budgets, device.copy/device.sync events, the sync debug mode, draws and factories made
    on the device."""
    _passes_on_the_stand_in([HERE / "test_no_hidden_sync.py", HERE / "test_device_random.py"])


@pytest.mark.skipif(mg.is_gpu_available(), reason="a device runs it directly (scripts/gpu_device_check.sh, conform)")
def test_opinfo_reference_inputs_on_emulated_cupy():
    """tests/test_conformance.py's device mode on the stand-in: PyTorch's OpInfo reference inputs with
    minigrad's side on the GPU - every output there, values and gradients PyTorch's float64 CPU ones."""
    pytest.importorskip("torch")
    _passes_on_the_stand_in([HERE.parent / "test_conformance.py"], "-W", "ignore", "--tb=line", timeout=1500,
                            MINIGRAD_CONFORMANCE_DEVICE="gpu")


def test_emulator_rejects_mismatched_arguments():
    """The emulator is strict: a wrong scalar type or a host array is an error."""
    import numpy as np

    import fake_cupy
    from minigrad.kernels.gpu import cuda_src

    mod = fake_cupy.RawModule(code=cuda_src.ew_source("add", "float32", "binary"))
    fn = mod.get_function("mg_ew_add_f32_contig")
    x = np.ones(4, np.float32).view(fake_cupy.ndarray)
    out = np.empty(4, np.float32).view(fake_cupy.ndarray)
    fn((1,), (256,), (x, x, out, np.int64(4)))
    assert (out == 2).all()
    with pytest.raises(AssertionError, match="int64"):
        fn((1,), (256,), (x, x, out, np.int32(4)))
    with pytest.raises(AssertionError, match="host"):
        fn((1,), (256,), (np.ones(4, np.float32), x, out, np.int64(4)))
    with pytest.raises(AssertionError, match="float"):
        fn((1,), (256,), (x.astype(np.float64), x, out, np.int64(4)))
    with pytest.raises(AssertionError, match="arguments"):
        fn((1,), (256,), (x, x, out))


def test_stand_in_arrays_have_cupys_base():
    """The stand-in's ``base`` is CuPy's, which the dygraph layer reads to tell a view from a copy:
    ``as_strided`` gives a new array over the same memory whose ``base`` is None
    (cupy/lib/stride_tricks.py), a view's ``base`` is its root, a copy's is None."""
    import numpy as np

    import fake_cupy

    x = fake_cupy.asarray(np.arange(12.0)).reshape(3, 4)
    root = x.base
    assert root is not None and root.base is None
    assert x[1:].base is root and x[1:][:, ::2].base is root and x.swapaxes(0, 1).base is root
    assert x[0, 1].shape == () and x[0, 1].base is root  # integer indexing: a 0-d view, as CuPy's
    strided = fake_cupy.as_strided(x, (3,), (40,))
    assert strided.base is None and np.shares_memory(strided, x)
    assert strided.view().base is strided
    assert x.swapaxes(0, 1).reshape(-1).base is None  # reshape had to copy
    assert x[np.array([0, 2])].base is None
    empty = fake_cupy.asarray(np.zeros(0))
    assert fake_cupy.broadcast_to(empty, (2, 0)).base is empty  # a view though it holds no element
    row = fake_cupy.broadcast_to(x[:1], (2, 4))
    assert row.base is root and row.flags.writeable  # CuPy has no read-only arrays
    assert fake_cupy._wrap(np.squeeze)(fake_cupy.asarray(np.zeros((1, 0)))).base is not None  # a NumPy view, empty
    v = fake_cupy.asarray(np.arange(3.0))
    assert v.T is v and x.T.base is root  # CuPy's T of fewer than 2 dims: the array itself (cupy/_core/core.pyx)
    with pytest.raises(ValueError, match="Axis out of range"):
        fake_cupy.swapaxes(fake_cupy.asarray(np.float64(1.0)), 0, -1)
    with pytest.raises(ValueError, match="same ndim"):
        fake_cupy.concatenate([fake_cupy.asarray(np.zeros(0)), x])


def test_emulator_refuses_a_float16_read_that_skips_mg_load():
    """A float16 is stored as its raw 16-bit pattern (``unsigned short``): ``(ACC)x[i]`` converts the pattern as
    an integer (var/std of float16 read their rows' first element so: 71.1 for 1.19 on a device). The stand-in,
    whose NumPy reads float16 values, refuses such a read in the source; every generated kernel passes."""
    import re

    import fake_cupy
    from minigrad.kernels.gpu import conv_src, cuda_src, optim_src

    prelude = "typedef float ACC;\ntypedef unsigned short TS;\n"
    for body in ("out[0] = (ACC)x[0];", "const TS* s = x; out[0] = (float)s[1];", "ACC v = x[2]; out[0] = v;"):
        code = prelude + 'extern "C" __global__ void mg_bad(const unsigned short* x, float* out) { ' + body + " }"
        with pytest.raises(AssertionError, match="raw bits"):
            fake_cupy.RawModule(code=code).get_function("mg_bad")
    good = prelude + ('extern "C" __global__ void mg_good(const unsigned short* x, unsigned short* out) '
                      '{ out[0] = x[0]; }')
    fake_cupy.RawModule(code=good).get_function("mg_good")  # a copy of the raw bits is fine
    for _, code in [*cuda_src.all_sources(), *conv_src.all_sources(), *optim_src.all_sources()]:
        for name in re.findall(r'extern "C" __global__ void (\w+)\(', code):
            fake_cupy._check_half_reads(code, name)


def test_stand_in_fma_rounds_once():
    """``fake_cupy.fma``, the device's fused ``a * b + c``, is the exact value rounded once (checked with
    fractions), cancellation included: the rounding that gives an exactly singular matrix a pivot of ``eps``."""
    from fractions import Fraction

    import numpy as np

    import fake_cupy

    rng = np.random.default_rng(5)
    a = rng.normal(size=400) * np.exp2(rng.integers(-20, 20, 400))
    b = rng.normal(size=400)
    c = np.concatenate([-(a[:200] * b[:200]) * (1 + rng.normal(size=200) * 1e-15), rng.normal(size=200)])
    got = fake_cupy.fma(a, b, c)
    assert [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)] == got.tolist()
    assert fake_cupy.fma(np.float64(-2 / 3), 6.0, 4.0) == 2.0 ** -52 and (-2 / 3) * 6.0 + 4.0 == 0.0
    f32 = fake_cupy.fma(*(x.astype(np.float32) for x in (a, b, c)))
    assert f32.dtype == np.float32
    assert f32.tolist() == [float(np.float32(Fraction(float(np.float32(x))) * Fraction(float(np.float32(y))) +
                                                Fraction(float(np.float32(z)))))
                            for x, y, z in zip(a, b, c)]


def test_stand_in_linalg_gives_the_devices_numbers():
    """What the H200 gave (CuPy 14.2), from the stand-in's LU: ``inv``/``solve``
    of the all-NaN matrix (cuSOLVER reads a NaN of the column it eliminates as 0); ``det`` of an exactly singular
    matrix, factored transposed as CuPy does and rounded by the fused update: ``-3 eps``, not 0 (the device's
    backward of ``det`` there came out as the stand-in's, to the last bit) (that of its
    transpose is 0); values as NumPy's elsewhere."""
    import numpy as np

    import fake_cupy

    nan = np.full((2, 2), np.nan)
    inv = fake_cupy.linalg_inv(nan)
    assert np.isnan(inv[0]).all() and np.isnan(inv[1, 0]) and inv[1, 1] == np.inf
    x = fake_cupy.linalg_solve(nan, np.ones(2))
    assert np.isnan(x[0]) and x[1] == np.inf
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    assert np.isclose(fake_cupy.linalg_det(singular), -3 * 2.0 ** -52, rtol=1e-12, atol=0)  # (sign * exp(logdet))
    assert fake_cupy.linalg_det(singular.T.copy()) == 0
    assert fake_cupy.linalg_slogdet(singular.T.copy()) == (0, -np.inf)
    a = np.random.default_rng(6).normal(size=(3, 4, 4))
    b = np.random.default_rng(7).normal(size=(3, 4, 2))
    np.testing.assert_allclose(fake_cupy.linalg_inv(a), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(fake_cupy.linalg_inv(np.asfortranarray(a[0])), np.linalg.inv(a[0]), rtol=1e-10)
    np.testing.assert_allclose(fake_cupy.linalg_solve(a, b), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(fake_cupy.linalg_det(a), np.linalg.det(a), rtol=1e-10)


def test_stand_in_refuses_host_operands_as_cupy_does():
    """A NumPy array, a 0-d one too, given to a CuPy ufunc, an operator or ``cupy.where`` is refused with
    CuPy's ``TypeError`` (cupy/_core/_kernel.pyx wraps it as a scalar, which _scalar.pyx refuses); NumPy
    and Python scalars are taken. A host array of one or more dims written through a basic index is CuPy's
    ``fill`` refusal; through an index array it is uploaded. (``where`` of a 0-d host mask in the GPU
    ``index_put`` passed here and failed on a device: ``x[x > 0] = 0.5`` for a 0-d ``x``.)"""
    import numpy as np

    import fake_cupy

    where, add, maximum = (fake_cupy._wrap(f) for f in (np.where, np.add, np.maximum))  # cupy.where, ...
    x = fake_cupy.asarray(np.arange(4.0))
    for call in (lambda: where(np.array(True), x, x), lambda: add(x, np.ones(4)),
                 lambda: maximum(np.ones(()), x), lambda: x + np.ones(4)):
        with pytest.raises(TypeError, match=r"^Unsupported type <class 'numpy.ndarray'>$"):
            call()
    assert where(x > 1, x, np.float64(0.5)).tolist() == [0.5, 0.5, 2.0, 3.0]
    assert add(x, 1).tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="^non-scalar numpy.ndarray cannot be used for fill$"):
        x[1:3] = np.ones(2)
    x[...] = np.array(7.0)  # a 0-d host value is a scalar to fill with
    x[np.array([0, 1])] = np.array([1.0, 2.0])  # advanced indexing: uploaded
    assert x.tolist() == [1.0, 2.0, 7.0, 7.0]
