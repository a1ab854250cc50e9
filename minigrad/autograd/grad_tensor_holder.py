"""GradTensorHolder: a node's input gradient buffers (seed 001 ``node_input_buffers_dict``).

``buffers[slot][rank]`` holds the gradient for the node's output (slot, rank)
summed over every path that reaches it. The first contribution is stored,
later ones are added (with a recorded ``add`` when ``create_graph``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["GradTensorHolder"]


class GradTensorHolder:
    """Per-node gradient buffers, shaped like the node's ``in_meta``."""

    __slots__ = ("buffers",)

    def __init__(self, in_meta: list[list[Any]]) -> None:
        self.buffers: list[list[Any]] = [[None] * len(ranks) for ranks in in_meta] or [[None]]

    def add(self, slot: int, rank: int, grad: Any) -> Any:
        """Sum ``grad`` into position (slot, rank); returns the buffer's new value."""
        row = self.buffers[slot]
        cur = row[rank]
        row[rank] = grad if cur is None else cur + grad
        return row[rank]
