"""Packed sequences against PyTorch: ``nn.utils.rnn``'s packing and padding, and ``nn.RNN``/``LSTM``/``GRU`` (and
``torch.lstm``'s packed overload) on a ``PackedSequence`` - values, gradients, every node of the graph, and the
errors, in PyTorch's words."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import minigrad as mg
from minigrad.nn.utils import rnn as R

torch = pytest.importorskip("torch")
TR = torch.nn.utils.rnn


def _both(lib, make):
    """``make(lib, R)`` under both frameworks, from the same seed."""
    lib.manual_seed(0)
    return make(lib, R if lib is mg else TR)


def _graph(t) -> Counter:
    """Every node's name reachable from ``t.grad_fn``, counted."""
    seen, stack, names = set(), [t.grad_fn], Counter()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        names[fn.name()] += 1
        stack.extend(f for f, _ in fn.next_functions)
    return names


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


PACKINGS = [
    dict(shape=(4, 3, 2), lengths=[4, 2, 1]),
    dict(shape=(3, 5, 2), lengths=[2, 5, 3], batch_first=True, enforce_sorted=False),
    dict(shape=(6, 4), lengths=[6, 6, 1, 3], enforce_sorted=False, total_length=8, padding_value=-1.0),
    dict(shape=(5, 2, 2, 3), lengths=[4, 4], total_length=5),
    dict(shape=(2, 3), lengths=[3, 1], batch_first=True),
]


@pytest.mark.parametrize("case", PACKINGS)
def test_packing_and_padding_equal_pytorchs(case: dict) -> None:
    results = {}
    for lib in (mg, torch):
        def make(lib, R):
            x = lib.randn(*case["shape"], dtype=lib.float64, requires_grad=True)
            bf = case.get("batch_first", False)
            p = R.pack_padded_sequence(x, case["lengths"], batch_first=bf, enforce_sorted=case.get("enforce_sorted", True))
            y, lens = R.pad_packed_sequence(p, batch_first=bf, padding_value=case.get("padding_value", 0.0),
                                            total_length=case.get("total_length"))
            (y * lib.arange(y.numel(), dtype=lib.float64).reshape(y.shape)).sum().backward()
            idx = [None if t is None else t.tolist() for t in (p.sorted_indices, p.unsorted_indices)]
            # (minigrad's CopySlices lists the copy's own node, CopyBackwards, where PyTorch's lists the copied
            # value's: a known difference, tests/test_grad_fn_names.py's "in-place through a view")
            return (_np(p.data), p.batch_sizes.tolist(), idx, _np(y), lens.tolist(), _np(x.grad),
                    _graph(p.data), set(_graph(y)) - {"CopyBackwards"}, y.grad_fn.name(), str(p.batch_sizes.dtype)[-5:])
        results[lib] = _both(lib, make)
    for ours, theirs in zip(results[mg], results[torch]):
        if isinstance(ours, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs


def test_pack_sequence_unpack_and_the_tuple() -> None:
    seqs = [mg.tensor([1.0, 2.0, 3.0]), mg.tensor([4.0]), mg.tensor([5.0, 6.0])]
    p = R.pack_sequence(seqs, enforce_sorted=False)
    q = TR.pack_sequence([torch.tensor(s.tolist()) for s in seqs], enforce_sorted=False)
    assert p.data.tolist() == q.data.tolist() and p.batch_sizes.tolist() == q.batch_sizes.tolist()
    assert [t.tolist() for t in R.unpack_sequence(p)] == [s.tolist() for s in seqs]
    data, batch_sizes, sorted_indices, unsorted_indices = p  # a named tuple, as PyTorch's
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert p.double().data.dtype == mg.float64 and p.double().batch_sizes is batch_sizes
    assert p.to(mg.float32) is p and not p.is_cuda and not p.is_pinned()
    assert R.invert_permutation(mg.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        R.pack_sequence(seqs)


ERRORS = [
    ((3, 2, 4), [2, 3], {}), ((3, 2, 4), [3, 0], {}), ((3, 2, 4), [3], {}), ((0, 2, 4), [0, 0], {}),
    ((3, 2, 4), "2d", {}), ((3, 2, 4), [3, 2], {"total_length": 2}),
]


@pytest.mark.parametrize("shape, lengths, pad", ERRORS)
def test_bad_packing_is_refused_in_pytorchs_words(shape, lengths, pad) -> None:
    seen = []
    for lib in (mg, torch):
        R_ = R if lib is mg else TR
        ln = lib.tensor([[3, 2]]) if lengths == "2d" else lengths
        with pytest.raises((RuntimeError, ValueError)) as e:
            R_.pad_packed_sequence(R_.pack_padded_sequence(lib.zeros(*shape), ln), **pad)
        seen.append((type(e.value), str(e.value)))
    assert seen[0] == seen[1]


LAYERS = [
    ("RNN", {}), ("RNN", dict(nonlinearity="relu", num_layers=2)), ("LSTM", {}), ("GRU", {}),
    ("LSTM", dict(num_layers=2, bidirectional=True)), ("GRU", dict(bidirectional=True, batch_first=True)),
    ("LSTM", dict(proj_size=2, bias=False)), ("RNN", dict(bidirectional=True, num_layers=2)),
    ("GRU", dict(num_layers=3, dropout=0.5)), ("LSTM", dict(num_layers=2, dropout=0.3, bidirectional=True)),
]


@pytest.mark.parametrize("mode, kw", LAYERS, ids=lambda v: str(v))
@pytest.mark.parametrize("given", [False, True], ids=["zeros", "hx"])
def test_recurrent_layers_on_packed_sequences_equal_pytorchs(mode: str, kw: dict, given: bool) -> None:
    results = {}
    for lib in (mg, torch):
        def make(lib, R):
            m = getattr(lib.nn, mode)(3, 4, **kw).double()
            bf = kw.get("batch_first", False)
            x = lib.randn(*((4, 5, 3) if bf else (5, 4, 3)), dtype=lib.float64, requires_grad=True)
            p = R.pack_padded_sequence(x, [2, 5, 3, 5], batch_first=bf, enforce_sorted=False)
            layers = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
            hx = None
            if given:
                h0 = lib.randn(layers, 4, kw.get("proj_size") or 4, dtype=lib.float64, requires_grad=True)
                hx = (h0, lib.randn(layers, 4, 4, dtype=lib.float64, requires_grad=True)) if mode == "LSTM" else h0
            out, h = m(p, hx)
            y, _ = R.pad_packed_sequence(out, batch_first=bf)
            hs = h if isinstance(h, tuple) else (h,)
            loss = (y * y).sum() + sum((t * t * (k + 1.5)).sum() for k, t in enumerate(hs))
            loss.backward()
            grads = [_np(x.grad)] + [_np(w.grad) for w in m.parameters()]
            if given:
                grads += [_np(t.grad) for t in (hx if isinstance(hx, tuple) else (hx,))]
            return [_np(out.data), *map(_np, hs), *grads], [_graph(out.data), *map(_graph, hs)]
        results[lib] = _both(lib, make)
    for ours, theirs in zip(results[mg][0], results[torch][0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    assert results[mg][1] == results[torch][1]


def test_the_functional_forms_take_a_packed_sequence() -> None:
    outs = {}
    for lib in (mg, torch):
        def make(lib, R):
            p = R.pack_padded_sequence(lib.randn(5, 2, 3, dtype=lib.float64), [5, 3])
            h = lib.randn(2, 2, 4, dtype=lib.float64)
            lstm, gru = lib.nn.LSTM(3, 4, num_layers=2).double(), lib.nn.GRU(3, 4, num_layers=2).double()
            rnn = lib.nn.RNN(3, 4, num_layers=2).double()
            return ([_np(t) for t in lib.lstm(p.data, p.batch_sizes, (h, h), lstm._flat_weights, True, 2, 0.0, False,
                                              False)]
                    + [_np(t) for t in lib.gru(p.data, p.batch_sizes, h, gru._flat_weights, True, 2, 0.0, False, False)]
                    + [_np(t) for t in lib.rnn_tanh(p.data, p.batch_sizes, h, rnn._flat_weights, True, 2, 0.0, False,
                                                    False)])
        outs[lib] = _both(lib, make)
    for ours, theirs in zip(outs[mg], outs[torch]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_a_wrong_input_or_hidden_state_fails_in_pytorchs_words(mode: str) -> None:
    """An RNN or GRU checks its arguments first; an LSTM of a packed sequence checks none, and fails in the ops."""
    seen = []
    for lib in (mg, torch):
        R_ = R if lib is mg else TR
        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(3, 4)
        p = R_.pack_padded_sequence(lib.randn(5, 2, 3), [5, 3])
        h, flat = lib.zeros(1, 3, 4), lib.zeros(3, 4)
        calls = [(p, (h, h) if mode == "LSTM" else h), (p, (flat, flat) if mode == "LSTM" else flat),
                 (R_.pack_padded_sequence(lib.randn(5, 2, 2), [5, 3]), None)]
        for packed, hx in calls:
            with pytest.raises((RuntimeError, IndexError)) as e:
                m(packed, hx)
            seen.append(e.value)
    for ours, theirs in zip(seen[:3], seen[3:]):  # (minigrad's ShapeError is a RuntimeError, as PyTorch's class)
        assert isinstance(ours, type(theirs)) and str(ours) == str(theirs)


def test_a_packed_classifier_trains_as_pytorchs() -> None:
    """A toy sequence classifier: embedding, packed LSTM, the last hidden state, cross entropy, Adam."""
    losses = {}
    for lib in (mg, torch):
        def make(lib, R):
            emb, lstm, head = lib.nn.Embedding(10, 6), lib.nn.LSTM(6, 8, batch_first=True), lib.nn.Linear(8, 3)
            params = [*emb.parameters(), *lstm.parameters(), *head.parameters()]
            opt = lib.optim.Adam(params, lr=0.05)
            tokens = lib.randint(0, 10, (4, 7))
            lengths, labels = [7, 3, 5, 2], lib.tensor([0, 2, 1, 2])
            seen = []
            for _ in range(4):
                packed = R.pack_padded_sequence(emb(tokens), lengths, batch_first=True, enforce_sorted=False)
                _, (h, _) = lstm(packed)
                loss = lib.nn.functional.cross_entropy(head(h[-1]), labels)
                opt.zero_grad()
                loss.backward()
                opt.step()
                seen.append(loss.item())
            return seen
        losses[lib] = _both(lib, make)
    np.testing.assert_allclose(losses[mg], losses[torch], rtol=1e-5)
    assert losses[mg][-1] < losses[mg][0]
