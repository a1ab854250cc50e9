"""A small character-level GPT trained on three of Shakespeare's sonnets, written as a PyTorch user would.

The model is the decoder-only transformer of GPT-2 in miniature: token and
position embeddings, pre-LayerNorm blocks of causal multi-head
self-attention (``tril`` mask, ``masked_fill``, ``softmax``) and a GELU MLP,
a final LayerNorm and a linear head; trained with AdamW and a cosine
learning-rate schedule on next-character prediction. It prints the loss
curve and a sample drawn with ``multinomial``.

Run it::

    python examples/char_gpt.py                  # ~300 steps, a few minutes on a laptop CPU
    python examples/char_gpt.py --steps 50 --n-layer 1
    minigrad-tui examples/char_gpt.py --steps 1  # step through one training step's backward pass

The source uses only PyTorch's spelling (``import minigrad as torch`` would
read the same; see ``tests/test_torch_parity.py`` for a model that runs on
both).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Sequence

import minigrad as mg

nn = mg.nn
F = mg.nn.functional

TEXT = Path(__file__).resolve().parent / "data" / "sonnets.txt"


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where position t sees positions <= t only."""

    def __init__(self, n_embd: int, n_head: int, block_size: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)
        self.register_buffer("mask", mg.tril(mg.ones(block_size, block_size)) == 0)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        B, T, C = x.size()
        hs = C // self.n_head
        q, k, v = (t.view(B, T, self.n_head, hs).transpose(1, 2) for t in self.qkv(x).split(C, dim=2))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = F.softmax(att.masked_fill(self.mask[:T, :T], float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int, block_size: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class CharGPT(nn.Module):
    def __init__(self, vocab_size: int, n_embd: int = 32, n_head: int = 4, n_layer: int = 2, block_size: int = 32) -> None:
        super().__init__()
        self.block_size = block_size
        self.tok = nn.Embedding(vocab_size, n_embd)
        self.pos = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx: mg.Tensor) -> mg.Tensor:
        _, T = idx.shape
        x = self.tok(idx) + self.pos(mg.arange(T, device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    @mg.no_grad()
    def generate(self, idx: mg.Tensor, n: int) -> mg.Tensor:
        """Append ``n`` characters, each drawn from the softmax of the last position's logits."""
        for _ in range(n):
            logits = self(idx[:, -self.block_size:])[:, -1, :]
            nxt = mg.multinomial(F.softmax(logits, dim=-1), 1)
            idx = mg.cat([idx, nxt], dim=1)
        return idx


def train(steps: int = 300, batch_size: int = 16, block_size: int = 32, n_embd: int = 32, n_head: int = 4,
          n_layer: int = 2, lr: float = 3e-3, seed: int = 0, verbose: bool = True) -> tuple[list[float], str]:
    """Train on the sonnets; returns the loss of every step and a generated sample."""
    mg.manual_seed(seed)
    text = TEXT.read_text()
    chars = sorted(set(text))
    data = mg.tensor([chars.index(c) for c in text])
    model = CharGPT(len(chars), n_embd, n_head, n_layer, block_size)
    opt = mg.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = mg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(steps, 1), eta_min=lr / 10)
    if verbose:
        print(f"{len(text)} characters, vocabulary {len(chars)}, "
              f"{sum(p.numel() for p in model.parameters())} parameters, {steps} steps")
    losses = []
    for step in range(steps):
        starts = mg.randint(0, len(text) - block_size - 1, (batch_size,)).tolist()
        x = mg.stack([data[s:s + block_size] for s in starts])
        y = mg.stack([data[s + 1:s + block_size + 1] for s in starts])
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, len(chars)), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        if verbose and (step % max(steps // 15, 1) == 0 or step == steps - 1):
            bar = "#" * int(40 * loss.item() / max(losses[0], 1e-9))
            print(f"step {step:4d}  loss {loss.item():.3f}  {bar}")
    model.eval()
    start = mg.tensor([[chars.index("S")]])
    sample = "".join(chars[i] for i in model.generate(start, 120)[0].tolist())
    if verbose:
        print("sample:\n" + sample)
    return losses, sample


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--block-size", type=int, default=32)
    parser.add_argument("--n-embd", type=int, default=32)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-layer", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args(argv)
    train(a.steps, a.batch_size, a.block_size, a.n_embd, a.n_head, a.n_layer, a.lr, a.seed)


if __name__ == "__main__":
    main()
