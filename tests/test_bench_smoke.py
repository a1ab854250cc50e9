"""Each benchmark script runs once at its tiny size and returns well-formed rows.

These prove the benchmarks work; they time nothing (the numbers live in
``bench/RESULTS.md``, written by ``make bench``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
sys.path.insert(0, BENCH)

SCRIPTS = ["per_op", "deep_chain", "matmul", "mlp", "tracing_overhead", "viewers", "makemore"]
FIELDS = {"workload", "variant", "value", "unit", "ratio", "vs", "target", "note"}


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs_at_small_size(name: str) -> None:
    mod = importlib.import_module(name)
    rows = mod.run("small")
    assert rows, f"{name}.run() returned no rows"
    for r in rows:
        assert set(r) == FIELDS
        for key in ("value", "ratio"):
            v = r[key]
            assert v is None or (isinstance(v, float) and math.isfinite(v) and v >= 0), (name, r)
    measured = [r for r in rows if r["variant"] in ("minigrad", "recorder off") and r["value"] is not None]
    assert measured, f"{name}: no minigrad measurement"


def test_deep_chain_reports_errors_instead_of_crashing() -> None:
    mod = importlib.import_module("deep_chain")
    r = mod.measure("no-such-framework", 10)
    assert "error" not in r or isinstance(r["error"], str)


def test_emission_removed_build_computes_the_same_gradients(tmp_path) -> None:
    import minigrad as mg

    mod = importlib.import_module("tracing_overhead")
    stripped = mod.build_without_emission(str(tmp_path))
    try:
        assert stripped._stripped_files > 0
        grads = []
        for m in (mg, stripped):
            a = m.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
            b = m.tensor([[0.5, -2.0], [1.5, 1.0]], requires_grad=True)
            ((a * b + a).tanh() @ b).sum().backward()
            grads.append((a.grad.numpy(), b.grad.numpy()))
        np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-6)
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-6)
        # The stripped copy records nothing even inside a trace: its emit sites are gone.
        with stripped.trace() as tr:
            stripped.tensor([1.0], requires_grad=True) * 2
        assert len(tr.events) == 0
    finally:
        for key in [k for k in sys.modules if k.startswith(mod.NOEMIT)]:
            del sys.modules[key]


def test_run_all_writes_results(tmp_path) -> None:
    out = tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [sys.executable, os.path.join(BENCH, "run_all.py"), "--quick", "--only", "per_op", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "SMALL smoke sizes" in text
    assert "| numpy |" in text and "per-op c = a*b + a" in text
    assert "<!-- analysis -->" in text
    # Both sides on one BLAS thread, and the file says so.
    assert "OPENBLAS_NUM_THREADS=1" in text and "set_num_threads(1)" in text
    blas = next(line for line in text.splitlines() if line.startswith("| BLAS threads |"))
    assert blas.split("|")[2].strip().startswith("1 "), blas
    assert not [line for line in proc.stdout.splitlines() if line.startswith("installing")]
    for module in ("torch", "micrograd"):
        if importlib.util.find_spec(module) is None:
            assert f"{module} is not installed" in text and "make bench" in text


def _scripts() -> list[str]:
    return sorted(f for f in os.listdir(BENCH) if f.endswith(".py") and not f.startswith("_"))


@pytest.mark.parametrize("script", _scripts())
def test_every_script_has_help_and_quick(script: str) -> None:
    """``--help`` explains the script and runs nothing; ``--quick`` is offered everywhere."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, script), "--help"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: python bench/{script}"), proc.stdout[:200]
    assert "--quick" in proc.stdout
    with open(os.path.join(BENCH, script), encoding="utf-8") as fh:
        doc = ast.get_docstring(ast.parse(fh.read()))
    assert doc.splitlines()[0] in proc.stdout  # what it measures ...
    assert "| workload |" not in proc.stdout and "Device:" not in proc.stdout  # ... and nothing ran


def test_scripts_install_nothing() -> None:
    """Installing the references is ``make bench``'s job, never a script's (they may run in any Python)."""
    for script in sorted(f for f in os.listdir(BENCH) if f.endswith(".py")):
        with open(os.path.join(BENCH, script), encoding="utf-8") as fh:
            code = fh.read()
        assert '"pip"' not in code and "ensurepip" not in code, f"bench/{script} runs pip"
    with open(os.path.join(os.path.dirname(BENCH), "Makefile"), encoding="utf-8") as fh:
        make = fh.read()
    bench_target = make[make.index("\nbench:"):].split("\n\n")[0]
    assert "pip install" in bench_target and "torch==2.13.0" in bench_target and "micrograd" in bench_target


def test_blas_is_pinned_to_one_thread() -> None:
    import _common as C

    for var in C.BLAS_THREAD_VARS:
        assert os.environ[var] == "1", var
    in_force = C.pin_blas()
    assert in_force.startswith("1 "), in_force


def test_per_op_has_the_issue_rows_and_targets() -> None:
    """a+b and a*b forward rows next to c = a*b + a, and the GC-tracked objects per op (target <= 6)."""
    rows = importlib.import_module("per_op").run("small")
    targets = {(r["workload"], r["variant"]): r["target"] for r in rows}
    for wl in ("per-op a+b (4x4 float32, grad, forward)", "per-op a*b (4x4 float32, grad, forward)",
               "per-op c = a*b + a (4x4, 2 ops)"):
        assert (wl, "minigrad") in targets
    gc_row = next(r for r in rows if r["workload"].startswith("GC-tracked objects per op") and r["variant"] == "minigrad")
    assert gc_row["target"] == "<= 6" and gc_row["value"] >= 1.0  # at least the output tensor survives


def test_gc_tracked_per_op_counts_what_stays_alive() -> None:
    mod = importlib.import_module("per_op")
    # (The interpreter may allocate a tracked object or two of its own while the loop runs.)
    assert mod.gc_tracked_per_op(lambda: [[], []], n=200) == pytest.approx(3.0, abs=0.05)  # three lists per call
    assert mod.gc_tracked_per_op(lambda: 1.5, n=200) == pytest.approx(0.0, abs=0.05)  # floats are not tracked


def test_deep_chain_ratios_are_medians_of_same_round_ratios() -> None:
    mod = importlib.import_module("deep_chain")
    mine = [{"fw": "minigrad", "n": 10, "fwd_s": f, "bwd_s": b, "peak_bytes": m, "grad_ok": True}
            for f, b, m in ((2.0, 1.0, 300), (4.0, 3.0, 200), (3.0, 1.0, 100))]
    ref = [{"fw": "pytorch", "n": 10, "fwd_s": f, "bwd_s": b, "peak_bytes": m, "grad_ok": True}
           for f, b, m in ((1.0, 1.0, 100), (1.0, 1.0, 100), (3.0, 1.0, 100))]
    assert mod._ratio(mine, ref, lambda r: r["fwd_s"]) == 2.0  # per round 2, 4, 1
    assert mod._ratio(mine, ref, lambda r: r["fwd_s"] + r["bwd_s"]) == 1.5  # 3/2, 7/2, 4/4
    s = mod._summary(mine)
    assert (s["fwd_s"], s["bwd_s"], s["peak_bytes"], s["total_s"]) == (3.0, 1.0, 200, 4.0)
    assert mod._summary(mine + [{"fw": "minigrad", "n": 10, "error": "boom"}])["error"] == "boom"
    assert mod._rounds("full", 100_000) == 3 and mod._rounds("full", 1_000_000) == 1 and mod._rounds("small", 50) == 1


def test_gpu_ab_compares_a_tree_with_the_checkout_by_the_stand_ins_counts() -> None:
    """``bench/gpu_ab.py BASE --quick``: the stand-in's launches, copies and syncs per steady training step for
    BASE's minigrad and the checkout's, side by side (BASE here is the checkout itself: every pair equal)."""
    root = os.path.dirname(BENCH)
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "gpu_ab.py"), root, "--quick"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ") and " / " in line
            and not line.startswith("| model")]
    assert any(r.startswith("| char GPT 2x64") for r in rows) and any(r.startswith("| MLP") for r in rows), proc.stdout
    for r in rows:
        for cell in r.strip("|").split("|")[1:]:
            before, after = (float(x) for x in cell.split(" / "))
            assert before == after, r


def test_gpu_ab_summarises_each_sides_runs_by_their_medians() -> None:
    """On a GPU each side runs in turns; a row shows the median of each side's ratios and times."""
    import gpu_ab

    def run(ours: float, torch: float) -> dict:
        return {"device": "x", "train": [{"model": "MLP", "ours_ms": ours, "torch_ms": torch, "ratio": ours / torch}],
                "host": [{"op": "`a * b`", "ours_us": ours * 10, "torch_us": torch * 10, "ratio": ours / torch}]}

    text = gpu_ab.summary({"before": [run(3.0, 1.0), run(4.0, 1.0), run(9.0, 1.0)],
                           "after": [run(2.0, 1.0), run(2.4, 1.2), run(2.2, 1.1)]})
    assert "| MLP | 4.00x | 2.00x | 4.00 | 2.20 | 1.10 |" in text, text
    assert "| `a * b` | 4.00x | 2.00x | 40.00 | 22.00 | 11.00 |" in text, text
