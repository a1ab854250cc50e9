"""``.grad`` is a field of every tensor, as PyTorch's: assigned to one that does not require grad, kept through
``requires_grad_(False)`` and ``detach_()``, taken back by ``requires_grad_()``; an assigned gradient of another
dtype, device or size is refused in PyTorch's words."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _story(lib, case):
    if case == "assigned to a tensor that does not require grad":
        x = lib.ones(2)
        x.grad = lib.full((2,), 3.0)
        return x.grad, x.requires_grad
    if case == "then it requires grad":
        x = lib.ones(2)
        x.grad = lib.full((2,), 3.0)
        x.requires_grad_()
        (x * 2).sum().backward()
        return x.grad, x.requires_grad
    if case == "requires_grad_(False) keeps it":
        y = lib.ones(2, requires_grad=True)
        (y * 2).sum().backward()
        y.requires_grad_(False)
        return y.grad, y.requires_grad
    if case == "detach_() keeps it":
        y = lib.ones(2, requires_grad=True)
        (y * 5).sum().backward()
        y.detach_()
        return y.grad, y.is_leaf
    if case == "set back to None":
        x = lib.ones(2)
        x.grad = lib.ones(2)
        x.grad = None
        return x.grad, x.requires_grad
    if case == "an integer tensor's":
        x = lib.ones(2, dtype=lib.int64)
        x.grad = lib.ones(2, dtype=lib.int64)
        return x.grad, x.requires_grad
    if case == "a non-leaf's":
        z = lib.ones(2, requires_grad=True) * 2
        z.grad = lib.ones(2)
        return z.grad, z.is_leaf
    raise AssertionError(case)


CASES = ["assigned to a tensor that does not require grad", "then it requires grad", "requires_grad_(False) keeps it",
         "detach_() keeps it", "set back to None", "an integer tensor's", "a non-leaf's"]


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("case", CASES)
def test_grad_is_a_field_of_every_tensor(case):
    (g_mine, flag_mine), (g_theirs, flag_theirs) = _story(mg, case), _story(torch, case)
    assert flag_mine == flag_theirs
    if g_theirs is None:
        assert g_mine is None
    else:
        assert str(g_mine.dtype).split(".")[1] == str(g_theirs.dtype).split(".")[1]
        np.testing.assert_array_equal(g_mine.numpy(), g_theirs.numpy())


@pytest.mark.parametrize("value", ["ones(3)", "ones(2, dtype=float64)", "ones(3, dtype=float64)", "5"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_wrong_gradient_is_refused_in_pytorchs_words(value, requires_grad):
    outcomes = []
    for lib in (mg, torch):
        x = lib.ones(2, requires_grad=requires_grad)
        v = eval(value, {"ones": lib.ones, "float64": lib.float64})  # noqa: S307  (the table above)
        with pytest.raises((RuntimeError, TypeError)) as info:
            x.grad = v
        outcomes.append((info.type, str(info.value)))
        assert x.grad is None
    assert outcomes[0] == outcomes[1]
