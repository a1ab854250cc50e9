"""``autograd.graph.allow_mutation_on_saved_tensors`` against PyTorch: a saved tensor changed in place is cloned
first, so backward reads the values it saved; outside the context the same program is refused."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _program(lib, case):
    G = lib.autograd.graph
    with G.allow_mutation_on_saved_tensors():
        a = lib.tensor(A, dtype=lib.float64, requires_grad=True)
        b = a.clone()
        if case == "pow, then sin_":
            out = (b ** 2).sum()
            b.sin_()
        elif case == "saved twice by one node":
            out = (b * b).sum()
            b.mul_(3)
        elif case == "a saved view, its base written":
            v = b[0]
            out = v.exp().sum()
            b.zero_()
        elif case == "written twice":
            out = (b.tanh() * b).sum()
            b.add_(1)
            b.mul_(2)
        elif case == "exp_ saves its result, then written":
            c = b.exp_()
            out = (c * 2).sum()
            b.add_(1)
        elif case == "saved after a write":
            b.add_(1)
            out = (b ** 3).sum()
            b.div_(4)
        elif case == "setitem":
            out = (b.sigmoid() * b).sum()
            b[:, 0] = 7.0
        else:
            raise AssertionError(case)
        out.backward()
        return a.grad.numpy(), b.detach().numpy()


CASES = ["pow, then sin_", "saved twice by one node", "a saved view, its base written", "written twice",
         "exp_ saves its result, then written", "saved after a write", "setitem"]


@pytest.mark.parametrize("case", CASES)
def test_backward_reads_the_saved_values_as_pytorchs(case):
    for got, want in zip(_program(mg, case), _program(torch, case)):
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


def test_a_write_through_a_view_at_an_offset_clones_too():
    """PyTorch 2.13 finds a saved tensor by the data pointer of the tensor written, so a write through
    ``b[1:]`` (another pointer) is missed and its backward silently reads the changed values
    (``a.grad`` [2, 40, 60]); minigrad finds it by the storage, and gives ``2 b`` with b as saved."""
    with mg.autograd.graph.allow_mutation_on_saved_tensors():
        a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 1
        out = (b * b).sum()
        b[1:].mul_(10)
        out.backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0] and b.tolist() == [1.0, 20.0, 30.0]


def test_refusals_as_pytorchs():
    for lib in (mg, torch):
        G = lib.autograd.graph
        with G.allow_mutation_on_saved_tensors():
            a = lib.ones(2, requires_grad=True)
            out = (a * a).sum()
        with pytest.raises(AssertionError, match="Trying to backward outside of the "
                                                 "'allow_mutation_on_saved_tensors' contextin which the graph was "
                                                 "originally recorded."):
            out.backward()
        with pytest.raises(RuntimeError, match="allow_mutation_on_saved_tensors contexts cannot be nested"):
            with G.allow_mutation_on_saved_tensors():
                with G.allow_mutation_on_saved_tensors():
                    pass
        b = lib.ones(2, requires_grad=True).clone()  # outside the context the version check refuses
        out = (b ** 2).sum()
        b.sin_()
        with pytest.raises(RuntimeError, match="modified by an in"):
            out.backward()


def test_nothing_is_copied_when_nothing_is_written():
    with mg.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = mg.ones(3, requires_grad=True)
        out = (a.exp() * a).sum()
        assert len(ctx.cloned) == 0 and len(ctx.original) == 3  # one handle a save: exp's result, mul's two operands
        out.backward()
    assert len(ctx.original) == 0  # cleared on exit
