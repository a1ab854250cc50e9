"""Matrix products on the GPU through cuBLAS called directly (NOTE [ GEMM without cupy.matmul's host time ] in
``minigrad/kernels/gpu/gemm.py``): every layout gives NumPy's product, and the common ones never reach
``cupy.matmul``. On the stand-in the cuBLAS calls are emulated from their pointers and leading dimensions."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu


def _layouts(dt):
    """(name, a, b, direct): operands in the layouts a program's products reach, and whether cuBLAS reads them
    in place (else ``cupy.matmul``)."""
    import cupy

    rng = np.random.default_rng(3)

    def d(*shape):
        return cupy.asarray(rng.standard_normal(shape).astype(dt))

    b = d(3, 4)
    return [
        ("row-major", d(5, 3), b, True),
        ("a transposed", d(3, 5).T, b, True),
        ("b transposed (x @ W.T)", d(5, 3), d(4, 3).T, True),
        ("both transposed", d(3, 5).T, d(4, 3).T, True),
        ("a batch times a matrix (a linear layer on (B, T, C))", d(2, 6, 5, 3), b, True),
        ("batches", d(2, 6, 5, 3), d(2, 6, 3, 4), True),
        ("batches, transposed (q @ k.transpose(-2, -1))", d(2, 6, 5, 3), d(2, 6, 4, 3).swapaxes(-1, -2), True),
        ("a broadcast batch", d(5, 3), d(7, 3, 4), True),
        ("a batch dim broadcast inside others", d(2, 1, 5, 3), d(2, 6, 3, 4), False),
        ("one row and one column", d(1, 3), d(3, 1), True),
        ("rows a step apart", d(8, 5, 3)[::2], b, True),
        ("a permuted batch (rows do not fold)", d(6, 2, 3).transpose(1, 0, 2), b, True),
        ("columns a step apart", d(5, 6)[:, ::2], b, False),
        ("batches that fold into no stride", d(6, 5, 3), d(2, 1, 3, 4), False),
        ("a vector", d(3), b, False),
        ("empty", d(0, 3), b, False),
    ]


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
def test_every_layout_gives_numpys_product_and_the_common_ones_skip_cupy_matmul(dt, monkeypatch):
    import cupy

    from minigrad.kernels.gpu import gemm

    fell_back = []
    real = cupy.matmul
    monkeypatch.setattr(cupy, "matmul", lambda a, b: (fell_back.append(1), real(a, b))[1])
    for name, a, b, direct in _layouts(dt):
        fell_back.clear()
        got = gemm.matmul(a, b)
        want = np.matmul(cupy.asnumpy(a).astype(np.float64), cupy.asnumpy(b).astype(np.float64))
        assert got.shape == want.shape and got.dtype == dt, name
        np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-5, atol=1e-5, err_msg=name)
        assert bool(fell_back) is not direct, (name, "cupy.matmul" if fell_back else "cuBLAS")


def test_float16_takes_cupy_matmul_and_training_values_stay_the_cpus():
    """float16 goes to ``cupy.matmul``; a linear layer's forward and backward on the GPU equal the CPU's."""
    x = mg.tensor(np.random.default_rng(4).standard_normal((2, 5, 3)), dtype=mg.float32, requires_grad=True)
    w = mg.tensor(np.random.default_rng(5).standard_normal((4, 3)), dtype=mg.float32, requires_grad=True)
    grads = []
    for device in ("cpu", "gpu"):
        xs, ws = x.detach().to(device).requires_grad_(), w.detach().to(device).requires_grad_()
        y = mg.nn.functional.linear(xs, ws)
        (y * y).sum().backward()
        grads.append([y.detach().cpu().numpy(), xs.grad.cpu().numpy(), ws.grad.cpu().numpy()])
    for c, g in zip(*grads):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-5)
    h = (x.detach().to("gpu").half() @ w.detach().to("gpu").half().t()).cpu().numpy()
    np.testing.assert_allclose(h, (x.detach() @ w.detach().t()).numpy(), rtol=1e-2, atol=1e-2)
