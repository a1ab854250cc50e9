"""The docs a user gets are self-contained: a design page inside the repository, no links into the workspace.

README, docs/ and the lesson texts must not point at files users don't have
(the workspace's design notes) or use internal labels for the sources
(a source write-up's number); they link to docs/architecture.md instead, and every repository
path they name in backticks exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
USER_TEXTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "lessons").rglob("*.md"))]
_FORBIDDEN = re.compile(r"shared/DESIGN|seed 00\d|seeds/|DESIGN(\.md| §| rule)")
_PATH = re.compile(r"`((?:minigrad|viz|tui|lessons|tests|bench|docs|examples|scripts)/[\w./-]+\.(?:py|md|tcss|toml))`")


@pytest.mark.parametrize("path", USER_TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_workspace_links_or_internal_labels(path: Path) -> None:
    bad = [f"{path.relative_to(ROOT)}:{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1)
           if _FORBIDDEN.search(line)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", USER_TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_repository_files_exist(path: Path) -> None:
    named = {m for m in _PATH.findall(path.read_text()) if "NN_" not in m}  # NN_slug: a placeholder
    missing = sorted(m for m in named if not (ROOT / m).exists())
    assert not missing, f"{path.relative_to(ROOT)} names files that do not exist: {missing}"


def test_architecture_page_is_linked_from_readme_docs_and_nav() -> None:
    assert (ROOT / "docs" / "architecture.md").is_file()
    assert "](docs/architecture.md)" in (ROOT / "README.md").read_text()
    assert "](architecture.md)" in (ROOT / "docs" / "index.md").read_text()
    assert re.search(r"^\s*- [^:]+: architecture\.md$", (ROOT / "mkdocs.yml").read_text(), re.M)


def test_architecture_page_covers_layers_events_and_rules() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    for heading in ("## Layout", "## The forward path", "## The backward path",
                    "## Events: the contract between the engine and the viewers", "## Engine rules"):
        assert heading in text
    from minigrad.tracing.events import EVENT_TYPES

    missing = [k for k in EVENT_TYPES if f"`{k}`" not in text]
    assert not missing, f"docs/architecture.md does not list the event kinds {missing}"
    for source in ("PaddlePaddle's eager forward path", "PaddlePaddle's eager backward",
                   "PaddlePaddle's kernel selection", "PyTorch's autograd internals"):
        assert source in text


_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: Code is not prose: ``model[0](x)`` in a code block or a code span is a call, not a link.
_CODE = re.compile(r"^```.*?^```|^(?:    |\t).*?$|`[^`\n]*`", re.S | re.M)


@pytest.mark.parametrize("path", USER_TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_in_the_checkout(path: Path) -> None:
    """A reader of the repository (or of a lesson folder's parent checkout) can follow every relative link."""
    broken = []
    for target in _LINK.findall(_CODE.sub("", path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # an address (https:, mailto:) or a heading on the same page
        file = target.split("#", 1)[0]
        if file and not (path.parent / file).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)} links to files not in the checkout: {broken}"


def test_generated_reference_pages_are_checked_in_and_current() -> None:
    """docs/events.md and docs/pytorch.md, and the tables generated into docs/add-an-op.md and
    docs/concepts/memory.md, come from the code; a stale copy fails here."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(ROOT / "docs" / "hooks" / "reference_pages.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    events = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    from minigrad.tracing.events import EVENT_TYPES

    assert all(f"## `{kind}`" in events for kind in EVENT_TYPES)


@pytest.mark.parametrize("path", USER_TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_placeholder_in_a_checked_in_page(path: Path) -> None:
    """A reader of the checkout (GitHub, an editor) sees the page as it is: no ``{{ name }}`` left to fill."""
    left = re.findall(r"\{\{\s*\w+\s*\}\}", path.read_text())
    assert not left, f"{path.relative_to(ROOT)} shows template placeholders {left}"


def test_the_saved_table_is_the_ops_definitions() -> None:
    text = (ROOT / "docs" / "concepts" / "memory.md").read_text()
    import minigrad as mg

    for name, op in mg.OPS.items():
        if op.backward is not None:
            saved = ", ".join(f"`{s}`" for s in op.save) or "nothing"
            assert f"| `{name}` | {saved} |" in text, name
