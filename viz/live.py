"""A tensor's graph as events, read from the public autograd attributes (no recording needed).

``render(tensor)`` outside any ``mg.trace()`` has no events to replay, so this
module reads what a tensor exposes — ``grad_fn``, and per node ``id``,
``display_name``, ``op_name``, ``topo_nr``, ``seq_nr``, ``is_accumulation``,
``tensor_id`` and ``next_functions`` — and writes the ``node.create`` events a
recording would have held. The usual replay then draws them, every node idle
(nothing has run). It only reads the graph; it never runs or re-derives
anything the engine does.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> evs = events_from_tensor((x * x).sum())
    >>> [e.name.split("#")[0] for e in evs if e.kind == "node.create"]
    ['SumGradNode', 'MulGradNode', 'AccumulationNode']
"""

from __future__ import annotations

from typing import Any

from minigrad.tracing.events import Event, NodeCreate, TensorCreate

__all__ = ["events_from_tensor"]


def events_from_tensor(tensor: Any) -> list[Event]:
    """``tensor.create`` for ``tensor`` and ``node.create`` for every node its ``grad_fn`` reaches.

    Nodes come in depth-first order from ``grad_fn``; ``seq`` numbers are
    assigned in that order so the list loads and replays like a recording.
    """
    root = tensor.grad_fn
    evs: list[Event] = [
        TensorCreate(
            tensor=tensor.id, name=tensor.name, shape=list(tensor.shape), dtype=str(tensor.dtype),
            device=str(tensor.device), requires_grad=bool(tensor.requires_grad), is_leaf=bool(tensor.is_leaf),
            grad_node=root.id if root is not None else None, out_slot=0, out_rank=0, value=None,
        )
    ]
    seen: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        edges: list[dict[str, Any]] = []
        ranks: dict[int, int] = {}
        for nxt, slot in node.next_functions:
            rank = ranks.get(slot, 0)
            ranks[slot] = rank + 1
            edges.append({"slot": slot, "rank": rank, "next": nxt.id if nxt is not None else None,
                          "next_slot": 0, "next_rank": 0})
            if nxt is not None and nxt.id not in seen:
                stack.append(nxt)
        evs.append(
            NodeCreate(
                node=node.id, name=node.display_name, op=getattr(node, "op_name", "") or node.name(),
                topo_nr=int(getattr(node, "topo_nr", 0)), seq_nr=int(getattr(node, "seq_nr", 0)),
                is_accumulation=bool(getattr(node, "is_accumulation", False)),
                tensor=getattr(node, "tensor_id", None), copy_of=None, edges=edges, saved=[], attrs={},
            )
        )
    for i, ev in enumerate(evs):
        ev.seq = i
    return evs
