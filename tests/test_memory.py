"""``mg.trace.memory``: bytes alive from the events, checked against the events and the live engine."""

from __future__ import annotations

import inspect
import json
import math
import sys

import numpy as np
import pytest

import minigrad as mg
from minigrad.cli import main
from minigrad.memory_cli import report
from minigrad.tracing.memory import CATEGORIES, Memory


def _model():
    mg.manual_seed(0)
    return mg.nn.Sequential(mg.nn.Linear(16, 32), mg.nn.Tanh(), mg.nn.Linear(32, 32), mg.nn.ReLU(),
                            mg.nn.Linear(32, 4))


def _program(retain_graph=False):
    model = _model()
    x = mg.randn(8, 16)
    y = mg.randint(0, 4, (8,))
    loss = mg.nn.functional.cross_entropy(model(x), y)
    return model, loss


def _record(retain_graph=False):
    with mg.trace(values=False) as tr:
        model, loss = _program()
        live = _live_saved_bytes(loss)
        loss.backward(retain_graph=retain_graph)
    return tr, model, live


def _live_saved_bytes(loss):
    """The bytes of the distinct arrays the graph's TensorWrappers hold, walking the live graph."""
    seen, arrays, stack = set(), {}, [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for w in getattr(node, "wrappers", ()):
            if w is not None:
                arrays[w.tensor_id] = w.data.nbytes
        stack.extend(e.node for row in node.next_edges for e in row)
    return sum(arrays.values())


def test_saved_bytes_total_equals_the_bytes_read_from_the_events_and_the_engine(tmp_path):
    tr, _, live = _record()
    path = tmp_path / "run.jsonl"
    tr.save(str(path))
    raw = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    sizes = {e["tensor"]: math.prod(e["shape"]) * np.dtype(e["dtype"]).itemsize
             for e in raw if e["kind"] == "tensor.create"}
    saved = {t for e in raw if e["kind"] == "node.create" for t in e["saved"]}
    expected = sum(sizes[t] for t in saved)
    mem = mg.trace.memory(mg.trace.load(str(path)))
    assert mem.saved_bytes_total == expected == live > 0


def test_a_tensor_saved_by_two_nodes_counts_once():
    tr, _, _ = _record()
    mem = mg.trace.memory(tr.events)
    shared = [s for s in mem.saved.values() if len(s.nodes) > 1]
    assert shared  # tanh's output: saved by tanh and by the next linear's matmul
    total_with_repeats = sum(mem.saved[t].bytes for n in mem.nodes.values() for t in n.saved)
    assert mem.saved_bytes_total < total_with_repeats


def test_the_timeline_follows_the_engine():
    tr, model, _ = _record()
    mem = mg.trace.memory(tr.events)
    kinds = [e.kind for e in tr.events]
    assert len(mem.timeline) == len(tr.events)
    begin, end = kinds.index("backward.begin"), kinds.index("backward.end")
    params = sum(p.numel() * 4 for p in model.parameters())
    at_begin = mem.at(begin)
    assert at_begin.params == params and at_begin.grads == 0 and at_begin.buffers == 0
    activations = sum(s.bytes for s in mem.saved.values() if not s.parameter)
    assert at_begin.saved == activations > 0
    after = mem.at(end)
    assert after.saved == 0 and after.buffers == 0 and after.grads == params  # released, consumed, written
    clears = [i for i, k in enumerate(kinds) if k == "wrappers.clear"]
    assert all(mem.at(i).saved <= mem.at(i - 1).saved for i in clears)
    assert any(mem.at(i).saved < mem.at(i - 1).saved for i in clears)
    assert max(p.buffers for p in mem.timeline[begin:end]) > 0


def test_retain_graph_keeps_the_saved_tensors():
    tr, _, _ = _record(retain_graph=True)
    mem = mg.trace.memory(tr.events)
    kinds = [e.kind for e in tr.events]
    assert mem.at(len(kinds) - 1).saved == mem.at(kinds.index("backward.begin")).saved > 0


def test_peak_is_positive_and_reached_at_a_named_event():
    tr, _, _ = _record()
    mem = mg.trace.memory(tr.events)
    peak = mem.peak_event()
    assert mem.peak_bytes > 0 and mem.timeline[peak["index"]].total == mem.peak_bytes
    assert all(p.total <= mem.peak_bytes for p in mem.timeline)
    assert peak["kind"] == tr.events[peak["index"]].kind and peak["what"]
    assert peak["seq"] == tr.events[peak["index"]].seq


def test_by_module_names_the_modules_and_their_source_lines():
    tr, _, _ = _record()
    by_module = mg.trace.memory(tr.events).by_module()
    assert "1" in by_module  # as print(model) names the Tanh: (1): Tanh()
    tanh = by_module["1"]
    assert (tanh["path"], tanh["type"]) == ("Sequential.1 (Tanh)", "Tanh")
    lines, first = inspect.getsourcelines(_program)
    line = first + next(i for i, text in enumerate(lines) if "model(x)" in text)
    assert tanh["activation_bytes"] == 8 * 32 * 4 and tanh["source"].endswith(f"test_memory.py:{line}")


def test_replay_state_carries_the_same_accounting():
    tr, _, _ = _record()
    rp = mg.trace.replay(tr.events)
    mem = Memory(tr.events)
    assert [rp.memory.at(i) for i in range(len(rp))] == mem.timeline


def test_recomputed_nodes_are_marked_and_counted_while_they_live():
    model = _model()
    x = mg.randn(8, 16, requires_grad=True)
    with mg.trace(values=False) as tr:
        h = mg.utils.checkpoint.checkpoint(model[:2], x, use_reentrant=True)
        model[2:](h).sum().backward()
    mem = mg.trace.memory(tr.events)
    kinds = [e.kind for e in tr.events]
    b = kinds.index("recompute.begin")
    marked = [n for n in mem.by_node().values() if n["recompute_of"] is not None]
    assert marked and all(n["recompute_of"] == tr.events[b].node for n in marked)
    assert all(n["freed_at"] is not None for n in marked)  # the inner backward released them
    assert mem.at(len(kinds) - 1).saved == 0


def test_cli_prints_the_table_and_writes_the_json(tmp_path, capsys):
    tr, _, _ = _record()
    path = tmp_path / "run.jsonl"
    tr.save(str(path))
    assert main(["memory", str(path), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"saved_bytes_total", "peak_bytes", "by_module", "by_node", "timeline"} <= set(data)
    mem = mg.trace.memory(tr.events)
    assert data["saved_bytes_total"] == mem.saved_bytes_total and data["peak_bytes"] == mem.peak_bytes
    assert len(data["timeline"]) == len(tr.events) and set(CATEGORIES) <= set(data["timeline"][0])
    out_json = tmp_path / "mem.json"
    assert main(["memory", str(path), "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert text == report(mem) + "\n" and json.loads(out_json.read_text()) == data
    assert "peak during backward" in text and "saved by module" in text
    assert any(line.split()[:2] == ["2", "Linear"] for line in text.splitlines())
    assert main(["memory", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_docstring_example_runs():
    import doctest

    result = doctest.testmod(sys.modules["minigrad.tracing.memory"])
    assert result.attempted > 0 and result.failed == 0


def test_saves_taken_by_a_pack_hook_hold_no_bytes():
    x = mg.randn(64, requires_grad=True)
    with mg.trace(values=False) as tr:
        a = x.exp()
        with mg.autograd.graph.saved_tensors_hooks(lambda t: None, lambda p: p):
            b = a.sin()  # sin's save of `a` is packed (the hook keeps None)
        c = b.cos()
    mem = mg.trace.memory(tr.events)
    packs = [e for e in tr.events if e.kind == "saved.pack"]
    assert [e.tensor for e in packs] == [a._id] and packs[0].hook == "<lambda>"
    assert mem.saved[a._id].packed == 1 and len(mem.saved[a._id].nodes) == 2  # exp (its output) and sin
    assert mem.at(len(tr.events) - 1).saved == 2 * 64 * 4  # a (held by exp) and b (held by cos)
    assert mem.saved_bytes_total == 2 * 64 * 4  # every tensor a node.create lists, packed or not
    del c


def _blocks():
    mg.manual_seed(0)
    nn = mg.nn
    return nn.Sequential(nn.Sequential(nn.Linear(32, 64), nn.Tanh()),
                         nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.GELU(), nn.Dropout(0.1)),
                         nn.Linear(64, 10))


def _blocks_run(use_reentrant):
    m = _blocks()
    mg.manual_seed(1)
    x, y = mg.randn(16, 32), mg.randint(0, 10, (16,))
    with mg.trace(values=False) as tr:
        if use_reentrant is None:  # the model called whole: module paths start at its root
            out = m(x)
        else:
            out = m[2](mg.utils.checkpoint.checkpoint(m[1], m[0](x), use_reentrant=use_reentrant))
        mg.nn.functional.cross_entropy(out, y).backward()
    return mg.trace.memory(tr.events)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_what_if_checkpoint_matches_a_checkpointed_run(use_reentrant):
    plain = _blocks_run(None)
    guess = plain.what_if_checkpoint("Sequential.1")
    real = _blocks_run(use_reentrant)
    begin = [e.kind for e in real.events].index("backward.begin")
    actual = real.at(begin).saved
    assert guess["saved_bytes"] == plain.at(guess["at"]).saved > guess["saved_bytes_if_checkpointed"]
    assert abs(guess["saved_bytes_if_checkpointed"] - actual) <= 0.05 * actual
    assert guess["recompute_ops"] == len([n for n in plain.nodes.values() if (n.module or "").startswith("Sequential.1.")])
    assert 0 < guess["recompute_kernel_ns"] < guess["forward_kernel_ns"]
    recomputed = [n for n in real.nodes.values() if n.recompute is not None]
    assert 0 < len(recomputed) <= guess["recompute_ops"]  # the extra forward work, seen in the real run


def test_what_if_names_the_modules_when_the_path_is_unknown():
    with pytest.raises(ValueError, match="no module named 'Sequential.7'.*1.0, 1.1"):
        _blocks_run(None).what_if_checkpoint("Sequential.7")


def test_cli_what_if(tmp_path, capsys):
    m = _blocks()
    with mg.trace(values=False) as tr:
        mg.nn.functional.cross_entropy(m(mg.randn(16, 32)), mg.randint(0, 10, (16,))).backward()
    path = tmp_path / "run.jsonl"
    tr.save(str(path))
    assert main(["memory", str(path), "--what-if", "Sequential.1"]) == 0
    out = capsys.readouterr().out
    guess = mg.trace.memory(tr.events).what_if_checkpoint("Sequential.1")
    assert "if Sequential.1 were checkpointed" in out and f"runs its {guess['recompute_ops']} ops again" in out
    assert main(["memory", str(path), "--what-if", "Nope"]) == 1
    assert "no module named 'Nope'" in capsys.readouterr().err
