"""Lesson 5's Task 5.3 is graded on the events: the loop as first written (``.item()`` and a tensor made
from a number every step) loses the sync test and keeps the losses test; the grader names its lines."""

from __future__ import annotations

import shutil

from minigrad import lessons_cli as lc


def test_the_loop_with_syncs_fails_the_sync_test_naming_its_lines(tmp_path):
    (tpl,) = lc.build(tmp_path / "template", lessons=[5])
    folder = tmp_path / tpl.name
    shutil.copytree(tpl, folder)
    path = folder / "training_loop.py"
    text = path.read_text()
    start = text.index("    # Task 5.3")
    end = text.index("\n", text.index('raise NotImplementedError("Task 5.3'))
    text = text[:start] + "    return train_with_syncs(model, x, y, steps, lr)" + text[end:]
    path.write_text(text)
    lines = text.splitlines()
    item = next(i for i, l in enumerate(lines, 1) if "losses.append(loss.item())" in l)
    lr_t = next(i for i, l in enumerate(lines, 1) if "lr_t = mg.tensor(lr" in l)
    report = lc.grade(folder, quiet=True, tasks=["5.3"])["lessons"][0]
    (task,) = report["tasks"]
    by_name = {t["nodeid"].rsplit("::", 1)[1]: t for t in task["tests"]}
    assert by_name["test_the_losses_are_the_loop_with_syncs_losses"]["outcome"] == "passed", task["tests"]
    sync = by_name["test_a_steady_step_copies_nothing_and_waits_for_nothing"]
    assert sync["outcome"] == "failed" and task["status"] == "partial"
    # from the end of the second backward to the end of the last: the .item() and lr tensor of steps 2-4 (each
    # .item() copies the loss and, in the same wait, the flags of the step's device-side index checks)
    assert "6 syncs and 9 copies in steps 2-5" in sync["message"], sync["message"]
    assert f"training_loop.py:{item} (item) x3" in sync["message"], sync["message"]
    assert f"training_loop.py:{lr_t} (host copy) x3" in sync["message"], sync["message"]
