"""AccumulationNode: where a leaf's gradient ends up (Paddle's GradNodeAccumulation,
PyTorch's AccumulateGrad).

Created the first time a leaf that requires grad is used by an op
(``SetGradOutMeta``). When it runs it applies the leaf's hooks, then writes
``.grad``: assigned the first time, added afterwards (DESIGN §9 rule 1). Under
``grad()`` (GeneralGrad) it only hands the gradient back: ``grad()`` never
writes ``.grad``. The engine pushes AccumulationNodes to the *front* of the
ready queue, so leaf gradients are written as soon as they are complete.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..autograd_meta import AutogradMeta
from ..tracing import bus
from ..tracing.events import GradAccumulate, HookRun, NodeCreate
from .grad_node import GradNode, check_hook_result

__all__ = ["AccumulationNode", "accumulation_node_for"]


class AccumulationNode(GradNode):
    """The grad node of a leaf tensor; it has no outgoing edges."""

    __slots__ = ("meta",)

    op_name = "accumulate"
    is_accumulation = True

    def __init__(self, meta: "AutogradMeta", in_meta: Any = None) -> None:
        super().__init__()
        self.meta = meta
        self.in_meta = [[in_meta]]

    @property
    def tensor_id(self) -> int:
        """Id of the leaf tensor this node accumulates into."""
        return self.meta.tensor_id

    def announce(self, copy_of: int | None = None) -> None:
        """Emit ``node.create`` for this node (if recording)."""
        rec = bus.recorder
        if rec is not None:
            rec.emit(
                NodeCreate.new(
                    node=self.id,
                    name=self.display_name,
                    op="accumulate",
                    topo_nr=0,
                    seq_nr=self.seq_nr,
                    is_accumulation=True,
                    tensor=self.meta.tensor_id,
                    copy_of=copy_of,
                    edges=[],
                    saved=[],
                    attrs={},
                )
            )

    def run(self, grads: list[list[Any]], create_graph: bool, general: bool) -> list[list[Any]]:
        """Apply the leaf's hooks; outside ``grad()``, accumulate into ``.grad``."""
        g = grads[0][0]
        meta = self.meta
        rec = bus.recorder
        if meta.hooks:
            for _hid, fn in list(meta.hooks):
                if rec is not None:
                    rec.emit(HookRun(target=meta.tensor_id, hook_kind="tensor"))
                out = fn(g)
                if out is not None:
                    g = check_hook_result(out, g, meta.tensor_id, fn)
        if not general and g is not None:
            if meta.grad is None:
                # Own the storage: the incoming gradient may alias another buffer.
                meta.grad = g if create_graph else g.detach_copy()
            else:
                meta.grad = meta.grad + g
            if rec is not None:
                rec.emit(GradAccumulate(tensor=meta.tensor_id, value=rec.preview(meta.grad._data)))
        return [[g]]

    def release(self) -> None:
        """AccumulationNodes save nothing and are shared by every graph that uses the
        leaf, so they are never released."""

    def copy(self) -> "AccumulationNode":
        other = AccumulationNode(self.meta, self.in_meta[0][0])
        other.seq_nr = self.seq_nr
        return other


def accumulation_node_for(meta: AutogradMeta, tensor: Any) -> AccumulationNode:
    """The leaf's AccumulationNode, created on its first use by an op (``SetGradOutMeta``).

    The meta holds it only weakly (NOTE [ No reference cycles between tensors
    and nodes ] in ``autograd_meta.py``): a node that no graph holds any more
    is made again.
    """
    node = meta.acc_node() if meta.acc_node is not None else None
    if node is None:
        node = AccumulationNode(meta, (tensor._data.shape, tensor._dtype, tensor._device))
        meta.acc_node = weakref.ref(node)
        node.announce()
    return node
