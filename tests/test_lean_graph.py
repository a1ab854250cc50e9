"""Lean graph data (NOTE [ Lean graph data ] in autograd/grad_node.py): what one grad node
costs, and that the shared parts never leak between nodes."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd.grad_node import Edge


def _node(t: mg.Tensor):
    return t.grad_fn


def test_in_meta_and_no_grad_edges_are_shared_between_nodes() -> None:
    x = mg.randn(3, 4, requires_grad=True)
    c = mg.randn(3, 4)
    y1, y2 = x * c, x * c
    n1, n2 = _node(y1), _node(y2)
    assert n1.in_meta is n2.in_meta  # one interned ((shape, dtype, device),) per kind
    assert n1.in_meta == ((((3, 4), mg.float32, "cpu"),),)  # [slot][rank] -> (shape, dtype, device)
    assert n1.next_edges[1] is n2.next_edges[1]  # c's row and edge: node None, shared
    assert n1.next_edges[1][0].node is None and n1.next_edges[1][0].shape == (3, 4)
    # A leaf's row to its AccumulationNode is shared by every op that uses the leaf.
    assert n1.next_edges[0] is n2.next_edges[0]
    assert n1.next_edges[0][0].node.is_accumulation
    assert isinstance(n1.next_edges, tuple) and isinstance(n1.next_edges[0], tuple)
    # An edge to an intermediate's grad node is each node's own.
    h = x * 2
    z1, z2 = h * c, h * c
    assert _node(z1).next_edges[0][0] is not _node(z2).next_edges[0][0]
    assert _node(z1).next_edges[0][0].node is _node(z2).next_edges[0][0].node is _node(h)


def test_a_leaf_row_outlives_the_graphs_that_use_it() -> None:
    # The row lives on the leaf tensor (and keeps its AccumulationNode alive), so the
    # graph of the next step reuses it and gradients still accumulate into .grad.
    x = mg.randn(3, requires_grad=True)
    (x * 2).sum().backward()
    row = _node(x * 3).next_edges[0]
    assert _node(x * 4).next_edges[0] is row
    (x * 5).sum().backward()
    assert list(x.grad.numpy()) == list((2 * np.ones(3) + 5).astype(np.float32))


def test_default_attrs_are_shared_and_never_changed() -> None:
    x = mg.randn(2, 3, requires_grad=True)
    s1, s2 = x.sum(), x.sum()
    assert _node(s1).attrs is _node(s2).attrs
    before = dict(_node(s1).attrs)
    x.sum(dim=1).sum().backward()  # a call with its own attrs
    assert _node(s1).attrs == before


def test_mul_keeps_only_what_its_gradients_need() -> None:
    """PyTorch's MulBackward0: ``other`` is kept only when ``self`` needs a gradient."""
    x = mg.randn(5, requires_grad=True)
    c = mg.randn(5)
    y = x * c
    saved = _node(y).wrappers
    assert saved[0] is None and saved[1].tensor_id == c._id  # x is not kept: c needs no gradient
    ref = weakref.ref(saved[1].data)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), c.numpy())
    del ref

    # Both need gradients: both kept, both gradients right.
    a = mg.randn(5, requires_grad=True)
    b = mg.randn(5, requires_grad=True)
    z = a * b
    assert [w.tensor_id for w in _node(z).wrappers] == [a._id, b._id]
    z.sum().backward()
    np.testing.assert_array_equal(a.grad.detach().numpy(), b.detach().numpy())
    np.testing.assert_array_equal(b.grad.detach().numpy(), a.detach().numpy())


def test_an_unsaved_input_may_change_in_place_afterwards() -> None:
    """Not kept means not checked: as in PyTorch, changing x in place after ``x * c`` is fine."""
    x0 = mg.randn(4, requires_grad=True)
    x = x0 * 1.0  # a non-leaf we may change in place
    c = mg.tensor([1.0, 2.0, 3.0, 4.0])
    y = x * c
    x.add_(1.0)
    y.sum().backward()
    np.testing.assert_array_equal(x0.grad.numpy(), c.numpy())
    # c is kept: changing it is still caught.
    y2 = x0 * c.requires_grad_(False)
    c.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y2.sum().backward()


def test_div_keeps_y_for_both_gradients_and_x_only_for_y() -> None:
    x = mg.randn(3, requires_grad=True)
    d = mg.tensor([2.0, 4.0, 8.0])
    y = x / d
    saved = _node(y).wrappers
    assert saved[0] is None and saved[1].tensor_id == d._id
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 / d.numpy())


def test_the_unsaved_input_is_freed_with_its_tensor() -> None:
    """In a chain ``y = y * c`` nothing keeps the intermediate arrays alive."""
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    c = mg.tensor([0.5, 0.5])
    y = x * c
    arr = weakref.ref(y._data)
    y = y * c
    gc.collect()
    assert arr() is None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.25, 0.25])


def test_a_node_is_a_handful_of_objects() -> None:
    """GC-tracked objects left alive per ``a * b`` (both leaves, result kept): the tensor,
    its meta, the node, its edge tuples and edges, the saved-tensor tuple (the leaves' wrappers
    are shared). A regression guard
    on the count, not a timing."""
    a = mg.randn(4, 4, requires_grad=True)
    b = mg.randn(4, 4, requires_grad=True)
    keep = [a * b for _ in range(5)]  # AccumulationNodes exist from here on
    gc.collect()
    gc.disable()
    try:
        n0 = len(gc.get_objects())
        keep += [a * b for _ in range(200)]
        per_op = (len(gc.get_objects()) - n0 - 1) / 200  # the list comprehension's list
    finally:
        gc.enable()
    assert per_op <= 9, per_op


def test_a_link_of_a_chain_is_seven_objects_and_no_cycle() -> None:
    """``y = y * c`` over a non-leaf ``y``: the node, its edge tuples and the Edge to y's node,
    the saved-tensor tuple, y's TensorWrapper and its version counter. A saved input holds its
    grad node as the edges do (no weak reference, no tuple); a saved output holds its own node
    weakly, or node -> wrapper -> node would be a cycle."""
    c = mg.randn(4, 4, requires_grad=True)
    y = mg.randn(4, 4, requires_grad=True) * c
    gc.collect()
    gc.disable()
    try:
        n0 = len(gc.get_objects())
        for _ in range(200):
            y = y * c
        per_link = (len(gc.get_objects()) - n0) / 200
    finally:
        gc.enable()
    assert per_link <= 7.05, per_link
    node = y.grad_fn
    saved_y = node.wrappers[0]  # mul saves its x (here y) for the gradient of c
    assert saved_y.grad_ref is node.next_edges[0][0].node
    out = (y * 1.0).exp()
    assert isinstance(out.grad_fn.wrappers[0].grad_ref, weakref.ref)  # exp saves its output
    assert out.grad_fn.wrappers[0].grad_ref() is out.grad_fn
    # Gradients of gradients still reach the saved input's node.
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3.0
    (g,) = mg.autograd.grad((h * h).sum(), [x], create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(gg.numpy(), [18.0, 18.0])


def test_edge_is_still_an_edge() -> None:
    x = mg.randn(2, requires_grad=True)
    e = _node(x * 2).next_edges[0][0]
    assert isinstance(e, Edge) and e.node is not None and (e.slot, e.rank) == (0, 0) and e.shape == (2,)


def test_a_live_leaf_keeps_one_accumulation_node() -> None:
    """NOTE [ One AccumulationNode while the leaf lives ]: a training loop reuses it."""
    w = mg.randn(3, requires_grad=True)
    seen = set()
    for _ in range(3):
        y = (w * 2.0).sum()
        seen.add(y.grad_fn.next_functions[0][0].next_functions[0][0])
        y.backward()
        del y  # the whole graph goes; the leaf's node stays with the leaf
    assert len(seen) == 1
    np.testing.assert_array_equal(w.grad.numpy(), [6.0, 6.0, 6.0])
    acc = weakref.ref(seen.pop())
    del w
    assert acc() is None  # and goes with it, by reference counting


def test_a_node_made_before_the_recording_is_announced_in_it() -> None:
    """Every node an event names has its node.create in the same trace."""
    w = mg.randn(3, requires_grad=True)
    (w * 2.0).sum().backward()  # warm-up, not recorded: w's AccumulationNode exists now
    for _ in range(2):  # two recordings: each announces it once
        with mg.trace(values=False) as tr:
            (w * 3.0).sum().backward()
            (w * 4.0).sum().backward()
        creates = [e for e in tr.events if e.kind == "node.create"]
        announced = [e.node for e in creates]
        assert len(announced) == len(set(announced))
        acc = [e.node for e in creates if e.is_accumulation]
        assert len(acc) == 1
        for e in creates:
            for edge in e.edges:
                assert edge["next"] is None or edge["next"] in announced[: announced.index(e.node)]
        ran = {e.node for e in tr.events if e.kind == "node.run"}
        assert ran <= set(announced)


def test_first_grad_takes_a_fresh_gradient_without_a_copy_and_copies_a_shared_one() -> None:
    """NOTE [ The first .grad without a copy ]: never two .grad fields on one array."""
    a = mg.randn(3, 3, requires_grad=True)
    b = mg.randn(3, 3, requires_grad=True)
    (a @ b).sum().backward()  # two fresh arrays from the matmul formulas
    assert a.grad._data.base is None and b.grad._data.base is None
    assert not np.shares_memory(a.grad._data, b.grad._data)

    # add passes one gradient to both inputs: the second leaf must copy.
    x = mg.randn(4, requires_grad=True)
    y = mg.randn(4, requires_grad=True)
    (x + y).backward(mg.ones(4))
    assert not np.shares_memory(x.grad._data, y.grad._data)
    x.grad.zero_()
    np.testing.assert_array_equal(y.grad.numpy(), np.ones(4))

    # The seed is the caller's: .grad never aliases it.
    z = mg.randn(4, requires_grad=True)
    seed = mg.tensor([1.0, 2.0, 3.0, 4.0])
    z.backward(seed)
    assert not np.shares_memory(z.grad._data, seed._data)
    z.grad.zero_()
    np.testing.assert_array_equal(seed.numpy(), [1.0, 2.0, 3.0, 4.0])

    # A hook's result that the user keeps is not taken either.
    kept = []
    w = mg.randn(2, requires_grad=True)
    w.register_hook(lambda g: kept.append(g * 2.0) or kept[-1])
    (w * 1.0).sum().backward()
    assert not np.shares_memory(w.grad._data, kept[0]._data)


def test_first_grad_takes_a_whole_view_of_a_fresh_array_and_copies_a_part_of_one() -> None:
    """A reshape of a fresh array that only it holds is taken as .grad (on a GPU the copy is a launch); a
    slice of one (``cat``'s gradient, cut in pieces for its inputs) is copied: it would keep the whole array
    alive, and the pieces share it."""
    w = mg.randn(12, requires_grad=True)
    c = mg.randn(3, 4)
    (w.reshape(3, 4) * c).sum().backward()
    assert w.grad._data.base is not None and w.grad._data.flags.c_contiguous  # taken: a view of the product
    np.testing.assert_array_equal(w.grad.numpy(), c.numpy().reshape(12))
    x, y = mg.randn(2, 3, requires_grad=True), mg.randn(1, 3, requires_grad=True)
    (mg.cat([x, y]) * mg.randn(3, 3)).sum().backward()
    assert x.grad._data.base is None and y.grad._data.base is None
    assert not np.shares_memory(x.grad._data, y.grad._data)


def test_a_linear_layers_weight_gradient_is_made_row_major_and_taken() -> None:
    """nn.Linear is addmm over ``weight.t()``: mat2's gradient is computed column-major (PyTorch's
    ``mm_mat2_backward``), so after ``TBackward0`` the weight's is row-major and becomes .grad uncopied; the
    same values as before."""
    lin = mg.nn.Linear(4, 3, dtype=mg.float64)
    x = mg.tensor(np.random.default_rng(3).standard_normal((5, 4)), requires_grad=True)
    lin(x).sum().backward()
    g = lin.weight.grad._data
    assert g.flags.c_contiguous and g.base is not None  # a view of the product: taken, not copied
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.ones((5, 3)).T @ x.detach().numpy(), rtol=1e-12)


def test_a_gradient_a_hook_has_seen_is_copied_into_grad() -> None:
    """A node hook keeps the gradient tensor; add passes that very tensor on to both leaves."""
    kept = []
    a = mg.randn(3, requires_grad=True)
    b = mg.randn(3, requires_grad=True)
    h = a + b
    h.register_hook(lambda g: kept.append(g))
    h.backward(mg.ones(3))
    assert not np.shares_memory(a.grad._data, kept[0]._data)
    assert not np.shares_memory(b.grad._data, kept[0]._data)
    a.grad.zero_()
    np.testing.assert_array_equal(kept[0].numpy(), np.ones(3))


def test_a_leaf_saved_by_many_ops_is_wrapped_once() -> None:
    """NOTE [ One wrapper per saved leaf ]: shared while nothing about the leaf changed."""
    x = mg.randn(3, requires_grad=True)
    c = mg.tensor([1.0, 2.0, 3.0])
    y1, y2 = x * c, x * c
    w1, w2 = _node(y1).wrappers[1], _node(y2).wrappers[1]
    assert w1 is w2
    y1.sum().backward()  # releasing y1's node must not take the wrapper from y2's node
    y2.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * c.numpy())

    # A new version is a new wrapper; the old node still catches the change.
    y3 = x * c
    with mg.no_grad():
        c.add_(1.0)
    y4 = x * c
    assert _node(y4).wrappers[1] is not _node(y3).wrappers[1]
    y4.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y3.sum().backward()


def test_an_in_place_op_gives_its_node_a_private_wrapper() -> None:
    """x.mul_(c) saves the old x as a private copy; the shared wrapper of c is left as it was."""
    x0 = mg.randn(3, requires_grad=True)
    x = x0 * 1.0
    c = mg.tensor([2.0, 3.0, 4.0], requires_grad=True)
    z = x * c  # saves x (a non-leaf: its own wrapper) and c (shared)
    shared_c = _node(z).wrappers[1]
    old = x.detach().numpy().copy()
    x.mul_(c)
    w_x, w_c = _node(x).wrappers
    assert w_c is shared_c and w_c.data is c._data and w_c.snapshot == 0
    assert w_x.data is not x._data and np.array_equal(w_x.data, old)
    x.sum().backward(retain_graph=True)
    np.testing.assert_allclose(c.grad.numpy(), old)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()  # z saved x before the change


def test_a_node_is_numbered_before_the_accumulation_nodes_it_makes() -> None:
    """As PyTorch and Paddle construct the node, then collect its next edges."""
    x = mg.tensor([1.0], requires_grad=True)
    w = mg.tensor([2.0], requires_grad=True)
    node = (x * w).grad_fn
    accs = [n for n, _ in node.next_functions]
    assert all(a.id > node.id and a.seq_nr > node.seq_nr for a in accs)
    assert [a.id for a in accs] == sorted(a.id for a in accs)
