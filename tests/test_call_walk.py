"""The walk of ``a * b`` and ``loss.backward()`` in docs/architecture.md is what a debugger sees.

Each walk runs under ``sys.setprofile``, which reports every Python function
entered (not C functions such as NumPy's ufuncs). ``a * b`` must be exactly
the table the doc gives - the same functions in the same files, in order -
within its budget of calls and files, going down the layers: no file is
entered again once all its frames have returned. ``loss.backward()`` must run the
functions the doc names in that order (others run between them: the
formulas' kernels, the buffers, NumPy's own Python functions), within its
budget. A recorded ``a * b`` keeps its own budget. The walks are measured in a
fresh interpreter (``_walks``), as a program runs them.
"""

from __future__ import annotations

import functools
import gc
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import minigrad as mg

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"

# Python calls and files each walk may take (the doc's numbers; lower them when the walk gets shorter).
MUL_CALLS, MUL_FILES = 11, 8
# Recorded: 39, plus naming the result after the line's variable (``name_outputs``) and, the first time a line
# runs recorded, judging its frames' instructions (``_verdict``: here the walk's lambda and ``_walk``'s call).
RECORDED_MUL_CALLS = 42
BACKWARD_CALLS = 78


def _walk(fn: Callable[[], Any], reentered: list[str] | None = None) -> list[tuple[str, str]]:
    """``(file relative to the repository or a library, function)`` of every Python call ``fn`` makes.

    ``reentered`` collects the files entered again after every frame of theirs had returned and
    another file was entered (the walk went back into a file it left)."""
    calls: list[tuple[str, str]] = []
    stack: list[str] = []
    left: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            path = frame.f_code.co_filename
            rel = Path(path).resolve().relative_to(ROOT).as_posix() if path.startswith(str(ROOT)) else path
            calls.append((rel, frame.f_code.co_name))
            back = rel in left and rel not in stack and (not calls[:-1] or calls[-2][0] != rel)
            if back and reentered is not None:  # (the next call of a file just called, as a sibling, is not)
                reentered.append(rel)
            stack.append(rel)
        elif event == "return" and stack:
            left.add(stack.pop())

    # The collector stays off while walking: a collection there would run the finalizers and weakref
    # callbacks of other tests' garbage, Python calls that are not the walk's (a run in CI counted 15).
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if was_enabled:
            gc.enable()
    return calls[1:]  # the first is ``fn`` itself


def _steadiest(make: Callable[[], Callable[[], Any]], reentered: list[str] | None = None,
               tries: int = 3) -> list[tuple[str, str]]:
    """The shortest of ``tries`` walks, each of a fresh ``make()``.

    A walk is deterministic, but Python code that is not the walk's can run inside it: once in a full
    CI run a walk of ``loss.backward()`` counted 15 calls more than every walk before and after it (the
    collector is off, so not a finalizer; the suite, probed after every test, never showed it). A
    regression lengthens every walk; an interruption lengthens one."""
    walks = []
    for _ in range(tries):
        back: list[str] = []
        walks.append((_walk(make(), back), back))
    calls, back = min(walks, key=lambda w: len(w[0]))
    if reentered is not None:
        reentered.extend(back)
    return calls


def _doc_walk(title: str) -> list[tuple[str, str]]:
    """The ``(file, function)`` rows of the doc's table under ``<!-- walk: title -->``."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split(f"<!-- walk: {title} -->", 1)[1].split("<!-- /walk -->", 1)[0]
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^\| \d+ \| `([^`]+)` \| `([^`]+)` \|", block, re.M)]


def _leaves() -> tuple[mg.Tensor, mg.Tensor]:
    return mg.randn(3, 4, requires_grad=True), mg.randn(3, 4, requires_grad=True)


def _warm() -> None:
    """Every kind of call and every cache the walks use, seen once."""
    for _ in range(2):
        a, b = _leaves()
        (a * b).sum().backward()
        a * b


def _measure() -> dict[str, Any]:
    """The three walks, measured in this process: ``a * b`` (with the files it went back into),
    ``loss.backward()`` and a recorded ``a * b``."""
    _warm()
    a, b = _leaves()
    a * b  # the leaves' AccumulationNodes are made on their first use
    reentered: list[str] = []
    mul = _steadiest(lambda: lambda: a * b, reentered)

    def make() -> Callable[[], Any]:
        x, y = _leaves()
        loss = (x * y).sum()
        return lambda: loss.backward()

    backward = _steadiest(make)
    with mg.trace(values=False):
        a * b
        recorded = _steadiest(lambda: lambda: a * b)
    return {"mul": mul, "reentered": reentered, "backward": backward, "recorded": recorded}


@functools.lru_cache(maxsize=None)
def _walks() -> dict[str, Any]:
    """``_measure()`` in a fresh interpreter: what a program sees, whatever the tests before this one left
    in their process (two CI runs counted 15 and 21 calls more in ``loss.backward()`` after other tests on
    the same worker; no probe of the suite's state found which one)."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import test_call_walk as t; "
            "print(json.dumps(t._measure()))")
    r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    data = json.loads(r.stdout.strip().splitlines()[-1])
    return {k: [tuple(c) for c in v] if k != "reentered" else v for k, v in data.items()}


def test_a_times_b_is_the_walk_the_doc_gives() -> None:
    calls, reentered = _walks()["mul"], _walks()["reentered"]
    assert calls == _doc_walk("a * b")
    assert len(calls) <= MUL_CALLS and len({f for f, _ in calls}) <= MUL_FILES
    assert not reentered, f"the walk went back into files it left: {reentered}"


def test_loss_backward_runs_the_functions_the_doc_names_in_order() -> None:
    calls = _walks()["backward"]
    assert len(calls) <= BACKWARD_CALLS, "\n".join(f"{f}:{fn}" for f, fn in calls)
    rest = iter(calls)
    missing = [step for step in _doc_walk("loss.backward()") if step not in rest]  # a subsequence
    assert not missing, f"not seen in this order: {missing}"


def test_a_recorded_a_times_b_keeps_its_budget() -> None:
    calls = _walks()["recorded"]
    assert len(calls) <= RECORDED_MUL_CALLS
    names = [f for f, _ in calls]
    assert "minigrad/dispatch/dygraph.py" in names and "minigrad/kernels/api.py" in names


def test_the_walks_see_the_engine_run() -> None:
    """The measuring itself, in this process: the walk records the engine's functions, and the backward
    it watches really ran."""
    _warm()
    a, b = _leaves()
    loss = (a * b).sum()
    calls = _walk(lambda: loss.backward())
    assert a.grad is not None and b.grad is not None
    assert ("minigrad/autograd/engine.py", "run_ready_queue") in calls
