"""TensorWrapper: a tensor saved for backward (seed 004 §2.3; PyTorch's SavedVariable).

A wrapper keeps the tensor's *array*, not the tensor, plus what is needed to
rebuild an equivalent tensor later:

- the version counter and its value when saved (the in-place version
  snapshot): ``recover()`` raises if the tensor was modified in place since;
- for ``create_graph``: a weak reference to the tensor's grad node and its
  out slot/rank (a leaf's meta is kept as is), so that a recovered tensor
  routes higher-order gradients to the same places.

Holding the grad node weakly is what keeps ``output -> node -> wrapper ->
output`` from being a reference cycle when an op saves its own output.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..autograd_meta import AutogradMeta
from ..tensor import Tensor, VersionCounter

if TYPE_CHECKING:  # pragma: no cover
    from .grad_node import GradNode

__all__ = ["TensorWrapper"]

class TensorWrapper:
    """A saved tensor (see the module docstring)."""

    __slots__ = (
        "data",
        "dtype",
        "device",
        "layout",
        "version_counter",
        "snapshot",
        "requires_grad",
        "node_ref",
        "out_slot",
        "out_rank",
        "leaf_meta",
        "tensor_id",
        "tensor_name",
        "cleared",
    )

    def __init__(self, tensor: "Tensor") -> None:
        self.data = tensor._data
        self.dtype = tensor._dtype
        self.device = tensor._device
        self.layout = tensor._layout
        vc = tensor._version
        if vc is None:
            vc = tensor._version = VersionCounter()
        self.version_counter = vc
        self.snapshot = vc.value
        meta = tensor._meta
        self.requires_grad = meta is not None
        self.node_ref: weakref.ReferenceType[GradNode] | None = None
        self.leaf_meta = None
        self.out_slot = 0
        self.out_rank = 0
        if meta is not None:
            if meta.grad_node is None:
                self.leaf_meta = meta
            else:
                self.node_ref = weakref.ref(meta.grad_node)
                self.out_slot = meta.out_slot
                self.out_rank = meta.out_rank
        self.tensor_id = tensor._id
        self.tensor_name = tensor._name
        self.cleared = False

    @property
    def version(self) -> int:
        """The version at which the tensor was saved."""
        return self.snapshot

    def check_version(self, node: "GradNode") -> None:
        """Raise if the saved tensor was modified in place after it was saved."""
        now = self.version_counter.value
        if now != self.snapshot:
            name = self.tensor_name or f"t{self.tensor_id}"
            raise RuntimeError(
                f"one of the tensors needed for gradient computation has been modified by an in-place "
                f"operation: tensor '{name}' (t{self.tensor_id}) saved by {node.display_name} "
                f"(backward of '{node.op_name}') at version {self.snapshot} is now at version {now}. "
                f"Use an out-of-place op (y = y + 1 instead of y += 1) or clone it before changing it."
            )

    def recover(self, node: "GradNode", create_graph: bool) -> "Tensor":
        """A tensor with the saved values (``RecoverTensorWrapper``), version-checked.

        With ``create_graph`` the tensor keeps its autograd history, so
        gradients of the gradient flow back to the original graph.
        """
        if self.cleared:
            raise RuntimeError(
                f"{node.display_name} (backward of '{node.op_name}'): its saved tensors were freed by an "
                f"earlier backward(). Specify retain_graph=True on the first backward() if you need to "
                f"backward through the graph a second time."
            )
        self.check_version(node)
        t = Tensor._make(self.data, self.dtype, self.device, self.layout)
        t._version = self.version_counter
        t._name = self.tensor_name
        if create_graph and self.requires_grad:
            if self.leaf_meta is not None:
                t._meta = self.leaf_meta
            else:
                grad_node = self.node_ref() if self.node_ref is not None else None
                meta = AutogradMeta(t._id)
                meta.grad_node = grad_node
                meta.out_slot = self.out_slot
                meta.out_rank = self.out_rank
                t._meta = meta
        return t

    def clear(self) -> None:
        """Drop the saved array (``TensorWrapper::clear``)."""
        self.data = None
        self.cleared = True

    def __repr__(self) -> str:
        return f"TensorWrapper(t{self.tensor_id}, version={self.snapshot}, cleared={self.cleared})"
