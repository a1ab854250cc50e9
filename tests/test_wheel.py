"""The wheel works outside the checkout: built, installed into a throw-away environment, run from another folder.

This is what a course hands out: ``pip install minigrad-*.whl``, then
``minigrad``, ``minigrad-tui`` and ``minigrad lessons`` in the student's own
folder, with no source tree anywhere near. The steps (all offline):

1. copy the checkout's files (no ``.venv``, ``.git`` or caches) to a temporary
   folder and build the wheel there with ``pip wheel --no-build-isolation``
   (so the checkout stays clean and no package index is needed);
2. create a virtual environment without pip and install the wheel into it with
   ``pip --python ... install --no-deps --no-index``; its dependencies (NumPy,
   Textual, ...) come from the environment running the tests, through a
   ``.pth`` file listing that environment's ``site-packages`` *after* the new
   one, so ``minigrad`` itself can only come from the wheel;
3. from a folder outside the checkout, run the commands a newcomer runs.

The tests share one build (module fixture) and one xdist worker (``make test``
uses ``--dist loadgroup``).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Source folder -> where its files land in the wheel (as setup.py maps them).
INSTALLED_AS = {"minigrad": "minigrad", "viz": "minigrad/viz", "tui": "minigrad/tui", "lessons": "minigrad/_lessons"}
_IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "venv", "build", "dist", "site", "*.egg-info", "__pycache__", "*.pyc", ".pytest_cache",
    ".hypothesis", "lessons-build", "out", ".whl", ".gl",
)

pytestmark = [pytest.mark.xdist_group("wheel"), pytest.mark.slow]

SCRIPT = """\
import minigrad as mg

x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
w = mg.tensor([[0.5], [1.0]], requires_grad=True, name="w")
loss = (x @ w).relu().sum()
loss.backward()
print("grad", x.grad.tolist())
"""

TUI_START = """\
import asyncio
from minigrad.tui.app import MinigradApp
from minigrad.tui.demo import demo_session

async def main():
    app = MinigradApp(demo_session())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("right")
        await pilot.pause()
        print("tui started with", type(app.screen).__name__)

asyncio.run(main())
"""


@dataclass
class Installed:
    wheel: Path
    venv: Path
    work: Path  # a folder outside the checkout, the commands' working directory
    env: dict[str, str]

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), cwd=cwd or self.work, env=self.env, capture_output=True, text=True,
                              timeout=timeout)


def _check(proc: subprocess.CompletedProcess[str], what: str) -> str:
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("wheel")
    src, dist, venv, work = base / "src", base / "dist", base / "venv", base / "work"
    shutil.copytree(ROOT, src, ignore=_IGNORE)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(dist),
         str(src)], capture_output=True, text=True, timeout=600)
    _check(build, "pip wheel (needs setuptools>=77 in this environment: pip install -e '.[dev]')")
    wheels = list(dist.glob("minigrad-*.whl"))
    assert len(wheels) == 1, wheels

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # The running environment's packages serve as the wheel's dependencies, after the venv's own.
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()}
    if site.ENABLE_USER_SITE:
        ours.add(site.getusersitepackages())
    Path(purelib, "_minigrad_test_deps.pth").write_text("\n".join(sorted(p for p in ours if os.path.isdir(p))) + "\n")
    _check(subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
                           str(wheels[0])], capture_output=True, text=True, timeout=600), "pip install of the wheel")

    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MINIGRAD", "PYTEST", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return Installed(wheels[0], venv, work, env)


def _source_files() -> set[str]:
    """Every file setup.py must ship, by its path inside the wheel."""
    want = set()
    for folder, target in INSTALLED_AS.items():
        for path in (ROOT / folder).rglob("*"):
            rel = path.relative_to(ROOT / folder)
            if path.is_file() and not any(p == "__pycache__" or p.startswith(".") for p in rel.parts) \
                    and path.suffix not in (".pyc", ".pyo"):
                want.add(f"{target}/{rel.as_posix()}")
    return want


def test_wheel_holds_every_module_and_data_file(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as zf:
        names = set(zf.namelist())
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    missing = sorted(_source_files() - names)
    assert not missing, f"the wheel lacks {missing}"
    for needed in ("minigrad/tui/app.tcss", "minigrad/tui/screens/__init__.py", "minigrad/tui/widgets/__init__.py",
                   "minigrad/_lessons/02_backward_engine/lesson.toml", "minigrad/_lesson_conftest.py",
                   "minigrad/dispatch/generated/__init__.py", "minigrad/dispatch/generated/math.py"):
        assert needed in names, needed
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f"Version: {version}" in meta
    assert "License-Expression: MIT" in meta
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_imports_come_from_the_wheel(installed: Installed) -> None:
    code = ("import minigrad, minigrad.tui.app, minigrad.viz, minigrad.tui.screens, minigrad.tui.widgets\n"
            "print(minigrad.__file__); print(minigrad.__version__)")
    out = _check(installed.run(installed.bin("python"), "-c", code), "import minigrad.tui.app, minigrad.viz")
    where, version = out.split()[:2]
    assert Path(where).is_relative_to(installed.venv), f"minigrad imported from {where}, not from the wheel"
    assert version == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_minigrad_tui_help_and_start(installed: Installed) -> None:
    out = _check(installed.run(installed.bin("minigrad-tui"), "--help"), "minigrad-tui --help")
    assert "usage: minigrad-tui" in out
    # The app starts headless with its stylesheet (app.tcss is package data) and takes a key.
    out = _check(installed.run(installed.bin("python"), "-c", TUI_START), "the TUI on the demo")
    assert "tui started with MainScreen" in out


def test_record_and_log_a_script(installed: Installed) -> None:
    (installed.work / "small.py").write_text(SCRIPT)
    out = _check(installed.run(installed.bin("minigrad"), "record", "small.py", "-o", "run.jsonl"), "minigrad record")
    assert "grad [[0.5, 1.0], [0.5, 1.0]]" in out
    first = json.loads((installed.work / "run.jsonl").read_text().splitlines()[0])
    assert first["schema"] == "minigrad.trace"
    out = _check(installed.run(installed.bin("minigrad"), "log", "run.jsonl", "--kind", "queue.*"), "minigrad log")
    assert "queue.push" in out and "queue.pop" in out


def test_lessons_build_and_grade_in_any_folder(installed: Installed) -> None:
    out = _check(installed.run(installed.bin("minigrad"), "lessons", "build", "--out", "lessons-build"),
                 "minigrad lessons build")
    built = installed.work / "lessons-build"
    shipped = sorted(p.name for p in (ROOT / "lessons").iterdir() if (p / "lesson.toml").is_file())
    assert sorted(p.name for p in built.iterdir()) == shipped, out
    lesson2 = built / "02_backward_engine"
    assert "raise NotImplementedError" in (lesson2 / "engine.py").read_text()
    assert (lesson2 / "README.md").is_file() and (lesson2 / "tests").is_dir()
    # A newcomer grades from inside the folder: `grade .` and `grade --lesson 2 .`.
    for args in ((".",), ("--lesson", "2", ".")):
        proc = installed.run(installed.bin("minigrad"), "lessons", "grade", *args, "--json", "report.json", cwd=lesson2)
        out = _check(proc, f"minigrad lessons grade {' '.join(args)}")
        report = json.loads((lesson2 / "report.json").read_text())
        assert [r["lesson"] for r in report["lessons"]] == [2]
        assert report["score"] == 0 < report["max"], out  # the untouched template fails every task
        assert all(t["failed"] > 0 for t in report["lessons"][0]["tasks"]), out
