"""``mg.profiler`` on the GPU: with ``ProfilerActivity.CUDA`` the table counts each kernel launch, each copy
between host and device and each wait, as a trace's events count them; a steady training step profiled
shows no copy and no wait, and a ``.item()`` each step shows one of each."""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad.profiler import ProfilerActivity, profile

pytestmark = pytest.mark.gpu


def _loop(item: bool):
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(8, 16), mg.nn.ReLU(), mg.nn.Linear(16, 2)).cuda()
    opt = mg.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    x, y = mg.randn(4, 8, device="cuda"), mg.tensor([0, 1, 0, 1], device="cuda")

    def step() -> None:
        loss = mg.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if item:
            loss.item()
    return step


def _counts(prof) -> dict[str, int]:
    return {e.key: e.count for e in prof.key_averages()}


@pytest.mark.parametrize("item", [False, True])
def test_the_gpus_launches_copies_and_waits_are_counted(item: bool) -> None:
    step = _loop(item)
    for _ in range(2):
        step()
    for _ in range(2):  # (the first traced step uploads the tables the traced path keeps)
        with mg.trace(values=False) as tr:
            step()
    launches = sum(1 for e in tr.events if e.kind == "kernel.launch" and e.backend in ("GPU", "GPUDNN"))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step()
    counts = _counts(prof)
    copies = sum(1 for e in tr.events if e.kind == "device.copy")
    syncs = sum(1 for e in tr.events if e.kind == "device.sync")
    assert (syncs, copies) == ((1, 2) if item else (0, 0))  # ``.item()``: its value, and the index checks' flags
    assert counts.get("cudaStreamSynchronize", 0) == 3 * syncs
    assert counts.get("cudaMemcpyAsync", 0) == 3 * copies
    assert all(e.cpu_time_total == 0 for e in prof.events() if e.name in ("cudaMemcpyAsync", "cudaStreamSynchronize"))
    # The trace runs the fused step as ops; the profile runs the fused kernel: fewer launches.
    assert 0 < counts["cudaLaunchKernel"] < 3 * launches
    assert counts["Optimizer.step#AdamW.step"] == 3
    with profile(activities=[ProfilerActivity.CPU]) as cpu_only:
        step()
    assert not {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaStreamSynchronize"} & set(_counts(cpu_only))


def test_a_launch_lies_inside_the_op_that_made_it() -> None:
    a = mg.ones(64, 64, device="cuda")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        (a * a).sum()
    launches = [e for e in prof.events() if e.name == "cudaLaunchKernel"]
    assert {e.cpu_parent.name for e in launches} == {"aten::mul", "aten::sum"}
    for e in launches:
        assert e.cpu_parent.start_us <= e.start_us <= e.end_us <= e.cpu_parent.end_us


def test_memory_on_the_gpu_is_the_gpus() -> None:
    a = mg.ones(64, 64, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as prof:
        b = a * a
        b.t()
    mul = next(e for e in prof.events() if e.name == "aten::mul")
    assert (mul.self_device_memory_usage, mul.self_cpu_memory_usage) == (64 * 64 * 4, 0)
    assert next(e for e in prof.events() if e.name == "aten::t").self_device_memory_usage == 0
    table = prof.key_averages().table(sort_by="self_cuda_memory_usage")
    assert "Self CUDA Mem" in table and "16.00 KB" in table
