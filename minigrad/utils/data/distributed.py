"""``DistributedSampler``: each of ``num_replicas`` processes visits its own share of a dataset
(PyTorch's ``torch/utils/data/distributed.py``, the sampler of the DistributedDataParallel recipe).

All replicas draw the same permutation (seeded ``seed + epoch``), pad it by repeating its head until
every replica gets the same count (or, with ``drop_last``, cut its tail), then replica ``rank`` takes
every ``num_replicas``-th index from position ``rank``. Call ``set_epoch(epoch)`` at the start of each
epoch, or every epoch visits the same order.

How minigrad differs: it runs in one process and has no ``torch.distributed``, so ``num_replicas`` and
``rank`` must be given; without them it refuses as PyTorch does before ``init_process_group``. One
process can still build the sampler of every rank, which is how a course shows the split.

Example:
    >>> from minigrad.utils.data import DistributedSampler
    >>> [list(DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False)) for r in range(2)]
    [[0, 2, 4], [1, 3, 0]]
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Sized

from ...random import Generator
from .sampler import Sampler, _randperm

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices of ``dataset`` that replica ``rank`` of ``num_replicas`` visits.

    Args:
        dataset: a dataset with ``len``.
        num_replicas: how many processes share the dataset (required in minigrad).
        rank: this process's number, ``0 <= rank < num_replicas`` (required in minigrad).
        shuffle: draw a permutation (seeded ``seed + epoch``, PyTorch's stream bit for bit) or keep the order.
        seed: the same on every replica, so that they all draw the same permutation.
        drop_last: cut the tail so the count divides evenly, instead of padding with the head.
    """

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            # PyTorch's dist.get_world_size()/get_rank() without init_process_group (minigrad has none)
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            # the largest count every replica can have without padding
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[Any]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = _randperm(n, generator=g)
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:  # repeat the head (the whole list as often as needed) up to total_size
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding] if padding > len(indices) \
                else indices[:padding]
        return iter(indices[self.rank: self.total_size: self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch about to start: with ``shuffle``, each epoch draws a different permutation."""
        self.epoch = epoch
