"""A GPT written the way nanoGPT-style repositories write theirs, trained on three sonnets.

What it shows beyond ``char_gpt.py``: a ``GPTConfig`` dataclass, a ``ModuleDict`` named
``transformer``, **weight tying** (the token embedding and the output layer are one
Parameter, so its gradient is the sum of both uses), GPT-2's initialisation with
``nn.init.normal_``/``zeros_`` and a smaller scale for residual projections,
``configure_optimizers`` with two AdamW parameter groups (matrices decay, biases and
LayerNorm gains do not; the fused AdamW on a GPU), gradient clipping, dropout after the embeddings, in attention
and after each residual branch (``--dropout``; off by default), and ``generate`` with a
temperature and **top-k** sampling (``torch.topk`` then ``torch.multinomial``). Attention
uses ``F.scaled_dot_product_attention`` when the framework has it, else the explicit
masked softmax.

On a GPU (``--device cuda``) a training step makes no copy between host and device and
never waits for it: the positions are made on the model's device, the dropout masks are
drawn there, the causal mask is built once, and each batch is copied from pinned memory
without a wait (``pin_memory().to(device, non_blocking=True)``); the loop waits only where
it asks for the loss (``loss.item()``). ``tests/gpu/test_no_hidden_sync.py`` holds it to that, and
``bench/gpu_kernels.py`` times it against PyTorch with the same source.

Run it::

    python examples/gpt.py                 # 100 steps, some seconds
    python examples/gpt.py --steps 20 --dropout 0.1
    python examples/gpt.py --device cuda   # on the GPU
    minigrad-tui examples/gpt.py --steps 1 # step through one training step's backward pass

Only the three import lines below name minigrad: with ``import torch``, ``import torch.nn as
nn`` and ``from torch.nn import functional as F`` the same file runs on PyTorch.
"""

from __future__ import annotations

import argparse
import inspect
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import minigrad as torch
import minigrad.nn as nn
from minigrad.nn import functional as F

TEXT = Path(__file__).resolve().parent / "data" / "sonnets.txt"


@dataclass
class GPTConfig:
    block_size: int = 32
    vocab_size: int = 64
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 32
    dropout: float = 0.0
    bias: bool = True


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where position t sees positions <= t only."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout
        self.flash = hasattr(F, "scaled_dot_product_attention")
        if not self.flash:
            mask = torch.tril(torch.ones(config.block_size, config.block_size))
            self.register_buffer("bias", mask.view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
                   for t in self.c_attn(x).split(self.n_embd, dim=2))
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                               is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = F.softmax(att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")), dim=-1)
            y = self.attn_dropout(att) @ v
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = nn.Sequential(nn.Linear(config.n_embd, 4 * config.n_embd), nn.GELU(),
                                 nn.Linear(4 * config.n_embd, config.n_embd), nn.Dropout(config.dropout))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying: one Parameter, two uses
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight") or name.endswith("mlp.2.weight"):
                # each block adds two residual branches: scale them down with the depth (GPT-2)
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        _, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)  # made where the model is
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def configure_optimizers(self, weight_decay: float, learning_rate: float, betas: tuple[float, float],
                             device_type: str = "cpu"):
        params = [p for p in self.parameters() if p.requires_grad]
        groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        # on a GPU, the fused AdamW: the whole update in one kernel per 32 parameters
        fused = "fused" in inspect.signature(torch.optim.AdamW).parameters and device_type == "cuda"
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas, **({"fused": True} if fused else {}))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -self.config.block_size:])
            logits = logits[:, -1, :] / temperature
            if top_k is not None:  # keep the k most likely tokens; the rest get probability 0
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            idx_next = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def train(steps: int = 100, batch_size: int = 8, block_size: int = 16, n_layer: int = 2, lr: float = 1e-2,
          seed: int = 0, verbose: bool = True, dropout: float = 0.0, device: str = "cpu") -> tuple[list[float], str]:
    """Train on the sonnets; returns the loss of every step and a sample drawn with top-k."""
    torch.manual_seed(seed)
    text = TEXT.read_text()
    chars = sorted(set(text))
    data = torch.tensor([chars.index(c) for c in text], dtype=torch.long)
    model = GPT(GPTConfig(block_size=block_size, vocab_size=len(chars), n_layer=n_layer, dropout=dropout)).to(device)
    optimizer = model.configure_optimizers(0.1, lr, (0.9, 0.95), torch.device(device).type)
    losses = []
    for step in range(steps):
        ix = torch.randint(len(data) - block_size - 1, (batch_size,)).tolist()
        x = torch.stack([data[i:i + block_size] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
        if device != "cpu":  # from page-locked memory the copy is queued and the host goes on
            x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if verbose and (step % max(steps // 10, 1) == 0 or step == steps - 1):
            print(f"step {step:4d}  loss {loss.item():.3f}")
    model.eval()
    out = model.generate(torch.tensor([[chars.index("S")]], device=device), 80, temperature=0.8, top_k=10)
    sample = "".join(chars[i] for i in out[0].tolist())
    if verbose:
        print("sample:\n" + sample)
    return losses, sample


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--n-layer", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda for the GPU")
    a = parser.parse_args(argv)
    train(a.steps, a.batch_size, a.block_size, a.n_layer, seed=a.seed, dropout=a.dropout, device=a.device)


if __name__ == "__main__":
    main()
