"""Before and after a change on one GPU: ``bench/gpu_kernels.py``'s training steps and per-op host time for an
older minigrad (BASE) and for this checkout, run in turns, each run against PyTorch CUDA in its own process.

A device's own speed drifts between runs (by up to 40% between two runs on an H200): each run's ratio to
PyTorch, measured in the same process, cancels what moves both frameworks, and taking turns (before, after,
before, after...) spreads what is left over both sides. Each row prints the median over the turns of each
side's ratio and times. Without a GPU (or with ``--quick``) it compares what the stand-in CuPy counts per
steady training step instead - launches, copies, syncs - which are the code's, the same on any machine.

Usage::

    python bench/gpu_ab.py 5713ca8                     # a commit (its minigrad/ exported) against the checkout
    python bench/gpu_ab.py /tmp/old-tree --turns 3     # a directory holding a minigrad/ package
    python bench/gpu_ab.py 5713ca8 --parts train --repeat 4
    python bench/gpu_ab.py 5713ca8 --quick             # no GPU needed: the stand-in's counts, before and after
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def base_tree(base: str, workdir: str) -> str:
    """A directory holding BASE's ``minigrad/``: BASE itself when it is one, else the commit exported there."""
    if (Path(base) / "minigrad").is_dir():
        return str(Path(base).resolve())
    out = Path(workdir) / "base"
    out.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", base, "minigrad"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return str(out)


def run_side(tree: str | None, args: list[str], timeout: int) -> dict[str, Any]:
    """One run of ``gpu_kernels.py ARGS --json`` with ``tree``'s minigrad (None: the checkout's); its JSON line."""
    env = dict(os.environ)
    env.pop("BENCH_MINIGRAD_PATH", None)
    if tree is not None:
        env["BENCH_MINIGRAD_PATH"] = tree
    r = subprocess.run([sys.executable, str(HERE / "gpu_kernels.py"), *args, "--json"], capture_output=True, text=True,
                       env=env, timeout=timeout)
    if r.returncode != 0:
        raise SystemExit(f"bench/gpu_kernels.py {' '.join(args)} failed ({tree or 'checkout'}):\n{r.stderr[-2000:]}")
    rows = json.loads(r.stdout.strip().splitlines()[-1])
    return rows if isinstance(rows, dict) else {"counts": rows}


def summary(runs: dict[str, list[dict[str, Any]]]) -> str:
    """The markdown table of ``runs`` (``before``/``after``: each side's runs, as ``run_side`` returns them):
    per row, the median over the runs of each side's ratio to PyTorch and of its times, or its counts."""
    lines: list[str] = []
    before, after = runs["before"], runs["after"]
    if before and "counts" in before[0]:
        lines += ["| model | launches before / after | h2d before / after | d2h before / after | syncs before / after |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        old = {r["model"]: r for r in before[0]["counts"]}
        for r in after[0]["counts"]:
            o = old.get(r["model"], {})
            cells = [f"{o.get(k, math.nan):g} / {r[k]:g}" for k in ("launches", "h2d", "d2h", "syncs")]
            lines.append(f"| {r['model']} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"
    for part, name, unit in (("train", "model", "ms"), ("host", "op", "us")):
        if not before or not before[0].get(part):
            continue
        lines += ["", f"| {name} | before / torch | after / torch | before {unit} | after {unit} | torch {unit} (after's runs) |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        ours, torch = f"ours_{unit}", f"torch_{unit}"
        for row in after[0][part]:
            key = (part, name, row[name])
            lines.append(f"| {row[name]} | {_median(before, key, 'ratio'):.2f}x | {_median(after, key, 'ratio'):.2f}x | "
                         f"{_median(before, key, ours):.2f} | {_median(after, key, ours):.2f} | "
                         f"{_median(after, key, torch):.2f} |")
    return "\n".join(lines).lstrip("\n") + "\n"


def _median(side: list[dict[str, Any]], key: tuple[str, str, str], field: str) -> float:
    """The median over ``side``'s runs of ``field`` in the row ``key`` (part, name column, its value) names;
    NaN where no run measured it (PyTorch absent: no ``torch_*``, no ``ratio``)."""
    part, name, value = key
    vals = [r[field] for run in side for r in run[part] if r[name] == value and r.get(field, math.nan) == r.get(field)]
    return statistics.median(vals) if vals else math.nan


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/gpu_ab.py", description=__doc__.strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("base", help="a git commit of this repository, or a directory holding a minigrad/ package")
    p.add_argument("--turns", type=int, default=2, help="runs of each side, taken in turns (default 2)")
    p.add_argument("--parts", default="train,host", help="bench/gpu_kernels.py's --parts (train, host)")
    p.add_argument("--repeat", type=int, default=4, help="bench/gpu_kernels.py's --repeat")
    p.add_argument("--timeout", type=int, default=600, help="seconds one run may take")
    p.add_argument("--stand-in", action="store_true", help="compare the stand-in CuPy's counts (no GPU needed)")
    p.add_argument("--quick", action="store_true", help="the stand-in's counts at the small sizes, one turn: seconds")
    a = p.parse_args(argv)
    counting = a.stand_in or a.quick or not _gpu_available()
    if counting:
        args, turns = ["--stand-in"] + (["--quick"] if a.quick else []), 1
    else:
        args = ["--no-write", "--parts", a.parts, "--repeat", str(a.repeat), "--rounds", "1", "--no-counts", "--no-direct"]
        turns = max(1, a.turns)
    with tempfile.TemporaryDirectory() as work:
        tree = base_tree(a.base, work)
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for turn in range(turns):
            for side, path in (("before", tree), ("after", None)):
                print(f"turn {turn + 1}/{turns}: {side} ({path or 'checkout'})", file=sys.stderr, flush=True)
                runs[side].append(run_side(path, args, a.timeout))
    what = "stand-in counts per steady training step" if counting else f"median of {turns} runs a side, taken in turns"
    print(f"Before: {a.base}; after: the checkout ({what}).\n")
    print(summary(runs))
    return 0


def _gpu_available() -> bool:
    """Whether CuPy sees a CUDA device (asked in a child process: this one stays free of CuPy)."""
    probe = "import cupy, sys; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)"
    try:
        return subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if __name__ == "__main__":
    raise SystemExit(main())
