"""Samplers: the order in which a DataLoader visits a dataset's indices.

NOTE [ Where the random order comes from ] Every random order here comes from
``_randperm``/``_randint``, which call ``mg.randperm``/``mg.randint`` with the
``generator`` the user passed (or none: the default generator, reseeded by
``mg.manual_seed``). Once ``mg.randperm(n, generator=g)`` draws PyTorch's
stream, ``DataLoader(..., shuffle=True, generator=g)`` visits the samples in
PyTorch's order; nothing here needs to change.

Example:
    >>> from minigrad.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence, Sized

from ... import creation
from ... import dtypes as _dt
from ...random import Generator
from ...tensor import Tensor

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
]


def _randperm(n: int, generator: Any = None) -> list[int]:
    """A random permutation of ``range(n)`` (see NOTE [ Where the random order comes from ])."""
    if generator is None:
        return creation.randperm(n).tolist()
    return creation.randperm(n, generator=generator).tolist()


def _randint(high: int, size: int, generator: Any = None) -> list[int]:
    """``size`` random integers in ``[0, high)`` (see NOTE [ Where the random order comes from ])."""
    if generator is None:
        return creation.randint(0, high, (size,)).tolist()
    return creation.randint(0, high, (size,), generator=generator).tolist()


class Sampler:
    """Base class: an iterable of indices (subclasses define ``__iter__`` and usually ``__len__``)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")


class SequentialSampler(Sampler):
    """Indices ``0, 1, ..., len(data_source) - 1`` in order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in a random order (a new permutation every epoch), or ``num_samples`` drawn with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Any = None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if num_samples is not None and (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                                        or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        self.data_source, self.replacement, self._num_samples, self.generator = (
            data_source, replacement, num_samples, generator)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            # PyTorch seeds a fresh generator from the default one for each pass (one 64-bit draw)
            seed = int(creation.empty((), dtype=_dt.int64).random_().item())
            generator = Generator().manual_seed(seed)
        if self.replacement:
            for _ in range(self.num_samples // 32):  # PyTorch draws in chunks of 32
                yield from _randint(n, 32, generator)
            yield from _randint(n, self.num_samples % 32, generator)
            return
        for _ in range(self.num_samples // n):
            yield from _randperm(n, generator)
        yield from _randperm(n, generator)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (``mg.multinomial``)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = weights if isinstance(weights, Tensor) else creation.tensor(list(weights), dtype="float64")
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = w, num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        if self.generator is None:
            drawn = creation.multinomial(self.weights, self.num_samples, self.replacement)
        else:
            drawn = creation.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
