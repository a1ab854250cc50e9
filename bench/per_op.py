"""Per-op overhead: ``a+b``, ``a*b`` and ``c = a*b + a`` on (4, 4) float32 with autograd on
(forward only), a 100-op chain forward + backward, and the GC-tracked objects an op leaves,
vs PyTorch (one thread) and a plain-NumPy floor.

On tensors this small the arithmetic is nothing: what is measured is the
framework's cost per op (argument checking, kernel choice, grad-node
creation, and in backward the engine's loop). The NumPy floor is the same
arithmetic as bare ufunc calls, with the backward written out by hand.

GC-tracked objects per op: with the cyclic collector disabled, ``a*b`` runs
1000 times with each result kept alive (as a chain keeps its graph), and the
growth of ``gc.get_count()[0]`` - the collector's own count of GC-tracked
allocations minus deallocations, which triggers a collection when it passes
700 - is divided by 1000. The objects an op leaves behind (output tensor,
grad node, edges, saved tensors, ...) are what make the collector run and
walk the graph on long chains.

Run: ``python bench/per_op.py [--quick]``.
"""

from __future__ import annotations

import gc
from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import numpy as np  # noqa: E402  (after _common: BLAS threads)

import minigrad as mg

CHAIN_PAIRS = 50  # 50 x (mul, add) = 100 ops


def make_minigrad() -> tuple[Any, Any]:
    mg.manual_seed(0)
    a = mg.randn(4, 4, requires_grad=True)
    b = mg.randn(4, 4, requires_grad=True)

    def one_op() -> Any:
        return a * b + a

    def chain() -> None:
        x = a
        for _ in range(CHAIN_PAIRS):
            x = x * b + a
        x.sum().backward()
        a.grad = None
        b.grad = None

    return one_op, chain, a, b


def make_torch(torch: Any) -> tuple[Any, Any]:
    torch.manual_seed(0)
    a = torch.randn(4, 4, requires_grad=True)
    b = torch.randn(4, 4, requires_grad=True)

    def one_op() -> Any:
        return a * b + a

    def chain() -> None:
        x = a
        for _ in range(CHAIN_PAIRS):
            x = x * b + a
        x.sum().backward()
        a.grad = None
        b.grad = None

    return one_op, chain, a, b


def make_numpy() -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4)).astype(np.float32)
    b = rng.standard_normal((4, 4)).astype(np.float32)

    def one_op() -> Any:
        return np.add(np.multiply(a, b), a)

    def chain() -> None:
        xs = []
        x = a
        for _ in range(CHAIN_PAIRS):
            xs.append(x)
            x = np.add(np.multiply(x, b), a)
        x.sum()
        g = np.ones_like(x)
        ga = np.zeros_like(a)
        gb = np.zeros_like(b)
        for xk in reversed(xs):  # d(x*b + a): to a, to b, to x
            ga = ga + g
            gb = gb + g * xk
            g = g * b
        ga = ga + g  # the chain starts at x = a

    return one_op, chain, a, b


def gc_tracked_per_op(fn: Any, n: int = 1000) -> float:
    """Growth of the collector's count of GC-tracked objects per call of ``fn``, results kept alive."""
    fn()  # warm-up: caches filled on first use are not counted
    gc.collect()
    gc.disable()
    try:
        keep = []
        before = gc.get_count()[0]
        for _ in range(n):
            keep.append(fn())
        after = gc.get_count()[0]
    finally:
        gc.enable()
    del keep
    return (after - before) / n


def run(size: str = "full") -> list[dict[str, Any]]:
    torch = C.torch_or_none()
    reps, n1, nc = (7, 2000, 30) if size == "full" else (2, 5, 1)
    mg_op, mg_chain, ma, mb = make_minigrad()
    np_op, np_chain, na, nb = make_numpy()
    ops = {"minigrad": mg_op, "numpy": np_op}
    adds = {"minigrad": lambda: ma + mb, "numpy": lambda: np.add(na, nb)}
    muls = {"minigrad": lambda: ma * mb, "numpy": lambda: np.multiply(na, nb)}
    chains = {"minigrad": mg_chain, "numpy": np_chain}
    if torch is not None:
        ops["pytorch"], chains["pytorch"], ta, tb = make_torch(torch)
        adds["pytorch"] = lambda: ta + tb
        muls["pytorch"] = lambda: ta * tb
    t_add = C.timeit_interleaved(adds, number=n1, repeats=reps)
    t_mul = C.timeit_interleaved(muls, number=n1, repeats=reps)
    t_op = C.timeit_interleaved(ops, number=n1, repeats=reps)
    t_ch = C.timeit_interleaved(chains, number=nc, repeats=reps)
    rows = []
    for name, times, label, per in (("per-op a+b (4x4 float32, grad, forward)", t_add, "op", 1),
                                    ("per-op a*b (4x4 float32, grad, forward)", t_mul, "op", 1),
                                    ("per-op c = a*b + a (4x4, 2 ops)", t_op, "op", 2),
                                    ("100-op chain fwd+bwd (4x4)", t_ch, "chain", 100)):
        for variant in times:
            note = f"{C.median(times[variant]) / per * 1e6:.2f} us per op"
            if variant == "minigrad" and "pytorch" in times:
                rows.append(C.row(name, variant, C.median(times[variant]) * 1e6, "us", C.ratio(times[variant], times["pytorch"]),
                                  "pytorch", "<= 1.0x", note))
            else:
                rows.append(C.row(name, variant, C.median(times[variant]) * 1e6, "us", note=note))
        rows.append(C.row(name, "minigrad", None, "", C.ratio(times["minigrad"], times["numpy"]), "numpy floor",
                          "", "how far above bare ufunc calls"))
        if "pytorch" not in times:
            rows.append(C.row(name, "pytorch", None, "", note="PyTorch not installed: no comparison"))
    wl = "GC-tracked objects per op, a*b with grad (result kept alive)"
    rows.append(C.row(wl, "minigrad", gc_tracked_per_op(lambda: ma * mb), "objects", target="<= 6",
                      note="gc.get_count()[0] growth per op, collector off"))
    if torch is not None:
        rows.append(C.row(wl, "pytorch", gc_tracked_per_op(lambda: ta * tb), "objects",
                          note="its graph lives in C++, unseen by Python's collector"))
    return rows


if __name__ == "__main__":
    C.main(run)
