"""The backward engine: ``run_backward`` (PaddlePaddle's eager backward, ``RunBackward``).

``Tensor.backward``, ``mg.autograd.backward`` and ``mg.grad`` all end here.
``run_backward`` calls one function per step of the seed:

1. ``prepare_buffers`` - the seed gradients in GradTensorHolders, the ready queue;
2. ``get_in_degree_map`` - how many gradients each node waits for;
3. ``run_ready_queue`` - the loop, which runs each node (``node.begin``, then
   ``_run_node``: hooks, then its formula, ``formula.run_formula``; then
   ``node.run``), releases it and passes its gradients on;
4. ``_finish`` - final-backward hooks, ``grad()``'s results.

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

import itertools
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..devices import Layout, filled_array
from ..size import Size
from ..tensor import Tensor
from ..tracing import bus
from ..tracing.events import (
    BackwardBegin,
    BackwardEnd,
    BackwardInDegree,
    BufferAdd,
    InDegreeUpdate,
    NodeBegin,
    NodeRun,
    QueuePop,
    QueuePush,
    QueueSkip,
    WrappersClear,
)
from . import anomaly_mode
from . import hooks as _hooks
from .anomaly_mode import ANOMALY
from .accumulation import BACKWARD_PASS, accumulation_node_for
from .general_grad import GeneralGrad
from .grad_node import GradNode, released_error
from .gradient_edge import GradientEdge, edge_position
from .grad_mode import GRAD_MODE
from .formula import run_formula
from .grad_tensor_holder import GradTensorHolder


__all__ = ["run_backward", "get_in_degree_map", "BackwardRun", "current_run"]


class BackwardRun:
    """The engine's live state for one ``run_backward`` (exposed while recording,
    so tests can compare it with the replayed states)."""

    __slots__ = ("queue", "in_degree", "buffers", "mode")

    def __init__(self, queue: deque, in_degree: dict, buffers: dict, mode: str) -> None:
        self.queue = queue
        self.in_degree = in_degree
        self.buffers = buffers
        self.mode = mode


#: ``current_run``: this thread's run in progress while a recorder is active (``None`` otherwise); per
#: thread, as grad mode and the recorder are, so a backward in another thread never shows here.
_THIS_THREAD = threading.local()


def __getattr__(name: str) -> Any:
    if name == "current_run":
        return getattr(_THIS_THREAD, "run", None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: One ``(pass number, is grad())`` per ``run_backward`` in progress, innermost last (a
#: custom Function's backward may run a backward of its own: ``utils/checkpoint.py``).
RUNNING_PASSES: list[tuple[int, bool]] = []
_pass_numbers = itertools.count(1)
#: The graph of each pass in ``RUNNING_PASSES`` once its in-degree map is made: ``(pass number, in-degree
#: map, GeneralGrad or None)`` (``will_execute``: PyTorch's ``_will_engine_execute_node``).
RUNNING_GRAPHS: list[tuple[int, dict[GradNode, int], Any]] = []


def will_execute(node: "GradNode") -> bool:
    """Whether the innermost running pass will run ``node`` (under ``grad()``, its copy) - the count
    ``autograd.graph.register_multi_grad_hook`` waits for."""
    if not RUNNING_GRAPHS:
        raise RuntimeError("will_execute(): no backward pass is running")
    _, in_degree, gg = RUNNING_GRAPHS[-1]
    if gg is not None:
        if node.is_accumulation:  # (grad() runs no AccumulateGrad: PyTorch refuses the question)
            raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                               "autograd.grad(). This is currently not supported.")
        node = gg.orig_to_copied.get(node)
        return node is not None and node in in_degree and gg.is_needed(node)
    return node in in_degree


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
            raise RuntimeError("grad can be implicitly created only for scalar outputs")  # PyTorch's words
        if t._device == "cpu":
            data = np.empty(t._data.shape, dtype=t._dtype.np)
            data.fill(1)  # ``np.ones`` is a Python function around these two
        else:  # made on the device (the GPU fills it: no host -> device copy, no sync)
            data = filled_array(t._data.shape, 1, t._dtype.np, t._device)
        return Tensor._make(data, t._dtype, t._device, t._layout)
    if not isinstance(g, Tensor):
        raise TypeError(f"gradient {i} must be a Tensor or None, but got {type(g).__name__}")
    if g.shape != t.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape of {t.shape}."
        )  # PyTorch's words
    if g._device != t._device:
        raise RuntimeError(f"gradient {i} is on device '{g._device}' but output {i} is on '{t._device}'")
    if GRAD_MODE.enabled and g._meta is not None:
        return g  # create_graph: keep the seed's own history
    # Detached, not copied: the engine never writes into a gradient, and ``.grad``
    # copies what it does not own (NOTE [ The first .grad without a copy ]).
    return Tensor._make(g._data, g._dtype, g._device, g._layout)


def _node_error(node: "GradNode", exc: BaseException) -> BaseException:
    """Re-raise errors from a node's formula naming the node and its op (docs/architecture.md, bad input)."""
    where = f"{node.display_name} (backward of '{node.op_name}')"
    msg = str(exc)
    if where in msg or getattr(exc, "_minigrad_as_is", False):
        return exc
    if node.origin is not None:  # recorded: say where the node was made (PyTorch's anomaly mode tells the same)
        where += f", made at {node.origin}"
    cls = type(exc) if isinstance(exc, (RuntimeError, ValueError, TypeError, AssertionError)) else RuntimeError
    try:
        new = cls(f"in {where}: {msg}")
    except Exception:  # exotic exception signature
        new = RuntimeError(f"in {where}: {msg}")
    return new


def _zeros_for(meta: Any) -> "Tensor":
    shape, dtype, device = meta
    # on a GPU, filled there (no host -> device copy, no sync)
    data = np.zeros(shape, dtype=dtype.np) if device == "cpu" else filled_array(shape, 0, dtype.np, device)
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
    """Run the backward pass from ``tensors`` (see the module docstring), in the seed's steps.

    With ``inputs`` this is ``grad()``: the graph is copied and pruned by
    GeneralGrad, no ``.grad`` is written, and the gradients of ``inputs`` are
    returned. Otherwise leaf ``.grad`` fields accumulate and ``[]`` is returned.
    """
    t_start = time.perf_counter_ns()
    gg = GeneralGrad(inputs, no_grad_vars or [], create_graph, allow_unused) if inputs is not None else None
    starts = _start_nodes(tensors, grad_tensors)
    prev_mode = GRAD_MODE.enabled
    GRAD_MODE.enabled = create_graph  # backward formulas record only for create_graph
    prev_user_code = BACKWARD_PASS.user_code  # a hook may run a nested backward
    BACKWARD_PASS.user_code = False
    prev_run = getattr(_THIS_THREAD, "run", None)
    RUNNING_PASSES.append((next(_pass_numbers), gg is not None))
    try:
        seeds = [_seed_gradient(i, t, g) for i, ((_, _, _, t), g) in enumerate(zip(starts, grad_tensors or [None] * len(starts)))]
        if bus.recorder is not None:
            _announce_begin(starts, gg, retain_graph, create_graph)
        queue, buffers = prepare_buffers(starts, seeds, gg)
        in_degree = _in_degree_map(queue, gg)
        if bus.recorder is not None:
            _THIS_THREAD.run = BackwardRun(queue, in_degree, buffers, "grad" if gg is not None else "backward")
        RUNNING_GRAPHS.append((RUNNING_PASSES[-1][0], in_degree, gg))  # (its keys stay as they are)
        nodes_run = run_ready_queue(queue, buffers, in_degree, retain_graph, create_graph, gg)
        return _finish(gg, nodes_run, t_start)
    except BaseException as exc:
        if bus.recorder is not None:  # the error ends the pass (NOTE [ One error event per failure ])
            bus.recorder.record_error(exc)
        raise
    finally:
        GRAD_MODE.enabled = prev_mode
        BACKWARD_PASS.user_code = prev_user_code
        _THIS_THREAD.run = prev_run
        if RUNNING_GRAPHS and RUNNING_GRAPHS[-1][0] == RUNNING_PASSES[-1][0]:
            RUNNING_GRAPHS.pop()
        RUNNING_PASSES.pop()


class _EdgeOutput:
    """An output given as a ``GradientEdge``: what its seed must be, from the node's input metadata (the
    attributes ``_seed_gradient`` reads of an output tensor)."""

    __slots__ = ("_data", "_dtype", "_device", "_layout", "shape")

    def __init__(self, meta: tuple[Any, Any, str]) -> None:
        shape, dtype, device = meta
        self._data = np.broadcast_to(np.empty((), dtype=dtype.np), shape)  # (no memory: shape and size only)
        self._dtype, self._device, self._layout = dtype, device, Layout.NCHW
        self.shape = Size(shape)


def _start_nodes(tensors: Sequence["Tensor"], grad_tensors: Sequence[Any] | None) -> list[tuple[GradNode, int, int, Tensor]]:
    """The start nodes: each output's grad node (an AccumulationNode for a leaf) and its (slot, rank)."""
    if grad_tensors is not None and len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} outputs but {len(grad_tensors)} gradients")
    starts = []
    for i, t in enumerate(tensors):
        if isinstance(t, GradientEdge):  # the pass starts where the edge's gradient arrives
            node, slot, rank = edge_position(t, "grad()")
            starts.append((node, slot, rank, _EdgeOutput(node.in_meta[slot][rank])))
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"element {i} of tensors must be a Tensor, but got {type(t).__name__}")
        meta = t._meta
        if meta is None or not meta.accumulates and meta.grad_node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        node = meta.grad_node if meta.grad_node is not None else accumulation_node_for(meta, t)
        starts.append((node, meta.out_slot, meta.out_rank, t))
    return starts


def _announce_begin(starts: list[tuple[Any, ...]], gg: GeneralGrad | None, retain_graph: bool, create_graph: bool) -> None:
    """``backward.begin`` with the start nodes (for ``grad()``: their GeneralGrad copies), each once."""
    rec = bus.recorder
    start_ids: list[int] = []
    for node, *_ in starts:
        nid = gg.copy_of_start(node).id if gg is not None else node.id
        if nid not in start_ids:
            start_ids.append(nid)
    rec.emit(BackwardBegin.new(mode="grad" if gg is not None else "backward", start=start_ids,
                               retain_graph=retain_graph, create_graph=create_graph))
    rec.meet_graph([node for node, *_ in starts])


def prepare_buffers(starts: list[tuple[Any, ...]], seeds: list["Tensor"],
                    gg: GeneralGrad | None) -> tuple[deque[GradNode], dict[GradNode, GradTensorHolder]]:
    """Step 1: a GradTensorHolder per start node holding its seed, and the ready queue of start nodes.

    For ``grad()`` GeneralGrad then restricts the queue to the startup nodes;
    its pushes are announced once it is final (NOTE [ Where minigrad differs
    from Paddle's RunBackward ]).
    """
    rec = bus.recorder
    queue: deque[GradNode] = deque()
    buffers: dict[GradNode, GradTensorHolder] = {}
    orig_queue: list[GradNode] = []
    for (node, slot, rank, _t), seed in zip(starts, seeds):
        if gg is not None:
            orig_queue.append(node)
            node = gg.copy_of_start(node)
        holder = buffers.get(node)
        if holder is None:
            buffers[node] = GradTensorHolder(node.in_meta, slot, rank, seed)
            value = seed
        else:  # a second output of the same node
            value = holder.add(slot, rank, seed)
        if rec is not None:
            rec.emit(BufferAdd.new(node=node.id, slot=slot, rank=rank, source=None, value=rec.preview(value._data)))
        if node not in queue:
            queue.append(node)
            if rec is not None and gg is None:
                rec.emit(QueuePush.new(node=node.id, front=False, queue=[n.id for n in queue]))
    if gg is not None:
        gg.prepare(orig_queue, queue, buffers)
        if rec is not None:
            for k, node in enumerate(queue):
                rec.emit(QueuePush.new(node=node.id, front=False, queue=[n.id for n in list(queue)[: k + 1]]))
    return queue, buffers


def _in_degree_map(queue: deque[GradNode], gg: GeneralGrad | None) -> dict[GradNode, int]:
    """Step 2: the in-degree map (``getInDegreeMap``), released nodes refused, announced."""
    try:
        in_degree = get_in_degree_map(queue, check_released=gg is None)
        if gg is not None:
            gg.check_released(in_degree)
    except RuntimeError as exc:
        released = getattr(exc, "released_node", None)
        if released is not None and ANOMALY.enabled:  # the node's forward traceback, as PyTorch warns it
            anomaly_mode.report(released)
        raise
    rec = bus.recorder
    if rec is not None:
        rec.emit(BackwardInDegree.new(in_degree={n.id: c for n, c in in_degree.items()}))
    return in_degree


def run_ready_queue(queue: deque[GradNode], buffers: dict[GradNode, GradTensorHolder], in_degree: dict[GradNode, int],
                    retain_graph: bool, create_graph: bool, gg: GeneralGrad | None) -> int:
    """Step 3, the ready-queue loop (lesson 2, task 2.2): run each node when its count is 0; returns how many ran."""
    rec = bus.recorder
    # BEGIN LESSON 2 TASK 2.2: the ready-queue loop
    waiting_starts = set(queue)  # start nodes not yet popped
    nodes_run = 0
    while queue:
        node = queue.popleft()
        waiting_starts.discard(node)
        if queue and in_degree.get(node, 0) != 0:  # more than one node queued and this one not ready: skip
            if rec is not None:
                rec.emit(QueuePop.new(node=node.id, queue=[n.id for n in queue]))
                rec.emit(QueueSkip.new(node=node.id, in_degree=in_degree.get(node, 0)))
            continue
        if rec is not None:
            rec.emit(QueuePop.new(node=node.id, queue=[n.id for n in queue]))
        grads_in = buffers.pop(node).buffers
        if len(grads_in) > 1 or len(grads_in[0]) > 1 or grads_in[0][0] is None:  # not one gradient, present
            grads_in = _filled_with_zeros(node, grads_in)
        if rec is not None:
            rec.emit(NodeBegin.new(node=node.id, grads_in=_previews(rec, grads_in)))
        try:
            grads_out = _run_node(node, grads_in, create_graph, gg is not None)
        except BaseException as exc:  # under grad() name the user's node, not its GeneralGrad copy
            raise _node_error(gg.copied_to_orig.get(node, node) if gg is not None else node, exc) from exc
        nodes_run += 1
        if rec is not None:
            rec.emit(NodeRun.new(node=node.id, grads_in=_previews(rec, grads_in), grads_out=_previews(rec, grads_out)))
        if gg is not None:
            gg.set_result_for_ending_node(node, grads_out)
        if not retain_graph and not node.is_accumulation:
            node.release()
            if rec is not None:
                rec.emit(WrappersClear.new(node=node.id))
        for slot, row in enumerate(node.next_edges):
            for rank, edge in enumerate(row):
                nxt = edge.node
                if nxt is None:
                    continue
                g = value = grads_out[slot][rank]
                holder = buffers.get(nxt)
                if holder is None:  # the first gradient (or None) to reach ``nxt``: its buffer holds it
                    buffers[nxt] = GradTensorHolder(nxt.in_meta, edge.slot, edge.rank, g)
                elif g is not None:
                    value = holder.add(edge.slot, edge.rank, g)
                if g is not None and rec is not None:
                    rec.emit(BufferAdd.new(node=nxt.id, slot=edge.slot, rank=edge.rank, source=node.id,
                                           value=rec.preview(value._data)))
                in_degree[nxt] -= 1
                if rec is not None:
                    rec.emit(InDegreeUpdate.new(node=nxt.id, in_degree=in_degree[nxt]))
                if in_degree[nxt] == 0 and nxt not in waiting_starts and (gg is None or gg.is_needed(nxt)):
                    if nxt.is_accumulation:
                        queue.appendleft(nxt)
                    else:
                        queue.append(nxt)
                    if rec is not None:
                        rec.emit(QueuePush(node=nxt.id, front=nxt.is_accumulation, queue=[n.id for n in queue]))
    return nodes_run
    # END LESSON 2 TASK 2.2


# NOTE [ No gradient at all passes on as none ]
#     A node whose every incoming gradient is missing - a custom Function's backward returned None for the
#     input it leads to, or a node hook dropped it - does not run: nothing reaches its inputs either, and an
#     AccumulateGrad leaves ``.grad`` as it was (None on a first backward), as PyTorch's engine passes
#     "undefined" gradients on. A node missing only some gradients runs with zeros in their place (Paddle's
#     "Fill Zero For GradIn Tensors", and what PyTorch's formulas do with an undefined one).


def _filled_with_zeros(node: "GradNode", grads_in: list[list[Any]]) -> list[list[Any]]:
    """A node's incoming gradients with every missing one a zero tensor ("Fill Zero For GradIn Tensors");
    left as they are when none is there (NOTE [ No gradient at all passes on as none ])."""
    if not node.materializes_grads or all(g is None for row in grads_in for g in row):
        return grads_in
    for slot, row in enumerate(grads_in):
        for rank, g in enumerate(row):
            if g is None:
                row[rank] = _zeros_for(node.in_meta[slot][rank])
    return grads_in


def _previews(rec: Any, grads: list[list[Any]]) -> list[list[Any]]:
    """Per-slot, per-rank previews of gradients (``node.run``'s ``grads_in``/``grads_out``)."""
    return [[rec.preview(g._data) if g is not None else None for g in row] for row in grads]


def _finish(gg: GeneralGrad | None, nodes_run: int, t_start: int) -> list["Tensor | None"]:
    """Step 4: final-backward hooks, ``grad()``'s results, ``backward.end``.

    ``backward.end`` is emitted before ``grad()``'s unused-input error, so the
    traced pass is complete.
    """
    _hooks.run_final_hooks()
    results: list[Tensor | None] = []
    unused_error: RuntimeError | None = None
    if gg is not None:
        try:
            results = gg.results()
        except RuntimeError as exc:  # an unused input: the pass itself did end
            unused_error = exc
    rec = bus.recorder
    if rec is not None:
        rec.emit(BackwardEnd.new(nodes_run=nodes_run, wall_ns=time.perf_counter_ns() - t_start))
    if unused_error is not None:
        raise unused_error
    return results


def _run_node(node: "GradNode", grads: list[list[Any]], create_graph: bool, general: bool,
              watched: bool = False) -> list[list[Any]]:
    """Call a node: hooks, saved-tensor checks, then its backward formula (in anomaly mode, watched)."""
    if ANOMALY.enabled and not watched:  # NOTE [ Anomaly mode ] in autograd/anomaly_mode.py
        return _run_node_anomaly(node, grads, create_graph, general)
    try:
        # NOTE [ No gradient at all passes on as none ]
        if grads[0][0] is None and all(g is None for row in grads for g in row):
            return [[None] * len(row) for row in node.next_edges] or [[None]]
        if node.hooks:
            BACKWARD_PASS.user_code = True  # a hook may keep a gradient (NOTE [ The first .grad without a copy ])
            grads = node.apply_gradient_hooks(grads)
            if not node.is_accumulation:  # (an AccumulateGrad runs them after its leaf's hooks)
                grads = node.run_prehooks(grads)
        if node.is_accumulation:
            grads_out = node.run(grads, create_graph, general)  # type: ignore[attr-defined]
        elif node.released:
            raise released_error(node)
        elif node.opdef is None:  # a custom autograd.Function's node runs the user's backward (autograd/function.py)
            BACKWARD_PASS.user_code = True
            grads_out = node.run_formula(grads, create_graph)  # type: ignore[attr-defined]
        else:
            grads_out = run_formula(node, grads, create_graph)
        return node.run_posthooks(grads_out, grads) if node.hooks else grads_out
    except BaseException as exc:
        if bus.recorder is not None and not hasattr(exc, "_minigrad_node"):
            exc._minigrad_node = node.id  # type: ignore[attr-defined]  (the error event names the node that ran)
        raise


def _run_node_anomaly(node: "GradNode", grads: list[list[Any]], create_graph: bool, general: bool) -> list[list[Any]]:
    """``_run_node`` in anomaly mode: the nodes it makes remember it; an error first warns with the
    forward traceback of the node; a NaN output is an error, in PyTorch's words."""
    ANOMALY.running.append(node)
    try:
        grads_out = _run_node(node, grads, create_graph, general, watched=True)
    except BaseException:
        anomaly_mode.report(node)
        raise
    finally:
        ANOMALY.running.pop()
    if ANOMALY.check_nan:
        position = anomaly_mode.nan_output(node, grads_out)
        if position is not None:
            anomaly_mode.report(node)
            exc = RuntimeError(f"Function '{type(node).__name__}' returned nan values in its {position}th output.")
            exc._minigrad_node = node.id  # type: ignore[attr-defined]  (the error event names the node)
            exc._minigrad_as_is = True  # type: ignore[attr-defined]  (PyTorch's message, not prefixed)
            raise exc
    return grads_out
