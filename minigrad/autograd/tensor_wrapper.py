"""TensorWrapper: a tensor saved for backward (seed 004 §2.3; PyTorch's SavedVariable).

A wrapper keeps the tensor's *array*, not the tensor, plus what is needed to
rebuild an equivalent tensor later:

- the version counter and its value when saved (the in-place version
  snapshot): ``recover()`` raises if the tensor was modified in place since;
- for ``create_graph``: the tensor's grad node and its out slot/rank (a
  leaf's meta is kept as is), so that a recovered tensor routes higher-order
  gradients to the same places.

An op that saves its own output holds its node weakly: ``node -> wrapper ->
node`` would be a reference cycle. A saved input's node is held as the
node's edges hold it (the node that made an input never refers to the nodes
that use it), which spares a weak reference and a tuple per saved input:
two of the nine objects the garbage collector tracks per link of a chain.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..autograd_meta import AutogradMeta
from ..tensor import Tensor, VersionCounter

if TYPE_CHECKING:  # pragma: no cover
    from .grad_node import GradNode

__all__ = ["TensorWrapper", "save_tensor"]

class TensorWrapper:
    """A saved tensor (see the module docstring).

    Lean on purpose (one is made per saved tensor of every op): the array,
    the version counter and its snapshot, what rebuilds the tensor (dtype,
    device, layout, id, name) and ``grad_ref`` - ``None`` for a tensor that
    needs no gradient, the leaf's ``AutogradMeta``, or for a non-leaf its grad
    node (a weak reference when ``output``: the saving op's own output) with
    ``grad_slot`` and ``grad_rank``.
    """

    __slots__ = ("data", "dtype", "device", "layout", "version_counter", "snapshot", "grad_ref", "grad_slot",
                 "grad_rank", "tensor_id", "tensor_name")

    def __init__(self, tensor: "Tensor", output: bool = False) -> None:
        self.data = tensor._data
        self.dtype = tensor._dtype
        self.device = tensor._device
        self.layout = tensor._layout
        vc = tensor._vc
        if vc is None:
            vc = tensor._vc = VersionCounter()
        self.version_counter = vc
        self.snapshot = vc.value
        meta = tensor._meta
        self.grad_slot = self.grad_rank = 0
        if meta is None:
            self.grad_ref: Any = None
        elif meta.grad_node is None:
            self.grad_ref = meta
        else:
            self.grad_ref = weakref.ref(meta.grad_node) if output else meta.grad_node
            self.grad_slot, self.grad_rank = meta.out_slot, meta.out_rank
        self.tensor_id = tensor._id
        self.tensor_name = tensor._name

    @property
    def requires_grad(self) -> bool:
        """Whether the saved tensor required grad when it was saved."""
        return self.grad_ref is not None

    @property
    def cleared(self) -> bool:
        """Whether ``clear()`` dropped the array (the node was released)."""
        return self.data is None

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
        self.recover_array(node)
        t = Tensor._make(self.data, self.dtype, self.device, self.layout)
        t._vc = self.version_counter
        t._name = self.tensor_name
        ref = self.grad_ref
        if create_graph and ref is not None:
            if isinstance(ref, AutogradMeta):  # a leaf: the same meta, so gradients reach its .grad
                t._meta = ref
            else:  # a non-leaf: a new meta pointing at the same node output
                meta = AutogradMeta(t._id)
                meta.grad_node = ref() if type(ref) is weakref.ref else ref
                meta.out_slot = self.grad_slot
                meta.out_rank = self.grad_rank
                t._meta = meta
        return t

    def recover_array(self, node: "GradNode") -> Any:
        """The saved array, version-checked (what a formula sees in array mode)."""
        if self.data is None:
            raise RuntimeError(
                f"{node.display_name} (backward of '{node.op_name}'): its saved tensors were freed by an "
                f"earlier backward(). Specify retain_graph=True on the first backward() if you need to "
                f"backward through the graph a second time."
            )
        if self.version_counter.value != self.snapshot:
            self.check_version(node)
        return self.data

    def clear(self) -> None:
        """Drop the saved array (``TensorWrapper::clear``)."""
        self.data = None

    def __repr__(self) -> str:
        return f"TensorWrapper(t{self.tensor_id}, version={self.snapshot}, cleared={self.cleared})"


def save_tensor(tensor: "Tensor") -> TensorWrapper:
    """The TensorWrapper for saving ``tensor`` now (what the dygraph layer calls).

    NOTE [ One wrapper per saved leaf ]
        A parameter or a constant is saved by every op that uses it (``w`` in
        each ``x @ w``, ``c`` in each ``y * c`` of a chain). While its array,
        version, history and name are what they were at its last save, the
        wrapper of that save serves again: nothing in a wrapper changes after it
        is made (releasing a node drops its wrappers rather than clearing them,
        and an in-place op replaces a node's wrapper instead of editing it).
        Only tensors without history (leaves and constants) are shared this
        way; the tensor holds its wrapper (tensor -> wrapper -> meta: no cycle).
    """
    w = getattr(tensor, "_saved", None)
    meta = tensor._meta
    if w is not None:
        vc = tensor._vc
        if (
            w.data is tensor._data
            and w.version_counter is vc
            and vc.value == w.snapshot
            and w.grad_ref is meta
            and w.tensor_name is tensor._name
        ):
            return w
    w = TensorWrapper(tensor)
    if meta is None or meta.grad_node is None:
        tensor._saved = w
    return w
