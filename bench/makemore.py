"""A makemore MLP training step, vs PyTorch (one thread): the same source under both frameworks.

The character-level MLP of the "Zero to Hero" makemore lectures, written the
way the lectures write it: raw tensors, no ``nn.Module``. An embedding table
``C`` (27 characters, 10 dims) indexed by a (32, 3) batch of contexts, a
200-unit hidden layer with batch normalisation by hand (batch mean and
standard deviation, running statistics under ``no_grad``), ``tanh``, the
output layer, ``F.cross_entropy``, ``p.grad = None``, ``backward`` and
``p.data += -lr * p.grad``. Small tensors and about 35 ops a step, so it
measures per-op and per-node overhead more than arithmetic.

The data are random contexts and targets (the lectures' ``names.txt`` is not
bundled); both frameworks start from the same weights and see the same
batches, and the last losses are compared as a check. One step = forward,
loss, backward, update.

Run: ``python bench/makemore.py [--quick]``.
"""

from __future__ import annotations

from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import numpy as np  # noqa: E402  (after _common: BLAS threads)

import minigrad as mg

VOCAB, BLOCK, N_EMBD, N_HIDDEN, BATCH = 27, 3, 10, 200, 32


def initial_weights() -> list[np.ndarray]:
    """``C, W1, b1, W2, b2, bngain, bnbias`` as the lecture initialises them (Kaiming for tanh, a small last layer)."""
    rng = np.random.default_rng(2147483647)
    fan_in = N_EMBD * BLOCK
    return [
        rng.standard_normal((VOCAB, N_EMBD)),
        rng.standard_normal((fan_in, N_HIDDEN)) * (5 / 3) / fan_in**0.5,
        rng.standard_normal(N_HIDDEN) * 0.01,
        rng.standard_normal((N_HIDDEN, VOCAB)) * 0.01,
        np.zeros(VOCAB),
        np.ones((1, N_HIDDEN)),
        np.zeros((1, N_HIDDEN)),
    ]


def make_step(torch: Any, batches: list[tuple[Any, Any]]) -> tuple[Any, dict[str, Any]]:
    """One training step per call, cycling through ``batches``; ``torch`` is ``torch`` or ``minigrad``."""
    params = [torch.tensor(w.astype(np.float32)) for w in initial_weights()]
    Cm, W1, b1, W2, b2, bngain, bnbias = params
    for p in params:
        p.requires_grad = True
    bnmean_running = torch.zeros((1, N_HIDDEN))
    bnstd_running = torch.ones((1, N_HIDDEN))
    state: dict[str, Any] = {"i": 0, "loss": None}

    def step() -> None:
        Xb, Yb = batches[state["i"] % len(batches)]
        state["i"] += 1
        emb = Cm[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with torch.no_grad():
            bnmean_running.mul_(0.999).add_(bnmeani * 0.001)
            bnstd_running.mul_(0.999).add_(bnstdi * 0.001)
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = torch.nn.functional.cross_entropy(logits, Yb)
        for p in params:
            p.grad = None
        loss.backward()
        for p in params:
            p.data += -0.1 * p.grad
        state["loss"] = loss

    return step, state


def run(size: str = "full") -> list[dict[str, Any]]:
    reps, steps = (7, 50) if size == "full" else (2, 2)
    rng = np.random.default_rng(0)
    data = [(rng.integers(0, VOCAB, size=(BATCH, BLOCK)), rng.integers(0, VOCAB, size=BATCH)) for _ in range(8)]
    torch = C.torch_or_none()
    wl = f"makemore MLP step (block {BLOCK}, n_embd {N_EMBD}, {N_HIDDEN} hidden, batch norm by hand, batch {BATCH})"
    mg_step = make_step(mg, [(mg.tensor(x), mg.tensor(y)) for x, y in data])
    torch_step = (lambda: make_step(torch, [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in data])) if torch else None
    return C.step_rows(wl, steps, reps, "us/step", mg_step, torch_step)


if __name__ == "__main__":
    C.main(run)
