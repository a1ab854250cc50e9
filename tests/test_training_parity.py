"""Small training loops written once for both frameworks (``lib`` is ``minigrad`` or ``torch``), run in
float64 from the same weights: an LSTM language model (RMSprop, clip_grad_norm_, OneCycleLR, a DataLoader)
and a Transformer-encoder classifier (AdamW, clip_grad_value_, SequentialLR, a module hook). Losses and
final weights must agree with PyTorch's.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _lm(lib: Any) -> Any:
    nn = lib.nn

    class CharLSTM(nn.Module):
        def __init__(self, vocab: int, emb: int, hidden: int) -> None:
            super().__init__()
            self.emb = nn.Embedding(vocab, emb)
            self.rnn = nn.LSTM(emb, hidden, num_layers=2, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, idx, targets):
            h, _ = self.rnn(self.emb(idx))
            logits = self.head(h)
            return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    return CharLSTM(7, 5, 6)


def _classifier(lib: Any) -> Any:
    nn = lib.nn

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inp = nn.Linear(3, 8)
            layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                               norm_first=True)
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False) if lib is torch else \
                nn.TransformerEncoder(layer, 2)
            self.out = nn.Linear(8, 2)

        def forward(self, x, mask):
            h = self.enc(self.inp(x), src_key_padding_mask=mask)
            return self.out(h.mean(1))

    return Encoder()


def _same_weights(ours: Any, theirs: Any) -> None:
    theirs.double()
    ours.double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())


def _train_step(loss: Any, opt: Any, sched: Any, clip: Callable[[], Any]) -> float:
    """One step as a training script takes it: zero the grads, backward, ``clip``, step the optimizer, then
    the schedule; returns the loss."""
    opt.zero_grad()
    loss.backward()
    clip()
    opt.step()
    sched.step()
    return loss.item()


def _run_lm(lib: Any, model: Any, data: tuple[np.ndarray, np.ndarray]) -> tuple[list[float], Any]:
    D = lib.utils.data
    ds = D.TensorDataset(lib.tensor(data[0]), lib.tensor(data[1]))
    loader = D.DataLoader(ds, batch_size=3, drop_last=True)
    opt = lib.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=6)
    def clip() -> None:
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)

    losses = []
    for _ in range(2):
        for x, y in loader:
            losses.append(_train_step(model(x, y), opt, sched, clip))
    return losses, model


def test_lstm_language_model_trains_like_torch() -> None:
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 7, size=(9, 6))
    data = (idx[:, :-1].copy(), idx[:, 1:].copy())
    theirs = _lm(torch)
    ours = _lm(mg)
    _same_weights(ours, theirs)
    ml, mm = _run_lm(mg, ours, data)
    tl, tm = _run_lm(torch, theirs, data)
    np.testing.assert_allclose(ml, tl, rtol=1e-9)
    for (name, p), (_, q) in zip(mm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-8, atol=1e-10, err_msg=name)


def _run_classifier(lib: Any, model: Any, x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> tuple[list[float], list]:
    opt = lib.optim.AdamW(model.parameters(), lr=0.01)
    L = lib.optim.lr_scheduler
    sched = L.SequentialLR(opt, [L.LinearLR(opt, start_factor=0.2, total_iters=2), L.ExponentialLR(opt, 0.9)],
                           milestones=[2])
    seen = []
    model.out.register_full_backward_hook(lambda m, gi, go: seen.append(np.round(go[0].numpy(), 10).tolist()))
    losses = []
    xt, yt, mt = lib.tensor(x), lib.tensor(y), lib.tensor(mask)
    for _ in range(4):
        loss = lib.nn.functional.cross_entropy(model(xt, mt), yt)
        losses.append(_train_step(loss, opt, sched, lambda: lib.nn.utils.clip_grad_value_(model.parameters(), 0.5)))
    return losses, seen


def test_transformer_classifier_trains_like_torch() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5, 3))
    y = np.array([0, 1, 1, 0])
    mask = np.zeros((4, 5), dtype=bool)
    mask[1, 3:] = True
    theirs = _classifier(torch)
    ours = _classifier(mg)
    _same_weights(ours, theirs)
    ml, mseen = _run_classifier(mg, ours, x, y, mask)
    tl, tseen = _run_classifier(torch, theirs.train(), x, y, mask)
    np.testing.assert_allclose(ml, tl, rtol=1e-9)
    np.testing.assert_allclose(np.array(mseen), np.array(tseen), rtol=1e-7, atol=1e-10)


def _seeded_gru_lm(lib: Any) -> list[float]:
    """A whole program from one seed: initial weights, data, shuffled batches and dropout masks all drawn."""
    lib.manual_seed(0)
    nn = lib.nn
    emb = nn.Embedding(7, 5)
    rnn = nn.GRU(5, 6, batch_first=True, num_layers=2, dropout=0.2)
    head = nn.Linear(6, 7)
    params = list(emb.parameters()) + list(rnn.parameters()) + list(head.parameters())
    x = lib.randint(0, 7, (12, 6))
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x[:, :-1], x[:, 1:]), batch_size=4, shuffle=True)
    opt = lib.optim.AdamW(params, lr=0.01)
    losses = []
    for _ in range(2):
        for xb, yb in loader:
            h, _ = rnn(emb(xb))
            loss = nn.functional.cross_entropy(head(h).reshape(-1, 7), yb.reshape(-1))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
    return losses


@pytest.mark.skipif(not hasattr(mg, "Generator"), reason="needs mg.Generator (PyTorch's random streams)")
def test_a_seeded_program_gives_torch_s_losses() -> None:
    np.testing.assert_allclose(_seeded_gru_lm(mg), _seeded_gru_lm(torch), rtol=1e-5)


@pytest.mark.skipif(not hasattr(mg, "Generator"), reason="needs mg.Generator (PyTorch's random streams)")
@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("batch_first", [True, False])
def test_a_seeded_transformer_with_dropout_gives_torch_s_numbers(batch_first: bool) -> None:
    """Dropout masks after attention follow PyTorch's memory layout (a batch-first output is a
    transposed view there), so even the masks agree."""
    out = {}
    for lib in (mg, torch):
        lib.manual_seed(0)
        model = lib.nn.Transformer(8, 2, 2, 2, 16, dropout=0.2, batch_first=batch_first)
        src, tgt = lib.randn(3, 5, 8), lib.randn(3, 4, 8)
        if not batch_first:
            src, tgt = src.transpose(0, 1), tgt.transpose(0, 1)
        y = model(src, tgt)
        (y * y).sum().backward()
        out[lib.__name__] = (y.detach().numpy(), model.encoder.layers[0].linear1.weight.grad.numpy())
    for a, b in zip(out["minigrad"], out["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
