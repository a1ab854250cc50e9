"""The programs lesson 8 runs on your engine and on the reference (used by the tests and by record.py).

Each program builds a small graph and calls ``run`` - a ``run_backward``
function, yours or the reference's - the way ``Tensor.backward`` and
``mg.grad`` call it. Errors the engine raises are part of the behaviour: a
program catches them and tells the caller, so the recording goes on.
"""

from __future__ import annotations

from typing import Callable

import minigrad as mg

Run = Callable[..., object]


def diamond(run: Run) -> list[str]:
    """A diamond and a reused leaf: ``y = x * w``; ``loss = sum(exp(y) + sin(y) + x * x)``."""
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = mg.tensor([1.5, 0.25, -0.5], requires_grad=True)
    y = x * w
    run([(y.exp() + y.sin() + x * x).sum()])
    return [f"x.grad = {x.grad.tolist() if x.grad is not None else None}"]


def backward_twice(run: Run) -> list[str]:
    """Backward with retain_graph, again without it, then a third time (which must raise)."""
    x = mg.tensor([1.0, -2.0], requires_grad=True)
    h = x * x
    loss = (h * x + h.tanh()).sum()
    said = []
    for k, retain in enumerate((True, False, False)):
        try:
            run([loss], None, retain)
            said.append(f"backward {k + 1}: ran")
        except RuntimeError as exc:
            said.append(f"backward {k + 1}: RuntimeError: {str(exc)[:60]}")
    return said


def list_input(run: Run) -> list[str]:
    """A node with a list input: ``stack([a, b])`` sends one gradient to each of a and b."""
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    s = mg.stack([a * 2.0, b.exp()])
    run([(s * s).sum()])
    return [f"a.grad = {a.grad.tolist() if a.grad is not None else None}"]


def grad_of_one_input(run: Run) -> list[str]:
    """``mg.grad(loss, [w])``: the branch through ``exp(x)`` is not needed and must not run."""
    x = mg.tensor([0.5, 1.5], requires_grad=True)
    w = mg.tensor([2.0, -1.0], requires_grad=True)
    loss = (x * w + x.exp()).sum()
    (gw,) = run([loss], None, False, False, [w])
    return [f"grad w = {gw.tolist()}", f"x.grad = {x.grad}"]


def two_outputs(run: Run) -> list[str]:
    """``backward([loss, y])``: y's node starts in the queue but must wait for loss's gradient."""
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    y = x * x
    loss = (y.sin() + y).sum()
    run([loss, y], [None, mg.ones(2)])
    return [f"x.grad = {x.grad.tolist()}"]


PROGRAMS: dict[str, Callable[[Run], list[str]]] = {
    "diamond": diamond,
    "backward_twice": backward_twice,
    "list_input": list_input,
    "grad_of_one_input": grad_of_one_input,
    "two_outputs": two_outputs,
}


def record(program: Callable[[Run], list[str]], run: Run, values: bool = True) -> mg.tracing.Recorder:
    """Record ``program`` (forward and backward) with the engine ``run``."""
    with mg.trace(values=values) as tr:
        program(run)
    return tr
