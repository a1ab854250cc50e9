"""The DataLoader: fetch samples in the sampler's order and collate them into batches.

``default_collate`` turns a list of samples into one batch, recursively:
tensors are stacked along a new first dimension, NumPy arrays and Python
numbers become tensors (floats float64, ints int64), dicts collate per key,
tuples and lists per position (a list of batches, as PyTorch returns), and
strings stay as given.

minigrad loads in the calling process: ``num_workers`` is accepted for
compatibility, and the batches are those PyTorch's workers would produce.

Example:
    >>> import minigrad as mg
    >>> from minigrad.utils.data import default_collate
    >>> b = default_collate([{"x": mg.ones(2), "y": 1}, {"x": mg.zeros(2), "y": 0}])
    >>> b["x"].shape, b["y"].tolist()
    (minigrad.Size([2, 2]), [1, 0])
"""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Iterator

import numpy as np

from ... import creation, ops
from ... import dtypes as _dt
from ...tensor import Tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def get_worker_info() -> None:
    """Information about the loader worker this runs in: always ``None`` (minigrad loads in the
    calling process, which PyTorch reports as ``None`` too)."""
    return None


def default_convert(data: Any) -> Any:
    """What a DataLoader without batching returns for one sample: NumPy arrays become tensors."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return creation.tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch: Any) -> Any:
    """Samples to a batch (see the module docstring)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return ops.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return ops.stack([creation.tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        return creation.tensor(np.array(batch))
    if isinstance(elem, bool):
        return creation.tensor(list(batch), dtype=_dt.bool_)
    if isinstance(elem, float):
        return creation.tensor(list(batch), dtype=_dt.float64)
    if isinstance(elem, int):
        return creation.tensor(list(batch), dtype=_dt.int64)
    if isinstance(elem, (str, bytes)):
        return batch  # as given: a list, or the tuple of one position of a transposed batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a map-style dataset (``len``, ``[i]``) or an ``IterableDataset``.
        batch_size: samples per batch; ``None`` turns batching off (one converted sample per step).
        shuffle: visit the samples in a new random order every epoch (a ``RandomSampler``).
        sampler: the order of the indices (instead of ``shuffle``).
        batch_sampler: yields whole lists of indices (instead of batch_size/shuffle/sampler/drop_last).
        num_workers: accepted; minigrad always loads in the calling process.
        collate_fn: samples -> batch (``default_collate``).
        drop_last: drop the last batch when it is smaller than ``batch_size``.
        generator: the random generator of the shuffling (NOTE [ Where the random order comes
            from ] in ``sampler.py``).

    Example:
        >>> import minigrad as mg
        >>> from minigrad.utils.data import DataLoader
        >>> [b.tolist() for b in DataLoader([1.0, 2.0, 3.0], batch_size=2, drop_last=True)]
        [[1.0, 2.0]]
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None, sampler: Any = None,
                 batch_sampler: Any = None, num_workers: int = 0, collate_fn: Callable[[list[Any]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None, multiprocessing_context: Any = None,
                 generator: Any = None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        self.dataset, self.num_workers, self.drop_last, self.generator = dataset, num_workers, drop_last, generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.sampler, self.batch_sampler = batch_size, sampler, batch_sampler
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None else default_convert)

    def __iter__(self) -> Iterator[Any]:
        # PyTorch's iterator draws a base seed (for worker processes) from the loader's generator
        # before the sampler draws its order: drawn here too, so the generator's stream stays PyTorch's.
        self._base_seed = int(creation.empty((), dtype=_dt.int64).random_(generator=self.generator).item())
        return self._iter_batches()

    def _iter_batches(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._iter_stream()
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def _iter_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: list[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # a TypeError for a stream without __len__, as in PyTorch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
