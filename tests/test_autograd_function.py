"""``mg.autograd.Function``: a user's forward/backward pair is an ordinary grad node (docs/concepts/custom-function.md).

Each test names the feature it pins down: ctx.save_for_backward /
saved_tensors (with the in-place version check), needs_input_grad,
mark_non_differentiable, several outputs, the node in the engine (in-degree,
queue, hooks, release), in events and in the replay, GeneralGrad through it,
create_graph through a backward written with minigrad ops, and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck, gradgradcheck

F64 = mg.float64


class Cube(mg.autograd.Function):
    """x**3 with its derivative written by hand (minigrad ops, so differentiable again)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


class ScaledMul(mg.autograd.Function):
    """a * b * scale, with a non-Tensor argument; records needs_input_grad."""

    seen_needs: tuple = ()

    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        ScaledMul.seen_needs = ctx.needs_input_grad
        return a * b * scale

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b * ctx.scale if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.scale if ctx.needs_input_grad[1] else None
        return ga, gb, None


class SortWithIndices(mg.autograd.Function):
    """Two outputs: sorted values (differentiable) and the permutation (not)."""

    @staticmethod
    def forward(ctx, x):
        order = np.argsort(x.detach().numpy(), kind="stable")
        idx = mg.tensor(order, dtype=mg.int64)
        ctx.save_for_backward(idx)
        ctx.mark_non_differentiable(idx)
        return x[idx], idx

    @staticmethod
    def backward(ctx, g_values, g_idx):
        (idx,) = ctx.saved_tensors
        assert g_idx.shape == idx.shape and not np.any(g_idx.numpy())  # zeros for the marked output
        out = np.zeros(g_values.shape, dtype=np.float64)
        out[idx.numpy()] = g_values.numpy()
        return mg.tensor(out, dtype=g_values.dtype)


def leaf(values, rg: bool = True) -> mg.Tensor:
    return mg.tensor(np.asarray(values, dtype=np.float64), dtype=F64, requires_grad=rg)


# -- forward / backward / ctx ----------------------------------------------------------


def test_apply_records_a_node_named_after_the_class() -> None:
    x = leaf([1.0, 2.0, -3.0])
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward"
    assert y.grad_fn.display_name == f"CubeBackward#{y.grad_fn.id}"
    assert y.requires_grad and not y.is_leaf
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.array([1.0, 4.0, 9.0]))


def test_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(0)
    a, b = leaf(rng.uniform(-2, 2, (3, 4))), leaf(rng.uniform(-2, 2, (3, 4)))
    assert gradcheck(lambda x: Cube.apply(x), [a])
    assert gradcheck(lambda p, q: ScaledMul.apply(p, q, 1.5), [a, b])


def test_create_graph_differentiates_the_users_backward() -> None:
    """The backward uses minigrad ops, so with create_graph it records nodes: d2/dx2 x^3 = 6x, d3 = 6."""
    x = leaf(2.0)
    (d1,) = mg.grad(Cube.apply(x), x, create_graph=True)
    (d2,) = mg.grad(d1, x, create_graph=True)
    (d3,) = mg.grad(d2, x)
    assert (d1.item(), d2.item(), d3.item()) == (12.0, 12.0, 6.0)
    assert d1.requires_grad and not d3.requires_grad
    rng = np.random.default_rng(1)
    assert gradgradcheck(lambda t: Cube.apply(t), [leaf(rng.uniform(-2, 2, (4,)))])


def test_needs_input_grad_and_non_tensor_arguments() -> None:
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0], rg=False)
    out = ScaledMul.apply(a, b, 2.0)
    assert ScaledMul.seen_needs == (True, False, False)
    out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [6.0, 8.0])
    # One edge per forward argument; only the first leads anywhere.
    nexts = [n for n, _ in out.grad_fn.next_functions]
    assert nexts[0] is not None and nexts[1] is None and nexts[2] is None
    with mg.no_grad():
        ScaledMul.apply(a, b, 2.0)
    assert ScaledMul.seen_needs == (False, False, False)


def test_no_node_without_grad() -> None:
    x = leaf([1.0], rg=False)
    assert Cube.apply(x).grad_fn is None
    with mg.no_grad():
        y = Cube.apply(leaf([1.0]))
    assert y.grad_fn is None and not y.requires_grad


def test_forward_records_no_nodes_inside() -> None:
    """The ops inside forward run with recording off: the Function is one node to autograd."""
    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]


def test_mark_non_differentiable_and_several_outputs() -> None:
    x = leaf([3.0, 1.0, 2.0])
    values, idx = SortWithIndices.apply(x)
    assert idx.dtype == mg.int64 and not idx.requires_grad
    assert values.grad_fn is not None and values.grad_fn.name() == "SortWithIndicesBackward"
    (values * leaf([1.0, 10.0, 100.0], rg=False)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [100.0, 1.0, 10.0])


def test_an_input_returned_as_is_gets_its_own_history() -> None:
    class Identity(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2  # deliberately not the identity's gradient, to see it used

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


# -- the node in the engine -------------------------------------------------------------


def test_saved_tensor_modified_in_place_is_detected() -> None:
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = Cube.apply(h)
    h.add_(1.0)
    with pytest.raises(RuntimeError, match=r"modified by an in-place operation.*CubeBackward"):
        y.sum().backward()


def test_release_after_backward_and_retain_graph() -> None:
    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    seed = mg.ones(2, dtype=F64)
    y.backward(seed, retain_graph=True)
    y.backward(seed)
    np.testing.assert_allclose(x.grad.numpy(), 2 * 3 * np.array([1.0, 4.0]))
    assert y.grad_fn.released
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time .*retain_graph=True") as info:
        y.backward(seed)
    assert info.value.released_node is y.grad_fn  # the node, for anomaly mode and the viewers


def test_hooks_on_the_output_and_the_input_run() -> None:
    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    seen = []
    y.register_hook(lambda g: seen.append("y") or g * 10)
    x.register_hook(lambda g: seen.append("x"))
    y.sum().backward()
    assert seen == ["y", "x"]
    np.testing.assert_allclose(x.grad.numpy(), 10 * 3 * np.array([1.0, 4.0]))


def test_in_degree_counts_both_uses_of_a_function_output() -> None:
    x = leaf([2.0])
    y = Cube.apply(x)
    z = (y * y).sum() + y.sum()  # y reaches two nodes; the Function node waits for both
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), (2 * 8.0 + 1) * 12.0)


def test_general_grad_through_a_function_node() -> None:
    """grad() copies the Function's node like any other, to an intermediate and a leaf; no .grad is written."""
    x = leaf([2.0])
    h = x * 3.0  # 6
    y = Cube.apply(h)  # 216
    z = (y * x).sum()  # 432
    gx, gh = mg.grad(z, [x, h])
    assert gh.item() == pytest.approx(3 * 36.0 * 2.0)  # dz/dh = x * 3h^2
    assert gx.item() == pytest.approx(216.0 + 3 * 3 * 36.0 * 2.0)  # y + x * 3h^2 * 3
    assert x.grad is None
    with mg.trace() as tr:
        mg.grad(z, [h], retain_graph=True)
    copy = next(e for e in tr.events if e.kind == "general_grad.copy")
    assert y.grad_fn.id in {int(k) for k in copy.mapping}
    runs = {e.node for e in tr.events if e.kind == "node.run"}
    assert copy.mapping[y.grad_fn.id] in runs or copy.mapping[str(y.grad_fn.id)] in runs


def test_events_announce_the_node_and_its_run() -> None:
    x = leaf([1.0, 2.0])
    with mg.trace() as tr:
        y = ScaledMul.apply(x, leaf([5.0, 6.0], rg=False), 2.0)
        y.sum().backward()
    node_id = y.grad_fn.id
    creates = [e for e in tr.events if e.kind == "node.create" and e.node == node_id]
    assert len(creates) == 1
    c = creates[0]
    assert (c.name, c.op, c.is_accumulation) == (f"ScaledMulBackward#{node_id}", "ScaledMul", False)
    assert [e["next"] is not None for e in c.edges] == [True, False, False]
    assert len(c.saved) == 2
    call = [e for e in tr.events if e.kind == "api.call" and e.op == "ScaledMul"]
    assert len(call) == 1 and call[0].inputs[:2] == [x.id, c.saved[1]] and call[0].inputs[2] is None
    out_create = next(e for e in tr.events if e.kind == "tensor.create" and e.tensor == y.id)
    assert out_create.grad_node == node_id
    seq = [(e.kind, getattr(e, "node", None)) for e in tr.events if e.kind in ("queue.pop", "node.run", "wrappers.clear")]
    assert ("node.run", node_id) in seq and ("wrappers.clear", node_id) in seq
    assert seq.index(("queue.pop", node_id)) < seq.index(("node.run", node_id)) < seq.index(("wrappers.clear", node_id))
    # The replayed state knows the node by its class name, as the viewers show it.
    final = tr.replay()[-1]
    assert final.nodes[node_id].name == f"ScaledMulBackward#{node_id}"
    assert node_id in final.backward.executed and node_id in final.backward.released


def test_renderer_draws_the_function_node() -> None:
    viz = pytest.importorskip("minigrad.viz")
    x = leaf([1.0, 2.0])
    with mg.trace() as tr:
        Cube.apply(x).sum().backward()
    dot = viz.to_digraph(viz.collect_backward(tr.replay()[-1])).source
    assert "CubeBackward" in dot


# -- errors --------------------------------------------------------------------------------


def test_wrong_number_of_gradients_names_the_node() -> None:
    class Bad(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    out = Bad.apply(leaf([1.0]), leaf([2.0]))
    with pytest.raises(RuntimeError, match=r"BadBackward#\d+.*expected 2, got 1"):
        out.sum().backward()


def test_wrong_gradient_shape_is_an_error() -> None:
    class BadShape(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    with pytest.raises(RuntimeError, match=r"Function BadShapeBackward returned an invalid gradient at index 0 - got \[\] "
                                           r"but expected shape compatible with \[3\]"):
        BadShape.apply(leaf([1.0, 2.0, 3.0])).sum().backward()


def test_misuse_errors() -> None:
    with pytest.raises(RuntimeError, match=r"call Cube.apply"):
        Cube()
    with pytest.raises(TypeError, match="save_for_backward"):

        class SaveBad(mg.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        SaveBad.apply(leaf([1.0]))
    with pytest.raises(TypeError, match="must return a Tensor"):

        class ReturnsNumber(mg.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return 3

            @staticmethod
            def backward(ctx, g):
                return g

        ReturnsNumber.apply(leaf([1.0]))


def test_matches_a_pytorch_custom_function() -> None:
    torch = pytest.importorskip("torch")

    class TCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    rng = np.random.default_rng(2)
    data = rng.uniform(-2, 2, (3, 4))
    w = rng.uniform(-1, 1, (3, 4))
    tx = torch.tensor(data, requires_grad=True)
    (TCube.apply(tx) * torch.tensor(w)).sum().backward()
    mx = leaf(data)
    (Cube.apply(mx) * mg.tensor(w, dtype=F64)).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_once_differentiable_runs_backward_unrecorded_and_guards_a_second_backward_as_torch():
    """PyTorch's decorator: the backward runs with recording off; under create_graph=True with a gradient that
    requires grad, the result comes through an ``Error`` node that refuses a second backward in PyTorch's words."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mg, torch):
        seen = []

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                seen.append(lib.is_grad_enabled())
                return g * 2

        x = lib.tensor([1.0, 3.0], requires_grad=True)
        plain, = lib.autograd.grad(Twice.apply(x).sum(), x, create_graph=True)  # a seed that needs no grad
        v = lib.ones(2, requires_grad=True)
        guarded, = lib.autograd.grad(Twice.apply(x), x, grad_outputs=v, create_graph=True)
        try:
            guarded.sum().backward()
            error = None
        except RuntimeError as e:
            error = str(e).split("): ")[-1]
        results.append((seen, plain.grad_fn is None, guarded.tolist(), guarded.grad_fn.name(), error))
    assert results[0] == results[1]
    assert results[0][3] == "torch::autograd::Error" and "once_differentiable" in results[0][4]


def test_set_materialize_grads_as_torch():
    """By default an output that got no gradient reaches ``backward`` as zeros; with
    ``ctx.set_materialize_grads(False)`` as None."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, mg):
        seen = []

        class Two(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, materialize):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append([None if g is None else g.tolist() for g in (g1, g2)])
                return g1 * 2 + (0 if g2 is None else g2 * 3), None

        x = L.ones(2, requires_grad=True)
        for materialize in (True, False):
            a, _ = Two.apply(x, materialize)
            a.sum().backward()
        with pytest.raises(TypeError, match="set_materialize_grads received an invalid combination of arguments"):
            Two.apply(x, "no")
        got.append((seen, x.grad.tolist()))
    assert got[1] == got[0] == ([[[1.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], None]], [4.0, 4.0])
