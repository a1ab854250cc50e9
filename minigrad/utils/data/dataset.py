"""Datasets: ``Dataset`` (indexable), ``IterableDataset`` (a stream), ``TensorDataset``, ``Subset``,
``ConcatDataset`` and ``random_split``.

Example:
    >>> import minigrad as mg
    >>> from minigrad.utils.data import TensorDataset, random_split
    >>> ds = TensorDataset(mg.arange(10.0))
    >>> train, val = random_split(ds, [0.8, 0.2])
    >>> len(train), len(val)
    (8, 2)
"""

from __future__ import annotations

import bisect
import math
import warnings
from typing import Any, Iterable, Iterator, Sequence

from ...tensor import Tensor
from .sampler import _randperm

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset", "ConcatDataset", "ChainDataset",
    "random_split",
]


class Dataset:
    """Base class of map-style datasets: define ``__getitem__(i)`` and ``__len__()``.

    ``a + b`` concatenates two datasets (a ``ConcatDataset``).
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__()")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Base class of stream datasets: define ``__iter__()``; a DataLoader batches what it yields."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")


class TensorDataset(Dataset):
    """Sample ``i`` is ``(t[i] for t in tensors)``: the tensors share their first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset(): argument {i} must be a Tensor, but got {type(t).__name__}")
        if any(t.shape[:1] != tensors[0].shape[:1] for t in tensors):
            # PyTorch asserts this, so the class is AssertionError there too.
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class StackDataset(Dataset):
    """Several datasets of one length side by side: sample ``i`` is the tuple (positional datasets)
    or the dict (keyword datasets) of their samples ``i``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets: Any = args if args else kwargs
        lengths = [len(d) for d in (args if args else kwargs.values())]
        if any(n != lengths[0] for n in lengths):
            raise ValueError("Size mismatch between datasets")
        self._length = lengths[0]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, renumbered from 0."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after another; ``cumulative_sizes[k]`` is where dataset ``k`` ends."""

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[k - 1] if k > 0 else 0
        return self.datasets[k][idx - start]


class ChainDataset(IterableDataset):
    """Several stream datasets one after another."""

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def random_split(dataset: Any, lengths: Sequence[int | float], generator: Any = None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random ``Subset`` s of the given lengths.

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing
    to 1 (each gets ``floor(n * f)``, and the remainder is dealt one by one
    from the first subset on), as in PyTorch. The order comes from one random
    permutation drawn from ``generator`` (NOTE [ Where the random order comes
    from ] in ``sampler.py``).
    """
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = _randperm(sum(lengths), generator)
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out
