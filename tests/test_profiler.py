"""``mg.profiler`` against PyTorch's profiler: the same tables for the same numbers, the same ranges for the
same program, the same schedule.

Times differ between two frameworks, so the tables are compared twice: once on made-up ranges handed to
both table builders (every column, every option, byte for byte), and once on a real training step, where
the ranges' names and counts are compared and the times are not.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.dispatch.op_table import OPS
from minigrad.ops.aten_names import NO_ATEN_OP, OVERLOADS
from minigrad.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule
from minigrad.profiler.results import events_of
from minigrad.tracing.profiling import Span

torch = pytest.importorskip("torch")
from torch.autograd import profiler_util as tpu  # noqa: E402

NAMES = ["train_step", "aten::linear", "aten::addmm", "aten::t", "autograd::engine::evaluate_function: AddmmBackward0",
         "AddmmBackward0", "Optimizer.step#AdamW.step", "aten::mm", "x" * 70, "ProfilerStep#3"]


def _made_up(seed: int, shapes: bool, extras: bool = False) -> tuple[list[Span], list[tpu.FunctionEvent]]:
    """A random tree of ranges, as minigrad's spans and as PyTorch's events with the same numbers (``extras``:
    memory, on the CPU or the GPU, and stacks)."""
    rng = random.Random(seed)
    spans: list[Span] = []
    theirs: list[tpu.FunctionEvent] = []

    def grow(parent: Span | None, their_parent: tpu.FunctionEvent | None, start: int, end: int, depth: int) -> None:
        t = start
        while t < end and len(spans) < 40:
            length = rng.choice([1, 7, 350, 4_000, 2_500_000, 1_700_000_000]) * 1000 + rng.randrange(1000) * 1000
            stop = min(end, t + length)
            name = rng.choice(NAMES)
            shape = [[rng.randrange(1, 9) for _ in range(rng.randrange(3))] for _ in range(rng.randrange(3))] if shapes else None
            device = rng.choice(["cpu", "gpu"]) if extras else "cpu"
            span = Span(len(spans) + 1, name, t, parent, "user", shape, device)
            span.end_ns = stop
            span.allocated = rng.choice([0, 0, 12, 4096, 3 << 20, 5 << 30]) if extras else 0
            span.stack = [f"/home/s/prog{k}.py({rng.randrange(200)}): f{k}" + "x" * rng.randrange(90)
                          for k in range(rng.randrange(3))] if extras else None
            spans.append(span)
            theirs_name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
            ev = tpu.FunctionEvent(span.id, theirs_name, 0, t / 1000, stop / 1000, input_shapes=shape if shape else [],
                                   stack=span.stack or [], use_device="cuda" if extras else None)
            if their_parent is not None:
                ev.set_cpu_parent(their_parent)
                their_parent.append_cpu_child(ev)
            theirs.append(ev)
            if depth < 3 and stop - t > 10_000:
                grow(span, ev, t + 1000, stop - 1000, depth + 1)
            t = stop + rng.randrange(5) * 1000

    grow(None, None, 0, 3_000_000_000_000, 0)

    def inclusive(span: Span, device: str) -> int:  # PyTorch's ``*_memory_usage``: the range's own and its children's
        return (span.allocated if span.device == device else 0) + sum(inclusive(c, device) for c in span.children)
    for span, ev in zip(spans, theirs):
        ev.cpu_memory_usage, ev.device_memory_usage = inclusive(span, "cpu"), inclusive(span, "gpu")
    return spans, theirs


TABLE_OPTIONS = [
    {}, {"sort_by": "cpu_time_total"}, {"sort_by": "self_cpu_time_total", "row_limit": 5}, {"sort_by": "count"},
    {"sort_by": "cpu_time", "max_name_column_width": 30}, {"header": "A made-up profile"},
    {"top_level_events_only": True}, {"time_unit": "ms"}, {"time_unit": "us", "sort_by": "cuda_time_total"},
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shapes", [False, True])
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("extras", [False, True])
def test_tables_equal_pytorch_for_the_same_numbers(seed: int, shapes: bool, grouped: bool, extras: bool) -> None:
    spans, theirs = _made_up(seed, shapes, extras)
    use_device = "cuda" if extras else None
    ours = events_of(spans, 0, use_device, profile_memory=extras)
    theirs_list = tpu.EventList(theirs, use_device=use_device, profile_memory=extras)
    theirs_list._tree_built = True
    options_list = TABLE_OPTIONS + ([{"sort_by": "self_cpu_memory_usage"}, {"sort_by": "cuda_memory_usage"},
                                     {"max_src_column_width": 40}] if extras else [])
    for options in options_list:
        assert ours.table(**options) == theirs_list.table(**options), options
        for stack_n in (0, 2) if extras else (0,):
            mine = ours.key_averages(group_by_input_shape=grouped, group_by_stack_n=stack_n)
            their = theirs_list.key_averages(group_by_input_shapes=grouped, group_by_stack_n=stack_n)
            assert mine.table(**options) == their.table(**options), (options, stack_n)
    assert [e.key for e in ours.key_averages()] == [e.key for e in theirs_list.key_averages()]
    assert ours.self_cpu_time_total == pytest.approx(theirs_list.self_cpu_time_total)
    assert ours.total_average().cpu_time_total == pytest.approx(theirs_list.total_average().cpu_time_total)


def _mlp_step(lib, fused: bool = False):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 2))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = lib.randn(4, 8), lib.tensor([0, 1, 0, 1])

    def step() -> None:
        with lib.profiler.record_function("train_step"):
            loss = lib.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return step


#: Ranges a training step has in both frameworks, whatever ops each writes them with.
SHARED = ["train_step", "aten::linear", "aten::addmm", "aten::cross_entropy_loss", "aten::log_softmax",
          "aten::_log_softmax", "aten::nll_loss_forward", "Optimizer.step#SGD.step",
          "Optimizer.zero_grad#SGD.zero_grad", "AddmmBackward0", "ReluBackward0", "TBackward0", "NllLossBackward0",
          "LogSoftmaxBackward0", "torch::autograd::AccumulateGrad", "aten::threshold_backward",
          "aten::nll_loss_backward", "aten::_log_softmax_backward_data"]


def _counts(prof) -> dict[str, int]:
    return {e.key: e.count for e in prof.key_averages()}


def test_a_training_step_has_pytorchs_ranges() -> None:
    counts = {}
    for lib in (mg, torch):
        step = _mlp_step(lib)
        step()  # the first call of each kind of op is not what a profile should look at
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]) as prof:
            step()
        counts[lib] = _counts(prof)
    ours, theirs = counts[mg], counts[torch]
    for name in SHARED:
        assert ours[name] == theirs[name], name
        evaluated = f"autograd::engine::evaluate_function: {name}"
        if evaluated in theirs:
            assert ours[evaluated] == theirs[evaluated], evaluated
    assert set(ours) <= set(theirs), set(ours) - set(theirs)  # nothing PyTorch would not show


def test_the_tree_nests_as_the_program_ran() -> None:
    step = _mlp_step(mg)
    step()
    with profile(record_shapes=True) as prof:
        step()
    events = prof.events()
    top = [e for e in events if e.cpu_parent is None]
    assert [e.name for e in top] == ["train_step"]
    inside = [e.name for e in top[0].cpu_children]
    assert inside[:3] == ["aten::linear", "aten::relu", "aten::linear"]
    assert "Optimizer.step#SGD.step" in inside and "Optimizer.zero_grad#SGD.zero_grad" in inside
    linear = next(e for e in events if e.name == "aten::linear")
    assert [c.name for c in linear.cpu_children] == ["aten::t", "aten::addmm"]
    assert next(c for c in linear.cpu_children if c.name == "aten::addmm").input_shapes == [[16], [4, 8], [8, 16]]
    node = next(e for e in events if e.name == "AddmmBackward0")
    assert node.cpu_parent.name == "autograd::engine::evaluate_function: AddmmBackward0"
    assert {c.name for c in node.cpu_children} == {"aten::sum", "aten::mm", "aten::t"}
    for e in events:  # every range lies inside its parent, and its self time is what its children leave
        if e.cpu_parent is not None:
            assert e.cpu_parent.start_us <= e.start_us <= e.end_us <= e.cpu_parent.end_us
        assert e.self_cpu_time_total == pytest.approx(e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children))


def test_a_graph_built_before_the_profile_is_named() -> None:
    x = mg.ones(3, requires_grad=True)
    y = (x * 2).exp().sum()
    with profile() as prof:
        y.backward()
    names = [e.name for e in prof.events()]
    assert names[:2] == ["autograd::engine::evaluate_function: SumBackward0", "SumBackward0"]
    assert "ExpBackward0" in names and "MulBackward0" in names and "torch::autograd::AccumulateGrad" in names


@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=1, active=1, repeat=2),
                                  dict(wait=2, warmup=1, active=3, repeat=1, skip_first=1),
                                  dict(wait=1, warmup=2, active=1, skip_first=3, skip_first_wait=1)])
def test_schedules_equal_pytorchs(args: dict) -> None:
    ours, theirs = schedule(**args), torch.profiler.schedule(**args)
    assert [ours(i).name for i in range(40)] == [theirs(i).name for i in range(40)]


def test_a_scheduled_loop_hands_over_what_pytorch_hands_over() -> None:
    seen = {}
    for lib in (mg, torch):
        step = _mlp_step(lib)
        ready: list[dict[str, int]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched = lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
        with lib.profiler.profile(schedule=sched, on_trace_ready=lambda p: ready.append(_counts(p))) as prof:
            for _ in range(9):
                step()
                prof.step()
        seen[lib] = ([{k: r[k] for k in ("ProfilerStep*", "train_step")} for r in ready], prof.step_num)
    assert seen[mg] == seen[torch]
    assert seen[mg][0] == [{"ProfilerStep*": 2, "train_step": 2}] * 2


def test_record_function_decorates_nests_and_closes_on_an_error() -> None:
    @record_function("outer")
    def outer() -> None:
        with record_function("inner"):
            mg.ones(2) + 1
            raise ValueError("boom")

    with profile() as prof:
        with pytest.raises(ValueError):
            outer()
        with pytest.raises(RuntimeError):
            mg.ones(2, 3) @ mg.ones(2, 3)  # the op fails: its range ends there
        mg.ones(1) * 3
    events = prof.events()
    names = [(e.name, e.cpu_parent.name if e.cpu_parent else None) for e in events]
    assert ("inner", "outer") in names and ("aten::add", "inner") in names
    assert ("aten::mm", None) in names and ("aten::mul", None) in names
    assert all(e.end_us >= e.start_us for e in events)


def test_outside_a_profile_record_function_and_a_trace_see_nothing_new() -> None:
    with record_function("idle"):
        y = mg.ones(2) * 2
    with mg.trace() as tr:
        with record_function("in a trace"):
            (mg.ones(2, requires_grad=True) * 2).sum().backward()
    assert "idle" not in str(tr.events) and "in a trace" not in str(tr.events)
    assert y.tolist() == [2.0, 2.0]


def test_a_fused_step_runs_as_it_runs_unprofiled() -> None:
    """A trace runs the fused step as ops; a profile times the fused kernel, and its results are the same bits."""
    results = []
    for profiled in (False, True):
        mg.manual_seed(1)
        w = mg.randn(5, 3, requires_grad=True)
        opt = mg.optim.Adam([w], lr=0.1, fused=True)
        for _ in range(3):
            (w * w).sum().backward()
            if profiled:
                with profile() as prof:
                    opt.step()
            else:
                opt.step()
            opt.zero_grad()
        results.append(w.detach().numpy().copy())
    np.testing.assert_array_equal(results[0], results[1])
    step = next(e for e in prof.events() if e.name == "Optimizer.step#Adam.step")
    assert step.cpu_children == []  # one fused kernel, no op per parameter


def test_exports_and_the_older_surface(tmp_path) -> None:
    with profile(record_shapes=True, on_trace_ready=mg.profiler.tensorboard_trace_handler(str(tmp_path), "w")) as prof:
        mg.ones(2, 2) @ mg.ones(2, 2)
    (written,) = list(tmp_path.iterdir())
    assert written.name.startswith("w.") and written.name.endswith(".pt.trace.json")
    trace = json.loads(written.read_text())
    assert [(e["name"], e["args"]) for e in trace["traceEvents"]][-1] == ("aten::mm", {"Input Dims": [[2, 2], [2, 2]]})
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text()) == trace
    with mg.autograd.profiler.profile() as old:
        mg.ones(3).sum()
    assert "aten::sum" in old.key_averages().table(sort_by="self_cpu_time_total")
    assert old.self_cpu_time_total > 0


def test_memory_is_what_each_op_allocates_and_stacks_are_the_programs_lines() -> None:
    a = mg.ones(64, 32)
    with profile(profile_memory=True, with_stack=True) as prof:
        b = a * 2  # a new (64, 32) float32 array: 8 KB
        c = b.t()  # a view: nothing
        d = c.reshape(64 * 32)  # a copy of a transposed view: 8 KB
        b.add_(1)  # computed out of place, then written back: 8 KB made by ``aten::add``
        pooled = mg.nn.functional.max_pool2d(mg.ones(1, 1, 4, 4), 2)  # a view of the kernel's own temporary
    events = {e.name: e for e in prof.events()}
    assert events["aten::max_pool2d_with_indices"].self_cpu_memory_usage == pooled.numel() * 4
    assert events["aten::mul"].self_cpu_memory_usage == 64 * 32 * 4
    assert events["aten::t"].self_cpu_memory_usage == 0
    assert events["aten::ones"].self_cpu_memory_usage == 16 * 4
    assert sum(e.self_cpu_memory_usage for e in prof.events()) == 3 * 64 * 32 * 4 + 16 * 4 + pooled.numel() * 4
    assert events["aten::mul"].stack[0].endswith("): test_memory_is_what_each_op_allocates_and_stacks_are_the_programs_lines")
    assert f"test_profiler.py(" in events["aten::mul"].stack[0]
    table = prof.key_averages(group_by_stack_n=1).table(sort_by="self_cpu_memory_usage")
    assert "Self CPU Mem" in table and "8.00 KB" in table and "Source Location" in table
    assert d.shape == (2048,)


def test_stacks_export_as_pytorch_writes_them(tmp_path) -> None:
    spans, theirs = _made_up(3, False, True)
    ours = events_of(spans, 0, "cuda", True)
    theirs_list = tpu.EventList(theirs, use_device="cuda")
    for metric in ("self_cpu_time_total", "self_cuda_time_total"):
        ours.export_stacks(str(tmp_path / "ours.txt"), metric)
        theirs_list.export_stacks(str(tmp_path / "theirs.txt"), metric)
        assert (tmp_path / "ours.txt").read_text() == (tmp_path / "theirs.txt").read_text()
    assert (tmp_path / "ours.txt").read_text() == ""  # no device time
    ours.export_stacks(str(tmp_path / "ours.txt"), "self_cpu_time_total")
    assert (tmp_path / "ours.txt").read_text().count("\n") > 3
    with pytest.raises(ValueError, match="metric should be one of"):
        ours.export_stacks(str(tmp_path / "x.txt"), "cpu_time")


def test_flops_are_refused() -> None:
    with pytest.raises(NotImplementedError, match="with_flops"):
        profile(with_flops=True)
    assert ProfilerActivity.CPU in mg.profiler.supported_activities()
    assert ProfilerAction.RECORD_AND_SAVE.value == torch.profiler.ProfilerAction.RECORD_AND_SAVE.value


def test_every_op_has_pytorchs_name_or_is_said_to_have_none() -> None:
    # The ops minigrad ships, read in a fresh process: tests define ops of their own in this one.
    shipped = subprocess.run([sys.executable, "-c", "import minigrad\nfrom minigrad.dispatch.op_table import OPS\n"
                              "print(' '.join(OPS))"], capture_output=True, text=True, check=True).stdout.split()
    assert len(shipped) > 400 and set(shipped) <= set(OPS)
    for name in shipped:
        if name in OVERLOADS:
            spelled = OVERLOADS[name]
            if isinstance(spelled, str):
                packet, overload = spelled.rsplit(".", 1)
                getattr(getattr(torch.ops.aten, packet), overload)  # raises if PyTorch has no such overload
            assert name not in NO_ATEN_OP
        else:
            assert hasattr(torch.ops.aten, name) == (name not in NO_ATEN_OP), name


def test_in_place_ops_and_creation_have_pytorchs_ranges() -> None:
    with profile() as prof:
        a = mg.zeros(4, 4)
        a.add_(1)
        a.relu_()
        mg.randn(3)
    names = [(e.name, e.cpu_parent.name if e.cpu_parent else None) for e in prof.events()]
    assert names == [("aten::zeros", None), ("aten::add_", None), ("aten::add", "aten::add_"),
                     ("aten::relu_", None), ("aten::relu", "aten::relu_"), ("aten::randn", None)]


def test_a_failed_backward_pass_ends_its_ranges() -> None:
    x = mg.ones(3, requires_grad=True)
    h = x * 2
    h.register_hook(lambda g: 1 / 0)
    y = h.sum()
    with profile() as prof:
        with pytest.raises(RuntimeError, match="division by zero"):
            y.backward()
        mg.ones(2) * 3
    events = prof.events()
    failed = next(e for e in events if e.name == "autograd::engine::evaluate_function: MulBackward0")
    after = next(e for e in events if e.name == "aten::mul")
    assert failed.end_us <= after.start_us and after.cpu_parent is None
