"""TensorWrapper: a tensor saved for backward (Paddle's ``TensorWrapper``, paddle/fluid/eager/tensor_wrapper.h; PyTorch's SavedVariable).

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

Under ``mg.autograd.graph.saved_tensors_hooks(pack, unpack)`` a wrapper keeps
``pack(tensor)`` instead of the array and calls ``unpack`` each time the
tensor is read back (NOTE [ Saved-tensor hooks ]).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..autograd_meta import AutogradMeta
from ..tensor import Tensor, VersionCounter
from ..tracing import bus
from ..tracing.events import SavedPack
from .grad_mode import set_grad_enabled

if TYPE_CHECKING:  # pragma: no cover
    from .grad_node import GradNode

__all__ = ["TensorWrapper", "SAVED_TENSORS_HOOKS", "BEFORE_INPLACE_WRITE"]

#: The stack of ``(pack_hook, unpack_hook)`` pairs pushed by
#: ``mg.autograd.graph.saved_tensors_hooks``; only the innermost pair applies.
SAVED_TENSORS_HOOKS: list[tuple[Any, Any]] = []

#: Called with a tensor just before an in-place op writes into its storage (``dispatch/dygraph.py``,
#: ``_write_back``): ``graph.allow_mutation_on_saved_tensors`` clones what was saved from that storage.
BEFORE_INPLACE_WRITE: list[Any] = []

#: The grad nodes whose saved tensors are being unpacked by a hook, innermost last
#: (``utils/checkpoint.py`` names the node that triggered a recomputation).
UNPACKING_FOR: list[Any] = []


#: PyTorch's message for a backward through freed saved values (a released node's or a freed saved tensor's).
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)


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
                 "grad_rank", "tensor_id", "tensor_name", "hooks")

    def __init__(self, tensor: "Tensor", output: bool = False) -> None:
        self.data = tensor._data
        self.hooks: Any = None
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
        if SAVED_TENSORS_HOOKS:
            self._pack(tensor, SAVED_TENSORS_HOOKS[-1])

    def _pack(self, tensor: "Tensor", hooks: tuple[Any, Any]) -> None:
        """Keep ``pack_hook(tensor)`` instead of the array (NOTE [ Saved-tensor hooks ]).

        NOTE [ Saved-tensor hooks ]
            As PyTorch's ``SavedVariable`` with default hooks
            (torch/csrc/autograd/saved_variable.cpp): the pack hook gets the
            tensor itself, with grad recording off, and must not change it in
            place; the wrapper then holds only what the hook returned and the
            metadata that rebuilds the tensor's history. The unpack hook runs
            at every read. No version check is made at a read: the hooks own
            the values from the moment they are packed.
        """
        pack, unpack = hooks
        version = self.snapshot
        with set_grad_enabled(False):
            packed = pack(tensor)
        vc = tensor._vc
        if vc is not None and vc.value != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                "open an issue if you need to perform in-place operations on the input to a pack hook."
            )
        self.data = None
        self.hooks = (unpack, packed)
        rec = bus.recorder
        if rec is not None:
            rec.emit(SavedPack.new(tensor=self.tensor_id, hook=getattr(pack, "__name__", type(pack).__name__)))

    def _unpack(self, node: "GradNode") -> Any:
        """The array the unpack hook gives back (NOTE [ Saved-tensor hooks ])."""
        unpack, packed = self.hooks
        UNPACKING_FOR.append(node)
        try:
            t = unpack(packed)
        finally:
            UNPACKING_FOR.pop()
        if not isinstance(t, Tensor):
            raise TypeError(
                f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                f"{type(t).__name__}"
            )
        return t._data

    @property
    def requires_grad(self) -> bool:
        """Whether the saved tensor required grad when it was saved."""
        return self.grad_ref is not None

    @property
    def cleared(self) -> bool:
        """Whether ``clear()`` dropped the array (the node was released)."""
        return self.data is None and self.hooks is None

    @property
    def version(self) -> int:
        """The version at which the tensor was saved."""
        return self.snapshot

    def check_version(self, node: "GradNode") -> None:
        """Raise if the saved tensor was modified in place after it was saved (PyTorch's check in
        ``SavedVariable::unpack``, torch/csrc/autograd/saved_variable.cpp).

        The counter (``self.version_counter``, shared by the tensor, its views and its ``detach()``es)
        counts the in-place changes of the storage; ``self.snapshot`` is its value when the tensor was
        saved. If they differ, the values backward would read are not the ones the forward pass used:
        refuse them with a ``RuntimeError`` that names the tensor once (its name - ``name=``, or while
        recording the variable it was assigned to - or ``t<id>`` if it has none), the node (``node.display_name``, ``node.op_name``) and both versions::

            one of the tensors needed for gradient computation has been modified by an in-place
            operation: tensor 'h' saved by SinBackward0#3 (backward of 'sin') at version 0 is
            now at version 1. Use an out-of-place op (y = y + 1 instead of y += 1) or clone it
            before changing it.

        (one line). ``recover_array`` calls it only when the two differ; called otherwise, it returns.
        """
        # BEGIN LESSON 9 TASK 9.1: the version check
        now = self.version_counter.value
        if now != self.snapshot:
            name = self.tensor_name or f"t{self.tensor_id}"
            raise RuntimeError(
                f"one of the tensors needed for gradient computation has been modified by an in-place "
                f"operation: tensor '{name}' saved by {node.display_name} "
                f"(backward of '{node.op_name}') at version {self.snapshot} is now at version {now}. "
                f"Use an out-of-place op (y = y + 1 instead of y += 1) or clone it before changing it."
            )
        # END LESSON 9 TASK 9.1

    def recover(self, node: "GradNode", create_graph: bool) -> "Tensor":
        """A tensor with the saved values (``RecoverTensorWrapper``), version-checked.

        With ``create_graph`` the tensor keeps its autograd history, so
        gradients of the gradient flow back to the original graph.
        """
        data = self.recover_array(node)
        t = Tensor._make(data, self.dtype, self.device, self.layout)
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
            if self.hooks is not None:
                return self._unpack(node)
            raise RuntimeError(SECOND_BACKWARD)  # PyTorch's words
        if self.version_counter.value != self.snapshot:
            self.check_version(node)
        return self.data

    def clear(self) -> None:
        """Drop the saved array (``TensorWrapper::clear``)."""
        self.data = None
        self.hooks = None

    def __repr__(self) -> str:
        return f"TensorWrapper(t{self.tensor_id}, version={self.snapshot}, cleared={self.cleared})"
