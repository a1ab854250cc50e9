"""Higher-order gradients (docs/architecture.md: The forward path, last paragraph; Engine rules 4 and 10).

With ``create_graph=True`` the backward formulas run with recording on, so a
gradient is itself a tensor with history and can be differentiated again, to
any order, by ``mg.grad`` or by ``backward()``. With ``create_graph=False``
nothing is recorded.

Hessian-vector products and third derivatives of random compositions of
smooth ops are checked against central finite differences of *first*
derivatives (float64), and against PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradgradcheck


def scalar(v: float) -> mg.Tensor:
    return mg.tensor([v], dtype=mg.float64, requires_grad=True)


def val(t: mg.Tensor) -> float:
    return float(t.detach().numpy().reshape(-1)[0])


def test_derivatives_of_x_cubed() -> None:
    """d/dx x^3 = 3x^2, d2 = 6x, d3 = 6 (rule 10), at x = 2."""
    x = scalar(2.0)
    y = x**3
    (d1,) = mg.grad(y, x, create_graph=True)
    (d2,) = mg.grad(d1, x, create_graph=True)
    (d3,) = mg.grad(d2, x, create_graph=True)
    assert (val(d1), val(d2), val(d3)) == (12.0, 12.0, 6.0)
    assert d1.requires_grad and d2.requires_grad and d3.requires_grad
    assert x.grad is None


def test_backward_through_a_gradient() -> None:
    x = scalar(2.0)
    y = x**3
    (d1,) = mg.grad(y, x, create_graph=True)
    d1.backward()  # d(3x^2)/dx = 6x
    assert val(x.grad) == 12.0
    # The user's first-order graph is still alive (grad() never released it).
    y.backward()
    assert val(x.grad) == 12.0 + 12.0


def test_gradient_penalty_style_backward() -> None:
    """loss = f(w) + |df/dw|^2, differentiated by backward() (a WGAN-GP style pattern)."""
    w = mg.tensor(np.array([0.3, -0.7]), requires_grad=True)
    f = (w.sin() * w).sum()
    (g,) = mg.grad(f, w, create_graph=True)
    loss = f + (g * g).sum()
    loss.backward()
    a = np.array([0.3, -0.7])
    gf = np.sin(a) + a * np.cos(a)
    hf = 2 * np.cos(a) - a * np.sin(a)  # diagonal Hessian
    np.testing.assert_allclose(w.grad.numpy(), gf + 2 * gf * hf, rtol=1e-12)


def test_create_graph_false_records_nothing() -> None:
    x = scalar(2.0)
    y = (x**3).sin()
    n_nodes_before = y.grad_fn.id
    with mg.trace() as tr:
        (g,) = mg.grad(y, x)
    assert not g.requires_grad and g.grad_fn is None
    created = [e for e in tr.events if e.kind == "node.create"]
    # Only GeneralGrad's copies (copy_of set) - no node from the formulas.
    assert created and all(e.copy_of is not None for e in created)
    assert all(e.node > n_nodes_before for e in created)
    with mg.trace() as tr:
        (g,) = mg.grad(y, x, create_graph=True)
    assert g.requires_grad
    assert any(e.kind == "node.create" and e.copy_of is None for e in tr.events)


def test_mixed_second_derivative() -> None:
    x = scalar(1.5)
    w = scalar(-2.0)
    f = (x * w).sin() * x
    gx, gw = mg.grad(f, [x, w], create_graph=True)
    (dxw,) = mg.grad(gx, w)
    (dwx,) = mg.grad(gw, x)
    xs, ws = 1.5, -2.0
    # df/dx = w cos(xw) x + sin(xw); d/dw of that:
    want = np.cos(xs * ws) * xs + ws * xs * xs * -np.sin(xs * ws) + xs * np.cos(xs * ws)
    assert val(dxw) == pytest.approx(want, rel=1e-12)
    assert val(dwx) == pytest.approx(want, rel=1e-12)


def test_second_grad_of_linear_function_is_unused() -> None:
    """The gradient of 2x has no history; create_graph makes it a leaf that
    requires grad (requires_grad == create_graph), unconnected to x."""
    x = scalar(2.0)
    (g,) = mg.grad(2 * x, x, create_graph=True)
    assert g.requires_grad and g.is_leaf
    assert mg.grad(g, x, allow_unused=True) == [None]


# -- random compositions against finite differences ------------------------------------------

# Smooth unary maps (kept in a tame range) and binary combinations.
UNARY = [
    ("sin", lambda t: t.sin(), np.sin),
    ("cos", lambda t: t.cos(), np.cos),
    ("tanh", lambda t: t.tanh(), np.tanh),
    ("sigmoid", lambda t: t.sigmoid(), lambda a: 1 / (1 + np.exp(-a))),
    ("exp", lambda t: (t * 0.3).exp(), lambda a: np.exp(a * 0.3)),
    ("square", lambda t: t * t, lambda a: a * a),
    ("softplus", lambda t: ((t).exp() + 1.0).log(), lambda a: np.log(np.exp(a) + 1.0)),
    ("sqrt", lambda t: (t * t + 1.0).sqrt(), lambda a: np.sqrt(a * a + 1.0)),
    ("cube", lambda t: t**3 * 0.2, lambda a: a**3 * 0.2),
]
BINARY = [
    ("mul", lambda a, b: a * b),
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("div", lambda a, b: a / (b * b + 1.0)),
]


def make_composition(seed: int, n_ops: int = 6):
    """A random program over one vector input: a list of (kind, op index, args)."""
    rng = np.random.default_rng(seed)
    prog = []
    n_vals = 1
    for _ in range(n_ops):
        if rng.random() < 0.6:
            prog.append(("u", int(rng.integers(len(UNARY))), (int(rng.integers(n_vals)),)))
        else:
            prog.append(("b", int(rng.integers(len(BINARY))), (int(rng.integers(n_vals)), int(rng.integers(n_vals)))))
        n_vals += 1
    w = rng.normal(size=4)
    return prog, w


def run_program(prog, w, x, lib_unary, lib_binary, weight):
    vals = [x]
    for kind, k, args in prog:
        if kind == "u":
            vals.append(lib_unary[k](vals[args[0]]))
        else:
            vals.append(lib_binary[k](vals[args[0]], vals[args[1]]))
    # Use every value so all paths matter.
    total = vals[-1] * weight
    for v in vals[1:-1]:
        total = total + v * 0.5
    return total.sum()


def mg_f(prog, w, x):
    return run_program(prog, w, x, [u[1] for u in UNARY], [b[1] for b in BINARY], mg.tensor(w))


def mg_grad(prog, w, a: np.ndarray, create_graph: bool = False):
    x = mg.tensor(a, requires_grad=True)
    (g,) = mg.grad(mg_f(prog, w, x), x, create_graph=create_graph)
    return x, g


def mg_hvp(prog, w, a: np.ndarray, v: np.ndarray) -> np.ndarray:
    x, g = mg_grad(prog, w, a, create_graph=True)
    (hv,) = mg.grad((g * mg.tensor(v)).sum(), x)
    return hv.numpy()


def mg_third(prog, w, a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """D^3 f(a)[v, v, .]"""
    x, g = mg_grad(prog, w, a, create_graph=True)
    vt = mg.tensor(v)
    (hv,) = mg.grad((g * vt).sum(), x, create_graph=True)
    (t,) = mg.grad((hv * vt).sum(), x)
    return t.numpy()


SEEDS = list(range(12))


@pytest.mark.parametrize("seed", SEEDS)
def test_hvp_matches_finite_differences_of_gradients(seed: int) -> None:
    prog, w = make_composition(seed)
    rng = np.random.default_rng(100 + seed)
    a = rng.normal(size=4) * 0.8
    v = rng.normal(size=4)
    eps = 1e-5
    gp = mg_grad(prog, w, a + eps * v)[1].numpy()
    gm = mg_grad(prog, w, a - eps * v)[1].numpy()
    fd = (gp - gm) / (2 * eps)
    np.testing.assert_allclose(mg_hvp(prog, w, a, v), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_third_derivative_matches_finite_differences_of_hvp(seed: int) -> None:
    prog, w = make_composition(seed)
    rng = np.random.default_rng(200 + seed)
    a = rng.normal(size=4) * 0.8
    v = rng.normal(size=4)
    eps = 1e-4
    fd = (mg_hvp(prog, w, a + eps * v, v) - mg_hvp(prog, w, a - eps * v, v)) / (2 * eps)
    np.testing.assert_allclose(mg_third(prog, w, a, v), fd, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seed", SEEDS[:6])
def test_hvp_and_third_derivative_match_torch(seed: int) -> None:
    torch = pytest.importorskip("torch")
    t_unary = {
        "sin": torch.sin, "cos": torch.cos, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
        "exp": lambda t: torch.exp(t * 0.3), "square": lambda t: t * t,
        "softplus": lambda t: torch.log(torch.exp(t) + 1.0), "sqrt": lambda t: torch.sqrt(t * t + 1.0),
        "cube": lambda t: t**3 * 0.2,
    }
    prog, w = make_composition(seed)
    rng = np.random.default_rng(300 + seed)
    a = rng.normal(size=4) * 0.8
    v = rng.normal(size=4)
    x = torch.tensor(a, requires_grad=True)
    vt = torch.tensor(v)
    f = run_program(prog, w, x, [t_unary[u[0]] for u in UNARY], [b[1] for b in BINARY], torch.tensor(w))
    (g,) = torch.autograd.grad(f, x, create_graph=True)
    (hv,) = torch.autograd.grad((g * vt).sum(), x, create_graph=True)
    (t3,) = torch.autograd.grad((hv * vt).sum(), x)
    np.testing.assert_allclose(mg_hvp(prog, w, a, v), hv.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mg_third(prog, w, a, v), t3.numpy(), rtol=1e-10, atol=1e-12)


def test_hessian_of_matmul_composition_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    A = rng.normal(size=(3, 4))
    a = rng.normal(size=(4, 2))
    v = rng.normal(size=(4, 2))

    def f(lib_x, lib_A):
        h = lib_A @ lib_x
        return (h.tanh() * h).sum() if not isinstance(lib_x, torch.Tensor) else (torch.tanh(h) * h).sum()

    xt = torch.tensor(a, requires_grad=True)
    (gt,) = torch.autograd.grad(f(xt, torch.tensor(A)), xt, create_graph=True)
    (hvt,) = torch.autograd.grad((gt * torch.tensor(v)).sum(), xt)
    xm = mg.tensor(a, requires_grad=True)
    (gm,) = mg.grad(f(xm, mg.tensor(A)), xm, create_graph=True)
    (hvm,) = mg.grad((gm * mg.tensor(v)).sum(), xm)
    np.testing.assert_allclose(hvm.numpy(), hvt.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fused", ["layer_norm", "batch_norm", "gelu_backward", "softmax_backward_data",
                                   "log_softmax_backward_data"])
def test_second_derivatives_of_the_fused_ops_match_finite_differences(fused: str) -> None:
    """The fused backward ops' formulas (layer_norm's, batch_norm's, gelu_backward's, softmax's and
    log_softmax's backwards) are differentiable in turn (double backward)."""
    rng = np.random.default_rng(11)

    def leaf(a: np.ndarray) -> mg.Tensor:
        return mg.tensor(a, dtype="float64", requires_grad=True)

    if fused == "layer_norm":
        args = [leaf(rng.standard_normal((2, 3, 4))), leaf(rng.standard_normal(4)), leaf(rng.standard_normal(4))]
        assert gradgradcheck(lambda x, w, b: mg.nn.functional.layer_norm(x, (4,), w, b), args)
        # Through its two fused backward ops, whose formulas are differentiable in turn (third derivatives).
        args = [leaf(rng.standard_normal((2, 3, 4))), leaf(rng.standard_normal((2, 3, 4))), leaf(rng.standard_normal(4))]
        assert gradgradcheck(lambda g, x, w: mg.OPS["layer_norm_backward"](g, x, w, 1, 1e-5), args)
        assert gradgradcheck(lambda g, x: mg.OPS["layer_norm_weight_grad"](g, x, 1, 1e-5), args[:2])
    elif fused == "batch_norm":
        rm, rv = mg.tensor([0.2, -0.1, 0.4], dtype="float64"), mg.tensor([0.8, 1.5, 0.6], dtype="float64")
        args = [leaf(rng.standard_normal((4, 3, 2))), leaf(rng.standard_normal(3)), leaf(rng.standard_normal(3))]
        for training in (True, False):
            assert gradgradcheck(lambda x, w, b: mg.nn.functional.batch_norm(x, rm, rv, w, b, training=training), args)
        # Through its two fused backward ops (third derivatives), with the batch's and the running statistics.
        args = [leaf(rng.standard_normal((4, 3, 2))), leaf(rng.standard_normal((4, 3, 2))), leaf(rng.standard_normal(3))]
        for training, running in ((True, (None, None)), (False, (rm, rv))):
            assert gradgradcheck(lambda g, x, w: mg.OPS["batch_norm_backward"](g, x, w, *running, training, 1e-3), args)
            assert gradgradcheck(lambda g, x: mg.OPS["batch_norm_weight_grad"](g, x, *running, training, 1e-3), args[:2])
    elif fused == "gelu_backward":
        args = [leaf(rng.standard_normal((2, 3))), leaf(rng.uniform(-3, 3, (2, 3)))]
        assert gradgradcheck(lambda g, x: mg.gelu_backward(g, x), args)
    else:  # softmax's and log_softmax's backwards, and through them the forward ops' second derivatives
        args = [leaf(rng.standard_normal((2, 3))), leaf(rng.uniform(0.1, 0.9, (2, 3)))]
        assert gradgradcheck(lambda g, y: mg.OPS[fused](g, y, 1), args)
        forward = mg.softmax if fused == "softmax_backward_data" else mg.log_softmax
        assert gradgradcheck(lambda x: forward(x, dim=0), [leaf(rng.standard_normal((3, 2)))])
