"""``mg.trace.diff`` and ``minigrad diff``: equal runs compare equal, engine faults are found where they happen.

The faulty engines are copies of ``minigrad/autograd/engine.py`` with one line
changed (the same way lesson 8 seeds its bugs), run on the same program as the
real engine; the diff must stop at the first event the fault changes.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import types

import pytest

import minigrad as mg
from minigrad.autograd import engine
from minigrad.cli import main
from minigrad.tracing.diff import canonical_events, diff
from minigrad.tracing.describe import describe as describe_event


def faulty_engine(find: str, replace: str) -> types.ModuleType:
    """A copy of the engine module with ``find`` (which must occur once) replaced."""
    text = inspect.getsource(engine)
    assert text.count(find) == 1, find
    mod = types.ModuleType("minigrad.autograd._faulty_engine")
    mod.__package__ = "minigrad.autograd"
    mod.__file__ = engine.__file__
    exec(compile(text.replace(find, replace), "<faulty engine>", "exec"), mod.__dict__)
    return mod


FLIP_FRONT = ("queue.appendleft(nxt)", "queue.append(nxt)")
SKIP_DECREMENT = ("in_degree[nxt] -= 1", "in_degree[nxt] -= (1 if slot == 0 else 0)")
SWAP_EDGES = ("        for slot, row in enumerate(node.next_edges):\n            for rank, edge",
              "        for slot, row in reversed(list(enumerate(node.next_edges))):\n            for rank, edge")


def program(run_backward=None):
    """A diamond and a reused leaf: y = x * w; loss = sum(exp(y) + sin(y) + x * x)."""
    run_backward = run_backward or engine.run_backward
    with mg.trace() as tr:
        x = mg.tensor([0.5, -1.0], requires_grad=True)
        w = mg.tensor([1.5, 0.25], requires_grad=True)
        y = x * w
        loss = (y.exp() + y.sin() + x * x).sum()
        run_backward([loss])
    return tr


def test_two_runs_of_one_program_are_equal():
    a, b = program(), program()
    ids_a = {e.node for e in a.events if e.kind == "node.create"}
    ids_b = {e.node for e in b.events if e.kind == "node.create"}
    assert not ids_a & ids_b, "the second run numbers its nodes after the first: the ids really differ"
    assert any(e.kind == "kernel.select" and e.cached for e in b.events)
    result = mg.trace.diff(a, b)
    assert result.equal and result.first is None and result.compared == (len(a.events), len(b.events))
    assert "agree" in result.report()


def test_two_runs_of_an_inplace_change_through_a_view_are_equal():
    """``tensor.version``'s ``via``/``aliases`` and ``history.rewrite``'s ``from_node``/``to_node`` are ids,
    matched by first appearance like the others (they once compared as raw numbers: every rerun differed)."""
    def run():
        with mg.trace() as tr:
            x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
            h = x * 2
            w = h[:, 0]
            h[1].mul_(3)
            (h.sum() + w.sum()).backward()
        return tr

    a, b = run(), run()
    (bump,) = [e for e in b.events if e.kind == "tensor.version"]
    assert bump.via is not None and bump.aliases
    assert mg.trace.diff(a, b).equal


def test_timing_fields_are_ignored_but_values_are_not():
    a = program()
    c = canonical_events(a.events)
    assert all("ts_ns" not in e and "seq" not in e and "wall_ns" not in e for e in c)
    b = program()
    events = list(b.events)
    i = next(i for i, e in enumerate(events) if e.kind == "grad.accumulate")
    changed = type(events[i])(seq=events[i].seq, ts_ns=events[i].ts_ns, tensor=events[i].tensor, value=[9.0, 9.0],
                              added=events[i].added)
    events[i] = changed
    result = diff(a, events)
    assert not result.equal and result.first.a.index == i
    assert [f.name for f in result.first.fields] == ["value"]


def test_flipped_accumulation_push_is_found_at_the_push():
    faulty = faulty_engine(*FLIP_FRONT)
    a, b = program(faulty.run_backward), program()
    result = diff(a, b, describe=describe_event, labels=("yours", "reference"))
    d = result.first
    assert d.kind == "queue.push"
    ev_a = a.events[d.a.index]
    ev_b = b.events[d.b.index]
    # Everything before the first push of an AccumulationNode behind another node is the same.
    assert d.a.index == d.b.index
    assert [f.name for f in d.fields] == ["queue"] and ev_a.queue[-1] == ev_a.node and ev_b.queue[0] == ev_b.node
    assert d.a.queue is not None and d.a.queue[-1].startswith("AccumulateGrad#")
    assert d.b.queue[0].startswith("AccumulateGrad#")
    assert "AccumulateGrad" in d.explain(("yours", "reference")) and "queue (front first)" in d.explain()
    assert len(d.a.context) == 3


def test_skipped_decrement_is_found_at_the_in_degree_update():
    faulty = faulty_engine(*SKIP_DECREMENT)
    a, b = program(faulty.run_backward), program()
    d = diff(a, b).first
    assert d.kind == "in_degree.update"
    assert [f.name for f in d.fields] == ["in_degree"]
    assert a.events[d.a.index].in_degree == b.events[d.b.index].in_degree + 1
    # The node that missed its decrement still waits for a gradient that already came.
    assert sum(d.a.in_degree.values()) == sum(d.b.in_degree.values()) + 1
    assert len(a.events) < len(b.events), "the stranded node and everything behind it never ran"


def test_swapped_edge_order_is_found_at_the_first_gradient_passed_on():
    faulty = faulty_engine(*SWAP_EDGES)
    a, b = program(faulty.run_backward), program()
    d = diff(a, b, describe=describe_event).first
    assert d.kind == "buffer.add"
    # The first node with two inputs (an add) sends its gradient to its last input first.
    assert [f.name for f in d.fields] == ["node"] and d.a.index == d.b.index
    assert d.a.text.startswith("buffer MulBackward0#") and d.b.text.startswith("buffer AddBackward0#")


def test_all_lists_every_divergent_region_and_kind_restricts():
    faulty = faulty_engine(*FLIP_FRONT)
    a, b = program(faulty.run_backward), program()
    first = diff(a, b)
    every = diff(a, b, all=True)
    assert len(every.divergences) >= 1 and every.divergences[0].a_range[0] == first.first.a_range[0]
    queue_only = diff(a, b, kinds=["queue.*"], all=True)
    assert queue_only.compared[0] == sum(e.kind.startswith("queue.") for e in a.events)
    assert all(d.kind.startswith("queue.") for d in queue_only.divergences if d.a.kind)
    assert diff(a, b, kinds=["kernel.*"]).equal, "the fault is in the backward loop: kernels agree"
    # A recording cut short: the other side goes on.
    short = diff(b.events[:-2], b.events)
    assert short.first.a.index is None and short.first.b.index == len(b.events) - 2
    assert "ends where" in short.first.headline()


def test_to_dict_is_json(tmp_path):
    faulty = faulty_engine(*FLIP_FRONT)
    result = diff(program(faulty.run_backward), program(), all=True)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["equal"] is False and data["divergences"][0]["kind"] == "queue.push"
    assert data["divergences"][0]["a"]["queue"]


# -- the command --------------------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path):
    faulty = faulty_engine(*FLIP_FRONT)
    paths = {}
    for name, tr in (("a", program()), ("b", program()), ("bad", program(faulty.run_backward))):
        paths[name] = tmp_path / f"{name}.jsonl"
        tr.save(paths[name])
    return paths


def test_cli_equal_is_exit_0(saved, capsys):
    assert main(["diff", str(saved["a"]), str(saved["b"])]) == 0
    assert "agree" in capsys.readouterr().out


def test_cli_different_is_exit_1_with_the_first_divergence(saved, capsys, tmp_path):
    out = tmp_path / "d.json"
    assert main(["diff", str(saved["bad"]), str(saved["a"]), "--json", str(out)]) == 1
    text = capsys.readouterr().out
    assert "queue.push" in text and "AccumulateGrad#" in text and "queue (front first)" in text
    assert json.loads(out.read_text())["divergences"][0]["kind"] == "queue.push"
    assert main(["diff", str(saved["bad"]), str(saved["a"]), "--kind", "kernel.*"]) == 0
    assert main(["diff", str(saved["bad"]), str(saved["a"]), "--all"]) == 1


@pytest.mark.parametrize("content", ["", "not json\n", '{"schema": "other"}\n',
                                     '{"schema": "minigrad.trace", "version": 1}\n{"seq": 0, "ts_'])
def test_cli_bad_file_is_exit_2(saved, tmp_path, capsys, content):
    bad = tmp_path / "broken.jsonl"
    bad.write_text(content)
    assert main(["diff", str(bad), str(saved["a"])]) == 2
    assert main(["diff", str(saved["a"]), str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("minigrad diff: error: ") for line in err)


def test_cli_missing_file_and_directory_are_exit_2(saved, tmp_path):
    assert main(["diff", str(tmp_path / "nope.jsonl"), str(saved["a"])]) == 2
    assert main(["diff", str(tmp_path), str(saved["a"])]) == 2


def test_two_processes_record_the_same_program_equal(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import minigrad as mg\n"
        "x = mg.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = (x * x).exp().sum()\n"
        "y.backward()\n"
    )
    paths = []
    for k in range(2):
        p = tmp_path / f"run{k}.jsonl"
        r = subprocess.run([sys.executable, "-m", "minigrad.cli", "record", str(script), "-o", str(p)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        paths.append(p)
    r = subprocess.run([sys.executable, "-m", "minigrad.cli", "diff", *map(str, paths)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
