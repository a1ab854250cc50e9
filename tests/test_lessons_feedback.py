"""``minigrad lessons grade`` shows the difference: lessons 9 and 10 done wrong show the expected value and the
student's side by side, the student's named; a task not started is one line."""

from __future__ import annotations

import re

import pytest

from minigrad import lessons_cli as lc
from minigrad.coursework.report import print_report


def _console():
    from rich.console import Console

    return Console(record=True, width=200, color_system=None)


def _failures(report, task):
    (t,) = [t for t in report["lessons"][0]["tasks"] if t["task"] == task]
    return [test for test in t["tests"] if test["outcome"] == "failed"]


def test_lesson_9_1_with_the_versions_swapped_shows_both_messages(tmp_path):
    (folder,) = lc.build(tmp_path, [9], reference=True)
    path = folder / "tensor_wrapper.py"
    text = path.read_text()
    right = "at version {self.snapshot} is now at version {now}."
    assert right in text
    path.write_text(text.replace(right, "at version {now} is now at version {self.snapshot}."))
    report = lc.grade(folder, quiet=True, tasks=["9.1"])
    failed = _failures(report, "9.1")
    assert failed and all(test.get("difference") for test in failed)
    d = failed[0]["difference"]
    assert d["yours_label"] == "yours (TensorWrapper.check_version in tensor_wrapper.py)"
    assert d["expected_label"] == "expected (the engine)"
    want = re.search(r"at version (\d+) is now at version (\d+)", d["expected"]).groups()
    got = re.search(r"at version (\d+) is now at version (\d+)", d["yours"]).groups()
    assert got == want[::-1] and want[0] != want[1]
    console = _console()
    print_report(report["lessons"][0], console)
    shown = console.export_text()
    assert "yours (TensorWrapper.check_version in tensor_wrapper.py)" in shown and "expected (the engine)" in shown
    header = next(line for line in shown.splitlines() if "expected (the engine)" in line)
    assert header.index("expected (the engine)") < header.index("yours (")  # side by side, on one line


def test_lesson_10_1_off_names_the_students_number(tmp_path):
    (folder,) = lc.build(tmp_path, [10], reference=True)
    path = folder / "memory_lesson.py"
    text = path.read_text()
    assert text.count("\n    return total\n") == 1
    path.write_text(text.replace("\n    return total\n", "\n    return total - 40\n"))
    report = lc.grade(folder, quiet=True, tasks=["10.1"])
    failed = _failures(report, "10.1")
    assert len(failed) == 5
    for test in failed:
        d = test["difference"]
        assert int(d["yours"]) == int(d["expected"]) - 40
        assert d["yours_label"] == "yours (predict_saved_bytes in memory_lesson.py)"
        assert "expected (the recording)" in test["message"] and "yours (predict_saved_bytes" in test["message"]
    console = _console()
    print_report(report["lessons"][0], console)
    shown = console.export_text()
    first = failed[0]["difference"]
    row = next(line for line in shown.splitlines() if first["expected"] in line and first["yours"] in line)
    assert row.index(first["expected"]) < row.index(first["yours"])
    assert "3 more values differ" in shown and "assert " not in shown


def test_a_task_not_started_is_one_line(tmp_path):
    (folder,) = lc.build(tmp_path, [10])
    report = lc.grade(folder, quiet=True, tasks=["10.1"])
    assert len(_failures(report, "10.1")) == 5
    console = _console()
    print_report(report["lessons"][0], console)
    lines = [line for line in console.export_text().splitlines() if "NotImplementedError" in line]
    assert lines == ["  Task 10.1 not implemented yet: NotImplementedError: Task 10.1: predict the bytes an MLP saves "
                     "for backward (5 tests wait for it)"]


def test_the_table_quoted_in_the_docs_is_the_one_printed():
    from pathlib import Path

    from rich.console import Console

    from minigrad.coursework.report import side_by_side

    text = (Path(__file__).resolve().parent.parent / "docs" / "lessons.md").read_text()
    quoted = re.search(r"\[widths0-5\]: [^\n]*\n(.*?)\n```", text, re.S).group(1)
    console = Console(width=120, color_system=None, record=True)
    console.print(side_by_side({"what": "", "expected_label": "expected (the recording)", "expected": "600",
                                "yours_label": "yours (predict_saved_bytes in memory_lesson.py)", "yours": "560"}))
    assert quoted == "\n".join(line.rstrip() for line in console.export_text().splitlines())
