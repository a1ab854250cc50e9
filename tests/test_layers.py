"""The engine's layers import one way (docs/architecture.md, Layout, "Inside the engine, layers import downward only").

The test reads every module of ``minigrad/`` with ``ast`` (nothing is
imported) and checks three things:

1. no function-level import of a minigrad module, except the lazy entry
   points the design allows: the viewers (``minigrad.viz``, ``minigrad.tui``)
   and the GPU kernel modules, which import CuPy at their top and are loaded
   on the GPU's first use (``kernels/gpu/__init__.py``). Optional third-party
   packages (cupy, graphviz, rich, textual, torch) may be imported lazily too;
   they are not minigrad modules, so this test does not look at them;
2. no import cycle between modules at module level (importing a submodule
   also runs its parent packages' ``__init__``, so those count as edges);
3. every module-level import goes to the module's own layer or a lower one.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "minigrad"

#: Lowest first. A module belongs to the first layer with a matching prefix.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("minigrad.tracing", "minigrad.dtypes", "minigrad.flags", "minigrad.grad_state", "minigrad.printing", "minigrad.devices",
              "minigrad._host_memory", "minigrad.size", "minigrad.errors", "minigrad.fma")),
    ("tensor", ("minigrad.tensor", "minigrad.autograd_meta", "minigrad.creation", "minigrad.random", "minigrad.ranges")),
    ("autograd", ("minigrad.autograd",)),
    ("kernels", ("minigrad.kernels",)),
    ("dispatch", ("minigrad.dispatch",)),
    ("ops", ("minigrad.ops",)),
    ("api", ("minigrad._tensor_methods", "minigrad.nn", "minigrad.optim", "minigrad", "minigrad.tensor_types",
             "minigrad.backends", "minigrad.compiler",
             # PyTorch's names under autograd, written with ops and mg.grad:
             "minigrad.autograd.functional", "minigrad.autograd.gradcheck", "minigrad.autograd.profiler")),
    ("tools", ("minigrad.cli", "minigrad.lessons_cli", "minigrad.coursework", "minigrad._lesson_conftest")),
]

#: Function-level imports the design allows: (importing module, imported module prefix).
LAZY_OK: tuple[tuple[str, str], ...] = (
    ("*", "minigrad.viz"),
    ("*", "minigrad.tui"),
    ("minigrad.kernels.gpu", "minigrad.kernels.gpu."),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _layer(mod: str) -> int:
    best, best_len = None, -1
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (mod == prefix or mod.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    assert best is not None, f"{mod} is in no layer: add it to LAYERS in {__file__}"
    return best


def _targets(mod: str, node: ast.Import | ast.ImportFrom, is_pkg: bool) -> list[str]:
    """The minigrad modules an import statement names (``from a import b``: ``a.b`` if a module, else ``a``)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = mod.split(".") if is_pkg else mod.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES or a.name in ("viz", "tui") else prefix
                 for a in node.names]
    return [n for n in names if n == "minigrad" or n.startswith("minigrad.")]


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _scan() -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """Module-level import edges, and every function-level import of a minigrad module."""
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    lazy: list[tuple[str, int, str]] = []
    for mod, path in MODULES.items():
        is_pkg = path.name == "__init__.py"

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if _is_type_checking(child):
                    continue
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    visit(child, True)
                    continue
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(mod, child, is_pkg):
                        if in_function:
                            lazy.append((mod, child.lineno, target))
                        else:
                            edges[mod].add(target)
                visit(child, in_function)

        visit(ast.parse(path.read_text(encoding="utf-8")), False)
    # Importing a.b.c runs a.b's __init__ first (the root package ``minigrad`` is always loaded first).
    for mod, targets in edges.items():
        for target in list(targets):
            parts = target.split(".")
            for i in range(2, len(parts)):
                parent = ".".join(parts[:i])
                if parent in MODULES and parent != mod and not mod.startswith(parent + "."):
                    targets.add(parent)
        targets.discard(mod)
    return edges, lazy


def _lazy_allowed(mod: str, target: str) -> bool:
    return any((who in ("*", mod)) and (target == what or target.startswith(what)) for who, what in LAZY_OK)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(t for t in edges[root] if t in edges)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(t for t in edges[w] if t in edges))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_function_level_imports_of_minigrad_modules() -> None:
    _, lazy = _scan()
    bad = [f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {t}" for m, line, t in lazy if not _lazy_allowed(m, t)]
    assert not bad, "function-level imports hide layering mistakes; move the code to its layer:\n" + "\n".join(bad)


def test_no_module_level_import_cycles() -> None:
    edges, _ = _scan()
    cycles = _cycles(edges)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_imports_go_down_the_layers() -> None:
    edges, _ = _scan()
    bad = []
    for mod, targets in edges.items():
        for target in targets:
            if target in MODULES and _layer(target) > _layer(mod):
                bad.append(f"{mod} ({LAYERS[_layer(mod)][0]}) imports {target} ({LAYERS[_layer(target)][0]})")
    assert not bad, "upward imports:\n" + "\n".join(sorted(bad))


def test_the_scanner_sees_what_it_must_reject() -> None:
    """The checks above are only as good as the scanner: it must find lazy imports, cycles and upward edges."""
    tree = ast.parse("def f():\n    from .ops import add\n")
    node = tree.body[0].body[0]  # type: ignore[attr-defined]
    assert _targets("minigrad.tensor", node, False) == ["minigrad.ops"]
    assert not _lazy_allowed("minigrad.tensor", "minigrad.ops")
    assert _lazy_allowed("minigrad.cli", "minigrad.viz.describe")
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert _layer("minigrad.ops.math") > _layer("minigrad.dispatch.dygraph") > _layer("minigrad.kernels.api")
    assert _layer("minigrad.kernels.api") > _layer("minigrad.autograd.engine") > _layer("minigrad.tensor")
