"""``mg.utils.checkpoint`` (``checkpoint``, ``checkpoint_sequential``) held against PyTorch's.

An MLP with dropout in float64 from the same seed: minigrad's random streams are
PyTorch's, so the losses and gradients must agree in both modes, with or without
``preserve_rng_state``; the recomputation must show in the events.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
from torch_compare import raised

torch = pytest.importorskip("torch")


def _mlp(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(
        nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Dropout(0.3)),
        nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Dropout(0.5)),
        nn.Linear(16, 3),
    ).double()


def _run(lib, how, use_reentrant, preserve=True, x_grad=True):
    m = _mlp(lib)
    lib.manual_seed(1)
    x = lib.randn(5, 8, dtype=lib.float64, requires_grad=x_grad)
    ck = lib.utils.checkpoint
    if how == "checkpoint":
        h = ck.checkpoint(m[0], x, use_reentrant=use_reentrant, preserve_rng_state=preserve)
        h = ck.checkpoint(m[1], h, use_reentrant=use_reentrant, preserve_rng_state=preserve)
        out = m[2](h)
    elif how == "sequential":
        out = ck.checkpoint_sequential(m, 2, x, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    else:
        out = m(x)
    loss = (out ** 2).mean()
    loss.backward()
    grads = [p.grad for p in m.parameters()] + ([x.grad] if x_grad else [])
    return loss.item(), [None if g is None else g.numpy().copy() for g in grads]


def _assert_same(a, b):
    assert a[0] == pytest.approx(b[0], rel=1e-13)
    assert len(a[1]) == len(b[1])
    for ga, gb in zip(a[1], b[1]):
        assert (ga is None) == (gb is None)
        if ga is not None:
            np.testing.assert_allclose(ga, gb, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("how", ["checkpoint", "sequential"])
@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("preserve", [True, False])
def test_losses_and_gradients_equal_pytorchs(how, use_reentrant, preserve):
    _assert_same(_run(mg, how, use_reentrant, preserve), _run(torch, how, use_reentrant, preserve))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_the_replayed_random_state_is_what_makes_the_gradients_right(use_reentrant):
    plain = _run(mg, "plain", use_reentrant)
    _assert_same(_run(mg, "checkpoint", use_reentrant, preserve=True), plain)
    other = _run(mg, "checkpoint", use_reentrant, preserve=False)  # the recomputation draws new masks
    assert any(not np.allclose(a, b) for a, b in zip(other[1], plain[1]))


def test_reentrant_without_an_input_requiring_grad_warns_and_leaves_the_block_without_grads():
    for lib in (mg, torch):
        with pytest.warns(UserWarning, match="^None of the inputs have requires_grad=True. Gradients will be None$"):  # noqa: E501
            _, grads = _run(lib, "checkpoint", True, x_grad=False)
        # both checkpointed blocks lose their gradients (the second one's input has no history either)
        assert [g is None for g in grads] == [True] * 4 + [False] * 2, lib.__name__


def _warning(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


def test_leaving_out_use_reentrant_warns_as_pytorch():
    for how in ("checkpoint", "sequential"):
        def program(lib):
            def run():
                m = _mlp(lib)
                x = lib.ones(2, 8, dtype=lib.float64, requires_grad=True)
                ck = lib.utils.checkpoint
                out = ck.checkpoint(m, x) if how == "checkpoint" else ck.checkpoint_sequential(m, 2, x)
                out.sum().backward()
            return run

        got, want = _warning(program(mg)), _warning(program(torch))
        assert got == want and len(want) == 1, how


def test_errors_equal_pytorchs():
    def with_grad(lib):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda t: t.sin() * t, x, use_reentrant=True)
        lib.autograd.grad(y.sum(), x)

    def with_inputs(lib):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda t: t.sin() * t, x, use_reentrant=True)
        y.sum().backward(inputs=[x])

    def extra_kwargs(lib):
        lib.utils.checkpoint.checkpoint(lambda t: t, lib.ones(1), use_reentrant=True, bogus=1)

    def context_fn_reentrant(lib):
        lib.utils.checkpoint.checkpoint(lambda t: t, lib.ones(1), use_reentrant=True, debug=True)

    def bad_determinism_check(lib):
        x = lib.ones(3, requires_grad=True)
        lib.utils.checkpoint.checkpoint(lambda t: t * 2, x, use_reentrant=False, determinism_check="x")

    for program in (with_grad, with_inputs, extra_kwargs, context_fn_reentrant, bad_determinism_check):
        m_cls, m_msg = raised(lambda: program(mg))
        t_cls, t_msg = raised(lambda: program(torch))
        assert m_cls.__name__ == t_cls.__name__ and m_msg.endswith(t_msg), program.__name__


def test_non_reentrant_checks_what_the_recomputation_saves():
    for lib in (mg, torch):
        calls = []

        def changing(t):
            calls.append(1)
            return (t[: 3 - len(calls) + 1] * 2).exp().sum()  # a shorter slice the second time

        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(changing, x, use_reentrant=False)
        with pytest.raises(RuntimeError, match="Recomputed values for the following tensors have different metadata"):
            y.backward()


def test_non_reentrant_works_with_grad_and_retain_graph():
    for lib in (mg, torch):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda t: (t.sin() * t).exp(), x, use_reentrant=False).sum()
        (g1,) = lib.autograd.grad(y, x, retain_graph=True)
        (g2,) = lib.autograd.grad(y, x)  # a second pass recomputes again
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    s = np.sin([0.5, -1.0, 2.0]) * np.array([0.5, -1.0, 2.0])
    want = np.exp(s) * (np.cos([0.5, -1.0, 2.0]) * np.array([0.5, -1.0, 2.0]) + np.sin([0.5, -1.0, 2.0]))
    np.testing.assert_allclose(g1.numpy(), want, rtol=1e-13)


def _recorded(use_reentrant):
    m = _mlp(mg)
    x = mg.randn(4, 8, dtype=mg.float64, requires_grad=True)
    with mg.trace(values=False) as tr:
        h = mg.utils.checkpoint.checkpoint(m[0], x, use_reentrant=use_reentrant)
        (m[2](m[1](h)) ** 2).mean().backward()
    return tr.events


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_the_recomputation_is_recorded_inside_backward_and_marked(use_reentrant):
    events = _recorded(use_reentrant)
    kinds = [e.kind for e in events]
    begins = [i for i, k in enumerate(kinds) if k == "recompute.begin"]
    ends = [i for i, k in enumerate(kinds) if k == "recompute.end"]
    assert len(begins) == len(ends) == 1
    b, e = begins[0], ends[0]
    outer_begin, outer_end = kinds.index("backward.begin"), len(kinds) - 1 - kinds[::-1].index("backward.end")
    assert outer_begin < b < e < outer_end
    inside = [ev.op for ev in events[b:e] if ev.kind == "node.create" and not ev.is_accumulation]
    with mg.trace(values=False) as plain:
        _mlp(mg)[0](mg.randn(4, 8, dtype=mg.float64, requires_grad=True))
    block_ops = [ev.op for ev in plain.events if ev.kind == "node.create" and not ev.is_accumulation]
    assert inside and inside == block_ops[:len(inside)]  # the block's own ops (non-reentrant may stop early)
    trigger = events[b].node
    created = {ev.node: ev for ev in events if ev.kind == "node.create"}
    assert trigger in created and created[trigger].seq < events[b].seq
    assert events[b].mode == ("reentrant" if use_reentrant else "non_reentrant")
    # the node that asked is the one running (its node.run comes after the recomputation)
    runs = [ev.node for ev in events[e:] if ev.kind == "node.run"]
    assert trigger in runs
    mg.trace.replay(events)[-1]  # replay folds the nested events


def test_non_reentrant_stops_as_soon_as_every_saved_tensor_is_made_again():
    m = _mlp(mg)
    x = mg.randn(4, 8, dtype=mg.float64, requires_grad=True)

    def block(t):
        return m[0](t).exp().sin()

    with mg.trace(values=False) as tr:
        y = mg.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        y.sum().backward()
    kinds = [e.kind for e in tr.events]
    b, e = kinds.index("recompute.begin"), kinds.index("recompute.end")
    forward_nodes = [ev.op for ev in tr.events[:kinds.index("backward.begin")]
                     if ev.kind == "node.create" and not ev.is_accumulation]
    again = [ev.op for ev in tr.events[b:e] if ev.kind == "node.create" and not ev.is_accumulation]
    # sin saves its input, the last tensor the block saves: the recomputation stops in sin's save
    assert forward_nodes[-3:] == ["exp", "sin", "sum"] and again == forward_nodes[:-2]


def test_the_docstring_examples_run():
    import doctest

    import minigrad.autograd.graph
    import minigrad.utils.checkpoint

    for mod in (minigrad.utils.checkpoint, minigrad.autograd.graph):
        result = doctest.testmod(mod)
        assert result.attempted > 0 and result.failed == 0, mod.__name__


def test_a_slice_of_a_sequential_is_a_sequential_as_in_pytorch():
    for lib in (mg, torch):
        s = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh(), lib.nn.ReLU())
        part = s[1:]
        assert isinstance(part, lib.nn.Sequential) and list(part._modules) == ["1", "2"]
        assert part[0] is s[1] and len(part) == 2
