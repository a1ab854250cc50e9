"""``nn.Embedding``/``F.embedding`` with ``max_norm``, ``norm_type`` and ``scale_grad_by_freq`` against PyTorch
in float64 and float32: the renormalised weight (in place, outside the graph), the output, the gradient, the
graph (``EmbeddingBackward0`` over the weight's ``AccumulateGrad``) and the version the renorm bumps.
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
