"""Soak: long training loops keep memory flat, and two threads train as they would alone.

Each case trains for ``--steps`` steps (2,000 by default) and samples the
process's resident set size (RSS, from ``/proc/self/statm``) after warm-up
(``--warmup`` steps) and at the end. A leak - graphs, nodes, saved tensors or
events kept alive from one step to the next - shows as RSS growing with the
step count; the bar is growth within 5 % after warm-up.

Cases:

- ``mlp``: a 2-layer MLP on random data, cross-entropy, SGD with momentum;
- ``transformer``: the small character GPT of ``examples/char_gpt.py`` (Embedding,
  attention, LayerNorm, AdamW);
- each with ``--recorder``: a ``mg.trace()`` opened and closed around every step;
- ``threads``: two threads train separate MLPs at once (grad mode and recorders
  are per thread), and their gradients equal those of the same runs alone.

Usage::

    python bench/soak.py                   # every case, 2,000 steps each
    python bench/soak.py --steps 300 mlp   # one case, shorter
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

try:
    from . import _common as C
except ImportError:  # run as a script: python bench/soak.py
    import _common as C  # type: ignore[no-redef]

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """Resident set size of this process, in MiB (after a garbage collection)."""
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE / 2**20


def mlp_step_fn(seed: int = 0, width: int = 64) -> tuple[nn.Module, Callable[[], float]]:
    """A model and one training step of it (forward, backward, SGD with momentum)."""
    rng = np.random.default_rng(seed)
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(20, width), nn.ReLU(), nn.Linear(width, 5))
    opt = mg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = mg.tensor(rng.normal(size=(32, 20)).astype(np.float32))
    y = mg.tensor(rng.integers(0, 5, size=32))

    def step() -> float:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return model, step


def transformer_step_fn(seed: int = 0) -> tuple[nn.Module, Callable[[], float]]:
    """examples/char_gpt.py's model at a small size, and one training step of it."""
    spec = importlib.util.spec_from_file_location("char_gpt", ROOT / "examples" / "char_gpt.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    mg.manual_seed(seed)
    rng = np.random.default_rng(seed)
    vocab, block = 30, 16
    model = mod.CharGPT(vocab, n_embd=32, n_head=4, n_layer=2, block_size=block)
    opt = mg.optim.AdamW(model.parameters(), lr=3e-3)
    data = rng.integers(0, vocab, size=(8, block + 1))
    xb, yb = mg.tensor(data[:, :-1]), mg.tensor(data[:, 1:])

    def step() -> float:
        opt.zero_grad()
        logits = model(xb)
        loss = F.cross_entropy(logits.reshape(-1, vocab), yb.reshape(-1))
        loss.backward()
        opt.step()
        return loss.item()

    return model, step


def soak(make: Callable[[], tuple[Any, Callable[[], float]]], steps: int, warmup: int, recorder: bool) -> dict[str, Any]:
    """Run ``steps`` steps; RSS after ``warmup`` steps and at the end."""
    _, step = make()
    t0 = time.perf_counter()
    warm = None
    for i in range(steps):
        if recorder:
            with mg.trace(values=False):
                step()
        else:
            step()
        if i + 1 == warmup:
            warm = rss_mb()
    end = rss_mb()
    warm = warm if warm is not None else end
    return {"steps": steps, "rss_warm_mb": round(warm, 1), "rss_end_mb": round(end, 1),
            "growth_pct": round(100 * (end - warm) / warm, 2), "seconds": round(time.perf_counter() - t0, 1)}


def grads_after(model: nn.Module, step: Callable[[], float], steps: int, records: bool) -> list[np.ndarray]:
    """The gradients after ``steps`` steps (the last step's backward), then the
    number of events each recording held (empty when ``records`` is false).

    ``records``: each step runs under a recorder; otherwise a ``no_grad`` forward
    pass runs between steps. Both states are per thread, so neither may leak.
    """
    counts = []
    for _ in range(steps):
        if records:
            with mg.trace(values=False) as rec:
                step()
            counts.append(len(rec.events))
        else:
            step()
            with mg.no_grad():
                model(mg.zeros(2, 20))
    return [p.grad.numpy().copy() for p in model.parameters()] + [np.array(counts)]


def threads_agree(steps: int) -> dict[str, Any]:
    """Two threads train separate models at once; each ends with the gradients it gets alone.

    The models are built before the threads start: their initial weights come
    from the global generator, which (as in PyTorch) the threads would share.
    """
    seeds = {1: True, 2: False}  # seed -> whether that thread records
    alone = [grads_after(*mlp_step_fn(seed), steps, records) for seed, records in seeds.items()]
    made = {seed: mlp_step_fn(seed) for seed in seeds}
    together: dict[int, list[np.ndarray]] = {}
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            together[seed] = grads_after(*made[seed], steps, seeds[seed])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in seeds]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads every few bytecodes, so they interleave
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    if errors:
        raise errors[0]
    same = all(np.array_equal(a, b) for seed, grads in zip(seeds, alone) for a, b in zip(grads, together[seed]))
    return {"steps": steps, "same_gradients": same}


CASES: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "mlp": lambda a: soak(mlp_step_fn, a.steps, a.warmup, recorder=False),
    "mlp+recorder": lambda a: soak(mlp_step_fn, a.steps, a.warmup, recorder=True),
    "transformer": lambda a: soak(transformer_step_fn, a.steps, a.warmup, recorder=False),
    "transformer+recorder": lambda a: soak(transformer_step_fn, a.steps, a.warmup, recorder=True),
    "threads": lambda a: threads_agree(min(a.steps, 200)),
}


def main(argv: list[str] | None = None) -> int:
    p = C.parser(__doc__, "python bench/soak.py")
    p.add_argument("cases", nargs="*", choices=[*CASES, []], help="cases to run (default: all)")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=200)
    a = p.parse_args(argv)
    if a.quick:  # the tiny size: proves the script works; the numbers mean nothing
        a.steps, a.warmup = min(a.steps, 40), min(a.warmup, 10)
    ok = True
    for name in a.cases or list(CASES):
        result = CASES[name](a)
        flat = result.get("same_gradients", True) and result.get("growth_pct", 0.0) <= 5.0
        ok &= flat
        print(f"{name:22s} {result}  {'ok' if flat else 'FAIL'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
