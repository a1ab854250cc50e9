"""The web page's Versions pane: the data ``versions_pane.js`` draws, from ``replay.versions``
(``minigrad/tracing/versions.py``, the reading the TUI's Versions tab draws too).

The page holds every bump of a version counter (event, base, op, view, geometry, the user's line
and its text), every rewritten history (with the CopySlices node's edges and the edges it replaced)
and every stale saved tensor with the events it is stale between; the script shows those up to
the event on screen. Each list keeps at most ``MAX_ROWS`` entries (a note says what was left out).
"""

from __future__ import annotations

from typing import Any

from minigrad.tracing.describe import fmt_shape
from minigrad.tracing.replay import Replay
from minigrad.tracing.versions import INTRO, code_at, geometry_text, short_source

__all__ = ["versions_data", "MAX_ROWS"]

#: The most bumps, rewrites and stale entries the page keeps (each).
MAX_ROWS = 2000


def versions_data(rp: Replay, notes: list[str]) -> dict[str, Any]:
    """What the Versions pane of the page needs (see the module docstring)."""
    history = rp.versions
    final = rp.final
    bumps = [{
        "at": b.index, "base": b.tensor, "name": b.name, "version": b.version, "op": b.op,
        "shape": fmt_shape(final.tensors[b.tensor].shape) if b.tensor in final.tensors else "",
        "via": (f"{b.via_name} = {b.via_made}" if b.via_made else b.via_name) if b.via is not None else None,
        "view": geometry_text(b.view) or None, "aliases": list(b.aliases),
        "source": short_source(b.source), "code": b.code,
    } for b in history.bumps[:MAX_ROWS]]
    rewrites = []
    for r in history.rewrites[:MAX_ROWS]:
        node = final.nodes.get(r.to_node)
        edges = [[e.slot, final.node_name(e.next)] for e in (node.edges if node is not None else ()) if e.next is not None]
        rewrites.append({
            "at": r.index, "name": r.name, "from": r.from_name, "to": r.to_name, "to_id": r.to_node,
            "from_id": r.from_node, "view": geometry_text(r.view), "edges": edges,
            "consumers": [[final.node_name(c), made] for c, made in r.consumers],
            "regenerated": [[name, final.node_name(n), made] for name, n, made in r.regenerated],
        })
    stale = []
    for s in history.stale[:MAX_ROWS]:
        node = final.nodes.get(s.node)
        source = node.source if node is not None else None
        stale.append({"node": s.node_name, "node_id": s.node, "tensor": s.tensor_name, "saved": s.saved_version,
                      "now": s.version, "since": s.since, "until": s.until, "released": s.released_at, "refused": s.refused_at,
                      "source": short_source(source), "code": code_at(source)})
    for what, n in (("version bumps", len(history.bumps)), ("rewritten histories", len(history.rewrites)),
                    ("stale saved tensors", len(history.stale))):
        if n > MAX_ROWS:
            notes.append(f"The Versions tab lists the first {MAX_ROWS} of {n} {what}.")
    return {"intro": INTRO, "bumps": bumps, "rewrites": rewrites, "stale": stale}
