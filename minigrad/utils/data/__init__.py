"""Datasets, samplers and the DataLoader (``mg.utils.data``, PyTorch's ``torch.utils.data``).

A *dataset* answers ``len(ds)`` and ``ds[i]``; a *sampler* says in which order
the indices are visited; a *batch sampler* groups them; the *DataLoader*
fetches each group's samples and *collates* them into batched tensors.

Example:
    >>> import minigrad as mg
    >>> from minigrad.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(mg.arange(10.0).reshape(5, 2), mg.tensor([0, 1, 0, 1, 1]))
    >>> [(x.shape, y.tolist()) for x, y in DataLoader(ds, batch_size=2)]
    [(minigrad.Size([2, 2]), [0, 1]), (minigrad.Size([2, 2]), [0, 1]), (minigrad.Size([1, 2]), [1])]
"""

from .dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split,
)
from .sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler,
)
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .distributed import DistributedSampler

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset", "ConcatDataset", "ChainDataset",
    "random_split", "get_worker_info",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
    "DistributedSampler", "DataLoader", "default_collate", "default_convert",
]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
