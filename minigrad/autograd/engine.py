"""The backward engine: ``run_backward`` (PaddlePaddle's eager backward, ``RunBackward``).

``Tensor.backward``, ``mg.autograd.backward`` and ``mg.grad`` all end here.

Preparation:
    For each output tensor, take its grad node (for ``grad()``: a GeneralGrad
    copy of it) and give it a GradTensorHolder holding the seed gradient
    (``grad_tensors[i]``, or ones for a one-element output); push the node on
    the ready queue. Then ``get_in_degree_map`` walks the graph breadth-first
    from the queue and counts, for every node, how many edges lead into it:
    the number of gradients it must still receive.

Execution:
    While the queue is not empty, look at its front node. If the queue holds
    more than one node and the front node's in-degree is not 0, it is not
    ready: pop it and move on (it is pushed again when its count reaches 0).
    Otherwise pop and run it with its buffers; without ``retain_graph``
    release it (free its TensorWrappers). For each output edge, in slot then
    rank order: add the gradient to the next node's buffer, decrement its
    in-degree, and when that reaches 0 push it - AccumulationNodes to the
    **front** (leaf gradients are written as soon as they are complete),
    other nodes to the back.

NOTE [ Where minigrad differs from Paddle's RunBackward ]
    - A start node still waiting in the queue is not pushed a second time
      when its count reaches 0 (``backward([z, y])`` with ``z = f(y)`` would
      otherwise run ``y``'s node twice); it runs once, when popped ready.
    - An edge whose gradient is missing still decrements the in-degree; the
      next node's empty buffer positions are filled with zeros when it runs
      (Paddle skips the decrement, which can strand a node).
    - Released nodes are detected before anything runs, so a second backward
      through a freed graph raises without writing any ``.grad``.
    - For ``grad()`` the ``queue.push`` events of the start nodes are emitted
      after GeneralGrad has restricted the ready queue (``ModifyReadyQueue``),
      so a replayed queue never shows start nodes that will not run. An
      error raised by a copied node names the user's node it was copied
      from, and ``backward.end`` is emitted before ``grad()``'s unused-input
      error, so the traced pass is complete.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..devices import move_array
from ..tensor import Tensor
from ..tracing import bus
from ..tracing.events import (
    BackwardBegin,
    BackwardEnd,
    BackwardInDegree,
    BufferAdd,
    InDegreeUpdate,
    NodeRun,
    QueuePop,
    QueuePush,
    QueueSkip,
    WrappersClear,
)
from . import hooks as _hooks
from .accumulation import BACKWARD_PASS, accumulation_node_for
from .general_grad import GeneralGrad
from .grad_node import GradNode, released_error
from .grad_mode import GRAD_MODE
from .grad_tensor_holder import GradTensorHolder


__all__ = ["run_backward", "get_in_degree_map", "BackwardRun", "current_run"]


class BackwardRun:
    """The engine's live state for one ``run_backward`` (exposed while recording,
    so tests can compare it with the replayed states)."""

    __slots__ = ("queue", "in_degree", "buffers", "current", "mode")

    def __init__(self, queue: deque, in_degree: dict, buffers: dict, mode: str) -> None:
        self.queue = queue
        self.in_degree = in_degree
        self.buffers = buffers
        self.current: GradNode | None = None
        self.mode = mode


#: The run in progress while a recorder is active (``None`` otherwise).
current_run: BackwardRun | None = None


def get_in_degree_map(queue: Sequence["GradNode"], check_released: bool = True) -> dict["GradNode", int]:
    """Count the edges into every node reachable from ``queue`` (breadth-first, each node once)."""
    # BEGIN LESSON 2 TASK 2.1: the in-degree map
    in_degree: dict[GradNode, int] = {}
    visited: set[GradNode] = set()
    work = deque(queue)
    while work:
        node = work.popleft()
        if node in visited:
            continue
        visited.add(node)
        if check_released and node.released:
            raise released_error(node)
        for row in node.next_edges:
            for edge in row:
                nxt = edge.node
                if nxt is None:
                    continue
                in_degree[nxt] = in_degree.get(nxt, 0) + 1
                work.append(nxt)
    return in_degree
    # END LESSON 2 TASK 2.1


def _seed_gradient(i: int, t: "Tensor", g: "Tensor | None") -> "Tensor":
    """``CopyValueFromTensor``: the seed for output ``i`` (detached from the caller's tensor), checked."""
    if g is None:
        if t._data.size != 1:
            raise RuntimeError(
                f"grad can be implicitly created only for scalar outputs: output {i} has shape "
                f"{tuple(t.shape)}; pass a gradient (e.g. y.backward(mg.ones_like(y)))"
            )
        xp_ones = np.ones(t._data.shape, dtype=t._dtype.np)
        data = xp_ones if t._device == "cpu" else _to_device(xp_ones, t._device)
        return Tensor._make(data, t._dtype, t._device, t._layout)
    if not isinstance(g, Tensor):
        raise TypeError(f"gradient {i} must be a Tensor or None, but got {type(g).__name__}")
    if g.shape != t.shape:
        raise RuntimeError(
            f"mismatch in shape: grad_output[{i}] has shape {tuple(g.shape)} and output[{i}] has shape {tuple(t.shape)}"
        )
    if g._device != t._device:
        raise RuntimeError(f"gradient {i} is on device '{g._device}' but output {i} is on '{t._device}'")
    if GRAD_MODE.enabled and g._meta is not None:
        return g  # create_graph: keep the seed's own history
    # Detached, not copied: the engine never writes into a gradient, and ``.grad``
    # copies what it does not own (NOTE [ The first .grad without a copy ]).
    return Tensor._make(g._data, g._dtype, g._device, g._layout)


def _to_device(array: Any, device: str) -> Any:
    return move_array(array, "cpu", device)


def _node_error(node: "GradNode", exc: BaseException) -> BaseException:
    """Re-raise errors from a node's formula naming the node and its op (docs/architecture.md, bad input)."""
    where = f"{node.display_name} (backward of '{node.op_name}')"
    msg = str(exc)
    if where in msg:
        return exc
    if node.origin is not None:  # recorded: say where the node was made (PyTorch's anomaly mode tells the same)
        where += f", made at {node.origin}"
    cls = type(exc) if isinstance(exc, (RuntimeError, ValueError, TypeError)) else RuntimeError
    try:
        new = cls(f"in {where}: {msg}")
    except Exception:  # exotic exception signature
        new = RuntimeError(f"in {where}: {msg}")
    return new


def _zeros_for(meta: Any) -> "Tensor":
    shape, dtype, device = meta
    data = np.zeros(shape, dtype=dtype.np)
    if device != "cpu":
        data = _to_device(data, device)
    return Tensor._make(data, dtype, device)


def run_backward(
    tensors: Sequence["Tensor"],
    grad_tensors: Sequence["Tensor | None"] | None = None,
    retain_graph: bool = False,
    create_graph: bool = False,
    inputs: Sequence["Tensor"] | None = None,
    allow_unused: bool = False,
    no_grad_vars: Sequence["Tensor"] | None = None,
) -> list["Tensor | None"]:
    """Run the backward pass from ``tensors`` (see the module docstring).

    With ``inputs`` this is ``grad()``: the graph is copied and pruned by
    GeneralGrad, no ``.grad`` is written, and the gradients of ``inputs`` are
    returned. Otherwise leaf ``.grad`` fields accumulate and ``[]`` is returned.
    """
    global current_run
    rec = bus.recorder
    t_start = time.perf_counter_ns()
    is_general = inputs is not None
    gg = None
    if is_general:
        gg = GeneralGrad(inputs, no_grad_vars or [], create_graph, allow_unused)

    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} outputs but {len(grad_tensors)} gradients")

    # -- preparation: start nodes, seed buffers, ready queue ------------------
    starts: list[tuple[GradNode, int, int, Tensor]] = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"element {i} of tensors must be a Tensor, but got {type(t).__name__}")
        meta = t._meta
        if meta is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn "
                f"(did you create it under no_grad, or from tensors without requires_grad=True?)"
            )
        node = meta.grad_node if meta.grad_node is not None else accumulation_node_for(meta, t)
        starts.append((node, meta.out_slot, meta.out_rank, t))

    prev_mode = GRAD_MODE.enabled
    GRAD_MODE.enabled = create_graph  # backward formulas record only for create_graph
    prev_user_code = BACKWARD_PASS.user_code  # a hook may run a nested backward
    BACKWARD_PASS.user_code = False
    try:
        seeds = [_seed_gradient(i, t, grad_tensors[i]) for i, (_, _, _, t) in enumerate(starts)]
        if rec is not None:
            start_ids = []
            for node, *_ in starts:
                nid = gg.copy_of_start(node).id if gg is not None else node.id
                if nid not in start_ids:
                    start_ids.append(nid)
            rec.emit(BackwardBegin.new(mode="grad" if is_general else "backward", start=start_ids,
                                   retain_graph=retain_graph, create_graph=create_graph))
        queue: deque[GradNode] = deque()
        buffers: dict[GradNode, GradTensorHolder] = {}
        orig_queue: list[GradNode] = []
        for (node, slot, rank, _t), seed in zip(starts, seeds):
            if gg is not None:
                orig_queue.append(node)
                node = gg.copy_of_start(node)
            holder = buffers.get(node)
            if holder is None:
                holder = buffers[node] = GradTensorHolder(node.in_meta)
            value = holder.add(slot, rank, seed)
            if rec is not None:
                rec.emit(BufferAdd.new(node=node.id, slot=slot, rank=rank, source=None, value=rec.preview(value._data)))
            if node not in queue:
                queue.append(node)
                if rec is not None and gg is None:
                    rec.emit(QueuePush.new(node=node.id, front=False, queue=[n.id for n in queue]))

        if gg is not None:
            # GeneralGrad restricts the queue to the startup nodes; the pushes are
            # announced once it is final (NOTE [ Where minigrad differs from Paddle's RunBackward ]).
            gg.prepare(orig_queue, queue, buffers)
            if rec is not None:
                for k, node in enumerate(queue):
                    rec.emit(QueuePush.new(node=node.id, front=False, queue=[n.id for n in list(queue)[: k + 1]]))

        in_degree = get_in_degree_map(queue, check_released=gg is None)
        if gg is not None:
            gg.check_released(in_degree)
        if rec is not None:
            rec.emit(BackwardInDegree.new(in_degree={n.id: c for n, c in in_degree.items()}))
            current_run = BackwardRun(queue, in_degree, buffers, "grad" if is_general else "backward")

        # -- execution ---------------------------------------------------------
        # With no recorder and no create_graph, buffer sums are plain array additions
        # (GradTensorHolder.add): no event or graph would show the add op anyway.
        array_sums = rec is None and not create_graph
        # BEGIN LESSON 2 TASK 2.2: the ready-queue loop
        waiting_starts = set(queue)  # start nodes not yet popped
        nodes_run = 0
        while queue:
            node = queue[0]
            if len(queue) > 1 and in_degree.get(node, 0) != 0:
                queue.popleft()
                waiting_starts.discard(node)
                if rec is not None:
                    rec.emit(QueuePop.new(node=node.id, queue=[n.id for n in queue]))
                    rec.emit(QueueSkip.new(node=node.id, in_degree=in_degree.get(node, 0)))
                continue
            queue.popleft()
            waiting_starts.discard(node)
            if rec is not None:
                current_run.current = node  # type: ignore[union-attr]
                rec.emit(QueuePop.new(node=node.id, queue=[n.id for n in queue]))

            holder = buffers.pop(node, None)
            if holder is None:
                raise RuntimeError(f"internal error: {node.display_name} is ready but has no gradient buffer")
            grads_in = holder.buffers
            for slot, row in enumerate(grads_in):
                for rank, g in enumerate(row):
                    if g is None:  # "Fill Zero For GradIn Tensors"
                        row[rank] = _zeros_for(node.in_meta[slot][rank])
            try:
                grads_out = _run_node(node, grads_in, create_graph, is_general)
            except BaseException as exc:
                # Under grad() name the user's node, not its GeneralGrad copy.
                where = gg.copied_to_orig.get(node, node) if gg is not None else node
                raise _node_error(where, exc) from exc
            nodes_run += 1
            if rec is not None:
                rec.emit(
                    NodeRun.new(
                        node=node.id,
                        grads_in=[[rec.preview(g._data) if g is not None else None for g in row] for row in grads_in],
                        grads_out=[[rec.preview(g._data) if g is not None else None for g in row] for row in grads_out],
                    )
                )
            if gg is not None:
                gg.set_result_for_ending_node(node, grads_out)
            if not retain_graph and not node.is_accumulation:
                node.release()
                if rec is not None:
                    rec.emit(WrappersClear.new(node=node.id))

            for slot, row in enumerate(node.next_edges):
                out_row = grads_out[slot] if slot < len(grads_out) else ()
                for rank, edge in enumerate(row):
                    nxt = edge.node
                    if nxt is None:
                        continue
                    g = out_row[rank] if rank < len(out_row) else None
                    holder = buffers.get(nxt)
                    if holder is None:
                        holder = buffers[nxt] = GradTensorHolder(nxt.in_meta)
                    if g is not None:
                        value = holder.add(edge.slot, edge.rank, g, array_sums)
                        if rec is not None:
                            rec.emit(BufferAdd.new(node=nxt.id, slot=edge.slot, rank=edge.rank, source=node.id,
                                               value=rec.preview(value._data)))
                    count = in_degree[nxt] - 1
                    in_degree[nxt] = count
                    if rec is not None:
                        rec.emit(InDegreeUpdate.new(node=nxt.id, in_degree=count))
                    if count == 0 and nxt not in waiting_starts:
                        if gg is not None and not gg.is_needed(nxt):
                            continue
                        if nxt.is_accumulation:
                            queue.appendleft(nxt)
                        else:
                            queue.append(nxt)
                        if rec is not None:
                            rec.emit(QueuePush(node=nxt.id, front=nxt.is_accumulation, queue=[n.id for n in queue]))
        # END LESSON 2 TASK 2.2

        _hooks.run_final_hooks()
        results: list[Tensor | None] = []
        unused_error: RuntimeError | None = None
        if gg is not None:
            try:
                results = gg.results()
            except RuntimeError as exc:  # an unused input: the pass itself did end
                unused_error = exc
        if rec is not None:
            rec.emit(BackwardEnd.new(nodes_run=nodes_run, wall_ns=time.perf_counter_ns() - t_start))
        if unused_error is not None:
            raise unused_error
        return results
    finally:
        GRAD_MODE.enabled = prev_mode
        BACKWARD_PASS.user_code = prev_user_code
        current_run = None


def _run_node(node: "GradNode", grads: list[list[Any]], create_graph: bool, general: bool) -> list[list[Any]]:
    """Call a node: hooks, saved-tensor checks, then its backward formula."""
    if node.hooks:
        BACKWARD_PASS.user_code = True  # a hook may keep a gradient (NOTE [ The first .grad without a copy ])
        grads = node.apply_gradient_hooks(grads)
    if node.is_accumulation:
        return node.run(grads, create_graph, general)  # type: ignore[attr-defined]
    if node.released:
        raise released_error(node)
    op = node.opdef
    if op is None:  # a custom autograd.Function's node runs the user's backward (autograd/function.py)
        BACKWARD_PASS.user_code = True
        return node.run_formula(grads, create_graph)  # type: ignore[attr-defined]
    assert op.backward is not None
    ctx = BackwardContext(node, create_graph)
    grad = grads[0][0] if len(grads) == 1 else [row[0] for row in grads]
    fused = op.backward_arrays
    if (
        fused is not None
        and not create_graph
        and bus.recorder is None
        and type(grad) is Tensor
        and type(grad._data) is np.ndarray
        and grad._dtype.is_floating
    ):
        # The fused formula on arrays (one kernel instead of several ops); see
        # OpDef.def_backward_arrays. Saved tensors are still version-checked by ctx.saved().
        # It returns None to decline (inputs of another dtype than the gradient): the op formula runs.
        arrays = fused(ctx, grad._data)
        if arrays is None:
            result = op.backward(ctx, grad)
        else:
            result = tuple(None if a is None else Tensor._make(a, grad._dtype, grad._device) for a in arrays)
    else:
        result = op.backward(ctx, grad)
    if not isinstance(result, (tuple, list)):
        result = (result,)
    out: list[list[Any]] = []
    n_result = len(result)
    lists = op.has_list_input
    for slot, row in enumerate(node.next_edges):
        r = result[slot] if slot < n_result else None
        if lists and op.inputs[slot].is_list:
            vals = list(r) if r is not None else [None] * len(row)
        elif r is None:
            out.append([None])
            continue
        else:
            vals = [r]
        for rank, (edge, g) in enumerate(zip(row, vals)):
            if edge.node is None:
                vals[rank] = None
            elif g is not None and g._data.shape != edge.shape:
                raise RuntimeError(
                    f"backward formula returned a gradient of shape {tuple(g.shape)} for input "
                    f"'{op.inputs[slot].name}' (rank {rank}) of shape {tuple(edge.shape)}"
                )
        out.append(vals)
    return out


class OpsNamespace:
    """``ctx.ops``: the ops a backward formula computes with, by name (``ctx.ops.mul``).

    A formula is written once against this namespace. In graph
    mode its attributes are minigrad's registered ops, so the formula's work
    is recorded and differentiable (``create_graph=True``). ``ops/registry.py``
    fills it with every op it defines (imports go one way: this layer never
    imports the ops).
    """

    def define(self, name: str, fn: Any) -> None:
        """Make ``fn`` reachable as ``ctx.ops.<name>``."""
        object.__setattr__(self, name, fn)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"ctx.ops has no op {name!r}: a backward formula can use only registered ops")


#: The graph-mode namespace, filled by ``ops/registry.py``.
GRAPH_OPS = OpsNamespace()


class BackwardContext:
    """What a backward formula sees: saved tensors, attributes, which inputs need grads, ``ops``."""

    __slots__ = ("node", "create_graph")

    #: The ops a formula computes with (``ctx.ops.mul(grad, y)``); see ``OpsNamespace``.
    ops = GRAPH_OPS

    def __init__(self, node: "GradNode", create_graph: bool) -> None:
        self.node = node
        self.create_graph = create_graph

    @property
    def attrs(self) -> dict[str, Any]:
        return self.node.attrs

    @property
    def extra(self) -> Any:
        return self.node.extra

    def saved(self) -> list["Tensor"]:
        """The saved tensors, recovered (version-checked) in the op's ``save`` order."""
        node = self.node
        return [w.recover(node, self.create_graph) if w is not None else None for w in node.wrappers]

    def input_shape(self, slot: int) -> tuple[int, ...]:
        """The shape of forward input ``slot`` (its gradient must have it), kept on its edge."""
        return self.node.next_edges[slot][0].shape

    def needs(self, slot: int) -> bool:
        """Whether input ``slot`` needs a gradient (has an edge to a next node)."""
        for e in self.node.next_edges[slot]:
            if e.node is not None:
                return True
        return False
