"""Chrome trace-event export: open a minigrad trace in Perfetto (ui.perfetto.dev) or chrome://tracing.

Slices (``"ph": "X"``, times in microseconds):

- thread 1 "forward ops": one slice per op call, from its ``api.call`` to its
  last event (key, probes, select, transforms, InferMeta, launch);
- thread 2 "kernels": one slice per ``kernel.launch``, ending at the launch
  event and lasting its ``wall_ns``;
- thread 3 "backward": one slice per backward pass, and nested in it one per
  grad node run, from the ``queue.pop`` that took the node to the last event
  before the next pop (its run, buffer adds, in-degree updates, release).

Instant events (``"ph": "i"``) mark queue pushes and in-degree updates.
The format is the JSON object form: ``{"traceEvents": [...], "displayTimeUnit": "ns"}``.

Example:
    >>> doc = chrome_trace(tr.events)            # doctest: +SKIP
    >>> json.dump(doc, open("trace.json", "w"))  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

from minigrad.tracing.describe import event_fields

__all__ = ["chrome_trace", "save_chrome_trace"]

PID = 1
TID_OPS, TID_KERNELS, TID_BACKWARD = 1, 2, 3


def _us(ns: int) -> float:
    return round(ns / 1000.0, 3)


def _jsonable(v: Any) -> Any:
    try:
        json.dumps(v)
        return v
    except (TypeError, ValueError):
        return str(v)


def chrome_trace(events: Sequence[Any]) -> dict[str, Any]:
    """Build the Chrome trace-event document for a list of events (see the module docstring)."""
    events = list(getattr(events, "events", events))
    out: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": PID, "tid": 0, "args": {"name": "minigrad"}},
        {"name": "thread_name", "ph": "M", "pid": PID, "tid": TID_OPS, "args": {"name": "forward ops"}},
        {"name": "thread_name", "ph": "M", "pid": PID, "tid": TID_KERNELS, "args": {"name": "kernels"}},
        {"name": "thread_name", "ph": "M", "pid": PID, "tid": TID_BACKWARD, "args": {"name": "backward"}},
    ]
    names: dict[int, str] = {}
    for ev in events:
        if ev.kind == "node.create":
            names[ev.node] = ev.name

    def slice_(name: str, cat: str, tid: int, start_ns: int, end_ns: int, args: dict[str, Any]) -> None:
        out.append({"name": name, "cat": cat, "ph": "X", "pid": PID, "tid": tid, "ts": _us(start_ns),
                    "dur": max(_us(end_ns - start_ns), 0.001), "args": {k: _jsonable(v) for k, v in args.items()}})

    op_start: tuple[str, int, int] | None = None  # (op, ts, index)
    op_last = 0
    bw_begin: tuple[int, str] | None = None
    run_node: tuple[int, int] | None = None  # (node, ts of pop)
    last_ts = 0

    def close_op() -> None:
        nonlocal op_start
        if op_start is not None:
            slice_(op_start[0], "op", TID_OPS, op_start[1], max(op_last, op_start[1]), {"event": op_start[2]})
            op_start = None

    def close_node(end_ns: int) -> None:
        nonlocal run_node
        if run_node is not None:
            nid, ts = run_node
            slice_(names.get(nid, f"node#{nid}"), "node", TID_BACKWARD, ts, max(end_ns, ts), {"node": nid})
            run_node = None

    for idx, ev in enumerate(events):
        k, ts = ev.kind, ev.ts_ns
        if k == "api.call":
            close_op()
            op_start = (ev.op, ts, idx)
        elif k in ("kernel.key", "kernel.lookup", "kernel.select", "data.transform", "infer_meta", "amp.cast"):
            op_last = ts
        elif k == "kernel.launch":
            op_last = ts
            slice_(ev.kernel, "kernel", TID_KERNELS, ts - int(ev.wall_ns), ts,
                   {"op": ev.op, "backend": ev.backend, "wall_ns": ev.wall_ns})
        elif k == "backward.begin":
            close_op()
            bw_begin = (ts, ev.mode)
        elif k == "queue.pop":
            close_node(last_ts)
            run_node = (ev.node, ts)
        elif k == "backward.end":
            close_node(ts)
            if bw_begin is not None:
                slice_(f"{bw_begin[1]}()", "backward", TID_BACKWARD, bw_begin[0], ts, {"nodes_run": ev.nodes_run})
                bw_begin = None
        elif k in ("queue.push", "in_degree.update"):
            node = getattr(ev, "node", None)
            out.append({"name": f"{k} {names.get(node, node)}", "cat": k, "ph": "i", "s": "t", "pid": PID,
                        "tid": TID_BACKWARD, "ts": _us(ts), "args": {key: _jsonable(v) for key, v in event_fields(ev).items()}})
        last_ts = ts
    close_op()
    close_node(last_ts)
    if bw_begin is not None:
        slice_(f"{bw_begin[1]}() (unfinished)", "backward", TID_BACKWARD, bw_begin[0], last_ts, {})
    return {"traceEvents": out, "displayTimeUnit": "ns", "otherData": {"source": "minigrad.trace"}}


def save_chrome_trace(events: Sequence[Any], path: str | os.PathLike[str]) -> Path:
    """Write ``chrome_trace(events)`` as JSON to ``path``."""
    path = Path(path)
    path.write_text(json.dumps(chrome_trace(events), indent=None, separators=(",", ":")), encoding="utf-8")
    return path
