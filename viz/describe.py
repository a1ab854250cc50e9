"""Short human-readable text for previews and events (captions, the log table).

Example:
    >>> fmt_preview([[1.0, 2.0], [3.0, 4.0]])
    '[[1, 2], [3, 4]]'
    >>> fmt_preview({"shape": [128, 64], "dtype": "float32"})
    '<128x64 float32>'
"""

from __future__ import annotations

from typing import Any

from minigrad.tracing.numbers import fmt_number

__all__ = ["fmt_preview", "fmt_shape", "describe_event", "event_fields"]


# NaN/Inf-safe: non-finite gradients are valid trace data (minigrad.tracing.numbers).
_num = fmt_number


def fmt_shape(shape: Any) -> str:
    """``(2, 3)`` -> ``'2x3'``; a scalar shape ``()`` -> ``'scalar'``."""
    shape = tuple(shape or ())
    return "x".join(str(s) for s in shape) if shape else "scalar"


def fmt_preview(value: Any, max_chars: int = 40) -> str:
    """A compact one-line view of a value preview (nested lists or a shape summary)."""
    if value is None:
        return "None"
    if isinstance(value, dict) and "shape" in value:
        return f"<{fmt_shape(value['shape'])} {value.get('dtype', '')}>".replace(" >", ">")

    def walk(v: Any) -> str:
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(walk(x) for x in v) + "]"
        return _num(v)

    text = walk(value)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return text


def event_fields(ev: Any) -> dict[str, Any]:
    """The kind-specific fields of an event as a dict (no header)."""
    d = ev.to_dict()
    for k in ("seq", "ts_ns", "kind"):
        d.pop(k, None)
    return d


def describe_event(ev: Any, state: Any | None = None) -> str:
    """One line saying what an event did, with node names when a state is given.

    Args:
        ev: the event.
        state: a replayed ``State`` used to turn node and tensor ids into names.
    """
    if ev is None:
        return "start"
    node = (lambda i: state.node_name(i)) if state is not None else (lambda i: f"node#{i}")
    tensor = (lambda i: state.tensor_name(i)) if state is not None else (lambda i: f"t{i}")
    k = ev.kind
    g = lambda name, default=None: getattr(ev, name, default)  # noqa: E731
    if k == "queue.push":
        where = "front" if g("front") else "back"
        return f"push {node(g('node'))} to the {where}; queue = [{', '.join(node(n) for n in g('queue'))}]"
    if k == "queue.pop":
        return f"pop {node(g('node'))}; queue = [{', '.join(node(n) for n in g('queue'))}]"
    if k == "queue.skip":
        return f"skip {node(g('node'))}: in-degree still {g('in_degree')}"
    if k == "node.run":
        return f"run {node(g('node'))}"
    if k == "buffer.add":
        src = f" from {node(g('source'))}" if g("source") is not None else ""
        return f"buffer of {node(g('node'))}[{g('slot')},{g('rank')}] += grad{src} -> {fmt_preview(g('value'), 30)}"
    if k == "in_degree.update":
        return f"in-degree of {node(g('node'))} -> {g('in_degree')}"
    if k == "backward.begin":
        return f"{g('mode')}() begins at {', '.join(node(n) for n in g('start'))}"
    if k == "backward.in_degree":
        return f"in-degree map computed for {len(g('in_degree'))} nodes"
    if k == "backward.end":
        return f"backward ends: {g('nodes_run')} nodes ran"
    if k == "wrappers.clear":
        return f"{node(g('node'))} releases its TensorWrappers"
    if k == "grad.accumulate":
        return f"{tensor(g('tensor'))}.grad = {fmt_preview(g('value'), 30)}"
    if k == "hook.run":
        return f"{g('hook_kind')} hook on {g('target')}"
    if k == "node.create":
        extra = f" (copy of {node(g('copy_of'))})" if g("copy_of") is not None else ""
        return f"create {g('name')}{extra}"
    if k == "tensor.create":
        return f"tensor {g('name')} {fmt_shape(g('shape'))} {g('dtype')}"
    if k == "api.call":
        return f"{g('op')}({', '.join(str(i) for i in g('inputs'))})"
    if k == "kernel.lookup":
        return f"probe {g('step')} {g('backend')}/{g('layout')}/{g('dtype')}: {'hit' if g('found') else 'miss'}"
    if k == "kernel.select":
        fb = " (CPU fallback)" if g("fallback_cpu") else ""
        return f"select {g('kernel')}{fb}"
    if k == "kernel.launch":
        return f"launch {g('kernel')} ({g('wall_ns', 0) / 1000:.1f} µs)"
    if k == "general_grad.update":
        return f"GeneralGrad: {len(g('startup'))} startup, {len(g('ending'))} ending, {len(g('needed'))} needed"
    if k == "general_grad.prune":
        return f"GeneralGrad cuts {len(g('edges'))} no_grad_vars edge(s)"
    if k == "general_grad.targets":
        ins = ", ".join(node(n) for n in g("inputs"))
        ng = ", ".join(node(n) for n in g("no_grad")) or "none"
        return f"GeneralGrad targets: inputs {ins}; no_grad {ng}"
    if k == "general_grad.result":
        return f"grad() result for {tensor(g('input'))} = {fmt_preview(g('value'), 30)}"
    if k == "general_grad.copy":
        return f"GeneralGrad copies {len(g('mapping'))} nodes"
    # Generic: kind and a few fields.
    parts = []
    for key, value in list(event_fields(ev).items())[:4]:
        text = fmt_preview(value, 24) if isinstance(value, (list, dict)) else str(value)
        parts.append(f"{key}={text}")
    return f"{k} " + " ".join(parts)
