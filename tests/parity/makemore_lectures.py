import torch
import torch.nn.functional as F

# The makemore lectures of a "from zero" course, in our own words: bigram counts sampled with a seeded
# Generator, the same bigram model as a one-layer network, an MLP with a hand-written BatchNorm, and the
# "backprop ninja" exercise - every gradient of that MLP written by hand and compared with backward().
# tests/test_parity_programs.py runs it under PyTorch and under minigrad (only the import lines change).


def vocabulary(words):
    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0  # one token marks both the start and the end of a name
    itos = {i: s for s, i in stoi.items()}
    return stoi, itos


# ---------------------------------------------------------------------------------- part 1: bigrams

def bigram_counts(words, stoi):
    V = len(stoi)
    N = torch.zeros((V, V), dtype=torch.int32)
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            N[stoi[ch1], stoi[ch2]] += 1
    return N


def bigram_probs(N):
    P = (N + 1).float()  # add-one smoothing: no bigram has probability zero
    P /= P.sum(1, keepdims=True)
    return P


def sample_names(P, itos, n=5):
    g = torch.Generator().manual_seed(2147483647)
    out = []
    for _ in range(n):
        name = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            if ix == 0:
                break
            name.append(itos[ix])
        out.append("".join(name))
    return out


def average_nll(P, words, stoi):
    log_likelihood = 0.0
    n = 0
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            prob = P[stoi[ch1], stoi[ch2]]
            logprob = torch.log(prob)
            log_likelihood += logprob
            n += 1
    return (-log_likelihood / n).item()


def bigram_dataset(words, stoi):
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    return torch.tensor(xs), torch.tensor(ys)


def bigram_network(xs, ys, V, steps=5, lr=50.0, W=None):
    g = torch.Generator().manual_seed(2147483647)
    if W is None:
        W = torch.randn((V, V), generator=g, requires_grad=True)
    num = xs.nelement()
    losses = []
    for k in range(steps):
        xenc = F.one_hot(xs, num_classes=V).float()
        logits = xenc @ W  # log-counts
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
        W.grad = None
        loss.backward()
        W.data += -lr * W.grad
        losses.append(loss.item())
    return losses, W


# -------------------------------------------------------------------------- part 3: MLP + BatchNorm

def build_dataset(words, stoi, block_size=3):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


def init_params(vocab_size, n_embd=4, n_hidden=16, block_size=3, seed=2147483647):
    g = torch.Generator().manual_seed(seed)
    C = torch.randn((vocab_size, n_embd), generator=g)
    # Kaiming-style gain for tanh, and a small output layer so the first loss is near -log(1/V)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.1
    W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.1
    b2 = torch.randn(vocab_size, generator=g) * 0.1
    bngain = torch.randn((1, n_hidden), generator=g) * 0.1 + 1.0
    bnbias = torch.randn((1, n_hidden), generator=g) * 0.1
    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    for p in parameters:
        p.requires_grad = True
    return parameters


def train_mlp(parameters, Xtr, Ytr, steps=5, batch_size=8, seed=42, batches=None):
    """Minibatch SGD with batch statistics; running statistics kept on the side, as the lecture does."""
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    g = torch.Generator().manual_seed(seed)
    bnmean_running = torch.zeros((1, W1.shape[1]))
    bnstd_running = torch.ones((1, W1.shape[1]))
    lossi = []
    for i in range(steps):
        ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g) if batches is None else batches[i]
        Xb, Yb = Xtr[ix], Ytr[ix]
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with torch.no_grad():
            bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
            bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < 100000 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        lossi.append(loss.log10().item())
    return lossi, bnmean_running, bnstd_running


# ------------------------------------------------------------------------ part 4: backprop ninja

def forward_in_steps(parameters, Xb, Yb):
    """The MLP's forward pass cut into small steps, each kept (retain_grad) to check its gradient."""
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    n = Xb.shape[0]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff ** 2
    bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)  # Bessel's correction: divide by n-1
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes  # subtract the max: exp cannot overflow
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum ** -1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()
    steps = dict(logprobs=logprobs, probs=probs, counts_sum_inv=counts_sum_inv, counts_sum=counts_sum,
                 counts=counts, norm_logits=norm_logits, logit_maxes=logit_maxes, logits=logits, h=h,
                 hpreact=hpreact, bnraw=bnraw, bnvar_inv=bnvar_inv, bnvar=bnvar, bndiff2=bndiff2,
                 bndiff=bndiff, hprebn=hprebn, bnmeani=bnmeani, embcat=embcat, emb=emb)
    for p in parameters:
        p.grad = None
    for t in steps.values():
        t.retain_grad()
    loss.backward()
    return loss, steps


def manual_backward(parameters, Xb, Yb, s):
    """Every gradient of forward_in_steps by hand, from the loss back to the embedding table."""
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    n = Xb.shape[0]
    d = {}
    dlogprobs = torch.zeros_like(s["logprobs"])
    dlogprobs[range(n), Yb] = -1.0 / n
    d["logprobs"] = dlogprobs
    d["probs"] = (1.0 / s["probs"]) * dlogprobs
    d["counts_sum_inv"] = (s["counts"] * d["probs"]).sum(1, keepdim=True)
    dcounts = s["counts_sum_inv"] * d["probs"]
    d["counts_sum"] = (-s["counts_sum"] ** -2) * d["counts_sum_inv"]
    dcounts += torch.ones_like(s["counts"]) * d["counts_sum"]
    d["counts"] = dcounts
    d["norm_logits"] = s["counts"] * dcounts
    dlogits = d["norm_logits"].clone()
    d["logit_maxes"] = (-d["norm_logits"]).sum(1, keepdim=True)
    dlogits += F.one_hot(s["logits"].max(1).indices, num_classes=s["logits"].shape[1]) * d["logit_maxes"]
    d["logits"] = dlogits
    d["h"] = dlogits @ W2.T
    d["W2"] = s["h"].T @ dlogits
    d["b2"] = dlogits.sum(0)
    d["hpreact"] = (1.0 - s["h"] ** 2) * d["h"]
    d["bngain"] = (s["bnraw"] * d["hpreact"]).sum(0, keepdim=True)
    d["bnraw"] = bngain * d["hpreact"]
    d["bnbias"] = d["hpreact"].sum(0, keepdim=True)
    dbndiff = s["bnvar_inv"] * d["bnraw"]
    d["bnvar_inv"] = (s["bndiff"] * d["bnraw"]).sum(0, keepdim=True)
    d["bnvar"] = (-0.5 * (s["bnvar"] + 1e-5) ** -1.5) * d["bnvar_inv"]
    d["bndiff2"] = (1.0 / (n - 1)) * torch.ones_like(s["bndiff2"]) * d["bnvar"]
    dbndiff += (2 * s["bndiff"]) * d["bndiff2"]
    d["bndiff"] = dbndiff
    dhprebn = dbndiff.clone()
    d["bnmeani"] = (-dbndiff).sum(0)
    dhprebn += 1.0 / n * (torch.ones_like(s["hprebn"]) * d["bnmeani"])
    d["hprebn"] = dhprebn
    d["embcat"] = dhprebn @ W1.T
    d["W1"] = s["embcat"].T @ dhprebn
    d["b1"] = dhprebn.sum(0)
    d["emb"] = d["embcat"].view(s["emb"].shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += d["emb"][k, j]
    d["C"] = dC
    return d


def cmp(s, dt, t):
    """The lecture's check: exact, approximate, and the largest difference."""
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    return s, ex, app, maxdiff


def fused_cross_entropy_backward(logits, Yb):
    """The shortcut: dlogits = (softmax(logits) - onehot(Y)) / n, in one line."""
    n = logits.shape[0]
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n
    return dlogits
