"""Shared helpers of the benchmark scripts: timing, references, machine facts, result rows.

Every script measures minigrad and its references **in the same run**, and
interleaves them: each repeat times every variant once, in turn, so a busy
machine slows them alike. A variant's time is the median over the repeats
(after a warm-up); a ratio is the median of the per-repeat ratios.

Each script's ``run(size="full"|"small") -> list[dict]`` returns result rows::

    {"workload": "per-op c = a*b + a", "variant": "minigrad", "value": 12.3,
     "unit": "us", "ratio": 1.9, "vs": "pytorch", "target": "<= 1.0", "note": ""}

and ``python bench/<script>.py [--quick]`` prints them as a table
(``--help`` says what the script measures). The scripts install nothing:
``make bench`` installs the references (PyTorch, micrograd); one that is
missing is reported as missing, never faked.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

# NOTE [ One BLAS thread ] Every framework runs on one thread: PyTorch is set to one intra-op
# thread and so is BLAS, for NumPy (minigrad's CPU kernels) and PyTorch alike. On a busy machine a
# multi-threaded BLAS stalls: small matmuls took 3.6 ms instead of 9 us on a loaded 2-core box.
# The variables must be set before NumPy loads its BLAS (every script imports this module first,
# and child processes inherit them); ``pin_blas()`` also limits a BLAS that is already loaded.
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                    "NUMEXPR_NUM_THREADS")
for _var in BLAS_THREAD_VARS:
    os.environ[_var] = "1"


def pin_blas() -> str:
    """Hold every loaded BLAS to one thread (threadpoolctl, when installed); returns what is in force."""
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return "1 (" + ", ".join(f"{v}=1" for v in BLAS_THREAD_VARS[:3]) + ")"
    threadpool_limits(1)
    pools = threadpool_info()
    return ", ".join(f"{p['num_threads']} ({p['internal_api']})" for p in pools) or "1 (no BLAS loaded)"


HERE = os.path.dirname(os.path.abspath(__file__))
#: The minigrad checkout to benchmark: this repository, or another one named by
#: ``BENCH_MINIGRAD_PATH`` (to compare two versions of the engine, before and after a change).
ROOT = os.environ.get("BENCH_MINIGRAD_PATH") or os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def torch_or_none() -> Any:
    """PyTorch (one intra-op thread), or ``None`` when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)  # NOTE [ One BLAS thread ]
    return torch


def micrograd_or_none() -> Any:
    """micrograd's ``Value``, or ``None`` when it is not installed."""
    try:
        from micrograd.engine import Value
    except ImportError:
        return None
    return Value


def timeit_interleaved(
    fns: dict[str, Callable[[], Any]], number: int = 1, repeats: int = 7, warmup: int = 1
) -> dict[str, list[float]]:
    """Seconds per call of each function, one list entry per repeat (interleaved)."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - t0) / number)
    return times


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def ratio(a: list[float], b: list[float]) -> float:
    """Median over repeats of ``a[i] / b[i]`` (same-run, interleaved ratio)."""
    return statistics.median(x / y for x, y in zip(a, b))


def row(workload: str, variant: str, value: float | None, unit: str, ratio: float | None = None,
        vs: str = "", target: str = "", note: str = "") -> dict[str, Any]:
    return {"workload": workload, "variant": variant, "value": value, "unit": unit, "ratio": ratio,
            "vs": vs, "target": target, "note": note}


def step_rows(workload: str, steps: int, reps: int, unit: str, mg_step: tuple[Callable[[], Any], dict[str, Any]],
              torch_step: Callable[[], tuple[Callable[[], Any], dict[str, Any]]] | None) -> list[dict[str, Any]]:
    """Rows for a training step run under minigrad and PyTorch (``unit``: ``"ms/step"`` or ``"us/step"``).

    ``mg_step`` and what ``torch_step()`` returns are ``(step, state)``: ``step()``
    runs one step and leaves its loss in ``state["loss"]``. The two are timed
    interleaved, ``steps`` steps per repeat; the last losses go in the note as
    a check that both ran the same program. ``torch_step`` is None when PyTorch
    is not installed.
    """
    scale = 1e3 if unit == "ms/step" else 1e6
    mg_fn, mg_state = mg_step
    fns: dict[str, Callable[[], Any]] = {"minigrad": lambda: [mg_fn() for _ in range(steps)]}
    if torch_step is None:
        times = timeit_interleaved(fns, number=1, repeats=reps)
        return [row(workload, "minigrad", median(times["minigrad"]) / steps * scale, unit,
                    note="PyTorch not installed: no comparison")]
    t_fn, t_state = torch_step()
    fns["pytorch"] = lambda: [t_fn() for _ in range(steps)]
    times = timeit_interleaved(fns, number=1, repeats=reps)
    note = f"last loss minigrad {mg_state['loss'].item():.4f} / pytorch {t_state['loss'].item():.4f}"
    return [
        row(workload, "minigrad", median(times["minigrad"]) / steps * scale, unit,
            ratio(times["minigrad"], times["pytorch"]), "pytorch", "<= 1.0x", note),
        row(workload, "pytorch", median(times["pytorch"]) / steps * scale, unit),
    ]


def fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}g}"
    return str(v)


def table(rows: list[dict[str, Any]]) -> str:
    """Rows as a Markdown table."""
    head = "| workload | variant | value | unit | ratio | vs | target | note |\n|---|---|---:|---|---:|---|---|---|\n"
    lines = [
        f"| {r['workload']} | {r['variant']} | {fmt(r['value'])} | {r['unit']} | "
        f"{fmt(r['ratio']) + 'x' if r['ratio'] is not None else '-'} | {r['vs']} | {r['target']} | {r['note']} |"
        for r in rows
    ]
    return head + "\n".join(lines) + "\n"


def machine() -> dict[str, str]:
    """Machine and library versions, for RESULTS.md."""
    import numpy as np

    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_name(),
        "cpus": str(os.cpu_count()),
        "numpy": np.__version__,
        "load average (start)": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    torch = torch_or_none()
    info["torch"] = (f"{torch.__version__} ({torch.get_num_threads()} thread)" if torch is not None
                     else "not installed (`make bench` installs it)")
    info["BLAS threads"] = pin_blas()  # after PyTorch loads its own BLAS and OpenMP
    try:
        from importlib.metadata import version

        info["micrograd"] = version("micrograd")
    except Exception:
        info["micrograd"] = "not installed (`make bench` installs it)"
    try:
        import minigrad

        info["minigrad"] = minigrad.__version__ + " @ " + _git_rev()
    except Exception:  # pragma: no cover
        info["minigrad"] = "?"
    return info


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def _git_rev() -> str:
    if os.environ.get("BENCH_MINIGRAD_PATH"):
        return "checkout at " + ROOT
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "minigrad"], cwd=ROOT, capture_output=True, text=True)
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "?"


def parser(doc: str | None, prog: str) -> argparse.ArgumentParser:
    """The command line every script shares: ``--help`` shows its docstring, ``--quick`` the tiny size."""
    p = argparse.ArgumentParser(prog=prog, description=(doc or "").strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Runs on one thread per framework (NOTE [ One BLAS thread ] in bench/_common.py). "
                                       "Installs nothing: `make bench` installs the references.")
    p.add_argument("--quick", "--small", action="store_true",
                   help="run the tiny sizes: proves the script works in seconds; the numbers mean nothing")
    return p


def main(run: Callable[[str], list[dict[str, Any]]], argv: list[str] | None = None) -> None:
    """Command-line entry of a workload script: parse ``--help``/``--quick``, run, print the table."""
    module = sys.modules.get(run.__module__)
    script = os.path.basename(getattr(module, "__file__", None) or "script.py")
    args = parser(getattr(module, "__doc__", None), f"python bench/{script}").parse_args(argv)
    pin_blas()
    print(table(run("small" if args.quick else "full")))
