"""Run every benchmark and rewrite ``bench/RESULTS.md`` (``make bench``).

1. Runs each workload script's ``run(size)`` in turn (they time minigrad and
   the references in the same run, interleaved), every framework on one
   thread (NOTE [ One BLAS thread ] in ``bench/_common.py``).
2. Writes ``bench/RESULTS.md``: machine, versions, BLAS threads, one table
   per workload. The hand-written analysis below the ``<!-- analysis -->``
   marker of the existing file is kept.

It installs nothing: ``make bench`` installs the references first
(``pip install torch==2.13.0 micrograd``; that exact torch spelling takes the
CPU build). A reference that is missing is reported as missing, never faked.

Usage: ``python bench/run_all.py [--quick] [--only per_op,matmul] [--out PATH]``.
``--quick`` runs the tiny smoke sizes (labelled as such in the file).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _common as C  # noqa: E402  (pins BLAS to one thread before NumPy loads)

SCRIPTS = ["per_op", "deep_chain", "matmul", "mlp", "tracing_overhead", "viewers", "transformer", "makemore"]
MARKER = "<!-- analysis -->"
REFERENCES = {"torch": "torch==2.13.0", "micrograd": "micrograd"}


def missing_references() -> list[str]:
    """Notes on the references that are not installed (their comparisons are reported as missing)."""
    return [f"{module} is not installed, so its comparisons are missing (`make bench` installs it: pip install {spec})"
            for module, spec in REFERENCES.items() if importlib.util.find_spec(module) is None]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = C.parser(__doc__, "python bench/run_all.py")
    p.add_argument("--only", type=lambda s: [x for x in s.split(",") if x], metavar="A,B",
                   help=f"run only these workloads, of: {', '.join(SCRIPTS)}")
    p.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"), help="results file (default: bench/RESULTS.md)")
    args = p.parse_args(argv)
    unknown = sorted(set(args.only or ()) - set(SCRIPTS))
    if unknown:
        p.error(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(SCRIPTS)}")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    size = "small" if args.quick else "full"
    only = args.only
    notes = missing_references()
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
    out_path = args.out
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
        "(same run). Every framework runs on one thread, minigrad and the references alike: PyTorch "
        "`set_num_threads(1)`, and BLAS (NumPy's and PyTorch's) pinned with `OPENBLAS_NUM_THREADS=1`, "
        "`OMP_NUM_THREADS=1`, `MKL_NUM_THREADS=1` (and threadpoolctl when installed); the machine table "
        "shows the BLAS threads in force. Unpinned, a multi-threaded BLAS on a loaded 2-core machine took "
        "3.6 ms for a small matmul that takes 9 us on one thread.",
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
