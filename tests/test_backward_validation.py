"""What the engine does with a gradient a custom Function or a hook returns: PyTorch's ``validate_outputs`` and
``check_single_result``, run against PyTorch itself.

A custom Function's backward may return the gradient of its input broadcast to a larger shape: PyTorch sums it
back to the input's shape (``sum_to``), so minigrad does. Anything else is refused in PyTorch's words, with the
node that ran it named in front (docs/architecture.md, bad input)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _function(lib, backward):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return backward(lib, g)

    return F


RETURNS = {
    "broadcast (2, 3)": lambda lib, g: lib.ones(2, 3, dtype=lib.float64) * 0.5,
    "broadcast (4, 1, 3)": lambda lib, g: g.expand(4, 1, 3) * 1.0,
    "the same shape as (1, 3)": lambda lib, g: g.reshape(1, 3) * 3.0,
    "float32 for a float64 input": lambda lib, g: lib.ones(3, dtype=lib.float32),
    "smaller (1,)": lambda lib, g: lib.ones(1, dtype=lib.float64),
    "other (2,)": lambda lib, g: lib.ones(2, dtype=lib.float64),
    "0-d": lambda lib, g: g.sum(),
    "(3, 2)": lambda lib, g: lib.ones(3, 2, dtype=lib.float64),
    "an int": lambda lib, g: 3,
    "a list": lambda lib, g: [g],
}


def _run(lib, backward):
    x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
    try:
        _function(lib, backward).apply(x).sum().backward()
    except Exception as e:  # noqa: BLE001  (compared with PyTorch's below)
        return e
    return x.grad


@pytest.mark.parametrize("case", RETURNS)
def test_a_functions_gradient_is_summed_or_refused_as_pytorchs(case):
    want, got = _run(torch, RETURNS[case]), _run(mg, RETURNS[case])
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (case, got, want)
        assert str(want) in str(got)
        assert "FBackward#" in str(got)  # the engine names the node it ran
    else:
        assert not isinstance(got, Exception), got
        assert got.dtype == mg.float64
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_broadcast_gradient_is_summed_in_the_graph_too():
    """With ``create_graph=True`` the sum back to the input's shape is recorded: a second gradient goes through it."""

    def run(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return (2 * a * g).expand(2, 3)  # twice the gradient, broadcast: summed back it is 4 a g

        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        (gx,) = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        (ggx,) = lib.autograd.grad((gx * gx).sum(), x)
        return gx.detach().numpy(), ggx.numpy()

    for got, want in zip(run(mg), run(torch)):
        np.testing.assert_array_equal(got, want)


def _hooked(lib, hook, on_node=False):
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    h = x * 2
    if on_node:
        h.grad_fn.register_hook(lambda gi, go: (hook(lib, gi[0]),))
    else:
        h.register_hook(lambda g: hook(lib, g))
    try:
        h.sum().backward()
    except Exception as e:  # noqa: BLE001
        return e
    return x.grad


HOOKS = {
    "a larger size": lambda lib, g: lib.ones(2, 3, dtype=lib.float64),
    "a smaller size": lambda lib, g: g[:2],
    "float32": lambda lib, g: g.float(),
    "int64": lambda lib, g: g.long(),
    "an int": lambda lib, g: 5,
    "the same": lambda lib, g: g * 10,
}


@pytest.mark.parametrize("on_node", [False, True], ids=["tensor hook", "node hook"])
@pytest.mark.parametrize("case", HOOKS)
def test_a_hooks_gradient_is_checked_as_pytorchs(case, on_node):
    want, got = _hooked(torch, HOOKS[case], on_node), _hooked(mg, HOOKS[case], on_node)
    if isinstance(want, Exception):
        assert isinstance(got, type(want)), (case, got, want)
        # PyTorch's sentence up to its detail; minigrad's size message adds what the sizes were
        assert str(want).split(" (was ")[0] in str(got)
    else:
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_hooks_size_change_says_what_the_sizes_were():
    x = mg.ones(3, requires_grad=True)
    x.register_hook(lambda g: mg.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"AccumulateGrad#\d+ .*hook '<lambda>' has changed the size of value "
                                           r"\(was minigrad.Size\(\[3\]\) got minigrad.Size\(\[2, 3\]\)\)"):
        (x * 2).sum().backward()
    assert x.grad is None
