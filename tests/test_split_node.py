"""``split``, ``chunk`` and ``unbind`` make one node with an output per piece, as PyTorch's
(``SplitBackward0``, ``SplitWithSizesBackward0``, ``UnbindBackward0``): NOTE [ One node for the pieces ]
in ``ops/shape.py``. Gradients, errors and views against PyTorch (float64); the backward is one
``cat``/``stack``; the recorder's events name the node and its outputs."""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

A = np.random.default_rng(7).standard_normal((4, 6))


def _x(lib: Any) -> Any:
    return lib.tensor(A, dtype=lib.float64, requires_grad=True)


SPLITS: dict[str, Callable[[Any], tuple[Any, ...]]] = {
    "split": lambda x: x.split(2, 1),
    "split uneven": lambda x: x.split(4, 1),
    "split sizes": lambda x: x.split([1, 0, 3], 0),
    "split negative dim": lambda x: x.split(3, -1),
    "chunk": lambda x: x.chunk(3, 0),
    "torch.split": lambda x: type(x).__module__.split(".")[0] == "torch" and torch.split(x, 2, 1) or mg.split(x, 2, 1),
    "unbind": lambda x: x.unbind(1),
    "unbind rows": lambda x: x.unbind(0),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_the_pieces_share_one_node_named_as_pytorchs(name):
    ours, theirs = SPLITS[name](_x(mg)), SPLITS[name](_x(torch))
    assert [type(p.grad_fn).__name__ for p in ours] == [type(p.grad_fn).__name__ for p in theirs]
    assert all(p.grad_fn is ours[0].grad_fn for p in ours)
    assert str(ours[0].grad_fn).split(" object")[0] == str(theirs[0].grad_fn).split(" object")[0]
    assert [tuple(p.shape) for p in ours] == [tuple(p.shape) for p in theirs]
    assert [type(f).__name__ for f, _ in ours[0].grad_fn.next_functions] == \
           [type(f).__name__ for f, _ in theirs[0].grad_fn.next_functions]


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_any_subset_of_pieces_gives_pytorchs_gradient(name):
    """Every subset of pieces used (the others get no gradient: the node fills them with zeros), first and
    second order."""
    n = len(SPLITS[name](_x(torch)))
    for used in itertools.chain.from_iterable(itertools.combinations(range(n), k) for k in range(1, n + 1)):
        grads = []
        for lib in (torch, mg):
            x = _x(lib)
            pieces = SPLITS[name](x)
            loss = sum(((pieces[k] * (k + 1)) ** 2).sum() for k in used)
            g, = lib.autograd.grad(loss, x, create_graph=True)
            gg, = lib.autograd.grad((g * g).sum(), x)
            grads.append((g.detach().numpy().copy(), gg.numpy().copy()))
        np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12, atol=1e-12, err_msg=f"{name} {used}")
        np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12, atol=1e-12, err_msg=f"{name} {used}")


def test_the_backward_joins_the_pieces_with_one_cat():
    """One ``concat`` (``stack`` for unbind) and no scatter into a zero tensor per piece (what three
    ``getitem`` slices cost: a full-size zero buffer each, and two additions)."""
    by_piece = {"concat": np.repeat([[1.0, 1, 2, 2, 3, 3]], 4, 0), "stack": np.repeat([[1.0], [2], [3], [4]], 6, 1)}
    for make, joined in ((lambda x: x.split(2, 1), "concat"), (lambda x: x.unbind(0), "stack")):
        x = mg.tensor(A, requires_grad=True)
        pieces = make(x)
        loss = sum((p * (k + 1)).sum() for k, p in enumerate(pieces))
        with mg.trace() as tr:
            loss.backward()
        ops = [e.op for e in tr.events if type(e).__name__ == "ApiCall"]
        assert ops.count(joined) == 1 and "getitem_grad" not in ops and "add" not in ops, ops
        np.testing.assert_array_equal(x.grad.numpy(), by_piece[joined])


ERRORS: dict[str, Callable[[Any, Any], Any]] = {
    "split 0": lambda lib, x: x.split(0),
    "split negative": lambda lib, x: x.split(-1),
    "sizes not summing": lambda lib, x: x.split([1, 2]),
    "negative size": lambda lib, x: x.split([5, -1]),
    "dim out of range": lambda lib, x: x.split(2, 2),
    "dim -3": lambda lib, x: x.split(2, -3),
    "split of a 0-d tensor": lambda lib, x: lib.tensor(1.0).split(1),
    "split float size": lambda lib, x: x.split(1.5),
    "chunk 0": lambda lib, x: x.chunk(0),
    "unbind 0-d": lambda lib, x: lib.tensor(1.0).unbind(),
    "unbind out of range": lambda lib, x: x.unbind(2),
    "tensor_split 0": lambda lib, x: x.tensor_split(0),
    "tensor_split 0-d": lambda lib, x: lib.tensor(1.0).tensor_split(2),
    "tensor_split float indices": lambda lib, x: x.tensor_split(lib.tensor([1.5])),
    "tensor_split 2-d indices": lambda lib, x: x.tensor_split(lib.tensor([[1]])),
    "hsplit uneven": lambda lib, x: x.hsplit(4),
    "vsplit 1-d": lambda lib, x: lib.arange(6.0).vsplit(2),
    "dsplit 2-d": lambda lib, x: x.dsplit(2),
}


def _base_class(exc: BaseException) -> type:
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins")


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_raise_pytorchs_error_and_leave_no_node(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch, _x(torch))
    x = _x(mg)
    with mg.trace() as tr:
        with pytest.raises(Exception) as ours:
            ERRORS[name](mg, x)
    assert isinstance(ours.value, _base_class(theirs.value)), (ours.value, theirs.value)
    assert str(theirs.value).split("(")[0].strip() in str(ours.value), (str(ours.value), str(theirs.value))
    assert not [e for e in tr.events if type(e).__name__ == "NodeCreate"]


EMPTY_AND_EDGE: dict[str, Callable[[Any, Any], Any]] = {
    "split of an empty dim": lambda lib, x: lib.zeros(0, 3).split(2),
    "split 0 of an empty dim": lambda lib, x: lib.zeros(0, 3).split(0),
    "chunk of an empty dim": lambda lib, x: lib.zeros(0, 3).chunk(2),
    "unbind of an empty dim": lambda lib, x: lib.zeros(0, 3).unbind(),
    "chunk more than the size": lambda lib, x: x.chunk(9),
    "unbind of 1-d": lambda lib, x: lib.arange(3.0).unbind(),
    "tensor_split sections": lambda lib, x: x.tensor_split(4, 1),
    "tensor_split indices": lambda lib, x: x.tensor_split([1, 5, 9], 1),
    "tensor_split negative indices": lambda lib, x: x.tensor_split([-4, -1], 1),
    "tensor_split tensor indices": lambda lib, x: x.tensor_split(lib.tensor([1, 3]), 1),
    "tensor_split decreasing indices": lambda lib, x: x.tensor_split([3, 1], 1),
    "hsplit 1-d": lambda lib, x: lib.arange(6.0).hsplit(3),
    "vsplit": lambda lib, x: x.vsplit([1, 3]),
    "dsplit": lambda lib, x: x.reshape(2, 2, 6).dsplit(3),
}


@pytest.mark.parametrize("name", sorted(EMPTY_AND_EDGE))
def test_edge_forms_give_pytorchs_pieces(name):
    ours, theirs = EMPTY_AND_EDGE[name](mg, _x(mg)), EMPTY_AND_EDGE[name](torch, _x(torch))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__


def test_the_pieces_are_views_of_the_input():
    for lib in (mg, torch):
        x = lib.tensor([[0.0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
        q, k = x.split(2, 1)
        rows = x.unbind(0)
        assert q._base is x and rows[2]._base is x
        assert q.stride() == (4, 1) and rows[1].storage_offset() == 4
        k.mul_(10)  # no autograd: a piece may be changed in place, the input sees it
        rows[0].zero_()
        assert x.tolist() == [[0.0, 0.0, 0.0, 0.0], [4.0, 5.0, 60.0, 70.0], [8.0, 9.0, 100.0, 110.0]], lib
        assert x._version == q._version == 2


def test_a_view_of_a_piece_is_refused_in_place_in_pytorchs_words():
    """The last view op names the error (``Select``), as PyTorch's."""
    for lib in (mg, torch):
        h = _x(lib) * 1
        with pytest.raises(RuntimeError, match=r"^Output 0 of Select is a view and is being modified inplace"):
            h.split(2, 1)[1][0].mul_(2)
        with pytest.raises(RuntimeError, match=r"^Output 1 of SplitWithSizes is a view"):
            h.split([2, 4], 1)[1].mul_(2)


def test_recorded_split_names_the_pieces_and_one_node():
    x = mg.tensor(A, requires_grad=True)
    with mg.trace() as tr:
        q, k, v = x.split(2, dim=1)
        ((q * k).sum() + v.mean()).backward()
    nodes = [e for e in tr.events if type(e).__name__ == "NodeCreate" and e.op == "split"]
    assert len(nodes) == 1 and nodes[0].name.startswith("SplitBackward0")
    made: dict[str, Any] = {}
    for e in tr.events:  # (the saved pieces, unpacked in backward, keep their names: the first are the outputs)
        if type(e).__name__ == "TensorCreate":
            made.setdefault(e.name, (e.grad_node, e.out_slot))
    assert made["q"] == (nodes[0].node, 0) and made["k"] == (nodes[0].node, 1) and made["v"] == (nodes[0].node, 2)
    runs = [e for e in tr.events if type(e).__name__ == "NodeRun" and e.node == nodes[0].node]
    assert len(runs) == 1 and len(runs[0].grads_in) == 3  # one gradient per piece, joined in one run
    np.testing.assert_allclose(x.grad.numpy()[:, 4:], np.full((4, 2), 1 / 8))
