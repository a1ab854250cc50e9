"""``minigrad lessons classroom``: GitHub Classroom autograding and an Actions workflow per lesson.

The JSON is validated against the format GitHub Classroom's autograding
action documents for ``.github/classroom/autograding.json`` (its ``Test``
type: ``name``, ``setup``, ``run``, ``timeout`` and ``comparison`` required;
``input``, ``output``, ``points`` optional; ``comparison`` one of ``exact``,
``included``, ``regex``). The workflow's commands are run here, in a shell,
the way the runner runs them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad import lessons_cli as lc

jsonschema = pytest.importorskip("jsonschema")
yaml = pytest.importorskip("yaml")

AUTOGRADING_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["tests"],
    "additionalProperties": False,
    "properties": {
        "tests": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "setup", "run", "timeout", "comparison"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "setup": {"type": "string"},
                    "run": {"type": "string", "minLength": 1},
                    "input": {"type": "string"},
                    "output": {"type": "string"},
                    "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 360},
                    "points": {"type": "number", "minimum": 0},
                    "comparison": {"enum": ["exact", "included", "regex"]},
                },
            },
        }
    },
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("classroom")
    folders = lc.classroom(out, install="pip install minigrad-from-the-course")
    return out, folders


def _env() -> dict[str, str]:
    # The runner has `minigrad` on PATH after the install step; here it is next to this Python.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env["COLUMNS"] = "150"
    return env


def test_every_lesson_gets_valid_autograding_json_with_its_points(generated):
    _, folders = generated
    lessons = {l.number: l for l in lc.load_lessons()}
    assert len(folders) == len(lessons) >= 7
    for folder in folders:
        meta = json.loads((folder / "_lesson.json").read_text())
        data = json.loads((folder / ".github" / "classroom" / "autograding.json").read_text())
        jsonschema.validate(data, AUTOGRADING_SCHEMA)
        lesson = lessons[meta["lesson"]]
        assert [t["points"] for t in data["tests"]] == [lesson.tasks[k]["points"] for k in sorted(lesson.tasks)]
        assert sum(t["points"] for t in data["tests"]) == sum(i["points"] for i in lesson.tasks.values())
        assert len({t["name"] for t in data["tests"]}) == len(data["tests"])
        for task, test in zip(sorted(lesson.tasks), data["tests"]):
            assert test["run"] == f"minigrad lessons grade . --task {task} --check"


def test_the_schema_rejects_what_github_would_reject():
    good = {"tests": [{"name": "t", "setup": "", "run": "true", "timeout": 1, "comparison": "included", "points": 1}]}
    jsonschema.validate(good, AUTOGRADING_SCHEMA)
    for broken in ({"tests": [{**good["tests"][0], "comparison": "equal"}]},
                   {"tests": [{k: v for k, v in good["tests"][0].items() if k != "run"}]},
                   {"tests": [{**good["tests"][0], "timeout": "10"}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, AUTOGRADING_SCHEMA)


def test_workflow_installs_minigrad_and_runs_the_autograder(generated):
    _, folders = generated
    for folder in folders:
        wf = yaml.safe_load((folder / ".github" / "workflows" / "classroom.yml").read_text())
        triggers = wf.get("on", wf.get(True))  # PyYAML reads the key `on` as True (YAML 1.1)
        assert "push" in triggers
        steps = wf["jobs"]["autograding"]["steps"]
        uses = [s.get("uses", "") for s in steps]
        assert "actions/checkout@v4" in uses and "education/autograding@v1" in uses
        runs = [s["run"] for s in steps if "run" in s]
        assert runs[0] == "pip install minigrad-from-the-course"
        assert uses.index("education/autograding@v1") > next(i for i, s in enumerate(steps) if s.get("run") == runs[0])
        assert any("minigrad lessons grade . --json grading-report.json" in r for r in runs)


def _grade_commands(folder: Path) -> list[tuple[str, int]]:
    data = json.loads((folder / ".github" / "classroom" / "autograding.json").read_text())
    return [(t["run"], t["points"]) for t in data["tests"]]


def test_the_task_commands_fail_on_the_template_and_pass_on_the_answer_key(generated, tmp_path):
    """Each test's `run` command, in a shell in the repository: exit 1 untouched, 0 once solved."""
    _, folders = generated
    folder = next(f for f in folders if f.name.startswith("02"))
    repo = tmp_path / "repo"
    shutil.copytree(folder, repo)
    for cmd, _ in _grade_commands(repo):
        r = subprocess.run(["bash", "-c", cmd], cwd=repo, env=_env(), capture_output=True, text=True, timeout=600)
        assert r.returncode == 1, (cmd, r.stdout[-2000:], r.stderr[-2000:])
        assert "not full marks" in r.stdout
    (key,) = lc.build(tmp_path / "key", [2], reference=True)
    shutil.copy2(key / "engine.py", repo / "engine.py")
    for cmd, _ in _grade_commands(repo):
        r = subprocess.run(["bash", "-c", cmd], cwd=repo, env=_env(), capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])


def test_the_workflow_score_step_runs_locally(generated, tmp_path):
    """The workflow's last `run` step: the table in the job summary, the JSON report as a file."""
    _, folders = generated
    folder = next(f for f in folders if f.name.startswith("08"))
    repo = tmp_path / "repo"
    shutil.copytree(folder, repo)
    wf = yaml.safe_load((repo / ".github" / "workflows" / "classroom.yml").read_text())
    step = next(s for s in wf["jobs"]["autograding"]["steps"] if "grading-report.json" in s.get("run", ""))
    summary = tmp_path / "summary.md"
    env = {**_env(), "GITHUB_STEP_SUMMARY": str(summary), **step.get("env", {})}
    r = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    text = summary.read_text()
    assert text.startswith("```") and "Lesson 8" in text and "first divergence" in text
    report = json.loads((repo / "grading-report.json").read_text())
    assert report["score"] == 0 and report["max"] == 30


def test_grade_task_filter_scores_only_that_task(generated, tmp_path):
    _, folders = generated
    folder = next(f for f in folders if f.name.startswith("02"))
    report = lc.grade(folder, quiet=True, tasks=["2.1"])["lessons"][0]
    assert [t["task"] for t in report["tasks"]] == ["2.1"] and report["max"] == 10
    with pytest.raises(SystemExit, match="no task 2.9"):
        lc.grade(folder, quiet=True, tasks=["2.9"])


def test_no_lessons_folder_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no lessons found under"):
        lc.classroom(tmp_path / "out", root=tmp_path / "missing")
