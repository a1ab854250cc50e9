"""Benchmark minigrad's hand-written CUDA kernels against CuPy's built-ins (and PyTorch CUDA when present).

For each kernel and size (1M-64M elements by default) it measures, in the
same run and on the same arrays:

- minigrad's kernel (the registered GPU kernel function, called on CuPy arrays);
- CuPy's own implementation of the op, and ``torch`` on CUDA if installed;
- the ratio minigrad / CuPy in throughput (> 1 is faster than CuPy);
- the achieved memory bandwidth (bytes read + written / time) as a
  fraction of the device's peak.

The issue's targets for the elementwise and reduction kernels: at least
0.8x CuPy's throughput at 16M elements and at least 70% of peak bandwidth.
Matmul is compute-bound and reported in TFLOP/s instead (tiled kernel vs
cuBLAS, the GPUDNN variant).

Usage::

    python bench/gpu_kernels.py                      # full run, updates bench/RESULTS.md
    python bench/gpu_kernels.py --sizes 1M,16M --no-write
    python bench/gpu_kernels.py --peak-gbs 3350      # when the driver does not report the memory clock
    python bench/gpu_kernels.py --quick              # tiny sizes, prints only: proves it works

It installs nothing: CuPy comes with ``pip install -e ".[gpu]"``.

The results section of ``bench/RESULTS.md`` (between the GPU markers) is
replaced on each full run; the rest of the file is kept.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
BEGIN = "<!-- gpu_kernels:begin -->"
END = "<!-- gpu_kernels:end -->"

#: Known peak memory bandwidths (GB/s), for drivers that report no memory clock.
PEAK_GBS = {"H100 80GB HBM3": 3350.0, "H100 PCIe": 2000.0, "H100 NVL": 3900.0, "H200": 4800.0,
            "A100-SXM4-80GB": 2039.0, "A100-SXM4-40GB": 1555.0, "A100-PCIE-40GB": 1555.0, "A100 80GB PCIe": 1935.0,
            "L4": 300.0, "A10G": 600.0, "T4": 320.0, "V100": 900.0, "RTX 4090": 1008.0}


def parse_size(s: str) -> int:
    s = s.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1], 1)
    return int(float(s[:-1] if s[-1] in "KMG" else s) * mult)


def device_info(cupy: Any, override: float | None) -> tuple[str, float]:
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    if override:
        return name, override
    clock_khz = props.get("memoryClockRate", 0) or 0
    bus_bits = props.get("memoryBusWidth", 0) or 0
    if clock_khz and bus_bits:
        return name, 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9
    for key, gbs in PEAK_GBS.items():
        if key in name:
            return name, gbs
    return name, float("nan")


def time_fn(cupy: Any, fn: Callable[[], Any], repeat: int) -> float:
    """Median seconds of ``fn`` over ``repeat`` runs, timed with CUDA events after warm-up."""
    for _ in range(2):
        fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    times.sort()
    return times[len(times) // 2]


def cases(cupy: Any, torch: Any) -> list[tuple[str, str, Callable[[int, Any], tuple[Any, Any, Any, int]]]]:
    """(name, kind, make(n, dtype) -> (ours, CuPy's, torch's or None, bytes moved)) per hand-written kernel."""
    from minigrad.kernels.gpu import elementwise as ew
    from minigrad.kernels.gpu import nn as gnn
    from minigrad.kernels.gpu import reduce as gred

    rng = cupy.random.default_rng(0)

    def arr(n: int, dt: Any) -> Any:
        return rng.standard_normal(n, dtype=cupy.float32).astype(dt)

    def tt(a: Any) -> Any:
        return None if torch is None else torch.as_tensor(a, device="cuda")

    def unary(op: str, theirs: Callable, tfn: Callable | None) -> Callable:
        def make(n: int, dt: Any):
            x = arr(n, dt)
            tx = tt(x)
            tcall = (lambda: tfn(tx)) if tx is not None and tfn is not None else None
            return (lambda: ew.run_elementwise(op, "unary", (x,), x.dtype)), (lambda: theirs(x)), tcall, 2 * x.nbytes
        return make

    def binary(op: str, theirs: Callable, tfn: Callable | None) -> Callable:
        def make(n: int, dt: Any):
            x, y = arr(n, dt), arr(n, dt)
            tx, ty = tt(x), tt(y)
            tcall = (lambda: tfn(tx, ty)) if tx is not None and tfn is not None else None
            return (lambda: ew.run_elementwise(op, "binary", (x, y), x.dtype)), (lambda: theirs(x, y)), tcall, 3 * x.nbytes
        return make

    def reduction(ours: Callable, theirs: Callable, tfn: Callable | None) -> Callable:
        def make(n: int, dt: Any):
            x = arr(n, dt)
            tx = tt(x)
            tcall = (lambda: tfn(tx)) if tx is not None and tfn is not None else None
            return (lambda: ours(x)), (lambda: theirs(x)), tcall, x.nbytes
        return make

    def rowwise(op: str, ours: Callable, cols: int) -> Callable:
        def make(n: int, dt: Any):
            x = arr(n, dt).reshape(-1, cols)
            tx = tt(x)

            def theirs() -> Any:  # CuPy has no softmax: the idiomatic three-kernel version
                m = x.max(axis=1, keepdims=True)
                e = cupy.exp(x - m)
                if op == "softmax":
                    return e / e.sum(axis=1, keepdims=True)
                return (x - m) - cupy.log(e.sum(axis=1, keepdims=True))

            tcall = (lambda: getattr(torch, op)(tx, dim=1)) if tx is not None else None
            return (lambda: ours(x, 1)), theirs, tcall, 2 * x.nbytes
        return make

    def lse_cupy(x: Any) -> Any:
        m = x.max()
        return cupy.log(cupy.exp(x - m).sum()) + m

    def gelu_cupy(x: Any) -> Any:  # CuPy has no gelu: the same formula with its ufuncs
        import cupyx.scipy.special as sp

        return 0.5 * x * (1 + sp.erf(x * 0.7071067811865476))

    T = torch
    return [
        ("exp", "elementwise", unary("exp", cupy.exp, T and T.exp)),
        ("sigmoid", "elementwise", unary("sigmoid", lambda x: 1 / (1 + cupy.exp(-x)), T and T.sigmoid)),
        ("relu", "elementwise", unary("relu", lambda x: cupy.maximum(x, 0), T and T.relu)),
        ("gelu", "elementwise", unary("gelu", gelu_cupy, T and T.nn.functional.gelu)),
        ("add", "elementwise", binary("add", cupy.add, T and T.add)),
        ("mul", "elementwise", binary("mul", cupy.multiply, T and T.mul)),
        ("maximum", "elementwise", binary("maximum", cupy.maximum, T and T.maximum)),
        ("sum", "reduction", reduction(gred.sum_, cupy.sum, T and T.sum)),
        ("max", "reduction", reduction(gred.max_, cupy.max, T and T.max)),
        ("mean", "reduction", reduction(gred.mean, cupy.mean, T and T.mean)),
        ("logsumexp", "reduction", reduction(gred.logsumexp, lse_cupy, T and (lambda t: T.logsumexp(t, 0)))),
        ("softmax (rows of 1024)", "softmax", rowwise("softmax", gnn.softmax, 1024)),
        ("log_softmax (rows of 1024)", "softmax", rowwise("log_softmax", gnn.log_softmax, 1024)),
    ]


def bench_matmul(cupy: Any, torch: Any, repeat: int, sizes: list[int]) -> list[dict[str, Any]]:
    from minigrad.kernels.gpu.linalg import matmul_tiled

    rows = []
    for n in sizes:
        a = cupy.random.default_rng(1).standard_normal((n, n), dtype=cupy.float32)
        b = cupy.random.default_rng(2).standard_normal((n, n), dtype=cupy.float32)
        flops = 2.0 * n ** 3
        t_ours = time_fn(cupy, lambda: matmul_tiled(a, b), repeat)
        t_cublas = time_fn(cupy, lambda: cupy.matmul(a, b), repeat)
        row = {"n": n, "tiled_tflops": flops / t_ours / 1e12, "cublas_tflops": flops / t_cublas / 1e12,
               "ratio": t_cublas / t_ours}
        if torch is not None:
            ta, tb = torch.as_tensor(a, device="cuda"), torch.as_tensor(b, device="cuda")
            torch.backends.cuda.matmul.allow_tf32 = False
            row["torch_tflops"] = flops / time_fn(cupy, lambda: ta @ tb, repeat) / 1e12
        rows.append(row)
    return rows


def run(sizes: list[int], repeat: int, dtypes: list[str], peak_override: float | None) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]], float]:
    import minigrad as mg

    if not mg.is_gpu_available():
        raise SystemExit("no GPU: CuPy and a CUDA device are needed (pip install -e \".[gpu]\")")
    import cupy

    try:
        import torch

        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    name, peak = device_info(cupy, peak_override)
    results = []
    for case_name, kind, make in cases(cupy, torch):
        for dt_name in dtypes:
            dt = getattr(cupy, dt_name)
            for n in sizes:
                ours, theirs, tcall, nbytes = make(n, dt)
                t_ours = time_fn(cupy, ours, repeat)
                t_cupy = time_fn(cupy, theirs, repeat)
                t_torch = time_fn(cupy, tcall, repeat) if tcall is not None else math.nan
                gbs = nbytes / t_ours / 1e9
                results.append({
                    "kernel": case_name, "kind": kind, "dtype": dt_name, "n": n,
                    "ours_ms": t_ours * 1e3, "cupy_ms": t_cupy * 1e3, "torch_ms": t_torch * 1e3,
                    "ratio_cupy": t_cupy / t_ours, "ratio_torch": t_torch / t_ours if tcall else math.nan,
                    "gbs": gbs, "peak_frac": gbs / peak if peak == peak else math.nan,
                })
    mm = bench_matmul(cupy, torch, repeat, [1024, 2048, 4096] if max(sizes) >= (1 << 20) else [128])
    return name, results, mm, peak


def _fmt_n(n: int) -> str:
    return f"{n >> 20}M" if n >= (1 << 20) and n % (1 << 20) == 0 else str(n)


def to_markdown(device: str, peak: float, results: list[dict[str, Any]], mm: list[dict[str, Any]]) -> str:
    lines = [
        f"## GPU kernels (`bench/gpu_kernels.py`)",
        "",
        f"Device: **{device}**, peak memory bandwidth {peak:.0f} GB/s. Ratios are throughput relative to the "
        "other implementation in the same run (> 1: minigrad is faster). Targets (issue 4): elementwise and "
        "reductions >= 0.8x CuPy at 16M elements and >= 70% of peak bandwidth.",
        "",
        "| kernel | dtype | elements | minigrad ms | CuPy ms | vs CuPy | torch ms | vs torch | GB/s | % of peak | targets @16M |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        target = ""
        if r["n"] == 16 << 20 and r["kind"] in ("elementwise", "reduction"):
            ok = r["ratio_cupy"] >= 0.8 and r["peak_frac"] >= 0.7
            target = "met" if ok else "missed"
        torch_ms = "-" if r["torch_ms"] != r["torch_ms"] else f"{r['torch_ms']:.3f}"
        vs_torch = "-" if r["ratio_torch"] != r["ratio_torch"] else f"{r['ratio_torch']:.2f}x"
        lines.append(
            f"| {r['kernel']} | {r['dtype']} | {_fmt_n(r['n'])} | {r['ours_ms']:.3f} | {r['cupy_ms']:.3f} | "
            f"{r['ratio_cupy']:.2f}x | {torch_ms} | {vs_torch} | {r['gbs']:.0f} | {100 * r['peak_frac']:.0f}% | {target} |"
        )
    lines += ["", "Matmul (float32, square; compute-bound, TFLOP/s): hand-written tiled kernel (GPU) vs cuBLAS (GPUDNN).", "",
              "| n | tiled TFLOP/s | cuBLAS TFLOP/s | tiled / cuBLAS | torch TFLOP/s |", "| ---: | ---: | ---: | ---: | ---: |"]
    for r in mm:
        t = f"{r['torch_tflops']:.2f}" if "torch_tflops" in r else "-"
        lines.append(f"| {r['n']} | {r['tiled_tflops']:.2f} | {r['cublas_tflops']:.2f} | {r['ratio']:.2f}x | {t} |")
    return "\n".join(lines) + "\n"


def write_results(path: Path, section: str) -> None:
    """Replace the GPU section of ``path`` (between the markers), keeping the rest."""
    block = f"{BEGIN}\n{section}{END}\n"
    text = path.read_text() if path.exists() else "# Benchmark results\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/gpu_kernels.py", description=__doc__.strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1M,4M,16M,64M", help="element counts, e.g. 1M,16M")
    p.add_argument("--dtypes", default="float32,float16,float64")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--peak-gbs", type=float, default=None, help="peak memory bandwidth in GB/s (else from the driver)")
    p.add_argument("--results", default=str(RESULTS), help="markdown file to update")
    p.add_argument("--no-write", action="store_true", help="print only")
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes (64K elements, 2 repeats, float32), print only: proves the script works in seconds")
    a = p.parse_args(argv)
    if a.quick:
        a.sizes, a.repeat, a.dtypes, a.no_write = "64K", 2, "float32", True
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    device, results, mm, peak = run(sizes, a.repeat, [d for d in a.dtypes.split(",") if d], a.peak_gbs)
    md = to_markdown(device, peak, results, mm)
    print(md)
    if not a.no_write:
        write_results(Path(a.results), md)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    os.environ.setdefault("CUPY_CACHE_SAVE_CUDA_SOURCE", "0")
    raise SystemExit(main())
