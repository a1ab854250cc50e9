"""``mode``: the value and the position PyTorch's CPU kernel returns, whose choice among equal values (and
around NaN) is libstdc++'s ``std::sort``'s (``minigrad/kernels/std_sort.py`` runs the same algorithm)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.std_sort import _heap_sort, std_sort

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "bool"])
def test_mode_gives_pytorchs_value_and_position(dtype):
    """Slices of 1 to 300 elements with many ties (the introsort's partitions and its final insertion sort both
    decide), NaN among floats; every slice the value and the position PyTorch gives."""
    rng = np.random.default_rng(len(dtype))
    for trial in range(150):
        n = int(rng.integers(1, 300 if trial % 2 else 17))
        a = rng.integers(0, int(rng.integers(1, 12)), n).astype(np.float64)
        if dtype.startswith("float") and trial % 3 == 0:
            a[rng.random(n) < 0.2] = np.nan
        a = a.astype(dtype) if dtype != "bool" else a % 2 == 1
        want, got = torch.mode(torch.tensor(a)), mg.mode(mg.tensor(a))
        assert got.indices.item() == want.indices.item(), (trial, a.tolist())
        assert np.array_equal(got.values.numpy(), want.values.numpy(), equal_nan=True)


def test_mode_along_each_dim_with_keepdim():
    a = np.random.default_rng(4).integers(0, 4, (5, 40, 3)).astype(np.float32)
    for dim in (0, 1, 2, -1):
        for keepdim in (False, True):
            want, got = torch.mode(torch.tensor(a), dim, keepdim), mg.mode(mg.tensor(a), dim, keepdim)
            assert got.values.tolist() == want.values.tolist() and got.indices.tolist() == want.indices.tolist()


def test_mode_refuses_an_empty_reduction_dim_as_pytorch():
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero size\."):
        mg.mode(mg.zeros(2, 0), 1)
    assert tuple(mg.mode(mg.zeros(2, 0), 0).values.shape) == (0,)


def test_the_heapsort_fallback_sorts():
    """The fallback runs only once the quicksort's depth runs out (rare inputs): it sorts every slice, each pair
    kept, as ``std::sort`` does."""
    rng = np.random.default_rng(0)
    for _ in range(100):
        pairs = [(float(v), i) for i, v in enumerate(rng.integers(0, 9, int(rng.integers(0, 60))))]
        heaped, sorted_ = list(pairs), list(pairs)
        _heap_sort(heaped, 0, len(heaped))
        std_sort(sorted_)
        assert [v for v, _ in heaped] == [v for v, _ in sorted_] == sorted(v for v, _ in pairs)
        assert sorted(heaped, key=lambda p: p[1]) == pairs
