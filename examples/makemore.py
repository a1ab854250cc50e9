"""Make more names: character-level models from a bigram table to a causal bag of words, in makemore's style.

One training script for five models of increasing power, all mapping ``(B, T)`` token ids
to next-token logits: ``bigram`` (a learned table), ``mlp`` (the previous three characters'
embeddings concatenated), ``rnn`` and ``gru`` (a recurrent cell written out with
``nn.Linear``, so the TUI shows backpropagation through time node by node), and ``bow``
(a causal bag of words). A ``CharDataset`` pads each name with ``-1`` targets that
``cross_entropy(ignore_index=-1)`` skips; a ``DataLoader`` shuffles it with a seeded
``torch.Generator``; samples come from ``torch.multinomial`` over the top-k characters.

Run it::

    python examples/makemore.py                     # the GRU, 150 steps, some seconds
    python examples/makemore.py --type bigram --steps 300
    minigrad-tui examples/makemore.py --steps 1     # one step's backward pass through time

Only the import lines name minigrad; with ``torch`` in their place the file runs on PyTorch.
"""

from __future__ import annotations

import argparse
from typing import Sequence

import minigrad as torch
import minigrad.nn as nn
from minigrad.nn import functional as F
from minigrad.utils.data import DataLoader, Dataset

NAMES = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth mila ella
avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla riley zoey nora lily eleanor
hannah lillian addison aubrey ellie stella natalie zoe leah hazel violet aurora savannah audrey brooklyn bella
claire skylar lucy paisley everly anna caroline nova genesis emilia kennedy samantha maya willow kinsley naomi
aaliyah elena sarah ariana allison gabriella alice madelyn cora ruby eva serenity autumn adeline hailey gianna
valentina isla eliana quinn nevaeh ivy sadie piper lydia alexa josephine emery julia delilah arianna vivian
kaylee sophie brielle madeline liam noah william james oliver benjamin elijah lucas mason logan alexander ethan
jacob michael daniel henry jackson sebastian aiden matthew samuel david joseph carter owen wyatt john jack luke
jayden dylan grayson levi isaac gabriel julian mateo anthony jaxon lincoln joshua christopher andrew theodore
caleb ryan asher nathan thomas leo isaiah charles josiah hudson christian hunter connor eli ezra aaron landon
adrian jonathan nolan jeremiah easton elias colton cameron carson robert angel maverick nicholas dominic jaxson
greyson adam ian austin santiago jordan cooper brayden roman evan ezekiel xavier jose jace jameson leonardo""".split()


class CharDataset(Dataset):
    """Each name as (x, y): x is <START> then the name, y the name then <STOP>, both padded."""

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self.chars = sorted(set("".join(words)))
        self.max_len = max(len(w) for w in words)
        self.stoi = {ch: i + 1 for i, ch in enumerate(self.chars)}  # 0 is both <START> and <STOP>
        self.itos = {i: ch for ch, i in self.stoi.items()}

    def __len__(self) -> int:
        return len(self.words)

    def vocab_size(self) -> int:
        return len(self.chars) + 1

    def __getitem__(self, i: int):
        ix = torch.tensor([self.stoi[c] for c in self.words[i]], dtype=torch.long)
        x = torch.zeros(self.max_len + 1, dtype=torch.long)
        y = torch.zeros(self.max_len + 1, dtype=torch.long)
        x[1:1 + len(ix)] = ix
        y[:len(ix)] = ix
        y[len(ix) + 1:] = -1  # no loss after <STOP>
        return x, y


class Bigram(nn.Module):
    def __init__(self, vocab: int, **_) -> None:
        super().__init__()
        self.logits = nn.Parameter(torch.zeros((vocab, vocab)))

    def forward(self, idx):
        return self.logits[idx]


class MLP(nn.Module):
    """The previous ``context`` characters' embeddings, concatenated, through one hidden layer."""

    def __init__(self, vocab: int, n_embd: int = 16, n_hidden: int = 64, context: int = 3) -> None:
        super().__init__()
        self.vocab, self.context = vocab, context
        self.wte = nn.Embedding(vocab + 1, n_embd)  # one more row: <BLANK> before the name starts
        self.mlp = nn.Sequential(nn.Linear(context * n_embd, n_hidden), nn.Tanh(), nn.Linear(n_hidden, vocab))

    def forward(self, idx):
        embs = []
        for _ in range(self.context):
            embs.append(self.wte(idx))
            idx = torch.roll(idx, 1, 1)  # shift right by one; the first column becomes <BLANK>
            idx[:, 0] = self.vocab
        return self.mlp(torch.cat(embs, -1))


class GRUCell(nn.Module):
    """h' = (1 - z) * h + z * tanh(W [x; r * h]): gates decide how much of the state to keep."""

    def __init__(self, n_in: int, n_hidden: int) -> None:
        super().__init__()
        self.xh_to_z = nn.Linear(n_in + n_hidden, n_hidden)
        self.xh_to_r = nn.Linear(n_in + n_hidden, n_hidden)
        self.xh_to_hbar = nn.Linear(n_in + n_hidden, n_hidden)

    def forward(self, xt, hprev):
        xh = torch.cat([xt, hprev], dim=1)
        r = torch.sigmoid(self.xh_to_r(xh))
        hbar = torch.tanh(self.xh_to_hbar(torch.cat([xt, r * hprev], dim=1)))
        z = torch.sigmoid(self.xh_to_z(xh))
        return (1 - z) * hprev + z * hbar


class RNNCell(nn.Module):
    def __init__(self, n_in: int, n_hidden: int) -> None:
        super().__init__()
        self.xh_to_h = nn.Linear(n_in + n_hidden, n_hidden)

    def forward(self, xt, hprev):
        return torch.tanh(self.xh_to_h(torch.cat([xt, hprev], dim=1)))


class RNN(nn.Module):
    def __init__(self, vocab: int, n_embd: int = 16, n_hidden: int = 32, cell: str = "gru") -> None:
        super().__init__()
        self.start = nn.Parameter(torch.zeros(1, n_hidden))
        self.wte = nn.Embedding(vocab, n_embd)
        self.cell = GRUCell(n_embd, n_hidden) if cell == "gru" else RNNCell(n_embd, n_hidden)
        self.lm_head = nn.Linear(n_hidden, vocab)

    def forward(self, idx):
        b, t = idx.size()
        emb = self.wte(idx)
        h = self.start.expand((b, -1))
        hiddens = []
        for i in range(t):  # one cell call per position: backpropagation through time
            h = self.cell(emb[:, i, :], h)
            hiddens.append(h)
        return self.lm_head(torch.stack(hiddens, 1))


class BoW(nn.Module):
    """Each position averages the embeddings up to it (a causal bag of words), then an MLP."""

    def __init__(self, vocab: int, n_embd: int = 16, n_hidden: int = 64, block_size: int = 16) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.register_buffer("mask", torch.tril(torch.ones(block_size, block_size)))
        self.mlp = nn.Sequential(nn.Linear(n_embd, n_hidden), nn.Tanh(), nn.Linear(n_hidden, n_embd))
        self.lm_head = nn.Linear(n_embd, vocab)

    def forward(self, idx):
        _, t = idx.size()
        x = self.wte(idx) + self.wpe(torch.arange(t))
        att = F.softmax(self.mask[:t, :t].masked_fill(self.mask[:t, :t] == 0, float("-inf")), dim=-1)
        x = x + att @ x
        x = x + self.mlp(x)
        return self.lm_head(x)


MODELS = {"bigram": Bigram, "mlp": MLP, "rnn": lambda v: RNN(v, cell="rnn"), "gru": RNN, "bow": BoW}


@torch.no_grad()
def sample(model: nn.Module, data: CharDataset, n: int, top_k: int = 5, generator=None) -> list[str]:
    """Draw ``n`` names one character at a time from the top-k characters."""
    idx = torch.zeros(n, 1, dtype=torch.long)
    for _ in range(data.max_len + 1):
        logits = model(idx)[:, -1, :]
        v, _ = torch.topk(logits, top_k)
        logits[logits < v[:, [-1]]] = -float("Inf")
        nxt = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1, generator=generator)
        idx = torch.cat((idx, nxt), dim=1)
    names = []
    for row in idx[:, 1:].tolist():
        row = row[:row.index(0)] if 0 in row else row
        names.append("".join(data.itos[i] for i in row))
    return names


def train(model_type: str = "gru", steps: int = 150, batch_size: int = 32, lr: float = 1e-2, seed: int = 0,
          verbose: bool = True) -> tuple[list[float], list[str]]:
    """Train one model on the names; returns the losses and a few samples."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    data = CharDataset(NAMES)
    model = MODELS[model_type](data.vocab_size())
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, betas=(0.9, 0.99))
    loader = DataLoader(data, batch_size=batch_size, shuffle=True, drop_last=True, generator=g)
    losses = []
    while len(losses) < steps:
        for x, y in loader:
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=-1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if verbose and (len(losses) % max(steps // 10, 1) == 1 or len(losses) == steps):
                print(f"step {len(losses) - 1:4d}  loss {loss.item():.3f}")
            if len(losses) == steps:
                break
    names = sample(model, data, 8, generator=g)
    if verbose:
        print("samples: " + " ".join(names))
    return losses, names


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--type", default="gru", choices=sorted(MODELS))
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args(argv)
    train(a.type, a.steps, a.batch_size, seed=a.seed)


if __name__ == "__main__":
    main()
