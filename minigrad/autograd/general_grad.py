"""GeneralGrad: ``mg.grad()`` on a pruned copy of the backward graph (PaddlePaddle's eager ``GeneralGrad``).

``mg.grad(outputs, inputs, ...)`` shares ``run_backward`` with ``backward()``;
what differs is prepared here, one method per step of Paddle's
``GeneralGrad`` (named after it, in snake_case):

1. ``copy_grad_node`` / ``copy_backward_graph`` (``CopyGradNode``,
   ``CopyBackwardGraph``): copy every node reachable from the outputs. A copy
   carries the original's saved tensors and hooks, but owns its edges, so the
   user's graph is never changed or released by ``grad()``.
2. ``get_target_nodes_info`` (``GetTargetNodesInfo``): the copied nodes (and
   output positions) of ``inputs`` and of ``no_grad_vars``.
3. ``purify_potential_startup_nodes`` (``PurifyPotentialStartUpNodes``): an
   output that is also an input is not a startup node by itself.
4. ``get_graph_info_between_targets`` (``GetGraphInfoBetweenTargets``): the
   depending-nodes map, node -> the nodes whose edges lead into it.
5. ``update_graph_info`` (``UpdateGraphInfo``): walk *up* from the targets:
   everything met is **needed**; nodes with nothing above them are
   **startup** nodes; targets with no other target below them are **ending**.
6. ``modify_ready_queue`` (``ModifyReadyQueue``): only startup nodes start.
7. ``modify_backward_graph`` (``ModifyBackwardGraph``): cut the edges into
   ``no_grad_vars`` (as if detached), and ``set_node_to_accumulation_node``
   (``SetNodeToAccumulationNode``): an ending target becomes a fresh
   AccumulationNode that carries the target's hooks, so its own formula (and
   everything behind it) never runs. When that happens a second
   ``general_grad.update`` gives the changed ending and needed sets.
8. ``set_result_for_input_target_var`` (``SetResultForInputTargetVar``):
   targets that only receive their seed take it as their result.
9. ``register_fetch_grad_hook`` (``RegisterFetchGradHook``): targets on the
   path to other targets run; a hook registered *after* the user's hooks
   fetches their gradient.
10. During the run: only needed nodes are pushed (``is_needed``,
    ``IsNeededNodes``); ending nodes store what they produce
    (``set_result_for_ending_node``, ``SetResultForEnddingNodes``).
11. ``results`` (``GetResults``): one entry per input, ``requires_grad ==
    create_graph``; an unreached input is ``None`` with ``allow_unused=True``
    and a ``RuntimeError`` otherwise.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor(3.0, requires_grad=True)
    >>> y = 2 * x
    >>> z = y * x + x
    >>> mg.grad(z, x)[0].item(), mg.grad(z, x, no_grad_vars=[y])[0].item()
    (13.0, 7.0)

NOTE [ Where minigrad's GeneralGrad differs from Paddle's ]
    Paddle's structure is kept; these cases it gets wrong are fixed:

    - Targets are (node, slot, rank) positions, not whole nodes, so two
      outputs of one node can both be inputs or no_grad_vars.
    - An input that is also an output keeps its seed: when it is an ending
      target, its seed moves into the AccumulationNode that replaces it, so
      ``grad([y, z], [y])`` with ``z = y * y`` is ``1 + 2y`` (Paddle drops it
      and returns ``2y``). When nothing can flow into it, its result is the
      seed, passed through its hooks (Paddle does this only when the whole
      ready queue is empty, and skips the hooks).
    - A startup node that is itself a target on the path to another target
      still runs (Paddle purifies it away and loses the other target).
    - After the cut, a start node that holds a seed and is needed but no
      longer fed by anything is added to the ready queue.
    - Inputs that the outputs do not reach are simply unused (Paddle keeps
      the original node as a target, which can empty the ready queue).
    - ``no_grad_vars`` that do not require grad, or are not in the graph, cut
      nothing (Paddle raises a fatal error).
    - Copies get their own TensorWrapper objects (sharing the saved arrays),
      so releasing a copy never frees the user's graph; retain-grad hooks are
      not copied, so ``grad()`` never writes any ``.grad``.
    - Sets are kept in insertion order, so events and the ready queue are
      deterministic (Paddle iterates ``unordered_set``\\ s).
"""

from __future__ import annotations

import copy as _copy
from collections import deque
from typing import TYPE_CHECKING, Any, Sequence

from ..tracing import bus
from ..tracing.events import (
    BufferAdd,
    GeneralGradCopy,
    GeneralGradPrune,
    GeneralGradResult,
    GeneralGradTargets,
    GeneralGradUpdate,
)
from ..autograd_meta import AutogradMeta
from ..tensor import Tensor
from .accumulation import AccumulationNode
from .grad_node import announce_node, released_error
from .grad_tensor_holder import GradTensorHolder
from .gradient_edge import GradientEdge, edge_position, edge_tensor

if TYPE_CHECKING:  # pragma: no cover
    from .grad_node import GradNode

__all__ = ["GeneralGrad"]


class _Target:
    """One tensor of ``inputs`` or ``no_grad_vars``: where its gradient arrives."""

    __slots__ = ("index", "tensor_id", "node", "slot", "rank")

    def __init__(self, index: int, tensor_id: int, node: "GradNode | None", slot: int, rank: int) -> None:
        self.index = index
        self.tensor_id = tensor_id
        self.node = node  # the copied node (None: not in the copied graph)
        self.slot = slot
        self.rank = rank


class GeneralGrad:
    """State of one ``grad()`` call (Paddle keeps one global instance and ``Clear()``\\ s it).

    Args:
        inputs: the tensors whose gradients are returned.
        no_grad_vars: tensors whose incoming edges are cut.
        create_graph: results keep their history (``requires_grad == create_graph``).
        allow_unused: unreached inputs give ``None`` instead of an error.
    """

    def __init__(
        self,
        inputs: Sequence["Tensor"],
        no_grad_vars: Sequence["Tensor"],
        create_graph: bool,
        allow_unused: bool,
    ) -> None:
        self.inputs = list(inputs)
        self.no_grad_vars = list(no_grad_vars)
        self.create_graph = create_graph
        self.allow_unused = allow_unused
        # Ordered "sets" are dicts with None values (deterministic iteration).
        self.orig_to_copied: dict[GradNode, GradNode] = {}
        self.copied_to_orig: dict[GradNode, GradNode] = {}
        self.potential_startup_nodes: dict[GradNode, None] = {}
        self.purified: dict[GradNode, None] = {}
        self.input_targets: list[_Target] = []
        self.no_grad_targets: list[_Target] = []
        self.depending_nodes: dict[GradNode, dict[GradNode, None]] = {}
        self.needed: dict[GradNode, None] = {}
        self.startup: dict[GradNode, None] = {}
        self.ending: dict[GradNode, None] = {}
        self.on_path: dict[GradNode, None] = {}
        #: ending AccumulationNode -> indices of the inputs whose result it produces
        self.ending_results: dict[GradNode, list[int]] = {}
        self.new_acc_nodes: list[tuple[AccumulationNode, GradNode]] = []
        self.results_map: dict[int, Tensor] = {}
        self.queue: deque | None = None

    # -- 1. copies ------------------------------------------------------------

    def copy_grad_node(self, orig: "GradNode") -> "GradNode":
        """``CopyGradNode``: the copy of ``orig`` (made once; later calls return it)."""
        copied = self.orig_to_copied.get(orig)
        if copied is not None:
            return copied
        copied = orig.copy()
        # Own wrapper objects over the same saved arrays: releasing the copy
        # (grad() without retain_graph) must not free the user's graph.
        copied.wrappers = [_copy.copy(w) if w is not None else None for w in orig.wrappers]
        if copied.hooks:
            # grad() writes no .grad: retain-grad hooks stay on the original only.
            hooks = {k: [h for h in v if h[2] != "retain_grad"] for k, v in copied.hooks.items()}
            copied.hooks = {k: v for k, v in hooks.items() if v} or None
        self.orig_to_copied[orig] = copied
        self.copied_to_orig[copied] = orig
        return copied

    def copy_of_start(self, node: "GradNode") -> "GradNode":
        """Copy an output's grad node and remember it as a potential startup node."""
        copied = self.copy_grad_node(node)
        self.potential_startup_nodes[copied] = None
        return copied

    def copy_backward_graph(self, orig_queue: Sequence["GradNode"]) -> None:
        """``CopyBackwardGraph``: breadth-first from the outputs' nodes, copy every
        reachable node and point each copied edge at the copy of its next node."""
        work = deque(orig_queue)
        visited: set[GradNode] = set()
        while work:
            orig = work.popleft()
            if orig in visited:
                continue
            visited.add(orig)
            copied = self.orig_to_copied[orig]
            for orig_row, copied_row in zip(orig.next_edges, copied.next_edges):
                for orig_edge, copied_edge in zip(orig_row, copied_row):
                    nxt = orig_edge.node
                    if nxt is None:
                        continue
                    copied_edge.node = self.copy_grad_node(nxt)
                    work.append(nxt)
        rec = bus.recorder
        if rec is not None:
            rec.emit(GeneralGradCopy(mapping={o.id: c.id for o, c in self.orig_to_copied.items()}))

    # -- 2. targets -----------------------------------------------------------

    def get_target_nodes_info(self, tensors: Sequence["Tensor"], is_no_grad_vars: bool) -> None:
        """``GetTargetNodesInfo``: where each tensor's gradient arrives in the copied graph.

        A leaf's gradient arrives at its AccumulationNode, a non-leaf's at its
        grad node's (out_slot, out_rank), a ``GradientEdge``'s at the position it
        names. A tensor outside the copied graph
        gets ``node=None`` (an unused input; a no_grad var that cuts nothing).
        """
        out = self.no_grad_targets if is_no_grad_vars else self.input_targets
        for i, t in enumerate(tensors):
            if isinstance(t, GradientEdge):  # already a position (autograd/gradient_edge.py)
                node, slot, rank = edge_position(t, "grad()")
                out.append(_Target(i, edge_tensor(t)[0], self.orig_to_copied.get(node), slot, rank))
                continue
            meta = t._meta
            node: GradNode | None = None
            slot = rank = 0
            if meta is not None:
                if meta.grad_node is not None:
                    node, slot, rank = meta.grad_node, meta.out_slot, meta.out_rank
                elif meta.acc_node is not None:
                    node = meta.acc_node()
            copied = self.orig_to_copied.get(node) if node is not None else None
            out.append(_Target(i, t._id, copied, slot, rank))

    def _input_target_nodes(self) -> dict["GradNode", None]:
        return {t.node: None for t in self.input_targets if t.node is not None}

    # -- 3. purify --------------------------------------------------------------

    def purify_potential_startup_nodes(self) -> None:
        """``PurifyPotentialStartUpNodes``: an output that is also an input does not
        start the pass by itself (``update_graph_info`` may put it back if it
        lies on the path to another input)."""
        for node in self._input_target_nodes():
            if node in self.potential_startup_nodes:
                del self.potential_startup_nodes[node]
                self.purified[node] = None

    # -- 4. depending nodes -----------------------------------------------------

    def get_graph_info_between_targets(self, init_queue: Sequence["GradNode"]) -> None:
        """``GetGraphInfoBetweenTargets``: breadth-first from the start nodes,
        record for every node the nodes whose edges lead into it."""
        # BEGIN LESSON 3 TASK 3.1: the depending-nodes map
        work = deque(init_queue)
        visited: set[GradNode] = set()
        while work:
            node = work.popleft()
            if node in visited:
                continue
            visited.add(node)
            for row in node.next_edges:
                for edge in row:
                    nxt = edge.node
                    if nxt is None:
                        continue
                    self.depending_nodes.setdefault(nxt, {})[node] = None
                    work.append(nxt)
        # END LESSON 3 TASK 3.1

    # -- 5. needed / startup / ending ---------------------------------------------

    def update_graph_info(self) -> None:
        """``UpdateGraphInfo``: walk up from the input targets through the
        depending-nodes map. Every node met is needed; a node with nothing
        above it is a startup node; a target met above another target is on
        the path (it must run), the other targets are ending nodes."""
        # BEGIN LESSON 3 TASK 3.2: needed, startup and ending nodes
        targets = self._input_target_nodes()
        work = deque(targets)
        self.needed.update(targets)
        visited: set[GradNode] = set()
        while work:
            node = work.popleft()
            if node in visited:
                continue
            visited.add(node)
            preds = self.depending_nodes.get(node)
            if preds:
                for pre in preds:
                    work.append(pre)
                    self.needed[pre] = None
                    if pre in targets:
                        self.on_path[pre] = None
            else:
                self.startup[node] = None
                self.needed[node] = None
        for node in targets:
            if node not in self.on_path:
                self.ending[node] = None
        self._emit_update()
        # END LESSON 3 TASK 3.2

    def _emit_update(self) -> None:
        rec = bus.recorder
        if rec is not None:
            rec.emit(
                GeneralGradUpdate(
                    startup=[n.id for n in self.startup],
                    ending=[n.id for n in self.ending],
                    needed=[n.id for n in self.needed],
                )
            )

    # -- 6. ready queue -----------------------------------------------------------

    def modify_ready_queue(self, queue: deque) -> None:
        """``ModifyReadyQueue``: keep (in place, in their order) the start nodes that
        are startup nodes; a purified target that is a startup node on the path
        to another target is kept too (it must run to pass its seed on)."""
        keep = [
            n for n in queue
            if n in self.startup and (n in self.potential_startup_nodes or (n in self.purified and n in self.on_path))
        ]
        queue.clear()
        queue.extend(keep)

    # -- 7. cut no_grad_vars, ending nodes -> AccumulationNodes ------------------

    def modify_backward_graph(self, queue: deque, buffers: dict["GradNode", GradTensorHolder]) -> set["GradNode"]:
        """``ModifyBackwardGraph``: clear every edge into a ``no_grad_vars`` position
        (as if the tensor were detached), then turn the ending targets that the
        ready queue reaches into AccumulationNodes.

        The cut is made in every copied node before any ending node is
        replaced, so an edge is never redirected before it is checked. A start
        node that holds a seed and is needed, but that nothing feeds any more
        (its feeders were cut), joins the ready queue. Returns the nodes the
        ready queue reaches in the pruned graph.
        """
        cut_at = {(t.node, t.slot, t.rank) for t in self.no_grad_targets if t.node is not None}
        pruned: list[dict[str, Any]] = []
        if cut_at:
            for node in self.orig_to_copied.values():
                for slot, row in enumerate(node.next_edges):
                    for rank, edge in enumerate(row):
                        nxt = edge.node
                        if nxt is not None and (nxt, edge.slot, edge.rank) in cut_at:
                            pruned.append({"node": node.id, "slot": slot, "rank": rank, "next": nxt.id})
                            edge.node = None
        rec = bus.recorder
        if rec is not None:
            rec.emit(GeneralGradPrune(edges=pruned))
        reached = self._reach(queue)
        for node in list(buffers):
            if node in self.needed and node not in self.ending and node not in reached:
                queue.append(node)
                reached.update(self._reach([node]))
        made: list[AccumulationNode] = []
        for node in list(self.ending):
            if node in reached:
                made += self.set_node_to_accumulation_node(node, buffers)
        reached.update(dict.fromkeys(made))
        if made and rec is not None:
            self._emit_update()  # the sets changed: replaced nodes out, AccumulationNodes in
        return set(reached)

    def _reach(self, starts: Sequence["GradNode"]) -> dict["GradNode", None]:
        """Nodes reachable from ``starts`` (not looking behind ending nodes)."""
        reached: dict[GradNode, None] = {}
        work = deque(starts)
        while work:
            node = work.popleft()
            if node in reached:
                continue
            reached[node] = None
            if node in self.ending:
                continue
            for row in node.next_edges:
                for edge in row:
                    if edge.node is not None:
                        work.append(edge.node)
        return reached

    def set_node_to_accumulation_node(
        self, node: "GradNode", buffers: dict["GradNode", GradTensorHolder]
    ) -> list[AccumulationNode]:
        """``SetNodeToAccumulationNode``: replace an ending target by a fresh
        AccumulationNode per target position: the edges of the nodes above it
        are pointed at it, it carries the target's hooks, and it takes the
        seed the target held as an output. Under ``grad()`` it writes no
        ``.grad``; it only hands its gradient to ``set_result_for_ending_node``."""
        if node.is_accumulation:
            self.ending_results.setdefault(node, []).extend(
                t.index for t in self.input_targets if t.node is node
            )
            return []
        made: list[AccumulationNode] = []
        rec = bus.recorder
        by_position: dict[tuple[int, int], AccumulationNode] = {}
        for t in self.input_targets:
            if t.node is not node:
                continue
            acc = by_position.get((t.slot, t.rank))
            if acc is None:
                acc = AccumulationNode(AutogradMeta(t.tensor_id), node.in_meta[t.slot][t.rank])
                hooks = node.hooks.get((t.slot, t.rank)) if node.hooks else None
                if hooks:
                    acc.hooks = {(0, 0): list(hooks)}
                for pre in self.depending_nodes.get(node, ()):
                    for row in pre.next_edges:
                        for edge in row:
                            if edge.node is node and edge.slot == t.slot and edge.rank == t.rank:
                                edge.node, edge.slot, edge.rank = acc, 0, 0
                holder = buffers.get(node)
                seed = holder.buffers[t.slot][t.rank] if holder is not None else None
                if seed is not None:
                    buffers[acc] = GradTensorHolder(acc.in_meta, 0, 0, seed)
                    holder.buffers[t.slot][t.rank] = None
                    if rec is not None:
                        rec.emit(BufferAdd(node=acc.id, slot=0, rank=0, source=None, value=rec.preview(seed._data)))
                by_position[(t.slot, t.rank)] = acc
                self.needed[acc] = None
                self.ending[acc] = None
                self.new_acc_nodes.append((acc, node))
                made.append(acc)
            self.ending_results.setdefault(acc, []).append(t.index)
        # The replaced node never runs (edges into its other outputs still count down).
        self.needed.pop(node, None)
        self.ending.pop(node, None)
        return made

    # -- 8. / 9. results that need no run, fetch hooks -------------------------------

    def set_result_for_input_target_var(self, buffers: dict["GradNode", GradTensorHolder], reached: set["GradNode"]) -> None:
        """``SetResultForInputTargetVar``: an ending target that nothing can feed
        (no startup node reaches it) gets its seed as its result, through its hooks."""
        for t in self.input_targets:
            node = t.node
            if node is None or node in reached or node not in self.ending:
                continue
            holder = buffers.get(node)
            g = holder.buffers[t.slot][t.rank] if holder is not None else None
            if g is not None:
                self.results_map[t.index] = _apply_target_hooks(node, t.slot, t.rank, g)

    def register_fetch_grad_hook(self) -> None:
        """``RegisterFetchGradHook``: a target on the path runs as usual; a hook
        added after the user's hooks stores the gradient it receives."""
        results_map = self.results_map  # not ``self``: no cycle through the copies' hooks
        for t in self.input_targets:
            node = t.node
            if node is None or node not in self.on_path:
                continue

            def fetch(g: "Tensor", index: int = t.index) -> None:
                results_map[index] = g

            node.add_hook(t.slot, t.rank, fetch, "fetch_grad", t.tensor_id)

    # -- the whole preparation ------------------------------------------------------

    def prepare(self, orig_queue: Sequence["GradNode"], queue: deque, buffers: dict["GradNode", GradTensorHolder]) -> None:
        """``PreparedForGeneralGrad``: steps 1-9 above; ``queue`` is changed in place."""

        self.queue = queue
        self.copy_backward_graph(orig_queue)
        self.get_target_nodes_info(self.no_grad_vars, True)
        self.get_target_nodes_info(self.inputs, False)
        rec = bus.recorder
        if rec is not None:
            rec.emit(
                GeneralGradTargets(
                    inputs=[t.node.id for t in self.input_targets if t.node is not None],
                    no_grad=[t.node.id for t in self.no_grad_targets if t.node is not None],
                )
            )
        self.purify_potential_startup_nodes()
        self.get_graph_info_between_targets(list(queue))
        self.update_graph_info()
        self.modify_ready_queue(queue)
        reached = self.modify_backward_graph(queue, buffers)
        self.set_result_for_input_target_var(buffers, reached)
        self.register_fetch_grad_hook()
        if rec is not None:
            # Announce the copies as they will run: pruned, ending nodes replaced.
            for orig, copied in self.orig_to_copied.items():
                announce_node(copied, rec, copy_of=orig.id)
            for acc, replaced in self.new_acc_nodes:
                announce_node(acc, rec, copy_of=self.copied_to_orig[replaced].id)

    # -- during the run -------------------------------------------------------------

    def check_released(self, in_degree: dict["GradNode", int]) -> None:
        """Raise the engine's released-node error for a needed node whose original
        was released by an earlier ``backward()`` (nodes that won't run don't matter)."""

        nodes = list(self.queue or ()) + list(in_degree)
        for node in nodes:
            if node in self.needed and node.released and not node.is_accumulation:
                raise released_error(self.copied_to_orig.get(node, node))

    def is_needed(self, node: "GradNode") -> bool:
        """``IsNeededNodes``: only nodes on a path from the outputs to the inputs run."""
        return node in self.needed

    def set_result_for_ending_node(self, node: "GradNode", grads_out: list[list[Any]]) -> None:
        """``SetResultForEnddingNodes``: an ending AccumulationNode's output is a result."""
        indices = self.ending_results.get(node)
        if indices:
            for i in indices:
                self.results_map[i] = grads_out[0][0]

    def results(self) -> list["Tensor | None"]:
        """``GetResults``: one gradient per input (``requires_grad == create_graph``)."""

        rec = bus.recorder
        out: list[Tensor | None] = []
        missing: list[int] = []
        for i, t in enumerate(self.inputs):
            g = self.results_map.get(i)
            if g is not None:
                if self.create_graph:
                    if g._meta is None:
                        # A gradient with no history (e.g. of a linear function) is
                        # made a fresh leaf that requires grad, as Paddle's
                        # SetStopGradient(!create_graph) does; never the user's tensor.
                        g = Tensor._make(g._data, g._dtype, g._device, g._layout)
                        g.requires_grad = True
                elif g._meta is not None:
                    g = g.detach()
            else:
                missing.append(i)
            if rec is not None:
                rec.emit(GeneralGradResult(input=_input_id(t), value=rec.preview(g._data) if g is not None else None))
            out.append(g)
        if missing and not self.allow_unused:
            i = missing[0]
            t = self.inputs[i]
            name = edge_tensor(t)[1] if isinstance(t, GradientEdge) else t._name or f"t{t._id}"
            raise RuntimeError(  # PyTorch's words, then which tensor
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. Set "
                f"allow_unused=True if this is the desired behavior.\n(grad(): input {i}, '{name}', does not appear "
                f"in the backward graph of the outputs, or every path to it was cut by no_grad_vars)"
            )
        return out


def _input_id(t: "Tensor | GradientEdge") -> int:
    """The tensor id a result names: the input's, or that of the tensor an edge was taken from."""
    return edge_tensor(t)[0] if isinstance(t, GradientEdge) else t._id


def _apply_target_hooks(node: "GradNode", slot: int, rank: int, g: "Tensor") -> "Tensor":
    """Run the hooks a target's gradient would meet at ``node`` (slot, rank)."""
    if node.hooks:
        grads: list[list[Any]] = [[None] * len(r) for r in node.in_meta] or [[None]]
        grads[slot][rank] = g
        g = node.apply_gradient_hooks(grads)[slot][rank]
    if node.is_accumulation:
        g = node.run([[g]], False, True)[0][0]  # type: ignore[attr-defined]  # leaf hooks; no .grad write
    return g
