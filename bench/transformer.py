"""A transformer training step, vs PyTorch (one thread): the same source under both frameworks.

A 2-layer GPT-style model (n_embd 64, 4 heads, block 32, vocabulary 65,
pre-LayerNorm blocks: causal self-attention and a GELU MLP), batch 16 x 32
token ids, cross-entropy loss, AdamW, float32. ``make_model(torch)`` is
written once against the PyTorch API and called with ``torch`` and with
``minigrad`` (``import minigrad as torch`` in a student's notebook does the
same). Both start from the same weights (copied from minigrad's) and see the
same batches; the last losses are compared as a check. One step =
``zero_grad``, forward, loss, ``backward``, ``step``.

Run: ``python bench/transformer.py [--quick]``.
"""

from __future__ import annotations

import math
from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import numpy as np  # noqa: E402  (after _common: BLAS threads)

import minigrad as mg

N_EMBD, N_HEAD, N_LAYER, BLOCK, VOCAB, BATCH = 64, 4, 2, 32, 65, 16


def make_model(torch: Any) -> Any:
    """The model, written once against the PyTorch API; ``torch`` is ``torch`` or ``minigrad``."""
    nn, F = torch.nn, torch.nn.functional

    class SelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(N_EMBD, 3 * N_EMBD)
            self.proj = nn.Linear(N_EMBD, N_EMBD)
            self.register_buffer("mask", torch.tril(torch.ones(BLOCK, BLOCK)))

        def forward(self, x: Any) -> Any:
            B, T, Cn = x.shape
            hs = Cn // N_HEAD
            q, k, v = self.qkv(x).split(Cn, dim=2)
            q = q.reshape(B, T, N_HEAD, hs).transpose(1, 2)
            k = k.reshape(B, T, N_HEAD, hs).transpose(1, 2)
            v = v.reshape(B, T, N_HEAD, hs).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            att = F.softmax(att.masked_fill(self.mask[:T, :T] == 0, float("-inf")), dim=-1)
            return self.proj((att @ v).transpose(1, 2).reshape(B, T, Cn))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.attn = nn.LayerNorm(N_EMBD), SelfAttention()
            self.ln2 = nn.LayerNorm(N_EMBD)
            self.mlp = nn.Sequential(nn.Linear(N_EMBD, 4 * N_EMBD), nn.GELU(), nn.Linear(4 * N_EMBD, N_EMBD))

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(VOCAB, N_EMBD), nn.Embedding(BLOCK, N_EMBD)
            self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])
            self.ln_f, self.head = nn.LayerNorm(N_EMBD), nn.Linear(N_EMBD, VOCAB)

        def forward(self, idx: Any) -> Any:
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln_f(x))

    return GPT()


def make_step(torch: Any, model: Any, batches: list[tuple[Any, Any]]) -> tuple[Any, dict[str, Any]]:
    """One training step per call, cycling through ``batches`` (the same code for both frameworks)."""
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    state: dict[str, Any] = {"i": 0, "loss": None}

    def step() -> None:
        x, y = batches[state["i"] % len(batches)]
        state["i"] += 1
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        state["loss"] = loss

    return step, state


def run(size: str = "full") -> list[dict[str, Any]]:
    reps, steps = (5, 3) if size == "full" else (2, 1)
    rng = np.random.default_rng(0)
    data = [(rng.integers(0, VOCAB, size=(BATCH, BLOCK)), rng.integers(0, VOCAB, size=(BATCH, BLOCK))) for _ in range(4)]
    mg.manual_seed(0)
    model = make_model(mg)
    torch = C.torch_or_none()
    wl = f"transformer step ({N_LAYER} layers, n_embd {N_EMBD}, {N_HEAD} heads, batch {BATCH}x{BLOCK}, AdamW)"

    def torch_step() -> Any:
        tmodel = make_model(torch)
        with torch.no_grad():  # the same starting weights, parameter by parameter
            for tp, p in zip(tmodel.parameters(), model.parameters()):
                tp.copy_(torch.from_numpy(p.detach().numpy().copy()))
        return make_step(torch, tmodel, [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in data])

    mg_step = make_step(mg, model, [(mg.tensor(x), mg.tensor(y)) for x, y in data])
    return C.step_rows(wl, steps, reps, "ms/step", mg_step, torch_step if torch is not None else None)

if __name__ == "__main__":
    C.main(run)
