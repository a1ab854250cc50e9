"""Hostile and non-finite traces: the loader says exactly what is wrong, every viewer keeps working.

Two halves (docs/architecture.md: the trace schema under Events, and bad input):

* Hostile files (deep nesting, wrong field types, huge integers, binary data,
  endless input) give one ``TraceFormatError`` naming file, line and field,
  and every CLI command turns it into one line on stderr and exit status 2.
* A real trace with NaN and Inf gradients is valid: ``minigrad log``,
  ``render`` (backward, forward, flip-book) and ``export-chrome`` show
  ``nan``/``inf`` (the TUI's side is in ``tests/tui/test_tui_hostile.py``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import minigrad as mg
from minigrad.cli import main
from minigrad.tracing import TraceFormatError, loader

HEADER = '{"schema": "minigrad.trace", "version": 1}\n'


def _event(kind: str, **fields) -> str:
    return json.dumps({"seq": 0, "ts_ns": 1, "kind": kind, **fields})


NODE_CREATE = dict(node=1, name="A", op="a", topo_nr=0, seq_nr=0, is_accumulation=False, tensor=None, copy_of=None,
                   edges=[], saved=[], attrs={})

#: name -> (file bytes, the line the message must name, words the message must contain)
HOSTILE: dict[str, tuple[bytes, int | None, str]] = {
    "nested_brackets": ((HEADER + "[" * 200_000 + "\n").encode(), 2, "nested more than 100 levels"),
    "nested_objects": ((HEADER + '{"a":' * 5000 + "1" + "}" * 5000 + "\n").encode(), 2, "nested more than"),
    "in_degree_key_not_an_id": ((HEADER + _event("backward.in_degree", in_degree={"abc": 1})).encode(), 2,
                                "field 'in_degree': key 'abc' is not an integer id"),
    "in_degree_as_list": ((HEADER + _event("backward.in_degree", in_degree=[1, 2])).encode(), 2,
                          "field 'in_degree': expected an object, got list"),
    "edges_as_string": ((HEADER + _event("node.create", **{**NODE_CREATE, "edges": "abc"})).encode(), 2,
                        "field 'edges': expected a list, got str 'abc'"),
    "edges_of_non_dicts": ((HEADER + _event("node.create", **{**NODE_CREATE, "edges": [1, 2]})).encode(), 2,
                           "field 'edges'[0]: expected an object, got int 1"),
    "edge_without_slot": ((HEADER + _event("node.create", **{**NODE_CREATE, "edges": [{"rank": 0, "next": 1}]})).encode(),
                          2, "field 'edges'[0]: missing 'slot'"),
    "node_id_is_an_object": ((HEADER + _event("queue.pop", node={"id": 1}, queue=[])).encode(), 2,
                             "field 'node': expected an integer, got dict"),
    "queue_of_strings": ((HEADER + _event("queue.push", node=1, front=False, queue=["1"])).encode(), 2,
                         "field 'queue'[0]: expected an integer, got str '1'"),
    "front_is_a_string": ((HEADER + _event("queue.push", node=1, front="no", queue=[1])).encode(), 2,
                          "field 'front': expected true or false"),
    "ts_ns_4000_digits": ((HEADER + '{"seq": 0, "ts_ns": ' + "9" * 4000 + ', "kind": "wrappers.clear", "node": 1}\n')
                          .encode(), 2, "field 'ts_ns': integer out of the 64-bit range (4000 digits)"),
    "int_5000_digits": ((HEADER + '{"seq": 0, "ts_ns": ' + "9" * 5000 + ', "kind": "wrappers.clear", "node": 1}\n')
                        .encode(), 2, "invalid JSON"),
    "huge_int_in_a_preview": ((HEADER + _event("grad.accumulate", tensor=1, value=[2**70])).encode(), 2,
                              "field 'value': integer out of the 64-bit range"),
    "preview_of_strings": ((HEADER + _event("grad.accumulate", tensor=1, value=["a"])).encode(), 2,
                           "field 'value': expected numbers in a value preview"),
    "summary_with_bad_shape": ((HEADER + _event("grad.accumulate", tensor=1, value={"shape": 3})).encode(), 2,
                               "needs 'shape' as a list of integers"),
    "binary": (bytes(range(128, 256)) * 64, 1, "not UTF-8 text (byte 0x80 at column 1)"),
    "binary_with_nul": (bytes(range(256)) * 64, 1, "contains NUL bytes"),
    "png_header": (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", 1, "not a minigrad trace"),
    "nul_bytes": ((HEADER + '{"seq": 0\x00}\n').encode(), 2, "NUL bytes"),
    "version_true": (b'{"schema": "minigrad.trace", "version": true}\n', 1,
                     "field 'version': expected a positive integer, got bool true"),
    "version_negative": (b'{"schema": "minigrad.trace", "version": -5}\n', 1,
                         "field 'version': expected a positive integer, got -5"),
    "version_string": (b'{"schema": "minigrad.trace", "version": "1"}\n', 1, "expected a positive integer, got '1'"),
    "seq_true": ((HEADER + '{"seq": true, "ts_ns": 1, "kind": "wrappers.clear", "node": 1}\n').encode(), 2,
                 "field 'seq': expected an integer, got bool true"),
    "kind_not_a_string": ((HEADER + '{"seq": 0, "ts_ns": 1, "kind": 7}\n').encode(), 2,
                          "field 'kind': expected a string, got int 7"),
    "event_is_a_list": ((HEADER + "[1, 2]\n").encode(), 2, "expected a JSON object"),
    "missing_field": ((HEADER + _event("queue.pop", node=1)).encode(), 2, "missing field 'queue' for kind 'queue.pop'"),
    "truncated": ((HEADER + '{"seq": 0, "ts_ns": 1, "kind": "queue.po').encode(), 2, "the file may be truncated"),
    "empty": (b"", None, "empty file"),
}


@pytest.fixture(params=sorted(HOSTILE))
def hostile(request, tmp_path) -> tuple[Path, int | None, str]:
    data, line, words = HOSTILE[request.param]
    path = tmp_path / f"{request.param}.jsonl"
    path.write_bytes(data)
    return path, line, words


def test_loader_names_file_line_and_field(hostile):
    path, line, words = hostile
    with pytest.raises(TraceFormatError) as info:
        mg.trace.load(path)
    message = str(info.value)
    where = f"{path} line {line}: " if line is not None else f"{path}: "
    assert message.startswith(where), message
    assert words in message
    assert info.value.line == line and info.value.source == str(path)
    assert len(message) < 300 and "\n" not in message


@pytest.mark.parametrize("command", ["log", "render", "export-chrome"])
def test_every_cli_command_says_one_line_and_exits_2(hostile, command, capsys, tmp_path):
    path, line, words = hostile
    args = [command, str(path)] + (["-o", str(tmp_path / "out.svg")] if command == "render" else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"minigrad {command}: error: {path}") and words in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_renders_also_refuse_a_hostile_flipbook(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(HOSTILE["nested_brackets"][0])
    assert main(["render", str(path), "--flipbook", str(tmp_path / "b.html")]) == 2
    assert "nested more than 100 levels" in capsys.readouterr().err


def test_dev_zero_stops_at_the_line_cap_in_a_real_process():
    """``/dev/zero`` has no newline: the reader stops at the first over-long line, not when memory runs out."""
    proc = subprocess.run([sys.executable, "-m", "minigrad.cli", "log", "/dev/zero"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "minigrad log: error: /dev/zero line 1: line longer than 16 MiB; is this a minigrad trace?"


def test_an_endless_stream_of_short_lines_stops_at_the_stream_cap(tmp_path, monkeypatch):
    """A pipe that never ends (here: blank lines forever) is read at most MAX_STREAM_BYTES."""
    monkeypatch.setattr(loader, "MAX_STREAM_BYTES", 100_000)
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)

    def write_forever() -> None:
        try:
            with open(fifo, "w") as fh:
                fh.write(HEADER)
                while True:
                    fh.write("\n" * 4096)
        except (BrokenPipeError, ValueError, OSError):
            pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    with pytest.raises(TraceFormatError, match=r"line \d+: stopped after reading 100000 bytes from a stream"):
        mg.trace.load(fifo)
    writer.join(timeout=10)


def test_line_cap_applies_to_loads_too(monkeypatch):
    monkeypatch.setattr(loader, "MAX_LINE_BYTES", 100)
    with pytest.raises(TraceFormatError, match="<string> line 2: line longer than 100 bytes"):
        mg.trace.loads(HEADER + "[" + "1," * 100 + "1]\n")


def test_accepted_edge_cases_still_load():
    """What the schema allows: unknown kinds, extra fields, NaN/Inf previews, nulls where optional."""
    text = (HEADER
            + _event("future.kind", anything={"x": [1, 2]}) + "\n"
            + json.dumps({"seq": 1, "ts_ns": 2, "kind": "grad.accumulate", "tensor": 3, "value": [float("nan"), float("inf")],
                          "extra": "ignored"}) + "\n"
            + json.dumps({"seq": 2, "ts_ns": 3, "kind": "buffer.add", "node": 1, "slot": 0, "rank": 0, "source": None,
                          "value": {"shape": [2, 3], "dtype": "float32"}}) + "\n")
    rec = mg.trace.loads(text)
    assert [e.kind for e in rec.events] == ["future.kind", "grad.accumulate", "buffer.add"]
    value = rec.events[1].value
    assert value[0] != value[0] and value[1] == float("inf")


# ---------------------------------------------------------------------------
# A real trace with NaN and Inf gradients: valid, and every viewer shows it
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nan_trace(tmp_path_factory) -> Path:
    """``(x.log() * x).sum().backward()`` at x = [0, 1]: log(0) = -inf, 0 * -inf = nan, grad[0] = nan."""
    x = mg.tensor([0.0, 1.0], requires_grad=True)
    with mg.trace(values=True) as tr:
        (x.log() * x).sum().backward()
    path = tmp_path_factory.mktemp("nan") / "nan.jsonl"
    tr.save(path)
    return path


def test_the_nan_trace_loads_and_keeps_its_non_finite_values(nan_trace):
    rec = mg.trace.load(nan_trace)
    acc = [e for e in rec.events if e.kind == "grad.accumulate"]
    assert acc and acc[-1].value[0] != acc[-1].value[0] and acc[-1].value[1] == 1.0
    assert any(e.kind == "tensor.create" and e.value == [float("-inf"), 0.0] for e in rec.events)


def test_log_shows_nan_and_inf(nan_trace, capsys):
    assert main(["log", str(nan_trace), "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\.grad = \[nan, 1\]", out)  # a preview is text, never read as rich markup
    assert "[-inf, 0]" in out


@pytest.mark.parametrize("kind", ["backward", "forward"])
def test_render_draws_non_finite_labels(nan_trace, tmp_path, kind):
    out = tmp_path / f"{kind}.dot"
    assert main(["render", str(nan_trace), "-o", str(out), "--kind", kind]) == 0
    text = out.read_text()
    assert "nan" in text and ("inf" in text or kind == "backward")


def test_flipbook_of_the_nan_trace(nan_trace, tmp_path):
    if not _has_dot():
        pytest.skip("Graphviz 'dot' is not installed")
    out = tmp_path / "book.html"
    assert main(["render", str(nan_trace), "--flipbook", str(out)]) == 0
    assert "nan" in out.read_text()


def test_export_chrome_of_the_nan_trace_is_strict_json(nan_trace, tmp_path):
    out = tmp_path / "c.json"
    assert main(["export-chrome", str(nan_trace), "-o", str(out)]) == 0

    def refuse(name: str) -> None:
        raise AssertionError(f"Chrome trace JSON must not contain {name}")

    json.loads(out.read_text(), parse_constant=refuse)


def _has_dot() -> bool:
    import shutil

    return shutil.which("dot") is not None


def test_one_line_at_a_time_for_readers_of_a_growing_trace():
    """``parse_event_line`` applies the loader's checks to one line (for tools that tail a file)."""
    from minigrad.tracing.loader import parse_event_line

    ev = parse_event_line(_event("queue.pop", node=2, queue=[1]))
    assert (ev.kind, ev.node, ev.queue) == ("queue.pop", 2, [1])
    with pytest.raises(TraceFormatError, match=r"^run.jsonl line 9: field 'node': expected an integer, got str '2' "
                                               r"\(in a 'queue.pop' event\)$"):
        parse_event_line(_event("queue.pop", node="2", queue=[]), "run.jsonl", 9)
    with pytest.raises(TraceFormatError, match=r"^run.jsonl: JSON nested more than 100 levels"):
        parse_event_line("[" * 1000, "run.jsonl")
