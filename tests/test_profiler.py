"""``mg.profiler`` against PyTorch's profiler: the same tables for the same numbers, the same ranges for the
same program, the same schedule.

Times differ between two frameworks, so the tables are compared twice: once on made-up ranges handed to
both table builders (every column, every option, byte for byte), and once on a real training step, where
the ranges' names and counts are compared and the times are not.
"""

from __future__ import annotations

import json
import random
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


def _made_up(seed: int, shapes: bool) -> tuple[list[Span], list[tpu.FunctionEvent]]:
    """A random tree of ranges, as minigrad's spans and as PyTorch's events with the same numbers."""
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
            span = Span(len(spans) + 1, name, t, parent, "user", shape)
            span.end_ns = stop
            spans.append(span)
            theirs_name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
            ev = tpu.FunctionEvent(span.id, theirs_name, 0, t / 1000, stop / 1000, input_shapes=shape if shape else [], stack=[])
            if their_parent is not None:
                ev.set_cpu_parent(their_parent)
                their_parent.append_cpu_child(ev)
            theirs.append(ev)
            if depth < 3 and stop - t > 10_000:
                grow(span, ev, t + 1000, stop - 1000, depth + 1)
            t = stop + rng.randrange(5) * 1000

    grow(None, None, 0, 3_000_000_000_000, 0)
    return spans, theirs


TABLE_OPTIONS = [
    {}, {"sort_by": "cpu_time_total"}, {"sort_by": "self_cpu_time_total", "row_limit": 5}, {"sort_by": "count"},
    {"sort_by": "cpu_time", "max_name_column_width": 30}, {"header": "A made-up profile"},
    {"top_level_events_only": True}, {"time_unit": "ms"}, {"time_unit": "us", "sort_by": "cuda_time_total"},
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shapes", [False, True])
@pytest.mark.parametrize("grouped", [False, True])
def test_tables_equal_pytorch_for_the_same_numbers(seed: int, shapes: bool, grouped: bool) -> None:
    spans, theirs = _made_up(seed, shapes)
    ours = events_of(spans, 0)
    theirs_list = tpu.EventList(theirs)
    theirs_list._tree_built = True
    for options in TABLE_OPTIONS:
        assert ours.table(**options) == theirs_list.table(**options), options
        mine = ours.key_averages(group_by_input_shape=grouped)
        their = theirs_list.key_averages(group_by_input_shapes=grouped)
        assert mine.table(**options) == their.table(**options), options
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


@pytest.mark.parametrize("arg", ["profile_memory", "with_flops", "with_stack"])
def test_what_it_does_not_record_is_refused(arg: str) -> None:
    with pytest.raises(NotImplementedError, match=arg):
        profile(**{arg: True})
    assert ProfilerActivity.CPU in mg.profiler.supported_activities()
    assert ProfilerAction.RECORD_AND_SAVE.value == torch.profiler.ProfilerAction.RECORD_AND_SAVE.value


def test_every_op_has_pytorchs_name_or_is_said_to_have_none() -> None:
    for name in OPS:
        if name in OVERLOADS:
            spelled = OVERLOADS[name]
            if isinstance(spelled, str):
                packet, overload = spelled.rsplit(".", 1)
                getattr(getattr(torch.ops.aten, packet), overload)  # raises if PyTorch has no such overload
            assert name not in NO_ATEN_OP
        else:
            assert hasattr(torch.ops.aten, name) == (name not in NO_ATEN_OP), name
