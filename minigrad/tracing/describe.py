"""One describer of events: the words every viewer uses for every event kind.

The renderer's captions, the TUI's status line and event log, and
``minigrad log`` all call ``describe(ev, names)`` for *what happened* and
``explain(ev, state)`` for *why* (the engine rule that produced it; see
the backward path in docs/architecture.md). So the same event reads the
same everywhere, and a new event kind is described once, here: two
functions named after it (``what_queue_push``, ``why_queue_push``) that
``WORDS``, the one table both dispatch through, picks up by name.

``names`` is anything with ``node_name(id)`` and ``tensor_name(id)``: a
replayed ``State`` or the TUI's session. Without it ids print as
``node#3`` / ``t3``.

Everything here reads event fields only and never raises on odd values:
``NaN`` and ``inf`` print as ``nan`` / ``inf`` (they are valid trace
values), and a field of an unexpected type falls back to a generic line.

Example:
    >>> from minigrad.tracing import events as E
    >>> describe(E.QueueSkip(node=4, in_degree=2))
    'skip node#4: in-degree still 2'
    >>> fmt_value([[1.0, 2.5], [float("nan"), float("-inf")]])
    '[[1, 2.5], [nan, -inf]]'
    >>> fmt_value({"shape": [128, 64], "dtype": "float32"})
    '<128x64 float32>'
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from .node_names import paddle_node_name
from .events import EVENT_TYPES, NODE_HOOK_KINDS
from .numbers import fmt_number
from .versions import short_source

__all__ = ["Names", "Words", "Why", "WORDS", "describe", "explain", "fmt_value", "fmt_shape", "event_fields", "GLOSSARY"]


class Names(Protocol):
    """Turns node and tensor ids into display names (a ``State`` or the TUI session)."""

    def node_name(self, node_id: Any) -> str: ...

    def tensor_name(self, tensor_id: Any) -> str: ...


class _Ids:
    """Names when no state is at hand: ``node#3`` and ``t3``."""

    @staticmethod
    def node_name(node_id: Any) -> str:
        return "-" if node_id is None else f"node#{node_id}"

    @staticmethod
    def tensor_name(tensor_id: Any) -> str:
        return "-" if tensor_id is None else f"t{tensor_id}"


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


#: NaN/Inf-safe numbers, formatted one way in every viewer (``minigrad.tracing.numbers``).
_num = fmt_number


def fmt_shape(shape: Any) -> str:
    """``(2, 3)`` -> ``'2x3'``; a scalar shape ``()`` -> ``'scalar'``."""
    try:
        shape = tuple(shape or ())
    except TypeError:
        return str(shape)
    return "x".join(str(s) for s in shape) if shape else "scalar"


def fmt_value(value: Any, max_len: int = 60) -> str:
    """A compact one-line view of a value preview (nested lists, or a ``{shape, dtype}`` summary)."""
    if value is None:
        return "None"
    if isinstance(value, dict) and "shape" in value:
        return f"<{fmt_shape(value['shape'])} {value.get('dtype', '')}>".replace(" >", ">")

    def walk(v: Any) -> str:
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(walk(x) for x in v) + "]"
        return _num(v)

    text = walk(value)
    if len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text


def event_fields(ev: Any) -> dict[str, Any]:
    """The kind-specific fields of an event as a dict (no header)."""
    d = ev.to_dict()
    for k in ("seq", "ts_ns", "kind"):
        d.pop(k, None)
    return d


def _generic(ev: Any) -> str:
    parts = []
    try:
        items = list(event_fields(ev).items())[:4]
    except Exception:  # noqa: BLE001 - a describer never fails
        items = []
    for key, value in items:
        text = fmt_value(value, 24) if isinstance(value, (list, dict)) else _num(value)
        parts.append(f"{key}={text}")
    return " ".join(parts)


# ---------------------------------------------------------------------------
# One table: for every kind, what happened and why (the engine rule behind it)
# ---------------------------------------------------------------------------


class Why:
    """What a *why* handler may look at: the replayed state after the event, when there is one."""

    __slots__ = ("state", "nodes", "bw", "names")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.nodes = getattr(state, "nodes", {}) or {}
        self.bw = getattr(state, "backward", None)
        self.names: Names = state if state is not None else _Ids

    def is_accumulation(self, node_id: Any) -> bool:
        info = self.nodes.get(node_id)
        return info is not None and info.is_accumulation

    def earlier_grad_pass(self, tensor: Any) -> int | None:
        """The latest backward pass before the current one that wrote ``tensor``'s ``.grad``."""
        passes = getattr(self.state, "passes", None)
        if passes is None:  # the web stepper's state: the pass, and the final state's passes
            passes = getattr(getattr(self.state, "final", None), "passes", ())
        current = self.bw.number if self.bw is not None else len(passes)
        return next((p.number for p in reversed(passes) if p.number < current and tensor in p.accumulated), None)


class Words:
    """One kind's two describers: ``what(ev, names)`` and ``why(ev, Why)``."""

    __slots__ = ("what", "why")

    def __init__(self, what: Callable[[Any, Any], str], why: Callable[[Any, Why], str]) -> None:
        self.what = what
        self.why = why


def _queue(n: Names, queue: Any) -> str:
    return "[" + ", ".join(n.node_name(i) for i in queue) + "]"


# -- the forward path ---------------------------------------------------------------


def what_tensor_create(ev: Any, n: Names) -> str:
    made = f" ← {n.node_name(ev.grad_node)}" if ev.grad_node is not None else (" (leaf)" if ev.is_leaf else "")
    return f"tensor {ev.name} {fmt_shape(ev.shape)} {ev.dtype}{made}"


def why_tensor_create(ev: Any, c: Why) -> str:
    if ev.grad_node is not None:
        return f"an op's output: its grad_fn is {c.names.node_name(ev.grad_node)}, output slot {ev.out_slot} rank {ev.out_rank}"
    return "a leaf: made by the user, not by an op" if ev.is_leaf else "made without history (no input requires grad, or no_grad)"


def what_tensor_update(ev: Any, n: Names) -> str:
    return f"{n.tensor_name(ev.tensor)} changed in place by {ev.op} (version {ev.version})"


def why_tensor_update(ev: Any, c: Why) -> str:
    return "in-place op: the version counter goes up, and saved copies of the old version become invalid"


def what_tensor_version(ev: Any, n: Names) -> str:
    via = f" through the view {n.tensor_name(ev.via)}" if ev.via is not None else ""
    return f"{n.tensor_name(ev.tensor)} is at version {ev.version}: changed by {ev.op}{via}"


def why_tensor_version(ev: Any, c: Why) -> str:
    return ("the storage's version counter went up: every tensor sharing it (views, detach()) sees the new "
            "version, and saved tensors of an older version are stale: backward through their node will refuse")


def what_history_rewrite(ev: Any, n: Names) -> str:
    return (f"{n.tensor_name(ev.tensor)}'s history rewritten: {n.node_name(ev.from_node)} → "
            f"{n.node_name(ev.to_node)} (the view's size {ev.view.get('size')}, stride {ev.view.get('stride')}, "
            f"offset {ev.view.get('offset')})")


def why_history_rewrite(ev: Any, c: Why) -> str:
    return ("an in-place change through a view: the base's grad node becomes a CopySlices node whose inputs "
            "are its old history and the op's result (PyTorch's rebase_history); its views replay their "
            "view functions on the new base")


def what_api_call(ev: Any, n: Names) -> str:
    args = ", ".join(n.tensor_name(t) if isinstance(t, int) and not isinstance(t, bool) else str(t) for t in ev.inputs)
    return f"{ev.op}({args})"


def why_api_call(ev: Any, c: Why) -> str:
    return "API layer: arguments checked; the dygraph layer takes over"


def what_amp_cast(ev: Any, n: Names) -> str:
    return f"{ev.op}: cast {n.tensor_name(ev.tensor)} {ev.from_dtype} → {ev.to_dtype}"


def why_amp_cast(ev: Any, c: Why) -> str:
    return "autocast: this op's AMP category casts its inputs before the kernel runs"


def what_kernel_key(ev: Any, n: Names) -> str:
    return f"{ev.op}: KernelKey {{{ev.backend}, {ev.layout}, {ev.dtype}}}"


def why_kernel_key(ev: Any, c: Why) -> str:
    return "KernelKey from the inputs: backend from their device, dtype by promotion"


def what_kernel_lookup(ev: Any, n: Names) -> str:
    return f"{ev.op}: probe {ev.step} {ev.backend}/{ev.layout}/{ev.dtype}: {'found' if ev.found else 'miss'}"


def why_kernel_lookup(ev: Any, c: Why) -> str:
    if ev.found:
        return "the registry has a kernel for this key: the search stops here"
    return "no kernel registered for this key: the search tries the next step"


def what_kernel_select(ev: Any, n: Names) -> str:
    extra = (" (CPU fallback)" if ev.fallback_cpu else "") + (" (cached selection)" if getattr(ev, "cached", False) else "")
    return f"{ev.op}: select {ev.kernel}{extra}"


def why_kernel_select(ev: Any, c: Why) -> str:
    if getattr(ev, "cached", False):
        return "cached selection: the probes of the first search for this key decided it"
    if ev.fallback_cpu:
        return "no kernel on the requested backend; the CPU fallback flag allowed a CPU kernel"
    return "the first probe that found a kernel decides"


def what_data_transform(ev: Any, n: Names) -> str:
    return f"{ev.op}: {ev.arg} {ev.what} {ev.from_} → {ev.to}"


def why_data_transform(ev: Any, c: Why) -> str:
    return f"PrepareData: the kernel's argument wants {ev.to}, the input is {ev.from_}"


def what_infer_meta(ev: Any, n: Names) -> str:
    shapes = ", ".join(fmt_shape(s) for s in ev.shapes)
    return f"{ev.op}: output {shapes} {', '.join(map(str, ev.dtypes))}"


def why_infer_meta(ev: Any, c: Why) -> str:
    return "InferMeta: output shapes and dtypes are computed and checked before the kernel runs"


def what_kernel_launch(ev: Any, n: Names) -> str:
    return f"{ev.op}: launch {ev.kernel} on {ev.backend} ({ev.wall_ns / 1000:.1f} µs)"


def why_kernel_launch(ev: Any, c: Why) -> str:
    return "the selected kernel runs on the prepared inputs"


def what_device_copy(ev: Any, n: Names) -> str:
    way = "host → GPU" if ev.direction == "h2d" else "GPU → host" if ev.direction == "d2h" else ev.direction
    whose = f" of {n.tensor_name(ev.tensor)}" if ev.tensor is not None else ""
    where = f" at {short_source(ev.source)}" if ev.source else ""
    return f"copy{whose} {way}, {ev.bytes} bytes{where}"


def why_device_copy(ev: Any, c: Why) -> str:
    return "data crossed between the host and the GPU; from ordinary host memory the copy waits for the GPU's queued work"


def what_device_sync(ev: Any, n: Names) -> str:
    where = f" at {short_source(ev.source)}" if ev.source else ""
    return f"the host waits for the GPU ({ev.reason}){where}"


def why_device_sync(ev: Any, c: Why) -> str:
    return ("the program asked for a value the GPU has not computed yet, so Python stops until the GPU's queue "
            "is done; inside a training step this idles the GPU (mg.cuda.set_sync_debug_mode('warn') finds each)")


def what_node_create(ev: Any, n: Names) -> str:
    extra = f" (copy of {n.node_name(ev.copy_of)})" if ev.copy_of is not None else ""
    leaf = f" for {n.tensor_name(ev.tensor)}" if ev.is_accumulation and ev.tensor is not None else ""
    return f"create {ev.name}{leaf}{extra}"


def why_node_create(ev: Any, c: Why) -> str:
    if ev.copy_of is not None:
        return "GeneralGrad works on a copy of the graph, so grad() never changes the user's graph"
    if ev.is_accumulation:
        return "first use of a leaf that requires grad: its AccumulateGrad node (Paddle: GradNodeAccumulation) will write .grad"
    # A custom Function's node is PyTorch's ``<Function>Backward`` (no overload number), Paddle's PyLayer node.
    custom = isinstance(ev.name, str) and ev.name.split("#")[0].endswith("Backward")
    name = "GradNodePyLayer" if custom else paddle_node_name(ev.op) if isinstance(ev.op, str) and ev.op.isidentifier() else ""
    paddle = f" (Paddle: {name})" if name else ""
    return f"an input requires grad and grad mode is on, so the op records a grad node{paddle}"


# -- the backward engine, in its order -------------------------------------------------


def what_backward_begin(ev: Any, n: Names) -> str:
    call = "backward()" if ev.mode == "backward" else "grad()"
    flags = ", retain_graph" if ev.retain_graph else ""
    flags += ", create_graph" if ev.create_graph else ""
    return f"{call} begins at {', '.join(n.node_name(i) for i in ev.start)}{flags}"


def why_backward_begin(ev: Any, c: Why) -> str:
    what = "backward()" if ev.mode == "backward" else "grad() (GeneralGrad)"
    return f"{what} starts from the outputs' grad nodes with their seed gradients"


def what_backward_in_degree(ev: Any, n: Names) -> str:
    return f"in-degree map of {len(ev.in_degree)} nodes"


def why_backward_in_degree(ev: Any, c: Why) -> str:
    return "BFS from the start nodes counts, per node, the edges that lead into it"


def what_queue_push(ev: Any, n: Names) -> str:
    return f"push {n.node_name(ev.node)} to the {'front' if ev.front else 'back'}; queue = {_queue(n, ev.queue)}"


def why_queue_push(ev: Any, c: Why) -> str:
    if ev.front:
        return "pushed to the front: AccumulateGrad nodes jump the queue"
    if c.bw is not None and not c.bw.executed:
        return "a start node enters the ready queue"
    acc = " (alone in the queue, the front rule does not matter)" if c.is_accumulation(ev.node) else ""
    return f"in-degree reached 0: pushed to the back{acc}"


def what_queue_pop(ev: Any, n: Names) -> str:
    return f"pop {n.node_name(ev.node)}; queue = {_queue(n, ev.queue)}"


def why_queue_pop(ev: Any, c: Why) -> str:
    return "the engine always takes the front of the queue"


def what_queue_skip(ev: Any, n: Names) -> str:
    return f"skip {n.node_name(ev.node)}: in-degree still {ev.in_degree}"


def why_queue_skip(ev: Any, c: Why) -> str:
    return f"skipped: in-degree {ev.in_degree} ≠ 0 while other nodes wait; it comes back when its count reaches 0"


def what_node_begin(ev: Any, n: Names) -> str:
    return f"start {n.node_name(ev.node)}"


def why_node_begin(ev: Any, c: Why) -> str:
    if c.is_accumulation(ev.node):
        return "all its gradients are in: the AccumulateGrad node adds them into the leaf's .grad"
    return "all its gradients are in (in-degree 0): it runs its backward formula"


def what_node_run(ev: Any, n: Names) -> str:
    return f"ran {n.node_name(ev.node)}"


def why_node_run(ev: Any, c: Why) -> str:
    if c.is_accumulation(ev.node):
        return "the leaf's .grad is written: the AccumulateGrad node is done"
    return "its backward formula finished: each output gradient now goes along its edge"


def what_buffer_add(ev: Any, n: Names) -> str:
    src = f"from {n.node_name(ev.source)}" if ev.source is not None else "seed"
    return f"buffer {n.node_name(ev.node)}[{ev.slot},{ev.rank}] += {src} = {fmt_value(ev.value, 30)}"


def why_buffer_add(ev: Any, c: Why) -> str:
    if ev.source is None:
        return "the seed gradient goes into the start node's buffer"
    return "gradients for the same (slot, rank) add up in the node's input buffer"


def what_in_degree_update(ev: Any, n: Names) -> str:
    return f"in-degree of {n.node_name(ev.node)} → {ev.in_degree}"


def why_in_degree_update(ev: Any, c: Why) -> str:
    return "one edge delivered its gradient: the count drops by one" + ("; at 0 the node is ready" if ev.in_degree == 0 else "")


def what_hook_run(ev: Any, n: Names) -> str:
    if ev.hook_kind in NODE_HOOK_KINDS:  # a node's own hook: the target is the node
        return f"{ev.hook_kind} hook on {n.node_name(ev.target)}"
    return f"{ev.hook_kind} hook on {n.tensor_name(ev.target)}"


def why_hook_run(ev: Any, c: Why) -> str:
    return "hooks see the gradient before it is used and may replace it"


def what_grad_accumulate(ev: Any, n: Names) -> str:
    added = " (added)" if getattr(ev, "added", None) else ""
    return f"{n.tensor_name(ev.tensor)}.grad = {fmt_value(ev.value, 30)}{added}"


def why_grad_accumulate(ev: Any, c: Why) -> str:
    added = getattr(ev, "added", None)
    earlier = c.earlier_grad_pass(ev.tensor)
    if added and earlier is not None:
        return f"added to the .grad of pass {earlier}: .grad accumulates across backward() calls until zero_grad()"
    if added:
        return "added to the .grad already there: .grad accumulates across backward() calls"
    if added is False and earlier is not None:
        return (f"assigned: .grad was None (zero_grad() cleared the .grad of pass {earlier}), "
                "so nothing is added to it")
    if added is False:
        return ".grad was None, so this gradient is assigned (a later backward() adds to it)"
    return ".grad accumulates across backward() calls: first assigned, then added"


def what_wrappers_clear(ev: Any, n: Names) -> str:
    return f"{n.node_name(ev.node)} releases its TensorWrappers"


def why_wrappers_clear(ev: Any, c: Why) -> str:
    return "released: retain_graph=False, so the node frees its saved tensors after running"


def what_general_grad_copy(ev: Any, n: Names) -> str:
    return f"GeneralGrad copies {len(ev.mapping)} nodes"


def why_general_grad_copy(ev: Any, c: Why) -> str:
    return "grad() never touches the user's graph: GeneralGrad copies the reachable part"


def what_general_grad_targets(ev: Any, n: Names) -> str:
    ins = ", ".join(n.node_name(i) for i in ev.inputs) or "-"
    ng = ", ".join(n.node_name(i) for i in ev.no_grad) or "-"
    return f"GeneralGrad targets {ins}; no_grad {ng}"


def why_general_grad_targets(ev: Any, c: Why) -> str:
    return "the requested inputs become targets; no_grad_vars are marked so their edges can be cut"


def what_general_grad_update(ev: Any, n: Names) -> str:
    return f"GeneralGrad: startup {len(ev.startup)}, ending {len(ev.ending)}, needed {len(ev.needed)}"


def why_general_grad_update(ev: Any, c: Why) -> str:
    return "only nodes on a path from a startup node to an input are needed; the rest are pruned"


def what_general_grad_prune(ev: Any, n: Names) -> str:
    cuts = ", ".join(f"{n.node_name(e.get('node'))}→{n.node_name(e.get('next'))}" for e in ev.edges)
    return f"GeneralGrad cuts {cuts or 'no edge'}"


def why_general_grad_prune(ev: Any, c: Why) -> str:
    return "no_grad_vars: these edges are cut as if the tensors were detached"


def what_general_grad_result(ev: Any, n: Names) -> str:
    return f"grad() result for {n.tensor_name(ev.input)} = {fmt_value(ev.value, 30)}"


def why_general_grad_result(ev: Any, c: Why) -> str:
    return "grad() returns this gradient; the leaf's .grad stays untouched"


def what_backward_end(ev: Any, n: Names) -> str:
    return f"backward ends: {ev.nodes_run} nodes ran in {ev.wall_ns / 1e6:.2f} ms"


def why_backward_end(ev: Any, c: Why) -> str:
    return "the ready queue is empty: the pass is over"


def what_error(ev: Any, n: Names) -> str:
    where = f" in {n.node_name(ev.node)}" if ev.node is not None else (f" in {ev.op}()" if ev.op else "")
    at = f" at {ev.source}" if ev.source else ""
    return f"{ev.error}{where}{at}: {ev.message}"


def why_error(ev: Any, c: Why) -> str:
    ended = getattr(c.bw, "error", None) if c.bw is not None else None
    if ev.node is not None or (ended is not None and ended.get("message") == ev.message):
        return "the exception left backward for the user's code: the pass ends here, unfinished"
    if ev.op:
        return "the exception left the op call for the user's code: the call made nothing"
    return "the exception left minigrad for the user's code (no pass was running)"


# -- saved-tensor hooks and activation checkpointing (kinds of mg.utils.checkpoint) ------------------


def what_saved_pack(ev: Any, n: Names) -> str:
    return f"{ev.hook} packs {n.tensor_name(ev.tensor)} as it is saved"


def why_saved_pack(ev: Any, c: Why) -> str:
    return "a saved-tensor hook is active: the grad node keeps what the pack hook returned, unpacked in backward"


def what_recompute_begin(ev: Any, n: Names) -> str:
    return f"recompute {ev.function} for {n.node_name(ev.node)} ({ev.mode})"


def why_recompute_begin(ev: Any, c: Why) -> str:
    return "activation checkpointing: the forward runs again inside backward to make the tensors it did not save"


def what_checkpoint_saved(ev: Any, n: Names) -> str:
    if ev.use == "keep":
        return f"keep the output of {ev.op} ({ev.aten}, {ev.bytes} bytes) for backward"
    return f"reuse the kept output of {ev.op} ({ev.aten}): its kernel does not run again"


def why_checkpoint_saved(ev: Any, c: Why) -> str:
    return ("selective checkpointing: its policy keeps this op's output from the forward, so the recomputation "
            "inside backward skips the op (memory traded for compute, op by op)")


def what_recompute_end(ev: Any, n: Names) -> str:
    return f"recomputation for {n.node_name(ev.node)} done"


def why_recompute_end(ev: Any, c: Why) -> str:
    return "the tensors the node needs were made again: its backward formula can run"


def _table() -> dict[str, Words]:
    """``kind -> Words``: the handlers above, found by name (``tensor.create`` -> ``what_tensor_create``)."""
    here = globals()
    table = {}
    for kind in EVENT_TYPES:
        name = kind.replace(".", "_")
        what, why = here.get("what_" + name), here.get("why_" + name)
        if what is not None and why is not None:
            table[kind] = Words(what, why)
    return table


#: Every kind's words. A kind without an entry is described by its fields and has no rule.
WORDS: dict[str, Words] = _table()


def describe(ev: Any, names: Names | None = None) -> str:
    """One line saying what ``ev`` did, with node and tensor ids turned into names.

    Args:
        ev: an event (``None``: the moment before the first event).
        names: a ``State`` or anything with ``node_name``/``tensor_name``.
    """
    if ev is None:
        return "before the first event"
    words = WORDS.get(ev.kind)
    if words is None:
        return _generic(ev)
    try:
        return words.what(ev, names if names is not None else _Ids)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError):
        return _generic(ev)


def explain(ev: Any, state: Any = None) -> str:
    """One line naming the engine rule (backward and forward paths, docs/architecture.md) that produced ``ev``.

    Args:
        ev: the event.
        state: the replayed ``State`` *after* ``ev`` (gives node kinds and the
            pass's flags); without it the rule is stated more generally.

    Example:
        >>> from minigrad.tracing import events as E
        >>> explain(E.QueueSkip(node=4, in_degree=2))
        'skipped: in-degree 2 ≠ 0 while other nodes wait; it comes back when its count reaches 0'
    """
    words = WORDS.get(ev.kind) if ev is not None else None
    if words is None:
        return ""
    try:
        return words.why(ev, Why(state))
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError):
        return ""


# ---------------------------------------------------------------------------
# Glossary (the TUI's `?` screen and docs/tui.md use the same words)
# ---------------------------------------------------------------------------

#: term -> one sentence, with the PyTorch and Paddle names.
GLOSSARY: dict[str, str] = {
    "grad node": "records how to send an op's output gradient back to its inputs; named as PyTorch "
    "names it, MulBackward0#3 with its id (PyTorch: Node / grad_fn; Paddle: GradNodeBase, MulGradNode).",
    "slot": "which input (for an edge) or output (for a tensor) of a node; one slot per tensor argument "
    "(PyTorch: input_nr / output_nr; Paddle: slot).",
    "rank": "position inside a slot that holds a list of tensors (concat, stack); 0 otherwise "
    "(Paddle: rank; PyTorch flattens slots and ranks into one input_nr).",
    "edge (slot,rank)": "an edge leaves a node at its (slot, rank) and enters the next node at (next_slot, next_rank) "
    "(PyTorch: next_functions; Paddle: Edge).",
    "topo_nr": "1 + the largest topo_nr of the nodes a node leads to; a node never waits for one with a smaller topo_nr "
    "(PyTorch: topological_nr).",
    "seq_nr": "creation order of grad nodes, increasing over the program (PyTorch: sequence_nr).",
    "in-degree": "how many edges still have to deliver a gradient into a node before it may run "
    "(PyTorch: dependencies; Paddle: node_in_degree_map).",
    "ready queue": "nodes whose in-degree is 0, run front first; AccumulateGrad nodes go to the front "
    "(Paddle: the deque in RunBackward; PyTorch: ReadyQueue).",
    "AccumulateGrad": "the node at a leaf: it adds the incoming gradient into .grad "
    "(PyTorch: AccumulateGrad; Paddle: GradNodeAccumulation).",
    "TensorWrapper": "a saved tensor with a version snapshot, freed after the node runs unless retain_graph "
    "(PyTorch: SavedVariable; Paddle: TensorWrapper).",
    "input buffer": "where a node's incoming gradients are summed per (slot, rank) before it runs "
    "(PyTorch: InputBuffer; Paddle: GradTensorHolder).",
    "startup": "GeneralGrad: a node where the walk for grad() begins (an output's grad node).",
    "ending": "GeneralGrad: a node where an input's gradient is collected; it becomes an AccumulateGrad node in the copy.",
    "needed": "GeneralGrad: a node on some path from a startup node to an input; only needed nodes run.",
    "pruned": "GeneralGrad: a copied node that is not needed, so it never runs.",
    "no_grad": "GeneralGrad: a tensor in no_grad_vars; the edges into it are cut as if it were detached (Paddle only).",
    "released": "a node that ran without retain_graph has freed its saved tensors; a second backward through it fails.",
}
