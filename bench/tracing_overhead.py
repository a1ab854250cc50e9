"""Tracing overhead: the same workloads with no recorder, with a recorder
(``values=False``), and with value previews (``values=True``); and the
recorder-off build against a build with event emission removed.

How "emission removed" is measured
    The engine's emit sites all read ``bus.recorder`` and test it against
    ``None`` (NOTE [ Emission costs one check ] in ``tracing/bus.py``).
    ``build_without_emission`` copies the ``minigrad`` package to a temporary
    directory under another name (``minigrad_noemit``; its imports are all
    relative, so the copy is a separate, complete package) and rewrites its
    syntax tree: every read of ``bus.recorder`` becomes the constant
    ``None``, and every ``if``/conditional expression that tests ``rec`` or
    ``bus.recorder`` against ``None`` is replaced by the branch it takes
    when no recorder is active. What is left is the engine with its emit
    sites cut out at the source, loaded in the same process as the normal
    build, so the two are timed interleaved, in the same run.

Where each microsecond goes
    After the timing rows, ``tracing breakdown`` rows split one step of each
    workload by the part of minigrad that spends the time (``breakdown``): a
    cProfile of the step with no recorder and of the step recorded with
    ``values=False``, each function's own time put in a bucket by its file
    (events - with the ``*announce*`` helpers that build them -, kernel
    layer, dygraph layer, grad nodes, engine, the kernels' math,
    built-ins), each profile's shares scaled to the step's measured
    time. A row gives a bucket's microseconds per recorded step and, in its
    note, the same bucket with no recorder; the last row counts the events
    per step by kind and what the recorder costs per event. Profiling
    slows small Python functions more than NumPy calls, a kernel that is a
    NumPy ufunc counts in the function that calls it, and a garbage
    collection in the function that triggered it, so the split is an
    estimate; the timing rows above are the measurement.

Run: ``python bench/tracing_overhead.py [--quick]``.
"""

from __future__ import annotations

import ast
import cProfile
import collections
import importlib
import pstats
import os
import shutil
import sys
import tempfile
from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import numpy as np  # noqa: E402  (after _common: BLAS threads)

import minigrad as mg  # noqa: E402

NOEMIT = "minigrad_noemit"


class _StripEmission(ast.NodeTransformer):
    """``bus.recorder`` -> ``None``; ``if rec is not None: ...`` -> the branch taken without a recorder."""

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        self.generic_visit(node)
        if (isinstance(node.ctx, ast.Load) and node.attr == "recorder" and isinstance(node.value, ast.Name)
                and node.value.id == "bus"):
            return ast.copy_location(ast.Constant(None), node)
        return node

    @staticmethod
    def _no_recorder_value(test: ast.AST) -> bool | None:
        """What ``test`` evaluates to when no recorder is active, or None if it is not such a test."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))):
            return None
        left, right = test.left, test.comparators[0]
        if not (isinstance(right, ast.Constant) and right.value is None):
            return None
        if isinstance(left, ast.Name) and left.id == "rec" or isinstance(left, ast.Constant) and left.value is None:
            return isinstance(test.ops[0], ast.Is)
        return None

    def visit_If(self, node: ast.If) -> Any:
        self.generic_visit(node)
        taken = self._no_recorder_value(node.test)
        if taken is None:
            return node
        branch = node.body if taken else node.orelse
        return branch or None  # an empty branch removes the statement

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        self.generic_visit(node)
        taken = self._no_recorder_value(node.test)
        if taken is None:
            return node
        return node.body if taken else node.orelse


def build_without_emission(dst_dir: str) -> Any:
    """Import and return a copy of ``minigrad`` with its emit sites removed (see the module docstring)."""
    src = os.path.dirname(mg.__file__)
    pkg = os.path.join(dst_dir, NOEMIT)
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    stripped = 0
    for root, _dirs, files in os.walk(pkg):
        for name in files:
            if not name.endswith(".py") or root.startswith(os.path.join(pkg, "tracing")):
                continue  # the tracing package itself is kept (the recorder class, events)
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            tree = ast.parse(text)
            new = ast.fix_missing_locations(_StripEmission().visit(tree))
            out = ast.unparse(new)
            if out != ast.unparse(ast.parse(text)):
                stripped += 1
            # Functions whose whole body was an emit site need a body.
            out = _fill_empty_bodies(out)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(out)
    sys.path.insert(0, dst_dir)
    try:
        mod = importlib.import_module(NOEMIT)
    finally:
        sys.path.remove(dst_dir)
    mod._stripped_files = stripped  # type: ignore[attr-defined]
    return mod


def _fill_empty_bodies(code: str) -> str:
    tree = ast.parse(code) if code.strip() else ast.Module(body=[], type_ignores=[])
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            seq = getattr(node, field, None)
            if field == "body" and isinstance(seq, list) and not seq and not isinstance(node, ast.Module):
                seq.append(ast.Pass())
    return ast.unparse(ast.fix_missing_locations(tree))


# -- workloads, written against a module ``m`` (minigrad or its stripped copy) ----------

def workloads(m: Any, size: str) -> dict[str, Any]:
    m.manual_seed(0)
    a = m.randn(4, 4, requires_grad=True)
    b = m.randn(4, 4, requires_grad=True)
    n1 = 200 if size == "full" else 2

    def per_op() -> None:
        for _ in range(n1):
            a * b + a

    def chain() -> None:
        x = a
        for _ in range(50):
            x = x * b + a
        x.sum().backward()
        a.grad = None
        b.grad = None

    rng = np.random.default_rng(0)
    xb = m.tensor(rng.random((64, 64), dtype=np.float32))
    yb = m.tensor(rng.integers(0, 10, 64))
    model = m.nn.Sequential(m.nn.Linear(64, 128), m.nn.ReLU(), m.nn.Linear(128, 128), m.nn.ReLU(), m.nn.Linear(128, 10))
    opt = m.optim.SGD(list(model.parameters()), lr=0.01, momentum=0.9)

    def mlp() -> None:
        opt.zero_grad()
        m.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()

    return {f"per-op a*b+a x{n1}": per_op, "100-op chain fwd+bwd": chain, "MLP step (SGD)": mlp}


def run(size: str = "full") -> list[dict[str, Any]]:
    reps, number = (7, 5) if size == "full" else (2, 1)
    tmp = tempfile.mkdtemp(prefix="minigrad-noemit-")
    rows: list[dict[str, Any]] = []
    try:
        stripped = build_without_emission(tmp)
        normal = workloads(mg, size)
        bare = workloads(stripped, size)
        for name in normal:
            fn, fn_bare = normal[name], bare[name]

            def with_rec(values: bool, fn: Any = fn) -> Any:
                def go() -> None:
                    with mg.trace(values=values, max_elements=64):
                        fn()
                return go

            times = C.timeit_interleaved(
                {"off": fn, "values=False": with_rec(False), "values=True": with_rec(True), "emission removed": fn_bare},
                number=number, repeats=reps)
            off = C.median(times["off"]) * 1e3
            rows.append(C.row(f"tracing: {name}", "recorder off", off, "ms",
                              C.ratio(times["off"], times["emission removed"]), "emission removed", "<= 1.05x"))
            rows.append(C.row(f"tracing: {name}", "recorder values=False", C.median(times["values=False"]) * 1e3, "ms",
                              C.ratio(times["values=False"], times["off"]), "recorder off", "<= 2.0x"))
            rows.append(C.row(f"tracing: {name}", "recorder values=True", C.median(times["values=True"]) * 1e3, "ms",
                              C.ratio(times["values=True"], times["off"]), "recorder off", ""))
            rows.append(C.row(f"tracing: {name}", "emission removed", C.median(times["emission removed"]) * 1e3, "ms",
                              note=f"{stripped._stripped_files} engine files rewritten"))
            rows.extend(breakdown(name, fn, C.median(times["off"]), C.median(times["values=False"]), number))
    finally:
        for key in [k for k in sys.modules if k == NOEMIT or k.startswith(NOEMIT + ".")]:
            del sys.modules[key]
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


# -- where each microsecond goes ----------------------------------------------------

_PKG = os.path.dirname(mg.__file__) + os.sep
#: (bucket, files under minigrad/ whose own time goes in it), first match wins.
_BUCKETS = (
    ("events: build, stamp, previews", ("tracing/",)),
    ("kernel layer: key, selection, InferMeta", ("kernels/",)),
    ("API + dygraph layer, tensors", ("dispatch/", "ops/registry.py", "_tensor_methods", "tensor.py", "autograd_meta.py")),
    ("grad nodes, edges, TensorWrappers", ("autograd/grad_node.py", "autograd/accumulation.py",
                                           "autograd/tensor_wrapper.py")),
    ("backward engine, formulas", ("autograd/",)),
    ("kernels' math, nn, optim", ("ops/", "nn/", "optim/")),
)


def _bucket(filename: str, function: str) -> str:
    if filename == "<string>" or "announce" in function:  # the events' generated builders, the emit sites' helpers
        return _BUCKETS[0][0]
    if filename.startswith(_PKG):
        rel = filename[len(_PKG):]
        for bucket, prefixes in _BUCKETS:
            if rel.startswith(prefixes):
                return bucket
        return "other minigrad"
    return "built-ins, NumPy, the workload"  # C functions ("~"), NumPy's Python code, this script


def _profile_shares(fn: Any, runs: int) -> dict[str, float]:
    """Share of the profiled time of ``runs`` steps per bucket (own time of each function)."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(runs):
        fn()
    prof.disable()
    own: dict[str, float] = collections.defaultdict(float)
    for (filename, _line, function), (_cc, _nc, tottime, _ct, _callers) in pstats.Stats(prof).stats.items():  # type: ignore[attr-defined]
        own[_bucket(filename, function)] += tottime
    total = sum(own.values()) or 1.0
    return {k: v / total for k, v in own.items()}


def breakdown(name: str, fn: Any, off_s: float, rec_s: float, runs: int = 1) -> list[dict[str, Any]]:
    """The ``tracing breakdown`` rows of one workload (see the module docstring)."""
    def recorded() -> None:
        with mg.trace(values=False, max_elements=64):
            fn()

    fn()  # warm: the kinds of call are cached, as in the timed runs
    recorded()
    off, rec = _profile_shares(fn, runs), _profile_shares(recorded, runs)
    rows = []
    for bucket in sorted(set(off) | set(rec), key=lambda b: -rec.get(b, 0.0)):
        us_rec, us_off = rec.get(bucket, 0.0) * rec_s * 1e6, off.get(bucket, 0.0) * off_s * 1e6
        rows.append(C.row(f"tracing breakdown: {name}", bucket, us_rec, "us", None, "", "",
                          f"off: {C.fmt(us_off)} us; recorder adds {C.fmt(us_rec - us_off)} us"))
    with mg.trace(values=False, max_elements=64) as tr:
        fn()
    kinds = collections.Counter(tr.kinds())
    per_event = (rec_s - off_s) * 1e6 / max(len(tr.events), 1)
    rows.append(C.row(f"tracing breakdown: {name}", "events per step", float(len(tr.events)), "events", None, "", "",
                      f"recorder cost {C.fmt(per_event)} us per event; "
                      + ", ".join(f"{k} {n}" for k, n in kinds.most_common())))
    return rows


if __name__ == "__main__":
    C.main(run)
