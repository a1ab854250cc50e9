"""``sum`` and ``mean`` of floats give PyTorch's CPU values bit for bit (``minigrad/kernels/cascade_sum.py``,
NOTE [ PyTorch's sum, bit for bit ]): every layout TensorIterator distinguishes (a contiguous row, columns, a
middle dim, several dims, transposed and strided views), float16/32/64, and the split of a large sum
among threads."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.cascade_sum import cascade_sum

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

SHAPES = [(7,), (8,), (33,), (1000,), (3, 5), (5, 40), (40, 5), (64, 33), (2, 3, 4), (6, 17, 9), (4, 1, 50),
          (3, 40, 2), (16, 64), (128, 10), (10, 128), (2, 3, 4, 5), (100, 70), (9, 300), (300, 9)]


@pytest.fixture
def threads():
    """PyTorch's thread count and minigrad's set alike (and restored)."""
    before_torch, before_mine = torch.get_num_threads(), mg.get_num_threads()

    def set_both(n: int) -> None:
        torch.set_num_threads(n)
        mg.set_num_threads(n)

    yield set_both
    torch.set_num_threads(before_torch)
    mg.set_num_threads(before_mine)


def _views(x: np.ndarray):
    yield "contiguous", x
    if x.ndim >= 2:
        yield "transposed", x.T
        yield "strided", x[..., ::2]


def _torch_view(base: np.ndarray, view: np.ndarray):
    """The same view of the same memory as a PyTorch tensor (its strides and offset)."""
    item = base.dtype.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return torch.as_strided(torch.from_numpy(base.copy()).flatten(), view.shape, [s // item for s in view.strides],
                            offset)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sum_over_any_dims_is_pytorch_s_bit_for_bit(shape, dtype) -> None:
    rng = np.random.default_rng(len(shape) * 100 + sum(shape))
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    dims = [None] + [c for r in range(1, len(shape) + 1) for c in itertools.combinations(range(len(shape)), r)]
    for name, view in _views(x):
        t = _torch_view(x, view)
        m = mg.tensor(np.ascontiguousarray(view)) if name == "contiguous" else None
        for dim in dims:
            ref = (t.sum() if dim is None else t.sum(dim=dim)).numpy()
            mine = cascade_sum(view, tuple(range(view.ndim)) if dim is None else dim, np.dtype(dtype), 1)
            assert mine.shape == ref.shape and np.array_equal(mine, ref), (name, dim)
            if m is not None:  # and through the op, with keepdim and mean
                got = (m.sum() if dim is None else m.sum(dim=dim, keepdim=True)).numpy()
                want = (t.sum() if dim is None else t.sum(dim=dim, keepdim=True)).numpy()
                assert np.array_equal(got, want), ("sum", dim)
                got = (m.mean() if dim is None else m.mean(dim=dim)).numpy()
                want = (t.mean() if dim is None else t.mean(dim=dim)).numpy()
                assert np.array_equal(got, want), ("mean", dim)


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_a_large_sum_is_split_among_the_threads_as_pytorch_splits_it(threads, n_threads) -> None:
    """Above 32,768 elements PyTorch's CPU sum gives each thread a part; the parts' sums add in order."""
    threads(n_threads)
    rng = np.random.default_rng(n_threads)
    for n in (32767, 32768, 32769, 100001, 300000):
        x = rng.standard_normal(n).astype(np.float32) ** 2
        assert mg.tensor(x).sum().item() == torch.from_numpy(x).sum().item(), n
    x = rng.standard_normal((300, 400)).astype(np.float32)
    for dim in (0, 1):
        assert np.array_equal(mg.tensor(x).sum(dim).numpy(), torch.from_numpy(x).sum(dim).numpy())


def test_what_a_student_prints_is_pytorch_s() -> None:
    """The same seed, the same draws, the same sum: ``.item()`` prints PyTorch's digits."""
    for lib in (torch, mg):
        lib.manual_seed(0)
    x_t, x_m = torch.randn(2000) ** 2, mg.randn(2000) ** 2
    assert repr(x_m.sum().item()) == repr(x_t.sum().item())
    assert repr(x_m.mean().item()) == repr(x_t.mean().item())
    assert repr((x_m * 3 - 1).sum().item()) == repr((x_t * 3 - 1).sum().item())


def test_special_values_and_empty_sums() -> None:
    for values in ([-0.0], [-0.0] * 9, [np.nan, 1.0], [np.inf, -np.inf], [np.inf] * 20, [3e38] * 40, []):
        x = np.array(values, np.float32)
        ref = torch.from_numpy(x).sum().numpy()
        mine = mg.tensor(x).sum().numpy()
        assert np.array_equal(mine, ref, equal_nan=True) and np.signbit(mine) == np.signbit(ref), values


def test_num_threads_is_pytorch_s_setting() -> None:
    before = mg.get_num_threads()
    assert before >= 1
    try:
        mg.set_num_threads(3)
        assert mg.get_num_threads() == 3
        with pytest.raises(RuntimeError, match="positive integer"):
            mg.set_num_threads(0)
        with pytest.raises(TypeError):
            mg.set_num_threads(2.0)
    finally:
        mg.set_num_threads(before)
