"""AutogradMeta: a tensor's autograd information (Paddle's ``egr::AutogradMeta``, PyTorch's ``torch/csrc/autograd/variable.h``).

It is data the tensor carries, so it lives in the tensor layer, below
``autograd/`` (which reads and writes it: ``accumulation_node_for`` in
``autograd/accumulation.py`` creates a leaf's AccumulationNode).

A tensor that requires grad carries one ``AutogradMeta``:

- ``grad_node``: the node that computes this tensor's gradient (its history,
  PyTorch's ``grad_fn``); ``None`` for a leaf;
- ``out_slot``/``out_rank``: which output of ``grad_node`` this tensor is
  (``SetOutRankWithSlot``): gradients for it arrive at that buffer position;
- ``acc_node``: for a leaf, a *weak* reference to its AccumulationNode;
- ``grad``, ``hooks`` (leaf hooks), ``post_hooks`` (a leaf's post-accumulate-grad hooks, which hold the
  tensor weakly: the meta never owns its tensor), ``retain_grads``;
- ``accumulates`` (a class attribute): whether a leaf's gradient is kept in
  ``.grad``. False only for a leaf view whose flag is its base's: made under
  ``no_grad`` of a tensor that requires grad, or taken before its base started
  to require grad (``NoGradViewMeta`` below).

NOTE [ No reference cycles between tensors and nodes ]
    Ownership runs one way: tensor -> meta -> grad node -> next nodes.
    An AccumulationNode owns its leaf's meta (to write ``.grad``) while the
    meta refers back to it only weakly, as PyTorch's ``grad_accumulator_``
    does (the leaf *tensor* keeps it alive: tensor -> node -> meta); TensorWrappers hold arrays, not tensors; retain-grad hooks hold a
    weak reference to the meta. Freed graphs are reclaimed by reference
    counting alone, without the cycle collector.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from .autograd.accumulation import AccumulationNode
    from .autograd.grad_node import GradNode

__all__ = ["AutogradMeta", "NoGradViewMeta"]


class AutogradMeta:
    """Autograd state of one tensor (see the module docstring)."""

    __slots__ = (
        "grad_node",
        "acc_node",
        "out_slot",
        "out_rank",
        "grad",
        "hooks",
        "post_hooks",
        "retain_grads",
        "tensor_id",
        "name",
        "__weakref__",
    )

    #: a leaf's gradient reaches ``.grad`` through its AccumulationNode (``NoGradViewMeta``: it goes nowhere)
    accumulates = True

    def __init__(self, tensor_id: int, name: str | None = None, grad_node: "GradNode | None" = None,
                 out_slot: int = 0) -> None:
        self.grad_node = grad_node
        self.acc_node: Callable[[], AccumulationNode | None] | None = None  # a weakref.ref
        self.out_slot = out_slot
        self.out_rank = 0
        self.grad: Any = None
        self.hooks: list[tuple[int, Callable[[Any], Any]]] | None = None
        #: a leaf's post-accumulate-grad hooks: ``(id, hook, weakref to the tensor)``, run after ``.grad`` is written
        self.post_hooks: list[tuple[int, Callable[[Any], Any], Any]] | None = None
        self.retain_grads = False
        self.tensor_id = tensor_id
        self.name = name

    @property
    def is_leaf(self) -> bool:
        return self.grad_node is None


class NoGradViewMeta(AutogradMeta):
    """The autograd meta of a view made under ``no_grad`` of a tensor that requires grad: it requires
    grad and is a leaf (no ``grad_fn``), but keeps no gradient; also a view taken before its base started to
    require grad (``Tensor.requires_grad``'s setter). PyTorch's view asks its base whether it
    requires grad, and has no gradient accumulator of its own, so an op on it records a node whose edge
    to it is empty (``create_grad_node``), ``backward()`` from it finds nothing to start, and ``.grad``
    stays ``None``. ``requires_grad_()`` gives it an accumulator (an ``AutogradMeta``)."""

    __slots__ = ()
    accumulates = False
