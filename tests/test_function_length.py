"""The engine, the dispatch layer and the kernel layer read in named steps (docs/architecture.md): no function
there over 60 lines.

A function's length is counted from its ``def`` line (decorators included)
to its last line, docstring and comments included: what a reader scrolls
through. ``run_backward`` calls one function per step of the seed's
``RunBackward``; the dispatch layer one per step of the dygraph function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import minigrad

ROOT = Path(minigrad.__file__).resolve().parent
# (``dispatch/`` with its generated functions, the kernel layer's steps, the backward engine)
FILES = sorted((ROOT / "dispatch").rglob("*.py")) + [ROOT / "kernels" / "api.py", ROOT / "autograd" / "engine.py"]
LIMIT = 60


def function_lengths(path: Path) -> dict[str, int]:
    """``qualified name -> lines`` for every function and method in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out[prefix + child.name] = child.end_lineno - first + 1
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_is_longer_than_the_limit(path: Path) -> None:
    too_long = {name: n for name, n in function_lengths(path).items() if n > LIMIT}
    assert not too_long, f"{path.name}: functions over {LIMIT} lines: {too_long}"


def test_the_measure_sees_a_long_function(tmp_path: Path) -> None:
    src = tmp_path / "long.py"
    src.write_text("def f():\n" + "    x = 1\n" * 70 + "\n\nclass C:\n    def g(self):\n        return 1\n")
    lengths = function_lengths(src)
    assert lengths["f"] == 71 and lengths["C.g"] == 2
