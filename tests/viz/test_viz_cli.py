"""The ``minigrad`` command: each subcommand, and readable failures on bad input."""

from __future__ import annotations

import re
import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from viz_helpers import FIXTURES, needs_dot, parse_svg

from minigrad.cli import build_parser, main

SIMPLE = str(FIXTURES / "simple_backward.jsonl")
GRAD = str(FIXTURES / "grad_pruned.jsonl")


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m minigrad.cli`` as a user would (a real process, real exit code)."""
    return subprocess.run([sys.executable, "-m", "minigrad.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


@needs_dot
def test_render_step_writes_svg(tmp_path, capsys):
    out = tmp_path / "g.svg"
    assert main(["render", SIMPLE, "-o", str(out), "--step", "46"]) == 0
    nodes, _ = parse_svg(out.read_text())
    assert "running" in nodes["n3"].classes and "Q1" in nodes["n2"].texts
    assert "event 46" in capsys.readouterr().err


@needs_dot
@pytest.mark.parametrize("kind,expect", [("forward", "t1"), ("kernel", "k0"), ("backward", "n4")])
def test_render_kinds(tmp_path, kind, expect):
    out = tmp_path / f"{kind}.svg"
    assert main(["render", SIMPLE, "-o", str(out), "--kind", kind]) == 0
    nodes, _ = parse_svg(out.read_text())
    assert expect in nodes


@needs_dot
def test_render_kernel_by_call_and_png_and_dot(tmp_path):
    assert main(["render", SIMPLE, "-o", str(tmp_path / "k.svg"), "--kind", "kernel", "--call", "1"]) == 0
    nodes, _ = parse_svg((tmp_path / "k.svg").read_text())
    assert any("add(" in t for n in nodes.values() for t in n.texts)
    assert main(["render", SIMPLE, "-o", str(tmp_path / "g.png")]) == 0
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["render", SIMPLE, "-o", str(tmp_path / "g.dot")]) == 0
    assert (tmp_path / "g.dot").read_text().startswith("digraph minigrad_backward")


@needs_dot
def test_render_flipbook(tmp_path):
    out = tmp_path / "fb.html"
    assert main(["render", GRAD, "--flipbook", str(out), "--frames", "node"]) == 0
    html = out.read_text()
    assert html.count('<section class="frame"') == 6
    assert main(["render", SIMPLE, "--flipbook", str(out)]) == 0
    assert out.read_text().count('<section class="frame"') == 33


def test_log_filters_by_kind(capsys):
    assert main(["log", SIMPLE, "--kind", "queue.*", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "push AccumulateGrad#1 to the front" in out
    assert "pop MulBackward0#2" in out
    assert "node.run" not in out and "buffer.add" not in out
    assert main(["log", SIMPLE, "--kind", "node.run", "--limit", "2", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "ran SumBackward0#4" in out and "ran AddBackward0#3" in out and "ran MulBackward0#2" not in out


def test_log_numbers_op_calls_like_the_kernel_view(capsys, tmp_path):
    assert main(["log", SIMPLE, "--kind", "api.call", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "call 0: mul(x, w)" in out and "call 1: add(m, x)" in out and "call 2: sum(s)" in out
    assert main(["render", SIMPLE, "-o", str(tmp_path / "k.dot"), "--kind", "kernel", "--call", "1"]) == 0
    assert "kernel selection for add (call 1" in (tmp_path / "k.dot").read_text()


def test_export_chrome(tmp_path):
    out = tmp_path / "trace.json"
    assert main(["export-chrome", SIMPLE, "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    names = [e["name"] for e in doc["traceEvents"] if e["ph"] == "X"]
    assert "mul_cpu" in names and "SumBackward0#4" in names and "backward()" in names


BAD_FILES = {
    "empty.jsonl": (b"", "empty file"),
    "truncated.jsonl": (Path(SIMPLE).read_bytes()[:700], "the file may be truncated"),
    "foreign.jsonl": (b'{"name": "something else"}\n{"x": 1}\n', "not a minigrad trace"),
    "binary.jsonl": (bytes(range(256)) * 4, "minigrad trace"),
    "newer.jsonl": (b'{"schema": "minigrad.trace", "version": 99}\n', "not supported"),
    "badevent.jsonl": (b'{"schema": "minigrad.trace", "version": 1}\n{"seq": 0, "ts_ns": 1, "kind": "queue.pop"}\n',
                       "line 2: missing field"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["render", "log", "export-chrome"])
def test_bad_trace_files_give_one_readable_line(tmp_path, capsys, name, command):
    data, message = BAD_FILES[name]
    path = tmp_path / name
    path.write_bytes(data)
    args = [command, str(path)] + (["-o", str(tmp_path / "out.svg")] if command == "render" else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith(f"minigrad {command}: error: {path}") and err.count("\n") <= 2


def test_bad_file_in_a_real_process_has_no_traceback(tmp_path):
    path = tmp_path / "truncated.jsonl"
    path.write_bytes(BAD_FILES["truncated.jsonl"][0])
    proc = run_cli("render", str(path), "-o", str(tmp_path / "g.svg"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "the file may be truncated" in proc.stderr


def test_missing_file_and_bad_step_and_no_output(tmp_path, capsys):
    assert main(["log", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["render", SIMPLE, "-o", str(tmp_path / "x.svg"), "--step", "500"]) == 1
    assert "step 500 out of range: the trace has 64 events" in capsys.readouterr().err
    assert main(["render", SIMPLE]) == 1
    assert "nothing to write" in capsys.readouterr().err
    assert main(["render", SIMPLE, "-o", str(tmp_path / "x.svg"), "--kind", "kernel", "--call", "conv"]) == 1
    assert "no op call named 'conv'" in capsys.readouterr().err
    assert main(["render", str(tmp_path), "-o", str(tmp_path / "x.svg")]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_render_without_dot_saves_dot_and_explains(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path / "no-bin"))
    proc = subprocess.run([sys.executable, "-m", "minigrad.cli", "render", SIMPLE, "-o", str(tmp_path / "h.svg")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 3
    assert "apt-get install graphviz" in proc.stderr and "brew install graphviz" in proc.stderr
    assert f"saved to {tmp_path / 'h.dot'}" in proc.stderr
    assert (tmp_path / "h.dot").read_text().startswith("digraph")
    assert "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "minigrad.cli", "render", SIMPLE, "--flipbook", str(tmp_path / "b.html")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 3 and "apt-get install graphviz" in proc.stderr
    assert (tmp_path / "b.dot").read_text().count("digraph minigrad_backward") == 33
    assert not (tmp_path / "b.html").exists()


def test_record_runs_the_script_as_main_and_saves(tmp_path):
    script = tmp_path / "emit.py"
    script.write_text(textwrap.dedent("""
        import sys
        from minigrad.tracing import bus, events as E
        assert __name__ == "__main__"
        bus.recorder.emit(E.HookRun(target=len(sys.argv), hook_kind=sys.argv[-1]))
        print("script ran")
    """))
    out = tmp_path / "run.jsonl"
    proc = run_cli("record", str(script), "-o", str(out), "--", "--flag", "hello", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "script ran" in proc.stdout
    from minigrad.tracing import load

    (ev,) = [e for e in load(out).events if e.kind == "hook.run"]
    assert ev.target == 3 and ev.hook_kind == "hello"  # argv = [script, --flag, hello]


def test_record_reports_a_failing_script_and_keeps_the_events(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("from minigrad.tracing import bus, events as E\n"
                      "bus.recorder.emit(E.HookRun(target=1, hook_kind='x'))\n"
                      "raise ValueError('bad shapes')\n")
    out = tmp_path / "run.jsonl"
    proc = run_cli("record", str(script), "-o", str(out))
    assert proc.returncode == 1
    assert "ValueError: bad shapes" in proc.stderr  # the script's own traceback is shown
    assert "the events up to the error were saved" in proc.stderr
    assert out.exists()
    assert run_cli("record", str(tmp_path / "missing.py")).returncode == 1


def test_parser_has_one_function_per_subcommand():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(sub.choices) == {"record", "render", "log", "export-chrome", "diff", "web", "codegen", "memory", "lessons"}
    funcs = {name: p.get_default("func").__name__ for name, p in sub.choices.items()}
    assert funcs == {"record": "cmd_record", "render": "cmd_render", "log": "cmd_log",
                     "export-chrome": "cmd_export_chrome", "diff": "cmd_diff", "web": "cmd_web",
                     "codegen": "cmd_codegen", "memory": "cmd_memory", "lessons": "run"}


@needs_dot
def test_installed_console_script(tmp_path):
    exe = Path(sys.executable).parent / "minigrad"
    if not exe.exists():
        pytest.skip("console script not installed in this environment")
    proc = subprocess.run([str(exe), "render", SIMPLE, "-o", str(tmp_path / "g.svg")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ET.fromstring((tmp_path / "g.svg").read_text())


def test_forward_render_names_the_events_its_title_shows(tmp_path, capsys):
    out = tmp_path / "fwd.svg"
    assert main(["render", SIMPLE, "--kind", "forward", "-o", str(out)]) == 0
    said = re.search(r"forward view, events (\d+)–(\d+)", capsys.readouterr().err)
    assert said, "the CLI names the span of events the forward view draws"
    assert f"events {said[1]}–{said[2]}" in out.read_text()


def test_log_indents_a_nodes_formula_under_its_node_begin(tmp_path, capsys):
    import minigrad as mg

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.trace() as tr:
        (x.exp() * x).sum().backward()
    path = tmp_path / "t.jsonl"
    tr.save(path)
    assert main(["log", str(path), "--width", "200"]) == 0
    rows = {int(m[1]): m[2] for m in re.finditer(r"│\s*(\d+) │[^│]*│ (.*?)\s*│", capsys.readouterr().out)}
    begin = next(i for i, e in enumerate(tr.events) if e.kind == "node.begin")
    end = next(i for i in range(begin, len(tr.events)) if tr.events[i].kind == "node.run")
    assert rows[begin].startswith("node.begin") and rows[end].startswith("node.run")
    assert all(rows[i].startswith("  ") for i in range(begin + 1, end))
