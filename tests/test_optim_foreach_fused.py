"""The foreach and fused forms of SGD, Adam and AdamW on the CPU (NOTE [ One rule, three forms ] in
``minigrad/optim/update.py``): the same values as the for-loop form, PyTorch's values, its checks.

Against the for-loop the comparison is bit for bit (float16 too, whose for-loop runs as ops): every
form does the rule's steps in the same order, each rounded to the parameter's dtype. Against PyTorch's
for-loop it is bit for bit too, given one square root (NOTE [ An optimizer's step is PyTorch's, bit for
bit ]): PyTorch's CPU ``sqrt`` comes from MKL's vector math library, within an ulp and depending on the
CPU, where minigrad's (NumPy's, and CUDA's) is correctly rounded. Against PyTorch's own foreach and
fused forms it is to rounding: those order some steps differently.
The same checks on the stand-in GPU are in ``tests/gpu/test_optim_forms_gpu.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import optim

#: name -> (class name, keyword arguments): momentum, Nesterov, weight decay, maximize, amsgrad
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd-momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd-nesterov-wd": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    "sgd-dampening-maximize": ("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "maximize": True}),
    "adam": ("Adam", {"lr": 0.01}),
    "adam-l2": ("Adam", {"lr": 0.01, "weight_decay": 0.1}),
    "adam-amsgrad-maximize": ("Adam", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    "adamw": ("AdamW", {"lr": 0.01}),
    "adamw-amsgrad": ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True, "betas": (0.8, 0.99)}),
    # foreach only (minigrad has no fused form of these)
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop-centered-momentum-wd": ("RMSprop", {"lr": 0.01, "momentum": 0.7, "centered": True, "weight_decay": 0.1}),
    "adagrad": ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.2}),
    "adagrad-wd-maximize": ("Adagrad", {"lr": 0.1, "weight_decay": 0.05, "maximize": True}),
    "adadelta": ("Adadelta", {}),
    "adadelta-wd-maximize": ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    "adamax": ("Adamax", {"lr": 0.01}),
    "adamax-wd-maximize": ("Adamax", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True}),
    "nadam": ("NAdam", {"lr": 0.01}),
    "nadam-decoupled-maximize": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
                                           "momentum_decay": 0.01, "maximize": True}),
    "radam": ("RAdam", {"lr": 0.01}),  # rho_t > 5 from the sixth step: the first five are plain momentum
    "radam-warm-wd": ("RAdam", {"lr": 0.01, "betas": (0.9, 0.5), "weight_decay": 0.1}),
}
#: the classes with a fused form
FUSED = {"SGD", "Adam", "AdamW", "Adagrad"}
FORMS = {"for-loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}
SHAPES = [(3, 4), (4,), (2, 3, 2), (1,), (5, 1)]


def _arrays(seed: int = 0) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """Initial values of the parameters and the gradients of each step (float64)."""
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(5)]
    return init, grads


def run_mg(case: str, form: str, dtype: str, device: str = "cpu", steps: int = 5) -> tuple[list, Any]:
    """``steps`` steps of ``case`` in ``form``; the parameters' values and the optimizer."""
    cls, kw = CASES[case]
    init, grads = _arrays()
    ps = [mg.nn.Parameter(mg.tensor(a, dtype=dtype).to(device)) for a in init]
    opt = getattr(optim, cls)(ps, **kw, **FORMS[form])
    for k in range(steps):
        for p, g in zip(ps, grads[k]):
            p.grad = mg.tensor(g, dtype=dtype).to(device)
        opt.step()
    return [p.detach().cpu().numpy() for p in ps], opt


def run_torch(case: str, form: str, dtype: str, steps: int = 5, device: str = "cpu") -> list[np.ndarray]:
    cls, kw = CASES[case]
    init, grads = _arrays()
    tdt = getattr(torch, dtype)
    ps = [torch.nn.Parameter(torch.tensor(a, dtype=tdt, device=device)) for a in init]
    opt = getattr(torch.optim, cls)(ps, **kw, **FORMS[form])
    for k in range(steps):
        for p, g in zip(ps, grads[k]):
            p.grad = torch.tensor(g, dtype=tdt, device=device)
        opt.step()
    return [p.detach().cpu().numpy() for p in ps]


def _state(opt: Any) -> list[dict[str, Any]]:
    return [{k: (v.cpu().numpy() if isinstance(v, mg.Tensor) else v) for k, v in st.items()}
            for st in opt.state.values()]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("form", ["foreach", "fused"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_form_gives_the_for_loop_s_values_bit_for_bit(case: str, form: str, dtype: str) -> None:
    if form == "fused" and CASES[case][0] not in FUSED:
        pytest.skip(f"{CASES[case][0]} has no fused form")
    want, loop = run_mg(case, "for-loop", dtype)
    got, opt = run_mg(case, form, dtype)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (case, form)
    sa, sb = _state(opt), _state(loop)
    assert [sorted(s) for s in sa] == [sorted(s) for s in sb]
    for x, y in zip(sa, sb):
        for k in x:
            assert np.array_equal(x[k], y[k]), (case, form, k)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["foreach", "fused"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_form_gives_torch_s_values_in_the_same_form(case: str, form: str, dtype: str) -> None:
    if form == "fused" and CASES[case][0] not in FUSED:
        pytest.skip(f"{CASES[case][0]} has no fused form")
    got, _ = run_mg(case, form, dtype)
    want = run_torch(case, form, dtype)
    rtol, atol = (1e-12, 1e-14) if dtype == "float64" else (2e-6, 2e-7)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{case} {form}")


def _correctly_rounded_sqrt(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyTorch's ``Tensor.sqrt``/``sqrt_`` rounded correctly (NumPy's), as minigrad's are."""
    def sqrt(self: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.sqrt(self.numpy()))

    def sqrt_(self: torch.Tensor) -> torch.Tensor:
        return self.copy_(sqrt(self))

    monkeypatch.setattr(torch.Tensor, "sqrt", sqrt)
    monkeypatch.setattr(torch.Tensor, "sqrt_", sqrt_)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["for-loop", "foreach", "fused"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_form_gives_torch_s_for_loop_bit_for_bit(case: str, form: str, dtype: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step is PyTorch's op (``add_`` with ``alpha``, ``lerp_``, ``addcmul_``, ``addcdiv_``: one rounding
    each), so after five steps every bit of every parameter is PyTorch's (its square root made exact)."""
    if form == "fused" and CASES[case][0] not in FUSED:
        pytest.skip(f"{CASES[case][0]} has no fused form")
    _correctly_rounded_sqrt(monkeypatch)
    got, _ = run_mg(case, form, dtype)
    want = run_torch(case, "for-loop", dtype)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (case, form, int((a != b).sum()))


def test_the_recorded_for_loop_is_torch_s_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a recorder the for-loop runs as ops (each one events): the same bits as PyTorch's."""
    _correctly_rounded_sqrt(monkeypatch)
    for case in ("sgd-nesterov-wd", "adamw-amsgrad", "rmsprop-centered-momentum-wd", "adadelta", "radam-warm-wd"):
        with mg.trace():
            got, _ = run_mg(case, "for-loop", "float32")
        for a, b in zip(got, run_torch(case, "for-loop", "float32")):
            assert a.tobytes() == b.tobytes(), case


def test_the_forms_really_differ_in_what_they_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fused form calls the fused kernel once for the whole group (and, as PyTorch's, one multi-tensor
    add that counts the step tensors up); foreach calls the multi-tensor kernels once per step of the rule;
    the for-loop calls neither."""
    from minigrad.optim import update

    calls: list[str] = []
    real = update.kernel_of

    def spy(op: str, p: mg.Tensor) -> Any:
        fn = real(op, p)
        return lambda *a, **k: (calls.append(op), fn(*a, **k))[1]

    monkeypatch.setattr(update, "kernel_of", spy)
    monkeypatch.setattr(optim.adam, "kernel_of", spy)
    monkeypatch.setattr(optim.optimizer, "kernel_of", spy)
    for form, expect in (("fused", {"_fused_adam_": 2, "_foreach_binary": 2}), ("for-loop", {})):
        calls.clear()
        run_mg("adamw-amsgrad", form, "float32", steps=2)
        assert {op: calls.count(op) for op in set(calls)} == expect, form
    calls.clear()
    run_mg("adamw-amsgrad", "foreach", "float32", steps=2)
    # list_path looks the multi-tensor kernels up once per step: each bucket is one call of the rule
    assert calls and set(calls) <= {"_foreach_unary", "_foreach_binary", "_foreach_op"}


@pytest.mark.parametrize("form", ["foreach", "fused"])
@pytest.mark.parametrize("case", ["sgd-nesterov-wd", "adamw-amsgrad"])
def test_state_dict_round_trip_continues_as_if_uninterrupted(case: str, form: str) -> None:
    want, _ = run_mg(case, form, "float64", steps=5)
    got, opt = run_mg(case, form, "float64", steps=3)
    cls, kw = CASES[case]
    ps = [mg.nn.Parameter(mg.tensor(a)) for a in got]
    other = "fused" if form == "foreach" else "foreach"  # the state does not depend on the form
    fresh = getattr(optim, cls)(ps, **kw, **FORMS[other])
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[0][next(iter(FORMS[form]))] is True  # the options travel too
    _, grads = _arrays()
    for k in (3, 4):
        for p, g in zip(ps, grads[k]):
            p.grad = mg.tensor(g)
        fresh.step()
    for a, p in zip(want, ps):
        assert a.tobytes() == p.detach().numpy().tobytes()


def _torch_error(fn: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW"])
@pytest.mark.parametrize("kw", [{"fused": True, "foreach": True}, {"fused": True, "differentiable": True}])
def test_construction_refusals_are_torch_s(cls: str, kw: dict[str, Any]) -> None:
    err, msg = _torch_error(lambda: getattr(torch.optim, cls)([torch.nn.Parameter(torch.ones(2))], lr=0.1, **kw))
    with pytest.raises(err) as info:
        getattr(optim, cls)([mg.nn.Parameter(mg.ones(2))], lr=0.1, **kw)
    assert str(info.value) == msg


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW"])
def test_a_differentiable_step_on_leaves_is_refused_as_torch_refuses_it(cls: str) -> None:
    tp = torch.nn.Parameter(torch.ones(2))
    tp.grad = torch.ones(2)
    err, msg = _torch_error(lambda: getattr(torch.optim, cls)([tp], lr=0.1, differentiable=True).step())
    p = mg.nn.Parameter(mg.ones(2))
    p.grad = mg.ones(2)
    opt = getattr(optim, cls)([p], lr=0.1, differentiable=True)
    with pytest.raises(err) as info:
        opt.step()
    assert str(info.value) == msg
    assert p.tolist() == [1.0, 1.0] and not opt.state  # nothing changed


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
def test_capturable_on_cpu_parameters_is_refused_as_torch_refuses_it(cls: str) -> None:
    tp = torch.nn.Parameter(torch.ones(2))
    tp.grad = torch.ones(2)
    err, msg = _torch_error(lambda: getattr(torch.optim, cls)([tp], lr=0.1, capturable=True).step())
    p = mg.nn.Parameter(mg.ones(2))
    p.grad = mg.ones(2)
    with pytest.raises(err) as info:
        getattr(optim, cls)([p], lr=0.1, capturable=True).step()
    # PyTorch lists its capturable devices (cuda, xpu, hpu, ...); minigrad's is the GPU alone
    assert str(info.value).split(":")[0] == msg.split(":")[0]
    # fused with capturable works on the CPU, as in PyTorch
    getattr(optim, cls)([p], lr=0.1, capturable=True, fused=True).step()


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_options_are_torch_s_and_in_the_groups(cls: str) -> None:
    import inspect

    ours = inspect.signature(getattr(optim, cls)).parameters
    theirs = inspect.signature(getattr(torch.optim, cls)).parameters
    for name in ("foreach", "fused", "differentiable", "capturable"):
        if name in theirs and (name != "fused" or cls in FUSED):  # (Adagrad's fused form is PyTorch's alone)
            assert name in ours and ours[name].default == theirs[name].default, name
            assert ours[name].kind == theirs[name].kind, name
    form = {"fused": True} if cls in FUSED else {"foreach": True}
    group = getattr(optim, cls)([mg.nn.Parameter(mg.ones(2))], lr=0.1, **form).state_dict()["param_groups"][0]
    tgroup = getattr(torch.optim, cls)([torch.nn.Parameter(torch.ones(2))], lr=0.1, **form).state_dict()
    for name in ("foreach", "fused", "differentiable", "capturable"):
        if name in tgroup["param_groups"][0] and (name != "fused" or cls in FUSED):
            assert group[name] == tgroup["param_groups"][0][name], name


def test_foreach_defaults_to_the_for_loop_on_the_cpu() -> None:
    p = mg.nn.Parameter(mg.ones(2))
    opt = optim.AdamW([p], lr=0.1)
    assert opt.param_groups[0]["foreach"] is None and opt.param_groups[0]["fused"] is None
    assert opt._form(opt.param_groups[0], [p]) == "for-loop"
    asked = optim.AdamW([p], lr=0.1, foreach=True)
    assert asked._form(asked.param_groups[0], [p]) == "foreach"


@pytest.mark.parametrize("form", ["foreach", "fused"])
def test_a_recorded_step_emits_the_for_loop_s_events(form: str) -> None:
    """With a recorder every form steps as ops, so a trace shows each update as the for-loop's. The fused form
    first makes its step count, a tensor on the parameter's device (PyTorch's fused ``step``)."""
    def events(form: str) -> list[tuple[str, Any]]:
        w = mg.nn.Parameter(mg.tensor([1.0, -1.0]))
        opt = optim.Adam([w], lr=0.1, **FORMS[form])
        (w * w).sum().backward()
        with mg.trace() as tr:
            opt.step()
        return [(e.kind, getattr(e, "op", None)) for e in tr.events]

    loop = events("for-loop")
    assert sum(k == "api.call" for k, _ in loop) >= 8  # every op of Adam's rule
    made = [("tensor.create", None)] if form == "fused" else []
    assert events(form) == made + loop


def test_a_parameter_with_a_live_view_takes_the_for_loop_inside_fused() -> None:
    w = mg.nn.Parameter(mg.tensor([1.0, 2.0, 3.0]))
    u = mg.nn.Parameter(mg.tensor([1.0, 2.0]))
    v = w[:2]  # noqa: F841 - a live view: the update must give it a fresh grad node, as the op does
    opt = optim.SGD([w, u], lr=0.1, fused=True)
    w.grad, u.grad = mg.ones(3), mg.ones(2)
    opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.9, 1.9, 2.9])
    np.testing.assert_allclose(u.detach().numpy(), [0.9, 1.9])


@pytest.mark.parametrize("form", ["foreach", "fused"])
@pytest.mark.parametrize("case", ["sgd-nesterov-wd", "adamw-amsgrad", "adam-l2"])
def test_parameters_at_different_steps_and_groups_match_the_for_loop(case: str, form: str) -> None:
    """A parameter without a gradient on some steps falls behind in its step count (and, for SGD, in
    having a momentum buffer), and a second group has its own options: buckets keep them apart."""
    cls, kw = CASES[case]
    init, grads = _arrays(3)

    def run(form: str) -> list[bytes]:
        ps = [mg.nn.Parameter(mg.tensor(a, dtype="float32")) for a in init]
        groups = [{"params": ps[:3]}, {"params": ps[3:], "lr": kw["lr"] * 3}]
        opt = getattr(optim, cls)(groups, **kw, **FORMS[form])
        for k in range(5):
            for i, (p, g) in enumerate(zip(ps, grads[k])):
                p.grad = None if (i + k) % 3 == 0 else mg.tensor(g, dtype="float32")
            opt.step()
        return [p.detach().numpy().tobytes() for p in ps]

    assert run(form) == run("for-loop")


def test_a_refusal_in_a_later_group_leaves_every_group_unchanged() -> None:
    """Every group's form is settled before any update, so a refused step changes nothing."""
    a, b = mg.nn.Parameter(mg.ones(2)), mg.nn.Parameter(mg.ones(2))
    opt = optim.Adam([{"params": [a]}, {"params": [b], "capturable": True}], lr=0.1)
    a.grad, b.grad = mg.ones(2), mg.ones(2)
    with pytest.raises(AssertionError, match="capturable"):
        opt.step()
    assert a.tolist() == [1.0, 1.0] and a.version == 0 and not opt.state


class _ToyArray(np.ndarray):
    """Arrays of a backend of the test's own, with no fused kernels."""


def test_fused_on_a_device_without_fused_kernels_is_refused_in_torch_s_words() -> None:
    tp = torch.nn.Parameter(torch.ones(2, device="meta"))
    tp.grad = torch.ones(2, device="meta")
    err, msg = _torch_error(lambda: torch.optim.AdamW([tp], fused=True).step())
    mg.register_backend("TOYOPT", to_device=lambda a: np.array(a).view(_ToyArray),
                        to_host=lambda a: np.array(a).view(np.ndarray), array_types=(_ToyArray,))
    try:
        p = mg.nn.Parameter(mg.ones(2).to("toyopt"))
        p.grad = mg.ones(2).to("toyopt")
        opt = optim.AdamW([p], fused=True)
        with pytest.raises(err) as info:
            opt.step()
        # the same words; the lists of devices are each framework's own
        assert str(info.value).split(":")[0] == msg.split(":")[0]
        assert str(info.value).endswith("but minigrad.float32 and toyopt") and msg.endswith("but torch.float32 and meta")
        # the foreach form runs such parameters as the for-loop
        optim.AdamW([p], lr=0.5, foreach=True).step()
        np.testing.assert_allclose(p.detach().cpu().numpy(), [1 - 0.5 * 0.01 - 0.5] * 2, rtol=1e-6)
    finally:
        mg.unregister_backend("TOYOPT")
