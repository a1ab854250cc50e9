"""``mg.utils.data`` behaves as ``torch.utils.data``: datasets, samplers, collation, DataLoader options and errors.

Orders that do not depend on random numbers are compared with PyTorch's
exactly; shuffled orders are checked to be permutations, reproducible with
``mg.manual_seed``, and (once ``mg.Generator`` draws PyTorch's stream) equal
to PyTorch's for the same generator seed.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad.utils import data as D

torch = pytest.importorskip("torch")
TD = torch.utils.data


def _plain(x: Any) -> Any:
    """A batch as nested Python values (tensors as (dtype name, values)) to compare frameworks."""
    if isinstance(x, (mg.Tensor, torch.Tensor)):
        return (str(x.dtype).replace("torch.", "").replace("minigrad.", ""), x.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, [_plain(v) for v in x])
    if isinstance(x, (list, tuple)):
        return [type(x).__name__, [_plain(v) for v in x]]
    return x


def test_import_as_torch_spells_it() -> None:
    import minigrad as torch_like

    assert torch_like.utils.data.DataLoader is D.DataLoader
    from minigrad.utils.data import DataLoader, TensorDataset  # noqa: F401


Point = collections.namedtuple("Point", "x y")
SAMPLES = {
    "tensors": lambda lib: [lib.tensor([1.0, 2.0]) * i for i in range(3)],
    "floats": lambda lib: [0.5, 1.5, 2.5],
    "ints": lambda lib: [1, 2, 3],
    "bools": lambda lib: [True, False, True],
    "numpy": lambda lib: [np.arange(3.0) + i for i in range(3)],
    "numpy-scalars": lambda lib: [np.float32(i) for i in range(3)],
    "tuples": lambda lib: [(lib.tensor([i]), float(i), "s") for i in range(3)],
    "lists": lambda lib: [[i, i + 1] for i in range(3)],
    "dicts": lambda lib: [{"x": lib.tensor([float(i)]), "y": i, "name": f"n{i}"} for i in range(3)],
    "namedtuple": lambda lib: [Point(lib.tensor(float(i)), i) for i in range(3)],
    "nested": lambda lib: [{"a": [(i, 2.0 * i)], "b": {"c": lib.tensor([i, i])}} for i in range(3)],
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_default_collate_matches_torch(kind: str) -> None:
    ours = D.default_collate(SAMPLES[kind](mg))
    theirs = TD.default_collate(SAMPLES[kind](torch))
    assert _plain(ours) == _plain(theirs)


def test_default_collate_errors_match_torch() -> None:
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        D.default_collate([[1, 2], [3]])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        TD.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        D.default_collate([object(), object()])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        TD.default_collate([object(), object()])


LOADERS = {
    "batch2": {"batch_size": 2},
    "batch3-drop": {"batch_size": 3, "drop_last": True},
    "batch-none": {"batch_size": None},
    "default": {},
    "sampler": {"sampler": [4, 0, 3], "batch_size": 2},
    "batch_sampler": {"batch_sampler": [[0, 1, 2], [5, 6]]},
    "collate_fn": {"batch_size": 4, "collate_fn": lambda b: len(b)},
}


@pytest.mark.parametrize("case", sorted(LOADERS))
def test_dataloader_batches_match_torch(case: str) -> None:
    x = np.arange(14.0).reshape(7, 2)
    ours = D.DataLoader(D.TensorDataset(mg.tensor(x), mg.arange(7)), **LOADERS[case])
    theirs = TD.DataLoader(TD.TensorDataset(torch.tensor(x), torch.arange(7)), **LOADERS[case])
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]
    assert len(ours) == len(theirs)


def test_dataloader_over_a_list_and_an_iterable_dataset() -> None:
    assert _plain(list(D.DataLoader([1.0, 2.0, 3.0], batch_size=2))) == \
        _plain(list(TD.DataLoader([1.0, 2.0, 3.0], batch_size=2)))

    def stream(lib: Any) -> Any:
        class Count(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(5))
        return Count()

    for kw in ({"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None}):
        assert _plain(list(D.DataLoader(stream(mg), **kw))) == _plain(list(TD.DataLoader(stream(torch), **kw)))


@pytest.mark.parametrize("kwargs", [
    {"sampler": [0, 1], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "drop_last": True},
    {"batch_size": None, "drop_last": True},
    {"num_workers": -1},
])
def test_dataloader_option_errors_match_torch(kwargs: dict) -> None:
    with pytest.raises(ValueError) as ours:
        D.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(ValueError) as theirs:
        TD.DataLoader(list(range(4)), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_shuffle_is_a_new_permutation_every_epoch_and_follows_manual_seed() -> None:
    loader = D.DataLoader(D.TensorDataset(mg.arange(20)), batch_size=6, shuffle=True)
    mg.manual_seed(3)
    first = [v for (b,) in loader for v in b.tolist()]
    second = [v for (b,) in loader for v in b.tolist()]
    assert sorted(first) == list(range(20)) and sorted(second) == list(range(20))
    assert first != second
    mg.manual_seed(3)
    assert [v for (b,) in loader for v in b.tolist()] == first


@pytest.mark.skipif(not hasattr(mg, "Generator"), reason="mg.Generator has not landed yet")
def test_the_generator_decides_the_order_as_in_torch() -> None:
    ours = D.DataLoader(list(range(20)), batch_size=5, shuffle=True, generator=mg.Generator().manual_seed(7))
    theirs = TD.DataLoader(list(range(20)), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(7))
    assert [b.tolist() for b in ours] == [b.tolist() for b in theirs]
    a = D.random_split(range(10), [0.5, 0.3, 0.2], generator=mg.Generator().manual_seed(1))
    b = TD.random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))
    assert [s.indices for s in a] == [s.indices for s in b]


def test_datasets_match_torch() -> None:
    x = np.arange(12.0).reshape(6, 2)
    ours, theirs = D.TensorDataset(mg.tensor(x), mg.arange(6)), TD.TensorDataset(torch.tensor(x), torch.arange(6))
    assert len(ours) == len(theirs) and _plain(ours[2]) == _plain(theirs[2])
    sub, tsub = D.Subset(ours, [5, 1, 3]), TD.Subset(theirs, [5, 1, 3])
    assert len(sub) == 3 and _plain(sub[0]) == _plain(tsub[0])
    cat, tcat = D.ConcatDataset([sub, ours]), TD.ConcatDataset([tsub, theirs])
    assert cat.cumulative_sizes == tcat.cumulative_sizes == [3, 9]
    for i in (0, 2, 3, 8, -1, -9):
        assert _plain(cat[i]) == _plain(tcat[i])
    assert len(ours + sub) == len(theirs + tsub) == 9
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        cat[-10]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        D.TensorDataset(mg.ones(3), mg.ones(4))
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TD.TensorDataset(torch.ones(3), torch.ones(4))


@pytest.mark.parametrize("lengths", [[3, 7], [0.5, 0.3, 0.2], [0.33, 0.33, 0.34], [0.1, 0.1, 0.8], [1.0]])
def test_random_split_sizes_match_torch(lengths: list) -> None:
    n = 10 if sum(lengths) == 10 else 11
    ours, theirs = D.random_split(range(n), lengths), TD.random_split(range(n), lengths)
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s.indices) == list(range(n))


def test_random_split_errors_match_torch() -> None:
    for lib in (D, TD):
        with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
            lib.random_split(range(5), [2, 2])


def test_samplers_match_torch() -> None:
    assert list(D.SequentialSampler(range(4))) == list(TD.SequentialSampler(range(4)))
    for drop in (False, True):
        ours = D.BatchSampler(D.SequentialSampler(range(7)), 3, drop)
        theirs = TD.BatchSampler(TD.SequentialSampler(range(7)), 3, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    rs = D.RandomSampler(range(5), num_samples=12)
    got = list(rs)
    assert len(got) == len(rs) == 12 and sorted(got[:10]) == sorted(list(range(5)) * 2)
    rep = list(D.RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(rep) == 50 and set(rep) <= {0, 1, 2}
    assert sorted(D.SubsetRandomSampler([4, 8, 9])) == [4, 8, 9]
    w = list(D.WeightedRandomSampler([0.0, 1.0, 0.0, 1.0], 20))
    assert len(w) == 20 and set(w) <= {1, 3}
    for lib in (D, TD):
        with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
            lib.BatchSampler(range(3), 0, False)
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            lib.RandomSampler(range(3), num_samples=0)


def test_stack_chain_datasets_and_worker_info_match_torch() -> None:
    x = np.arange(6.0)
    for lib, Dm in ((mg, D), (torch, TD)):
        a, b = Dm.TensorDataset(lib.tensor(x)), list(range(10, 16))
        st = Dm.StackDataset(a, b)
        sd = Dm.StackDataset(x=a, y=b)
        assert len(st) == len(sd) == 6
        assert _plain(st[2]) == _plain(TD.StackDataset(TD.TensorDataset(torch.tensor(x)), b)[2])
        assert _plain(sd[3]) == _plain(TD.StackDataset(x=TD.TensorDataset(torch.tensor(x)), y=b)[3])
        with pytest.raises(ValueError, match="Size mismatch between datasets"):
            Dm.StackDataset(a, [1])
        with pytest.raises(ValueError, match="but both types are given"):
            Dm.StackDataset(a, y=b)

        class Count(Dm.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(self.n))

            def __len__(self):
                return self.n

        ch = Dm.ChainDataset([Count(2), Count(3)])
        assert list(ch) == [0, 1, 0, 1, 2] and len(ch) == 5
        assert Dm.get_worker_info() is None
