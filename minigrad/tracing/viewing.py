"""What every viewer reads off a trace the same way: the focused node, node runs, the log's nesting.

The TUI (``tui/``) and the web stepper (``viz/stepper.py``) both call these,
so the same event focuses the same node and indents the same lines in both.

A node's run is the span from its ``node.begin`` to its ``node.run``: its
hooks, its backward formula's op calls and an AccumulationNode's
``grad.accumulate`` happen inside it. Traces recorded before ``node.begin``
existed have only ``node.run``; there the run is that one event.

Example:
    >>> from minigrad.tracing import events as E
    >>> evs = [E.QueuePop(node=2, queue=[]), E.NodeBegin(node=2, grads_in=[[1.0]]),
    ...        E.ApiCall(op="mul", inputs=[1, 2], attrs={}), E.NodeRun(node=2, grads_in=[[1.0]], grads_out=[[2.0]])]
    >>> inside_node(evs)
    [False, False, True, False]
    >>> run_starts(evs, 0, 3)
    [1]
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from .versions import code_at, short_source

__all__ = ["focus_node", "inside_node", "run_starts", "grad_history", "pass_call", "pass_ending", "named_outputs",
           "run_ending", "run_ending_text"]


def focus_node(state: Any, bw: Any, selected: int | None = None) -> int | None:
    """The node the buffers and detail panes describe.

    The one the user selected; else the node running (between its
    ``node.begin`` and the next pop); else the node the event names; else the
    front of the ready queue; else, before anything ran, the first start node.
    """
    if selected is not None:
        return selected
    if bw is not None and bw.current is not None and (not bw.done or getattr(bw, "error", None) is not None):
        return bw.current  # (after an error: the node that failed)
    ev = state.event
    node = getattr(ev, "node", None) if ev is not None else None
    if isinstance(node, int) and not isinstance(node, bool):
        return node
    if bw is not None and bw.queue:
        return bw.queue[0]
    if bw is not None and bw.start and not bw.executed:
        return bw.start[0]
    return None


def inside_node(events: Sequence[Any], start: int = 0, stop: int | None = None) -> list[bool]:
    """For each event of ``events[start:stop]``: whether it happened inside a node's run.

    True strictly between a ``node.begin`` and the ``node.run`` of the same
    node (the viewers' logs indent those lines under their node). An ``error`` ends the node's run too.
    """
    stop = len(events) if stop is None else stop
    out: list[bool] = []
    running: Any = None
    for i in range(start, stop):
        kind = events[i].kind
        if kind == "node.begin":
            out.append(False)
            running = events[i].node
        elif kind == "node.run" and events[i].node == running or kind in ("backward.begin", "backward.end", "error"):
            out.append(False)
            running = None
        else:
            out.append(running is not None)
    return out


def run_starts(events: Sequence[Any], begin: int, end: int) -> list[int]:
    """Event indices in ``begin..end`` where a node starts running (one per node run, in order).

    Its ``node.begin``; for a run recorded without one, its ``node.run``.
    """
    out: list[int] = []
    open_begin: Any = None
    for i in range(begin, end + 1):
        kind = events[i].kind
        if kind == "node.begin":
            out.append(i)
            open_begin = events[i].node
        elif kind == "node.run":
            if open_begin != events[i].node:
                out.append(i)
            open_begin = None
    return out


def grad_history(passes: Sequence[Any], tensor: Any, upto: int | None = None) -> list[tuple[int, Any, Any]]:
    """A leaf's ``.grad`` over the backward passes: ``(pass number, value, added)`` for each pass that wrote it.

    ``added`` is True when that pass added to the ``.grad`` already there, False
    when ``.grad`` was ``None`` (the first pass, or after ``zero_grad()``) and
    was assigned, ``None`` when the trace does not say. ``upto``: passes up to
    this number only.
    """
    out = []
    for p in passes:
        if upto is not None and p.number > upto:
            break
        if tensor in p.accumulated:
            out.append((p.number, p.accumulated[tensor], p.grad_added.get(tensor)))
    return out


_UNNAMED = re.compile(r"t\d+$")


def pass_call(state: Any, bw: Any, outputs: dict[int, str] | None = None) -> str:
    """What the script called to run pass ``bw``, as its line reads: ``h.sum().backward()``.

    The line of the call is known when an error ended the pass (its ``source``), or when the start
    node was made on the line that called backward (``h.sum().backward()``); its text is quoted when
    the file can be read here. Else the output's name (``loss.backward()``, the student's name for
    it), else ``backward()`` / ``grad()`` alone: never a name the script did not use. ``outputs``:
    ``named_outputs(state)``, for a caller naming many passes.
    """
    grad = getattr(bw, "mode", "backward") == "grad"
    verb = "grad(" if grad else "backward("
    error = getattr(bw, "error", None)
    sources = [error.get("source")] if error else []
    nodes = getattr(state, "nodes", {})
    starts = [nodes.get(n) for n in getattr(bw, "start", ())]
    for node in starts:
        if node is not None and node.copy_of is not None:
            node = nodes.get(node.copy_of, node)
        if node is not None:
            sources.append(node.source)
    for source in sources:
        code = code_at(source)
        if code and verb in code:
            return code
    if not grad:
        outputs = named_outputs(state) if outputs is None else outputs
        name = next((outputs[n.id] for n in starts if n is not None and n.id in outputs), None)
        if name is not None:
            return f"{name}.backward()"
    return "grad()" if grad else "backward()"


def named_outputs(state: Any) -> dict[int, str]:
    """grad node id -> the name the student gave the tensor it made (tensors named ``t<id>`` left out)."""
    out: dict[int, str] = {}
    for t in getattr(state, "tensors", {}).values():
        if t.grad_node is not None and not _UNNAMED.match(t.name):
            out[t.grad_node] = t.name
    return out


def pass_ending(bw: Any) -> str | None:
    """``ended by RuntimeError at prog.py:9`` for a pass an error cut short (None otherwise)."""
    error = getattr(bw, "error", None)
    if not error:
        return None
    where = short_source(error.get("source"))
    return f"ended by {error.get('error')}" + (f" at {where}" if where else "")


def run_ending(replay: Any) -> Any:
    """The error that ended the recording when it ended no backward pass (a forward op, an optimizer
    step), as ``replay.final.errors`` holds it; None when the run ended otherwise.

    A pass an error ended says so itself (``pass_ending``); this is the error no pass shows: the
    recording's last event, outside every pass.
    """
    errors = replay.final.errors
    if not errors or errors[-1]["at"] != len(replay) - 1:
        return None
    if any(end == errors[-1]["at"] for _, end, _ in replay.backward_passes()):
        return None
    return errors[-1]


def run_ending_text(error: Any, *, message: bool = True) -> str:
    """``The run ended with ShapeError in matmul() at prog.py:22: <message>`` for ``run_ending``'s error."""
    where = short_source(error.get("source"))
    text = f"The run ended with {error.get('error')}"
    if error.get("op"):
        text += f" in {error['op']}()"
    if where:
        text += f" at {where}"
    return text + (f": {error.get('message')}" if message and error.get("message") else "")
