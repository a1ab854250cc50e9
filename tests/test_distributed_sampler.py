"""``mg.utils.data.DistributedSampler`` against PyTorch's: indices bit for bit, len, padding, dropping, refusals."""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad.utils.data import DataLoader, DistributedSampler, TensorDataset

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("n", [0, 1, 5, 7, 12, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 5])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [True, False])
def test_every_rank_visits_pytorchs_indices(n, replicas, shuffle, drop_last) -> None:
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=shuffle, seed=7, drop_last=drop_last)
        theirs = torch.utils.data.DistributedSampler(range(n), replicas, rank, shuffle=shuffle, seed=7,
                                                     drop_last=drop_last)
        for epoch in (0, 1, 4):
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)
            assert len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


def test_epochs_and_seeds_change_the_order_and_the_ranks_partition_it() -> None:
    s = DistributedSampler(range(100), num_replicas=4, rank=0, seed=3)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first
    assert list(DistributedSampler(range(100), 4, 0, seed=4)) != first
    shares = [list(DistributedSampler(range(100), 4, r, seed=3)) for r in range(4)]
    assert sorted(i for share in shares for i in share) == list(range(100))


def test_with_a_dataloader() -> None:
    x = mg.arange(10.0)
    tx = torch.arange(10.0)
    ours = DataLoader(TensorDataset(x), batch_size=2, sampler=DistributedSampler(range(10), 3, 1, seed=1))
    theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(tx), batch_size=2,
                                         sampler=torch.utils.data.DistributedSampler(range(10), 3, 1, seed=1))
    assert [b[0].tolist() for b in ours] == [b[0].tolist() for b in theirs]


@pytest.mark.parametrize("kwargs", [{}, {"num_replicas": 2}, {"rank": 0}, {"num_replicas": 2, "rank": 2},
                                    {"num_replicas": 2, "rank": -1}])
def test_refusals_match_pytorch(kwargs) -> None:
    with pytest.raises(Exception) as theirs:
        torch.utils.data.DistributedSampler(range(4), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        DistributedSampler(range(4), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_exported_and_documented() -> None:
    assert "DistributedSampler" in mg.utils.data.__all__
    import doctest

    import minigrad.utils.data.distributed as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
