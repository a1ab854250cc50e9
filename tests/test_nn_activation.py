"""The activations of ``torch.nn.functional`` and their modules, against PyTorch (values, gradients, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from torch_compare import compare, error_class, leaves_no_node

torch = pytest.importorskip("torch")
TF = torch.nn.functional

X = np.random.default_rng(1).uniform(-5, 5, size=(3, 4, 5))
X[0, 0, :4] = [0.0, 6.0, -3.0, 3.0]  # kinks: 0 (relu-like), 6 (relu6), -3 (hardswish) ...
X_SMOOTH = np.random.default_rng(2).uniform(-4, 4, size=(2, 3, 4))

UNARY = [
    ("silu", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("leaky_relu", {"negative_slope": -0.5}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("hardtanh", {}), ("hardtanh", {"min_val": -2.0, "max_val": 3.0}),
    ("relu6", {}), ("hardswish", {}), ("hardsigmoid", {}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 2.0}),
    ("mish", {}), ("softsign", {}), ("logsigmoid", {}), ("tanhshrink", {}), ("softplus", {"beta": 2.0}),
    ("hardshrink", {}), ("hardshrink", {"lambd": 1.5}), ("softshrink", {"lambd": 0.7}),
    ("threshold", {"threshold": 0.5, "value": -2.0}),
]


@pytest.mark.parametrize("name,kw", UNARY, ids=[f"{n}-{'-'.join(map(str, kw.values()))}" for n, kw in UNARY])
def test_unary_activation_matches_torch(name: str, kw: dict) -> None:
    compare(getattr(F, name), getattr(TF, name), [X], **kw)
    compare(getattr(F, name), getattr(TF, name), [X_SMOOTH], **kw)


INPLACE = [("silu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 0.7}), ("hardtanh", {}),
           ("relu6", {}), ("hardswish", {}), ("hardsigmoid", {}), ("selu", {}), ("celu", {"alpha": 2.0}),
           ("mish", {}), ("relu", {}), ("threshold", {"threshold": 0.1, "value": 2.0})]


@pytest.mark.parametrize("name,kw", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_writes_into_the_input_as_pytorchs(name: str, kw: dict) -> None:
    """``inplace=True`` changes the input itself: PyTorch's values, node (``LeakyReluBackward1`` ...), version and
    gradient; a leaf that requires grad is refused in PyTorch's words."""
    def run(lib, fn):
        leaf = lib.tensor(X_SMOOTH.ravel()[:12], requires_grad=True)
        x = leaf * 1
        before = x._version
        out = fn(x, inplace=True, **kw)
        out.sum().backward()
        return out is x, x._version - before, type(out.grad_fn).__name__, x.detach().numpy(), leaf.grad.numpy()

    ours, theirs = run(mg, getattr(F, name)), run(torch, getattr(TF, name))
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-6)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-6)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        getattr(F, name)(mg.tensor([-1.0, 2.0], requires_grad=True), inplace=True, **kw)


@pytest.mark.parametrize("name,kw", [("leaky_relu", {"negative_slope": -0.2}), ("elu", {"alpha": -0.5}),
                                     ("celu", {"alpha": -0.5})])
def test_inplace_with_a_negative_slope_is_refused_in_backward(name: str, kw: dict) -> None:
    """The in-place node saves the result, from which a negative slope's gradient cannot be read: PyTorch refuses
    it in backward (the forward runs)."""
    def message(lib, fn):
        y = fn(lib.tensor([-2.0, 1.0], requires_grad=True) * 1, inplace=True, **kw)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        return str(info.value)

    theirs = message(torch, getattr(TF, name))
    assert theirs in message(mg, getattr(F, name))


def test_inplace_modules_write_into_the_input() -> None:
    for make in (lambda nn: nn.LeakyReLU(0.1, inplace=True), lambda nn: nn.ReLU(inplace=True),
                 lambda nn: nn.ELU(inplace=True), lambda nn: nn.Threshold(0.1, 2.0, inplace=True)):
        x = mg.tensor([-1.0, 0.5, 2.0])
        assert make(mg.nn)(x) is x and x.tolist() == pytest.approx(make(torch.nn)(torch.tensor([-1.0, 0.5, 2.0])).tolist())


def test_inplace_double_backward_matches_pytorch() -> None:
    """The result-saving formulas differentiate again (float64, against PyTorch's second derivatives)."""
    for name, kw in [("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 0.7}), ("celu", {"alpha": 2.0}),
                     ("selu", {})]:
        def second(lib, fn):
            leaf = lib.tensor(X_SMOOTH.ravel()[:8], dtype=lib.float64, requires_grad=True)
            y = fn(leaf * 1, inplace=True, **kw)
            (g,) = lib.autograd.grad((y * y).sum(), leaf, create_graph=True)
            (gg,) = lib.autograd.grad(g.sum(), leaf)
            return g.detach().numpy(), gg.numpy()

        for a, b in zip(second(mg, getattr(F, name)), second(torch, getattr(TF, name))):
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_threshold_of_an_integer_tensor_keeps_its_dtype() -> None:
    got = F.threshold(mg.tensor([1, 2, 3]), 1.5, 0.5)
    want = TF.threshold(torch.tensor([1, 2, 3]), 1.5, 0.5)
    assert got.dtype == mg.int64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "logsigmoid", "glu"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_an_integer_tensor_is_refused_where_pytorch_refuses_it(name: str, dtype: str) -> None:
    """PyTorch computes these only for floating dtypes (an integer tensor is not promoted): the same
    ``NotImplementedError``, word for word, and no node."""
    with pytest.raises(NotImplementedError) as expected:
        getattr(TF, name)(torch.tensor([[-2, 0, 3, 4]]).to(getattr(torch, dtype)))
    x = mg.tensor([[-2, 0, 3, 4]]).to(getattr(mg, dtype))
    with pytest.raises(NotImplementedError) as got:
        getattr(F, name)(x)
    assert str(got.value) == str(expected.value)


def test_positional_inplace_after_the_attributes() -> None:
    assert F.leaky_relu(mg.tensor([-1.0]), 0.5, True).tolist() == [-0.5]
    assert F.elu(mg.tensor([-1.0]), 0.5, True).tolist() == pytest.approx([0.5 * (np.exp(-1.0) - 1)])
    with pytest.raises(TypeError, match="scale"):  # selu's scales are the op's, not F.elu's
        F.elu(mg.tensor([-1.0]), scale=2.0)
    with pytest.raises(TypeError, match="inplace"):
        F.leaky_relu(mg.tensor([-1.0]), 0.5, "yes")


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_softmin(dim) -> None:
    compare(lambda x: F.softmin(x, dim), lambda x: TF.softmin(x, dim), [X_SMOOTH[0]])


def test_softmin_dtype() -> None:
    x = mg.tensor([[1.0, 2.0]])
    assert F.softmin(x, 1, dtype=mg.float64).dtype == mg.float64


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_glu(dim: int) -> None:
    x = np.random.default_rng(3).normal(size=(4, 6, 2))
    compare(lambda t: F.glu(t, dim), lambda t: TF.glu(t, dim), [x])


@pytest.mark.parametrize("shape,n", [((2, 3, 4), 3), ((2, 3), 1), ((5,), 1), ((2, 3, 2, 2), 3)])
def test_prelu(shape: tuple, n: int) -> None:
    x = np.random.default_rng(4).normal(size=shape)
    w = np.random.default_rng(5).uniform(0.1, 0.5, size=(n,))
    compare(F.prelu, TF.prelu, [x, w])


ERRORS = [
    ("glu odd", lambda f, x: f.glu(x(3, 5), -1)),
    ("glu scalar", lambda f, x: f.glu(x(), 0)),
    ("glu dim", lambda f, x: f.glu(x(2, 2), 3)),
    ("prelu channels", lambda f, x: f.prelu(x(2, 3), x(4))),
    ("hardtanh bounds", lambda f, x: f.hardtanh(x(3), 2.0, 1.0)),
    ("leaky_relu slope type", lambda f, x: f.leaky_relu(x(3), "a")),
    ("silu not tensor", lambda f, x: f.silu([1.0])),
    ("mish not tensor", lambda f, x: f.mish([1.0])),
    ("softshrink negative", lambda f, x: f.softshrink(x(3), -1.0)),
]


@pytest.mark.parametrize("label,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_have_torch_classes_and_leave_no_node(label: str, call) -> None:
    want = error_class(lambda: call(TF, lambda *s: torch.ones(s, requires_grad=True)))
    got = error_class(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True)))
    assert want is not None and got is want, (got, want)
    leaves_no_node(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True)), want)


MODULES = [
    ("SiLU", (), {}), ("LeakyReLU", (0.2,), {}), ("ELU", (), {"alpha": 0.7}), ("SELU", (), {}), ("CELU", (1.5,), {}),
    ("ReLU6", (), {}), ("Hardtanh", (-2.0, 2.0), {}), ("Hardswish", (), {}), ("Hardsigmoid", (), {}), ("Mish", (), {}),
    ("Softsign", (), {}), ("Softmin", (1,), {}), ("Softplus", (), {"beta": 2.0}), ("LogSigmoid", (), {}),
    ("Tanhshrink", (), {}), ("GLU", (), {}), ("PReLU", (), {}), ("Threshold", (0.1, 20.0), {}), ("Hardshrink", (0.3,), {}),
    ("Softshrink", (), {}),
]


@pytest.mark.parametrize("name,args,kw", MODULES, ids=[m[0] for m in MODULES])
def test_module_matches_torch(name: str, args: tuple, kw: dict) -> None:
    m, t = getattr(mg.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw).double()
    assert list(m.state_dict()) == list(t.state_dict())
    m.load_state_dict({k: mg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = X_SMOOTH[..., :4]
    compare(lambda a: m(a), lambda a: t(a), [x])
    assert repr(m) == repr(t)


def test_prelu_module_per_channel_loads_torch_weights() -> None:
    t = torch.nn.PReLU(3, init=0.1).double()
    with torch.no_grad():
        t.weight.copy_(torch.tensor([0.1, 0.2, 0.3]))
    m = mg.nn.PReLU(3, init=0.1)
    assert tuple(m.weight.shape) == tuple(t.weight.shape)
    m.load_state_dict({k: mg.tensor(v.numpy(), dtype=mg.float64) for k, v in t.state_dict().items()})
    x = np.random.default_rng(6).normal(size=(2, 3, 4))
    out = m(mg.tensor(x, dtype=mg.float64))
    np.testing.assert_allclose(out.detach().numpy(), t(torch.tensor(x)).detach().numpy())


def test_gpu_expressions_are_filed() -> None:
    from minigrad.kernels.gpu import cuda_src

    for name in ("silu", "hardswish", "hardsigmoid"):
        assert name in cuda_src.UNARY


def test_softmax2d_module() -> None:
    x = np.random.default_rng(9).normal(size=(2, 3, 4, 4))
    compare(lambda a: mg.nn.Softmax2d()(a), lambda a: torch.nn.Softmax2d()(a), [x])
    assert repr(mg.nn.Softmax2d()) == repr(torch.nn.Softmax2d())


@pytest.mark.parametrize("name, args", [("relu_", ()), ("leaky_relu_", (0.2,)), ("elu_", (0.5,)),
                                        ("hardtanh_", (-0.5, 0.5))])
def test_functional_in_place_forms_as_torch(name, args):
    torch = pytest.importorskip("torch")
    got = []
    for L, FF in ((torch, torch.nn.functional), (mg, mg.nn.functional)):
        x = L.tensor([-1.0, 0.25, 2.0], requires_grad=True)
        y = x * 1
        out = getattr(FF, name)(y, *args)
        out.sum().backward()
        got.append((out is y, type(out.grad_fn).__name__, out.tolist(), x.grad.tolist()))
    assert got[1] == got[0]
