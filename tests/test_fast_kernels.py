"""Kernels with a faster road for a common case give what their general road gives.

- ``matmul``: a batch of rows times one matrix (``nn.Linear`` on a sequence) is
  one product over all the rows, and so is the matrix's gradient;
- ``getitem_grad``: basic indices and masks assign instead of ``np.add.at``, and
  rows picked by one integer array (an embedding) are summed by a sort and
  ``add.reduceat``;
- ``row_max`` (softmax, log-softmax, cross-entropy, logsumexp): the maximum of
  many short rows, taken down the columns of their transpose.
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.ops.linalg import matmul_cpu
from minigrad.ops.shape import getitem_grad_cpu


@pytest.mark.parametrize("xshape", [(3, 4, 5), (2, 3, 4, 5), (0, 4, 5), (3, 4, 0), (3, 0, 5)])
@pytest.mark.parametrize("transpose_y", [False, True])
def test_a_batch_of_rows_times_one_matrix_is_numpys_batched_product(xshape: tuple[int, ...], transpose_y: bool) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xshape)
    y = rng.standard_normal((6, xshape[-1]) if transpose_y else (xshape[-1], 6))
    got = matmul_cpu(x, y, transpose_y=transpose_y)
    ref = np.matmul(x, y.T if transpose_y else y)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    # A non-contiguous batch takes NumPy's own road.
    strided = np.swapaxes(x, 0, 1)
    np.testing.assert_allclose(matmul_cpu(strided, y, transpose_y=transpose_y),
                               np.matmul(strided, y.T if transpose_y else y), rtol=1e-12, atol=1e-12)


def _add_at(grad: np.ndarray, index: tuple, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, dtype=grad.dtype)
    np.add.at(out, index, grad)
    return out


@pytest.mark.parametrize("index", [
    (slice(1, 3),), (Ellipsis, slice(0, 2)), (1, slice(None), None), (np.array([True, False, True, True]),),
    (np.array([[0, 3, 0], [-1, 2, 0]]),), (np.array([], dtype=np.int64),), (np.array([1, 1]), slice(None)),
    (slice(None), np.array([2, 0, 2])),
])
def test_getitem_grad_is_a_scatter_add_whatever_the_index(index: tuple) -> None:
    shape = (4, 3, 2)
    probe = np.zeros(shape)[index]
    grad = np.random.default_rng(1).standard_normal(probe.shape)
    got = getitem_grad_cpu(grad, index, shape)
    np.testing.assert_allclose(got, _add_at(grad, index, shape), rtol=1e-13, atol=1e-13)


def test_repeated_embedding_rows_sum_their_gradients() -> None:
    rng = np.random.default_rng(2)
    rows = rng.integers(-65, 65, size=(16, 32))
    grad = rng.standard_normal((16, 32, 8)).astype(np.float32)
    got = getitem_grad_cpu(grad, (rows,), (65, 8))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _add_at(grad, (rows,), (65, 8)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("xshape", [(3, 4, 5), (2, 3, 4, 5), (0, 4, 5)])
@pytest.mark.parametrize("transpose_y", [False, True])
def test_the_folded_weight_gradient_is_pytorchs(xshape: tuple[int, ...], transpose_y: bool) -> None:
    """dW of a batch of rows times one matrix is one product over all the rows (``_matmul_backward``)."""
    torch = pytest.importorskip("torch")
    import minigrad as mg

    rng = np.random.default_rng(3)
    x = rng.standard_normal(xshape)
    w = rng.standard_normal((6, xshape[-1]) if transpose_y else (xshape[-1], 6))
    g = rng.standard_normal(xshape[:-1] + (6,))
    mx, mw = mg.tensor(x, requires_grad=True), mg.tensor(w, requires_grad=True)
    mg.matmul(mx, mw, transpose_y=transpose_y).backward(mg.tensor(g))
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    torch.matmul(tx, tw.T if transpose_y else tw).backward(torch.tensor(g))
    np.testing.assert_allclose(mw.grad.numpy(), tw.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(300, 32), (16, 4, 32, 32), (8192, 8), (512, 65), (5, 32), (300, 1), (3000, 27)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_row_max_is_numpys_max_bit_for_bit(shape: tuple[int, ...], dtype: type) -> None:
    from minigrad.kernels.special import row_max

    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1, shape[-1])
    flat[0] = np.nan  # a row of NaN, a row with one NaN, a row of -inf (a fully masked attention row)
    flat[1, -1] = np.nan
    flat[2] = -np.inf
    flat[3, 0] = np.inf
    flat[4] = 0.0
    flat[4, ::2] = -0.0
    for axis in (-1, x.ndim - 1, (x.ndim - 1,)):
        got = row_max(x, axis)
        ref = np.max(x, axis=axis, keepdims=True)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)
    # A strided input (every other row), and other axes, take the same values.
    np.testing.assert_array_equal(row_max(x[::2], -1), np.max(x[::2], axis=-1, keepdims=True))
    np.testing.assert_array_equal(row_max(x, 0), np.max(x, axis=0, keepdims=True))


@pytest.mark.parametrize("x", [np.array(3.0), np.zeros((0, 8)), np.zeros((300, 0)), np.ones(5)])
def test_row_max_of_edge_shapes_is_numpys(x: np.ndarray) -> None:
    from minigrad.kernels.special import row_max

    if x.shape[-1:] == (0,):  # no identity for max: NumPy refuses, and so does row_max
        with pytest.raises(ValueError):
            np.max(x, axis=-1, keepdims=True)
        with pytest.raises(ValueError):
            row_max(x, -1)
        return
    got, ref = row_max(x, -1), np.max(x, axis=-1, keepdims=True)
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


def test_softmax_over_many_short_rows_is_unchanged() -> None:
    from minigrad.ops.activation import log_softmax_cpu, softmax_cpu

    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 4, 32, 32)).astype(np.float32)
    x[..., 20:] = -np.inf  # masked scores
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    np.testing.assert_array_equal(softmax_cpu(x, dim=-1), e / np.sum(e, axis=-1, keepdims=True))
    z = x - np.max(x, axis=-1, keepdims=True)
    np.testing.assert_array_equal(log_softmax_cpu(x, dim=-1), z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True)))
