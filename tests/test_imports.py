"""`import minigrad` must not import the viewers' or the GPU's libraries."""

from __future__ import annotations

import subprocess
import sys


def test_import_minigrad_leaves_optional_libraries_out():
    code = (
        "import sys, minigrad\n"
        "heavy = [m for m in ('textual', 'graphviz', 'rich', 'cupy') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import minigrad pulled in: {out.stdout.strip()}"


def test_engine_never_imports_viewers():
    code = (
        "import sys, minigrad as mg\n"
        "x = mg.tensor([1.0, 2.0], requires_grad=True)\n"
        "with mg.trace() as tr:\n"
        "    (x * x).sum().backward()\n"
        "tr.replay()[-1]\n"
        "print(','.join(m for m in ('minigrad.viz', 'minigrad.tui', 'textual', 'graphviz', 'rich') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
