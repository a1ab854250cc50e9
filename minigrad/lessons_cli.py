"""Coursework tooling: ``minigrad lessons build`` and ``minigrad lessons grade`` (DESIGN §6, STYLE rule 10).

The reference solution of every lesson lives in minigrad itself (or, for an
exercise that is not part of the engine, in a file of the lesson's folder).
Regions of it are marked with comments::

    def get_in_degree_map(queue, check_released=True):
        \"\"\"Count the edges into every node ...\"\"\"
        # BEGIN LESSON 2 TASK 2.1: the in-degree map
        ...the reference code...
        # END LESSON 2 TASK 2.1

``build`` copies each module a lesson names into the student's folder and
replaces each marked region of that lesson with a hole - a banner naming the
task, a TODO comment and ``raise NotImplementedError`` - so the template can
never drift from the engine. The signature and docstring stay (they are
outside the region). Relative imports are made absolute, so the copy imports
the real engine around it.

``grade`` runs the lesson's tests against a student folder in a fresh
interpreter. The generated ``conftest.py`` loads the student's module(s) and,
for each test, swaps the student's functions into the engine (every place the
engine keeps a reference: module attributes, an op's InferMeta and backward,
registered kernels, class attributes). Only the functions of the test's own
task come from the student; the others stay the reference, so a task is
graded on its own. Each test carries a marker per task (``-m lesson2_task1``);
the score table counts passed tests per task.

Run it as ``minigrad lessons build|grade`` (``add_parser(subparsers)`` and
``run(args)`` hook it into ``minigrad/cli.py``) or ``python -m
minigrad.lessons_cli build|grade``. The lessons come from the checkout or,
in an installed wheel, from ``minigrad/_lessons`` (see ``lessons_root``).

Example:
    >>> import argparse
    >>> p = argparse.ArgumentParser(prog="minigrad")
    >>> sub = p.add_subparsers(dest="command")
    >>> add_parser(sub)
    >>> p.parse_args(["lessons", "build", "--out", "out"]).lessons_command
    'build'
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import minigrad as mg

from . import __version__

__all__ = [
    "Lesson",
    "Region",
    "lessons_root",
    "load_lessons",
    "find_regions",
    "make_template",
    "build",
    "grade",
    "classroom",
    "classroom_tests",
    "pick_bug",
    "add_parser",
    "run",
    "main",
]

_BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN LESSON (?P<lesson>\d+) TASK (?P<task>\d+\.\d+)(?::\s*(?P<title>.*?))?\s*$")
_END = re.compile(r"^[ \t]*# END LESSON (?P<lesson>\d+) TASK (?P<task>\d+\.\d+)\s*$")
_REL_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from (?P<dots>\.+)(?P<rest>[\w.]*) import ")

#: ``grade`` builds fresh scaffolds in several threads, and CPython 3.11's ``ast.parse`` is not
#: thread-safe: concurrent calls can fail with "SystemError: AST constructor recursion depth
#: mismatch" (python/cpython#106905). One parse at a time.
_PARSE_LOCK = threading.Lock()

#: Files the grader always takes from a fresh build (a student cannot change how they are graded).
_SCAFFOLD = ("conftest.py", "pytest.ini", "_lesson.json", "tests")


# ---------------------------------------------------------------------------
# Lessons and marked regions
# ---------------------------------------------------------------------------


@dataclass
class ModuleSpec:
    """One file of a lesson's template.

    ``target`` is the engine module the file replaces (``None`` for an
    exercise file that lives in the lesson's folder); ``source`` is where the
    reference is read from.
    """

    student: str
    target: str | None
    source: Path | None
    requires: str = ""
    #: Functions to swap per task when the file has no marked regions (a lesson that hands out
    #: a whole working file, such as lesson 8's engine with a seeded bug).
    functions: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Lesson:
    """A lesson folder under ``lessons/``, described by its ``lesson.toml``."""

    number: int
    slug: str
    title: str
    path: Path
    tasks: dict[str, dict[str, Any]]
    modules: list[ModuleSpec]
    setup: list[str] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)
    #: Seeded bugs (``[[bug]]``): one is put into the template per student seed (see ``pick_bug``).
    bugs: list[dict[str, Any]] = field(default_factory=list)
    #: The short answer file (``[answer]``): its name and the template's text.
    answer: dict[str, Any] | None = None
    #: Files of the lesson folder copied to the student as they are (``files = [...]``).
    files: list[str] = field(default_factory=list)

    @property
    def folder_name(self) -> str:
        return self.path.name

    def marker(self, task: str) -> str:
        """The pytest marker of ``task``: ``"2.1"`` -> ``lesson2_task1``."""
        return f"lesson{self.number}_task{task.split('.', 1)[1]}"


@dataclass
class Region:
    """A marked region: lines ``begin``..``end`` (the marker lines, 0-based) of one task."""

    lesson: int
    task: str
    title: str
    begin: int
    end: int
    indent: str


def lessons_root() -> Path:
    """The ``lessons/`` folder.

    ``$MINIGRAD_LESSONS`` when set; else the copy installed with the package
    (``minigrad/_lessons``, from a wheel); else ``lessons/`` of the checkout
    this package runs from.
    """
    env = os.environ.get("MINIGRAD_LESSONS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    installed = here / "_lessons"
    return installed if installed.is_dir() else here.parent / "lessons"


def _module_source(target: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(target)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin)


def load_lesson(path: Path) -> Lesson:
    """Read ``path/lesson.toml``."""
    with open(path / "lesson.toml", "rb") as f:
        data = tomllib.load(f)
    modules = []
    for m in data.get("module", []):
        target = m.get("target")
        if target:
            source = _module_source(target)
        else:
            source = path / m["reference"]
        modules.append(ModuleSpec(student=m["student"], target=target, source=source, requires=m.get("requires", ""),
                                  functions={k: list(v) for k, v in m.get("functions", {}).items()}))
    tasks = {}
    for key, value in data["tasks"].items():
        value = {"title": value} if isinstance(value, str) else dict(value)
        value.setdefault("points", 10)
        tasks[key] = value
    return Lesson(
        number=int(data["number"]),
        slug=path.name,
        title=data["title"],
        path=path,
        tasks=tasks,
        modules=modules,
        setup=list(data.get("setup", [])),
        figures=list(data.get("figure", [])),
        bugs=list(data.get("bug", [])),
        answer=data.get("answer"),
        files=list(data.get("files", [])),
    )


def load_lessons(root: Path | None = None) -> list[Lesson]:
    """All lessons under ``root`` (default ``lessons_root()``), in lesson order."""
    root = root or lessons_root()
    if not root.is_dir():
        return []
    found = [load_lesson(p) for p in sorted(root.iterdir()) if (p / "lesson.toml").is_file()]
    return sorted(found, key=lambda l: l.number)


def find_regions(text: str, where: str = "<source>") -> list[Region]:
    """The marked regions of ``text`` (all lessons), checked for pairing."""
    regions: list[Region] = []
    open_: Region | None = None
    for i, line in enumerate(text.splitlines()):
        m = _BEGIN.match(line)
        if m:
            if open_ is not None:
                raise ValueError(f"{where}:{i + 1}: BEGIN of task {m['task']} inside task {open_.task} (line {open_.begin + 1})")
            open_ = Region(int(m["lesson"]), m["task"], m["title"] or "", i, -1, m["indent"])
            continue
        m = _END.match(line)
        if m:
            if open_ is None or open_.task != m["task"] or open_.lesson != int(m["lesson"]):
                raise ValueError(f"{where}:{i + 1}: END of lesson {m['lesson']} task {m['task']} without its BEGIN")
            open_.end = i
            regions.append(open_)
            open_ = None
    if open_ is not None:
        raise ValueError(f"{where}:{open_.begin + 1}: task {open_.task} has no END marker")
    return regions


def _enclosing_function(tree: ast.Module, lineno: int) -> str | None:
    """Qualified name (``f`` or ``Class.method``) of the top-level def holding 1-based ``lineno``."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= lineno <= node.end_lineno:
            return node.name
        if isinstance(node, ast.ClassDef) and node.lineno <= lineno <= node.end_lineno:
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.lineno <= lineno <= item.end_lineno:
                    return f"{node.name}.{item.name}"
    return None


def _absolute_imports(text: str, module: str) -> str:
    """Rewrite ``from ..x import y`` as ``from minigrad.x import y`` for a copy of ``module``."""
    package = module.rpartition(".")[0]

    def fix(m: re.Match[str]) -> str:
        name = importlib.util.resolve_name(m["dots"] + m["rest"], package)
        return f"{m['indent']}from {name} import "

    return "\n".join(_REL_IMPORT.sub(fix, line) for line in text.splitlines()) + "\n"


def make_template(text: str, lesson: int, tasks: dict[str, dict[str, Any]], reference: bool, module: str | None = None,
                  where: str = "<source>") -> tuple[str, dict[str, list[str]]]:
    """The student's copy of ``text`` and, per function, the tasks it holds.

    Regions of ``lesson`` become holes (or, with ``reference``, keep their
    code under a ``# Task X.Y`` banner); marker lines of other lessons are
    dropped. Returns ``(new_text, {qualname: [task, ...]})``.
    """
    lines = text.splitlines()
    regions = find_regions(text, where)
    with _PARSE_LOCK:
        tree = ast.parse(text)
    functions: dict[str, list[str]] = {}
    out: list[str] = []
    by_begin = {r.begin: r for r in regions}
    skip_until = -1
    for i, line in enumerate(lines):
        if i <= skip_until:
            continue
        r = by_begin.get(i)
        if r is not None:
            if r.lesson != lesson:
                continue  # another lesson's marker: keep its code, drop the marker
            title = r.title or tasks.get(r.task, {}).get("title", "")
            qual = _enclosing_function(tree, i + 1)
            body = [j for j in range(i + 1, r.end) if lines[j].strip() and not lines[j].strip().startswith("#")]
            last = _enclosing_function(tree, body[-1] + 1) if body else qual
            if body and last != qual:
                raise ValueError(
                    f"{where}:{i + 1}: task {r.task} begins in {qual or 'module code'} but its code ends in "
                    f"{last or 'module code'} (line {body[-1] + 1}); a region must stay inside one function"
                )
            if qual is not None:
                functions.setdefault(qual, [])
                if r.task not in functions[qual]:
                    functions[qual].append(r.task)
            out.append(f"{r.indent}# Task {r.task}: {title}".rstrip())
            if reference:
                out.extend(lines[i + 1 : r.end])
                out.append(f"{r.indent}# (end of Task {r.task})")
            else:
                out.append(f"{r.indent}# TODO Task {r.task}: write this part (see README.md, section 'Task {r.task}').")
                out.append(f'{r.indent}raise NotImplementedError("Task {r.task}: {title}")')
            skip_until = r.end
            continue
        if _END.match(line):
            continue  # END of another lesson's region
        out.append(line)
    new = "\n".join(out) + "\n"
    if module is not None:
        new = _absolute_imports(new, module)
    return new, functions


#: Where the docs pages a lesson text links to are read from a student folder
#: (the docs site builds the same pages from docs/; see docs/hooks/generate.py).
DOCS_URL = os.environ.get("MINIGRAD_DOCS_URL", "https://github.com/minigrad/minigrad/blob/main/docs/")


def docs_links(text: str) -> str:
    """Point a lesson text's links into the repository's docs (``../../docs/x.md``) at ``DOCS_URL``."""
    return text.replace("](../../docs/", f"]({DOCS_URL}")


# ---------------------------------------------------------------------------
# Seeded bugs (lesson 8)
# ---------------------------------------------------------------------------


def pick_bug(lesson: Lesson | dict[str, Any], seed: str) -> str:
    """The id of the bug a student with ``seed`` gets: a hash of the seed picks one of the lesson's bugs.

    The same seed always gives the same bug, so the grader can tell which rule the student must name.
    ``lesson`` is a ``Lesson`` or a built folder's ``_lesson.json`` data.
    """
    if isinstance(lesson, Lesson):
        ids, number = [b["id"] for b in lesson.bugs], lesson.number
    else:
        ids, number = list(lesson["bugs"]), lesson["lesson"]
    if not ids:
        raise ValueError(f"lesson {number} has no seeded bugs")
    digest = hashlib.sha256(f"minigrad lesson {number} student {seed}".encode()).digest()
    return ids[int.from_bytes(digest[:8], "big") % len(ids)]


def apply_bug(text: str, bug: dict[str, Any], student: str) -> str:
    """Put ``bug``'s changes for the file ``student`` into ``text`` (each ``find`` must occur exactly once)."""
    for change in bug.get("change", []):
        if change.get("file", student) != student:
            continue
        count = text.count(change["find"])
        if count != 1:
            raise ValueError(
                f"bug {bug['id']!r}: the text to change occurs {count} times in {student} (expected once); "
                f"update the lesson's [[bug.change]] to the engine's current code:\n{change['find']}"
            )
        text = text.replace(change["find"], change["replace"])
    return text


def _answer_text(lesson: Lesson, bug: dict[str, Any] | None, reference: bool) -> str:
    assert lesson.answer is not None
    text = lesson.answer.get("template", "")
    if reference and bug is not None:
        text = text.replace('rule = ""', f'rule = "{bug["id"]}"').replace(
            'explanation = ""', f'explanation = """{bug["explanation"].strip()}"""')
    return text


# ---------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------

_PYTEST_INI = """\
# Generated by `minigrad lessons build`; the grader replaces it with a fresh copy.
[pytest]
testpaths = tests
python_files = test_*.py
addopts = -p no:cacheprovider
markers =
{markers}
"""


def _conftest_text() -> str:
    return (Path(__file__).resolve().parent / "_lesson_conftest.py").read_text()


def build_lesson(lesson: Lesson, out: Path, reference: bool = False, figures: bool = True, seed: str = "") -> Path:
    """Write the student folder of ``lesson`` under ``out``; returns it (``figures``: draw them too).

    For a lesson with seeded bugs, ``seed`` (a student's name or id) picks the bug put into the
    template; the answer key (``reference``) has none and its answer file names the rule.
    """
    bug = None
    if lesson.bugs:
        bug = next(b for b in lesson.bugs if b["id"] == pick_bug(lesson, seed))
    dest = out / lesson.folder_name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    modules: list[dict[str, Any]] = []
    missing: list[str] = []
    for spec in lesson.modules:
        entry: dict[str, Any] = {"student": spec.student, "target": spec.target, "functions": {}}
        where = spec.target or spec.student
        if spec.source is None or not spec.source.is_file():
            missing.append(
                f"{where} is not available yet{' (' + spec.requires + ')' if spec.requires else ''}; "
                f"lesson {lesson.number} needs it"
            )
            modules.append(entry)
            continue
        text = spec.source.read_text()
        new, functions = make_template(text, lesson.number, lesson.tasks, reference, spec.target, str(spec.source))
        functions = functions or dict(spec.functions)
        if bug is not None and not reference:
            new = apply_bug(new, bug, spec.student)
        if spec.target is not None and not functions:
            missing.append(
                f"{spec.target} has no '# BEGIN LESSON {lesson.number} TASK ...' markers yet"
                f"{' (' + spec.requires + ')' if spec.requires else ''}; add them around the reference code"
            )
        (dest / spec.student).write_text(new)
        entry["functions"] = functions
        modules.append(entry)
    if (lesson.path / "README.md").is_file():
        (dest / "README.md").write_text(docs_links((lesson.path / "README.md").read_text()))
    for name in lesson.files:
        if (lesson.path / name).is_file():
            shutil.copy2(lesson.path / name, dest / name)
    for extra in sorted(lesson.path.iterdir()):
        # Figures and data the lesson text refers to.
        if extra.suffix in (".svg", ".png", ".jsonl") and extra.is_file():
            shutil.copy2(extra, dest / extra.name)
    if lesson.answer is not None:
        (dest / lesson.answer["file"]).write_text(_answer_text(lesson, bug, reference))
    drawn = render_figures(lesson, dest) if figures else []
    _write_scaffold(lesson, dest, modules, missing, drawn, seed)
    return dest


def render_figures(lesson: Lesson, dest: Path) -> list[dict[str, str]]:
    """Draw the lesson's figures with ``minigrad.viz`` into ``dest``.

    Each ``[[figure]]`` of ``lesson.toml`` has ``file`` (e.g. ``diamond.svg``),
    ``code`` (run under ``mg.trace()`` with ``mg`` bound) and optional ``kind``
    and ``step`` for ``minigrad.viz.render``. Without the renderer (or without
    Graphviz's ``dot``, when the DOT source is written instead) the status says so.
    """
    if not lesson.figures:
        return []
    try:
        from minigrad import viz  # type: ignore[attr-defined]

        render = viz.render
    except (ImportError, AttributeError) as exc:
        return [{"file": f["file"], "status": f"not drawn: minigrad.viz is not available ({exc})"} for f in lesson.figures]
    out = []
    for fig in lesson.figures:
        try:
            with mg.trace() as tr:
                exec(compile(fig["code"], f"{lesson.slug}/lesson.toml figure {fig['file']}", "exec"), {"mg": mg})
            kwargs = {k: fig[k] for k in ("kind", "step") if k in fig}
            render(tr, **kwargs).save(dest / fig["file"])
            out.append({"file": fig["file"], "status": "drawn"})
        except Exception as exc:  # noqa: BLE001  (a figure must never break the build)
            out.append({"file": fig["file"], "status": f"not drawn: {type(exc).__name__}: {exc}"})
    return out


def _write_scaffold(lesson: Lesson, dest: Path, modules: list[dict[str, Any]], missing: list[str],
                    figures: list[dict[str, str]] | None = None, seed: str = "") -> None:
    tests_dst = dest / "tests"
    if tests_dst.exists():
        shutil.rmtree(tests_dst)
    shutil.copytree(lesson.path / "tests", tests_dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    markers = "\n".join(
        f"    {lesson.marker(t)}: Task {t} - {info['title']}" for t, info in sorted(lesson.tasks.items())
    )
    (dest / "pytest.ini").write_text(_PYTEST_INI.format(markers=markers))
    (dest / "conftest.py").write_text(_conftest_text())
    meta = {
        "lesson": lesson.number,
        "slug": lesson.slug,
        "title": lesson.title,
        "tasks": {t: {**info, "marker": lesson.marker(t)} for t, info in lesson.tasks.items()},
        "modules": modules,
        "setup": lesson.setup,
        "missing": missing,
        "figures": figures or [],
        "seed": seed,
        "bugs": [b["id"] for b in lesson.bugs],
        "answer_file": lesson.answer["file"] if lesson.answer else None,
    }
    (dest / "_lesson.json").write_text(json.dumps(meta, indent=2) + "\n")


def build(out: Path, lessons: Sequence[int] | None = None, reference: bool = False, root: Path | None = None,
          seed: str = "") -> list[Path]:
    """Build the student folders of ``lessons`` (all by default) under ``out`` (``seed``: see ``build_lesson``)."""
    everything = load_lessons(root)
    if not everything:
        raise SystemExit(f"no lessons found under {root or lessons_root()} (set MINIGRAD_LESSONS to the lessons/ folder)")
    out.mkdir(parents=True, exist_ok=True)
    chosen = [l for l in everything if not lessons or l.number in lessons]
    if lessons and len(chosen) != len(set(lessons)):
        known = ", ".join(str(l.number) for l in load_lessons(root))
        raise SystemExit(f"unknown lesson number in {list(lessons)}; lessons: {known}")
    return [build_lesson(l, out, reference, seed=seed) for l in chosen]


# ---------------------------------------------------------------------------
# grade
# ---------------------------------------------------------------------------


def _student_folders(path: Path, lesson: int | None) -> list[Path]:
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
                 tasks: Sequence[str] | None = None) -> dict[str, Any]:
    """Grade one student folder (only ``tasks``, e.g. ``["2.1"]``, when given); returns the report (see ``grade``)."""
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
            for name in _SCAFFOLD:
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
        try:
            proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
            returncode, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as exc:  # an endless loop in the student's code
            returncode, output = -1, f"the tests ran longer than {timeout:g} s and were stopped\n{exc.stdout or ''}"
        results = json.loads(report_path.read_text()) if report_path.is_file() else {"tests": {}}
    return _score(meta, results, returncode, output)


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


#: How many lines of a divergence the score table prints (the JSON report has all of it).
_DIVERGENCE_LINES = 12


def print_report(report: dict[str, Any], console: Any = None) -> None:
    """The score table of one lesson (rich)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    table = Table(title=f"Lesson {report['lesson']}: {report['title']}", show_lines=False)
    for col, just in (("task", "left"), ("title", "left"), ("passed", "right"), ("failed", "right"),
                      ("skipped", "right"), ("score", "right"), ("status", "left")):
        table.add_column(col, justify=just)
    styles = {"full": "green", "partial": "yellow", "zero": "red", "no tests ran": "red", "skipped": "dim"}
    for t in report["tasks"]:
        table.add_row(t["task"], t["title"], str(t["passed"]), str(t["failed"]), str(t["skipped"]),
                      f"{t['score']:g} / {t['max']:g}", f"[{styles[t['status']]}]{t['status']}[/]")
    table.add_row("", "[bold]total[/]", "", "", "", f"[bold]{report['score']:g} / {report['max']:g}[/]", "")
    console.print(table)
    for t in report["tasks"]:
        for reason in t["skip_reasons"]:
            console.print(f"  [dim]Task {t['task']} skipped: {reason}[/]")
        for test in t["tests"]:
            if test["outcome"] not in ("failed", "error"):
                continue
            name = test["nodeid"].rpartition("::")[2]
            divergence = test.get("divergence")
            if divergence:
                # An event-graded test: the first step where the student's run left the reference's.
                console.print(f"  [red]Task {t['task']}[/] {escape(name)}: first divergence", highlight=False)
                for line in divergence["text"].splitlines()[:_DIVERGENCE_LINES]:
                    console.print(f"    {line}", markup=False, highlight=False)
            elif test.get("message"):
                console.print(f"  [red]Task {t['task']}[/] {escape(name)}: {escape(test['message'].splitlines()[0][:200])}",
                              highlight=False)
    if not any(t["tests"] for t in report["tasks"]):
        console.print("[red]No test ran; pytest said:[/]")
        console.print(report["pytest_output_tail"][-2000:], markup=False, highlight=False)


def grade(path: Path, lesson: int | None = None, json_path: Path | None = None, quiet: bool = False,
          root: Path | None = None, jobs: int = 4, tasks: Sequence[str] | None = None) -> dict[str, Any]:
    """Grade the student folder(s) at ``path``; print tables, write the JSON report.

    The report: ``{"score", "max", "lessons": [{"lesson", "title", "score",
    "max", "tasks": [{"task", "title", "marker", "passed", "failed",
    "skipped", "score", "max", "status", "tests": [...]}, ...]}, ...]}``.
    """
    folders = _student_folders(path, lesson)
    # Each folder is graded by its own pytest process; run a few at once.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(folders)))) as pool:
        reports = list(pool.map(lambda f: grade_folder(f, root, tasks=tasks), folders))
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


# ---------------------------------------------------------------------------
# classroom: GitHub Classroom autograding on GitHub's runners
# ---------------------------------------------------------------------------

_WORKFLOW = """\
# Generated by `minigrad lessons classroom`: grades this lesson on every push.
# GitHub Classroom's autograding action runs the tests of .github/classroom/autograding.json
# (one per task, each `minigrad lessons grade . --task N.M --check`) and reports the points;
# the last step writes the full score table, with the first divergence of event-graded tasks,
# into the run's summary and keeps the JSON report as an artifact.
name: Autograding
on:
  push:
  workflow_dispatch:
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  autograding:
    name: Autograding
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install minigrad
        run: {install}
      - name: Autograding (one test per task)
        uses: education/autograding@v1
      - name: Score table
        if: always()
        env:
          COLUMNS: "150"
        run: |
          minigrad lessons grade . --json grading-report.json | tee grading-report.txt
          {{ echo '```'; cat grading-report.txt; echo '```'; }} >> "$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: grading-report
          path: grading-report.json
"""


def _default_install() -> str:
    return f"python -m pip install --quiet minigrad=={__version__}"


def classroom_tests(lesson: Lesson, timeout: int = 10) -> dict[str, Any]:
    """The autograding configuration of ``lesson``: one test per task, with the task's points.

    The format is GitHub Classroom's ``.github/classroom/autograding.json``
    (``name``, ``setup``, ``run``, ``input``, ``output``, ``comparison``,
    ``timeout`` in minutes, ``points``): a test passes when ``run`` exits with 0.
    """
    tests = []
    for task, info in sorted(lesson.tasks.items(), key=lambda kv: [int(x) for x in kv[0].split(".")]):
        tests.append({
            "name": f"Task {task}: {info['title']}",
            "setup": "",
            "run": f"minigrad lessons grade . --task {task} --check",
            "input": "",
            "output": "",
            "comparison": "included",
            "timeout": timeout,
            "points": int(info.get("points", 10)),
        })
    return {"tests": tests}


def classroom(out: Path, lessons: Sequence[int] | None = None, install: str | None = None, seed: str = "",
              timeout: int = 10, root: Path | None = None) -> list[Path]:
    """Write one GitHub Classroom template repository per lesson under ``out``.

    Each holds the student folder (as ``build`` writes it), the autograding
    configuration ``.github/classroom/autograding.json`` (``classroom_tests``)
    and the workflow ``.github/workflows/classroom.yml`` that installs
    minigrad (``install``) and runs them on GitHub Actions.
    """
    folders = build(out, lessons, root=root, seed=seed)
    install = install or _default_install()
    by_number = {l.number: l for l in load_lessons(root)}
    for folder in folders:
        lesson = by_number[json.loads((folder / "_lesson.json").read_text())["lesson"]]
        gh = folder / ".github"
        (gh / "classroom").mkdir(parents=True, exist_ok=True)
        (gh / "workflows").mkdir(parents=True, exist_ok=True)
        (gh / "classroom" / "autograding.json").write_text(
            json.dumps(classroom_tests(lesson, timeout), indent=2) + "\n")
        (gh / "workflows" / "classroom.yml").write_text(_WORKFLOW.format(install=json.dumps(install)))
    return folders


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------


def add_parser(subparsers: Any) -> None:
    """Add ``lessons build|grade`` to a main CLI's subparsers."""
    p = subparsers.add_parser("lessons", help="build student templates from the reference, grade student folders")
    _fill_parser(p)


def _fill_parser(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="lessons_command", required=True)
    b = sub.add_parser("build", help="write one student folder per lesson (holes in place of the marked regions)")
    b.add_argument("--out", type=Path, default=Path("lessons-build"), help="output folder (default: lessons-build)")
    b.add_argument("--lesson", type=int, action="append", help="only this lesson (repeatable)")
    b.add_argument("--reference", action="store_true", help="keep the reference code instead of holes (answer key)")
    b.add_argument("--seed", default="", help="a student's name or id: picks the seeded bug of lessons that have them (8)")
    g = sub.add_parser("grade", help="run a lesson's tests against a student folder and print a score table")
    g.add_argument("path", type=Path, help="a student folder, or a folder of them (as written by build)")
    g.add_argument("--lesson", type=int, help="only this lesson")
    g.add_argument("--json", type=Path, dest="json_path", help="write the JSON report here")
    g.add_argument("--task", action="append", help="grade only this task, e.g. 2.1 (repeatable)")
    g.add_argument("--check", action="store_true",
                   help="exit 1 unless every graded task has full marks (what a Classroom test runs)")
    c = sub.add_parser("classroom", help="write GitHub Classroom autograding (one test per task) and an Actions "
                                         "workflow into a template folder per lesson")
    c.add_argument("out", type=Path, help="output folder: one ready template repository per lesson")
    c.add_argument("--lesson", type=int, action="append", help="only this lesson (repeatable)")
    c.add_argument("--install", default=None,
                   help=f"shell command that installs minigrad on the runner (default: {_default_install()!r})")
    c.add_argument("--seed", default="", help="the assignment's seed for lessons with seeded bugs (8)")
    c.add_argument("--timeout", type=int, default=10, help="minutes each task's test may run (10)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``lessons`` command; returns the exit status."""
    if args.lessons_command == "build":
        folders = build(args.out, args.lesson, reference=args.reference, seed=args.seed)
        for f in folders:
            meta = json.loads((f / "_lesson.json").read_text())
            note = f"  (not ready: {'; '.join(meta['missing'])})" if meta["missing"] else ""
            print(f"wrote {f}{note}")
            for fig in meta.get("figures", []):
                if fig["status"] != "drawn":
                    print(f"  figure {fig['file']}: {fig['status']}")
        return 0
    if args.lessons_command == "grade":
        report = grade(args.path, args.lesson, args.json_path, tasks=args.task)
        print(f"total: {report['score']:g} / {report['max']:g}")
        if args.check:
            short = [f"{l['lesson']}/{t['task']} ({t['status']})" for l in report["lessons"] for t in l["tasks"]
                     if t["status"] != "full"]
            if short:
                print(f"not full marks: {', '.join(short)}")
                return 1
        return 0
    if args.lessons_command == "classroom":
        for folder in classroom(args.out, args.lesson, install=args.install, seed=args.seed, timeout=args.timeout):
            print(f"wrote {folder} (.github/classroom/autograding.json, .github/workflows/classroom.yml)")
        return 0
    raise SystemExit(f"unknown lessons command {args.lessons_command!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m minigrad.lessons_cli build|grade ...``."""
    p = argparse.ArgumentParser(prog="minigrad lessons", description=__doc__.splitlines()[0])
    _fill_parser(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
