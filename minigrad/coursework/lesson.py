"""Lessons as data: a folder under ``lessons/`` described by its ``lesson.toml``.

``load_lessons()`` reads every lesson; a ``Lesson`` names its tasks (with points),
the engine modules its template is cut from (``ModuleSpec``), its figures, seeded
bugs and answer file. ``lessons_root()`` finds the folder in a checkout or an
installed wheel.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ModuleSpec", "Lesson", "lessons_root", "load_lesson", "load_lessons"]



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


def lessons_root() -> Path:
    """The ``lessons/`` folder.

    ``$MINIGRAD_LESSONS`` when set; else the copy installed with the package
    (``minigrad/_lessons``, from a wheel); else ``lessons/`` of the checkout
    this package runs from.
    """
    env = os.environ.get("MINIGRAD_LESSONS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent  # the minigrad package
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
