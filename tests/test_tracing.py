"""The event bus, recorder, loader and replay (docs/architecture.md, Events)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields

import pytest

import minigrad as mg
from minigrad.autograd import engine
from minigrad.tracing import EVENT_TYPES, TraceFormatError, bus
from minigrad.tracing.events import Event

# The public contract: every kind of docs/events.md with exactly these fields (more may be added).
CONTRACT = {
    "tensor.create": "tensor name shape dtype device requires_grad is_leaf grad_node out_slot out_rank value",
    "api.call": "op inputs attrs",
    "amp.cast": "op tensor from_dtype to_dtype",
    "kernel.key": "op backend layout dtype",
    "kernel.lookup": "op backend layout dtype step found",
    "kernel.select": "op kernel backend layout dtype fallback_cpu",
    "data.transform": "op arg what from to",
    "infer_meta": "op shapes dtypes",
    "kernel.launch": "op kernel backend wall_ns",
    "node.create": "node name op topo_nr seq_nr is_accumulation tensor copy_of edges saved attrs",
    "backward.begin": "mode start retain_graph create_graph",
    "backward.in_degree": "in_degree",
    "queue.push": "node front queue",
    "queue.pop": "node queue",
    "queue.skip": "node in_degree",
    "node.run": "node grads_in grads_out",
    "buffer.add": "node slot rank source value",
    "in_degree.update": "node in_degree",
    "hook.run": "target hook_kind",
    "grad.accumulate": "tensor value",
    "wrappers.clear": "node",
    "saved.pack": "tensor hook",
    "recompute.begin": "node function mode",
    "recompute.end": "node",
    "checkpoint.saved": "op aten bytes use",
    "general_grad.copy": "mapping",
    "general_grad.targets": "inputs no_grad",
    "general_grad.update": "startup ending needed",
    "general_grad.prune": "edges",
    "general_grad.result": "input value",
    "backward.end": "nodes_run wall_ns",
    "error": "error message source node op",
}


@pytest.mark.parametrize("kind", sorted(CONTRACT))
def test_every_contract_kind_exists_with_its_fields(kind):
    cls = EVENT_TYPES[kind]
    assert cls.kind == kind
    assert set(CONTRACT[kind].split()) <= set(cls.field_names())


def test_events_are_slotted_and_not_frozen():
    ev = EVENT_TYPES["queue.push"](node=1, front=False, queue=[1])
    assert not hasattr(ev, "__dict__")
    assert not type(ev).__dataclass_params__.frozen


def _record_small():
    with mg.trace(values=True, max_elements=4) as tr:
        x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
        y = (x @ x).relu().sum()
        y.backward()
    return tr


def test_no_recorder_means_no_events_and_one_flag():
    assert bus.recorder is None
    tr = _record_small()
    assert bus.recorder is None
    n = len(tr.events)
    x = mg.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    assert len(tr.events) == n, "nothing is recorded once the block ends"


def test_seq_increases_and_header_is_flat_json(tmp_path):
    tr = _record_small()
    assert [e.seq for e in tr.events] == list(range(len(tr.events)))
    assert all(b.ts_ns >= a.ts_ns for a, b in zip(tr.events, tr.events[1:]))
    path = tmp_path / "run.jsonl"
    tr.save(path)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"schema": "minigrad.trace", "version": 2}
    first = json.loads(lines[1])
    assert list(first)[:3] == ["seq", "ts_ns", "kind"]
    push = next(json.loads(line) for line in lines[1:] if '"queue.push"' in line)
    assert set(push) == {"seq", "ts_ns", "kind", "node", "front", "queue"}


def test_save_load_roundtrip_is_exact(tmp_path):
    tr = _record_small()
    path = tmp_path / "run.jsonl"
    tr.save(path)
    back = mg.trace.load(path)
    assert [e.to_dict() for e in back.events] == [e.to_dict() for e in tr.events]
    indeg = [e for e in back.events if e.kind == "backward.in_degree"][0]
    assert all(isinstance(k, int) for k in indeg.in_degree), "int keys survive JSON"
    assert mg.trace.replay(back)[-1] == mg.trace.replay(tr)[-1]


def test_value_previews_follow_max_elements():
    tr = _record_small()
    creates = [e for e in tr.events if e.kind == "tensor.create"]
    assert creates[0].name == "x" and creates[0].value == [[1.0, 2.0], [3.0, 4.0]]
    matrix = [e for e in creates if e.shape == [2, 2]][1]
    assert matrix.value == [[7.0, 10.0], [15.0, 22.0]]
    with mg.trace(values=False) as tr2:
        mg.tensor([1.0, 2.0])
    assert tr2.events[0].value == {"shape": [2], "dtype": "float32"}
    with mg.trace(max_elements=1) as tr3:
        mg.tensor([1.0, 2.0])
    assert tr3.events[0].value == {"shape": [2], "dtype": "float32"}


@pytest.mark.parametrize(
    "text, match",
    [
        ("", "empty file"),
        ('{"hello": 1}\n', "not a minigrad trace"),
        ("not json at all\n", "line 1: not JSON"),
        ('{"schema": "minigrad.trace", "version": 99}\n', "version 99"),
        ('{"schema": "minigrad.trace", "version": 2}\n{"seq": 0, "ts_ns": 0, "kind": "queue.push", "node": 1, "fr', "line 2: invalid JSON"),
        ('{"schema": "minigrad.trace", "version": 2}\n{"seq": 0, "ts_ns": 0, "kind": "queue.push", "node": 1}\n', "line 2: missing field 'front'"),
        ('{"schema": "minigrad.trace", "version": 2}\n[1, 2]\n', "line 2: expected a JSON object"),
        ('{"schema": "minigrad.trace", "version": 2}\n{"seq": 1, "ts_ns": 0, "kind": "x"}\n{"seq": 1, "ts_ns": 0, "kind": "x"}\n', "line 3: seq 1 does not increase"),
    ],
)
def test_loader_rejects_bad_files_naming_the_line(tmp_path, text, match):
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(TraceFormatError, match=match):
        mg.trace.load(path)


def test_unknown_kinds_load_as_data(tmp_path):
    path = tmp_path / "future.jsonl"
    path.write_text('{"schema": "minigrad.trace", "version": 2}\n{"seq": 0, "ts_ns": 5, "kind": "future.kind", "x": 1}\n')
    ev = mg.trace.load(path).events[0]
    assert ev.kind == "future.kind" and ev.to_dict() == {"seq": 0, "ts_ns": 5, "kind": "future.kind", "x": 1}


def test_minigrad_trace_env_records_a_whole_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import minigrad as mg\nx = mg.tensor([1.0], requires_grad=True)\n(x * 2).sum().backward()\n")
    out = tmp_path / "run.jsonl"
    env = dict(os.environ, MINIGRAD_TRACE=str(out))
    subprocess.run([sys.executable, str(script)], env=env, check=True)
    kinds = [e.kind for e in mg.trace.load(out).events]
    assert "backward.begin" in kinds and kinds[-1] == "backward.end"


def test_nested_recorders_restore_the_outer_one():
    with mg.trace() as outer:
        mg.tensor([1.0])
        with mg.trace() as inner:
            mg.tensor([2.0])
        mg.tensor([3.0])
    assert len(inner.events) == 1 and len(outer.events) == 2


# ---------------------------------------------------------------------------
# Replay: states checked against the engine's own view at every step
# ---------------------------------------------------------------------------


def test_replay_states_match_the_engines_own_view_at_every_step():
    snapshots: dict[int, tuple] = {}

    def listener(ev: Event) -> None:
        run = engine.current_run
        if run is None:
            return
        snapshots[ev.seq] = (
            tuple(n.id for n in run.queue),
            {n.id: c for n, c in run.in_degree.items()},
            {n.id: {(s, r) for s, row in enumerate(h.buffers) for r, g in enumerate(row) if g is not None}
             for n, h in run.buffers.items()},
        )

    mg.manual_seed(3)
    x = mg.randn(4, 3, requires_grad=True, name="x")
    w = mg.randn(3, 3, requires_grad=True, name="w")
    with mg.trace() as tr:
        tr.listeners.append(listener)
        h = (x @ w).tanh()
        loss = (h * h + h).mean() + (w * w).sum()
        loss.backward()
    states = mg.trace.replay(tr)
    checked = 0
    for i, ev in enumerate(tr.events):
        if ev.seq not in snapshots or ev.kind not in ("queue.push", "queue.pop", "node.begin", "in_degree.update", "buffer.add", "node.run"):
            continue
        queue, in_degree, buffers = snapshots[ev.seq]
        bw = states[i].backward
        assert bw.queue == queue, f"queue differs after event {i} ({ev.kind})"
        assert dict(bw.in_degree) == in_degree, f"in-degree map differs after event {i}"
        assert {n: set(b) for n, b in bw.buffers.items() if b} == {n: b for n, b in buffers.items() if b}
        checked += 1
    assert checked > 20


def test_replay_time_travel_lands_on_identical_states():
    tr = _record_small()
    states = mg.trace.replay(tr)
    forward = [states[i] for i in range(len(states))]
    backward = [states[i] for i in reversed(range(len(states)))][::-1]
    assert forward == backward
    assert list(states) == forward
    assert states[5] == states[5] and states[5] is not states[5]


def test_replay_final_state_summarises_the_pass():
    tr = _record_small()
    final = mg.trace.replay(tr)[-1]
    bw = final.backward
    assert bw.done and bw.mode == "backward" and not bw.queue and bw.current is None
    assert set(bw.executed) == set(bw.initial_in_degree) | set(bw.start)
    assert bw.released == {n for n in bw.executed if not final.nodes[n].is_accumulation}
    x_id = [t.id for t in final.tensors.values() if t.name == "x"][0]
    assert x_id in bw.accumulated
    calls = [c for c in final.calls if c.phase == "forward"]
    assert [c.op for c in calls] == ["matmul", "relu", "sum"]
    mm = calls[0]
    assert mm.key["backend"] == "CPU" and mm.select["kernel"] and mm.launch is not None
    assert [p["step"] for p in mm.lookups] == ["backend", "backend/ALL_LAYOUT"]


def test_replay_node_status():
    from minigrad.tracing.replay import node_status

    tr = _record_small()
    states = mg.trace.replay(tr)
    pops = [i for i, e in enumerate(tr.events) if e.kind == "queue.pop"]
    st = states[pops[0]]
    assert node_status(st, st.backward.current) == "running"
    final = states[-1]
    assert {node_status(final, n) for n in final.backward.executed} <= {"released", "done"}


def test_op_call_outputs_stop_at_the_infer_meta_count_and_inputs_are_announced():
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")  # made before the recording
    with mg.trace() as tr:
        y = x * 2
        z = mg.tensor([5.0])  # not an output of mul
    final = mg.trace.replay(tr).final
    mul = [c for c in final.calls if c.op == "mul"][0]
    assert mul.outputs == (y.id,)
    assert final.tensors[x.id].name == "x", "an input made before the recording is announced"
    assert z.id in final.tensors


def test_module_parameters_are_named_by_their_path():
    m = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU(), mg.nn.Linear(3, 1))
    assert [p.name for p in m.parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_replay_bounds_its_checkpoints_on_big_traces():
    from minigrad.tracing.replay import CHECKPOINT_EVERY, MAX_CHECKPOINTS, Replay

    events = _record_small().events
    small = Replay(events)
    assert small._every == CHECKPOINT_EVERY
    big = Replay(list(events) * 400)  # the length of a long trace (its states are not read)
    assert len(big._checkpoints) <= MAX_CHECKPOINTS
