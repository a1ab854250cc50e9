"""Run every benchmark and rewrite ``bench/RESULTS.md`` (``make bench``).

1. Installs the references if they are missing, with the ordinary client:
   ``pip install torch==2.13.0`` (exactly this spelling: the CPU build) and
   ``pip install micrograd``. A reference that cannot be installed is
   reported as missing in the results, never faked.
2. Runs each workload script's ``run(size)`` in turn (they time minigrad and
   the references in the same run, interleaved).
3. Writes ``bench/RESULTS.md``: machine, versions, one table per workload.
   The hand-written analysis below the ``<!-- analysis -->`` marker of the
   existing file is kept.

Usage: ``python bench/run_all.py [--small] [--only per_op,matmul] [--no-install] [--out PATH]``.
``--small`` runs the tiny smoke sizes (labelled as such in the file).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _common as C  # noqa: E402  (sets the BLAS thread count before NumPy loads)

SCRIPTS = ["per_op", "deep_chain", "matmul", "mlp", "tracing_overhead", "viewers"]
MARKER = "<!-- analysis -->"


def ensure_references() -> list[str]:
    """pip-install missing references; return notes on what is still missing."""
    notes = []
    for module, spec in (("torch", "torch==2.13.0"), ("micrograd", "micrograd")):
        try:
            importlib.import_module(module)
            continue
        except ImportError:
            pass
        print(f"installing {spec} ...", flush=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", spec], capture_output=True, text=True)
        importlib.invalidate_caches()
        try:
            importlib.import_module(module)
        except ImportError:
            notes.append(f"{spec} could not be installed ({(proc.stderr.strip().splitlines() or ['?'])[-1][:160]}); "
                         f"its comparisons are reported as missing")
    return notes


def main() -> None:
    args = sys.argv[1:]
    size = "small" if "--small" in args else "full"
    only = None
    if "--only" in args:
        only = args[args.index("--only") + 1].split(",")
    notes = [] if "--no-install" in args else ensure_references()
    info = C.machine()
    sections = []
    t_all = time.perf_counter()
    for name in SCRIPTS:
        if only and name not in only:
            continue
        mod = importlib.import_module(name)
        print(f"== {name} ({size})", flush=True)
        t0 = time.perf_counter()
        rows = mod.run(size)
        dt = time.perf_counter() - t0
        tab = C.table(rows)
        print(tab, flush=True)
        title = " ".join((mod.__doc__ or name).strip().split("\n\n")[0].split())
        sections.append(f"## {name}: {title}\n\n{tab}\n_{dt:.0f} s; run `python bench/{name}.py` for this table alone._\n")
    info["load average (end)"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    out_path = args[args.index("--out") + 1] if "--out" in args else os.path.join(HERE, "RESULTS.md")
    analysis = ""
    if os.path.exists(out_path):
        with open(out_path, encoding="utf-8") as fh:
            old = fh.read()
        if MARKER in old:
            analysis = old[old.index(MARKER):]
    head = [
        "# minigrad benchmark results",
        "",
        "Written by `bench/run_all.py` (`make bench`); the analysis at the end is hand-written and kept across runs.",
        "",
        f"Sizes: **{'SMALL smoke sizes - not representative' if size == 'small' else 'full'}**"
        f"{' (only ' + ', '.join(only) + ')' if only else ''}; total {time.perf_counter() - t_all:.0f} s; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "",
        "Times are medians over interleaved repeats after a warm-up; a ratio is the median of the per-repeat ratios "
        "(same run). Every framework runs on one thread (PyTorch `set_num_threads(1)`, BLAS via "
        "`OPENBLAS_NUM_THREADS=1`).",
        "",
        "| machine | |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in info.items()],
        "",
        *[f"- note: {n}" for n in notes],
        "",
    ]
    with open(out_path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(head) + "\n" + "\n".join(sections) + "\n" + (analysis or MARKER + "\n"))
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
