"""GradTensorHolder: a node's input gradient buffers (Paddle's paddle/fluid/eager/backward.cc ``node_input_buffers_dict``).

``buffers[slot][rank]`` holds the gradient for the node's output (slot, rank)
summed over every path that reaches it. The first contribution is stored,
later ones are added (with a recorded ``add`` when ``create_graph``).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from ..tracing import bus
from .formula import array_ops
from .grad_mode import GRAD_MODE

__all__ = ["GradTensorHolder"]


class GradTensorHolder:
    """Per-node gradient buffers, shaped like the node's ``in_meta``."""

    __slots__ = ("buffers",)

    def __init__(self, in_meta: list[list[Any]], slot: int = 0, rank: int = 0, grad: Any = None) -> None:
        """Empty buffers, or those of a node whose first gradient, ``grad``, arrives at (slot, rank)
        (what ``add`` would do next, without the call)."""
        if len(in_meta) == 1 and len(in_meta[0]) == 1:  # one output: most nodes
            self.buffers: list[list[Any]] = [[grad]]
        else:
            self.buffers = [[None] * len(ranks) for ranks in in_meta] or [[None]]
            self.buffers[slot][rank] = grad

    def add(self, slot: int, rank: int, grad: Any) -> Any:
        """Sum ``grad`` into position (slot, rank); returns the buffer's new value.

        With no recorder and no ``create_graph`` (grad mode is off in the
        engine then) nothing observes the sum as an op, so two gradients of
        one dtype and device are added as arrays - by the ``add`` kernel the
        op would select, in array mode (NOTE [ One formula, two modes ] in
        ``formula.py``) - instead of through the ``add`` op's four layers.
        """
        row = self.buffers[slot]
        cur = row[rank]
        if cur is None:
            row[rank] = grad
        elif (bus.recorder is None and not GRAD_MODE.enabled and cur._dtype is grad._dtype
              and cur._device == grad._device):
            total = array_ops(cur._device, cur._layout).add(cur._data, grad._data)
            row[rank] = Tensor._make(total, cur._dtype, cur._device, cur._layout)
        else:
            row[rank] = cur + grad
        return row[rank]
