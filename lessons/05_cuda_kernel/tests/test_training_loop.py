"""Task 5.3: ``train`` makes no host<->device copy and no sync inside a steady training step, and
gives the losses of ``train_with_syncs``. Graded on the recording's ``device.copy`` and ``device.sync``
events, on a GPU or, without one, on the stand-in CuPy (``gpu_run.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg

HERE = Path(__file__).resolve().parent
STEPS = 5


_RUNS: dict[str, tuple[dict, list]] = {}


@pytest.fixture
def run(student, tmp_path_factory):
    """Both loops, run once for the task's tests: ``(result, events)``."""
    import gpu_run

    if student.training_loop.__file__ in _RUNS:
        return _RUNS[student.training_loop.__file__]

    if mg.is_gpu_available():
        how = "device"
    elif gpu_run.stand_in() is not None:
        how = "stand-in"
    else:
        pytest.skip("Task 5.3 runs on a GPU, or on the stand-in CuPy (tests/fake_cupy.py of the lesson folder, "
                    "tests/gpu/fake_cupy.py of a minigrad checkout); neither is here")
    out = tmp_path_factory.mktemp("train")
    proc = subprocess.run([sys.executable, str(HERE / "gpu_run.py"), student.training_loop.__file__, str(STEPS),
                           str(out), how], capture_output=True, text=True, timeout=600, env=dict(os.environ))
    result_file = out / "result.json"
    if not result_file.is_file():
        pytest.fail(f"the training loops could not run:\n{proc.stderr[-2000:]}", pytrace=False)
    result = json.loads(result_file.read_text())
    if "error" in result:
        pytest.fail(f"{result['error']}\n{result['where']}", pytrace=False)
    _RUNS[student.training_loop.__file__] = result, mg.trace.load(out / "train.jsonl").events
    return _RUNS[student.training_loop.__file__]


def _steady(events):
    """The events of the steady steps: after the second backward pass ends (the first step uploads each
    kernel's constants once) until the last one ends (after it your code may read the losses back)."""
    ends = [i for i, e in enumerate(events) if e.kind == "backward.end"]
    assert len(ends) == STEPS, f"train should run {STEPS} steps, one backward each; the recording has {len(ends)}"
    return events[ends[1] + 1:ends[-1] + 1]


def _where(events) -> str:
    """``training_loop.py:41 (2 host copy syncs), ...``: the lines that copied or synced."""
    seen = Counter(f"{Path(e.source).name if e.source else '(no line)'} "
                   f"({e.reason if e.kind == 'device.sync' else e.direction + ' copy'})" for e in events)
    return ", ".join(f"{where} x{n}" for where, n in seen.most_common())


@pytest.mark.lesson5_task3
def test_a_steady_step_copies_nothing_and_waits_for_nothing(run):
    _, events = run
    waits = [e for e in _steady(events) if e.kind in ("device.copy", "device.sync")]
    if waits:
        pytest.fail(f"{sum(e.kind == 'device.sync' for e in waits)} syncs and {sum(e.kind == 'device.copy' for e in waits)} "
                    f"copies in steps 2-{STEPS} (each makes Python wait for the GPU): {_where(waits)}", pytrace=False)
    launches = sum(e.kind == "kernel.launch" for e in _steady(events))
    assert launches > 0, "the steady steps should run kernels on the GPU"


@pytest.mark.lesson5_task3
def test_the_losses_are_the_loop_with_syncs_losses(run):
    result, _ = run
    assert isinstance(result["yours"], list) and len(result["yours"]) == STEPS
    assert all(isinstance(v, float) for v in result["yours"]), "train returns the losses as Python floats"
    np.testing.assert_allclose(result["yours"], result["reference"], rtol=1e-6)
