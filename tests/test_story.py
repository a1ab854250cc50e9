"""The recording keeps the whole story: the error that ended a pass or a call (``error``), and the
names the student wrote (``h = x * 2`` is ``h``); ``minigrad record`` shows the user's traceback.

The two programs are the ones a student tried: an in-place change through a view before backward
(``h[1].mul_(3)``, which PyTorch allows), then an in-place change of a tensor ``exp`` saved
(``y.add_(1)``), which PyTorch refuses in backward.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.tracing.replay import node_status

ROOT = Path(__file__).resolve().parents[1]

from _story_program import PROGRAM  # noqa: E402


def record_program(tmp_path: Path) -> tuple[list, BaseException]:
    """Run PROGRAM from a file under ``mg.trace()`` (its lines must be readable, as a script's are)."""
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM, encoding="utf-8")
    code = compile(PROGRAM, str(path), "exec")
    with mg.trace() as tr:
        with pytest.raises(RuntimeError) as info:
            exec(code, {"__name__": "__main__"})
    return tr.events, info.value


def test_a_refused_backward_ends_its_pass_with_an_error_event(tmp_path):
    events, exc = record_program(tmp_path)
    errors = [e for e in events if e.kind == "error"]
    assert len(errors) == 1 and events[-1] is errors[0]  # one event, the last: nothing after the refusal
    ev = errors[0]
    assert ev.error == "RuntimeError" and ev.message == str(exc)
    assert ev.source == f"{tmp_path / 'prog.py'}:9" and ev.op is None
    states = mg.trace.replay(events)
    final = states.final
    second = final.passes[-1]
    assert second.error is not None and second.error["at"] == len(events) - 1 and second.done
    assert final.nodes[ev.node].op == "exp"  # the node that was running: exp's, which saved y
    assert node_status(final, ev.node, second) == "running"  # kept in focus
    assert final.passes[0].error is None and final.passes[0].done
    assert states.backward_passes()[-1][1] == len(events) - 1


def test_the_student_s_names_reach_events_errors_and_describe(tmp_path):
    events, exc = record_program(tmp_path)
    names = {e.tensor: e.name for e in events if e.kind == "tensor.create"}
    assert sorted(n for n in names.values() if not n.startswith("t")) == ["h", "x", "y"]
    # the stale-tensor error names the tensor once, by the student's name
    assert "tensor 'y' saved by" in str(exc) and "(t" not in str(exc)
    from minigrad.tracing.describe import describe

    final = mg.trace.replay(events).final
    y = next(t for t, n in names.items() if n == "y")
    (ver,) = [e for e in events if e.kind == "tensor.version" and e.tensor == y]
    text = describe(ver, final)
    assert "y" in text.replace(",", " ").split() and f"t{y}" not in text, text


def test_names_follow_the_documented_rule():
    def helper(t):
        return t.exp() if t is not None else t

    with mg.trace() as tr:
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        g = mg.exp(x * 2)  # only the final result is g
        k = helper(x)  # returned directly: k
        w = mg.tensor([1.0], name="given")  # name= wins
        n: mg.Tensor = x + 1
        (m := x - 1)
        x.sum()  # no assignment
        g += 1  # in place: g keeps its tensor and name
    made = [(e.tensor, e.name) for e in tr.events if e.kind == "tensor.create"]
    by_id = dict(made)
    assert by_id[x.id] == "x" and by_id[g.id] == "g" and by_id[k.id] == "k" and by_id[n.id] == "n"
    assert by_id[w.id] == "given" and by_id[m.id] == "m"
    inner = [name for tid, name in made if tid not in (x.id, g.id, k.id, w.id, n.id, m.id)]
    assert inner and all(name.startswith("t") for name in inner)  # x * 2, scalars, x.sum(), g + 1's temporary
    assert g.name == "g"


def test_nothing_is_named_or_looked_up_without_a_recorder(monkeypatch):
    from minigrad.tracing import provenance

    monkeypatch.setattr(provenance, "name_outputs", lambda outs: pytest.fail("named without a recorder"))
    h = mg.tensor([1.0, 2.0], requires_grad=True) * 2
    assert h.name == f"t{h.id}"


def test_a_failed_op_call_is_recorded_once_with_its_op(tmp_path):
    a, b = mg.ones(2, 3), mg.ones(2, 3)
    with mg.trace() as tr:
        with pytest.raises(RuntimeError):
            a @ b
    (ev,) = [e for e in tr.events if e.kind == "error"]
    assert ev.op == "matmul" and ev.node is None and ev.source.endswith(f"test_story.py:{_line_of('a @ b')}")
    state = mg.trace.replay(tr.events).final
    assert state.calls[-1].op == "matmul" and state.calls[-1].error["message"] == ev.message
    assert state.errors[-1]["op"] == "matmul"


def test_an_op_failing_inside_backward_is_one_event_naming_node_and_op():
    class Bad(mg.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, g):
            return g @ mg.ones(5, 7)  # a shape error inside backward

    x = mg.ones(2, 3, requires_grad=True)
    with mg.trace() as tr:
        with pytest.raises(RuntimeError):
            Bad.apply(x).sum().backward()
    errors = [e for e in tr.events if e.kind == "error"]
    assert len(errors) == 1
    assert errors[0].node is not None and errors[0].op == "matmul"
    assert mg.trace.replay(tr.events).final.passes[-1].error is not None


def test_a_second_failure_in_an_except_block_is_its_own_event():
    with mg.trace() as tr:
        try:
            mg.ones(2) @ mg.ones(3)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                mg.ones(4) @ mg.ones(5)
    assert [e.kind for e in tr.events].count("error") == 2


def test_error_events_load_and_validate(tmp_path):
    events, _ = record_program(tmp_path)
    with mg.trace() as tr:
        pass
    tr.events.extend(events)
    path = tmp_path / "run.jsonl"
    tr.save(path)
    loaded = mg.trace.load(path)
    assert [e.kind for e in loaded.events][-1] == "error"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[-1] = lines[-1].replace('"error":"RuntimeError"', '"error":3')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(mg.tracing.TraceFormatError, match="field 'error'"):
        mg.trace.load(path)


def test_minigrad_record_prints_the_user_s_traceback_keeps_the_recording_and_exits_1(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "minigrad.cli", "record", "prog.py", "-o", "run.jsonl"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr
    assert 'File "prog.py", line 9, in <module>' in err and "y.sum().backward()" in err
    assert "minigrad/ops/" in err  # the failing op's frame (exp's backward formula)
    assert "cli.py" not in err and "runpy" not in err and "engine.py" not in err
    assert err.count("Traceback (most recent call last)") == 1
    assert err.count("RuntimeError: one of the tensors") == 1
    assert mg.trace.load(tmp_path / "run.jsonl").events[-1].kind == "error"


def _line_of(text: str) -> int:
    lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip() == text)


def test_the_svg_renderer_marks_the_ending_and_draws_no_invented_edge(tmp_path):
    from minigrad import viz

    events, _ = record_program(tmp_path)
    rp = viz.to_replay(events)
    first = viz.render(rp, kind="backward", backward_pass=0).graph
    assert "(done)" in first.title and not [e for e in first.edges if e.style == "replaced"]
    second = viz.render(rp, kind="backward", backward_pass=1).graph
    assert "(ended by RuntimeError at prog.py:9)" in second.title
    assert any("STALE saved y" in line for n in second.nodes for line in getattr(n, "lines", ()) or [str(n)])


def test_describe_says_the_error_in_one_line(tmp_path):
    from minigrad.tracing.describe import describe, explain

    events, exc = record_program(tmp_path)
    final = mg.trace.replay(events).final
    text = describe(events[-1], final)
    assert text.startswith("RuntimeError in ") and f"at {tmp_path / 'prog.py'}:9: " in text and text.endswith(str(exc))
    assert "\n" not in text and "pass ends here" in explain(events[-1], final)


def test_an_error_after_a_pass_ended_does_not_end_it_again():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    unused = mg.tensor([3.0], requires_grad=True)
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match="allow_unused"):
            mg.grad([(x * 2).sum()], [x, unused])
    from minigrad.tracing.describe import explain

    kinds = [e.kind for e in tr.events]
    assert kinds[-2:] == ["backward.end", "error"]  # grad() finished its pass, then refused the unused input
    state = mg.trace.replay(tr.events).final
    assert state.passes[-1].error is None and state.errors[-1]["message"].startswith("The differentiated Tensor at index 1 appears")
    assert "no pass was running" in explain(tr.events[-1], state)


def test_a_refused_in_place_change_is_an_error_of_its_own_op_not_of_the_call_before():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.trace() as tr:
        y = x * 2
        with pytest.raises(RuntimeError, match="leaf Variable"):
            x.add_(1)
    (ev,) = [e for e in tr.events if e.kind == "error"]
    assert ev.op == "add_" and ev.node is None
    state = mg.trace.replay(tr.events).final
    assert all(c.error is None for c in state.calls)  # x * 2 finished; the refusal made no call
    assert state.errors[-1]["op"] == "add_" and y.name == "y"
