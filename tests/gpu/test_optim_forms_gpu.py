"""The optimizers' foreach and fused forms on the GPU: the for-loop's values, and few launches per step.

On a device these run as they are; on every other machine ``test_on_the_stand_in`` runs this file
against the stand-in CuPy (``fake_cupy.py``), which emulates the multi-tensor kernels with the ops'
CPU kernels and the fused kernels with minigrad's CPU fused kernels (the rule on the arrays), and
counts every launch. What the stand-in proves: the forms pick the right kernels, pass every slot's
pointers, sizes and scalars as the CUDA signatures declare, keep the state, and launch a number of
kernels per step that does not grow with the parameters (up to ``SLOTS`` per launch). What only a
device proves: that the CUDA C computes the rule (``test_fused_kernels_agree_with_the_stand_in``).

Values are compared bit for bit: every form rounds each step of the rule to the parameter's dtype,
as the per-op kernels do (the fused kernels write the ops' fused multiply-adds as ``fma`` and are
compiled with ``--fmad=false``), so float16, float32 and float64 all give the for-loop's bits, and on
a device PyTorch CUDA's for-loop's (whose ``sqrt``, unlike its CPU's, is correctly rounded; its
``addcmul``/``addcdiv`` round otherwise than its CPU's, and so do minigrad's: SGD's steps alone are the
CPU's bits too).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
from minigrad import optim

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: the cases of the CPU file
from test_optim_foreach_fused import CASES, FUSED, run_mg  # noqa: E402


@pytest.mark.skipif(mg.is_gpu_available() or os.environ.get("MINIGRAD_FAKE_CUPY") == "1",
                    reason="runs on the device itself / is the stand-in run")
def test_on_the_stand_in():
    env = dict(os.environ, MINIGRAD_FAKE_CUPY="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", __file__],
                       cwd=HERE.parents[1], env=env, capture_output=True, text=True, timeout=600)
    tail = (r.stdout + r.stderr)[-4000:]
    assert r.returncode == 0, tail
    # skipped there: this runner, the shadowing that needs a device, the fused form of each case of an
    # optimizer without one (three dtypes each), and the comparison with PyTorch CUDA (every case, form
    # and dtype: the stand-in has none)
    unfused = 3 * sum(cls not in FUSED for cls, _ in CASES.values())
    cuda = 3 * 2 * len(CASES)
    assert " passed" in tail and f"{2 + unfused + cuda} skipped" in tail.splitlines()[-1], tail


class _Launches:
    """Counts kernel launches: the stand-in's own counter, or (``device=True``, and always on a device) every
    launch of a hand-written kernel (``_runtime.record_launches``)."""

    def __init__(self, device: bool = False) -> None:
        import cupy

        self.fake = getattr(cupy, "__fake__", False) and not device

    def __enter__(self) -> "_Launches":
        from minigrad.kernels.gpu import _runtime

        if self.fake:
            import fake_cupy

            self.table = fake_cupy.LAUNCHES
            self.table.clear()
        else:
            self.recording = _runtime.record_launches()
            self.seen = self.recording.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fake:
            self.count = sum(self.table.values())
        else:
            self.recording.__exit__(*exc)
            self.count = len(self.seen)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("form", ["foreach", "fused"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_form_gives_the_for_loop_s_values_bit_for_bit(case: str, form: str, dtype: str) -> None:
    if form == "fused" and CASES[case][0] not in FUSED:
        pytest.skip(f"{CASES[case][0]} has no fused form")
    want, loop = run_mg(case, "for-loop", dtype, "gpu")
    got, opt = run_mg(case, form, dtype, "gpu")
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (case, form)
    for st, st_loop in zip(opt.state.values(), loop.state.values()):
        assert sorted(st) == sorted(st_loop)
        for k, v in st.items():
            if isinstance(v, mg.Tensor):
                # the counts stay on the CPU (PyTorch's): the rule reads them as numbers, with no copy back from
                # the device; but the fused form's step, a float32 on the device, which its kernel reads there
                on_cpu = k == "mu_product" or (k == "step" and form != "fused")
                device = "cpu" if on_cpu else "cuda"
                assert v.device == device and v.numpy().tobytes() == st_loop[k].numpy().tobytes(), k
            else:
                assert v == st_loop[k], k
    # The CPU's bits too where the rule's ops round alike on both: SGD's (``add_`` with alpha, ``mul_``). The
    # others' ``addcmul_``/``addcdiv_`` round as PyTorch CUDA's kernels do, not as its CPU's (``_addc`` in
    # ops/pointwise.py), and the CPU's float16 for-loop runs other kernels (float32 inside).
    if dtype != "float16" and CASES[case][0] == "SGD":
        cpu, _ = run_mg(case, "for-loop", dtype, "cpu")
        for a, b in zip(got, cpu):
            assert a.tobytes() == b.tobytes(), (case, form, "cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["for-loop", "foreach", "fused"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_form_gives_pytorch_cudas_for_loop_bit_for_bit(case: str, form: str, dtype: str) -> None:
    """On a device with PyTorch CUDA: minigrad's GPU step, every form, has the bits of PyTorch CUDA's for-loop
    (NOTE [ An optimizer's step is PyTorch's, bit for bit ] in minigrad/optim/update.py)."""
    import cupy

    torch = pytest.importorskip("torch")
    if getattr(cupy, "__fake__", False) or not torch.cuda.is_available():
        pytest.skip("needs PyTorch CUDA (the stand-in's values are the CPU's: tests/test_optim_foreach_fused.py)")
    if form == "fused" and CASES[case][0] not in FUSED:
        pytest.skip(f"{CASES[case][0]} has no fused form")
    from test_optim_foreach_fused import run_torch

    got, _ = run_mg(case, form, dtype, "gpu")
    want = run_torch(case, "for-loop", dtype, device="cuda")
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes(), (case, form, int((a != b).sum()))


def _model(n: int, dtype: str = "float32") -> list[mg.Tensor]:
    rng = np.random.default_rng(n)
    return [mg.nn.Parameter(mg.tensor(rng.standard_normal((3 + k % 4, 5)), dtype=dtype).to("gpu")) for k in range(n)]


def _launches_per_step(make, n: int, device: bool = False) -> int:
    """Launches of one steady-state step (after two steps made the state) of ``make(params)`` on ``n`` params
    (``device``: counted as a device counts them, also on the stand-in)."""
    ps = _model(n)
    opt = make(ps)
    for p in ps:
        p.grad = mg.ones(*p.shape).to("gpu")
    opt.step()
    opt.step()
    with _Launches(device) as seen:
        opt.step()
    return seen.count


#: launches per steady step, written down: the fused forms are one kernel (Adam's with one multi-tensor add
#: before it that counts its step tensors, as PyTorch's ``_fused_adam``); foreach is one kernel per
#: op of PyTorch's for-loop (AdamW: ``mul_``, ``lerp_``, ``mul_``, ``addcmul_``, ``sqrt``, ``div_``, ``add_``,
#: ``addcdiv_``, as PyTorch's ``_multi_tensor_adamw``), whatever the number of parameters up to SLOTS
BUDGET = {
    "sgd-momentum-fused": (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, fused=True), 1),
    "adamw-fused": (lambda ps: optim.AdamW(ps, lr=0.01, fused=True), 2),
    "adam-amsgrad-fused": (lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.1, fused=True), 2),
    "sgd-nesterov-foreach": (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, foreach=True), 4),
    "adamw-foreach": (lambda ps: optim.AdamW(ps, lr=0.01, foreach=True), 8),
    "adamw-default": (lambda ps: optim.AdamW(ps, lr=0.01), 8),  # foreach by default on the GPU
    "rmsprop-default": (lambda ps: optim.RMSprop(ps, lr=0.01), 5),
    "rmsprop-centered-momentum": (lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True), 10),
    "adagrad-default": (lambda ps: optim.Adagrad(ps, lr=0.01), 4),
    "adadelta-default": (lambda ps: optim.Adadelta(ps), 11),
    "adamax-default": (lambda ps: optim.Adamax(ps, lr=0.01), 6),
    "nadam-default": (lambda ps: optim.NAdam(ps, lr=0.01), 8),
    "radam-default": (lambda ps: optim.RAdam(ps, lr=0.01), 6),  # (counted unrectified, at step 3)
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(BUDGET))
def test_launches_per_step_stay_within_a_budget_independent_of_the_parameters(name: str) -> None:
    make, budget = BUDGET[name]
    few, many = _launches_per_step(make, 3), _launches_per_step(make, 20)
    assert 1 <= many <= budget, (name, many)
    assert few == many, (name, few, many)
    loop = _launches_per_step(lambda ps: make(ps).__class__(ps, lr=0.01, foreach=False), 20)
    assert loop >= 20, "the for-loop launches per parameter (else this test proves nothing)"


@pytest.mark.gpu
def test_a_recording_sees_the_launches_of_plans_made_before_it() -> None:
    """Counted as a device counts (``record_launches``, also on the stand-in): the for-loop's elementwise launch
    plans, made by the two steps before the recording, are seen (they were not: a device counted 0)."""
    def loop(ps):
        return optim.AdamW(ps, lr=0.01, foreach=False)

    assert _launches_per_step(loop, 20, device=True) >= 20
    assert 1 <= _launches_per_step(BUDGET["adamw-foreach"][0], 20, device=True) <= BUDGET["adamw-foreach"][1]


@pytest.mark.gpu
def test_past_slots_parameters_a_launch_takes_the_next_slots() -> None:
    from minigrad.kernels.gpu.optim_src import SLOTS

    make = BUDGET["sgd-momentum-fused"][0]
    assert _launches_per_step(make, SLOTS) == 1
    assert _launches_per_step(make, SLOTS + 1) == 2
    make = BUDGET["adamw-fused"][0]  # the count-up and the step, each past SLOTS
    assert _launches_per_step(make, SLOTS) == 2
    assert _launches_per_step(make, SLOTS + 1) == 4


@pytest.mark.gpu
@pytest.mark.parametrize("form", [{"fused": True}, {"foreach": True}])
def test_state_dict_round_trip_on_the_gpu(form: dict) -> None:
    def fresh(ps):
        return optim.AdamW(ps, lr=0.01, amsgrad=True, **form)

    rng = np.random.default_rng(1)
    start = [rng.standard_normal((3, 5)).astype(np.float32) for _ in range(2)]
    grads = [[rng.standard_normal((3, 5)) for _ in range(2)] for _ in range(4)]

    def steps(opt, ps, ks):
        for k in ks:
            for p, g in zip(ps, grads[k]):
                p.grad = mg.tensor(g, dtype="float32").to("gpu")
            opt.step()

    def params(arrays):
        return [mg.nn.Parameter(mg.tensor(a).to("gpu")) for a in arrays]

    ps = params(start)
    steps(fresh(ps), ps, range(4))
    qs = params(start)
    half = fresh(qs)
    steps(half, qs, range(2))
    rs = params([q.detach().cpu().numpy() for q in qs])
    again = fresh(rs)
    again.load_state_dict(half.state_dict())
    # the buffers load onto their parameters' device; the step counts stay on the CPU, as PyTorch loads them,
    # but a fused group's, which its kernel reads on the device
    step_device = "cuda" if "fused" in form else "cpu"
    assert all(v.device == (step_device if k == "step" else "cuda")
               for st in again.state.values() for k, v in st.items() if isinstance(v, mg.Tensor))
    steps(again, rs, range(2, 4))
    for p, r in zip(ps, rs):
        assert p.detach().cpu().numpy().tobytes() == r.detach().cpu().numpy().tobytes()


@pytest.fixture
def shadowed(monkeypatch):
    """Route the optimizer kernels through ``_Shadow``; yields {kernel name: launches}."""
    import cupy

    from test_stand_in_agrees import _Shadow  # aware of aliases: one host copy per allocation

    from minigrad.kernels.gpu import _runtime

    seen: dict[str, int] = {}
    real_module = cupy.RawModule

    class Module:
        def __init__(self, code: str, **kw) -> None:
            self.code, self.mod = code, real_module(code=code, **kw)

        def get_function(self, name: str):
            fn = self.mod.get_function(name)
            return _Shadow(fn, self.code, name, seen) if name.startswith(("mg_mt_", "mg_fused_")) else fn

    monkeypatch.setattr(cupy, "RawModule", Module)
    monkeypatch.setattr(_runtime, "_modules", {})
    yield seen


@pytest.mark.gpu
def test_fused_kernels_agree_with_the_stand_in(request) -> None:
    """On a device: every multi-tensor and fused launch is shadowed by its emulation, which must give
    the same values (the CUDA C of the rule against minigrad's CPU kernels)."""
    import cupy

    if getattr(cupy, "__fake__", False):
        pytest.skip("the stand-in checked against itself proves nothing")
    seen = request.getfixturevalue("shadowed")
    for case in ("sgd-nesterov-wd", "sgd-dampening-maximize", "adamw-amsgrad", "adam-l2"):
        for form in ("foreach", "fused"):
            run_mg(case, form, "float32", "gpu", steps=3)
    assert any(n.startswith("mg_fused_adam") for n in seen) and any(n.startswith("mg_mt_") for n in seen)
