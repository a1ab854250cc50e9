"""Coursework: build student templates from the engine's marked regions, grade them, publish them.

``minigrad lessons build|grade|classroom`` (``minigrad/lessons_cli.py``) runs these jobs, one
module each: ``lesson`` (lessons as data, from ``lessons/*/lesson.toml``), ``templates`` (a
lesson's marked regions of the engine become holes), ``build`` (one student folder per
lesson), ``grading`` (the lesson's tests against a student folder, scored per task),
``report`` (the score table) and ``classroom`` (GitHub Classroom autograding).
"""

from __future__ import annotations

from .build import build, build_lesson, render_figures
from .classroom import classroom, classroom_tests, default_install
from .grading import grade, grade_folder, student_folders
from .lesson import Lesson, ModuleSpec, lessons_root, load_lesson, load_lessons
from .report import print_report
from .templates import Region, apply_bug, docs_links, find_regions, make_template, pick_bug

__all__ = ["Lesson", "ModuleSpec", "Region", "lessons_root", "load_lesson", "load_lessons", "find_regions",
           "make_template", "docs_links", "pick_bug", "apply_bug", "build", "build_lesson", "render_figures",
           "grade", "grade_folder", "student_folders", "print_report", "classroom", "classroom_tests",
           "default_install"]
