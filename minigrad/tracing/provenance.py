"""Where a grad node came from: the user's source line and the ``nn.Module`` that was running.

PyTorch users turn on anomaly mode to learn which forward line made the node
that failed in backward. While a recording is active, minigrad stamps every
``node.create`` with ``source`` (``file:line`` of the first caller outside the
minigrad package) and ``module`` (the path of the ``nn.Module`` calls running
at that moment, e.g. ``Sequential.2 (Linear)``, ``Net.layers.0 (Linear)``; a block called on its own,
``model[1](x)``, starts at the model a variable of the calling code holds it in: ``Sequential.1.0 (Linear)``).
Without a recording nothing here runs: ``Module.__call__`` checks ``bus.recorder`` first.

Example:
    >>> import minigrad as mg
    >>> with mg.trace() as tr:
    ...     lin = mg.nn.Linear(2, 1)
    ...     _ = lin(mg.ones(1, 2)).sum()
    >>> [e.module for e in tr.events if e.kind == "node.create" and not e.is_accumulation][:1]
    ['Linear']
"""

from __future__ import annotations

import ast
import linecache
import os
import sys
import threading
import weakref
from typing import Any

from . import bus

__all__ = ["enter_module", "exit_module", "module_path", "user_source", "is_user_file", "name_outputs",
           "count_as_engine"]

#: Files under these folders are minigrad's own: the engine, and the viewers (``minigrad.viz``/``minigrad.tui``
#: live in ``viz/`` and ``tui/`` beside the package in a source checkout).
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OWN = (_PKG + os.sep,) + tuple(os.path.join(os.path.dirname(_PKG), d) + os.sep for d in ("viz", "tui"))
#: ...except the TUI's built-in demo: its lines are the program a person steps through, so nodes name them.
_DEMO = os.sep + os.path.join("tui", "demo.py")

_local = threading.local()


def _stack() -> list[Any]:
    stack = getattr(_local, "modules", None)
    if stack is None:
        stack = _local.modules = []
    return stack


def enter_module(module: Any) -> None:
    """``nn.Module.__call__`` starts (only while recording)."""
    stack = _stack()
    if not stack:
        _local.root = _root_name(module, sys._getframe(1))
    stack.append(module)


def exit_module() -> None:
    """``nn.Module.__call__`` ends."""
    stack = _stack()
    if stack:
        stack.pop()


def module_path() -> str | None:
    """``Net.layers.0 (Linear)``: the root module's class, then each called child's path in the module that
    called it, then the innermost class.

    A child's path is where it sits in its caller's tree of submodules, through
    containers the caller iterates without calling (``for layer in
    self.layers``: ``layers.0``, ``layers.1``), so two layers never share a path.
    """
    stack = getattr(_local, "modules", None)  # (``_stack()`` would make the list: none is needed to read it)
    if not stack:
        return None
    parts = [getattr(_local, "root", None) or type(stack[0]).__name__]
    for parent, child in zip(stack, stack[1:]):
        parts.append(_child_path(parent, child))
    path = ".".join(parts)
    return path if path == type(stack[-1]).__name__ else f"{path} ({type(stack[-1]).__name__})"


#: ``(id(parent), id(child)) -> "layers.0"``; each hit is checked against the live modules (ids are reused).
_paths: dict[tuple[int, int], str] = {}


def _child_path(parent: Any, child: Any) -> str:
    """Dotted path of ``child`` among ``parent``'s submodules (breadth-first: the shortest), else its class name."""
    return _find_path(parent, child) or type(child).__name__


def _find_path(parent: Any, child: Any) -> str | None:
    """Dotted path of ``child`` among ``parent``'s submodules (breadth-first: the shortest); ``None``: not one."""
    key = (id(parent), id(child))
    cached = _paths.get(key)
    if cached is not None and _resolve(parent, cached) is child:
        return cached
    found = None
    work: list[tuple[str, Any]] = [("", parent)]
    seen = {id(parent)}
    while work and found is None:
        prefix, mod = work.pop(0)
        for name, sub in (getattr(mod, "_modules", None) or {}).items():
            if sub is None or id(sub) in seen:
                continue
            seen.add(id(sub))
            if sub is child:
                found = prefix + str(name)
                break
            work.append((prefix + str(name) + ".", sub))
    if found is None:
        return None
    if len(_paths) >= _MAX_SOURCES:
        _paths.clear()
    _paths[key] = found
    return found


#: ``id(module) -> (its weak reference, the name _root_name gave it)``, checked against the live module.
_roots: dict[int, tuple[Any, str]] = {}


def _root_name(module: Any, frame: Any) -> str:
    """The name of a module called from outside any module: ``Sequential.1`` when it is child ``1`` of a
    ``Sequential`` the calling code holds in a variable (``model[1](x)``, ``checkpoint(model[1], h)``), else its
    class name.

    So two blocks of one model called one by one keep apart in ``module`` paths
    (``Sequential.0.1 (Tanh)``, ``Sequential.1.1 (GELU)``), each spelled after
    the model's class as ``print(model)`` spells it below that. The owner is
    the largest module found in the calling frames' variables that holds
    ``module``; the answer is kept per module.
    """
    cached = _roots.get(id(module))
    if cached is not None and cached[0]() is module:
        return cached[1]
    # nn.Module, found from the module itself (this layer does not import nn); the type test never runs user code.
    base = next((c for c in type(module).__mro__ if c.__name__ == "Module" and c.__module__.startswith("minigrad.")),
                type(module))
    best: tuple[int, str] | None = None
    while frame is not None:
        try:
            values = list(frame.f_locals.values())
        except Exception:  # noqa: BLE001 - an odd frame (a C extension's locals) names no owner
            values = []
        for value in values:
            if value is module or not issubclass(type(value), base):
                continue
            path = _find_path(value, module)
            if path is not None and (best is None or path.count(".") + 1 > best[0]):
                best = (path.count(".") + 1, f"{type(value).__name__}.{path}")
        frame = frame.f_back
    name = best[1] if best is not None else type(module).__name__
    try:
        ref = weakref.ref(module)
    except TypeError:
        return name
    if len(_roots) >= _MAX_SOURCES:
        _roots.clear()
    _roots[id(module)] = (ref, name)
    return name


def _resolve(parent: Any, path: str) -> Any:
    mod = parent
    for part in path.split("."):
        mod = (getattr(mod, "_modules", None) or {}).get(part)
        if mod is None:
            return None
    return mod


#: Whether a code object's file is minigrad's own (or frozen), by file name: ``os.path.abspath``
#: costs ~5 us and every recorded node walks several frames of minigrad's own code.
_is_own: dict[str, bool] = {}
#: ``file:line`` by (code object, instruction offset, file name) of the user's frame: a recording makes
#: many nodes from the same few lines, and the line number is computed from the code's line table.
_sources: dict[tuple[Any, int], str] = {}
_MAX_SOURCES = 4096


def count_as_engine(filename: str) -> None:
    """Count code in ``filename`` as minigrad's own: a lesson's student copy of an engine module, patched
    into the engine, makes nodes, names and errors as the engine's own code does (its lines are not the
    program's lines the recording points at)."""
    _is_own[filename] = True
    _verdicts.clear()  # judged before as the user's


def is_user_file(filename: str) -> bool:
    """Whether code in ``filename`` is the user's: not minigrad's own (the engine, the viewers, the
    ``minigrad`` command), not frozen, not ``runpy``."""
    skip = _is_own.get(filename)
    if skip is None:
        path = os.path.abspath(filename)
        skip = (path.startswith(_OWN) and not path.endswith(_DEMO)) or filename.startswith("<frozen")
    return not skip and os.path.basename(filename) != "runpy.py"


def user_source() -> str | None:
    """``file:line`` of the innermost frame outside the minigrad package (the user's call)."""
    frame = sys._getframe(1)
    own = _is_own
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        skip = own.get(filename)
        if skip is None:
            # abspath depends on the working directory for a relative name: cache absolute names only.
            path = os.path.abspath(filename)
            skip = (path.startswith(_OWN) and not path.endswith(_DEMO)) or filename.startswith("<frozen")
            if os.path.isabs(filename) or filename.startswith("<"):
                own[filename] = skip
        if not skip:
            where = (code, frame.f_lasti, filename)  # code objects compare equal across files: the name too
            source = _sources.get(where)
            if source is None:
                if len(_sources) >= _MAX_SOURCES:
                    _sources.clear()
                source = _sources[where] = f"{filename}:{frame.f_lineno}"
            return source
        frame = frame.f_back
    return None


# NOTE [ A tensor is named after the variable the student assigns it to ]
#     While recording, an op's outputs (and a created tensor) without a ``name=`` take the name the
#     user's source line gives them: made on ``h = x * 2``, the tensor is ``h``. The rule, stated once
#     (docs/tui.md, "Names", says it for students):
#
#     * the tensor must be the value the line assigns, reached through returns only: the op was the
#       line's whole right-hand side (``h = x * 2``, ``h = mg.exp(x * 2)``: ``h`` is exp's output, the
#       inner ``x * 2`` stays ``t<id>``), or a function that returns its result directly
#       (``return F.linear(x, w)``, ``return x.exp() if c else y``) was;
#     * the targets: ``h = ...``, ``h: Tensor = ...``, ``(h := ...)``, ``self.h = ...`` (``self.h``);
#       ``a = b = ...`` takes the first, ``a``; ``a, b = x.max(0)`` names an op's outputs in order when
#       their counts agree; one name for several outputs gives ``out[0]``, ``out[1]``;
#     * anything else keeps ``t<id>``: no assignment (``h.sum().backward()``), a result a function
#       builds in steps (``out = a @ b; return out + c``), subscripts and starred targets; and an
#       in-place change (``h += 1``, ``h[1].mul_(3)``) keeps the tensor, so it keeps its name.
#
#     The line is found from each frame's current instruction (its source span, Python 3.11's
#     ``co_positions``) and the file's syntax tree, parsed once per file; each (code, instruction)
#     is judged once. With no recorder nothing here runs: the op's error messages then say ``t<id>``.

#: filename -> {(line, end line, col, end col) of a value: target names, or _RETURN for a returned value}
_spans: dict[str, dict[tuple[int, int, int, int], Any]] = {}
#: (code, instruction offset, file name) -> the target names of that call's result, _RETURN, or None
_verdicts: dict[tuple[Any, int], Any] = {}
_RETURN = "return"
_MISSING = object()


def name_outputs(outs: Any) -> None:
    """Give each of ``outs`` (the tensors an op or a creation function is about to return; they have no
    name yet unless ``name=`` gave one) the name its assignment on the user's line gives it (NOTE above).
    Called by the function returning them, while recording (a profile names nothing: it keeps no tensor)."""
    rec = bus.recorder
    if rec is None or rec.ranges:
        return
    frame = sys._getframe(2)  # the caller of the function that returns ``outs``
    while frame is not None:
        key = (frame.f_code, frame.f_lasti, frame.f_code.co_filename)  # (equal code in two files: two keys)
        verdict = _verdicts.get(key, _MISSING)
        if verdict is _MISSING:
            if len(_verdicts) >= _MAX_SOURCES:
                _verdicts.clear()
            verdict = _verdicts[key] = _verdict(frame.f_code, frame.f_lasti)
        if verdict is None:
            return
        if verdict is not _RETURN:
            _assign(outs, verdict)
            return
        frame = frame.f_back


def _assign(outs: Any, names: tuple[Any, ...]) -> None:
    count = len(outs)
    for k, t in enumerate(outs):
        if t._name is not None:
            continue
        if len(names) == 1 and isinstance(names[0], str):
            t._name = names[0] if count == 1 else f"{names[0]}[{k}]"
        elif len(names) == 1 and isinstance(names[0], tuple) and len(names[0]) == count:
            t._name = names[0][k]


def _verdict(code: Any, lasti: int) -> Any:
    """What the instruction at ``lasti`` of ``code`` does with the value it computes: assigns it
    (the target names, in the user's code only), returns it (``_RETURN``), or neither (None)."""
    try:
        span = list(code.co_positions())[lasti // 2]
    except (IndexError, ValueError):
        return None
    if None in span:
        return None
    spans = _spans.get(code.co_filename)
    if spans is None:
        if len(_spans) >= _MAX_SOURCES:
            _spans.clear()
        spans = _spans[code.co_filename] = _file_spans(code.co_filename)
    found = spans.get(span)
    if found is None or found is _RETURN:
        return found
    return found if is_user_file(code.co_filename) else None


def _file_spans(filename: str) -> dict[tuple[int, int, int, int], Any]:
    """Every assigned and every returned value of the file's source, by its span."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    out: dict[tuple[int, int, int, int], Any] = {}

    def mark(value: ast.AST | None, what: Any) -> None:
        while isinstance(value, ast.NamedExpr):
            value = value.value
        if isinstance(value, ast.IfExp):  # either branch is the value
            mark(value.body, what)
            mark(value.orelse, what)
        elif value is not None:
            out.setdefault((value.lineno, value.end_lineno, value.col_offset, value.end_col_offset), what)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            mark(node.value, (_target(node.targets[0]),))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            mark(node.value, (_target(node.target),))
        elif isinstance(node, ast.NamedExpr):
            mark(node.value, (_target(node.target),))
        elif isinstance(node, ast.Return):
            mark(node.value, _RETURN)
        elif isinstance(node, ast.Lambda):
            mark(node.body, _RETURN)
    return {k: v for k, v in out.items() if v is _RETURN or v[0] is not None}


def _target(node: ast.AST) -> Any:
    """``h`` -> "h", ``self.h`` -> "self.h", ``a, b`` -> ("a", "b"); anything else -> None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _target(node.value)
        return f"{base}.{node.attr}" if isinstance(base, str) else None
    if isinstance(node, (ast.Tuple, ast.List)):
        names = tuple(_target(e) if not isinstance(e, ast.Starred) else None for e in node.elts)
        return names if all(isinstance(n, str) for n in names) else None
    return None
