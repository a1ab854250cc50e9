"""PyTorch's in-place forms of the elementwise, cumulative, triangle and matrix methods (``x.floor_()``,
``x.cumsum_(0)``, ``x.triu_()``, ``c.addmm_(a, b)``): the values, the node the tensor then has, its version
and the gradients are PyTorch's."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(3)
X = RNG.uniform(0.2, 0.8, (3, 3))  # in every domain below (acos, atanh, logit...)
Y = RNG.uniform(0.5, 1.5, (3, 3))

#: name -> the call on (lib, x, y): x is changed in place
FORMS: dict[str, Callable[[Any, Any, Any], Any]] = {
    **{name: (lambda n: lambda lib, x, y: getattr(x, n)())(name) for name in (
        "absolute_", "acos_", "asin_", "atan_", "ceil_", "cos_", "cosh_", "erf_", "exp2_", "expm1_", "floor_",
        "log10_", "log1p_", "log2_", "logit_", "negative_", "reciprocal_", "round_", "sign_", "sin_", "sinc_",
        "sinh_", "tan_", "tril_", "triu_", "trunc_", "arccos_", "arcsin_", "arctan_", "fix_", "lgamma_", "digamma_")},
    "polygamma_": lambda lib, x, y: x.polygamma_(2),
    "mvlgamma_": lambda lib, x, y: x.mvlgamma_(2),
    **{name: (lambda n: lambda lib, x, y: getattr(x, n)(y))(name) for name in (
        "atan2_", "arctan2_", "copysign_", "divide_", "fmod_", "multiply_", "remainder_", "subtract_", "true_divide_", "xlogy_")},
    "cumsum_": lambda lib, x, y: x.cumsum_(0),
    "swapaxes_": lambda lib, x, y: x.swapaxes_(0, 1),
    "swapdims_": lambda lib, x, y: x.swapdims_(1, -2),
    # torch.exp_(x) ...: the method on the first argument
    **{f"torch.{name}": (lambda n: lambda lib, x, y: getattr(lib, n)(x))(name) for name in (
        "abs_", "acos_", "arccos_", "arcsin_", "arctan_", "asin_", "atan_", "ceil_", "cos_", "cosh_", "deg2rad_",
        "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "log_",
        "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_",
        "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_")},
    "torch.clamp_": lambda lib, x, y: lib.clamp_(x, 0.3, 0.6),
    "torch.clip_": lambda lib, x, y: lib.clip_(x, max=0.6),
    "torch.clamp_min_": lambda lib, x, y: lib.clamp_min_(x, 0.5),
    "torch.clamp_max_": lambda lib, x, y: lib.clamp_max_(x, y),
    "torch.fill_": lambda lib, x, y: lib.fill_(x, 2.0),
    "torch.xlogy_": lambda lib, x, y: lib.xlogy_(x, y),
    "torch.addmv_": lambda lib, x, y: lib.addmv_(x[0], y, y[1], alpha=2.0),
    "cumprod_": lambda lib, x, y: x.cumprod_(1),
    "triu_ with an offset": lambda lib, x, y: x.triu_(1),
    "subtract_ with alpha": lambda lib, x, y: x.subtract_(y, alpha=2.0),
    "addmm_": lambda lib, x, y: x.addmm_(y, y.t(), beta=0.5, alpha=2.0),
    "addmv_": lambda lib, x, y: x[0].addmv_(y, y[1]),
    "baddbmm_": lambda lib, x, y: x.unsqueeze(0).baddbmm_(y.unsqueeze(0), y.unsqueeze(0)),
    **{f"scatter_reduce_ {r}": (lambda r: lambda lib, x, y: x.scatter_reduce_(
        1, lib.tensor([[0, 0, 2], [1, 1, 1], [2, 0, 0]]), y, r, include_self=r != "mean"))(r)
       for r in ("sum", "prod", "mean", "amax", "amin")},
    **{f"index_reduce_ {r}": (lambda r: lambda lib, x, y: x.index_reduce_(
        0, lib.tensor([2, 0, 2]), y, r, include_self=r != "amin"))(r) for r in ("prod", "mean", "amax", "amin")},
}
#: no derivative in PyTorch: values only, without grad
NO_GRAD = {"floor_divide_": lambda x, y: x.floor_divide_(y), "heaviside_": lambda x, y: x.heaviside_(y)}


def _run(lib: Any, name: str) -> tuple[Any, ...]:
    leaf = lib.tensor(X, requires_grad=True)
    y = lib.tensor(Y, requires_grad=True)
    x = leaf * 1
    out = FORMS[name](lib, x, y)
    node = type(x.grad_fn).__name__
    (x * lib.tensor(np.sin(np.arange(1.0, 10.0)).reshape(3, 3))).sum().backward()
    grads = [None if g is None else (g + 0).detach().numpy() for g in (leaf.grad, y.grad)]  # (+ 0: no ZeroTensor)
    return (x.detach().numpy(), node, x._version, *grads, out.data_ptr() == x.data_ptr())


@pytest.mark.parametrize("name", sorted(FORMS))
def test_an_inplace_form_is_pytorchs(name):
    ours, theirs = _run(mg, name), _run(torch, name)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    assert ours[1:3] == theirs[1:3]
    for g, h in zip(ours[3:5], theirs[3:5]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(NO_GRAD))
def test_an_inplace_form_without_a_derivative_changes_the_values(name):
    got = [NO_GRAD[name](lib.tensor(X - 0.5), lib.tensor(Y - 1.0)) for lib in (mg, torch)]
    np.testing.assert_array_equal(got[0].numpy(), got[1].numpy())


def test_an_inplace_form_refuses_a_leaf_that_requires_grad():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        mg.tensor(X, requires_grad=True).floor_()


@pytest.mark.parametrize("name", ["acosh_", "arccosh_", "asinh_", "arcsinh_", "atanh_", "arctanh_"])
def test_an_inverse_hyperbolic_inplace_form_has_no_derivative(name):
    """PyTorch's in-place forms of acosh/asinh/atanh: the values and a node (``AcoshBackward1``) that raises."""
    shift = 1.5 if "cosh" in name else 0.0
    outs = []
    for lib in (mg, torch):
        leaf = lib.tensor(X + shift, requires_grad=True)
        x = leaf * 1
        getattr(x, name)()
        with pytest.raises(NotImplementedError, match=f"the derivative for 'inplace version of {name.replace('arc', 'a')[:-1]}' "
                                                      "is not implemented"):
            x.sum().backward()
        outs.append((x.detach().numpy(), type(x.grad_fn).__name__, getattr(lib, name)(lib.tensor(X + shift)).numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
    np.testing.assert_allclose(outs[0][2], outs[1][2], rtol=1e-12)
    assert outs[0][1] == outs[1][1]


def test_an_inplace_function_refuses_what_is_not_a_tensor():
    for lib in (mg, torch):
        with pytest.raises(TypeError, match=r"exp_\(\): argument 'input' \(position 1\) must be Tensor, not float"):
            lib.exp_(1.0)


# The in-place comparisons and logical ops: the truth values in x's dtype. A comparison's node is PyTorch's
# (EqBackward0 for a number, EqBackward1 for a tensor) with zero gradients; a logical op's is none (x keeps its
# history and its gradient passes through, its version moves), as PyTorch's out= kernel writes them.
COMPARING: dict[str, Callable[[Any, Any, Any], Any]] = {
    **{f"{name} tensor": (lambda n: lambda lib, x, y: getattr(x, n)(y))(name) for name in (
        "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "less_", "less_equal_", "greater_", "greater_equal_", "not_equal_",
        "logical_and_", "logical_or_", "logical_xor_")},
    **{f"{name} number": (lambda n: lambda lib, x, y: getattr(x, n)(0.5))(name) for name in (
        "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "less_", "greater_equal_")},
    "logical_not_": lambda lib, x, y: x.logical_not_(),
    "lt_ broadcast": lambda lib, x, y: x.lt_(y[0]),
    "eq_ of equal values": lambda lib, x, y: x.eq_(x.detach() * 1),
}


def _compared(lib: Any, name: str, y_grad: bool) -> tuple[Any, ...]:
    leaf = lib.tensor(X, requires_grad=True)
    y = lib.tensor(Y - 0.5, requires_grad=y_grad)
    x = leaf * 1
    version = x._version
    out = COMPARING[name](lib, x, y)
    node = graph_names(x.grad_fn)
    (x * lib.tensor(np.sin(np.arange(1.0, 10.0)).reshape(3, 3))).sum().backward()
    grads = [None if g is None else (g + 0).detach().numpy() for g in (leaf.grad, y.grad)]
    return (x.detach().numpy(), out is x, x.dtype == leaf.dtype, node, x._version - version, *grads)


def graph_names(node: Any) -> Any:
    return None if node is None else (type(node).__name__, [graph_names(f) for f, _ in node.next_functions])


@pytest.mark.parametrize("y_grad", [False, True])
@pytest.mark.parametrize("name", sorted(COMPARING))
def test_an_inplace_comparison_is_pytorchs(name, y_grad):
    ours, theirs = _compared(mg, name, y_grad), _compared(torch, name, y_grad)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1:5] == theirs[1:5]
    for g, h in zip(ours[5:], theirs[5:]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_array_equal(g, h)


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor([1, 2, 3]).lt_(2.5),  # compared as floats, written as integers
    lambda lib: lib.tensor([1, 2, 3]).eq_(lib.tensor([1, 0, 3])),
    lambda lib: lib.tensor([True, False]).lt_(1),
    lambda lib: lib.tensor([1, 2, 0]).logical_and_(lib.tensor([1.0, 0.0, 1.0])),
    lambda lib: lib.tensor([1.0, 2.0, 0.0]).logical_not_(),
    lambda lib: lib.tensor([0.1, 0.2], dtype=lib.float32).eq_(0.1),  # a number does not widen a float32 tensor
    lambda lib: lib.ones(2, 3).ge_(lib.ones(3)),
])
def test_an_inplace_comparison_keeps_the_dtype(call):
    ours, theirs = call(mg), call(torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call, error, words", [
    (lambda lib: lib.ones(3).eq_(lib.ones(2, 3)), RuntimeError, r"output with shape \[3\] doesn't match the broadcast "
                                                                r"shape \[2, 3\]"),
    (lambda lib: lib.ones(3).logical_or_(lib.ones(2, 3)), RuntimeError, r"output with shape \[3\] doesn't match"),
    (lambda lib: lib.ones(3).lt_("a"), TypeError, r"lt_\(\) received an invalid combination of arguments - got \(str\)"),
    (lambda lib: lib.ones(3).logical_and_(2.0), TypeError, r"logical_and_\(\): argument 'other' \(position 1\) must be "
                                                           r"Tensor, not float"),
    (lambda lib: lib.ones(3, requires_grad=True).gt_(0.0), RuntimeError, "a leaf Variable that requires grad"),
])
def test_an_inplace_comparison_refuses_as_pytorch(call, error, words):
    for lib in (mg, torch):
        with pytest.raises(error, match=words):
            call(lib)


def test_a_logical_inplace_op_changes_a_leaf_that_requires_grad():
    """PyTorch writes a logical op's result outside autograd: even into a leaf that requires grad."""
    for lib in (mg, torch):
        leaf = lib.tensor([1.0, 0.0], requires_grad=True)
        leaf.logical_not_()
        assert leaf.tolist() == [0.0, 1.0] and leaf.requires_grad and leaf.grad_fn is None
