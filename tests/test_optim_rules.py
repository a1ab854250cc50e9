"""Optimizers and lr schedulers follow PyTorch's rules step for step (float64, torch as the oracle).

Each optimizer sees the same parameters and the same gradients as torch's for
several steps; the parameters and the state must agree after every step.
Schedulers must produce torch's lr sequence (and momentum, for OneCycleLR).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _grads(steps: int, shapes: list[tuple[int, ...]]) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(7)
    return [[rng.standard_normal(s) for s in shapes] for _ in range(steps)]


OPTIMIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd-momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd-dampening-wd": ("SGD", {"lr": 0.1, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.05}),
    "sgd-nesterov-maximize": ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "maximize": True}),
    "adam-amsgrad-maximize": ("Adam", {"lr": 0.05, "amsgrad": True, "maximize": True, "weight_decay": 0.1}),
    "adamw-amsgrad": ("AdamW", {"lr": 0.05, "amsgrad": True}),
    "adam": ("Adam", {"lr": 0.05}),
    "adam-decoupled": ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "rmsprop": ("RMSprop", {}),
    "rmsprop-centered-momentum": ("RMSprop", {"lr": 0.05, "momentum": 0.7, "centered": True, "weight_decay": 0.1}),
    "rmsprop-maximize": ("RMSprop", {"alpha": 0.9, "eps": 1e-6, "maximize": True}),
    "adagrad": ("Adagrad", {}),
    "adagrad-decay": ("Adagrad", {"lr": 0.5, "lr_decay": 0.1, "initial_accumulator_value": 0.2, "weight_decay": 0.01}),
    "adagrad-maximize": ("Adagrad", {"maximize": True, "eps": 1e-5}),
    "adadelta": ("Adadelta", {}),
    "adadelta-wd": ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
    "nadam": ("NAdam", {}),
    "nadam-wd-maximize": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01, "maximize": True}),
    "nadam-decoupled": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "radam": ("RAdam", {"lr": 0.01}),
    "radam-warm": ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5), "weight_decay": 0.1}),
    "radam-decoupled-maximize": ("RAdam", {"lr": 0.01, "betas": (0.8, 0.6), "weight_decay": 0.1,
                                           "decoupled_weight_decay": True, "maximize": True}),
    "adamax": ("Adamax", {}),
    "adamax-wd": ("Adamax", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True}),
}


@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_optimizer_matches_torch_step_for_step(case: str) -> None:
    name, kwargs = OPTIMIZERS[case]
    shapes = [(3, 4), (4,)]
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s) for s in shapes]
    mps = [mg.nn.Parameter(mg.tensor(a.copy())) for a in init]
    tps = [torch.tensor(a.copy(), requires_grad=True) for a in init]
    mopt = getattr(mg.optim, name)(mps, **kwargs)
    topt = getattr(torch.optim, name)(tps, **kwargs)
    for step, gs in enumerate(_grads(5, shapes)):
        for mp, tp, g in zip(mps, tps, gs):
            mp.grad = mg.tensor(g.copy())
            tp.grad = torch.tensor(g.copy())
        mopt.step()
        topt.step()
        for mp, tp in zip(mps, tps):
            np.testing.assert_allclose(mp.detach().numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-14,
                                       err_msg=f"{case} step {step}")
    # The state has torch's keys and values.
    for mp, tp in zip(mps, tps):
        mst = mopt.state.get(mp, {})
        tst = {k: v for k, v in topt.state[tp].items() if v is not None}  # SGD keeps momentum_buffer=None
        assert set(mst) == set(tst), (case, set(mst), set(tst))
        for k, v in tst.items():
            got = mst[k]
            want = v.numpy() if isinstance(v, torch.Tensor) else v
            got = got.numpy() if isinstance(got, mg.Tensor) else got
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=f"{case} state {k}")


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                                  "NAdam", "RAdam"])
def test_optimizer_signature_is_torch_s(name: str) -> None:
    ours = inspect.signature(getattr(mg.optim, name))
    theirs = inspect.signature(getattr(torch.optim, name))
    skip = {"foreach", "capturable", "differentiable", "fused"}
    want = {k: p.default for k, p in theirs.parameters.items() if k not in skip}
    got = {k: p.default for k, p in ours.parameters.items() if k not in skip}
    assert got == want


def test_a_skipped_gradient_leaves_the_parameter_and_its_state_alone() -> None:
    a, b = mg.nn.Parameter(mg.ones(2)), mg.nn.Parameter(mg.ones(2))
    opt = mg.optim.RMSprop([a, b], lr=0.1)
    a.grad = mg.ones(2)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b not in opt.state


@pytest.mark.parametrize("name, kwargs, message", [
    ("RMSprop", {"alpha": -0.1}, "Invalid alpha value"),
    ("RMSprop", {"momentum": -1}, "Invalid momentum value"),
    ("Adagrad", {"lr_decay": -1}, "Invalid lr_decay value"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value"),
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0"),
    ("SGD", {"momentum": 0.9, "dampening": 0.1, "nesterov": True}, "Nesterov momentum requires"),
    ("Adamax", {"eps": -1}, "Invalid epsilon value"),
])
def test_invalid_hyper_parameters_raise_value_error_as_in_torch(name: str, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        getattr(mg.optim, name)([mg.nn.Parameter(mg.ones(2))], **kwargs)
    with pytest.raises(ValueError, match=message):
        getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **kwargs)


def test_sgd_default_lr_is_torch_s() -> None:
    assert mg.optim.SGD([mg.nn.Parameter(mg.ones(1))]).param_groups[0]["lr"] == \
        torch.optim.SGD([torch.ones(1, requires_grad=True)]).param_groups[0]["lr"]


def test_adagrad_state_exists_before_the_first_step() -> None:
    p = mg.nn.Parameter(mg.ones(3))
    opt = mg.optim.Adagrad([p], initial_accumulator_value=0.5)
    assert opt.state[p]["sum"].tolist() == [0.5, 0.5, 0.5]
    assert opt.state_dict()["state"][0]["step"] == 0


def test_updates_are_events_under_a_recorder() -> None:
    p = mg.nn.Parameter(mg.ones(2))
    opt = mg.optim.Adadelta([p])
    p.grad = mg.ones(2)
    with mg.trace() as tr:
        opt.step()
    updates = [e.op for e in tr.events if type(e).__name__ == "TensorUpdate" and e.tensor == p.id]
    assert updates == ["add_"]  # the parameter changes once, in place (PyTorch's add_ with alpha), as an event
    assert p.version == 1


# -- lr schedulers -----------------------------------------------------------------------------

def _lrs(lib: Any, opt_name: str, make: Any, steps: int, metrics: list[float] | None = None,
         momentum: bool = False) -> list[Any]:
    p = (mg.nn.Parameter(mg.ones(1)) if lib is mg else torch.ones(1, requires_grad=True))
    q = (mg.nn.Parameter(mg.ones(1)) if lib is mg else torch.ones(1, requires_grad=True))
    kw = {"momentum": 0.9} if opt_name == "SGD" else {}
    opt = getattr(lib.optim, opt_name)([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=0.1, **kw)
    sched = make(lib.optim.lr_scheduler, opt)
    out = []
    for i in range(steps):
        g = opt.param_groups[0]
        extra = (g["betas"][0] if "betas" in g else g["momentum"]) if momentum else None
        out.append(([round(x, 15) for x in (gg["lr"] for gg in opt.param_groups)], extra))
        opt.step()
        if metrics is not None:
            sched.step(metrics[i])
        else:
            sched.step()
    return out


SCHEDULERS = {
    "exponential": lambda L, o: L.ExponentialLR(o, gamma=0.9),
    "linear": lambda L, o: L.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=6),
    "linear-default": lambda L, o: L.LinearLR(o),
    "multistep": lambda L, o: L.MultiStepLR(o, milestones=[7, 3, 10], gamma=0.5),
    "warm-restarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, eta_min=0.001),
    "warm-restarts-mult": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2),
    "onecycle": lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=14),
    "onecycle-linear-3phase": lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 2.0], epochs=2, steps_per_epoch=7,
                                                        anneal_strategy="linear", three_phase=True, pct_start=0.25),
    "cyclic": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3),
    "cyclic-triangular2": lambda L, o: L.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2,
                                                  step_size_down=3, mode="triangular2"),
    "cyclic-exp-range": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range",
                                                gamma=0.9, base_momentum=0.7, max_momentum=0.95),
    "constant": lambda L, o: L.ConstantLR(o, factor=0.25, total_iters=3),
    "polynomial": lambda L, o: L.PolynomialLR(o, total_iters=8, power=2.0),
    "multiplicative": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.95),
    "multiplicative-per-group": lambda L, o: L.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.1]),
    "sequential-constant": lambda L, o: L.SequentialLR(o, [L.ConstantLR(o, factor=0.5, total_iters=2),
                                                           L.PolynomialLR(o, total_iters=6)], milestones=[3]),
    "sequential": lambda L, o: L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1, total_iters=4),
                                                  L.ExponentialLR(o, gamma=0.8)], milestones=[4]),
    "sequential-3": lambda L, o: L.SequentialLR(o, [L.ExponentialLR(o, gamma=0.5), L.StepLR(o, 2),
                                                    L.CosineAnnealingLR(o, T_max=5)], milestones=[3, 8]),
}


@pytest.mark.parametrize("case", sorted(SCHEDULERS))
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_scheduler_matches_torch_lr_sequence(case: str, opt_name: str) -> None:
    momentum = case.startswith(("onecycle", "cyclic"))
    ours = _lrs(mg, opt_name, SCHEDULERS[case], 14, momentum=momentum)
    theirs = _lrs(torch, opt_name, SCHEDULERS[case], 14, momentum=momentum)
    for (a, ma), (b, mb) in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
        if momentum:
            assert ma == pytest.approx(mb, rel=1e-12)


PLATEAU = {
    "min-rel": {"patience": 2},
    "max-abs-cooldown": {"mode": "max", "threshold_mode": "abs", "threshold": 0.05, "patience": 1, "cooldown": 2,
                         "factor": 0.5},
    "min-lr": {"patience": 0, "min_lr": [0.02, 0.3], "factor": 0.5},
    "eps": {"patience": 0, "eps": 0.05, "factor": 0.5},
}


@pytest.mark.parametrize("case", sorted(PLATEAU))
def test_reduce_lr_on_plateau_matches_torch(case: str) -> None:
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.89, 0.9, 0.9, 0.91, 0.92, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    make = lambda L, o: L.ReduceLROnPlateau(o, **PLATEAU[case])  # noqa: E731
    assert _lrs(mg, "SGD", make, len(metrics), metrics) == _lrs(torch, "SGD", make, len(metrics), metrics)


@pytest.mark.parametrize("make", [
    lambda L, o: L.OneCycleLR(o, max_lr=1.0),
    lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=0),
    lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="step"),
    lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=2.0),
    lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    lambda L, o: L.ReduceLROnPlateau(o, mode="middle"),
    lambda L, o: L.LinearLR(o, start_factor=0.0),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda L, o: L.ConstantLR(o, factor=1.5),
    lambda L, o: L.SequentialLR(o, [L.ExponentialLR(o, 0.9)], milestones=[2]),
])
def test_scheduler_errors_are_torch_s(make: Any) -> None:
    with pytest.raises(ValueError) as ours:
        make(mg.optim.lr_scheduler, mg.optim.SGD([mg.nn.Parameter(mg.ones(1))], lr=0.1))
    with pytest.raises(ValueError) as theirs:
        make(torch.optim.lr_scheduler, torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1))
    assert str(ours.value).split(",")[0][:30] == str(theirs.value).split(",")[0][:30]


def test_onecycle_refuses_to_step_past_total_steps() -> None:
    opt = mg.optim.SGD([mg.nn.Parameter(mg.ones(1))], lr=0.1, momentum=0.9)
    sched = mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        sched.step()


def test_onecycle_needs_momentum_or_betas() -> None:
    opt = mg.optim.Adagrad([mg.nn.Parameter(mg.ones(1))])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
