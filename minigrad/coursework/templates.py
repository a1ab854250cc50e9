"""Templates: a lesson's marked regions of the engine become holes for the student.

The reference solution of every lesson lives in minigrad itself (or, for an
exercise that is not part of the engine, in a file of the lesson's folder).
Regions of it are marked with comments::

    def get_in_degree_map(queue, check_released=True):
        \"\"\"Count the edges into every node ...\"\"\"
        # BEGIN LESSON 2 TASK 2.1: the in-degree map
        ...the reference code...
        # END LESSON 2 TASK 2.1

``make_template`` replaces each marked region of a lesson with a hole - a banner
naming the task, a TODO comment and ``raise NotImplementedError`` - so the template
can never drift from the engine. The signature and docstring stay (they are
outside the region). Relative imports are made absolute, so the copy imports the
real engine around it. Lessons with seeded bugs (lesson 8) get one bug per student
seed (``pick_bug``, ``apply_bug``).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import re
import threading
from dataclasses import dataclass
from typing import Any

from .lesson import Lesson

__all__ = ["Region", "find_regions", "make_template", "docs_links", "pick_bug", "apply_bug", "answer_text"]


_BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN LESSON (?P<lesson>\d+) TASK (?P<task>\d+\.\d+)(?::\s*(?P<title>.*?))?\s*$")


_END = re.compile(r"^[ \t]*# END LESSON (?P<lesson>\d+) TASK (?P<task>\d+\.\d+)\s*$")


_REL_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from (?P<dots>\.+)(?P<rest>[\w.]*) import ")


#: ``grade`` builds fresh scaffolds in several threads, and CPython 3.11's ``ast.parse`` is not
#: thread-safe: concurrent calls can fail with "SystemError: AST constructor recursion depth
#: mismatch" (python/cpython#106905). One parse at a time.
_PARSE_LOCK = threading.Lock()


@dataclass
class Region:
    """A marked region: lines ``begin``..``end`` (the marker lines, 0-based) of one task."""

    lesson: int
    task: str
    title: str
    begin: int
    end: int
    indent: str


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


def answer_text(lesson: Lesson, bug: dict[str, Any] | None, reference: bool) -> str:
    assert lesson.answer is not None
    text = lesson.answer.get("template", "")
    if reference and bug is not None:
        text = text.replace('rule = ""', f'rule = "{bug["id"]}"').replace(
            'explanation = ""', f'explanation = """{bug["explanation"].strip()}"""')
    return text
