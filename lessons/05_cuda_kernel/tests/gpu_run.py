"""Run both training loops of ``training_loop.py`` on the GPU under ``mg.trace()``, in a fresh process.

``python gpu_run.py STUDENT_FILE STEPS OUT``: writes ``OUT/train.jsonl`` (your ``train``'s recording),
``OUT/result.json`` (both loops' losses, or the error your code raised). Without a GPU it runs on
the stand-in CuPy (``fake_cupy.py`` beside this file, the one minigrad's own tests use:
``tests/gpu/fake_cupy.py`` of the checkout): NumPy computes each kernel, and every copy and sync is
announced as a device would announce it. A fresh process, so the stand-in never replaces CuPy in the
process that grades the other tasks.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from pathlib import Path


def stand_in() -> Path | None:
    """The stand-in CuPy: beside this file, else in the checkout the installed minigrad runs from."""
    here = Path(__file__).resolve().parent / "fake_cupy.py"
    if here.is_file() and here.stat().st_size > 1000:  # (not a symlink checked out as a one-line text file)
        return here
    spec = importlib.util.find_spec("minigrad")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).resolve().parents[1] / "tests" / "gpu" / "fake_cupy.py"
    return path if path.is_file() else None


def main(student_file: str, steps: int, out: Path, use_stand_in: bool) -> None:
    if use_stand_in:
        sys.path.insert(0, str(stand_in().parent))
        import fake_cupy

        fake_cupy.install()
    import minigrad as mg

    spec = importlib.util.spec_from_file_location("student_training_loop", student_file)
    loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loop)
    result: dict = {}
    try:
        result["reference"] = loop.train_with_syncs(*loop.make_problem("gpu"), steps)
        with mg.trace(values=False) as tr:
            result["yours"] = loop.train(*loop.make_problem("gpu"), steps)
        tr.save(out / "train.jsonl")
    except Exception as exc:  # noqa: BLE001 - reported to the test, which fails with it
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["where"] = "".join(traceback.format_exception(exc)[-3:])
    (out / "result.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "stand-in")
