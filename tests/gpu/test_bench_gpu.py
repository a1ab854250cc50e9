"""bench/gpu_kernels.py: the report format always; a tiny real run where a GPU exists."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gpu_kernels.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gpu_kernels_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(**kw):
    row = {"kernel": "exp", "kind": "elementwise", "dtype": "float32", "n": 16 << 20, "ours_ms": 1.0, "cupy_ms": 0.9,
           "torch_ms": math.nan, "ratio_cupy": 0.9, "ratio_torch": math.nan, "gbs": 2500.0, "peak_frac": 0.75}
    row.update(kw)
    return row


def test_markdown_marks_targets_and_section_is_replaced(tmp_path):
    g = _bench()
    assert g.parse_size("16M") == 16 << 20 and g.parse_size("1024") == 1024
    md = g.to_markdown("TestGPU", 3350.0, [_row(), _row(kernel="sum", kind="reduction", ratio_cupy=0.5)],
                       [{"n": 128, "tiled_tflops": 1.0, "cublas_tflops": 10.0, "ratio": 0.1}])
    assert "Device: **TestGPU**" in md
    lines = [ln for ln in md.splitlines() if ln.startswith("| exp") or ln.startswith("| sum")]
    assert "kernel % of peak" in md
    assert lines[0].endswith("| met |") and lines[1].endswith("| missed |")
    path = tmp_path / "RESULTS.md"
    path.write_text("# Benchmarks\n\nCPU section stays.\n")
    g.write_results(path, md)
    g.write_results(path, md.replace("TestGPU", "OtherGPU"))
    text = path.read_text()
    assert "CPU section stays." in text and text.count(g.BEGIN) == 1 and "OtherGPU" in text and "TestGPU" not in text


@pytest.mark.gpu
def test_tiny_run_on_the_gpu(tmp_path, capsys):
    g = _bench()
    out = tmp_path / "RESULTS.md"
    assert g.main(["--sizes", "65536", "--repeat", "2", "--dtypes", "float32", "--results", str(out)]) == 0
    text = out.read_text()
    assert "| exp | float32 | 65536 |" in text and "| 128 |" in text


def test_stand_in_counts_a_steady_step_of_each_model():
    """``--stand-in`` counts copies, syncs and launches without a GPU (a subprocess: it installs the stand-in)."""
    import json
    import subprocess
    import sys

    r = subprocess.run([sys.executable, str(BENCH), "--stand-in", "--quick", "--json"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = {row["model"]: row for row in json.loads(r.stdout.strip().splitlines()[-1])}
    assert any(name.startswith("char GPT 2x64") for name in rows) and len(rows) == 7
    assert any(name.startswith("nanoGPT-style 2x64, dropout") for name in rows)
    assert any(name.startswith("makemore MLP") for name in rows) and any(name.startswith("small ResNet") for name in rows)
    for name, row in rows.items():  # (the GradScaler's step too: its fused AdamW reads the inf flag on the device)
        assert (row["h2d"], row["d2h"], row["syncs"]) == (0, 0, 0), (name, row)
        assert row["launches"] > 10, (name, row)
    g = _bench()
    md = g.to_markdown("TestGPU", 3350.0, [], [], {"train": [
        {"model": "m", "ours_ms": 2.0, "ours_direct_ms": 3.0, "torch_ms": 1.0, **rows[next(iter(rows))]}]})
    assert "| 0 / 0 | 0 |" in md


def test_stand_in_times_minigrads_own_host_work_per_op():
    """``--stand-in`` also times the per-op host work (``a * b``, ``a * b + 1.0``, ``a.t() * b``) with the
    stand-in's kernels made no-ops: minigrad's Python without CuPy's costs (a subprocess: it installs the stand-in)."""
    import subprocess
    import sys

    code = (f"import runpy; g = runpy.run_path({str(BENCH)!r}); g['install_stand_in'](); "
            "rows = g['stand_in_host_per_op'](); print([(r['op'], r['ours_us'] > 0) for r in rows])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                       cwd=str(BENCH.parents[1]))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "[('a * b', True), ('a * b + 1.0', True), ('a.t() * b', True)]" in r.stdout


def test_parts_pick_what_to_measure_and_refuse_an_unknown_one(capsys):
    g = _bench()
    assert g.PARTS == ("kernels", "matmul", "conv", "train", "host")
    with pytest.raises(SystemExit):
        g.main(["--parts", "train,warp"])
    assert "unknown --parts ['warp']" in capsys.readouterr().err


def test_host_profile_runs_on_the_stand_in():
    """``bench/host_profile.py --stand-in``: the per-call time and the profiler's table, for the cases asked."""
    import subprocess
    import sys

    script = BENCH.parent / "host_profile.py"
    r = subprocess.run([sys.executable, str(script), "--stand-in", "--calls", "20", "--top", "5", "--only",
                        "a * b,a.t()"], capture_output=True, text=True, timeout=300, cwd=BENCH.parents[1])
    assert r.returncode == 0, r.stderr[-3000:]
    heads = [line for line in r.stdout.splitlines() if line.startswith("## ")]
    assert [h.split(":")[0] for h in heads] == ["## a * b", "## a.t()"] and all(" us" in h for h in heads)
    assert "mul_dygraph_function" in r.stdout and "ncalls" in r.stdout


def test_gemm_host_runs_on_the_stand_in():
    """``bench/gemm_host.py --stand-in``: every product checked against ``cupy.matmul``, one row each."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, str(BENCH.parent / "gemm_host.py"), "--stand-in", "--calls", "2"],
                       capture_output=True, text=True, timeout=300, cwd=BENCH.parents[1])
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 5 and all(row.endswith("| - |") for row in rows), r.stdout


def test_rounds_report_the_median_ratio_and_each_rounds():
    """``--rounds``: minigrad and PyTorch timed in turn; the median of the rounds' ratios is the one reported,
    each round's beside it (a machine that slows down between rounds moves both sides of a round's ratio)."""
    g = _bench()
    row = {"model": "m", "ours_direct_ms": math.nan}
    g._rounds(row, "ours_ms", "torch_ms", [(3.0, 1.0), (2.0, 2.0), (9.0, 4.0)])
    assert row["ours_ms"] == 3.0 and row["torch_ms"] == 2.0 and row["ratio"] == 2.25
    assert row["ratios"] == [3.0, 1.0, 2.25]
    host = {"op": "a * b"}
    g._rounds(host, "ours_us", "torch_us", [(20.0, 10.0), (30.0, 10.0)])
    md = g.to_markdown("TestGPU", 3350.0, [], [], {"train": [row], "host": [host]})
    assert "| m | 3.00 | - | 2.00 | 2.2x (rounds: 3.0x, 1.0x, 2.2x) |" in md
    assert "| `a * b` | 25.0 | 10.0 | 2.50x (rounds: 2.00x, 3.00x) |" in md
    alone = {"op": "a * b"}
    g._rounds(alone, "ours_us", "torch_us", [(20.0, math.nan)])
    assert alone == {"op": "a * b", "ours_us": 20.0}


def test_host_profile_times_each_step_of_a_call_on_the_stand_in():
    """``bench/host_profile.py --steps``: CuPy's costs and minigrad's layers of one call, each timed alone."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, str(BENCH.parent / "host_profile.py"), "--stand-in", "--steps", "--calls", "5"],
                       capture_output=True, text=True, timeout=300, cwd=BENCH.parents[1])
    assert r.returncode == 0, r.stderr[-3000:]
    names = [line.split(" us  ", 1)[1] for line in r.stdout.splitlines() if " us  " in line]
    assert names[0] == "raw launch: mul of (64, 64), its 3 arrays and n" and "gemm.matmul (64, 64) @ (64, 64)" in names
    assert "cupy.ndarray((64, 64), float32)" in names and "... + create_grad_node" in names
    assert {"cublas sgemm alone, (256, 784) @ (784, 512)", "tiled matmul kernel (256, 784) @ (784, 512)"} <= set(names)
    assert names[-1] == "a * b + 1.0" and len(names) == 31


def test_host_profile_lists_the_kernels_of_a_call_on_the_stand_in():
    """``bench/host_profile.py --launches``: host, synced and device time of a call, then its kernels replayed alone."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, str(BENCH.parent / "host_profile.py"), "--stand-in", "--launches", "--only",
                        "a * b + 1.0"], capture_output=True, text=True, timeout=300, cwd=BENCH.parents[1])
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines[0] == "## a * b + 1.0" and lines[1].startswith("host ") and "device (queued)" in lines[1]
    assert lines[2].startswith("2 hand-written launches")
    assert sorted(line.split()[2] for line in lines[3:5]) == ["mg_ew_add_f32_scalar1", "mg_ew_mul_f32_vec"]
