"""Viewer responsiveness: loading and stepping through a large recorded backward pass.

Records a real N-node backward pass (a chain of ``(y * c).tanh()``, values on),
then measures what a student waits for: ``mg.trace.load`` of the saved file,
``mg.trace.replay``, opening it in the TUI's model (``minigrad.tui.model.Session``),
stepping one event forwards and backwards (``replay[i]``), and rendering a
graph of hundreds of nodes with ``minigrad.viz``. The target is a 5 000-node
pass to load "in seconds" and a step to redraw within 50 ms; this is where those
numbers are measured (the tests only check behaviour).

Run: ``python bench/viewers.py [--quick]``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from typing import Any

try:
    from . import _common as C
except ImportError:  # run as a script
    import _common as C  # type: ignore[no-redef]

import minigrad as mg


def record_chain(pairs: int, path: str) -> int:
    """Save a recorded backward pass of ``2 * pairs`` grad nodes (+1 AccumulationNode)."""
    x = mg.tensor([1.0, 2.0], requires_grad=True, name="x")
    with mg.trace(values=True) as tr:
        y = x
        for _ in range(pairs):
            y = (y * 1.0001).tanh()
        y.sum().backward()
    tr.save(path)
    return len(tr.events)


def _seconds(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run(size: str = "full") -> list[dict[str, Any]]:
    pairs = 2500 if size == "full" else 50
    nodes = 2 * pairs + 2
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chain.jsonl")
        n_events = record_chain(pairs, path)
        name = f"{nodes}-node pass ({n_events:,} events)"
        t_load, rec = _seconds(lambda: mg.trace.load(path))
        rows.append(C.row(f"{name}: trace.load", "minigrad", t_load, "s"))
        t_replay, states = _seconds(lambda: mg.trace.replay(rec))
        rows.append(C.row(f"{name}: trace.replay", "minigrad", t_replay, "s", target="load in seconds"))
        try:
            from minigrad.tui.model import Session

            t_session, session = _seconds(lambda: Session(rec.events, title="chain"))
            rows.append(C.row(f"{name}: open in the TUI model (load+replay+layout)", "minigrad", t_session + t_load, "s",
                              target="seconds"))
            if shutil.which("dot") and session.passes:
                t_canvas, canvas = _seconds(lambda: (session.layout(0), session.canvas(0))[1])
                rows.append(C.row(f"{name}: TUI 2-D graph layout (dot, chains folded)", "minigrad", t_canvas, "s",
                                  target="seconds", note=f"{len(canvas.boxes)} boxes"))
        except ImportError as exc:  # textual missing
            rows.append(C.row(f"{name}: open in the TUI model", "minigrad", None, "", note=f"not measured: {exc}"))
        mid = len(states) // 2
        fwd, back = [], []
        states[mid]
        for k in range(30):
            dt, _ = _seconds(lambda: states[mid + k + 1])
            fwd.append(dt)
        for k in range(30):
            dt, _ = _seconds(lambda: states[mid + 30 - k - 1])
            back.append(dt)
        rows.append(C.row(f"{name}: step forward (replay[i+1])", "minigrad", statistics.median(fwd) * 1e3, "ms",
                          target="<= 50 ms per redraw", note="the TUI's panes repaint on top of this"))
        rows.append(C.row(f"{name}: step back (replay[i-1])", "minigrad", statistics.median(back) * 1e3, "ms",
                          target="<= 50 ms per redraw"))
        if shutil.which("dot"):
            import minigrad.viz as viz

            small = os.path.join(tmp, "small.jsonl")
            record_chain(225 if size == "full" else 20, small)
            t_render, _ = _seconds(lambda: viz.render(mg.trace.load(small)).svg())
            rows.append(C.row("~450-node graph: viz.render(...).svg(), chains folded", "minigrad", t_render, "s",
                              target="seconds"))
    return rows


if __name__ == "__main__":
    C.main(run)
