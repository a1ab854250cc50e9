"""``rrelu`` (``ops/rrelu.py``, ``F.rrelu``, ``nn.RReLU``, ``rrelu_``) against PyTorch: the same slopes for the same
seed (NOTE [ rrelu's draws ]), equal outputs, gradients and second derivatives, PyTorch's nodes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def graph(t):
    def walk(n):
        return None if n is None else (type(n).__name__, [walk(f) for f, _ in n.next_functions])
    return walk(t.grad_fn)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("bounds", [(), (0.1, 0.3), (0.2, 0.2)])
def test_rrelu_draws_pytorchs_slopes_and_gives_its_gradients(dtype, training, bounds):
    a = np.random.default_rng(3).standard_normal((5, 7)).astype(dtype)
    a[0, :3] = 0.0, np.nan, -0.0
    w = np.random.default_rng(4).standard_normal(a.shape).astype(dtype)
    results = []
    for lib in (torch, mg):
        lib.manual_seed(11)
        x = lib.tensor(a, requires_grad=True)
        y = lib.nn.functional.rrelu(x, *bounds, training=training)
        (g,) = lib.autograd.grad((y * lib.tensor(w)).sum(), x, create_graph=True)
        (g * g).sum().backward()
        results.append((y.detach().numpy(), g.detach().numpy(), x.grad.numpy(), graph(y), graph(g),
                        lib.rand(3).tolist()))  # the generators stay in step
    for ours, theirs in zip(*results):
        if isinstance(ours, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs


@pytest.mark.parametrize("training", [True, False])
def test_rrelu_in_place_is_pytorchs_rrelu_(training):
    a = np.random.default_rng(5).standard_normal((4, 3))
    results = []
    for lib in (torch, mg):
        lib.manual_seed(2)
        x = lib.tensor(a, requires_grad=True)
        y = x * 1
        z = lib.nn.functional.rrelu(y, training=training, inplace=True)
        assert z is y
        z.sum().backward()
        results.append((z.detach().numpy(), x.grad.numpy(), graph(z)))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]  # RreluWithNoiseBackward1


def test_rrelu_takes_a_generator_and_the_module_reads_as_pytorchs():
    a = np.random.default_rng(6).standard_normal(9)
    ours = mg.rrelu(mg.tensor(a), training=True, generator=mg.Generator().manual_seed(4))
    theirs = torch.rrelu(torch.tensor(a), training=True, generator=torch.Generator().manual_seed(4))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for args in ((), (0.1, 0.3, True)):
        assert repr(mg.nn.RReLU(*args)) == repr(torch.nn.RReLU(*args))
    m, t = mg.nn.RReLU(), torch.nn.RReLU()
    x = np.random.default_rng(7).standard_normal((3, 4))
    mg.manual_seed(1)
    torch.manual_seed(1)
    np.testing.assert_array_equal(m(mg.tensor(x)).numpy(), t(torch.tensor(x)).numpy())  # training: drawn
    np.testing.assert_array_equal(m.eval()(mg.tensor(x)).numpy(), t.eval()(torch.tensor(x)).numpy())


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.rrelu(L.tensor([1.0]), 0.5, 0.2),
    lambda L: L.nn.functional.rrelu(L.tensor([1.0]), 0.5, 0.2, training=True),
    lambda L: L.nn.functional.rrelu(L.tensor([1]), training=True),
    lambda L: L.nn.functional.rrelu(L.tensor([1])),
    lambda L: L.nn.functional.rrelu(L.tensor([1.0], dtype=L.float16), training=True),
])
def test_rrelu_refuses_as_pytorch(call):
    errors = []
    for lib in (torch, mg):
        with pytest.raises(Exception) as info:
            call(lib)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
