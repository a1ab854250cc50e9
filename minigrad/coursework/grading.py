"""``minigrad lessons grade``: run a lesson's tests against a student folder and score each task.

The tests run in a fresh interpreter, on a copy of the folder whose tests, conftest
and metadata come from a new build (a student cannot change how they are graded).
The generated ``conftest.py`` loads the student's module(s) and, for each test,
swaps the student's functions into the engine (every place the engine keeps a
reference: module attributes, an op's InferMeta and backward, registered kernels,
class attributes). Only the functions of the test's own task come from the student;
the others stay the reference, so a task is graded on its own. Each test carries a
marker per task (``-m lesson2_task1``); the score counts passed tests per task.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from .build import SCAFFOLD, build_lesson
from .lesson import load_lessons
from ..progress import Steps
from .report import print_report

__all__ = ["grade", "grade_folder", "student_folders"]


def student_folders(path: Path, lesson: int | None) -> list[Path]:
    # Absolute: ``grade .`` names the folder by its real name (``Path('.').name`` is empty).
    path = path.resolve()
    if (path / "_lesson.json").is_file():
        folders = [path]
    else:
        folders = sorted(p for p in path.iterdir() if (p / "_lesson.json").is_file()) if path.is_dir() else []
    if lesson is not None:
        folders = [f for f in folders if json.loads((f / "_lesson.json").read_text())["lesson"] == lesson]
    if not folders:
        which = f" of lesson {lesson}" if lesson is not None else ""
        raise SystemExit(f"no student folder{which} found at {path} (expected a folder with _lesson.json, "
                         f"as written by `minigrad lessons build`)")
    return folders


def grade_folder(folder: Path, root: Path | None = None, timeout: float = 900,
                 tasks: Sequence[str] | None = None,
                 on_progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Grade one student folder (only ``tasks``, e.g. ``["2.1"]``, when given); returns the report (see ``grade``).

    ``on_progress`` is called while the tests run: once with ``{"collected": {task: tests}}``, then with
    ``{"done": [tasks]}`` as each test ends (the generated conftest writes them).
    """
    folder = folder.resolve()  # `grade .` has an empty folder name
    meta = json.loads((folder / "_lesson.json").read_text())
    number = meta["lesson"]
    official = {l.number: l for l in load_lessons(root)}.get(number)
    with tempfile.TemporaryDirectory(prefix=f"minigrad-grade-{number}-") as tmp:
        work = Path(tmp) / folder.name
        shutil.copytree(folder, work, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc", ".git"))
        if official is not None:
            # Fresh tests, conftest and metadata from a new build; the student's own code files stay.
            built = build_lesson(official, Path(tmp) / "_fresh", figures=False, seed=str(meta.get("seed", "")))
            for name in SCAFFOLD:
                p = work / name
                if p.is_dir():
                    shutil.rmtree(p)
                elif p.exists():
                    p.unlink()
                src = built / name
                if src.is_dir():
                    shutil.copytree(src, p)
                else:
                    shutil.copy2(src, p)
            meta = json.loads((work / "_lesson.json").read_text())
        report_path = Path(tmp) / "results.json"
        env = dict(os.environ)
        env["MINIGRAD_LESSON_REPORT"] = str(report_path)
        # The tests run on a copy; messages that tell the student what to run name the real folder.
        env["MINIGRAD_STUDENT_FOLDER"] = str(folder)
        env.pop("PYTEST_ADDOPTS", None)
        env.pop("PYTEST_XDIST_WORKER", None)
        cmd = [sys.executable, "-m", "pytest", "-c", str(work / "pytest.ini"), "--rootdir", str(work), "-q",
               "-p", "no:randomly", str(work / "tests")]
        if tasks:
            unknown = sorted(set(tasks) - set(meta["tasks"]))
            if unknown:
                raise SystemExit(f"lesson {number} has no task {', '.join(unknown)}; its tasks: {', '.join(meta['tasks'])}")
            meta = {**meta, "tasks": {t: info for t, info in meta["tasks"].items() if t in tasks}}
            cmd += ["-m", " or ".join(info["marker"] for info in meta["tasks"].values())]
        progress_path = Path(tmp) / "progress.jsonl"
        env["MINIGRAD_LESSON_PROGRESS"] = str(progress_path)
        try:
            returncode, output = _run_tests(cmd, work, env, timeout, progress_path, on_progress)
        except subprocess.TimeoutExpired as exc:  # an endless loop in the student's code
            returncode, output = -1, f"the tests ran longer than {timeout:g} s and were stopped\n{exc.stdout or ''}"
        results = json.loads(report_path.read_text()) if report_path.is_file() else {"tests": {}}
    return _score(meta, results, returncode, output)


def _run_tests(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float, progress_path: Path,
               on_progress: Callable[[dict[str, Any]], None] | None) -> tuple[int, str]:
    """Run pytest; pass each progress line it writes to ``on_progress`` as it comes. Returns (status, output)."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
        deadline, read = time.monotonic() + timeout, 0
        while True:
            try:
                proc.wait(timeout=0.1)
                finished = True
            except subprocess.TimeoutExpired:
                finished = False
            if on_progress is not None and progress_path.is_file():
                lines = progress_path.read_text(encoding="utf-8").splitlines()
                complete = lines if finished else lines[:-1]  # the last line may still be being written
                for line in complete[read:]:
                    on_progress(json.loads(line))
                read = max(read, len(complete))
            if finished:
                break
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                out.seek(0)
                raise subprocess.TimeoutExpired(cmd, timeout, output=out.read())
        out.seek(0)
        return proc.returncode, out.read()


def _score(meta: dict[str, Any], results: dict[str, Any], returncode: int, output: str) -> dict[str, Any]:
    tasks = []
    total = maximum = 0.0
    for task, info in sorted(meta["tasks"].items(), key=lambda kv: [int(x) for x in kv[0].split(".")]):
        tests = [dict(nodeid=nid, **r) for nid, r in results.get("tests", {}).items() if task in r.get("tasks", [])]
        passed = sum(t["outcome"] == "passed" for t in tests)
        failed = sum(t["outcome"] in ("failed", "error") for t in tests)
        skipped = sum(t["outcome"] == "skipped" for t in tests)
        points = float(info.get("points", 10))
        if passed + failed == 0 and skipped:
            status, score, counted = "skipped", 0.0, 0.0
        elif passed + failed == 0:
            status, score, counted = "no tests ran", 0.0, points
        else:
            score = round(points * passed / (passed + failed), 2)
            status, counted = ("full" if failed == 0 else "partial" if passed else "zero"), points
        reasons = sorted({t.get("message", "") for t in tests if t["outcome"] == "skipped" and t.get("message")})
        tasks.append({
            "task": task, "title": info["title"], "marker": info["marker"], "passed": passed, "failed": failed,
            "skipped": skipped, "score": score, "max": counted, "status": status, "skip_reasons": reasons,
            "tests": tests,
        })
        total += score
        maximum += counted
    return {
        "lesson": meta["lesson"], "title": meta["title"], "score": round(total, 2), "max": round(maximum, 2),
        "missing": meta.get("missing", []), "tasks": tasks, "pytest_returncode": returncode,
        "pytest_output_tail": output[-4000:],
    }


def grade(path: Path, lesson: int | None = None, json_path: Path | None = None, quiet: bool = False,
          root: Path | None = None, jobs: int = 4, tasks: Sequence[str] | None = None,
          steps: Steps | None = None) -> dict[str, Any]:
    """Grade the student folder(s) at ``path``; print tables, write the JSON report.

    With ``steps`` (``minigrad.progress``, on a terminal) each task's tests are counted off as they end.

    The report: ``{"score", "max", "lessons": [{"lesson", "title", "score",
    "max", "tasks": [{"task", "title", "marker", "passed", "failed",
    "skipped", "score", "max", "status", "tests": [...]}, ...]}, ...]}``.
    """
    folders = student_folders(path, lesson)
    # Each folder is graded by its own pytest process; run a few at once.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(folders)))) as pool:
        reports = list(pool.map(lambda f: grade_folder(f, root, tasks=tasks, on_progress=_counter(f, steps)),
                                folders))
    full = {
        "score": round(sum(r["score"] for r in reports), 2),
        "max": round(sum(r["max"] for r in reports), 2),
        "lessons": reports,
    }
    if not quiet:
        for r in reports:
            print_report(r)
    if json_path is not None:
        json_path.write_text(json.dumps(full, indent=2) + "\n")
    return full


def _counter(folder: Path, steps: Steps | None) -> Callable[[dict[str, Any]], None] | None:
    """Turns the progress lines of one folder's tests into one bar per task (``None``: nothing shows them)."""
    if steps is None or not steps.shown:
        return None
    number = json.loads((folder / "_lesson.json").read_text())["lesson"]
    bars: dict[str, int] = {}

    def on_progress(message: dict[str, Any]) -> None:
        collected = message.get("collected", {})
        for task, count in sorted(collected.items(), key=lambda kv: [int(x) for x in kv[0].split(".")]):
            bars[task] = steps.add(f"lesson {number}, task {task}", total=count)
        for task in message.get("done", []):
            if task in bars:
                steps.advance(bars[task])

    return on_progress
