"""AccumulateGrad: where a leaf's gradient ends up (PyTorch's name, which every viewer shows;
Paddle's GradNodeAccumulation; ``AccumulationNode`` in this engine's code).

Created the first time a leaf that requires grad is used by an op
(``SetGradOutMeta``). When it runs it applies the leaf's hooks, then writes
``.grad``: assigned the first time, added afterwards (docs/architecture.md, Engine rules, rule 1), then runs
the leaf's post-accumulate-grad hooks (``Tensor.register_post_accumulate_grad_hook``). Under
``grad()`` (GeneralGrad) it only hands the gradient back: ``grad()`` never
writes ``.grad``. The engine pushes AccumulationNodes to the *front* of the
ready queue, so leaf gradients are written as soon as they are complete.
"""

from __future__ import annotations

import sys
import threading
import weakref
from typing import Any

import numpy as np

from ..autograd_meta import AutogradMeta
from ..devices import _non_overlapping_and_dense as non_overlapping_and_dense, array_module, row_major_strides, strided_copy
from ..tensor import Tensor
from ..tracing import bus
from ..tracing.events import GradAccumulate, HookRun, NodeCreate, TensorCreate
from .grad_node import Edge, GradNode, check_hook_result

__all__ = ["AccumulateGrad", "AccumulateGrad", "accumulation_node_for", "leaf_edge_row", "BACKWARD_PASS",
           "run_post_accumulate_grad_hooks"]


class AccumulateGrad(GradNode):
    """The grad node of a leaf tensor; it has no outgoing edges."""

    __slots__ = ("meta", "announced_to", "_variable")

    op_name = "accumulate"
    paddle_name = "GradNodeAccumulation"
    is_accumulation = True

    def __init__(self, meta: "AutogradMeta", in_meta: Any = None) -> None:
        super().__init__()
        self.meta = meta
        self.in_meta = ((in_meta,),)
        #: The ``token`` of the recording that saw its ``node.create`` (announced once per recording).
        self.announced_to: Any = None
        #: A weak reference to the leaf (``variable``): weak, so the node does not keep its tensor alive.
        self._variable: Any = None

    @property
    def variable(self) -> Any:
        """The leaf tensor this node accumulates into (PyTorch's ``AccumulateGrad.variable``); None once the
        tensor is gone (the node holds it weakly: NOTE [ One AccumulationNode while the leaf lives ])."""
        return self._variable() if self._variable is not None else None

    @property
    def tensor_id(self) -> int:
        """Id of the leaf tensor this node accumulates into."""
        return self.meta.tensor_id

    def announce(self, copy_of: int | None = None) -> None:
        """Emit ``node.create`` for this node (if recording)."""
        rec = bus.recorder
        if rec is not None:
            self.announced_to = rec.token
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

    def announce_leaf(self) -> None:
        """Emit ``tensor.create`` for this node's leaf from what the node holds: the leaf's AutogradMeta (id,
        name) and the gradient's meta (shape, dtype, device), no value. ``render(tensor)`` of a graph built
        without a recording announces its leaves this way (``viz/live.py``)."""
        rec = bus.recorder
        if rec is None:
            return
        meta = self.meta
        shape, dtype, device = self.in_meta[0][0] if self.in_meta[0][0] else ((), "", "")
        rec.announced.add(meta.tensor_id)
        rec.emit(TensorCreate.new(
            tensor=meta.tensor_id, name=getattr(meta, "name", None) or f"t{meta.tensor_id}", shape=list(shape),
            dtype=str(getattr(dtype, "name", dtype)), device=str(device), requires_grad=True, is_leaf=True,
            grad_node=None, out_slot=0, out_rank=0, value=None,
        ))

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
                    g = check_hook_result(out, g, fn)
        if self.hooks:  # the node's own pre-hooks, after the leaf's (NOTE [ A node's own hooks ])
            g = self.run_prehooks([[g]])[0][0]
        if not general and g is not None:
            added = meta.grad is not None
            if not added:
                if create_graph:
                    meta.grad = g
                else:
                    leaf = self._variable() if self._variable is not None else None
                    strides = None if leaf is None or leaf._data.strides == g._data.strides else _contract_strides(leaf, g)
                    if strides is not None:  # laid out as the leaf (NOTE [ A .grad is laid out as its leaf ])
                        meta.grad = Tensor._make(strided_copy(array_module(g._device), g._data, strides), g._dtype,
                                                 g._device, g._layout)
                    elif rec is None and not meta.hooks and not BACKWARD_PASS.user_code and _sole_owner(g):
                        # NOTE [ The first .grad without a copy ]: nothing else holds the
                        # array, so .grad takes it (PyTorch's AccumulateGrad "steals" it too).
                        meta.grad = Tensor._make(g._data, g._dtype, g._device, g._layout)
                    else:
                        # Own the storage: the incoming gradient may alias another buffer.
                        meta.grad = g.detach_copy()
            else:
                meta.grad = meta.grad + g
            if rec is not None:
                rec.emit(GradAccumulate.new(tensor=meta.tensor_id, value=rec.preview(meta.grad._data), added=added))
            if meta.post_hooks:
                run_post_accumulate_grad_hooks(meta, rec)
        return [[g]]

    def release(self) -> None:
        """AccumulationNodes save nothing and are shared by every graph that uses the
        leaf, so they are never released."""

    def copy(self) -> "AccumulateGrad":
        other = AccumulationNode(self.meta, self.in_meta[0][0])
        other.seq_nr, other._variable = self.seq_nr, self._variable
        return other


def run_post_accumulate_grad_hooks(meta: "AutogradMeta", rec: Any) -> None:
    """The leaf's ``register_post_accumulate_grad_hook`` hooks, in registration order, each given the leaf tensor
    (``.grad`` written); a trace shows each as a ``hook.run`` of kind ``post_accumulate_grad``."""
    BACKWARD_PASS.user_code = True  # a hook may keep the new .grad (NOTE [ The first .grad without a copy ])
    for _hid, fn, tensor_ref in list(meta.post_hooks or ()):
        tensor = tensor_ref()
        if tensor is None:  # the leaf is gone: nothing to show the hook
            continue
        if rec is not None:
            rec.emit(HookRun(target=meta.tensor_id, hook_kind="post_accumulate_grad"))
        out = fn(tensor)
        if out is not None and out is not tensor:  # (PyTorch lets the tensor itself through: ``p.add_(...)``)
            if not isinstance(out, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


#: The engine's word for the node (the glossary's): an accumulation node.
AccumulationNode = AccumulateGrad


# NOTE [ The first .grad without a copy ]
#     ``.grad`` must own its storage: a later in-place change (``w.grad.zero_()``,
#     an optimizer's ``+=``) must not reach another tensor. The first gradient is
#     copied unless nothing else can see its array: a NumPy (or CuPy) array that is no view
#     (``base is None``: any array sharing its memory would hold it as its base)
#     whose only reference is the gradient tensor's own. ``sys.getrefcount``
#     counts that reference and its own argument: 2. When one gradient tensor
#     reaches two leaves (``a + b``), the first leaf's new ``.grad`` tensor holds
#     the array, so the second leaf sees 3 and copies. User code that may have
#     kept a gradient *tensor* (a hook, a custom Function's backward) makes the
#     rest of the pass copy (``BACKWARD_PASS.user_code``, set by the engine), and
#     with a recorder active (which keeps previews) the gradient is always copied.
_getrefcount = sys.getrefcount


class _BackwardPass(threading.local):
    """Per-thread state of the running backward pass that ``.grad`` needs."""

    #: Whether user code has seen gradients in this pass (True outside the engine).
    user_code = True


BACKWARD_PASS = _BackwardPass()


def _sole_owner(g: Any) -> bool:
    # A NumPy array, or a device array (CuPy's: a view has its ``base`` set as NumPy's does), that nothing
    # else holds; on a GPU the copy it saves is a launch and a pass over the gradient per parameter.
    if not (type(g._data) is np.ndarray or g._device != "cpu") or g._meta is not None or _getrefcount(g._data) != 2:
        return False
    base = g._data.base
    # A row-major view of the whole of an array that only it holds (a reduction's result reshaped): as good
    # as owning it. ``base`` is the array that owns the memory (views of views point to it).
    # (NumPy's ``broadcast_to``/``as_strided`` views have a stand-in object as their base: never taken.)
    return base is None or (g._data.flags.c_contiguous and getattr(base, "size", -1) == g._data.size
                            and _getrefcount(base) == 3)


def accumulation_node_for(meta: AutogradMeta, tensor: Any) -> AccumulationNode:
    """The leaf's AccumulationNode, created on its first use by an op (``SetGradOutMeta``).

    NOTE [ One AccumulationNode while the leaf lives ]
        The meta holds its node only weakly (NOTE [ No reference cycles between
        tensors and nodes ] in ``autograd_meta.py``); the leaf *tensor* keeps it
        alive (``tensor._acc``, the one-edge row leading to it: see
        ``leaf_edge_row``), so ``w * x`` in a training loop finds the same node
        every step instead of building a new one each time the last graph is
        freed (PyTorch rebuilds its ``AccumulateGrad`` then). Nothing cycles:
        tensor -> row -> node -> meta, tensor -> meta. A node made before a
        recording started is announced (``node.create``) the first time the
        recording sees it.
    """
    return leaf_edge_row(meta, tensor)[0].node


# NOTE [ A .grad is laid out as its leaf ]
#     PyTorch's AccumulateGrad keeps a "layout contract": the first ``.grad`` of a leaf whose elements fill
#     their memory densely (a row-major one, a transposed copy, a channels-last weight) has the leaf's
#     strides, and of any other leaf is row-major; a gradient that arrives laid out otherwise is copied
#     into that layout (``clone_obey_contract``). So ``w.grad.stride() == w.stride()`` for every parameter,
#     and an optimizer's step walks both in the same order.


def _contract_strides(leaf: Any, g: Any) -> tuple[int, ...] | None:
    """The strides (elements) ``g``, the first gradient of ``leaf``, must be copied into to keep the layout
    contract; None where it keeps it already. (The caller took the common case: both laid out alike.)"""
    data, gd = leaf._data, g._data
    if gd.ndim < 2 or data.shape != gd.shape:
        return None
    if non_overlapping_and_dense(data):
        want = tuple(st // data.itemsize for st in data.strides)
    else:
        want = row_major_strides(data.shape)
    have = tuple(st // gd.itemsize for st in gd.strides)
    if all(h == w if n != 1 else h != 0 for h, w, n in zip(have, want, gd.shape)):
        return None
    return want


def leaf_edge_row(meta: AutogradMeta, tensor: Any) -> tuple[Edge]:
    """The one-edge row from an op to the leaf's AccumulationNode (``SetGradOutMeta`` for a leaf).

    Every op that uses the leaf shares this row (NOTE [ Lean graph data ] in
    ``node_creation.py``: rows are never changed in place): a parameter used by
    every step of a training loop costs its ops no Edge of their own.
    """
    # (A leaf's shape, dtype and device never change: in-place ops keep them.)
    node = meta.acc_node() if meta.acc_node is not None else None
    if node is not None:
        rec = bus.recorder
        if rec is not None and node.announced_to != rec.token:
            node.announce()
        row = getattr(tensor, "_acc", None)
        if row is None or row[0].node is not node:  # a tensor recovered for create_graph shares the leaf's meta
            row = tensor._acc = _row_to(node)
        return row
    node = AccumulationNode(meta, (tensor._data.shape, tensor._dtype, tensor._device))
    node._variable = weakref.ref(tensor)
    meta.acc_node = weakref.ref(node)
    row = tensor._acc = _row_to(node)
    node.announce()
    return row


def _row_to(node: AccumulationNode) -> tuple[Edge]:
    shape, dtype, _ = node.in_meta[0][0]
    return (Edge(node, 0, 0, shape, dtype),)
