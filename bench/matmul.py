"""1024x1024 float32 matmul, forward + backward, vs the same three products in plain NumPy.

Forward ``C = A @ B``; backward with a seed ``G``: ``dA = G @ B^T`` and
``dB = A^T @ G``. That is 3 x 2n^3 flops; both sides are reported in
GFLOP/s. minigrad runs ``(a @ b).backward(g)``; NumPy runs the three
``np.matmul`` calls. At this size BLAS does nearly all the work, so the
ratio shows what the framework adds on top (kernel layer, grad node, the
engine, and the accumulation of ``.grad``).

Run: ``python bench/matmul.py [--quick]``.
"""

from __future__ import annotations

from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import numpy as np  # noqa: E402  (after _common: BLAS threads)

import minigrad as mg


def run(size: str = "full") -> list[dict[str, Any]]:
    n, reps = (1024, 7) if size == "full" else (64, 2)
    rng = np.random.default_rng(0)
    an = rng.standard_normal((n, n)).astype(np.float32)
    bn = rng.standard_normal((n, n)).astype(np.float32)
    gn = rng.standard_normal((n, n)).astype(np.float32)
    a = mg.tensor(an, requires_grad=True)
    b = mg.tensor(bn, requires_grad=True)
    g = mg.tensor(gn)

    def minigrad_step() -> None:
        a.grad = None
        b.grad = None
        (a @ b).backward(g)

    def numpy_step() -> None:
        np.matmul(an, bn)
        np.matmul(gn, bn.T)
        np.matmul(an.T, gn)

    fns = {"minigrad": minigrad_step, "numpy": numpy_step}
    torch = C.torch_or_none()
    if torch is not None:
        ta = torch.from_numpy(an).requires_grad_(True)
        tb = torch.from_numpy(bn).requires_grad_(True)
        tg = torch.from_numpy(gn)

        def torch_step() -> None:
            ta.grad = None
            tb.grad = None
            (ta @ tb).backward(tg)

        fns["pytorch (1 thread)"] = torch_step
    # Correctness first: the same numbers as NumPy's products.
    minigrad_step()
    np.testing.assert_allclose(a.grad.numpy(), gn @ bn.T, rtol=1e-3, atol=1e-2)
    np.testing.assert_allclose(b.grad.numpy(), an.T @ gn, rtol=1e-3, atol=1e-2)
    times = C.timeit_interleaved(fns, number=1, repeats=reps)
    flops = 3 * 2 * n**3
    wl = f"matmul {n}x{n} fwd+bwd"
    rows = []
    for name, ts in times.items():
        gflops = flops / C.median(ts) / 1e9
        if name == "minigrad":
            # GFLOP/s ratio = inverse time ratio, per repeat.
            r = C.ratio(times["numpy"], ts)
            rows.append(C.row(wl, name, gflops, "GFLOP/s", r, "numpy GFLOP/s", ">= 0.95x",
                              f"{C.median(ts) * 1e3:.1f} ms"))
        else:
            rows.append(C.row(wl, name, gflops, "GFLOP/s", note=f"{C.median(ts) * 1e3:.1f} ms"))
    return rows


if __name__ == "__main__":
    C.main(run)
