"""``mg.cond`` against eager ``torch.cond``: the branch taken, values, gradients, the graph and the refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _both(values):
    return mg.tensor(values, dtype=mg.float64, requires_grad=True), torch.tensor(values, dtype=torch.float64,
                                                                                requires_grad=True)


@pytest.fixture(autouse=True)
def _keep_pytorchs_validation():
    """Eager ``torch.cond`` compiles its branches with dynamo, which turns PyTorch's distributions' argument
    validation off for the whole process (``Distribution._validate_args``): put it back for the tests after."""
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


def _torch_cond(*args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.cond(*args)


@pytest.mark.parametrize("take", [True, False])
def test_tensor_pred_values_gradients_and_graph(take) -> None:
    (x, tx), (w, tw) = _both([0.5, -1.0, 2.0]), _both([1.5, 2.0, -0.5])
    y = mg.cond(mg.tensor(take), lambda a, b: (a * b).sin(), lambda a, b: a.cos() + b, (x, w))
    ty = _torch_cond(torch.tensor(take), lambda a, b: (a * b).sin(), lambda a, b: a.cos() + b, (tx, tw))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    assert y.grad_fn.name() == ty.grad_fn.name() == "CondAutogradOpBackward"
    assert [type(n).__name__ if n else None for n, _ in y.grad_fn.next_functions] == \
        [type(n).__name__ if n else None for n, _ in ty.grad_fn.next_functions]
    (y * mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)).sum().backward()
    (ty * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_python_pred_calls_the_branch_and_keeps_its_graph() -> None:
    (x, tx) = _both([0.5, 1.0])
    y, ty = mg.cond(False, lambda a: a.sin(), lambda a: a.exp(), (x,)), _torch_cond(False, lambda a: a.sin(),
                                                                                    lambda a: a.exp(), (tx,))
    assert y.grad_fn.name() == ty.grad_fn.name() == "ExpBackward0"
    assert mg.cond(1, lambda: 3, lambda: 4) == _torch_cond(1, lambda: 3, lambda: 4) == 3


def test_nested_results_and_operands() -> None:
    (x, tx) = _both([0.5, 1.0])
    ours = mg.cond(x.sum() > 0, lambda d: [d["a"].sin(), d["a"] * 2], lambda d: [d["a"].cos(), d["a"] + 1], ({"a": x},))
    theirs = _torch_cond(tx.sum() > 0, lambda d: [d["a"].sin(), d["a"] * 2], lambda d: [d["a"].cos(), d["a"] + 1],
                         ({"a": tx},))
    assert type(ours) is type(theirs) is list
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12)
    (ours[0] + ours[1]).sum().backward()
    (theirs[0] + theirs[1]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    # ints may ride along (PyTorch's own backward then fails on their None gradient; minigrad's does not)
    ours = mg.cond(x.sum() > 0, lambda a: (a.sin(), 2), lambda a: (a.cos(), 3), (x,))
    theirs = _torch_cond(tx.sum() > 0, lambda a: (a.sin(), 2), lambda a: (a.cos(), 3), (tx,))
    assert type(ours) is type(theirs) is tuple and ours[1] == theirs[1] == 2


def test_no_graph_under_no_grad_or_without_grad() -> None:
    x, tx = mg.ones(2), torch.ones(2)
    assert mg.cond(mg.tensor(True), lambda a: a * 2, lambda a: a, (x,)).grad_fn is None
    assert _torch_cond(torch.tensor(True), lambda a: a * 2, lambda a: a * 3, (tx,)).grad_fn is None
    x = mg.ones(2, requires_grad=True)
    with mg.no_grad():
        assert mg.cond(mg.tensor(True), lambda a: a * 2, lambda a: a * 3, (x,)).grad_fn is None


@pytest.mark.parametrize("case", ["two_elements", "string", "none", "not_callable", "tensor_operands", "int_operand"])
def test_refusals_in_pytorchs_words(case) -> None:
    def args(fw):
        x = fw.ones(3)
        sin, cos = (lambda a: a.sin()), (lambda a: a.cos())
        return {"two_elements": (fw.tensor([True, False]), sin, cos, (x,)),
                "string": ("a", sin, cos, (x,)),
                "none": (None, sin, cos, (x,)),
                "not_callable": (fw.tensor(True), 3, cos, (x,)),
                "tensor_operands": (fw.tensor(True), sin, cos, x),
                "int_operand": (fw.tensor(True), lambda a, b: a.sin(), lambda a, b: a.cos(), (x, 1))}[case]
    with pytest.raises(RuntimeError) as theirs:
        _torch_cond(*args(torch))
    with pytest.raises(RuntimeError) as ours:
        mg.cond(*args(mg))
    assert str(ours.value).split(", but got")[0] == str(theirs.value).split(", but got")[0]


@pytest.mark.parametrize("branch", [lambda a: None, lambda a: 1.5, lambda a: a, lambda a: a.view(3)])
def test_branch_results_pytorch_refuses(branch) -> None:
    with pytest.raises(RuntimeError):
        _torch_cond(torch.tensor(True), branch, branch, (torch.ones(3),))
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="torch.cond"):
        mg.cond(mg.tensor(True), branch, branch, (x,))


def test_exported_and_documented() -> None:
    import doctest

    import minigrad.control_flow as module

    assert "cond" in mg.__all__ and mg.cond is module.cond
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
