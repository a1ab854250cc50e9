"""MLP training step on the digits data set, vs PyTorch (one thread).

Model 64 -> 128 -> ReLU -> 128 -> ReLU -> 10, batch 64 (scikit-learn's bundled
``load_digits``, no download), cross-entropy loss. One step = ``zero_grad``,
forward, loss, ``backward``, optimizer ``step``; measured with SGD (momentum
0.9) and with Adam. Both frameworks start from the same weights and see the
same batches; the losses after the timed steps are compared as a check.

Run: ``python bench/mlp.py [--quick]``.
"""

from __future__ import annotations

from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import numpy as np  # noqa: E402  (after _common: BLAS threads)

import minigrad as mg

BATCH = 64


def data() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    d = load_digits()
    return (d.data / 16.0).astype(np.float32), d.target.astype(np.int64)


def run(size: str = "full") -> list[dict[str, Any]]:
    reps, steps = (7, 20) if size == "full" else (2, 2)
    x_all, y_all = data()
    n_batches = len(x_all) // BATCH
    batches = [(x_all[i * BATCH:(i + 1) * BATCH], y_all[i * BATCH:(i + 1) * BATCH]) for i in range(n_batches)]
    mg_batches = [(mg.tensor(x), mg.tensor(y)) for x, y in batches]
    torch = C.torch_or_none()
    rows = []
    for opt_name in ("SGD", "Adam"):
        mg.manual_seed(0)
        model = mg.nn.Sequential(mg.nn.Linear(64, 128), mg.nn.ReLU(), mg.nn.Linear(128, 128), mg.nn.ReLU(),
                                 mg.nn.Linear(128, 10))
        params = list(model.parameters())
        opt = (mg.optim.SGD(params, lr=0.05, momentum=0.9) if opt_name == "SGD"
               else mg.optim.Adam(params, lr=1e-3))
        state = {"i": 0, "loss": None}

        def mg_step() -> None:
            x, y = mg_batches[state["i"] % n_batches]
            state["i"] += 1
            opt.zero_grad()
            loss = mg.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            state["loss"] = loss

        fns: dict[str, Any] = {"minigrad": lambda: [mg_step() for _ in range(steps)]}
        if torch is not None:
            tmodel = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                         torch.nn.ReLU(), torch.nn.Linear(128, 10))
            with torch.no_grad():  # the same starting weights
                for tp, p in zip(tmodel.parameters(), params):
                    tp.copy_(torch.from_numpy(p.detach().numpy().copy()))
            topt = (torch.optim.SGD(tmodel.parameters(), lr=0.05, momentum=0.9) if opt_name == "SGD"
                    else torch.optim.Adam(tmodel.parameters(), lr=1e-3))
            t_batches = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches]
            tstate = {"i": 0, "loss": None}

            def torch_step() -> None:
                x, y = t_batches[tstate["i"] % n_batches]
                tstate["i"] += 1
                topt.zero_grad()
                loss = torch.nn.functional.cross_entropy(tmodel(x), y)
                loss.backward()
                topt.step()
                tstate["loss"] = loss

            fns["pytorch"] = lambda: [torch_step() for _ in range(steps)]
        times = C.timeit_interleaved(fns, number=1, repeats=reps)
        wl = f"MLP step 64-128-128-10, batch 64, {opt_name}"
        note = ""
        if torch is not None:
            a, b = state["loss"].item(), tstate["loss"].item()
            note = f"last loss minigrad {a:.4f} / pytorch {b:.4f}"
            rows.append(C.row(wl, "minigrad", C.median(times["minigrad"]) / steps * 1e6, "us/step",
                              C.ratio(times["minigrad"], times["pytorch"]), "pytorch", "<= 1.0x", note))
            rows.append(C.row(wl, "pytorch", C.median(times["pytorch"]) / steps * 1e6, "us/step"))
        else:
            rows.append(C.row(wl, "minigrad", C.median(times["minigrad"]) / steps * 1e6, "us/step",
                              note="PyTorch not installed: no comparison"))
    return rows


if __name__ == "__main__":
    C.main(run)
