import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

# Character-level language models of increasing power, in the style of the makemore repository (our
# own code): Bigram, MLP, RNN and GRU cells, a bag of words, a Transformer. Every model maps (B, T)
# token ids to (B, T, vocab) logits and, given targets, a cross-entropy loss that skips -1.
# tests/test_parity_programs.py runs this file under PyTorch and under minigrad (only the imports change).


@dataclass
class ModelConfig:
    block_size: int = None  # length of the context (filled in from the data)
    vocab_size: int = None  # tokens 0 .. vocab_size-1
    n_layer: int = 2
    n_embd: int = 16
    n_embd2: int = 16
    n_head: int = 2


def _loss(logits, targets):
    if targets is None:
        return None
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


# ------------------------------------------------------------------------------------------- Transformer

class NewGELU(nn.Module):
    """GELU with the tanh approximation, written out."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = nn.ModuleDict(dict(
            c_fc=nn.Linear(config.n_embd, 4 * config.n_embd),
            c_proj=nn.Linear(4 * config.n_embd, config.n_embd),
            act=NewGELU(),
        ))
        m = self.mlp
        self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlpf(self.ln_2(x))
        return x


class Transformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.block_size
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)  # (1, t)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return logits, _loss(logits, targets)


# ------------------------------------------------------------------------------------------ Bag of Words

class CausalBoW(nn.Module):
    """Each position averages the embeddings of the positions up to it."""

    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        att = torch.zeros((B, T, T))
        att = att.masked_fill(self.bias[:, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return att @ x


class BoWBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.cbow = CausalBoW(config)
        self.mlp = nn.ModuleDict(dict(
            c_fc=nn.Linear(config.n_embd, config.n_embd2),
            c_proj=nn.Linear(config.n_embd2, config.n_embd),
        ))
        m = self.mlp
        self.mlpf = lambda x: m.c_proj(F.tanh(m.c_fc(x)))

    def forward(self, x):
        x = x + self.cbow(x)
        x = x + self.mlpf(x)
        return x


class BoW(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.vocab_size = config.vocab_size
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.context_block = BoWBlock(config)
        self.lm_head = nn.Linear(config.n_embd, self.vocab_size)

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        x = self.context_block(x)
        logits = self.lm_head(x)
        return logits, _loss(logits, targets)


# ------------------------------------------------------------------------------------------------- RNNs

class RNNCell(nn.Module):
    """h_t = tanh(W [x_t; h_{t-1}] + b)."""

    def __init__(self, config):
        super().__init__()
        self.xh_to_h = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)

    def forward(self, xt, hprev):
        xh = torch.cat([xt, hprev], dim=1)
        return F.tanh(self.xh_to_h(xh))


class GRUCell(nn.Module):
    """A gated cell: an update gate z blends the old state with a candidate built from a reset state."""

    def __init__(self, config):
        super().__init__()
        self.xh_to_z = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)
        self.xh_to_r = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)
        self.xh_to_hbar = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)

    def forward(self, xt, hprev):
        xh = torch.cat([xt, hprev], dim=1)
        r = F.sigmoid(self.xh_to_r(xh))
        hprev_reset = r * hprev
        xhr = torch.cat([xt, hprev_reset], dim=1)
        hbar = F.tanh(self.xh_to_hbar(xhr))
        z = F.sigmoid(self.xh_to_z(xh))
        return (1 - z) * hprev + z * hbar


class RNN(nn.Module):
    def __init__(self, config, cell_type):
        super().__init__()
        self.block_size = config.block_size
        self.vocab_size = config.vocab_size
        self.start = nn.Parameter(torch.zeros(1, config.n_embd2))  # the state before the first token
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.cell = RNNCell(config) if cell_type == "rnn" else GRUCell(config)
        self.lm_head = nn.Linear(config.n_embd2, self.vocab_size)

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        b, t = idx.size()
        emb = self.wte(idx)
        hprev = self.start.expand((b, -1))
        hiddens = []
        for i in range(t):
            xt = emb[:, i, :]
            ht = self.cell(xt, hprev)
            hprev = ht
            hiddens.append(ht)
        hidden = torch.stack(hiddens, 1)
        logits = self.lm_head(hidden)
        return logits, _loss(logits, targets)


# ------------------------------------------------------------------------------------------------- MLP

class MLP(nn.Module):
    """Concatenates the embeddings of the previous block_size tokens (Bengio et al. 2003)."""

    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.vocab_size = config.vocab_size
        self.wte = nn.Embedding(config.vocab_size + 1, config.n_embd)  # one more: <BLANK> before the start
        self.mlp = nn.Sequential(
            nn.Linear(self.block_size * config.n_embd, config.n_embd2),
            nn.Tanh(),
            nn.Linear(config.n_embd2, self.vocab_size),
        )

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        embs = []
        for k in range(self.block_size):
            tok_emb = self.wte(idx)
            idx = torch.roll(idx, 1, 1)  # shift right; the slot that wrapped round becomes <BLANK>
            idx[:, 0] = self.vocab_size
            embs.append(tok_emb)
        x = torch.cat(embs, -1)
        logits = self.mlp(x)
        return logits, _loss(logits, targets)


# ---------------------------------------------------------------------------------------------- Bigram

class Bigram(nn.Module):
    """A lookup table of next-token logits: the counting model, learned by gradient descent."""

    def __init__(self, config):
        super().__init__()
        n = config.vocab_size
        self.logits = nn.Parameter(torch.zeros((n, n)))

    def get_block_size(self):
        return 1

    def forward(self, idx, targets=None):
        logits = self.logits[idx]
        return logits, _loss(logits, targets)


# -------------------------------------------------------------------------------- data, sampling, training

class CharDataset:
    """Names as (x, y) pairs: x is <START> then the name, y the name then <STOP>, padded with -1."""

    def __init__(self, words, chars, max_word_length):
        self.words = words
        self.chars = chars
        self.max_word_length = max_word_length
        self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}  # 0 is <START>/<STOP>
        self.itos = {i: s for s, i in self.stoi.items()}

    def __len__(self):
        return len(self.words)

    def get_vocab_size(self):
        return len(self.chars) + 1

    def get_output_length(self):
        return self.max_word_length + 1

    def encode(self, word):
        return torch.tensor([self.stoi[w] for w in word], dtype=torch.long)

    def decode(self, ix):
        return "".join(self.itos[i] for i in ix)

    def __getitem__(self, idx):
        ix = self.encode(self.words[idx])
        x = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        y = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        x[1:1 + len(ix)] = ix
        y[:len(ix)] = ix
        y[len(ix) + 1:] = -1  # no loss past the <STOP> token
        return x, y


def create_datasets(words):
    chars = sorted(list(set("".join(words))))
    max_word_length = max(len(w) for w in words)
    n_test = max(1, len(words) // 10)
    return CharDataset(words[:-n_test], chars, max_word_length), CharDataset(words[-n_test:], chars, max_word_length)


def build(model_type, config):
    if model_type == "transformer":
        return Transformer(config)
    if model_type == "bigram":
        return Bigram(config)
    if model_type == "mlp":
        return MLP(config)
    if model_type in ("rnn", "gru"):
        return RNN(config, cell_type=model_type)
    if model_type == "bow":
        return BoW(config)
    raise ValueError(f"model type {model_type} is not recognized")


@torch.no_grad()
def generate(model, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
    block_size = model.get_block_size()
    for _ in range(max_new_tokens):
        idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
        logits, _ = model(idx_cond)
        logits = logits[:, -1, :] / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("Inf")
        probs = F.softmax(logits, dim=-1)
        if do_sample:
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            _, idx_next = torch.topk(probs, k=1, dim=-1)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


def evaluate(model, dataset, batch_size=4):
    model.eval()
    loader = torch.utils.data.DataLoader(dataset, shuffle=False, batch_size=batch_size)
    losses = []
    with torch.inference_mode():
        for X, Y in loader:
            logits, loss = model(X, Y)
            losses.append(loss.item())
    model.train()
    return torch.tensor(losses).mean().item()


def train(model, dataset, steps, batch_size=4, learning_rate=5e-3):
    """AdamW over the dataset in order; returns the losses."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01,
                                  betas=(0.9, 0.99), eps=1e-8)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=False, drop_last=True)
    losses = []
    while len(losses) < steps:
        for X, Y in loader:
            logits, loss = model(X, Y)
            model.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return losses
