"""Comments and docstrings cite what ships with the repository.

A reader of minigrad has its ``docs/`` pages, the ``NOTE [ ... ]`` comments in the code and
PyTorch's and Paddle's public sources - not the design notes, style rules, source write-ups
or issue numbers the project was planned with. Citing those sends a reader to a document
they cannot open.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("minigrad", "viz", "tui", "tests", "bench", "examples", "scripts", "lessons", "docs")
#: "DESIGN §4", "STYLE rule 3", "seed 004", "issue 23" (not "issue 16-byte loads").
UNSHIPPED = re.compile(r"DESIGN §|STYLE rules? \d|\bseeds? 00[1-4]\b|\b[Ii]ssues? #?\d+\b(?!-)")


def _sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")
                  if ".venv" not in p.parts and p.name != Path(__file__).name)


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_comment_cites_a_document_the_repository_does_not_ship(folder: str) -> None:
    hits = []
    for path in _sources():
        if path.relative_to(ROOT).parts[0] != folder:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if UNSHIPPED.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "cite docs/, a NOTE, or PyTorch's/Paddle's source instead:\n" + "\n".join(hits)
