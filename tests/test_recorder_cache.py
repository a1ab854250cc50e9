"""The cheaper recorder emits the same events as before (the event contract: docs/architecture.md, Events).

The recorder builds events with ``Event.new`` instead of the class call and
re-emits cached copies of the kernel layer's events (NOTE [ Building events
without the class call ] in ``tracing/events.py``, NOTE [ Kernel-layer events
are cached ] in ``kernels/api.py``). These tests prove that nothing a consumer
can see changed: a program that emits every CPU kind records, event for event
and field for field, the trace the engine recorded before the change
(``tests/fixtures/recorder_golden.jsonl.gz``), and the builders make objects
equal to the class call's. (Re-recorded once since, when SGD's step became PyTorch's ops,
``add_(grad, alpha=-lr)`` for ``sub_(grad * lr)``: its optimizer events and the tensor ids after
them changed, nothing else; and once when ``addmm``'s formula learned a column-major mat2 from ``linear``
without saving it: the backward of a first layer gained a ``t``, the tensor ids after it moved; and once when
selective checkpointing's ``checkpoint.saved`` joined the contract: the workload gained a last block, the first
recording's events before it are unchanged, the later recordings' kinds in the same order, their ids moved.) The records a recorder stores for those copies
read back as the events a listener sees as they happen.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import subprocess
import sys
from typing import Any

import pytest

import minigrad as mg
from _toy import TOY, events, toy_backend, toy_kernel
from minigrad.tracing.events import EVENT_TYPES, Event, event_from_dict

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "recorder_golden.jsonl.gz")
#: kinds only a program on the GPU emits (tests/gpu/test_no_hidden_sync.py records them)
GPU_KINDS = {"device.copy", "device.sync"}


def test_trace_equals_the_trace_recorded_before_the_caches():
    # A fresh process, as the fixture was made: ids count from 1 and every cache starts cold;
    # the third recording repeats the first with every cache warm.
    proc = subprocess.run([sys.executable, os.path.join(HERE, "_recorder_workload.py")], capture_output=True,
                          text=True, check=True, cwd=os.path.dirname(HERE))
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        expected = [json.loads(line) for line in fh]
    for run in range(3):
        # every CPU kind, every run (a GPU's host waits, device.copy and device.sync, need a GPU)
        assert {ev["kind"] for ev in got if ev["run"] == run} == set(EVENT_TYPES) - GPU_KINDS
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"event {i} differs:\n got      {g}\n expected {e}"
    assert len(got) == len(expected)


# -- the builders ----------------------------------------------------------------------


def _sample(field: dataclasses.Field, i: int) -> Any:
    """A distinct value for ``field`` (the builders copy values, whatever their type)."""
    if field.name == "from_":
        return "float16"
    return [i, {"k": i}] if i % 2 else f"v{i}"


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_new_builds_what_the_class_call_builds(kind):
    cls = EVENT_TYPES[kind]
    fields = [f for f in dataclasses.fields(cls) if f.name not in ("seq", "ts_ns")]
    kwargs = {f.name: _sample(f, i) for i, f in enumerate(fields)}
    slow, fast = cls(**kwargs), cls.new(**kwargs)
    assert type(fast) is cls and fast == slow
    assert fast.to_dict() == slow.to_dict() and json.dumps(fast.to_dict()) == json.dumps(slow.to_dict())
    assert event_from_dict(json.loads(json.dumps(fast.to_dict()))).to_dict() == slow.to_dict()
    # Defaults are the class's: leave out every field that has one.
    required = {f.name: kwargs[f.name] for f in fields if f.default is dataclasses.MISSING}
    assert cls.new(**required) == cls(**required)
    with pytest.raises(TypeError):
        cls.new(not_a_field=1, **kwargs)
    if required:
        with pytest.raises(TypeError):
            cls.new()  # a required field missing is an error, as with the class call


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_clone_is_an_equal_fresh_event(kind):
    cls = EVENT_TYPES[kind]
    fields = [f for f in dataclasses.fields(cls) if f.name not in ("seq", "ts_ns")]
    ev = cls(seq=7, ts_ns=99, **{f.name: _sample(f, i) for i, f in enumerate(fields)})
    copy = cls.clone(ev)
    assert copy == ev and copy is not ev and type(copy) is cls
    copy.seq = 8  # stamping the copy leaves the template alone
    assert ev.seq == 7


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_copy_at_is_a_clone_with_its_own_header(kind):
    cls = EVENT_TYPES[kind]
    fields = [f for f in dataclasses.fields(cls) if f.name not in ("seq", "ts_ns")]
    ev = cls(seq=7, ts_ns=99, **{f.name: _sample(f, i) for i, f in enumerate(fields)})
    copy = cls.copy_at(ev, 12, 345)
    assert type(copy) is cls and copy is not ev and (copy.seq, copy.ts_ns) == (12, 345)
    assert dataclasses.replace(copy, seq=7, ts_ns=99) == ev and (ev.seq, ev.ts_ns) == (7, 99)


# -- the kernel-layer cache ------------------------------------------------------------


def _call_events(tr: Any) -> list[dict[str, Any]]:
    """Every event without timing, node and tensor ids numbered by first appearance (``mg.trace.diff``'s view)."""
    from minigrad.tracing.diff import canonical_events

    return canonical_events(tr.events)


def test_a_known_kind_of_call_records_what_the_full_path_records():
    # NOTE [ Kinds of call ] in kernels/api.py: the second recording takes the kind's cached head events.
    from minigrad.kernels import api

    a, b = mg.randn(3, 2, requires_grad=True), mg.randn(3, 2, requires_grad=True)
    (a * b + a).sum()  # the selections are cached from here on (``kernel.select`` says so in both)
    traces = []
    for first in (True, False):
        if first:
            api.KINDS.clear()
        with mg.trace(values=False) as tr:
            (a * b + a).sum()
        traces.append(_call_events(tr))
        assert api.KINDS  # the first recording filled the cache
    assert traces[0] == traces[1]


def test_a_known_kind_of_call_whose_infer_meta_fails_records_the_kernel_layer_first():
    from minigrad.kernels import api

    x, y = mg.randn(2, 3), mg.randn(4, 5)
    x * x  # the kind (float32, cpu, strided) x 2 is known from here on
    got = []
    for fresh in (True, False):
        if fresh:
            api.KINDS.clear()
        with mg.trace(values=False) as tr:
            with pytest.raises(ValueError):
                x * y
        got.append(_call_events(tr))
        x * x  # records nothing; keeps the kind known for the second round
        with mg.trace():
            x * x
    assert got[0] == got[1]
    assert [e["kind"] for e in got[1]][-4:] == ["kernel.lookup", "kernel.lookup", "kernel.select", "error"]


def _kernel_events(tr: Any) -> list[dict[str, Any]]:
    return events(tr, "kernel.key", "kernel.lookup", "kernel.select")


def test_re_emitted_kernel_events_are_fresh_objects_with_their_own_seq():
    a, b = mg.randn(2, 2), mg.randn(2, 2)
    with mg.trace() as tr:
        a * b
        a * b
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    assert len(sel) == 2 and sel[0] is not sel[1] and sel[0].seq < sel[1].seq
    assert sel[1].cached is True
    seqs = [e.seq for e in tr.events]
    assert seqs == list(range(len(seqs)))
    first, second = _kernel_events(tr)[: len(_kernel_events(tr)) // 2], _kernel_events(tr)[len(_kernel_events(tr)) // 2 :]
    assert [{**e, "cached": None} if e.get("cached") is not None else e for e in first] == [
        {**e, "cached": None} if e.get("cached") is not None else e for e in second
    ]


def test_kernel_events_follow_a_newly_registered_kernel():
    with toy_backend():
        x, y = mg.tensor([1.0, 2.0]).to("toy"), mg.tensor([3.0, 4.0]).to("toy")
        with mg.trace() as before:
            x * y  # no TOY kernel: the CPU fallback
        toy_kernel("mul", TOY)
        with mg.trace() as after:
            x * y
        sel_before = events(before, "kernel.select")[0]
        sel_after = events(after, "kernel.select")[0]
        assert sel_before["fallback_cpu"] is True and sel_before["backend"] == "CPU"
        assert sel_after == {
            "kind": "kernel.select", "op": "mul", "kernel": "toy/mul_toy_all_layout", "backend": TOY, "layout": "ALL_LAYOUT",
            "dtype": "float32", "fallback_cpu": False, "cached": False,
        }
        assert [e["found"] for e in events(after, "kernel.lookup")][-1] is True


def test_listeners_see_each_re_emitted_event_once():
    seen: list[Event] = []
    a = mg.randn(2)
    with mg.trace() as tr:
        tr.listeners.append(seen.append)
        a + a
        a + a
    assert seen == tr.events and all(x is y for x, y in zip(seen, tr.events))


def test_values_false_previews_are_summaries_of_every_size():
    with mg.trace(values=False) as tr:
        mg.tensor([1.0, 2.0])
        mg.zeros(3, 4, dtype=mg.float64)
        mg.tensor(3)
    assert [e.value for e in tr.events] == [
        {"shape": [2], "dtype": "float32"},
        {"shape": [3, 4], "dtype": "float64"},
        {"shape": [], "dtype": "int64"},
    ]


def test_a_remade_selection_is_recorded_as_not_cached():
    from minigrad.kernels import select

    a = mg.randn(2)
    a + a  # the kind is known: a recorded call replays its head events only while its selection is cached
    with mg.trace() as tr:
        for _ in range(5):
            select.clear_cache()  # every call makes a new Selection object
            a + a
    assert [e.cached for e in tr.events if e.kind == "kernel.select"] == [False] * 5


def test_default_attributes_are_rendered_once_and_other_attributes_per_call():
    # NOTE [ An op's default attributes are rendered once ] in tracing/preview.py.
    x = mg.randn(2, 3, requires_grad=True)
    with mg.trace(values=False) as tr:
        x.sum()
        x.sum()
        x.sum(0)
    calls = [e for e in tr.events if e.kind == "api.call"]
    nodes = [e for e in tr.events if e.kind == "node.create" and not e.is_accumulation]
    assert calls[0].attrs is calls[1].attrs is nodes[0].attrs is nodes[1].attrs
    assert calls[2].attrs is not calls[0].attrs and calls[2].attrs == nodes[2].attrs
    assert calls[2].attrs != calls[0].attrs


def test_values_false_summaries_are_shared_per_shape_and_dtype_and_saved_alike(tmp_path):
    x = mg.randn(2, 3, requires_grad=True)
    with mg.trace(values=False) as tr:
        y = x * 2.0
        z = y * 3.0
        z.sum().backward()
    creates = {e.tensor: e.value for e in tr.events if e.kind == "tensor.create"}
    assert creates[y.id] is creates[z.id] and creates[y.id] == {"shape": [2, 3], "dtype": "float32"}
    path = tmp_path / "t.jsonl"
    tr.save(path)
    back = mg.trace.load(path)
    assert [e.to_dict() for e in back.events] == [e.to_dict() for e in tr.events]


# -- copies made when read (NOTE [ Copies are made when read ] in tracing/recorder.py) ---------


def _program() -> None:
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = mg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    for _ in range(3):  # calls of a known kind: their kernel-layer events are stored as records
        c = (a * b + a).sum()
    c.backward()


def test_stored_records_read_as_the_events_a_listener_sees():
    _program()  # warm every cache, so both recordings below take the same roads
    heard: list[Event] = []
    with mg.trace(values=False) as eager:
        eager.listeners.append(heard.append)  # a listener: every copy is made as it is emitted
        _program()
    with mg.trace(values=False) as lazy:
        _program()
    assert [e.to_dict() for e in heard] == [e.to_dict() for e in eager.events]
    result = mg.trace.diff(eager, lazy)  # the same trace, but for times and the ids of a later run
    assert result.equal and result.compared == (len(eager.events), len(lazy.events))
    assert [e.seq for e in lazy.events] == list(range(len(lazy.events)))
    assert all(b.ts_ns >= a.ts_ns for a, b in zip(lazy.events, lazy.events[1:]))
    launches = [e for e in lazy.events if e.kind == "kernel.launch"]
    assert launches and all(e.wall_ns > 0 for e in launches)  # each copy holds its own call's time
    assert len({id(e) for e in lazy.events}) == len(lazy.events)  # fresh objects, no shared template


def test_reading_events_while_recording_keeps_one_list():
    with mg.trace(values=False) as tr:
        _program()
        first = tr.events
        n = len(first)
        _program()
        assert tr.events is first and len(first) > n
        assert all(isinstance(e, Event) for e in first)
    assert [e.seq for e in tr.events] == list(range(len(tr)))
