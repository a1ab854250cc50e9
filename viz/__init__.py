"""minigrad.viz: the Graphviz renderer (docs/architecture.md, The viewers). Draws replayed states, never the engine.

Views:

- ``render(source, kind="backward", step=N)``: grad nodes and AccumulationNodes
  at any step of a backward pass — status colours, in-degree badges, ready-queue
  positions, gradient-buffer previews, GeneralGrad marks and cut edges, legend;
- ``render(source, kind="forward")``: tensors and op calls with the kernel each chose;
- ``render(source, kind="kernel", call=N)``: KernelKey, every registry probe, the
  selected kernel, PrepareData transforms, InferMeta and the launch of one op call;
- ``flipbook(source)``: every step of a backward pass in one self-contained HTML page;
- ``stepper(source)``: the TUI's panes as one self-contained web page (``minigrad web``);
- ``chrome_trace(events)``: Chrome trace-event JSON for Perfetto.

Colour legend (``style.py`` has the table): white idle, pale yellow pending,
blue queued, orange running, green done, grey-blue released, light grey pruned;
purple bold border = GeneralGrad startup node, bold teal border = ending node,
red dashed edge = cut by ``no_grad_vars``.

Example:
    >>> import minigrad as mg
    >>> import minigrad.viz                               # doctest: +SKIP
    >>> with mg.trace() as tr:                            # doctest: +SKIP
    ...     x = mg.tensor([1.0, 2.0], requires_grad=True)
    ...     (x * x).sum().backward()
    >>> mg.viz.render(tr, step=10).save("step10.svg")     # doctest: +SKIP
    >>> mg.viz.flipbook(tr).save("backward.html")         # doctest: +SKIP

This package imports ``graphviz``; ``import minigrad`` never imports it.
"""

from __future__ import annotations

from .chrome import chrome_trace, save_chrome_trace
from .draw import to_digraph
from .flipbook import Flipbook, backward_steps, flipbook
from .graph import Graph, collapse_chains, collect_backward, collect_forward, collect_kernel
from .render import INSTALL_HINT, DotNotFoundError, Rendered, render, to_replay
from .stepper import Stepper, stepper

__all__ = [
    "render",
    "Rendered",
    "flipbook",
    "Flipbook",
    "backward_steps",
    "chrome_trace",
    "save_chrome_trace",
    "DotNotFoundError",
    "INSTALL_HINT",
    "to_replay",
    "to_digraph",
    "Graph",
    "collect_backward",
    "collect_forward",
    "collect_kernel",
    "collapse_chains",
    "stepper",
    "Stepper",
]
