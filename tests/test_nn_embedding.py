"""``nn.Embedding``/``F.embedding`` with ``max_norm``, ``norm_type`` and ``scale_grad_by_freq`` against PyTorch
in float64 and float32: the renormalised weight (in place, outside the graph), the output, the gradient, the
graph (``EmbeddingBackward0`` over the weight's ``AccumulateGrad``) and the version the renorm bumps; and
``nn.EmbeddingBag``/``F.embedding_bag`` (one ``EmbeddingBagBackward0``) in its modes and forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

W = np.random.default_rng(0).standard_normal((6, 3)) * 1.5
IDX = [[1, 2, 1], [5, 0, 1]]


def _embed(lib: Any, dtype: str, **kwargs: Any) -> tuple[Any, Any]:
    w = lib.tensor(W, dtype=getattr(lib, dtype), requires_grad=True)
    out = lib.nn.functional.embedding(lib.tensor(IDX), w, **kwargs)
    (out * lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), dtype=getattr(lib, dtype))).sum().backward()
    return w, out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kwargs", [{"max_norm": 1.0}, {"max_norm": 1.5, "norm_type": 1.0},
                                    {"max_norm": 0.5, "norm_type": float("inf"), "padding_idx": 0},
                                    {"scale_grad_by_freq": True}, {"scale_grad_by_freq": True, "padding_idx": 1},
                                    {"max_norm": 2.0, "scale_grad_by_freq": True}],
                         ids=["max_norm", "norm_type 1", "norm_type inf, padding_idx", "scale_grad_by_freq",
                              "scale_grad_by_freq, padding_idx", "both"])
def test_embedding_options_match_pytorch(kwargs: dict, dtype: str) -> None:
    (w, out), (tw, tout) = _embed(mg, dtype, **kwargs), _embed(torch, dtype, **kwargs)
    tol = {"rtol": 1e-12, "atol": 1e-14} if dtype == "float64" else {"rtol": 1e-6, "atol": 1e-7}
    for a, b in ((w.detach(), tw.detach()), (out.detach(), tout.detach()), (w.grad, tw.grad)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)
    assert w._version == tw._version
    assert out.grad_fn.name() == "EmbeddingBackward0" and w.is_leaf


def test_max_norm_leaves_rows_not_picked_and_short_rows_alone() -> None:
    w = mg.tensor(W)
    before = w.numpy().copy()
    mg.nn.functional.embedding(mg.tensor([0, 0, 3]), w, max_norm=1.0)
    norms = np.linalg.norm(before, axis=1)
    for row in range(6):
        if row in (0, 3) and norms[row] > 1.0:
            np.testing.assert_allclose(np.linalg.norm(w.numpy()[row]), 1.0, rtol=1e-6)
        else:
            np.testing.assert_array_equal(w.numpy()[row], before[row])


def test_module_and_from_pretrained_match_pytorch() -> None:
    outs = []
    for lib in (mg, torch):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(6, 3, max_norm=1.0, padding_idx=-2)
        pre = lib.nn.Embedding.from_pretrained(lib.tensor(W), max_norm=2.0, norm_type=3.0)
        outs.append([emb(lib.tensor(IDX)).detach().numpy(), emb.weight.detach().numpy(), pre(lib.tensor([4, 4])).numpy(),
                     pre.weight.numpy(), int(pre.weight.requires_grad), emb.padding_idx])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_sparse_gradients_are_refused_by_name() -> None:
    with pytest.raises(NotImplementedError, match="sparse=True"):
        mg.nn.Embedding(4, 2, sparse=True)(mg.tensor([1]))


# -- EmbeddingBag ---------------------------------------------------------------------------------------------

BAG_CASES = {
    "mean, offsets": ([1, 2, 0, 4, 4, 3], [0, 2, 2], {}),
    "sum, 2-D": ([[1, 2], [0, 4], [4, 4]], None, {"mode": "sum"}),
    "max, an empty bag": ([1, 2, 0, 4, 4, 3], [0, 2, 2, 5], {"mode": "max"}),
    "max, 2-D, padding_idx": ([[1, 2, 2], [0, 4, 3]], None, {"mode": "max", "padding_idx": 2}),
    "sum, per_sample_weights, padding_idx": ([1, 2, 0, 4, 4, 3], [0, 2, 2], {"mode": "sum", "per_sample_weights": True,
                                                                          "padding_idx": 4}),
    "mean, include_last_offset, a padded bag": ([1, 2, 0, 4, 4, 3], [0, 2, 3, 5], {"include_last_offset": True,
                                                                                 "padding_idx": 0}),
    "sum, 2-D, per_sample_weights": ([[1, 2], [0, 4]], None, {"mode": "sum", "per_sample_weights": True}),
    "mean, max_norm": ([1, 2, 0, 4], [0, 1], {"max_norm": 1.0, "norm_type": 1.0}),
}


def _bag(lib: Any, dtype: str, idx: Any, offsets: Any, kwargs: dict) -> tuple[Any, ...]:
    kw = dict(kwargs)
    w = lib.tensor(W, dtype=getattr(lib, dtype), requires_grad=True)
    psw = None
    if kw.pop("per_sample_weights", False):
        psw = lib.tensor(np.linspace(-1, 2, np.size(idx)).reshape(np.shape(idx)), dtype=getattr(lib, dtype),
                         requires_grad=True)
    out = lib.nn.functional.embedding_bag(lib.tensor(idx), w, None if offsets is None else lib.tensor(offsets),
                                          per_sample_weights=psw, **kw)
    (out * lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), dtype=getattr(lib, dtype))).sum().backward()
    names = [out.grad_fn.name()] + [None if n is None else n.name() for n, _ in out.grad_fn.next_functions]
    return names, out.detach().numpy(), w.detach().numpy(), w.grad.numpy(), None if psw is None else psw.grad.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(BAG_CASES))
def test_embedding_bag_matches_pytorch(case: str, dtype: str) -> None:
    """One node (its next functions: the weight and the sample weights or None), the bags' values, the
    weight (renormalised with ``max_norm``) and both gradients."""
    ours, theirs = _bag(mg, dtype, *BAG_CASES[case]), _bag(torch, dtype, *BAG_CASES[case])
    assert ours[0] == theirs[0]
    tol = {"rtol": 1e-12, "atol": 1e-14} if dtype == "float64" else {"rtol": 1e-6, "atol": 1e-6}
    for a, b in zip(ours[1:], theirs[1:]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, **tol)


def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count() -> None:
    """Each row's gradient divided by how often its index occurs, as ``F.embedding``'s (and PyTorch's GPU
    kernel's); PyTorch's CPU kernel divides some rows by another index's count, so it is not the reference."""
    idx, offsets = [1, 2, 1, 4, 1], [0, 3]
    w = mg.tensor(W, requires_grad=True)
    mg.nn.functional.embedding_bag(mg.tensor(idx), w, mg.tensor(offsets), mode="sum", scale_grad_by_freq=True).sum().backward()
    ref = mg.tensor(W, requires_grad=True)
    mg.nn.functional.embedding(mg.tensor(idx), ref, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), ref.grad.numpy(), rtol=1e-12)


def test_embedding_bag_module_matches_pytorch() -> None:
    outs = []
    for lib in (mg, torch):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(6, 3, mode="max", padding_idx=-1)
        pre = lib.nn.EmbeddingBag.from_pretrained(lib.tensor(W), mode="sum", include_last_offset=True)
        outs.append([bag(lib.tensor([[1, 5], [2, 3]])).detach().numpy(), bag.weight.detach().numpy(),
                     pre(lib.tensor([1, 2, 3]), lib.tensor([0, 1, 3])).numpy(), int(pre.weight.requires_grad)])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("call", [
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 7]), w, lib.tensor([0])),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([1])),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0, 3]), include_last_offset=True),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0]), mode="max",
                                                   per_sample_weights=lib.ones(2, dtype=w.dtype)),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0]), padding_idx=9),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([[1, 2]]), w, lib.tensor([0])),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0]), mode="max",
                                                   scale_grad_by_freq=True),
    lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w, lib.tensor([0]), mode="median"),
], ids=["index out of range", "offsets[0]", "offsets[-1]", "weights in max mode", "padding_idx", "no offsets",
        "2-D with offsets", "max with scale_grad_by_freq", "mode"])
def test_embedding_bag_errors_are_pytorchs(call) -> None:
    """PyTorch's classes and words (its float32 kernel's, for an index out of range: its float64 one words it
    otherwise), the first line, up to the printed class of a tensor."""
    errors = []
    for lib in (mg, torch):
        with pytest.raises(Exception) as info:
            call(lib, lib.tensor(W, dtype=lib.float32))
        errors.append(info.value)
    ours, theirs = (str(e).split("\n")[0].split("<class")[0] for e in errors)
    assert isinstance(errors[0], type(errors[1])) and ours == theirs


def test_embedding_bag_refuses_sample_weights_of_another_dtype() -> None:
    with pytest.raises(RuntimeError, match="to have the same type as tensor for argument #1 'per_sample_weights'"):
        mg.nn.functional.embedding_bag(mg.tensor([1, 2]), mg.tensor(W, dtype=mg.float32), mg.tensor([0]), mode="sum",
                                       per_sample_weights=mg.ones(2, dtype=mg.float64))
