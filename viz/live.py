"""A tensor's graph as the engine announces it, for ``render(tensor)`` without a recording.

``render(tensor)`` outside any ``mg.trace()`` has no events to replay. Rather
than rebuild ``node.create`` events itself (and get slots, ranks and names
wrong), this module asks the engine to announce what it already knows: with
a private recorder active it calls the engine's own ``announce_node`` for
every grad node the tensor's ``grad_fn`` reaches, next nodes before the nodes that lead to them,
and the tensor's own ``tensor.create``. Each leaf is announced by its
AccumulationNode (``announce_leaf``: name, shape, dtype, device) just before
the node, as a recording holds them. The usual replay then draws
the events, so a recorded trace and a live tensor go through one path.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> evs = events_from_tensor((x * x).sum())
    >>> [e.name.split("#")[0] for e in evs if e.kind == "node.create"]
    ['AccumulateGrad', 'MulBackward0', 'SumBackward0']
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.grad_node import announce_node
from minigrad.tracing.events import Event
from minigrad.tracing.recorder import Recorder

__all__ = ["events_from_tensor"]


def _graph_nodes(root: Any) -> list[Any]:
    """Every node reachable from ``root`` along ``next_functions``, next nodes first (an iterative walk)."""
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or node.id in seen:
            continue
        seen[node.id] = node
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None and nxt.id not in seen)
    # A node leads only to nodes of smaller topo_nr: announce those first, as a recording does.
    return sorted(seen.values(), key=lambda n: (n.topo_nr, n.seq_nr))


def events_from_tensor(tensor: Any) -> list[Event]:
    """The events a recording of ``tensor``'s graph would hold: leaves, ``node.create`` per node, the tensor.

    Recorders nest, so an active recording (if any) does not see these events. Every event is the
    engine's own; where each node was made is not known (the graph was built without a recording),
    so ``node.create`` carries no ``source`` or ``module``, and nothing changes an event once emitted.
    """
    rec = Recorder(values=False)
    rec.provenance = False
    with rec:
        root = tensor.grad_fn
        if root is not None:
            for node in _graph_nodes(root):
                if node.is_accumulation:
                    node.announce_leaf()
                announce_node(node)
        tensor._announce()
    return list(rec.events)
