"""The built-in demo: what ``minigrad-tui`` (and ``make tui``) opens with no argument.

A small MLP-like graph chosen to show every rule of the engine's ready queue::

    h    = tanh(x @ w1 + b1)          # a hidden layer
    a, s = h * h, sigmoid(h)          # h is a shared subexpression ...
    d    = a + s                      # ... and the two paths form a diamond
    loss = (d @ w2).sum() + (b1 * b1).sum()   # the leaf b1 is used twice

then two backward passes over the same graph:

1. ``loss.backward(retain_graph=True)`` — every leaf's AccumulationNode runs;
2. ``mg.grad(loss, [w1], no_grad_vars=[s])`` — GeneralGrad copies the graph,
   cuts the edges into ``s`` and runs only what ``w1`` needs.

The second pass needs ``mg.grad``; without it the demo offers only the first.
"""

from __future__ import annotations

from typing import Any

from .model import Session

__all__ = ["record_demo", "demo_session", "DEMO_SOURCE"]

DEMO_SOURCE = __doc__


def record_demo() -> Any:
    """Run the demo under ``mg.trace()`` and return the recorder."""
    import minigrad as mg

    with mg.trace() as tr:
        x = mg.tensor([[1.0, -2.0]], name="x")
        w1 = mg.tensor([[0.5, -0.3], [0.8, 0.2]], requires_grad=True, name="w1")
        b1 = mg.tensor([0.1, -0.1], requires_grad=True, name="b1")
        w2 = mg.tensor([[1.0], [-1.0]], requires_grad=True, name="w2")
        h = (x @ w1 + b1).tanh()
        a = h * h
        s = h.sigmoid()
        d = a + s
        loss = (d @ w2).sum() + (b1 * b1).sum()
        loss.backward(retain_graph=True)
        if hasattr(mg, "grad"):
            mg.grad([loss], [w1], no_grad_vars=[s])
    return tr


def demo_session() -> Session:
    """The demo as a session (raises ``SourceError`` when the engine cannot run it)."""
    from .sources import SourceError

    try:
        rec = record_demo()
    except (ImportError, AttributeError) as exc:
        raise SourceError(
            "The built-in demo needs the minigrad engine (tensors and backward), which is not available here:\n"
            f"{type(exc).__name__}: {exc}\n\nOpen a saved trace instead: minigrad-tui run.jsonl"
        ) from None
    except Exception as exc:  # noqa: BLE001 - an engine bug must not dump a traceback over the screen
        raise SourceError(f"The built-in demo failed inside the engine: {type(exc).__name__}: {exc}") from None
    return Session(rec.events, title="demo")
