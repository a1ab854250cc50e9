"""``nn.DataParallel`` and ``nn.SyncBatchNorm`` as PyTorch's on one machine, and batch norm's refusals and
``bias=False`` in PyTorch's words."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _model(T: Any) -> Any:
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.ReLU(), T.nn.Linear(4, 2)).double()


def _run(T: Any) -> list[Any]:
    model = _model(T)
    wrapped = T.nn.DataParallel(model)
    x = T.linspace(-1, 1, 15, dtype=T.float64).reshape(5, 3)
    out = wrapped(x)
    out.sum().backward()
    synced = T.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    sync_out = synced(x)
    return [repr(wrapped), wrapped.device_ids, list(wrapped.state_dict()), repr(synced), synced is model,
            synced[1].weight is model[1].weight, out.detach().numpy(), model[0].weight.grad.numpy(),
            sync_out.detach().numpy(), model[1].running_mean.numpy(), model[1].num_batches_tracked.item()]


def test_data_parallel_and_sync_batch_norm_on_one_machine_as_pytorch() -> None:
    got, want = _run(mg), _run(torch)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
        else:
            assert (g.replace("minigrad", "torch") if isinstance(g, str) else g) == w


MISUSE: dict[str, Callable[[Any], Any]] = {
    "batch-norm-1d-rank": lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 3, 4, 5)),
    "batch-norm-2d-rank": lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3)),
    "batch-norm-3d-rank": lambda T: T.nn.BatchNorm3d(2)(T.ones(2, 2, 2, 2)),
    "batch-norm-channels": lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 4)),
    "batch-norm-channels-no-stats": lambda T: T.nn.BatchNorm1d(3, track_running_stats=False)(T.ones(2, 4)),
    "sync-batch-norm-rank": lambda T: T.nn.SyncBatchNorm(3)(T.ones(3)),
    "sync-batch-norm-one-value": lambda T: T.nn.SyncBatchNorm(3)(T.ones(1, 3)),
}


@pytest.mark.parametrize("name", list(MISUSE))
def test_batch_norm_refuses_in_pytorchs_words(name: str) -> None:
    with pytest.raises(Exception) as want:
        MISUSE[name](torch)
    with pytest.raises(Exception) as got:
        MISUSE[name](mg)
    assert type(got.value) is type(want.value)
    assert str(got.value).replace("minigrad", "torch") == str(want.value)


def test_batch_norm_without_a_shift_as_pytorch() -> None:
    def run(T: Any) -> list[Any]:
        bn = T.nn.BatchNorm2d(2, bias=False).double()
        y = bn(T.linspace(-2, 2, 16, dtype=T.float64).reshape(2, 2, 2, 2))
        y.pow(2).sum().backward()
        return [repr(bn), [n for n, _ in bn.named_parameters()], y.detach().numpy(), bn.weight.grad.numpy()]

    got, want = run(mg), run(torch)
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-12)
