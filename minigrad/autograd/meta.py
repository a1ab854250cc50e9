"""AutogradMeta: a tensor's autograd information (seed 004 §2.3, seed 003).

A tensor that requires grad carries one ``AutogradMeta``:

- ``grad_node``: the node that computes this tensor's gradient (its history,
  PyTorch's ``grad_fn``); ``None`` for a leaf;
- ``out_slot``/``out_rank``: which output of ``grad_node`` this tensor is
  (``SetOutRankWithSlot``): gradients for it arrive at that buffer position;
- ``acc_node``: for a leaf, a *weak* reference to its AccumulationNode;
- ``grad``, ``hooks`` (leaf hooks), ``retain_grads``.

NOTE [ No reference cycles between tensors and nodes ]
    Ownership runs one way: tensor -> meta -> grad node -> next nodes.
    An AccumulationNode owns its leaf's meta (to write ``.grad``) while the
    meta refers back to it only weakly, as PyTorch's ``grad_accumulator_``
    does; TensorWrappers hold arrays, not tensors; retain-grad hooks hold a
    weak reference to the meta. Freed graphs are reclaimed by reference
    counting alone, without the cycle collector.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from .accumulation import AccumulationNode
    from .grad_node import GradNode

__all__ = ["AutogradMeta"]


class AutogradMeta:
    """Autograd state of one tensor (see the module docstring)."""

    __slots__ = (
        "grad_node",
        "acc_node",
        "out_slot",
        "out_rank",
        "grad",
        "hooks",
        "retain_grads",
        "tensor_id",
        "name",
        "__weakref__",
    )

    def __init__(self, tensor_id: int, name: str | None = None) -> None:
        self.grad_node: GradNode | None = None
        self.acc_node: weakref.ReferenceType[AccumulationNode] | None = None
        self.out_slot = 0
        self.out_rank = 0
        self.grad: Any = None
        self.hooks: list[tuple[int, Callable[[Any], Any]]] | None = None
        self.retain_grads = False
        self.tensor_id = tensor_id
        self.name = name

    @property
    def is_leaf(self) -> bool:
        return self.grad_node is None

    def accumulation_node_for(self, tensor: Any) -> "AccumulationNode":
        """The leaf's AccumulationNode, created on its first use by an op (``SetGradOutMeta``)."""
        node = self.acc_node() if self.acc_node is not None else None
        if node is None:
            from .accumulation import AccumulationNode

            node = AccumulationNode(self, (tensor._data.shape, tensor._dtype, tensor._device))
            self.acc_node = weakref.ref(node)
            node.announce()
        return node
