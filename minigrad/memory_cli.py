"""``minigrad memory TRACE [--json [OUT]] [--top N] [--what-if MODULE]``: what backward keeps alive.

Prints the largest tensors saved for backward (with the node that saved them,
its module and source line), the saved bytes per module, and the peak of the
bytes alive with the event that reached it; ``--json`` writes
``mg.trace.memory(events).to_json()`` (``--json`` alone or ``--json -``: to standard output). The
accounting is ``minigrad/tracing/memory.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .progress import progress
from .tracing.memory import Memory, format_bytes

__all__ = ["add_parser", "cmd_memory", "report", "what_if_text"]


def add_parser(subparsers: Any, load: Any, error: Any) -> None:
    """Add ``memory`` to the main CLI's subparsers; ``load(path, steps)`` reads a trace (showing its progress in
    ``steps``, a ``minigrad.progress.Steps``) and ``error(message, code)``
    is the CLI's user-facing error (both from ``cli.py``, whichever way it was started)."""
    p = subparsers.add_parser("memory", help="what backward keeps alive: saved tensors by size, by module, the peak")
    p.add_argument("trace", help="a .jsonl trace")
    p.add_argument("--json", dest="json_path", metavar="OUT", nargs="?", const="-",
                   help="write the accounting as JSON to OUT (alone, or '-': to standard output)")
    p.add_argument("--top", type=int, default=10, help="how many saved tensors to list (10)")
    p.add_argument("--what-if", dest="what_if", metavar="MODULE", action="append",
                   help="what checkpointing MODULE (named as print(model) names it, e.g. blocks.1 or 1) would save "
                        "and cost (repeatable)")
    p.set_defaults(func=cmd_memory, memory_load=load, memory_error=error)


def _shape(shape: Any) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def report(mem: Memory, top: int = 10) -> str:
    """The text table ``minigrad memory`` prints: first what backward starts with and its peak, then the
    largest saved tensors and the saved bytes per module."""
    lines = _summary(mem)
    rows = [("tensor", "shape", "dtype", "bytes", "saved by", "module", "source")]
    for s in mem.top_saved(top):
        first = mem.nodes.get(s.nodes[0]) if s.nodes else None
        saver = first.name + (f" +{len(s.nodes) - 1}" if len(s.nodes) > 1 else "") if first else "?"
        kind = " (param)" if s.parameter else ""
        module = mem.module_name(first.module) if first and first.module else "-"
        rows.append((s.name + kind, _shape(s.shape), s.dtype, format_bytes(s.bytes), saver, module,
                     (first.source if first else None) or "-"))
    lines += ["", f"top {len(rows) - 1} saved tensors", *_table(rows)]
    mods = sorted(mem.by_module().items(), key=lambda kv: -kv[1]["bytes"])
    rows = [("module", "type", "saved", "activations", "tensors", "nodes", "first source")]
    rows += [(m, g["type"] or "-", format_bytes(g["bytes"]), format_bytes(g["activation_bytes"]), str(g["tensors"]),
              str(g["nodes"]), g["source"] or "-") for m, g in mods]
    lines += ["", "saved by module (named as print(model) names them; --what-if takes these names)", *_table(rows)]
    return "\n".join(lines)


def _summary(mem: Memory) -> list[str]:
    """The first lines: the bytes alive when backward begins (what checkpointing lowers), the peak during
    backward with the node running then, the whole run's peak, and every tensor ever saved."""
    lines = []
    begin, peak = mem.backward_begin(), mem.backward_peak()
    if begin is not None and peak is not None:
        lines.append(f"when backward begins (event {begin['index']}): {format_bytes(begin['saved'])} saved for "
                     f"backward ({begin['saved']} bytes); {format_bytes(begin['total'])} alive in all ({_parts(begin)})")
        node = f" while {peak['node_name']} runs" if peak["node_name"] else ""
        lines.append(f"peak during backward: {format_bytes(peak['bytes'])} ({peak['bytes']} bytes) at event "
                     f"{peak['index']}{node} ({peak['kind']}: {peak['what']}); {_parts(peak['alive'])}")
    else:
        lines.append("no backward pass in this recording")
    at = mem.peak_event()
    if at["index"] >= 0 and (peak is None or peak["index"] != at["index"]):
        node = f" while {at['node_name']} runs" if at["node_name"] else ""
        lines.append(f"peak alive over the whole recording: {format_bytes(mem.peak_bytes)} ({mem.peak_bytes} bytes) "
                     f"at event {at['index']}{node} ({at['kind']}: {at['what']}); "
                     f"{_parts(mem.at(at['index']).to_dict())}")
    lines.append(f"saved for backward over the whole recording: {len(mem.saved)} distinct tensors, "
                 f"{format_bytes(mem.saved_bytes_total)} ({mem.saved_bytes_total} bytes; a checkpoint's recomputed "
                 "tensors count too)")
    return lines


def _parts(point: dict[str, int]) -> str:
    return ", ".join(f"{c} {format_bytes(v)}" for c, v in point.items() if c not in ("total", "index") and v)


def what_if_text(w: dict[str, Any]) -> str:
    """One paragraph on ``Memory.what_if_checkpoint``'s answer."""
    share = w["recompute_kernel_ns"] / w["forward_kernel_ns"] if w["forward_kernel_ns"] else 0.0
    return (f"if {w['module']} were checkpointed: saved when backward begins {format_bytes(w['saved_bytes'])} -> "
            f"{format_bytes(w['saved_bytes_if_checkpointed'])} ({format_bytes(w['saved_bytes_freed'])} freed; its "
            f"inputs, {format_bytes(w['inputs_bytes'])}, kept instead); backward runs its {w['recompute_ops']} ops "
            f"again ({w['recompute_ops']} of {w['forward_ops']} forward ops, {share:.0%} of the forward's kernel time)")


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


EXIT_BAD_FILE = 2  # as cli.py: the trace file cannot be read, or holds nothing


def cmd_memory(args: argparse.Namespace) -> int:
    """Print the memory report of a trace; with ``--json`` also write the accounting."""
    error = args.memory_error
    with progress() as steps:
        rec = args.memory_load(args.trace, steps)
        events = getattr(rec, "events", rec)
        if not events:
            raise error(f"{args.trace}: the trace holds no events", EXIT_BAD_FILE)
        steps.add(f"counting the bytes alive after each of {len(events)} events")
        mem = Memory(events)
    if args.json_path == "-":
        json.dump(mem.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(report(mem, args.top))
    for module in args.what_if or ():
        try:
            print("\n" + what_if_text(mem.what_if_checkpoint(module)))
        except ValueError as exc:
            raise error(str(exc), 1) from None
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as fh:
            json.dump(mem.to_json(), fh)
        print(f"wrote {args.json_path}", file=sys.stderr)
    return 0
