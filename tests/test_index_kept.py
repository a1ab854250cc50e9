"""An op that indexes keeps the index it was given: a mask or index tensor rewritten in place after the
forward no longer changes the backward (it gave a silently wrong gradient; PyTorch refuses such a backward,
minigrad computes the gradient of the forward that ran)."""

from __future__ import annotations

import numpy as np

import minigrad as mg


def _rewrite(t: mg.Tensor) -> None:
    t.copy_(t.flip(0))


def test_index_put_keeps_its_mask() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = mg.tensor([10.0, 20.0], requires_grad=True)
    mask = mg.tensor([True, True, False])
    y = (x * 1).index_put((mask,), v)
    _rewrite(mask)
    (y * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 3.0])
    np.testing.assert_array_equal(v.grad.numpy(), [1.0, 2.0])


def test_getitem_and_setitem_keep_their_index() -> None:
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    idx = mg.tensor([0, 0, 3])
    y = x[idx]
    _rewrite(idx)
    (y * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 0.0, 3.0])
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = w * 1
    mask = mg.tensor([False, True, True])
    h[mask] = 0.0
    _rewrite(mask)
    h.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 0.0, 0.0])


def test_index_select_take_and_masked_select_keep_their_index() -> None:
    def grads(rewrite: bool) -> list[list[float]]:
        out = []
        for f, make in ((lambda x, i: x.index_select(0, i), lambda: mg.tensor([0, 0, 3])),
                        (lambda x, i: mg.take(x, i), lambda: mg.tensor([1, 3, 3])),
                        (lambda x, m: x.masked_select(m), lambda: mg.tensor([True, True, False, False]))):
            x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
            idx = make()
            y = f(x, idx)
            if rewrite:
                _rewrite(idx)
            (y * mg.arange(1.0, y.numel() + 1)).sum().backward()
            out.append(x.grad.tolist())
        return out

    assert grads(rewrite=True) == grads(rewrite=False)


def test_an_index_read_without_a_node_is_not_copied() -> None:
    """Only a node keeps (and copies) the index: a read that records nothing uses the index where it is."""
    x = mg.arange(4.0)
    idx = mg.tensor([0, 2])
    assert x[idx].tolist() == [0.0, 2.0] and x.index_select(0, idx).tolist() == [0.0, 2.0]
    w = mg.arange(4.0).requires_grad_()
    y = w[idx]
    assert y.grad_fn.attrs["index"][0] is not idx._data
