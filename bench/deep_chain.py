"""Deep chains: ``y = y * c`` repeated N times (N = 10^3 ... 10^6 graph nodes), then
``backward()``; forward, backward and forward + backward time and peak memory, vs PyTorch
and micrograd.

Each (framework, N) runs in its own child process, so each starts from the
same clean interpreter; minigrad's and PyTorch's children alternate, round
after round (three rounds up to N = 10^5, one at 10^6), and a ratio is the
median of the per-round ratios. Memory is measured the same way for every
framework: the growth of the resident set size (``/proc/self/statm``) over
its size just before the chain is built, read with the whole graph alive
(after the forward pass, and after backward: the larger of the two).
tracemalloc would not do: it sees Python's allocations only, not PyTorch's
C++ graph. "Bytes per node" is that peak growth divided by N, with its ratio
to PyTorch's. A crash (micrograd's recursive topological sort hits Python's
recursion limit near 1000 nodes deep) is reported instead of stopping the
benchmark. Memory per node should stay flat as N grows: that is what
"linear memory" means here.

Run: ``python bench/deep_chain.py [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

CHILD = r"""
import gc, json, resource, sys, time
fw, n = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])
import os
PAGE = os.sysconf("SC_PAGE_SIZE")
def rss():  # current resident set size (the graph is alive when we read it)
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE
out = {"fw": fw, "n": n}
try:
    if fw == "minigrad":
        import minigrad as mg
        x = mg.tensor([1.0], requires_grad=True); c = mg.tensor([1.0])
        mul = lambda y: y * c
        finish = lambda y: y.sum().backward()
        grad = lambda: x.grad.item()
    elif fw == "pytorch":
        import torch
        torch.set_num_threads(1)
        x = torch.tensor([1.0], requires_grad=True); c = torch.tensor([1.0])
        mul = lambda y: y * c
        finish = lambda y: y.sum().backward()
        grad = lambda: x.grad.item()
    else:
        from micrograd.engine import Value
        x = Value(1.0); c = Value(1.0)
        mul = lambda y: y * c
        finish = lambda y: y.backward()
        grad = lambda: x.grad
    w = x  # warm-up: a short chain, so one-time engine start-up is not timed
    for _ in range(10):
        w = mul(w)
    finish(w)
    x.grad = None if fw != "micrograd" else 0.0
    del w
    gc.collect()
    base = rss()
    t0 = time.perf_counter()
    y = x
    for _ in range(n):
        y = mul(y)
    t1 = time.perf_counter()
    out["fwd_s"] = t1 - t0
    out["fwd_bytes"] = rss() - base
    finish(y)
    t2 = time.perf_counter()
    out["bwd_s"] = t2 - t1
    out["peak_bytes"] = max(out["fwd_bytes"], rss() - base)
    out["grad_ok"] = grad() == 1.0
except RecursionError as exc:
    out["error"] = f"RecursionError: {exc}"
except MemoryError:
    out["error"] = "MemoryError"
print(json.dumps(out))
"""


def measure(fw: str, n: int, timeout: float = 900) -> dict[str, Any]:
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, fw, str(n), C.ROOT], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"fw": fw, "n": n, "error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"fw": fw, "n": n, "error": f"exit {proc.returncode}: {tail[:120]}"}
    return json.loads(lines[-1])


MICRO_DEPTH = r"""
import sys
from micrograd.engine import Value
ok = 0
for n in list(range(100, 1001, 20)) + list(range(1000, 5001, 250)):
    x = Value(1.0); y = x
    for _ in range(n):
        y = y * 1.0
    try:
        y.backward()
    except RecursionError:
        print(f"{ok} {n} {sys.getrecursionlimit()}")
        break
    ok = n
else:
    print(f"{ok} none {sys.getrecursionlimit()}")
"""


def micrograd_depth() -> str:
    """The deepest chain micrograd's backward survives, with the default recursion limit."""
    proc = subprocess.run([sys.executable, "-c", MICRO_DEPTH], capture_output=True, text=True, timeout=300)
    ok, failed, limit = (proc.stdout.split() + ["?", "?", "?"])[:3]
    return f"backward works up to N={ok}, RecursionError at N={failed} (recursion limit {limit})"


def _rounds(size: str, n: int) -> int:
    """Interleaved rounds per N: one at the smoke size and at 10^6 (minutes per child), three otherwise."""
    return 1 if size != "full" or n >= 1_000_000 else 3


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One framework's rounds at one N: median times and memory (an error in any round is the result)."""
    for r in runs:
        if "error" in r:
            return r
    out: dict[str, Any] = {"fw": runs[0]["fw"], "n": runs[0]["n"], "grad_ok": all(r["grad_ok"] for r in runs)}
    for key in ("fwd_s", "bwd_s", "peak_bytes"):
        out[key] = C.median([r[key] for r in runs])
    out["total_s"] = C.median([r["fwd_s"] + r["bwd_s"] for r in runs])
    return out


def _ratio(runs: list[dict[str, Any]], ref: list[dict[str, Any]], key: Any) -> float | None:
    """Median over rounds of minigrad's value over PyTorch's in the same round (None when a
    reference value is 0: a small graph can fit in memory the allocator already holds)."""
    pairs = [(key(a), key(b)) for a, b in zip(runs, ref)]
    if any(b <= 0 for _, b in pairs):
        return None
    return C.median([a / b for a, b in pairs])


def run(size: str = "full") -> list[dict[str, Any]]:
    sizes = [500, 1000, 10_000, 100_000, 1_000_000] if size == "full" else [50, 200]
    if os.environ.get("BENCH_DEEP_MAX"):
        sizes = [n for n in sizes if n <= int(os.environ["BENCH_DEEP_MAX"])]
    fws = ["minigrad"]
    if C.torch_or_none() is not None:
        fws.append("pytorch")
    micro = C.micrograd_or_none() is not None
    rows: list[dict[str, Any]] = []
    micro_failed_at = None
    for n in sizes:
        runs: dict[str, list[dict[str, Any]]] = {fw: [] for fw in fws}
        for _ in range(_rounds(size, n)):  # interleaved: minigrad, PyTorch, minigrad, PyTorch ...
            for fw in fws:
                runs[fw].append(measure(fw, n))
        res = {fw: _summary(runs[fw]) for fw in fws}
        if micro:  # no ratio is taken against micrograd: one run says how far it gets
            if micro_failed_at is not None:
                res["micrograd"] = {"fw": "micrograd", "n": n, "error": f"skipped (failed at N={micro_failed_at})"}
            else:
                res["micrograd"] = measure("micrograd", n)
                if "error" in res["micrograd"]:
                    micro_failed_at = n
        for fw in res:
            r = res[fw]
            wl = f"deep chain N={n:,}"
            if "error" in r:
                rows.append(C.row(wl, fw, None, "", note=r["error"]))
                continue
            both = fw == "minigrad" and "error" not in res.get("pytorch", {"error": ""})
            mine, ref = runs["minigrad"], runs.get("pytorch", [])
            vs = "pytorch" if both else ""
            total = r.get("total_s", r["fwd_s"] + r["bwd_s"])
            rows.append(C.row(wl + " forward", fw, r["fwd_s"] * 1e3, "ms",
                              _ratio(mine, ref, lambda x: x["fwd_s"]) if both else None, vs))
            rows.append(C.row(wl + " backward", fw, r["bwd_s"] * 1e3, "ms",
                              _ratio(mine, ref, lambda x: x["bwd_s"]) if both else None, vs))
            rows.append(C.row(wl + " forward + backward", fw, total * 1e3, "ms",
                              _ratio(mine, ref, lambda x: x["fwd_s"] + x["bwd_s"]) if both else None, vs,
                              "<= 1.0x" if both and n == 100_000 else ""))
            per_node = r["peak_bytes"] / n
            rows.append(C.row(wl + " peak memory", fw, r["peak_bytes"] / 2**20, "MiB",
                              note=f"{per_node:,.0f} B/node" + ("" if r.get("grad_ok", True) else "; WRONG GRADIENT")))
            rows.append(C.row(wl + " bytes per node", fw, per_node, "B/node",
                              _ratio(mine, ref, lambda x: x["peak_bytes"]) if both else None, vs,
                              "<= 1.0x" if both and n == 1_000_000 else "",
                              "peak RSS growth / N, graph alive" if fw == "minigrad" else ""))
    if micro:
        rows.append(C.row("deep chain, micrograd's limit", "micrograd", None, "", note=micrograd_depth()))
    else:
        rows.append(C.row("deep chain", "micrograd", None, "", note="micrograd not installed: no comparison"))
    return rows


if __name__ == "__main__":
    C.main(run)
