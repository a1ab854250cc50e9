"""The optimizer's surface as PyTorch's: ``optimizer.state[p]``, what ``state_dict()`` holds and prints (the step
as a 0-d tensor), ``step(closure)``, the step and state-dict hooks, named parameters, PyTorch's words for a bad
group, and the two older rules Rprop and ASGD step for step."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

ALL = [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {}), ("AdamW", {"amsgrad": True}), ("RMSprop", {"centered": True}),
       ("Adagrad", {}), ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}), ("RAdam", {}), ("Rprop", {}), ("ASGD", {"t0": 2}),
       ("Rprop", {"etas": (0.3, 1.7), "step_sizes": (1e-3, 0.5), "maximize": True}),
       ("ASGD", {"t0": 1, "weight_decay": 0.1, "lambd": 0.01})]

RNG = np.random.default_rng(3)


def _optimizer_module(lib: Any) -> Any:
    """``torch.optim.optimizer`` (PyTorch's package does not keep the submodule as an attribute)."""
    return importlib.import_module(f"{lib.__name__}.optim.optimizer")

W0, GRADS = RNG.standard_normal((3, 2)), RNG.standard_normal((6, 3, 2))
X16 = RNG.standard_normal((16, 4)).astype(np.float32)


def _train(lib: Any, name: str, kwargs: dict[str, Any], steps: int = 6, dtype: str = "float32") -> tuple[Any, Any]:
    """``steps`` steps from the same gradients (random signs: Rprop's two branches)."""
    w = lib.nn.Parameter(lib.tensor(W0, dtype=getattr(lib, dtype)))
    opt = getattr(lib.optim, name)([w], **kwargs)
    for k in range(steps):
        w.grad = lib.tensor(GRADS[k], dtype=getattr(lib, dtype))
        opt.step()
    return w, opt


@pytest.mark.parametrize("name, kwargs", ALL, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ALL)])
def test_every_optimizer_steps_and_prints_its_state_as_pytorch(name: str, kwargs: dict[str, Any]) -> None:
    tw, topt = _train(torch, name, kwargs, dtype="float64")
    mw, mopt = _train(mg, name, kwargs, dtype="float64")
    np.testing.assert_array_equal(mw.detach().numpy(), tw.detach().numpy(), err_msg=name)
    want, got = topt.state[tw], mopt.state[mw]  # keyed by the parameter, as PyTorch's
    assert list(got) == list(want)
    for k in want:
        assert str(got[k]).replace("minigrad", "torch") == str(want[k]), (name, k)
    assert str(mopt.state_dict()).replace("minigrad", "torch") == str(topt.state_dict())
    # float32: PyTorch's sqrt may be its SLEEF one, 1 ulp off the rounded root (docs/pytorch-coverage.md)
    tw, topt = _train(torch, name, kwargs)
    mw, mopt = _train(mg, name, kwargs)
    np.testing.assert_allclose(mw.detach().numpy(), tw.detach().numpy(), rtol=1e-6, err_msg=name)
    for k, v in topt.state[tw].items():
        assert mopt.state[mw][k].dtype.itemsize == v.dtype.itemsize
        np.testing.assert_allclose(mopt.state[mw][k].numpy(), v.numpy(), rtol=1e-5, atol=1e-7)


def test_the_state_dict_holds_the_optimizer_s_own_state_and_loads_it_back() -> None:
    w, opt = _train(mg, "Adam", {})
    sd = opt.state_dict()
    assert sd["state"][0] is opt.state[w]  # not a copy, as PyTorch's
    w2 = mg.nn.Parameter(mg.tensor(W0, dtype=mg.float64))
    opt2 = mg.optim.Adam([w2])
    opt2.load_state_dict(sd)
    st = opt2.state[w2]
    assert st["step"].dtype == mg.float32 and st["step"].item() == 6.0  # the count keeps its dtype
    assert st["exp_avg"].dtype == mg.float64  # a buffer takes its parameter's
    assert st["exp_avg"] is not opt.state[w]["exp_avg"]
    for bad, words in (({"state": {}, "param_groups": []}, "a different number of parameter groups"),
                       ({"state": {}, "param_groups": [{"params": [0, 1]}]},
                        "contains a parameter group that doesn't match the size of optimizer's group")):
        for lib, o in ((torch, torch.optim.Adam([torch.nn.Parameter(torch.ones(1))])), (mg, opt2)):
            with pytest.raises(ValueError, match=words):
                o.load_state_dict(bad)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Rprop", "ASGD", "NAdam"])
def test_step_with_a_closure_returns_its_loss_and_runs_it_with_gradients_on(name: str) -> None:
    results = []
    for lib in (torch, mg):
        w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
        opt = getattr(lib.optim, name)([w], lr=0.1)

        def closure() -> Any:
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        results.append((loss.item(), w.tolist()))
    assert results[0] == results[1]


def test_step_hooks_run_in_pytorch_s_order_and_may_change_the_arguments() -> None:
    logs = []
    for lib in (torch, mg):
        log: list[str] = []
        w = lib.nn.Parameter(lib.tensor([1.0]))
        opt = lib.optim.SGD([w], lr=0.1)
        handles = [_optimizer_module(lib).register_optimizer_step_pre_hook(lambda o, a, k: log.append("global pre")),
                   _optimizer_module(lib).register_optimizer_step_post_hook(lambda o, a, k: log.append("global post")),
                   opt.register_step_pre_hook(lambda o, a, k: log.append(f"pre {type(o).__name__} {a[0] is o} {len(a)} {k}")),
                   opt.register_step_post_hook(lambda o, a, k: log.append(f"post {len(a)} {sorted(k)}"))]
        swap = opt.register_step_pre_hook(lambda o, a, k: ((o,), {"closure": lambda: log.append("closure") or 1.0}))
        w.grad = lib.tensor([1.0])
        log.append(f"returned {opt.step()}")
        swap.remove()
        for h in handles:
            h.remove()
        opt.step()
        opt.register_step_pre_hook(lambda o, a, k: 5)
        with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, new_kwargs\), but got 5"):
            opt.step()
        logs.append((log, w.tolist()))
    assert logs[0] == logs[1]


def test_state_dict_hooks_as_pytorch_s() -> None:
    logs = []
    for lib in (torch, mg):
        log: list[Any] = []
        w = lib.nn.Parameter(lib.tensor([1.0]))
        opt = lib.optim.Adam([w], lr=0.1)
        opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
        opt.register_state_dict_pre_hook(lambda o: log.append("pre first"), prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        sd = opt.state_dict()
        log.append(sorted(sd))
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(f"load pre {sorted(sd)}"))
        opt.register_load_state_dict_pre_hook(
            lambda o, sd: {"state": {}, "param_groups": [{**sd["param_groups"][0], "lr": 0.5}]})
        opt.register_load_state_dict_post_hook(lambda o: log.append(f"load post {o.param_groups[0]['lr']}"))
        opt.load_state_dict(sd)
        logs.append(log)
    assert logs[0] == logs[1]


def test_named_parameters_keep_their_names_and_bad_groups_fail_in_pytorch_s_words() -> None:
    for lib in (torch, mg):
        lin = lib.nn.Linear(2, 1)
        opt = lib.optim.SGD(lin.named_parameters(), lr=0.1)
        assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
        assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]
        w = lib.nn.Parameter(lib.ones(2))
        with pytest.raises(ValueError, match="cannot add param group without names to the optimizer"):
            opt.add_param_group({"params": [w]})
        with pytest.raises(ValueError, match="Some param names are missing"):
            lib.optim.SGD([("a", w), lib.nn.Parameter(lib.ones(1))], lr=0.1)
        with pytest.raises(TypeError, match="the ordering of tensors in sets will change between runs"):
            opt.add_param_group({"params": {w}})
        with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
            lib.optim.SGD([], lr=0.1)
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            lib.optim.SGD([w * 2], lr=0.1)
        with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
            lib.optim.SGD([1], lr=0.1)
        with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got torch.FloatTensor"):
            lib.optim.SGD(lib.ones(2), lr=0.1)


def test_lbfgs_keeps_its_state_under_the_first_parameter() -> None:
    counts = []
    for lib in (torch, mg):
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.LBFGS([w], max_iter=3)

        def closure() -> Any:
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        opt.step(closure)
        counts.append((opt.state[w]["n_iter"], opt.state[w]["func_evals"]))
    assert counts[0] == counts[1]


@pytest.mark.parametrize("name, kwargs, words", [
    ("Rprop", {"etas": (1.5, 1.2)}, "Invalid eta values: 1.5, 1.2"),
    ("Rprop", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("ASGD", {"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
])
def test_the_older_rules_refuse_as_pytorch(name: str, kwargs: dict[str, Any], words: str) -> None:
    for lib in (torch, mg):
        with pytest.raises(ValueError, match=words):
            getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(1))], **kwargs)


@pytest.mark.parametrize("name", ["Rprop", "ASGD"])
def test_the_older_rules_show_as_events_and_match_on_a_model(name: str) -> None:
    results = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
        opt = getattr(lib.optim, name)(model.parameters(), lr=0.05, foreach=True)
        x = lib.tensor(X16)
        for _ in range(5):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        results.append([p.detach().numpy() for p in model.parameters()])
    for a, b in zip(*results):  # (float32 forward passes: their last bits may differ)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    w = mg.nn.Parameter(mg.ones(2))
    opt = getattr(mg.optim, name)([w])
    w.grad = mg.ones(2)
    with mg.trace() as tr:
        opt.step()
    assert any(e.kind == "api.call" and e.op == "masked_fill" for e in tr.events) or name == "ASGD"
    assert any(e.kind == "tensor.version" for e in tr.events)  # the update ran as ops a student can see

