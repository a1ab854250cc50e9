"""Which packages and data files the ``minigrad`` distribution holds, listed from the source tree.

Everything else (name, version, dependencies, entry points) is in
``pyproject.toml``. This file only answers "what goes into the wheel", by
walking the folders, so a new subpackage or a new data file (a Textual
``.tcss``, a lesson's text or test) can never be left out by a list kept by
hand. ``tests/test_wheel.py`` builds the wheel and compares it with the tree.

Three source folders install under the one ``minigrad`` package:

- ``minigrad/`` -> ``minigrad`` (the engine),
- ``viz/``      -> ``minigrad.viz`` (the Graphviz renderer),
- ``tui/``      -> ``minigrad.tui`` (the Textual app),

and the coursework, ``lessons/``, installs as data under
``minigrad/_lessons/``, where ``minigrad lessons build|grade`` finds it when
minigrad runs from a wheel rather than from this checkout.
"""

from __future__ import annotations

import os

from setuptools import setup

#: Import name -> source folder (relative to this file).
ROOTS = {"minigrad": "minigrad", "minigrad.viz": "viz", "minigrad.tui": "tui"}
#: The lesson folders are data, not importable code: lesson names start with a digit.
LESSONS = ("minigrad._lessons", "lessons")
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis"}
_SKIP_SUFFIXES = (".pyc", ".pyo", "~")


def _walk(folder: str):
    """``(relative dir, dir names, file names)`` under ``folder``, without caches or hidden entries."""
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        files = sorted(f for f in files if not f.startswith(".") and not f.endswith(_SKIP_SUFFIXES))
        yield os.path.relpath(here, folder), dirs, files


def find_packages_and_data() -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    """``(packages, package_dir, package_data)`` for ``setup()``.

    A folder with Python files is a package (a namespace package when it has
    no ``__init__.py``, like ``minigrad/kernels``); its other files are its
    data, and so is everything in a subfolder without Python files.
    """
    packages: list[str] = []
    package_dir: dict[str, str] = {}
    package_data: dict[str, list[str]] = {}
    for name, folder in ROOTS.items():
        package_dir[name] = folder
        owners: dict[str, tuple[str, str]] = {}  # relative dir -> (package whose data its files are, its dir)
        for rel, _dirs, files in _walk(folder):
            if any(f.endswith(".py") for f in files):  # a package (or, without __init__.py, a namespace package)
                pkg = name if rel == "." else f"{name}.{rel.replace(os.sep, '.')}"
                packages.append(pkg)
                owners[rel] = (pkg, rel)
                data = [f for f in files if not f.endswith(".py")]
            else:
                # A plain folder inside a package (say ``tui/fixtures``): data of the package above it.
                parent = os.path.dirname(rel)
                if (parent or ".") not in owners:
                    continue  # not inside a package
                owners[rel] = owners[parent or "."]
                data = files
            pkg, pkg_dir = owners[rel]
            prefix = os.path.relpath(rel, pkg_dir).replace(os.sep, "/")
            if data:
                package_data.setdefault(pkg, []).extend(f if prefix == "." else f"{prefix}/{f}" for f in data)
    name, folder = LESSONS
    package_dir[name] = folder
    packages.append(name)
    package_data[name] = [
        os.path.join(rel, f).removeprefix("./").replace(os.sep, "/") for rel, _dirs, files in _walk(folder) for f in files
    ]
    return packages, package_dir, package_data


if __name__ == "__main__":  # how setuptools runs this file
    _packages, _package_dir, _package_data = find_packages_and_data()
    setup(packages=_packages, package_dir=_package_dir, package_data=_package_data, include_package_data=False)
