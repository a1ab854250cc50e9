"""``ctx.mark_dirty``: a custom Function whose ``forward`` changes an input in place returns that input, with the
Function's node as its history and its version moved, as PyTorch's (NOTE [ An input marked dirty ] in
``autograd/function.py``): the printed lines of one program under both frameworks, the graph through a view
(``CopySlices``), and the refusals, which leave no node behind."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

PROGRAM = r"""
class MulInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        x.mul_(k)
        ctx.mark_dirty(x)
        ctx.k = k
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


class ExpInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class Forgets(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g


a = torch.ones(3, requires_grad=True)
b = a * 1.0
v0 = b._version
c = MulInplace.apply(b, 3.0)
print(c is b, b.grad_fn, b._version - v0, c.requires_grad, type(b.grad_fn).__name__)
(c * c).sum().backward()
print(a.grad)
for bad in (lambda: MulInplace.apply(a, 2.0), lambda: Forgets.apply(a * 1.0)):
    try:
        bad()
    except RuntimeError as e:
        print(e)
print(a)
x = torch.ones(2)
y = MulInplace.apply(x, 2.0)
print(y is x, y, y.grad_fn, x._version)
p = torch.tensor([0.0, 1.0], requires_grad=True)
q = p.clone()
r = ExpInplace.apply(q)
r.sum().backward()
print(r, p.grad)
q2 = p.clone()
r2 = ExpInplace.apply(q2)
q2.add_(1)
try:
    r2.sum().backward()
except RuntimeError as e:
    print("stale:", "modified by an in" in str(e))
base = torch.ones(4, requires_grad=True).clone()
view = base[:2]
out = MulInplace.apply(view, 5.0)
print(out is view, type(base.grad_fn).__name__, base)
(base * torch.arange(4.0)).sum().backward()
with torch.no_grad():
    z = torch.ones(2, requires_grad=True)
    print(MulInplace.apply(z, 4.0), z.requires_grad)
"""


def _printed(lib: object) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(PROGRAM, {"torch": lib})
    text = out.getvalue().replace("minigrad", "torch")
    return re.sub(r" object at 0x[0-9a-f]+>", ">", text).splitlines()


def test_mark_dirty_as_pytorch() -> None:
    assert _printed(mg) == _printed(torch)


def _double(lib: object) -> type:
    """A Function of ``lib`` that doubles its input in place and marks it dirty."""

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double


def test_through_a_view_the_base_s_history_is_rewritten_and_the_gradient_is_pytorch_s() -> None:
    grads = []
    for lib in (torch, mg):
        w = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        h = w * 1.0
        _double(lib).apply(h[:, 1])
        (h * h).sum().backward()
        grads.append((w.grad.numpy(), h.detach().numpy(), type(h.grad_fn).__name__))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])
    assert grads[0][2] == grads[1][2] == "CopySlices"


def test_a_refused_mark_dirty_leaves_no_node_event() -> None:
    a = mg.ones(3, requires_grad=True)
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place"):
            _double(mg).apply(a)
    assert not any(e.kind == "node.create" for e in tr.events)
