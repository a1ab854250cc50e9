"""Short text for events and value previews (what the panes print).

Everything here reads event fields and replayed states only; no engine logic.

Example:
    >>> fmt_value([[1.0, 2.5], [3.0, 4.0]])
    '[[1, 2.5], [3, 4]]'
    >>> fmt_value({"shape": [128, 64], "dtype": "float32"})
    '<float32 [128, 64]>'
"""

from __future__ import annotations

from typing import Any, Callable

from minigrad.tracing.numbers import fmt_number

__all__ = ["fmt_value", "describe_event", "STATUS_GLYPH", "STATUS_STYLE"]

#: One glyph per node status (see ``minigrad.tracing.replay.node_status``).
STATUS_GLYPH: dict[str, str] = {
    "running": "▶",
    "queued": "◆",
    "pending": "○",
    "done": "●",
    "released": "✓",
    "idle": "·",
}

#: Rich styles per node status; the legend in the help screen uses the same.
STATUS_STYLE: dict[str, str] = {
    "running": "bold black on magenta",
    "queued": "bold yellow",
    "pending": "white",
    "done": "green",
    "released": "dim green",
    "idle": "dim",
}


# NaN/Inf-safe: non-finite gradients are valid trace data (minigrad.tracing.numbers).
_num = fmt_number


def fmt_value(value: Any, max_len: int = 60) -> str:
    """A compact one-line rendering of a value preview (nested lists or a summary dict)."""
    if value is None:
        return "None"
    if isinstance(value, dict) and "shape" in value:
        return f"<{value.get('dtype', '?')} {list(value['shape'])}>"
    if isinstance(value, list):
        text = "[" + ", ".join(fmt_value(v, max_len) for v in value) + "]"
    else:
        text = _num(value)
    if len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text


Namer = Callable[[Any], str]


def describe_event(ev: Any, node: Namer, tensor: Namer) -> str:
    """One line saying what an event did, with node and tensor names resolved."""
    k = ev.kind
    g = lambda name, default=None: getattr(ev, name, default)  # noqa: E731
    if k == "tensor.create":
        return f"{ev.name} {list(ev.shape)} {ev.dtype}" + (f" ← {node(ev.grad_node)}" if ev.grad_node is not None else "")
    if k == "tensor.update":
        return f"{tensor(ev.tensor)} v{ev.version} by {ev.op}"
    if k == "api.call":
        return f"{ev.op}({', '.join(tensor(t) if isinstance(t, int) else str(t) for t in ev.inputs)})"
    if k == "amp.cast":
        return f"{ev.op}: {tensor(ev.tensor)} {ev.from_dtype}→{ev.to_dtype}"
    if k == "kernel.key":
        return f"{ev.op}: key {{{ev.backend}, {ev.layout}, {ev.dtype}}}"
    if k == "kernel.lookup":
        return f"{ev.op}: {ev.step} {ev.backend}/{ev.layout}/{ev.dtype} {'found' if ev.found else 'miss'}"
    if k == "kernel.select":
        return f"{ev.op}: {ev.kernel}" + (" (CPU fallback)" if ev.fallback_cpu else "") + (" (cached)" if g("cached") else "")
    if k == "data.transform":
        return f"{ev.op}: {ev.arg} {ev.what} {ev.from_}→{ev.to}"
    if k == "infer_meta":
        return f"{ev.op}: {ev.shapes} {ev.dtypes}"
    if k == "kernel.launch":
        return f"{ev.op}: {ev.kernel} {ev.wall_ns / 1000:.1f} µs"
    if k == "node.create":
        extra = f" copy of {node(ev.copy_of)}" if ev.copy_of is not None else ""
        return f"{ev.name}{extra}"
    if k == "backward.begin":
        return f"{ev.mode} from {', '.join(node(n) for n in ev.start)}" + (" retain_graph" if ev.retain_graph else "")
    if k == "backward.in_degree":
        return f"{len(ev.in_degree)} nodes counted by BFS from the start"
    if k == "queue.push":
        return f"{node(ev.node)} to {'FRONT' if ev.front else 'back'} (len {len(ev.queue)})"
    if k == "queue.pop":
        return f"{node(ev.node)} (left {len(ev.queue)})"
    if k == "queue.skip":
        return f"{node(ev.node)} not ready (in-degree {ev.in_degree})"
    if k == "node.run":
        return f"{node(ev.node)}"
    if k == "buffer.add":
        src = node(ev.source) if ev.source is not None else "seed"
        return f"{node(ev.node)}[{ev.slot},{ev.rank}] += from {src} = {fmt_value(ev.value, 30)}"
    if k == "in_degree.update":
        return f"{node(ev.node)} → {ev.in_degree}"
    if k == "hook.run":
        return f"{ev.hook_kind} hook on {tensor(ev.target)}"
    if k == "grad.accumulate":
        return f"{tensor(ev.tensor)}.grad = {fmt_value(ev.value, 30)}"
    if k == "wrappers.clear":
        return f"{node(ev.node)} released"
    if k == "general_grad.copy":
        return f"{len(ev.mapping)} nodes copied"
    if k == "general_grad.targets":
        return f"inputs {', '.join(map(node, ev.inputs))}; no_grad {', '.join(map(node, ev.no_grad)) or '-'}"
    if k == "general_grad.update":
        return f"startup {len(ev.startup)}, ending {len(ev.ending)}, needed {len(ev.needed)}"
    if k == "general_grad.prune":
        return "cut " + ", ".join(f"{node(e.get('node'))}→{node(e.get('next'))}" for e in ev.edges)
    if k == "general_grad.result":
        return f"{tensor(ev.input)} = {fmt_value(ev.value, 30)}"
    if k == "backward.end":
        return f"{ev.nodes_run} nodes run in {ev.wall_ns / 1e6:.2f} ms"
    return ""
