"""``autocast("cuda")`` casts GPU tensors by PyTorch's CUDA lists, and only GPU tensors; ``autocast("cpu")``
leaves GPU tensors alone (the CUDA lists' membership and policies are checked against PyTorch's dispatcher and
header by ``tests/test_autocast_lists.py``; these tests run them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.gpu


def _gpu(*shape, dtype=None, grad=False):
    t = mg.randn(*shape, device="cuda")
    t = t if dtype is None else t.to(dtype)
    return t.requires_grad_() if grad else t


def test_cuda_lists_run_softmax_sum_and_losses_in_float32_and_matmuls_in_float16():
    x = _gpu(4, 8, dtype=mg.float16, grad=True)
    w = _gpu(8, 3, grad=True)
    with mg.autocast("cuda"):
        y = x @ w  # lower: float16
        p = mg.softmax(y, 1)  # fp32_set_opt_dtype: float32 out
        s = y.sum()  # fp32_set_opt_dtype
        e = y.exp()  # fp32
        m = y.mean()  # not listed: its input's dtype
        r = y.relu()  # not listed
        loss = mg.nn.functional.cross_entropy(y, mg.tensor([0, 1, 2, 0], device="cuda"))
    assert [t.dtype for t in (y, p, s, e, m, r, loss)] == [mg.float16, mg.float32, mg.float32, mg.float32,
                                                           mg.float16, mg.float16, mg.float32]
    loss.backward()
    assert x.grad.dtype is mg.float16 and w.grad.dtype is mg.float32 and w.grad.device == "cuda"


def test_sum_prod_and_the_running_ops_read_a_half_in_float32_themselves_as_pytorchs_set_opt_dtype():
    """PyTorch's ``fp32_set_opt_dtype``: ``sum``, ``prod``, ``cumsum``, ``cumprod``, the vector norm and the matrix norm
    of a float16 tensor are given ``dtype=float32`` instead of a cast input, so the graph is the op's node alone (no
    ``ToCopyBackward0``); a dtype the caller gave is kept. The trace still says autocast read the input in float32."""
    x = _gpu(3, 4, dtype=mg.float16, grad=True)
    with mg.autocast("cuda"), mg.trace(values=False) as tr:
        outs = {"sum": x.sum(), "prod": x.prod(), "cumsum": x.cumsum(1), "cumprod": x.cumprod(0),
                "vector_norm": mg.linalg.vector_norm(x), "linalg_matrix_norm": mg.linalg.matrix_norm(x)}
        kept = x.sum(dtype=mg.float16)
        assert mg.linalg.matrix_norm(x, dtype=mg.float16).dtype is mg.float16
        assert x.softmax(0, dtype=mg.float16).dtype is mg.float16  # the caller's dtype: no cast, float16 out
        assert mg.nn.functional.log_softmax(x, 1, dtype=mg.float64).dtype is mg.float64
    for name, y in outs.items():
        assert y.dtype is mg.float32, name
        assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions] == ["AccumulateGrad"], name
    assert kept.dtype is mg.float16
    casts = [(e.op, e.from_dtype, e.to_dtype) for e in tr.events if e.kind == "amp.cast"]
    assert casts == [(name, "float16", "float32") for name in outs]
    sum(y.sum() for y in outs.values()).backward()
    assert x.grad.dtype is mg.float16


def test_a_cuda_region_leaves_cpu_tensors_and_a_cpu_region_gpu_tensors():
    with mg.autocast("cuda"):
        on_cpu = mg.ones(2, 3) @ mg.ones(3, 2)
        on_gpu = _gpu(2, 3) @ _gpu(3, 2)
    with mg.autocast("cpu"):
        gpu_in_cpu_region = _gpu(2, 3) @ _gpu(3, 2)
        cpu_in_cpu_region = mg.ones(2, 3) @ mg.ones(3, 2)
    assert on_cpu.dtype is mg.float32 and on_gpu.dtype is mg.float16
    assert gpu_in_cpu_region.dtype is mg.float32 and cpu_in_cpu_region.dtype is mg.bfloat16


def test_both_regions_at_once_cast_each_device_by_its_own_list():
    with mg.autocast("cuda"), mg.autocast("cpu"):
        g = _gpu(3, dtype=mg.float16).sum()  # CUDA: float32
        c = mg.ones(3, dtype=mg.bfloat16).sum()  # CPU: not listed, bfloat16
    assert g.dtype is mg.float32 and c.dtype is mg.bfloat16


def test_binary_cross_entropy_is_refused_in_a_cuda_region_in_pytorchs_words():
    p = _gpu(4).sigmoid()
    t = _gpu(4).sigmoid()
    with mg.autocast("cuda"), pytest.raises(RuntimeError, match=r"^torch\.nn\.functional\.binary_cross_entropy and "
                                                                 r"torch\.nn\.BCELoss are unsafe to autocast\."):
        mg.nn.functional.binary_cross_entropy(p, t)
    with mg.autocast("cuda"):  # the safe form runs, in float32
        assert mg.nn.functional.binary_cross_entropy_with_logits(p, t).dtype is mg.float32


def test_promote_casts_to_the_widest_and_a_parameter_is_cast_once():
    a, b = _gpu(3), _gpu(3, dtype=mg.float16)
    w = mg.nn.Parameter(_gpu(4, 4))
    with mg.autocast("cuda"):
        assert mg.addcmul(a, b, b).dtype is mg.float32  # promote: float32 wins
        assert mg.addcmul(b, b, b).dtype is mg.float16
        y = (_gpu(2, 4) @ w) @ w
    casts = {id(fn) for fn, _ in (y.grad_fn.next_functions[1], y.grad_fn.next_functions[0][0].next_functions[1])}
    assert len(casts) == 1  # one ToCopyBackward0 for w, reused


def test_a_training_step_under_cuda_autocast_makes_no_copy_and_no_sync():
    """The casts are device ops: an autocast step on the GPU asks the host nothing."""
    model = mg.nn.Sequential(mg.nn.Linear(8, 16), mg.nn.ReLU(), mg.nn.Linear(16, 3)).to("cuda")
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    x, t = _gpu(5, 8), mg.tensor([0, 1, 2, 0, 1], device="cuda")

    def step():
        with mg.autocast("cuda"):
            loss = mg.nn.functional.cross_entropy(model(x), t)
        loss.backward()
        opt.step()
        opt.zero_grad()

    step()
    with mg.trace(values=False) as tr:
        step()
    kinds = [e.kind for e in tr.events]
    assert "device.copy" not in kinds and "device.sync" not in kinds
    # the first linear casts x, its weight and bias; the second its weight and bias (its input is float16
    # already); cross_entropy casts the logits back to float32
    assert [e.to_dtype for e in tr.events if e.kind == "amp.cast"] == ["float16"] * 5 + ["float32"]


# -- GradScaler on the GPU: the scale stays on the device -----------------------------------------------------


def _bench():
    """``bench/gpu_kernels.py`` as a module: its training steps are written once for both frameworks."""
    spec = importlib.util.spec_from_file_location("gpu_kernels_bench", ROOT / "bench" / "gpu_kernels.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


#: the stand-in's launches per steady step of the mixed-precision nanoGPT-style step (2 x 64, batch 8 x 32),
#: measured (259) and rounded up a little; its float32 step takes 181
AMP_STEP_BUDGET = 265


def test_a_mixed_precision_step_with_the_fused_adamw_never_syncs_and_copies_nothing_to_the_device():
    """nanoGPT's float16 loop: autocast, ``scaler.scale(loss).backward()``, ``unscale_``, clipping,
    ``scaler.step``, ``update``, with its fused AdamW. Unscaling and the scale's update run on the device, and
    ``scaler.step`` hands the inf flag to the fused kernel, which reads it there (PyTorch's contract): no sync.
    Before, the step made 29 syncs (the scale read per gradient), then 2 (``scaler.step`` read the flag).
    Under a recorder the step runs the for-loop, which reads the flag on the host: one sync, in the trace."""
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("copies, syncs and launches are counted by the stand-in CuPy")
    step = _bench().nanogpt_amp_step(mg, "cuda", (2, 64, 4, 8, 32, 0.1))
    for _ in range(2):  # (a recorder: unscale_ runs as ops, whose stride tables the first step uploads)
        with mg.trace(values=False) as tr:
            step()
    syncs = [e for e in tr.events if e.kind == "device.sync"]
    assert [e.reason for e in syncs] == ["item"] and "bench/gpu_kernels.py" in syncs[0].source
    assert not [e for e in tr.events if e.kind == "device.copy" and e.direction == "h2d"]
    step()  # the first fused step uploads its table of bias corrections (once per 4096 steps)
    fake.reset_counts()
    for _ in range(2):
        step()
    per_step = {k: v / 2 for k, v in fake.counts().items()}
    assert per_step["h2d"] == 0 and per_step["launches"] <= AMP_STEP_BUDGET, per_step
    assert per_step["d2h"] == per_step["syncs"] == 0, fake.COUNTS.log


@pytest.mark.parametrize("recording", [False, True], ids=["kernels", "ops"])
def test_the_gpu_scaler_follows_the_cpu_scalers_sequence(recording):
    """The same loop on both devices, with an infinity planted in two steps: the same scales, the same skipped
    steps, the same parameters (the device's kernels and, under a recorder, its ops, against the CPU's)."""
    def run(device):
        mg.manual_seed(0)
        w = mg.nn.Parameter(mg.randn(8, 4).to(device))  # one generator for both: the CPU's
        opt = mg.optim.SGD([w], lr=0.1)
        scaler = mg.amp.GradScaler(device if device == "cpu" else "cuda", init_scale=2.0**10, growth_interval=2)
        x = mg.randn(3, 8).to(device)
        scales = []
        for i in range(6):
            loss = (x @ w).pow(2).sum() * (float("inf") if i in (1, 4) else 1.0)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            scales.append(scaler.get_scale())
        return scales, w.detach().cpu().numpy(), scaler.state_dict()

    if recording:
        with mg.trace(values=False):
            gpu = run("cuda")
    else:
        gpu = run("cuda")
    cpu = run("cpu")
    assert gpu[0] == cpu[0] == [1024.0, 512.0, 512.0, 1024.0, 512.0, 512.0]
    np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-6)
    assert gpu[2] == cpu[2]


@pytest.mark.parametrize("recording", [False, True], ids=["kernels", "ops"])
@pytest.mark.parametrize("unscale", [False, True], ids=["in-kernel", "unscale_"])
@pytest.mark.parametrize("make", [lambda ps, **kw: mg.optim.AdamW(ps, lr=0.05, weight_decay=0.1, **kw),
                                  lambda ps, **kw: mg.optim.SGD(ps, lr=0.1, momentum=0.9, **kw)], ids=["adamw", "sgd"])
def test_a_fused_optimizer_reads_the_gpu_scalers_flag_on_the_device(make, unscale, recording):
    """A fused optimizer is handed the scale and the flag and reads them in its kernel (NOTE [ A fused step
    reads the scaler's flag on the device ] in minigrad/optim/update.py): its steps on the GPU equal the GPU's
    for-loop under the same scaler bit for bit, skipped steps and step counts included, and the CPU's fused
    steps to rounding; the kernels' steps make no copy and no sync. Under a recorder the fused optimizer runs
    the for-loop as ops and reads the flag, one sync a step."""
    def run(device, fused=True):
        mg.manual_seed(0)
        ps = [mg.nn.Parameter(mg.randn(8, 4).to(device)), mg.nn.Parameter(mg.randn(4).to(device))]
        opt = make(ps, fused=fused) if fused else make(ps, foreach=False)
        scaler = mg.amp.GradScaler(device if device == "cpu" else "cuda", init_scale=2.0**10, growth_interval=2)
        x = mg.randn(3, 8).to(device)
        scales = []
        for i in range(6):
            loss = (x @ ps[0] + ps[1]).pow(2).sum() * (float("inf") if i in (1, 4) else 1.0)
            scaler.scale(loss).backward()
            if unscale:
                scaler.unscale_(opt)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            scales.append(scaler.get_scale())
        state = {k: v.cpu().numpy() for st in opt.state.values() for k, v in st.items()}
        return scales, [p.detach().cpu().numpy() for p in ps], state

    fake = fake_cupy.installed()
    if recording:
        with mg.trace(values=False) as tr:
            gpu = run("cuda")
        assert sum(e.kind == "device.sync" and e.reason == "item" for e in tr.events) >= 6
    else:
        gpu = run("cuda")
    loop, cpu = run("cuda", fused=False), run("cpu")
    assert gpu[0] == loop[0] == cpu[0] == [1024.0, 512.0, 512.0, 1024.0, 512.0, 512.0]
    for a, b, c in zip(gpu[1], loop[1], cpu[1]):
        assert a.tobytes() == b.tobytes()
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
    assert sorted(gpu[2]) == sorted(loop[2])
    for k, v in gpu[2].items():
        np.testing.assert_allclose(v, loop[2][k], rtol=1e-5, atol=1e-6, err_msg=k)
    if fake is None or recording:
        return
    mg.manual_seed(0)
    ps = [mg.nn.Parameter(mg.randn(8, 4).to("cuda"))]
    opt, scaler = make(ps, fused=True), mg.amp.GradScaler("cuda")
    x = mg.randn(3, 8).to("cuda")

    def step():
        scaler.scale((x @ ps[0]).pow(2).sum()).backward()
        if unscale:
            scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()

    step()
    fake.reset_counts()
    step()
    assert (fake.counts()["h2d"], fake.counts()["d2h"], fake.counts()["syncs"]) == (0, 0, 0), fake.COUNTS.log
