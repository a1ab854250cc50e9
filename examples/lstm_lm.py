"""A word-level LSTM language model on three sonnets, in the shape of PyTorch's word_language_model.

``nn.Embedding`` -> ``nn.LSTM`` (two layers) -> ``nn.Linear``, with the decoder's weight
**tied** to the embedding. The text is cut into ``batch_size`` parallel columns
(``batchify``); training walks them in windows of ``bptt`` words, carrying the hidden state
from one window to the next but **detaching** it (``repackage_hidden``), so backpropagation
through time stops at the window's edge. Gradients are clipped with
``nn.utils.clip_grad_norm_`` and the update is plain SGD written by hand
(``p.data.add_(p.grad, alpha=-lr)``). Switch ``--model GRU`` or ``RNN_TANH``-style ``RNN``.

Run it::

    python examples/lstm_lm.py                   # 20 epochs, some seconds
    python examples/lstm_lm.py --model GRU --epochs 2
    minigrad-tui examples/lstm_lm.py --steps 1   # one window's backward pass through time

Only the import lines name minigrad; with ``torch`` in their place the file runs on PyTorch.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Sequence

import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F

TEXT = Path(__file__).resolve().parent / "data" / "sonnets.txt"


class RNNModel(nn.Module):
    def __init__(self, rnn_type: str, ntoken: int, ninp: int, nhid: int, nlayers: int, dropout: float = 0.2,
                 tie_weights: bool = True) -> None:
        super().__init__()
        self.ntoken, self.rnn_type, self.nhid, self.nlayers = ntoken, rnn_type, nhid, nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:  # "Using the Output Embedding to Improve Language Models" (Press & Wolf, 2016)
            self.decoder.weight = self.encoder.weight
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))      # (T, B, ninp): time first, as nn.LSTM expects
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output))
        return F.log_softmax(decoded.view(-1, self.ntoken), dim=1), hidden

    def init_hidden(self, bsz: int):
        weight = next(self.parameters())
        zeros = weight.new_zeros(self.nlayers, bsz, self.nhid)
        return (zeros, weight.new_zeros(self.nlayers, bsz, self.nhid)) if self.rnn_type == "LSTM" else zeros


def batchify(data, bsz: int):
    """A 1-D stream of word ids as ``bsz`` columns: shape (len // bsz, bsz)."""
    nbatch = data.size(0) // bsz
    return data[:nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i: int, bptt: int):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def repackage_hidden(h):
    """The same values, cut from the graph that made them."""
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


def train(model_type: str = "LSTM", epochs: int = 20, steps: int | None = None, bptt: int = 8, batch_size: int = 4,
          lr: float = 5.0, clip: float = 0.25, seed: int = 0, verbose: bool = True) -> list[float]:
    """Train on the sonnets' words; returns the average loss of each epoch."""
    torch.manual_seed(seed)
    words = re.findall(r"[a-z']+|[.,;:!?]", TEXT.read_text().lower())
    vocab = sorted(set(words))
    data = batchify(torch.tensor([vocab.index(w) for w in words], dtype=torch.long), batch_size)
    model = RNNModel(model_type, len(vocab), 32, 32, 2)
    criterion = nn.NLLLoss()
    history = []
    for epoch in range(1, epochs + 1):
        model.train()
        hidden = model.init_hidden(batch_size)
        total, n = 0.0, 0
        for batch, i in enumerate(range(0, data.size(0) - 1, bptt)):
            if steps is not None and batch >= steps:
                break
            x, targets = get_batch(data, i, bptt)
            hidden = repackage_hidden(hidden)  # keep the state, drop its history
            model.zero_grad()
            output, hidden = model(x, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            total, n = total + loss.item(), n + 1
        history.append(total / max(n, 1))
        if verbose:
            print(f"epoch {epoch:2d}  loss {history[-1]:.3f}  perplexity {math.exp(history[-1]):8.2f}")
    return history


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="LSTM", choices=["LSTM", "GRU", "RNN"])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--steps", type=int, default=None, help="stop each epoch after this many windows")
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args(argv)
    train(a.model, a.epochs, a.steps, seed=a.seed)


if __name__ == "__main__":
    main()
