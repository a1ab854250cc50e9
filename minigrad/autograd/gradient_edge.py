"""A place in the backward graph where a gradient arrives: PyTorch's ``torch.autograd.graph.GradientEdge``.

``get_gradient_edge(h)`` names the position of ``h``'s gradient - its grad node and which of the node's
outputs ``h`` is (``h.output_nr``), or a leaf's ``AccumulateGrad`` - without holding ``h`` itself. ``grad()``
takes an edge wherever it takes a tensor: as an input, the gradient that arrives there is returned (the same
as for the tensor: ``grad(loss, h) == grad(loss, get_gradient_edge(h))``); as an output, the pass starts
there with the gradient ``grad_outputs`` gives. An edge keeps naming the same position after the tensor
is changed in place (which gives the tensor a new grad node) or is gone.

In GeneralGrad's terms an edge *is* a target: a (node, slot, rank) position (NOTE [ Where minigrad's
GeneralGrad differs from Paddle's ] in ``general_grad.py``); ``output_nr`` counts the node's outputs across
its slots, as PyTorch numbers them.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> h = x * 3
    >>> loss = (h * h).sum()
    >>> edge = mg.autograd.graph.get_gradient_edge(h)
    >>> edge.node.name(), edge.output_nr
    ('MulBackward0', 0)
    >>> mg.autograd.grad(loss, edge)[0].tolist()      # d loss / d h = 2 h
    [6.0, 12.0]
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from ..tensor import Tensor
from .accumulation import accumulation_node_for
from .grad_node import GradNode

__all__ = ["GradientEdge", "get_gradient_edge", "edge_position", "edge_tensor"]


class GradientEdge(NamedTuple):
    """Object representing a given gradient edge within the autograd graph: ``(node, output_nr)``.

    To get the gradient edge where a given tensor's gradient will be computed, call
    ``mg.autograd.graph.get_gradient_edge(tensor)``. ``ownership_token`` is PyTorch's third field (a node
    that keeps a Python-made graph alive there); minigrad's edge holds its node itself, so it stays None.
    """

    node: Any
    output_nr: int
    ownership_token: Any = None


#: node -> {output_nr: (tensor id, tensor name)} of the tensors edges were taken from, for the events and
#: messages that name an input (a hand-built edge has none: it is named by its node)
_TENSORS: "weakref.WeakKeyDictionary[GradNode, dict[int, tuple[int, str | None]]]" = weakref.WeakKeyDictionary()


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The gradient edge of ``tensor``: its grad node (a leaf's ``AccumulateGrad``) and ``tensor.output_nr``.

    ``grad(loss, get_gradient_edge(t))`` is ``grad(loss, t)``; the edge does not hold ``t``.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"get_gradient_edge(): expected a Tensor, but got {type(tensor).__name__}")
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    meta = tensor._meta
    node = meta.grad_node if meta.grad_node is not None else accumulation_node_for(meta, tensor)
    nr = tensor.output_nr
    _TENSORS.setdefault(node, {})[nr] = (tensor._id, tensor._name)
    return GradientEdge(node, nr)


def edge_position(edge: GradientEdge, what: str) -> tuple[GradNode, int, int]:
    """``(node, slot, rank)`` of an edge: its flat ``output_nr`` counted through the node's slots."""
    node, nr = edge.node, edge.output_nr
    if not isinstance(node, GradNode):
        raise TypeError(f"{what}: a GradientEdge's node must be a grad node, but got {type(node).__name__}")
    for slot, row in enumerate(node.in_meta):
        if nr < len(row):
            return node, slot, nr
        nr -= len(row)
    raise IndexError(f"{what}: output_nr {edge.output_nr} is out of range for {node.name()}, which has "
                     f"{sum(len(r) for r in node.in_meta)} output(s)")


def edge_tensor(edge: GradientEdge) -> tuple[int, str]:
    """The id and display name of the tensor an edge was taken from (a leaf's for ``AccumulateGrad``); a
    hand-built edge of another node is named after it (``MulBackward0#3.0``) with id -1."""
    node = edge.node
    if getattr(node, "is_accumulation", False):
        return node.tensor_id, f"t{node.tensor_id}"
    known = _TENSORS.get(node, {}).get(edge.output_nr)
    if known is not None:
        tid, name = known
        return tid, name or f"t{tid}"
    return -1, f"{node.display_name}.{edge.output_nr}"
