"""Where minigrad's host time goes on a GPU: cProfile of the per-op calls and training steps that
``bench/gpu_kernels.py`` times, without a sync between calls (the time Python spends before the device can
start, which is what bounds a small model's step).

Usage::

    python bench/host_profile.py                 # on a machine with CuPy and a CUDA device
    python bench/host_profile.py --stand-in      # anywhere: the stand-in CuPy, its kernels no-ops
    python bench/host_profile.py --top 40 --calls 3000
    python bench/host_profile.py --stand-in --quick    # proves it works

For each case it prints the host microseconds per call (best of five rounds of ``--calls`` calls; PyTorch
CUDA's beside it where installed), then the ``--top`` functions by their own time under the profiler.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gpu_kernels  # noqa: E402  (bench/gpu_kernels.py: the same cases)


def per_call_us(sync: Callable[[], None], fn: Callable[[], Any], calls: int) -> float:
    best = float("inf")
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
        sync()
    return best * 1e6


def torch_cuda() -> Any:
    """PyTorch, where it is installed and sees a CUDA device; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def profile(fn: Callable[[], Any], calls: int, top: int) -> str:
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(top)
    text = out.getvalue()
    return text[text.index("   ncalls"):] if "   ncalls" in text else text


def cases(lib: Any, dev: str) -> dict[str, Callable[[], Callable[[], Any]]]:
    """name -> a builder of the call to time (per-op calls on (64, 64) float32 tensors that need a gradient,
    as ``bench/gpu_kernels.py``'s per-op rows; an MLP and the small char GPT's training steps)."""
    def ops() -> dict[str, Callable[[], Any]]:
        a = lib.randn(64, 64, device=dev, requires_grad=True)
        b = lib.randn(64, 64, device=dev, requires_grad=True)
        return {"a * b": lambda: a * b, "a * b + 1.0": lambda: a * b + 1.0, "a.t() * b": lambda: a.t() * b,
                "a + 1.0": lambda: a + 1.0, "a.t()": lambda: a.t()}

    out: dict[str, Callable[[], Callable[[], Any]]] = {name: (lambda name=name: ops()[name]) for name in ops()}
    mlp = next(build for name, build in gpu_kernels._train_steps(quick=False) if name.startswith("MLP"))
    out["MLP step"] = lambda: mlp(lib, dev)
    gpt = dict(gpu_kernels.GPT_SIZES)["char GPT 2x64, batch 16x32, AdamW"]
    out["char GPT 2x64 step"] = lambda: gpu_kernels.gpt_step(lib, dev, gpt)
    return out


def main() -> int:
    p = argparse.ArgumentParser(prog="python bench/host_profile.py", description=__doc__.strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stand-in", action="store_true", help="the stand-in CuPy, its kernels no-ops (no GPU needed)")
    p.add_argument("--quick", action="store_true", help="two per-op cases, 50 calls: proves the script works in seconds")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--only", default="", help="comma list of case names to profile (default: all)")
    a = p.parse_args()
    if a.quick:
        a.calls, a.only = 50, a.only or "a * b,a.t()"
    if a.stand_in:
        gpu_kernels.install_stand_in()
        import fake_cupy

        fake_cupy._Kernel.__call__ = lambda self, grid, block, args: None
    import cupy

    import minigrad as mg

    sync = cupy.cuda.Device().synchronize
    torch = None if a.stand_in else torch_cuda()
    ours = cases(mg, "gpu")
    theirs = cases(torch, "cuda") if torch is not None else {}
    only = [s for s in a.only.split(",") if s]
    for name, build in ours.items():
        if only and name not in only:
            continue
        fn = build()
        calls = a.calls if "step" not in name else max(20, a.calls // 100)
        fn()
        line = f"## {name}: minigrad {per_call_us(sync, fn, calls):.1f} us"
        if name in theirs:
            ref = theirs[name]()
            ref()
            line += f", PyTorch CUDA {per_call_us(torch.cuda.synchronize, ref, calls):.1f} us"
        print(line, flush=True)
        print(profile(fn, calls, a.top), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
