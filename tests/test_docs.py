"""The documentation site: `mkdocs build --strict` passes and every ```python block in docs/ and the lesson texts runs.

A block is skipped only when the line before it is ``<!-- no-run -->`` (it needs
a display, a GPU or a piece that is not merged yet).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

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
    if importlib.util.find_spec("mkdocs") is not None:  # installed, without its script beside this Python
        return [sys.executable, "-m", "mkdocs"]
    if shutil.which("mkdocs"):
        return ["mkdocs"]
    pytest.skip("mkdocs is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as ``mkdocs build --strict`` writes it (built once for the tests below)."""
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[dev]')")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    r = subprocess.run([*_mkdocs(), "build", "--strict", "-d", str(out)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def test_mkdocs_build_strict(site):
    events = (site / "events" / "index.html").read_text()
    from minigrad.tracing.events import EVENT_TYPES

    for kind in EVENT_TYPES:
        assert kind in events, f"event kind {kind} missing from the generated reference"
    assert "queue.push" in events and "front" in events


class _Page(HTMLParser):
    """The ids (anchors) of an HTML page and the targets of its links."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href") is not None:
            self.links.append(a["href"])


def test_every_internal_link_and_anchor_resolves(site):
    """``mkdocs build --strict`` only logs a missing anchor (INFO): here every link between the site's pages,
    and the ``#anchor`` it names, must exist in the built HTML."""
    pages = {}
    for path in site.rglob("*.html"):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = page
    broken = []
    for path, page in pages.items():
        for href in page.links:
            url = urlsplit(href)
            if url.scheme or url.netloc:
                continue  # another site
            if not url.path:
                target = path
            elif url.path.startswith("/"):  # the 404 page links from the site's root
                target = (site / unquote(url.path).lstrip("/")).resolve()
            else:
                target = (path.parent / unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site.resolve())}: {href}"
            if not target.exists():
                broken.append(f"{where} (no such page)")
            elif url.fragment and target in pages and unquote(url.fragment) not in pages[target].ids:
                broken.append(f"{where} (the page has no anchor #{url.fragment})")
    assert len(pages) > 20 and sum(len(p.links) for p in pages.values()) > 500  # the site was read
    assert not broken, "\n".join(broken)


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
    page = (DOCS / "add-an-op.md").read_text()  # written into the page (docs/hooks/reference_pages.py)
    assert "{{ op_table }}" not in page and "| `matmul` |" in page
