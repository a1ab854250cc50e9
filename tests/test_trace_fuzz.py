"""Fuzzing the trace readers: mutated recordings are either accepted and drawn, or refused with the documented error.

Hypothesis takes a real recording (a ``grad()`` with ``no_grad_vars``, so
GeneralGrad events are in it) and mutates it the way files get damaged or
tampered with: truncate at any byte, drop lines, duplicate lines, swap
lines, retype a field (string, list, object, bool, null, a huge int, NaN),
nest a value deeply, corrupt bytes, and sometimes renumber ``seq`` so the
reordered events get past the header check.  For every mutant:

* ``mg.trace.load`` returns a trace or raises ``TraceFormatError`` (nothing else);
* an accepted trace replays to every state, both describers word every event,
  the backward, forward and kernel views build their DOT source at every
  backward step (or refuse with the renderer's documented ``LookupError``/
  ``IndexError``/``ValueError``), the TUI's session model lays out every pass,
  and the Chrome export is built;
* ``minigrad log`` exits 0 or 2, never with an internal error.

A smaller run opens accepted mutants in the real TUI through Pilot.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.cli import main
from minigrad.tracing import TraceFormatError
from minigrad.tracing.replay import Replay

FIXTURE = Path(__file__).parent / "viz" / "fixtures" / "grad_no_grad_vars.jsonl"
SMALL = Path(__file__).parent / "viz" / "fixtures" / "simple_backward.jsonl"
LINES = FIXTURE.read_bytes().splitlines(keepends=True)
SMALL_LINES = SMALL.read_bytes().splitlines(keepends=True)

#: Values a retyped field may get.
ODD_VALUES = st.sampled_from(["x", "", [], [1, "a"], {}, {"k": 1}, True, False, None, 2**80, -1, 0, 7, 10**18,
                              float("nan"), float("inf"), 1.5, [[1]], {"shape": "3"}, {"shape": [2], "dtype": 1}])


@st.composite
def mutants(draw, lines: list[bytes] = LINES) -> bytes:
    """A damaged copy of a recording (one to three mutations)."""
    out = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["truncate", "drop", "duplicate", "swap", "retype", "nest", "corrupt", "delete_key"]))
        if not out:
            break
        # Mostly events; the header line now and then.
        i = draw(st.integers(0, len(out) - 1)) if draw(st.integers(0, 9)) == 0 else draw(st.integers(1, max(1, len(out) - 1)))
        i = min(i, len(out) - 1)
        if how == "truncate":
            data = b"".join(out)
            cut = draw(st.integers(0, len(data))) if draw(st.integers(0, 9)) == 0 else draw(st.integers(len(out[0]), len(data)))
            out = data[:cut].splitlines(keepends=True)
        elif how == "drop":
            del out[i]
        elif how == "duplicate":
            out.insert(i, out[i])
        elif how == "swap":
            j = draw(st.integers(0, len(out) - 1))
            out[i], out[j] = out[j], out[i]
        elif how in ("retype", "nest", "delete_key"):
            try:
                obj = json.loads(out[i])
            except (ValueError, RecursionError):  # damaged or deeply nested: the loader's problem
                continue
            if not isinstance(obj, dict) or not obj:
                continue
            key = draw(st.sampled_from(sorted(obj)))
            if how == "retype":
                obj[key] = draw(ODD_VALUES)
            elif how == "nest":
                depth = draw(st.sampled_from([2, 50, 99, 101, 5000]))
                obj[key] = json.loads("[" * depth + "1" + "]" * depth) if depth < 900 else None
                if depth >= 900:
                    out[i] = json.dumps(obj).replace("null", "[" * depth + "]" * depth, 1).encode() + b"\n"
                    continue
            else:
                del obj[key]
            out[i] = json.dumps(obj).encode() + b"\n"
        else:  # corrupt: overwrite a few bytes anywhere
            data = bytearray(b"".join(out))
            if not data:
                break
            for _ in range(draw(st.integers(1, 4))):
                pos = draw(st.integers(0, len(data) - 1))
                data[pos] = draw(st.integers(0, 255))
            out = bytes(data).splitlines(keepends=True)
    if draw(st.booleans()):
        # Renumber seq so that reordered and duplicated events pass the header check
        # and reach replay and the viewers as a consistent-looking but impossible story.
        for k, line in enumerate(out[1:], start=1):
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):  # damaged or deeply nested: the loader's problem
                continue
            if isinstance(obj, dict) and type(obj.get("seq")) is int:
                obj["seq"] = k
                out[k] = json.dumps(obj).encode() + b"\n"
    return b"".join(out)


def _load(data: bytes):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mutant.jsonl"
        path.write_bytes(data)
        try:
            return mg.trace.load(path), None
        except TraceFormatError as exc:
            return None, exc


def _exercise_viewers(events) -> None:
    from minigrad.tracing.describe import describe, explain
    from minigrad.tui.layout2d import pass_graph
    from minigrad.tui.model import Session
    from minigrad.viz import chrome, render
    from minigrad.viz.flipbook import backward_steps

    rp = Replay(events)
    states = list(rp)
    final = rp.final
    for ev, state in zip(events, states):
        describe(ev, state)
        describe(ev, final)
        explain(ev, state)
    steps = {len(events) - 1}
    for number in range(len(rp.backward_passes())):
        steps.update(backward_steps(rp, number))
    for kind in ("backward", "forward", "kernel"):
        for step in sorted(steps):
            try:
                render(rp, kind=kind, step=step).source  # noqa: B018 - building the DOT text is the check
            except (LookupError, ValueError):  # the renderer's documented refusals (IndexError is a LookupError)
                pass
    session = Session(events)
    for info in session.passes:
        pass_graph(session.layout(info.number))  # what the 2-D pane would lay out (without running dot)
    chrome.chrome_trace(events)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutants())
def test_mutated_traces_load_or_fail_with_trace_format_error(data: bytes):
    rec, error = _load(data)
    if error is not None:
        message = str(error)
        assert "mutant.jsonl" in message and "\n" not in message
        assert error.line is None or f"line {error.line}: " in message
        return
    if rec.events:
        _exercise_viewers(rec.events)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutants())
def test_minigrad_log_exits_0_or_2_on_mutants(data: bytes):
    import contextlib
    import io

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mutant.jsonl"
        path.write_bytes(data)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["log", str(path), "--width", "120"])
    assert code in (0, 2), err.getvalue()
    if code == 2:
        assert err.getvalue().startswith(f"minigrad log: error: {path}")


@pytest.mark.parametrize("seed", range(6))
def test_accepted_mutants_open_in_the_tui(seed: int):
    """A few accepted mutants of a small trace, stepped through the real app with Pilot."""
    import asyncio
    import random

    from minigrad.tui.app import MinigradApp
    from minigrad.tui.model import Session

    rng = random.Random(seed)
    for _ in range(200):  # find an accepted mutant: drop or duplicate a couple of lines
        lines = list(SMALL_LINES)
        for _ in range(2):
            i = rng.randrange(1, len(lines))
            if rng.random() < 0.5:
                del lines[i]
            else:
                lines.insert(i, lines[i])
        rec, error = _load(b"".join(lines))
        if error is None and rec.events:
            break
    else:  # pragma: no cover - the recording always has acceptable mutants
        pytest.fail("no accepted mutant found")

    async def drive() -> None:
        app = MinigradApp(Session(rec.events, title="mutant"))
        async with app.run_test(size=(100, 30)) as pilot:
            for key in ("right", "right", "n", "n", "b", "end", "home", "2", "3", "1", "m", "left"):
                await pilot.press(key)
            await pilot.pause()
            assert app.is_running

    asyncio.run(drive())
