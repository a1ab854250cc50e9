"""Each benchmark script runs once at its tiny size and returns well-formed rows.

These prove the benchmarks work; they time nothing (the numbers live in
``bench/RESULTS.md``, written by ``make bench``).
"""

from __future__ import annotations

import importlib
import math
import os
import subprocess
import sys

import numpy as np
import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
sys.path.insert(0, BENCH)

SCRIPTS = ["per_op", "deep_chain", "matmul", "mlp", "tracing_overhead", "viewers"]
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
        [sys.executable, os.path.join(BENCH, "run_all.py"), "--small", "--no-install", "--only", "per_op", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "SMALL smoke sizes" in text
    assert "| numpy |" in text and "per-op c = a*b + a" in text
    assert "<!-- analysis -->" in text
