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
    if "defop(" in code:
        # A block that defines an op (docs/add-an-op.md) runs in its own interpreter, so the
        # op does not join mg.OPS for the rest of the suite (test_ops_grad checks every op there).
        r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        return
    exec(compile(code, "<docs block>", "exec"), {"__name__": "__docs__"})


def test_the_add_an_op_walkthrough_is_run():
    """The walkthrough's code block is one of the blocks above (not marked no-run)."""
    ids = [p.id for p in python_blocks()]
    assert any(i.startswith("docs/add-an-op.md:") for i in ids), ids


def test_op_table_lists_every_op():
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import generate
    finally:
        sys.path.pop(0)
    import minigrad as mg

    table = generate.op_table()
    for name, op in mg.OPS.items():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
        for method in op.methods:
            assert f"`{method}`" in row
        if op.amp:
            assert f"| {op.amp} |" in row
    assert "| `relu` |" in table and "`__radd__`" in table
    page = generate.on_page_markdown("# t\n\n{{ op_table }}\n", None, None, None)
    assert "{{ op_table }}" not in page and "| `matmul` |" in page
