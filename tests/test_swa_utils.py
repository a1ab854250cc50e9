"""``optim.swa_utils`` against PyTorch's CPU: the averaged parameters and buffers of SWA and EMA bit for bit (the
model's parameters set to the same values at each step), SWALR's learning rates, update_bn's statistics."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

AVERAGES = {
    "swa (default)": lambda S: {},
    "ema multi": lambda S: {"multi_avg_fn": S.get_ema_multi_avg_fn(0.9)},
    "ema one": lambda S: {"avg_fn": S.get_ema_avg_fn(0.9)},
    "swa one": lambda S: {"avg_fn": S.get_swa_avg_fn()},
    "swa multi": lambda S: {"multi_avg_fn": S.get_swa_multi_avg_fn()},
}


def _swa(L):
    return importlib.import_module(f"{L.__name__}.optim.swa_utils")


def _average(L, kind: str, use_buffers: bool, steps: int = 6):
    S = _swa(L)
    model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4))
    avg = S.AveragedModel(model, use_buffers=use_buffers, **AVERAGES[kind](S))
    for i in range(steps):
        rng = np.random.default_rng(i)
        with L.no_grad():
            for t in [*model.parameters(), *(b for b in model.buffers() if b.dtype.is_floating_point)]:
                t.copy_(L.tensor(rng.standard_normal(tuple(t.shape)), dtype=t.dtype))
            model[1].num_batches_tracked.fill_(i * 3)
        try:
            avg.update_parameters(model)
        except RuntimeError as e:
            return f"RuntimeError: {e}"
    return {k: (str(v.dtype).split(".")[-1], v.detach().numpy()) for k, v in avg.state_dict().items()}


@pytest.mark.parametrize("use_buffers", [False, True], ids=["parameters", "and buffers"])
@pytest.mark.parametrize("kind", sorted(AVERAGES))
def test_averaged_models_are_pytorchs_bit_for_bit(kind: str, use_buffers: bool) -> None:
    want, got = _average(torch, kind, use_buffers), _average(mg, kind, use_buffers)
    if isinstance(want, str):  # PyTorch's multi-tensor SWA refuses an integer buffer (num_batches_tracked)
        assert got == want
        return
    assert sorted(got) == sorted(want)
    for k in want:
        assert got[k][0] == want[k][0] and got[k][1].tobytes() == want[k][1].tobytes(), k


@pytest.mark.parametrize("kw", [{"swa_lr": 0.05}, {"swa_lr": 0.05, "anneal_strategy": "linear"},
                                {"swa_lr": 0.05, "anneal_epochs": 0}, {"swa_lr": [0.05, 0.01], "anneal_epochs": 3}])
def test_swalr_anneals_as_pytorchs(kw) -> None:
    seqs = []
    for L in (torch, mg):
        opt = L.optim.SGD([{"params": [L.nn.Parameter(L.ones(2))]}, {"params": [L.nn.Parameter(L.ones(2))], "lr": 0.3}],
                          lr=0.5)
        sched = _swa(L).SWALR(opt, **kw)
        seq = []
        for _ in range(14):
            opt.step()
            sched.step()
            seq.append([g["lr"] for g in opt.param_groups])
        seqs.append(seq)
    assert seqs[1] == seqs[0]


@pytest.mark.parametrize("kw", [{"swa_lr": [0.1]}, {"swa_lr": 0.1, "anneal_strategy": "exp"},
                                {"swa_lr": 0.1, "anneal_epochs": -1}])
def test_swalr_refuses_as_pytorch(kw) -> None:
    words = []
    for L in (torch, mg):
        opt = L.optim.SGD([L.nn.Parameter(L.ones(2))], lr=0.5)
        with pytest.raises(ValueError) as e:
            _swa(L).SWALR(opt, **{**kw, "swa_lr": [0.1, 0.2] if isinstance(kw["swa_lr"], list) else kw["swa_lr"]})
        words.append(str(e.value))
    assert words[1] == words[0]


def test_update_bn_recomputes_the_statistics_with_a_cumulative_average() -> None:
    got = []
    for L in (torch, mg):
        model = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4, momentum=0.3))
        with L.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(L.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape)), dtype=L.float32))
        model.eval()
        loader = [(L.tensor(np.random.default_rng(10 + i).standard_normal((6, 3)), dtype=L.float32), 0)
                  for i in range(4)]
        _swa(L).update_bn(loader, model)
        bn = model[1]
        got.append((bn.running_mean.numpy(), bn.running_var.numpy(), int(bn.num_batches_tracked), bn.momentum,
                    model.training))
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-6, atol=1e-7)
    assert got[1][2:] == got[0][2:] == (4, 0.3, False)


def test_an_averaged_model_runs_its_copy_and_saves_its_count() -> None:
    model = mg.nn.Linear(2, 1)
    avg = _swa(mg).AveragedModel(model)
    assert avg(mg.ones(1, 2)).shape == (1, 1) and int(avg.n_averaged) == 0
    assert list(avg.state_dict()) == list(_swa(torch).AveragedModel(torch.nn.Linear(2, 1)).state_dict())
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        _swa(mg).AveragedModel(model, avg_fn=_swa(mg).get_swa_avg_fn(), multi_avg_fn=_swa(mg).get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in \[0,1\] range."):
        _swa(mg).get_ema_multi_avg_fn(1.5)
