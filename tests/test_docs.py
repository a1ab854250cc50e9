"""The documentation site: `mkdocs build --strict` passes and every ```python block in docs/ and the lesson texts runs.

A block is skipped only when the line before it is ``<!-- no-run -->`` (it needs
a display, a GPU or a piece that is not merged yet).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)


def python_blocks():
    for md in sorted(DOCS.rglob("*.md")) + sorted((ROOT / "lessons").glob("*/README.md")):
        text = md.read_text()
        for m in _BLOCK.finditer(text):
            before = text[: m.start()].rstrip().splitlines()
            if before and before[-1].strip() == "<!-- no-run -->":
                continue
            line = text[: m.start()].count("\n") + 1
            yield pytest.param(m.group(1), id=f"{md.relative_to(ROOT)}:{line}")


def _mkdocs() -> list[str]:
    exe = Path(sys.executable).with_name("mkdocs")
    if exe.exists():
        return [str(exe)]
    if shutil.which("mkdocs"):
        return ["mkdocs"]
    pytest.skip("mkdocs is not installed (pip install -e '.[dev]')")


def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[dev]')")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    r = subprocess.run([*_mkdocs(), "build", "--strict", "-d", str(tmp_path / "site")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    events = (tmp_path / "site" / "events" / "index.html").read_text()
    from minigrad.tracing.events import EVENT_TYPES

    for kind in EVENT_TYPES:
        assert kind in events, f"event kind {kind} missing from the generated reference"
    assert "queue.push" in events and "front" in events


def test_event_reference_lists_every_field():
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    from minigrad.tracing.events import EVENT_TYPES

    text = generate.event_reference()
    for kind, cls in EVENT_TYPES.items():
        assert f"## `{kind}`" in text
        for name in cls.field_names():
            assert f"| `{name}` |" in text


@pytest.mark.parametrize("code", list(python_blocks()))
def test_python_blocks_run(code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "<docs block>", "exec"), {"__name__": "__docs__"})
