"""Coursework CI: the reference passes every lesson's tests; untouched templates fail every task.

Builds the student folders with ``minigrad.lessons_cli`` into a tmp dir, twice
(``--reference`` answer keys and the holed templates), and grades both.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad as mg
from minigrad import lessons_cli as lc
from minigrad.autograd.formula import BackwardContext
from minigrad.autograd.function import FunctionCtx
from minigrad.autograd.general_grad import GeneralGrad
from minigrad.autograd.grad_node import GradNode
from minigrad.autograd.grad_tensor_holder import GradTensorHolder
from minigrad.tracing import Recorder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("lessons")
    ref = lc.build(root / "reference", reference=True)
    tpl = lc.build(root / "template")
    return root, ref, tpl


@pytest.fixture(scope="module")
def reports(built):
    root, _, _ = built
    return (
        lc.grade(root / "reference", quiet=True, json_path=root / "reference.json"),
        lc.grade(root / "template", quiet=True, json_path=root / "template.json"),
    )


def test_every_lesson_is_built(built):
    _, ref, tpl = built
    numbers = [json.loads((f / "_lesson.json").read_text())["lesson"] for f in tpl]
    assert numbers == sorted(numbers) and {1, 2, 4, 7, 8}.issubset(numbers)
    for folder in tpl:
        assert (folder / "README.md").is_file() and (folder / "conftest.py").is_file()
        assert (folder / "pytest.ini").read_text().count("lesson") >= 1


def test_templates_have_holes_and_the_reference_has_none(built):
    _, ref, tpl = built
    for r, t in zip(ref, tpl):
        meta = json.loads((t / "_lesson.json").read_text())
        if meta["missing"]:
            continue
        for entry in meta["modules"]:
            text = (t / entry["student"]).read_text()
            for task in {task for tasks in entry["functions"].values() for task in tasks} or meta["tasks"]:
                if f"# Task {task}" in text:
                    assert f'raise NotImplementedError("Task {task}' in text
            assert "# BEGIN LESSON" not in text and "from ." not in text
            assert "NotImplementedError(\"Task" not in (r / entry["student"]).read_text()


def test_reference_gets_full_marks(reports):
    ref, _ = reports
    assert ref["lessons"]
    for lesson in ref["lessons"]:
        for task in lesson["tasks"]:
            if task["status"] == "skipped":
                assert task["skip_reasons"], f"lesson {lesson['lesson']} task {task['task']} skipped without a reason"
                continue
            assert task["status"] == "full", (lesson["lesson"], task["task"], [t for t in task["tests"] if t["outcome"] != "passed"])
            assert task["passed"] >= 1
        assert lesson["score"] == lesson["max"]
    assert ref["score"] == ref["max"] > 0


def test_untouched_templates_score_zero_and_every_task_test_fails(reports):
    _, tpl = reports
    for lesson in tpl["lessons"]:
        assert lesson["score"] == 0
        for task in lesson["tasks"]:
            if task["status"] == "skipped":
                continue
            assert task["passed"] == 0 and task["failed"] >= 1, (lesson["lesson"], task["task"])
            for t in task["tests"]:
                assert t["outcome"] in ("failed", "error", "skipped"), t
                if t["outcome"] == "skipped":
                    continue
                if t.get("divergence"):
                    # A template with a seeded bug (lesson 8) fails by differing from the reference.
                    assert "first divergence" in t["message"] and t["divergence"]["kind"], t
                else:
                    assert "NotImplementedError" in t["message"] and f"Task {task['task']}" in t["message"], t


def test_json_report_and_score_table(built, reports):
    root, _, _ = built
    data = json.loads((root / "template.json").read_text())
    lesson2 = next(l for l in data["lessons"] if l["lesson"] == 2)
    assert [t["task"] for t in lesson2["tasks"]] == ["2.1", "2.2"]
    assert {t["marker"] for t in lesson2["tasks"]} == {"lesson2_task1", "lesson2_task2"}
    from rich.console import Console

    console = Console(record=True, width=140)
    lc.print_report(lesson2, console)
    text = console.export_text()
    assert "Lesson 2" in text and "2.1" in text and "2.2" in text and "0 / 10" in text and "zero" in text


def test_a_student_who_did_one_task_gets_that_task(built, tmp_path):
    """Tasks are graded independently: 2.1 solved, 2.2 untouched."""
    root, ref, tpl = built
    src = next(f for f in tpl if f.name.startswith("02"))
    folder = tmp_path / src.name
    import shutil

    shutil.copytree(src, folder)
    text = (folder / "engine.py").read_text()
    solved = (next(f for f in ref if f.name.startswith("02")) / "engine.py").read_text()
    start = solved.index("    # Task 2.1")
    end = solved.index("    # (end of Task 2.1)")
    hole_start = text.index("    # Task 2.1")
    hole_end = text.index('raise NotImplementedError("Task 2.1: the in-degree map")\n') + len(
        'raise NotImplementedError("Task 2.1: the in-degree map")\n')
    (folder / "engine.py").write_text(text[:hole_start] + solved[start:end] + text[hole_end:])
    report = lc.grade(folder, quiet=True)["lessons"][0]
    by_task = {t["task"]: t for t in report["tasks"]}
    assert by_task["2.1"]["status"] == "full" and by_task["2.2"]["status"] == "zero"


def test_grader_uses_fresh_tests(built, tmp_path):
    """Editing the tests in the student folder does not change the grade."""
    root, ref, tpl = built
    import shutil

    src = next(f for f in tpl if f.name.startswith("04"))
    folder = tmp_path / src.name
    shutil.copytree(src, folder)
    for test in (folder / "tests").glob("test_*.py"):
        test.write_text("def test_nothing():\n    pass\n")
    report = lc.grade(folder, quiet=True)["lessons"][0]
    assert report["score"] == 0 and all(t["failed"] for t in report["tasks"])


def test_cli_build_and_grade(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "minigrad.lessons_cli", "build", "--out", str(out), "--lesson", "4"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "minigrad.lessons_cli", "grade", str(out), "--lesson", "4", "--json",
                        str(tmp_path / "r.json")], capture_output=True, text=True, env={**__import__("os").environ,
                                                                                         "COLUMNS": "120"})
    assert r.returncode == 0, r.stderr
    assert "Lesson 4" in r.stdout and "4.1" in r.stdout and "total: 0 / 25" in r.stdout
    assert json.loads((tmp_path / "r.json").read_text())["max"] == 25


def test_markers_must_pair():
    with pytest.raises(ValueError, match="no END"):
        lc.find_regions("x = 1\n# BEGIN LESSON 9 TASK 9.1: t\ny = 2\n")
    with pytest.raises(ValueError, match="without its BEGIN"):
        lc.find_regions("# END LESSON 9 TASK 9.1\n")


def test_a_region_must_stay_inside_one_function():
    src = (
        "def f():\n"
        "    # BEGIN LESSON 9 TASK 9.1: spans two functions\n"
        "    return 1\n\n"
        "def g():\n"
        "    return 2\n"
        "    # END LESSON 9 TASK 9.1\n"
    )
    with pytest.raises(ValueError, match="inside one function"):
        lc.make_template(src, 9, {}, reference=False)


def test_make_template_keeps_signature_and_docstring():
    src = (
        "from .x import y\n\n"
        "def f(a: int) -> int:\n"
        '    """Doc."""\n'
        "    # BEGIN LESSON 9 TASK 9.1: add one\n"
        "    return a + 1\n"
        "    # END LESSON 9 TASK 9.1\n"
    )
    text, functions = lc.make_template(src, 9, {"9.1": {"title": "add one"}}, reference=False, module="pkg.mod")
    assert text.splitlines() == [
        "from pkg.x import y", "", "def f(a: int) -> int:", '    """Doc."""', "    # Task 9.1: add one",
        "    # TODO Task 9.1: write this part (see README.md, section 'Task 9.1').",
        '    raise NotImplementedError("Task 9.1: add one")',
    ]
    assert functions == {"f": ["9.1"]}
    ref, _ = lc.make_template(src, 9, {}, reference=True)
    assert "    return a + 1" in ref and "BEGIN" not in ref
    other, funcs = lc.make_template(src, 8, {}, reference=False)
    assert "    return a + 1" in other and funcs == {}


def test_a_lesson_whose_engine_part_is_missing_skips_with_the_reason(tmp_path):
    root = tmp_path / "lessons"
    (root / "09_future" / "tests").mkdir(parents=True)
    (root / "09_future" / "lesson.toml").write_text(
        'number = 9\ntitle = "future"\n[[module]]\nstudent = "thing.py"\ntarget = "minigrad.not_written_yet"\n'
        'requires = "pending work"\n[tasks."9.1"]\ntitle = "a thing"\n'
    )
    (root / "09_future" / "tests" / "test_thing.py").write_text(
        "import pytest\n\n@pytest.mark.lesson9_task1\ndef test_thing():\n    assert False\n"
    )
    (folder,) = lc.build(tmp_path / "out", root=root)
    meta = json.loads((folder / "_lesson.json").read_text())
    assert meta["missing"] and "minigrad.not_written_yet" in meta["missing"][0] and "pending work" in meta["missing"][0]
    report = lc.grade(folder, quiet=True, root=root)["lessons"][0]
    (task,) = report["tasks"]
    assert task["status"] == "skipped" and "minigrad.not_written_yet is not available yet" in task["skip_reasons"][0]
    assert report["max"] == 0


def test_figures_are_drawn_when_the_renderer_is_there(built):
    _, _, tpl = built
    try:
        from minigrad import viz

        has_renderer = hasattr(viz, "render")
    except ImportError:
        has_renderer = False
    figures = [(f, fig) for f in tpl for fig in json.loads((f / "_lesson.json").read_text())["figures"]]
    assert {fig["file"] for _, fig in figures} >= {"diamond_backward.svg", "softplus_forward.svg"}
    for folder, fig in figures:
        if has_renderer and fig["status"] == "drawn":
            assert (folder / fig["file"]).read_text().lstrip().startswith(("<?xml", "<svg"))
        elif has_renderer:
            assert "dot" in fig["status"].lower() or "graphviz" in fig["status"].lower(), fig
        else:
            assert fig["status"].startswith("not drawn: minigrad.viz is not available"), fig


def _lesson5_cuda_sources() -> tuple[str, str]:
    """The CUDA C of lesson 5's reference: the ElementwiseKernel body and the RawKernel source."""
    import ast

    src = (lc.lessons_root() / "05_cuda_kernel" / "cuda_kernels.py").read_text()
    elementwise = raw = None
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "ElementwiseKernel":
                elementwise = [ast.literal_eval(a) for a in node.args[:3]]
            elif node.func.attr == "RawKernel":
                raw = ast.literal_eval(node.args[0])
    assert elementwise is not None and raw is not None
    in_params, out_params, body = elementwise
    assert in_params == "T x, T beta, T threshold" and out_params == "T y"
    # What cupy.ElementwiseKernel generates, reduced to its core: the body runs once per element.
    wrapped = (
        "template <typename T> __device__ void op(const T x, const T beta, const T threshold, T &y) {\n"
        f"{body}\n}}\n"
        'extern "C" __global__ void ew_f32(const float* x, float* y, int n) {\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) op<float>(x[i], 1.0f, 20.0f, y[i]); }\n"
        'extern "C" __global__ void ew_f64(const double* x, double* y, int n) {\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) op<double>(x[i], 1.0, 20.0, y[i]); }\n"
    )
    return wrapped, raw


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="nvcc (CUDA toolkit) not found")
@pytest.mark.parametrize("which", ["elementwise", "raw"])
def test_lesson5_cuda_sources_compile(which, tmp_path):
    """Lesson 5's reference CUDA C compiles with nvcc (the GPU run itself needs a GPU)."""
    import shutil

    source = dict(zip(("elementwise", "raw"), _lesson5_cuda_sources()))[which]
    cu = tmp_path / f"{which}.cu"
    cu.write_text(source)
    r = subprocess.run([shutil.which("nvcc"), "--ptx", "-arch=sm_80", "-o", str(tmp_path / f"{which}.ptx"), str(cu)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


# -- lesson 8: a seeded bug per student ------------------------------------------------------------


def _seeds_for_every_bug() -> dict[str, str]:
    """A seed for each of lesson 8's bugs (the first of student0, student1, ... that picks it)."""
    lesson = next(l for l in lc.load_lessons() if l.number == 8)
    want = {b["id"] for b in lesson.bugs}
    seeds: dict[str, str] = {}
    k = 0
    while set(seeds) != want:
        seeds.setdefault(lc.pick_bug(lesson, f"student{k}"), f"student{k}")
        k += 1
    return seeds


def test_lesson8_has_at_least_three_bugs_and_each_applies_to_the_engine():
    lesson = next(l for l in lc.load_lessons() if l.number == 8)
    assert len({b["id"] for b in lesson.bugs}) >= 3
    text = (Path(lc.__file__).parent / "autograd" / "engine.py").read_text()
    for bug in lesson.bugs:
        changed = lc.apply_bug(text, bug, "engine.py")  # raises unless every `find` occurs once
        assert changed != text, bug["id"]
    assert lc.pick_bug(lesson, "alice") == lc.pick_bug(lesson, "alice")


@pytest.mark.parametrize("bug", ["queue-end", "in-degree-decrement", "release", "general-grad-prune"])
def test_lesson8_every_seeded_bug_fails_and_its_answer_key_passes(bug, tmp_path):
    seed = _seeds_for_every_bug()[bug]
    (tpl,) = lc.build(tmp_path / "template", [8], seed=seed)
    (key,) = lc.build(tmp_path / "key", [8], reference=True, seed=seed)
    assert json.loads((tpl / "_lesson.json").read_text())["seed"] == seed
    assert (tpl / "engine.py").read_text() != (key / "engine.py").read_text()
    t = lc.grade(tpl, quiet=True)["lessons"][0]
    assert t["score"] == 0
    for task in t["tasks"]:
        assert task["passed"] == 0 and task["failed"] >= 1, (bug, task)
    fix = next(x for x in t["tasks"] if x["task"] == "8.1")["tests"][0]
    assert fix["divergence"]["headline"] and "first divergence" in fix["message"], fix
    k = lc.grade(key, quiet=True)["lessons"][0]
    assert k["score"] == k["max"] == 30, [x for task in k["tasks"] for x in task["tests"] if x["outcome"] != "passed"]


def test_lesson8_grades_the_fix_and_the_answer_separately(tmp_path):
    """Fixed engine, wrong rule named: 20 / 30. The grader reads the seed from the student's folder."""
    seeds = _seeds_for_every_bug()
    seed = seeds["release"]
    (tpl,) = lc.build(tmp_path / "template", [8], seed=seed)
    (key,) = lc.build(tmp_path / "key", [8], reference=True, seed=seed)
    (tpl / "engine.py").write_text((key / "engine.py").read_text())
    (tpl / "answer.toml").write_text('rule = "queue-end"\nexplanation = "' + "word " * 15 + '"\n')
    report = lc.grade(tpl, quiet=True)["lessons"][0]
    by_task = {t["task"]: t for t in report["tasks"]}
    assert by_task["8.1"]["status"] == "full" and by_task["8.2"]["status"] == "zero"
    assert "holds in the engine you were given" in by_task["8.2"]["tests"][0]["message"]
    (tpl / "answer.toml").write_text((key / "answer.toml").read_text())
    assert lc.grade(tpl, quiet=True)["score"] == 30


def test_report_shows_the_first_divergence_in_words(built, reports):
    """An event-graded failure: the table and the JSON say where the student's run left the reference's."""
    _, tpl = reports
    lesson8 = next(l for l in tpl["lessons"] if l["lesson"] == 8)
    (test,) = next(t for t in lesson8["tasks"] if t["task"] == "8.1")["tests"]
    d = test["divergence"]
    assert d["kind"] and d["a"]["index"] is not None and d["a"]["queue"] is not None
    assert "your run" in d["headline"] and "the reference" in d["headline"]
    from rich.console import Console

    console = Console(record=True, width=160)
    lc.print_report(lesson8, console)
    text = console.export_text()
    assert "first divergence" in text and d["headline"][:60] in text.replace("\n", " ")


# -- lesson 9: a wrong version check and a rewrite that forgets the views ------------------------


def test_lesson9_wrong_solutions_get_part_of_the_points_and_the_first_divergence(tmp_path):
    """A check that lets one in-place change through, a rewrite that never regenerates the views:
    each task partly right, its recording tests failing at the first event where the run left the reference's."""
    (tpl,) = lc.build(tmp_path / "template", [9])
    (key,) = lc.build(tmp_path / "key", [9], reference=True)
    check = (key / "tensor_wrapper.py").read_text()
    assert check.count("        if now != self.snapshot:\n") == 1
    (tpl / "tensor_wrapper.py").write_text(check.replace("        if now != self.snapshot:\n",
                                                         "        if now > self.snapshot + 1:\n"))
    rewrite = (key / "views.py").read_text()
    assert rewrite.count("    regenerate_views(base)\n    return new\n") == 1
    (tpl / "views.py").write_text(rewrite.replace("    regenerate_views(base)\n    return new\n", "    return new\n"))
    report = lc.grade(tpl, quiet=True)["lessons"][0]
    by_task = {t["task"]: t for t in report["tasks"]}
    assert by_task["9.1"]["status"] == by_task["9.2"]["status"] == "partial"
    assert by_task["9.3"]["status"] == "zero"  # still the template
    stops = [t for t in by_task["9.1"]["tests"] if "stops_where_the_reference_stops" in t["nodeid"]]
    assert stops and all(t["outcome"] == "failed" and "first divergence" in t["message"] for t in stops)
    # the reference refuses (its error event ends the pass) where the wrong check lets backward go on
    assert all("the reference stops at event #" in t["divergence"]["headline"]
               and "where your run goes on" in t["divergence"]["headline"] for t in stops), stops
    recordings = [t for t in by_task["9.2"]["tests"] if "recording_equals_the_reference" in t["nodeid"]]
    assert recordings and all(t["outcome"] == "failed" for t in recordings)
    for t in recordings:
        d = t["divergence"]
        # Right after history.rewrite the reference replays the views (getitem); the wrong rewrite goes on.
        assert d["kind"] and "getitem" in d["headline"] and "first divergence" in t["message"], d
        assert "history.rewrite" in d["text"], d["text"]
    assert 0 < report["score"] < report["max"] == 40


# -- the lesson text names only what its template has -------------------------------------

#: A call in inline code: ``name(`` or ``prefix.name(`` (``loss.backward()``, ``self._emit_update(...)``).
_NAMED_CALL = re.compile(r"`(?:([A-Za-z_][A-Za-z0-9_]*)\.)?([a-z_][a-z0-9_]*)\(")


def _template_names(folder: Path, modules: list[str]) -> tuple[set[str], set[str]]:
    """Names bound at the top level of the lesson's template modules, and every function defined in them."""
    top: set[str] = set()
    defs: set[str] = set()
    for student in modules:
        tree = ast.parse((folder / student).read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defs.add(node.name)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                top.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                top.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                top.update(t.id for t in targets if isinstance(t, ast.Name))
    return top, defs


def _known_elsewhere(prefix: str | None, name: str) -> bool:
    """A name a lesson may use without its template defining it: Python's, minigrad's public API,
    or a method of the objects a student holds (tensors, nodes, buffers, GeneralGrad, optimizers, recordings,
    contexts)."""
    if prefix is None:
        return hasattr(builtins, name) or hasattr(mg, name) or hasattr(mg.nn.functional, name) or hasattr(mg.Tensor, name)
    if prefix == "mg":
        return hasattr(mg, name)
    if prefix == "np":
        return True  # NumPy's own API
    holders = (mg.Tensor, GradNode, GradTensorHolder, GeneralGrad, Recorder, FunctionCtx, BackwardContext,
               mg.optim.Optimizer)
    return any(hasattr(h, name) for h in holders)


def test_every_function_a_lesson_text_names_exists(built):
    """A student who follows the README must find each function it tells them to call
    (lesson 2 once said ``_released_error(node)``; the engine's function is ``released_error``)."""
    _, _, tpl = built
    missing = []
    for folder in tpl:
        meta = json.loads((folder / "_lesson.json").read_text())
        modules = [entry["student"] for entry in meta["modules"] if (folder / entry["student"]).is_file()]
        top, defs = _template_names(folder, modules)
        for prefix, name in _NAMED_CALL.findall((folder / "README.md").read_text()):
            prefix = prefix or None
            if name.startswith("__"):
                continue  # CUDA C (__syncthreads) and dunders are not calls into the template
            if prefix is None and (name in top or name in defs):  # a method (GeneralGrad's steps) counts
                continue
            if prefix is not None and (prefix == "self" or prefix in top) and name in defs:
                continue
            if _known_elsewhere(prefix, name):
                continue
            missing.append(f"{folder.name}: `{prefix + '.' if prefix else ''}{name}(`")
    assert not missing, "lesson text names functions its template lacks:\n" + "\n".join(missing)
