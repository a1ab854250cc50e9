"""``mg.nn.utils.parametrize`` (and ``Tensor.set_``, which it stands on) against PyTorch; the tutorial as a whole
program: ``tests/parity/parametrizations_printed.py``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
import torch.nn.utils.parametrize  # noqa: E402  (PyTorch does not import it with torch.nn.utils)


def _classes(L):
    class Symmetric(L.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, X):
            self.calls += 1
            return X * 2

        def right_inverse(self, A):
            return A / 2

    class Split(L.nn.Module):  # two originals: a matrix from the sum of two
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class Widen(L.nn.Module):
        def forward(self, X):
            return L.cat([X, X], 0)

    class ToDouble(L.nn.Module):
        def forward(self, X):
            return X.double()

    class NoInverse(L.nn.Module):
        def forward(self, X):
            return X + 1

    return Symmetric, Scale, Split, Widen, ToDouble, NoInverse


def _run(L, case):
    P = L.nn.utils.parametrize
    Symmetric, Scale, Split, Widen, ToDouble, NoInverse = _classes(L)
    L.manual_seed(0)
    lin = L.nn.Linear(3, 3)
    w = lin.weight
    try:
        if case == "symmetric":
            P.register_parametrization(lin, "weight", Symmetric())
            return (lin.weight.tolist(), lin.parametrizations.weight.original is w, type(lin).__name__,
                    sorted(lin.state_dict()), repr(lin))
        if case == "chained, then a step":
            opt = L.optim.SGD(lin.parameters(), lr=0.1)  # made before: it still trains the original
            P.register_parametrization(lin, "weight", Symmetric())
            P.register_parametrization(lin, "weight", Scale())
            (lin(L.ones(2, 3)) ** 2).sum().backward()
            opt.step()
            return (lin.weight.tolist(), w.grad.tolist(), len(lin.parametrizations.weight))
        if case == "assignment":
            P.register_parametrization(lin, "weight", Scale())
            lin.weight = L.arange(9.0).reshape(3, 3)
            return lin.weight.tolist(), lin.parametrizations.weight.original.tolist(), w._version > 0
        if case == "two originals":
            P.register_parametrization(lin, "weight", Split())
            before = lin.weight.tolist()
            lin.weight = L.ones(3, 3)
            return (before, lin.weight.tolist(), sorted(n for n, _ in lin.named_parameters()),
                    lin.parametrizations.weight.original1.tolist())
        if case == "cached":
            scale = Scale()
            P.register_parametrization(lin, "weight", scale)
            n0 = scale.calls
            lin.weight, lin.weight
            n1 = scale.calls
            with P.cached():
                a, b = lin.weight, lin.weight
                same = a is b
            return n1 - n0, scale.calls - n1, same
        if case == "remove, leave parametrized":
            P.register_parametrization(lin, "weight", Scale())
            P.remove_parametrizations(lin, "weight")
            return (lin.weight.tolist(), lin.weight is w, type(lin).__name__, type(lin.weight).__name__,
                    hasattr(lin, "parametrizations"), P.is_parametrized(lin))
        if case == "remove, the original":
            P.register_parametrization(lin, "weight", Scale())
            P.register_parametrization(lin, "bias", Scale())
            P.remove_parametrizations(lin, "weight", leave_parametrized=False)
            return lin.weight.tolist(), type(lin).__name__, P.is_parametrized(lin), P.is_parametrized(lin, "bias")
        if case == "a buffer":
            bn = L.nn.BatchNorm1d(3)
            P.register_parametrization(bn, "running_var", Scale())
            return (bn.running_var.tolist(), sorted(dict(bn.named_buffers())), sorted(bn.state_dict()),
                    P.type_before_parametrizations(bn).__name__)
        if case == "shape changed":
            P.register_parametrization(lin, "weight", Widen())
        if case == "shape changed, unsafe":
            P.register_parametrization(lin, "weight", Widen(), unsafe=True)
            return list(lin.weight.shape)
        if case == "dtype changed":
            P.register_parametrization(lin, "weight", ToDouble())
        if case == "appended shape change":
            P.register_parametrization(lin, "weight", Scale())
            P.register_parametrization(lin, "weight", Widen())
        if case == "assigned without right_inverse":
            P.register_parametrization(lin, "weight", NoInverse())
            lin.weight = L.ones(3, 3)
        if case == "remove unparametrized":
            P.remove_parametrizations(lin, "weight")
        if case == "no such tensor":
            P.register_parametrization(lin, "nothing", Scale())
        if case == "two originals, leave_parametrized=False":
            P.register_parametrization(lin, "weight", Split())
            P.remove_parametrizations(lin, "weight", leave_parametrized=False)
        return "no error"
    except Exception as e:  # noqa: BLE001 - compared across the libraries
        return type(e).__name__, str(e).replace("minigrad", "torch").split(" of module ")[0].split("Module Linear")[0][:150]


CASES = ["symmetric", "chained, then a step", "assignment", "two originals", "cached", "remove, leave parametrized",
         "remove, the original", "a buffer", "shape changed", "shape changed, unsafe", "dtype changed",
         "appended shape change", "assigned without right_inverse", "remove unparametrized", "no such tensor",
         "two originals, leave_parametrized=False"]


@pytest.mark.parametrize("case", CASES)
def test_a_parametrization_behaves_as_torch_s(case):
    got, want = _run(mg, case), _run(torch, case)
    assert str(got) == str(want)


SET = {
    "shares the storage": lambda L: (lambda x, y: (x.set_(y), y.add_(1), x.tolist(), list(x.shape), x._version))(
        L.ones(2), L.zeros(3))[2:],
    "empty": lambda L: L.ones(2).set_().tolist(),
    "other dtype": lambda L: L.ones(2).set_(L.zeros(2, dtype=L.float64)),
    "a leaf that requires grad": lambda L: L.nn.Parameter(L.ones(2)).set_(L.zeros(3)),
    "a leaf under no_grad": lambda L: _under_no_grad(L, lambda p: (p.set_(L.zeros(3)), p.tolist(), p.requires_grad)[1:],
                                                     L.nn.Parameter(L.ones(2))),
}


def _under_no_grad(L, fn, *args):
    with L.no_grad():
        return fn(*args)


@pytest.mark.parametrize("name", sorted(SET))
def test_set__as_torch(name):
    out = []
    for L in (mg, torch):
        try:
            out.append(SET[name](L))
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e)))
    assert out[0] == out[1]


import torch.nn.utils.parametrizations  # noqa: E402,F401  (PyTorch does not import it with torch.nn.utils)

SPECTRAL = {
    "linear": (lambda L: L.nn.Linear(5, 4), {}),
    "conv": (lambda L: L.nn.Conv2d(2, 3, 3), {}),
    "conv_transpose (dim 1)": (lambda L: L.nn.ConvTranspose2d(3, 2, 3), {}),
    "linear, 3 iterations, dim 1": (lambda L: L.nn.Linear(6, 3), {"n_power_iterations": 3, "dim": 1}),
    "a 1-D bias": (lambda L: L.nn.Linear(3, 4), {"name": "bias"}),
}


@pytest.mark.parametrize("case", sorted(SPECTRAL))
def test_spectral_norm_as_torch(case):
    """The same draws for u and v, the same power iterations (in training mode only), the same weight / sigma and
    its graph, the gradient reaching the original through both the division and sigma."""
    make, kw = SPECTRAL[case]
    out = []
    for L in (mg, torch):
        L.manual_seed(0)
        m = make(L)
        name = kw.get("name", "weight")
        L.nn.utils.parametrizations.spectral_norm(m, **kw)
        sn = m.parametrizations[name][0]
        first = [b.tolist() for b in (getattr(sn, "_u", None), getattr(sn, "_v", None)) if b is not None]
        w = getattr(m, name)
        (w ** 3).sum().backward()
        m.eval()
        frozen = getattr(m, name).tolist(), getattr(m, name).tolist()
        node = w.grad_fn
        out.append((first, w.tolist(), m.parametrizations[name].original.grad.tolist(), frozen[0] == frozen[1],
                    node.name(), sorted(n.name() for n, _ in node.next_functions if n is not None),
                    sorted(n for n, _ in m.named_buffers())))
    (m_first, m_w, m_g, *m_rest), (t_first, t_w, t_g, *t_rest) = out
    assert len(m_first) == len(t_first)
    for a, b in zip(m_first, t_first):  # u and v after the 15 first iterations
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_w, t_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_g, t_g, rtol=1e-4, atol=1e-5)
    assert m_rest == t_rest


def test_spectral_norm_refuses_as_torch():
    for make in (lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), name="nothing"),
                 lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), dim=2),
                 lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), n_power_iterations=0)):
        got, want = [], []
        for L, into in ((mg, got), (torch, want)):
            try:
                make(L)
            except Exception as e:  # noqa: BLE001
                into.append((type(e).__name__, str(e).split("Module '")[0]))
        assert got == want
