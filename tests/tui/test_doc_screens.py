"""The TUI screens in README.md and docs/tui.md are what the TUI draws now (``scripts/doc_screens.py --check``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_screens_in_the_docs_are_current():
    # A fresh process: node ids count from 1, as for a person who starts minigrad-tui.
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "doc_screens.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_every_screen_block_names_a_known_screen():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import doc_screens
    finally:
        sys.path.pop(0)
    found = set()
    for rel in doc_screens.FILES:
        found |= {m["name"] for m in doc_screens._BLOCK.finditer((ROOT / rel).read_text(encoding="utf-8"))}
    assert found == set(doc_screens.SCREENS)
