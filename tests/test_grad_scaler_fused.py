"""A ``GradScaler`` with a fused optimizer, against PyTorch's CPU: the scaler hands the optimizer its scale and
inf flag (``optimizer.grad_scale``, ``optimizer.found_inf``), and the fused kernel reads them where they are
(NOTE [ A fused step reads the scaler's flag on the device ] in minigrad/optim/update.py).

Each loop plants an infinity in one step's gradient, with and without ``unscale_`` before the step: the
parameters, the gradients the kernel unscaled, the state (Adam's step counts, float32 tensors on the
parameter's device) and the scales follow PyTorch's fused optimizers, and equal minigrad's own for-loop
bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

CASES = {
    "adamw": lambda fw, ps, **kw: fw.optim.AdamW(ps, lr=0.1, weight_decay=0.1, **kw),
    "adam-amsgrad": lambda fw, ps, **kw: fw.optim.Adam(ps, lr=0.05, amsgrad=True, weight_decay=0.01, **kw),
    "sgd-nesterov": lambda fw, ps, **kw: fw.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, **kw),
    "adagrad": lambda fw, ps, **kw: fw.optim.Adagrad(ps, lr=0.1, lr_decay=0.01, weight_decay=0.1, **kw),
}

_RNG = np.random.default_rng(0)
GRADS = [(_RNG.standard_normal((2, 3)), _RNG.standard_normal(4)) for _ in range(6)]
GRADS[2] = (np.full((2, 3), np.inf), GRADS[2][1])  # a step the scaler skips


def _loop(fw, case: str, fused: bool, unscale: bool, dtype: str = "float32") -> list[dict]:
    """Six scaled steps of ``case``; what each leaves: parameters, a gradient, the scale, a parameter's state."""
    dt = getattr(fw, dtype)
    p = fw.nn.Parameter(fw.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=dt))
    q = fw.nn.Parameter(fw.tensor(np.linspace(0.5, 2, 4), dtype=dt))
    opt = CASES[case](fw, [p, q], fused=fused)
    scaler = fw.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    seen = []
    for gp, gq in GRADS:
        opt.zero_grad()
        loss = (p * fw.tensor(gp, dtype=dt)).sum() + (q * fw.tensor(gq, dtype=dt)).sum()
        scaler.scale(loss).backward()
        if unscale:
            scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        seen.append({"p": p.detach().float().numpy().copy(), "q": q.detach().float().numpy().copy(),
                     "grad": p.grad.float().numpy().copy(), "scale": scaler.get_scale(),
                     "state": {k: v for k, v in opt.state[p].items()}})
    return seen


@pytest.mark.parametrize("unscale", [False, True], ids=["in-kernel", "unscale_"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_fused_optimizer_under_a_scaler_steps_as_pytorchs(case: str, unscale: bool) -> None:
    want = _loop(torch, case, True, unscale)
    got = _loop(mg, case, True, unscale)
    loop = _loop(mg, case, False, unscale)
    for i, (w, g, o) in enumerate(zip(want, got, loop)):
        assert g["scale"] == w["scale"] == o["scale"], i
        for k in ("p", "q", "grad"):
            np.testing.assert_allclose(g[k], w[k], rtol=2e-6, atol=1e-7, err_msg=f"{case} step {i}: {k}")
            assert g[k].tobytes() == o[k].tobytes(), f"{case} step {i}: {k} differs from the for-loop's"
        assert sorted(g["state"]) == sorted(w["state"])
        for k, v in g["state"].items():
            np.testing.assert_allclose(v.numpy(), w["state"][k].numpy(), rtol=2e-6, atol=1e-7, err_msg=k)
    if case != "sgd-nesterov":  # the skipped step is not counted: PyTorch's count up, then down by the flag
        step = got[-1]["state"]["step"]
        assert step.dtype == mg.float32 and step.device.type == "cpu" and step.item() == 5.0
        assert want[-1]["state"]["step"].item() == 5.0


def test_a_fused_step_takes_the_scalers_tensors_and_gives_them_back() -> None:
    """``scaler.step`` sets ``grad_scale`` (the scale, as nothing was unscaled) and ``found_inf`` on a fused
    optimizer for the length of its step, as PyTorch's; a for-loop optimizer is never handed them."""
    seen = {}
    for fw in (torch, mg):
        w = fw.nn.Parameter(fw.ones(3))
        opt = fw.optim.AdamW([w], lr=0.1, fused=True)
        plain = fw.optim.AdamW([w], lr=0.1)
        assert opt._step_supports_amp_scaling is True and not getattr(plain, "_step_supports_amp_scaling", False)
        real = opt.step

        def spy(*args, opt=opt, real=real, fw=fw):
            seen[fw.__name__] = (opt.grad_scale.item(), opt.found_inf.item())
            return real(*args)

        opt.step = spy
        scaler = fw.amp.GradScaler("cpu", init_scale=8.0)
        scaler.scale(w.sum()).backward()
        scaler.step(opt)
        assert not hasattr(opt, "grad_scale") and not hasattr(opt, "found_inf")
    assert seen["minigrad"] == seen["torch"] == (8.0, 0.0)


@pytest.mark.parametrize("flag", [1.0, 2.0, 0.5])
def test_the_kernel_skips_for_a_flag_of_exactly_one_as_pytorchs(flag: float) -> None:
    """PyTorch's fused kernels skip when ``found_inf == 1``; any other value steps, and the counts are taken down
    by the flag all the same (a flag of 2, two devices' infinities added, steps and counts -1)."""
    out = {}
    for fw in (torch, mg):
        p = fw.nn.Parameter(fw.ones(3))
        p.grad = fw.full((3,), 4.0)
        opt = fw.optim.AdamW([p], lr=0.1, fused=True)
        opt.grad_scale, opt.found_inf = fw.tensor(2.0), fw.tensor(flag)
        opt.step()
        out[fw.__name__] = (p.detach().numpy().copy(), p.grad.numpy().copy(), opt.state[p]["step"].item())
    for a, b in zip(out["minigrad"], out["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_only_a_fused_group_takes_a_scale_and_a_flag() -> None:
    for fw in (torch, mg):
        p = fw.nn.Parameter(fw.ones(3))
        p.grad = fw.ones(3)
        opt = fw.optim.Adam([p], lr=0.1)
        opt.grad_scale, opt.found_inf = fw.tensor(2.0), fw.tensor(0.0)
        with pytest.raises(AssertionError, match="Expected grad_scale and found_inf to be None"):
            opt.step()
        assert p.detach().numpy().tolist() == [1.0, 1.0, 1.0]


def test_an_optimizer_whose_step_takes_grad_scaler_is_handed_the_scaler() -> None:
    """PyTorch's older contract, kept with its FutureWarning: the scaler passes itself."""
    class Custom(mg.optim.SGD):
        _step_supports_amp_scaling = True

        def step(self, closure=None, grad_scaler=None):
            self.got = grad_scaler
            return "stepped"

    w = mg.nn.Parameter(mg.ones(2))
    opt = Custom([w], lr=0.1)
    scaler = mg.amp.GradScaler("cpu")
    scaler.scale(w.sum()).backward()
    with pytest.warns(FutureWarning, match="GradScaler is going to stop passing itself"):
        assert scaler.step(opt) == "stepped"
    assert opt.got is scaler
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)"):
        scaler.step(opt)


def test_float16_parameters_step_fused_under_a_scaler_as_pytorchs() -> None:
    """A fused optimizer's gradients may be float16: the scaler only checks them (``unscale_`` refuses them), and
    the kernel unscales them in float32."""
    want = _loop(torch, "adamw", True, False, "float16")
    got = _loop(mg, "adamw", True, False, "float16")
    for i, (w, g) in enumerate(zip(want, got)):
        assert g["scale"] == w["scale"], i
        for k in ("p", "q", "grad"):  # (minigrad's fused rounds each step of the rule to float16, PyTorch's does not)
            np.testing.assert_allclose(g[k], w[k], rtol=2e-3, atol=2e-3, err_msg=f"step {i}: {k}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
            _loop(mg, "adamw", True, True, "float16")


def test_a_fused_adams_state_loads_with_its_counts_on_the_parameters_device() -> None:
    """PyTorch's rule: a fused group's ``step`` loads as float32 on the parameter's device (a plain group's stays
    as saved); the loaded optimizer goes on as the one that saved it."""
    def make(fused: bool):
        p = mg.nn.Parameter(mg.tensor([1.0, -2.0, 3.0]))
        return p, mg.optim.AdamW([p], lr=0.1, fused=fused)

    p, opt = make(True)
    for _ in range(3):
        p.grad = mg.tensor([0.5, -1.0, 2.0])
        opt.step()
    saved = opt.state_dict()
    q, other = make(False)
    q.data.copy_(p.detach())
    other.load_state_dict(saved)  # the saved group says fused: its options travel with it
    step = other.state[q]["step"]
    assert step.dtype == mg.float32 and step.item() == 3.0 and other.param_groups[0]["fused"] is True
    for t in (p, q):
        t.grad = mg.tensor([0.25, 0.5, -1.0])
    opt.step()
    other.step()
    assert q.detach().numpy().tobytes() == p.detach().numpy().tobytes()
