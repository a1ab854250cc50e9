"""The coursework tool's command line: ``minigrad lessons build|grade|classroom``.

Each job lives in its own module of ``minigrad/coursework/``: ``lesson.py`` (lessons
as data), ``templates.py`` (marked regions become holes; seeded bugs), ``build.py``
(student folders), ``grading.py`` (run the tests, score each task), ``report.py``
(the score table) and ``classroom.py`` (GitHub Classroom autograding). This module
parses arguments and calls them; ``add_parser(subparsers)`` and ``run(args)`` hook it
into ``minigrad/cli.py``, and ``python -m minigrad.lessons_cli build|grade`` runs it
alone. The lessons come from the checkout or, in an installed wheel, from
``minigrad/_lessons`` (see ``lessons_root``).

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
import json
from pathlib import Path
from typing import Any, Sequence

from .coursework import (Lesson, Region, apply_bug, build, build_lesson, classroom, classroom_tests,
                         default_install, find_regions, grade, lessons_root, load_lessons, make_template, pick_bug,
                         print_report, student_folders)
from .progress import progress

__all__ = [
    "Lesson",
    "Region",
    "lessons_root",
    "load_lessons",
    "find_regions",
    "make_template",
    "apply_bug",
    "build",
    "build_lesson",
    "grade",
    "print_report",
    "student_folders",
    "classroom",
    "classroom_tests",
    "pick_bug",
    "add_parser",
    "run",
    "main",
]


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
                   help=f"shell command that installs minigrad on the runner (default: {default_install()!r})")
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
        with progress() as steps:  # one bar per task on a terminal, counted off as its tests end
            report = grade(args.path, args.lesson, args.json_path, tasks=args.task, quiet=True, steps=steps)
        for lesson in report["lessons"]:
            print_report(lesson)
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
