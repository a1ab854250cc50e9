"""``strided.gather_strides``: the layout PyTorch gives ``x[index]`` with index arrays (NOTE [ A gather's result
is laid out as PyTorch's ] in ``minigrad/kernels/strided.py``), which the kernels copy a gather into where
NumPy's (the CPU's) or CuPy's (row-major) differs. Checked against PyTorch's CPU, whose ``index`` runs the same
TensorIterator as its CUDA: inputs permuted and sliced, index arrays of one or two dims (transposed ones too),
masks, ``None``, ``...`` and index arrays that are not adjacent (moved to the front).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import minigrad as mg
from minigrad.kernels.strided import gather_strides

torch = pytest.importorskip("torch")


def _made(lib, shape: tuple[int, ...], perm: list[int], sliced: bool):
    """``arange`` of ``shape`` in ``lib`` (torch or minigrad), permuted, every other element of the last dim."""
    x = lib.tensor(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)).permute(*perm)
    return x[..., ::2] if sliced else x


def _cases(n: int, seed: int = 0):
    """``n`` random (tensor, index) pairs whose gather is not empty."""
    rng = random.Random(seed)
    made = 0
    while made < n:
        ndim = rng.randint(1, 4)
        shape = tuple(rng.choice([1, 2, 3, 4]) for _ in range(ndim))
        perm = list(range(ndim))
        rng.shuffle(perm)
        sliced = rng.random() < 0.3
        x = _made(torch, shape, perm, sliced)
        items: list = []
        k = 0
        while k < x.ndim:
            r = rng.random()
            if r < 0.35 and x.shape[k]:
                idx = torch.randint(0, x.shape[k], rng.choice([(3,), (2,), (2, 3), (3, 1), (1, 2), (1,)]))
                items.append(idx.t().contiguous().t() if idx.ndim == 2 and rng.random() < 0.3 else idx)
                k += 1
            elif r < 0.45:
                items.append(None)
            elif r < 0.5:
                items.append(torch.rand(x.shape[k:k + 1]) > 0.4)
                k += 1
            elif r < 0.55:
                items.append(Ellipsis)
                break
            else:
                items.append(slice(None))
                k += 1
        if not any(isinstance(i, torch.Tensor) for i in items):
            continue
        try:
            want = x[tuple(items)]
        except IndexError:
            continue
        if want.numel():
            made += 1
            yield x, tuple(i.numpy() if isinstance(i, torch.Tensor) else i for i in items), want, (shape, perm, sliced)


def test_a_gathers_strides_are_pytorchs():
    for x, index, want, _ in _cases(600):
        got = gather_strides(tuple(x.shape), tuple(x.stride()), index, tuple(want.shape))
        assert got is not None and all(n <= 1 or a == b for n, a, b in zip(want.shape, got, want.stride())), (
            tuple(x.shape), x.stride(), index, want.stride(), got)


def test_a_gather_of_a_permuted_tensor_is_not_row_major():
    """The device fuzzer's case: ``x.permute(2, 1, 0)[[1, 0, 1]]`` of a (3, 3, 2) ``x`` is (9, 1, 3)."""
    assert gather_strides((2, 3, 3), (1, 2, 6), (np.array([1, 0, 1]),), (3, 3, 3)) == (9, 1, 3)
    assert gather_strides((3, 4), (4, 1), (np.array([1, 0, 1]),), (3, 4)) == (4, 1)
    assert gather_strides((3, 4), (4, 1), (0, np.array([1])), (1,)) is None  # an integer: applied before


def test_minigrads_gather_is_laid_out_as_pytorchs():
    """The CPU kernel's results: PyTorch's values and strides (NumPy's gather was row-major in some), an array
    of their own; ``None`` left out (minigrad applies it as its own step, an unsqueeze of its own strides)."""
    for _, index, _, made in _cases(300, seed=1):
        if any(i is None for i in index):
            continue
        index = tuple(np.ascontiguousarray(i) if isinstance(i, np.ndarray) else i for i in index)
        got = _made(mg, *made)[tuple(mg.tensor(i) if isinstance(i, np.ndarray) else i for i in index)]
        want = _made(torch, *made)[tuple(torch.tensor(i) if isinstance(i, np.ndarray) else i for i in index)]
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert all(n <= 1 or a == b for n, a, b in zip(want.shape, got.stride(), want.stride())), (
            made, index, want.stride(), got.stride())
