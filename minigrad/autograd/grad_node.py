"""GradNode and Edge: the backward graph.

Every differentiable op call that needs a gradient creates one grad node
(``MulBackward0``, ``MmBackward0`` ...: the class is made per op and named as
PyTorch names it; Paddle calls the same node ``MulBackward0``). A node
knows:

- ``next_edges[slot][rank]``: one ``Edge`` per forward input (Paddle's
  ``bwd_out_meta_`` / ``GradSlotMeta``), leading to the node that receives that
  input's gradient, at that node's input position ``(edge.slot, edge.rank)``;
  ``edge.node is None`` where the input needs no gradient (stop gradient);
- ``in_meta[slot][rank]``: shape/dtype/device of each forward output, i.e.
  of each incoming gradient (``bwd_in_meta_``);
- ``wrappers``: TensorWrappers of the tensors its formula needs;
- ``attrs``: the op's attributes; ``hooks``: gradient hooks per input position.

``topo_nr`` is PyTorch's topological number (1 + the largest of the next
nodes'; AccumulationNodes are 0) and ``seq_nr`` the creation order.
"""

from __future__ import annotations

import itertools
import weakref
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from ..tensor import Tensor
from ..tracing import bus
from ..tracing.events import HookRun, NodeCreate
from ..tracing.preview import call_attrs
from .anomaly_mode import ANOMALY, copy_forward, record_forward
from .tensor_wrapper import SECOND_BACKWARD

if TYPE_CHECKING:  # pragma: no cover
    from ..ops.registry import OpDef
    from .tensor_wrapper import TensorWrapper

__all__ = ["Edge", "GradNode", "next_node_id", "RemovableHandle", "reserve_node_ids"]

_node_ids = itertools.count(1)
_seq_nrs = itertools.count(0)
_hook_ids = itertools.count(1)
#: ``Node.metadata`` dicts, kept while their node lives (a node has no slot for one it rarely gets).
_METADATA: "weakref.WeakKeyDictionary[GradNode, dict[str, Any]]" = weakref.WeakKeyDictionary()


def next_node_id() -> int:
    """A fresh node id (shared by GradNodes, AccumulationNodes and GeneralGrad copies)."""
    return next(_node_ids)


class Edge:
    """An output edge: gradient for one forward input goes to ``node`` at (slot, rank)."""

    __slots__ = ("node", "slot", "rank", "shape", "dtype")

    def __init__(self, node: "GradNode | None", slot: int, rank: int, shape: tuple[int, ...], dtype: Any = None) -> None:
        self.node = node
        self.slot = slot
        self.rank = rank
        self.shape = shape  # the forward input's shape: its gradient must have it
        self.dtype = dtype

    def __repr__(self) -> str:
        target = self.node.display_name if self.node is not None else None
        return f"Edge(next={target}, slot={self.slot}, rank={self.rank})"


class RemovableHandle:
    """Returned by ``register_hook``; ``.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "id")

    def __init__(self, hooks: list[Any], hook_id: int) -> None:
        self._hooks = hooks
        self.id = hook_id

    def remove(self) -> None:
        """Unregister the hook (a no-op if already removed)."""
        self._hooks[:] = [h for h in self._hooks if h[0] != self.id]


#: PyTorch's hand-written nodes, whose ``name()`` carries their namespace (``repr`` and a tensor's
#: ``grad_fn=<...>`` show the class name alone, in both frameworks).
_NAMESPACED = frozenset({"AccumulateGrad", "CopySlices", "Error"})


class GradNode:
    """Base class of all grad nodes. Subclasses are made per op by ``ops.registry``.

    Attributes:
        id: stable integer id (used in events and display names).
        next_edges: rows of Edges indexed by forward-input slot, then rank (tuples on
            nodes the dygraph layer builds: NOTE [ Lean graph data ] in node_creation.py).
        in_meta: ``(shape, dtype, device)`` per forward-output slot, then rank (shared).
        released: set when ``backward()`` without ``retain_graph`` ran this node.
    """

    __slots__ = (
        "id",
        "seq_nr",
        "topo_nr",
        "next_edges",
        "in_meta",
        "attrs",
        "wrappers",
        "hooks",
        "released",
        "extra",
        "origin",
        "__weakref__",
    )

    #: The op this node differentiates (set on per-op subclasses).
    opdef: ClassVar["OpDef | None"] = None
    op_name: ClassVar[str] = ""
    #: Paddle's name for the node (``MulBackward0``), shown where the mechanism is taught.
    paddle_name: ClassVar[str] = ""
    is_accumulation: ClassVar[bool] = False
    #: Whether the engine fills the missing incoming gradients with zeros before the node runs (a custom
    #: Function's ``ctx.set_materialize_grads(False)`` turns it off).
    materializes_grads: ClassVar[bool] = True
    #: The input slot PyTorch's overload of this node takes as a Scalar, not a Tensor (``x ** 2``'s exponent,
    #: ``1 - x``'s 1): a number minigrad wrapped as a tensor, left out of ``next_functions`` as PyTorch has
    #: no edge for it (``tracing/node_names.py``, ``SCALAR_SLOTS``).
    scalar_slot: ClassVar[int | None] = None

    def __init__(self, ids: tuple[int, int] | None = None, attrs: Any = None, next_edges: Any = (),
                 in_meta: Any = (), topo_nr: int = 0, wrappers: Any = ()) -> None:
        # ids: (id, seq_nr) taken before the edges were made (``reserve_node_ids``), or now.
        if ids is None:
            self.id = next(_node_ids)
            self.seq_nr = next(_seq_nrs)
        else:
            self.id, self.seq_nr = ids
        self.topo_nr = topo_nr
        self.next_edges: Any = next_edges
        self.in_meta: Any = in_meta
        self.attrs: dict[str, Any] = attrs if attrs is not None else {}
        self.wrappers: Any = wrappers
        self.hooks: dict[tuple[int, int], list[tuple[int, Callable[[Any], Any], str, int]]] | None = None
        self.released = False
        self.extra: Any = None
        #: ``train.py:12 in module Sequential.0 (Linear)``: where it was made (set only while recording).
        self.origin: str | None = None
        if ANOMALY.enabled:  # keep the forward traceback (autograd/anomaly_mode.py)
            record_forward(self)

    # -- identity ------------------------------------------------------------

    def name(self) -> str:
        """PyTorch's ``Node.name()``: the class name (``"MulBackward0"``), with the C++ namespace for the
        nodes PyTorch writes by hand (``"torch::autograd::AccumulateGrad"``, ``"...::CopySlices"``)."""
        cls = type(self).__name__
        return "torch::autograd::" + cls if cls in _NAMESPACED else cls

    @property
    def display_name(self) -> str:
        """``MulBackward0#3``: the name with the node's id, as viewers and errors show it."""
        return f"{type(self).__name__}#{self.id}"

    @property
    def next_functions(self) -> tuple[tuple["GradNode | None", int], ...]:
        """PyTorch-style ``((next node, input position), ...)`` in slot, rank order. Inputs the op
        never differentiates (a target, an index, a condition) are left out, as PyTorch leaves them
        out of its derivative formulas, and so is a number PyTorch's overload takes as a Scalar
        (``scalar_slot``); an input that could take a gradient but needs none is ``None``. A
        ``CopySlices`` shows minigrad's two inputs, the base's old history and the in-place op's node
        (lesson 9 grades that structure); PyTorch's wraps the op's node and lists its other inputs."""
        edges = self.next_edges
        return tuple((edges[slot][rank].node, edges[slot][rank].slot) for slot, rank in self._function_positions())

    def __repr__(self) -> str:
        # PyTorch's repr, as ``print(y.grad_fn)`` shows it; ``display_name`` carries the id.
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # -- hooks ---------------------------------------------------------------

    def add_hook(self, slot: int, rank: int, fn: Callable[[Any], Any], kind: str, tensor_id: int) -> RemovableHandle:
        """Register a gradient hook on incoming gradient (slot, rank)."""
        if self.hooks is None:
            self.hooks = {}
        hooks = self.hooks.setdefault((slot, rank), [])
        hook_id = next(_hook_ids)
        hooks.append((hook_id, fn, kind, tensor_id))
        return RemovableHandle(hooks, hook_id)

    def apply_gradient_hooks(self, grads: list[list[Any]]) -> list[list[Any]]:
        """Run hooks on the incoming gradients in registration order, chaining results
        (``ApplyGradientHooks``). As PyTorch's engine runs a node's tensor pre-hooks, then its
        retain-grad hooks (so ``.grad`` sees the final value), then its own pre-hooks: a module's
        backward hooks, which PyTorch registers on the node, run after the tensors' hooks."""
        assert self.hooks is not None
        rec = bus.recorder
        for key, hooks in self.hooks.items():
            if isinstance(key, str):  # the node's own hooks ("node_pre", "node_post"), run around the formula
                continue
            slot, rank = key
            if slot >= len(grads) or rank >= len(grads[slot]):
                continue
            g = grads[slot][rank]
            ordered = sorted(hooks, key=_hook_rank) if len(hooks) > 1 else hooks
            for _hid, fn, kind, tensor_id in ordered:
                if g is None:
                    break
                if rec is not None:
                    rec.emit(HookRun(target=tensor_id, hook_kind=kind))
                out = fn(g)
                if out is not None:
                    g = check_hook_result(out, g, fn)
            grads[slot][rank] = g
        return grads

    # -- PyTorch's Node hooks: on the whole node, around its formula ------------------------------------
    #
    # NOTE [ A node's own hooks ]
    #     Besides the hooks of tensors (kept per input position, run first: ``apply_gradient_hooks``), a
    #     node takes hooks of its own, PyTorch's ``Node.register_prehook`` and ``Node.register_hook``. When
    #     the node is popped from the ready queue the engine runs, in this order: its output tensors' hooks,
    #     ``retain_grad``'s (so ``y.grad`` is what the tensor hooks made), the node's pre-hooks (they see and
    #     may replace every incoming gradient at once, a tuple), the formula, then the node's post-hooks
    #     (they see the gradients it computed for its inputs - one per ``next_functions`` entry - and the ones
    #     it received, and may replace the first). An ``AccumulateGrad`` runs its leaf's hooks before its
    #     pre-hooks, and its post-hooks after writing ``.grad``, with no gradients of inputs. Each is a
    #     ``hook.run`` event whose target is the node (``hook_kind`` ``node_pre`` or ``node_post``).

    def register_prehook(self, fn: Callable[[tuple], Any]) -> RemovableHandle:
        """PyTorch's ``Node.register_prehook``: ``fn(grad_outputs)`` runs when the node is about to run - after
        the hooks of its output tensors and ``retain_grad``'s - with the gradients it received (a tuple, one per
        output of its forward op); a tuple it returns replaces them. NOTE [ A node's own hooks ]."""
        return self._add_node_hook("node_pre", fn)

    def register_hook(self, fn: Callable[[tuple, tuple], Any]) -> RemovableHandle:
        """PyTorch's ``Node.register_hook``: ``fn(grad_inputs, grad_outputs)`` runs once the node has computed
        the gradients of its inputs (``grad_inputs``, one per ``next_functions`` entry, None where none flows;
        empty for an ``AccumulateGrad``); a tuple it returns replaces them. NOTE [ A node's own hooks ]."""
        return self._add_node_hook("node_post", fn)

    def _add_node_hook(self, kind: str, fn: Any) -> RemovableHandle:
        if not callable(fn):
            raise TypeError(f"expected a callable hook, but got {type(fn).__name__}")
        if self.hooks is None:
            self.hooks = {}
        hooks = self.hooks.setdefault(kind, [])
        hook_id = next(_hook_ids)
        hooks.append((hook_id, fn, kind, self.id))
        return RemovableHandle(hooks, hook_id)

    @property
    def metadata(self) -> dict[str, Any]:
        """PyTorch's ``Node.metadata``: a dict of the program's own, kept as long as the node lives."""
        return _METADATA.setdefault(self, {})

    def run_prehooks(self, grads: list[list[Any]]) -> list[list[Any]]:
        """The node's pre-hooks on its incoming gradients (``grads`` by slot and rank), chained."""
        hooks = self.hooks.get("node_pre") if self.hooks else None
        if not hooks:
            return grads
        flat = tuple(g for row in grads for g in row)
        for _hid, fn, kind, _ in list(hooks):
            if bus.recorder is not None:
                bus.recorder.emit(HookRun(target=self.id, hook_kind=kind))
            out = fn(flat)
            if out is not None:
                flat = _checked_values(out, flat, fn, self)
        values = iter(flat)
        return [[next(values) for _ in row] for row in grads]

    def run_posthooks(self, grads_out: list[list[Any]], grads_in: list[list[Any]]) -> list[list[Any]]:
        """The node's hooks on the gradients it computed (``grads_out``, by input slot and rank) and received."""
        hooks = self.hooks.get("node_post") if self.hooks else None
        if not hooks:
            return grads_out
        positions = [] if self.is_accumulation else self._function_positions()
        flat = tuple(grads_out[slot][rank] for slot, rank in positions)
        # (an AccumulateGrad received what its leaf's hooks made of its gradient: what it returns)
        received = tuple(g for row in (grads_out if self.is_accumulation else grads_in) for g in row)
        for _hid, fn, kind, _ in list(hooks):
            if bus.recorder is not None:
                bus.recorder.emit(HookRun(target=self.id, hook_kind=kind))
            out = fn(flat, received)
            if out is not None:
                flat = _checked_values(out, flat, fn, self)
        for (slot, rank), g in zip(positions, flat):
            grads_out[slot][rank] = g
        return grads_out

    def _function_positions(self) -> list[tuple[int, int]]:
        """The (slot, rank) of each ``next_functions`` entry, in its order."""
        specs = self.opdef.inputs if self.opdef is not None else ()
        return [(slot, rank) for slot, edges in enumerate(self.next_edges)
                if (slot >= len(specs) or specs[slot].differentiable) and slot != self.scalar_slot
                for rank in range(len(edges))]

    # -- life cycle ----------------------------------------------------------

    def release(self) -> None:
        """Free the saved tensors (``ClearTensorWrappers``); the node can't run again.

        The node lets go of its wrappers rather than clearing them: a wrapper may be
        shared with other nodes (NOTE [ One wrapper per saved leaf ] in
        ``tensor_wrapper.py``), and an unshared one is freed with the reference."""
        self.wrappers = ()
        self.released = True

    def copy(self) -> "GradNode":
        """A shallow copy with a new id (GeneralGrad's ``Copy()``): same wrappers, attrs and
        hooks, its own edge lists (edges are re-pointed by the caller)."""
        cls = type(self)
        other = cls.__new__(cls)
        other.id = next(_node_ids)
        other.seq_nr = self.seq_nr
        other.topo_nr = self.topo_nr
        other.next_edges = [[Edge(e.node, e.slot, e.rank, e.shape, e.dtype) for e in edges] for edges in self.next_edges]
        other.in_meta = self.in_meta
        other.attrs = self.attrs
        other.wrappers = self.wrappers
        other.hooks = {k: list(v) for k, v in self.hooks.items()} if self.hooks else None
        other.released = self.released
        other.extra = self.extra
        other.origin = self.origin
        if ANOMALY.enabled:  # the copy's error shows the user's node's forward traceback
            copy_forward(self, other)
        return other


def reserve_node_ids() -> tuple[int, int]:
    """``(id, seq_nr)`` for a node about to be made: taken before its edges, which may
    create AccumulationNodes, so a node is numbered before the nodes its creation makes
    (as when PyTorch and Paddle construct the node, then collect its next edges)."""
    return next(_node_ids), next(_seq_nrs)


def released_error(node: "GradNode") -> RuntimeError:
    """The error for a second backward through a released node (docs/architecture.md, Engine rules, rule 3)."""
    # PyTorch's words (``SAVED_VARIABLE_RELEASED``); the node is ``exc.released_node``, for anomaly mode and the viewers.
    exc = RuntimeError(SECOND_BACKWARD)
    exc.released_node = node  # type: ignore[attr-defined]  (anomaly mode warns with its forward traceback)
    return exc


def _checked_values(out: Any, values: tuple, fn: Any, node: "GradNode") -> tuple:
    """A node hook's replacement: a tuple (or list) as long as ``values``, each a gradient of the replaced one's
    shape, dtype and device (None where the gradient is dropped)."""
    name = getattr(fn, "__name__", None) or type(fn).__name__
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"hook '{name}' on {node.display_name} returned {type(out).__name__}; a node hook must "
                        "return a tuple of gradients or None")
    if len(out) != len(values):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(out)}, but expected "
                           f"{len(values)})")
    return tuple(new if new is None or old is None else check_hook_result(new, old, fn)
                 for new, old in zip(out, values))


#: the order of a slot's hooks by kind (the rest keep their registration order among themselves)
_HOOK_RANKS = {"retain_grad": 1, "module_backward_pre": 2, "module_backward": 2}


def _hook_rank(hook: tuple[Any, ...]) -> int:
    return _HOOK_RANKS.get(hook[2], 0)


def check_hook_result(out: Any, g: Any, fn: Any = None) -> Any:
    """A hook's replacement gradient must be a Tensor of the gradient's type (dtype and device) and size, as
    PyTorch's ``check_single_result`` words it (docs/architecture.md, bad input).

    PyTorch refuses a hook that changes the type: an int gradient would turn a
    float leaf's ``.grad`` into integers and every optimizer step after it.
    The engine adds the grad node and op to any error raised while a node runs.
    """
    name = getattr(fn, "__name__", None) or type(fn).__name__  # (PyTorch's hook_name: the function's __name__)
    if not isinstance(out, Tensor):
        raise TypeError(f"expected Variable, but hook returned {type(out).__name__!r}")
    if out.dtype != g.dtype or out.device != g.device:
        raise RuntimeError(f"hook {name!r} has changed the type of value (was {g.type()} got {out.type()})")
    if out.shape != g.shape:
        raise RuntimeError(f"hook {name!r} has changed the size of value (was {g.shape!r} got {out.shape!r})")
    return out


def announce_node(node: Any, rec: Any = None, copy_of: int | None = None) -> None:
    """Emit ``node.create`` for a grad node (used at creation and by GeneralGrad copies) to ``rec``,
    the active recorder when the caller holds it (else ``bus.recorder`` is read)."""
    if rec is None:
        rec = bus.recorder
        if rec is None:
            return
    if node.is_accumulation:
        node.announce(copy_of=copy_of)
        return
    saved = []
    for w in node.wrappers:
        if w is not None:
            saved.append(w.tensor_id)
    ev = NodeCreate.new(
        node=node.id,
        name=f"{type(node).__name__}#{node.id}",  # ``display_name``, without the property call
        op=node.op_name,
        topo_nr=node.topo_nr,
        seq_nr=node.seq_nr,
        is_accumulation=False,
        tensor=None,
        copy_of=copy_of,
        edges=edge_dicts(node.next_edges),
        saved=saved,
        attrs=call_attrs(node.opdef, node.attrs),
    )
    rec.emit(ev)
    if copy_of is None and ev.source is not None:  # the recorder stamped where it came from (tracing/provenance.py)
        node.origin = ev.source + (f" in module {ev.module}" if ev.module else "")


def edge_dicts(next_edges: Any) -> list[dict[str, Any]]:
    """``node.create``'s ``edges``: one ``{slot, rank, next, next_slot, next_rank}`` per edge, slot then rank order."""
    edges = []
    slot = 0
    for row in next_edges:
        rank = 0
        for e in row:  # most rows hold one edge: counters, not ``enumerate``
            nxt = e.node
            edges.append({"slot": slot, "rank": rank, "next": nxt.id if nxt is not None else None,
                          "next_slot": e.slot, "next_rank": e.rank})
            rank += 1
        slot += 1
    return edges
