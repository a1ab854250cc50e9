"""The programs of the version view's pictures and tests (TUI and web page): an in-place change
through a view (the base's history rewritten), and one that makes a saved tensor stale."""

from __future__ import annotations

import minigrad as mg


def view_rewrite_events():
    """``h = x * 2; h[1].mul_(3); h.sum().backward()``: one bump through the view ``h[1]``, the
    history of ``h`` rewritten (a CopySlices node), backward through it."""
    with mg.trace() as tr:
        x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        h = x * 2
        h[1].mul_(3)
        h.sum().backward()
    return tr.events


def stale_saved_events():
    """``b = a * a`` saves ``a``; ``a.add_(1)`` changes it afterwards: backward through ``b``'s node refuses.
    Returns the events (up to the refusal) and the error's message."""
    with mg.trace() as tr:
        x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a = x * 2
        b = a * a
        a.add_(1)
        try:
            b.sum().backward()
        except RuntimeError as exc:
            message = str(exc)
        else:
            raise AssertionError("backward through a stale saved tensor did not raise")
    return tr.events, message


def training_steps_events():
    """Two SGD steps on a two-layer MLP: each update changes the second layer's weight, which the step's
    nodes saved (the first layer's is not saved: its input needs no gradient) - after they ran."""
    mg.manual_seed(0)
    lin = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    with mg.trace(values=False) as tr:
        for _ in range(2):
            opt.zero_grad()
            lin(mg.randn(4, 3)).sum().backward()
            opt.step()
    return tr.events
