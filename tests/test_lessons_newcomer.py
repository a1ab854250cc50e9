"""What a newcomer trips over in the coursework, each pinned: grading ``.``, the GPU lesson's skip message.

(The same commands from an installed wheel, outside the checkout: tests/test_wheel.py.)
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

import minigrad as mg
from minigrad import lessons_cli as lc


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("newcomer") / "lessons-build"
    lc.build(out, [2, 5])
    return out


def test_student_folder_dot_is_found_by_its_real_name(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(built / "02_backward_engine")
    assert lc.student_folders(Path("."), None) == [built / "02_backward_engine"]
    assert lc.student_folders(Path("."), 2) == [built / "02_backward_engine"]
    monkeypatch.chdir(built)
    assert [p.name for p in lc.student_folders(Path("."), None)] == ["02_backward_engine", "05_cuda_kernel"]
    with pytest.raises(SystemExit, match="no student folder of lesson 3"):
        lc.student_folders(Path("."), 3)


@pytest.mark.parametrize("args", [["."], ["--lesson", "2", "."]], ids=["grade .", "grade --lesson 2 ."])
def test_grade_dot_inside_a_student_folder(built: Path, args: list[str], monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    """``cd lessons-build/02_backward_engine && minigrad lessons grade .`` used to fail with 'File exists'."""
    monkeypatch.chdir(built / "02_backward_engine")
    from minigrad.cli import main

    assert main(["lessons", "grade", *args, "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert [r["lesson"] for r in report["lessons"]] == [2]
    tasks = report["lessons"][0]["tasks"]
    assert tasks and all(t["failed"] > 0 and t["passed"] == 0 for t in tasks)  # the tests ran, on the template


@pytest.mark.skipif(mg.is_gpu_available(), reason="the lesson 5 tests run here; they do not skip")
def _gpu_here() -> bool:
    import minigrad as mg

    return mg.is_gpu_available()


def test_lesson5_skip_says_what_to_run_and_where(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(built)
    report = lc.grade(Path("05_cuda_kernel"), quiet=True)
    tasks = report["lessons"][0]["tasks"]
    if not _gpu_here():
        # Task 5.3 runs on the stand-in CuPy without a GPU (the untouched template: not done yet)
        (loop,) = [t for t in tasks if t["task"] == "5.3"]
        assert loop["status"] == "zero" and "NotImplementedError: Task 5.3" in loop["tests"][0]["message"]
        tasks = [t for t in tasks if t["task"] != "5.3"]
    assert tasks and all(t["status"] == "skipped" for t in tasks)
    reasons = {r for t in tasks for r in t["skip_reasons"]}
    assert len(reasons) == 1, reasons
    reason = reasons.pop()
    # The folder named is the student's own (not the grader's temporary copy), with the command to run there.
    assert f"in the folder {built}, run `minigrad lessons grade 05_cuda_kernel`" in reason, reason
    try:
        import cupy  # noqa: F401
    except ImportError:
        command = reason.split("`")[1]
        assert shlex.split(command)[:4] == [sys.executable, "-m", "pip", "install"], reason
        assert "cupy-cuda13x" in command and "cupy-cuda12x" in reason
    else:
        assert "finds no CUDA device" in reason


def test_templates_speak_of_sources_by_name(tmp_path: Path) -> None:
    """Students read the engine's docstrings in their templates: no internal labels (a source write-up's number, a design-notes section)."""
    import re

    label = re.compile(r"seed 00\d|DESIGN ?§|DESIGN\.md|STYLE rule|shared/")
    bad = []
    for lesson in lc.load_lessons():
        folder = lc.build_lesson(lesson, tmp_path, figures=False)
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".md"):
                bad += [f"{path.relative_to(tmp_path)}:{i}: {line.strip()}"
                        for i, line in enumerate(path.read_text().splitlines(), 1) if label.search(line)]
    assert not bad, "\n".join(bad)


def test_every_lesson_lists_the_names_its_tasks_use():
    """A student finds every name a task needs in the lesson's README, each with an example (a table)."""
    from pathlib import Path

    lessons = Path(__file__).resolve().parent.parent / "lessons"
    for readme in sorted(lessons.glob("*/README.md")):
        text = readme.read_text(encoding="utf-8")
        if readme.parent.name.startswith("08_"):  # the engine of lesson 2, with a seeded bug: lesson 2's table
            assert "../02_backward_engine/README.md#the-names-your-loop-uses" in text
            continue
        assert "### The names your" in text and "| name | what it is | example |" in text, readme.parent.name
