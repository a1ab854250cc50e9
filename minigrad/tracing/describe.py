"""One describer of events: the words every viewer uses for every event kind.

The renderer's captions, the TUI's status line and event log, and
``minigrad log`` all call ``describe(ev, names)`` for *what happened* and
``explain(ev, state)`` for *why* (the engine rule that produced it; see
the backward path in docs/architecture.md). So the same event reads the
same everywhere, and a new event kind is described once, here.

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

from .numbers import fmt_number

__all__ = ["Names", "describe", "explain", "fmt_value", "fmt_shape", "event_fields", "GLOSSARY"]


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
# What happened
# ---------------------------------------------------------------------------

_Describer = Callable[[Any, Any], str]
_WHAT: dict[str, _Describer] = {}


def _what(kind: str) -> Callable[[_Describer], _Describer]:
    def register(fn: _Describer) -> _Describer:
        _WHAT[kind] = fn
        return fn

    return register


def describe(ev: Any, names: Names | None = None) -> str:
    """One line saying what ``ev`` did, with node and tensor ids turned into names.

    Args:
        ev: an event (``None``: the moment before the first event).
        names: a ``State`` or anything with ``node_name``/``tensor_name``.
    """
    if ev is None:
        return "before the first event"
    fn = _WHAT.get(ev.kind)
    if fn is None:
        return _generic(ev)
    try:
        return fn(ev, names if names is not None else _Ids)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError):
        return _generic(ev)


def _queue(n: Names, queue: Any) -> str:
    return "[" + ", ".join(n.node_name(i) for i in queue) + "]"


@_what("tensor.create")
def _(ev: Any, n: Names) -> str:
    made = f" ← {n.node_name(ev.grad_node)}" if ev.grad_node is not None else (" (leaf)" if ev.is_leaf else "")
    return f"tensor {ev.name} {fmt_shape(ev.shape)} {ev.dtype}{made}"


@_what("tensor.update")
def _(ev: Any, n: Names) -> str:
    return f"{n.tensor_name(ev.tensor)} changed in place by {ev.op} (version {ev.version})"


@_what("tensor.version")
def _(ev: Any, n: Names) -> str:
    via = f" through the view {n.tensor_name(ev.via)}" if ev.via is not None else ""
    return f"{n.tensor_name(ev.tensor)} is at version {ev.version}: changed by {ev.op}{via}"


@_what("history.rewrite")
def _(ev: Any, n: Names) -> str:
    return (f"{n.tensor_name(ev.tensor)}'s history rewritten: {n.node_name(ev.from_node)} → "
            f"{n.node_name(ev.to_node)} (the view's size {ev.view.get('size')}, stride {ev.view.get('stride')}, "
            f"offset {ev.view.get('offset')})")


@_what("api.call")
def _(ev: Any, n: Names) -> str:
    args = ", ".join(n.tensor_name(t) if isinstance(t, int) and not isinstance(t, bool) else str(t) for t in ev.inputs)
    return f"{ev.op}({args})"


@_what("amp.cast")
def _(ev: Any, n: Names) -> str:
    return f"{ev.op}: cast {n.tensor_name(ev.tensor)} {ev.from_dtype} → {ev.to_dtype}"


@_what("kernel.key")
def _(ev: Any, n: Names) -> str:
    return f"{ev.op}: KernelKey {{{ev.backend}, {ev.layout}, {ev.dtype}}}"


@_what("kernel.lookup")
def _(ev: Any, n: Names) -> str:
    return f"{ev.op}: probe {ev.step} {ev.backend}/{ev.layout}/{ev.dtype}: {'found' if ev.found else 'miss'}"


@_what("kernel.select")
def _(ev: Any, n: Names) -> str:
    extra = (" (CPU fallback)" if ev.fallback_cpu else "") + (" (cached selection)" if getattr(ev, "cached", False) else "")
    return f"{ev.op}: select {ev.kernel}{extra}"


@_what("data.transform")
def _(ev: Any, n: Names) -> str:
    return f"{ev.op}: {ev.arg} {ev.what} {ev.from_} → {ev.to}"


@_what("infer_meta")
def _(ev: Any, n: Names) -> str:
    shapes = ", ".join(fmt_shape(s) for s in ev.shapes)
    return f"{ev.op}: output {shapes} {', '.join(map(str, ev.dtypes))}"


@_what("kernel.launch")
def _(ev: Any, n: Names) -> str:
    return f"{ev.op}: launch {ev.kernel} on {ev.backend} ({ev.wall_ns / 1000:.1f} µs)"


@_what("node.create")
def _(ev: Any, n: Names) -> str:
    extra = f" (copy of {n.node_name(ev.copy_of)})" if ev.copy_of is not None else ""
    leaf = f" for {n.tensor_name(ev.tensor)}" if ev.is_accumulation and ev.tensor is not None else ""
    return f"create {ev.name}{leaf}{extra}"


@_what("backward.begin")
def _(ev: Any, n: Names) -> str:
    call = "loss.backward()" if ev.mode == "backward" else "grad()"
    flags = ", retain_graph" if ev.retain_graph else ""
    flags += ", create_graph" if ev.create_graph else ""
    return f"{call} begins at {', '.join(n.node_name(i) for i in ev.start)}{flags}"


@_what("backward.in_degree")
def _(ev: Any, n: Names) -> str:
    return f"in-degree map of {len(ev.in_degree)} nodes"


@_what("queue.push")
def _(ev: Any, n: Names) -> str:
    return f"push {n.node_name(ev.node)} to the {'front' if ev.front else 'back'}; queue = {_queue(n, ev.queue)}"


@_what("queue.pop")
def _(ev: Any, n: Names) -> str:
    return f"pop {n.node_name(ev.node)}; queue = {_queue(n, ev.queue)}"


@_what("queue.skip")
def _(ev: Any, n: Names) -> str:
    return f"skip {n.node_name(ev.node)}: in-degree still {ev.in_degree}"


@_what("node.run")
def _(ev: Any, n: Names) -> str:
    return f"run {n.node_name(ev.node)}"


@_what("buffer.add")
def _(ev: Any, n: Names) -> str:
    src = f"from {n.node_name(ev.source)}" if ev.source is not None else "seed"
    return f"buffer {n.node_name(ev.node)}[{ev.slot},{ev.rank}] += {src} = {fmt_value(ev.value, 30)}"


@_what("in_degree.update")
def _(ev: Any, n: Names) -> str:
    return f"in-degree of {n.node_name(ev.node)} → {ev.in_degree}"


@_what("hook.run")
def _(ev: Any, n: Names) -> str:
    return f"{ev.hook_kind} hook on {n.tensor_name(ev.target)}"


@_what("grad.accumulate")
def _(ev: Any, n: Names) -> str:
    return f"{n.tensor_name(ev.tensor)}.grad = {fmt_value(ev.value, 30)}"


@_what("wrappers.clear")
def _(ev: Any, n: Names) -> str:
    return f"{n.node_name(ev.node)} releases its TensorWrappers"


@_what("general_grad.copy")
def _(ev: Any, n: Names) -> str:
    return f"GeneralGrad copies {len(ev.mapping)} nodes"


@_what("general_grad.targets")
def _(ev: Any, n: Names) -> str:
    ins = ", ".join(n.node_name(i) for i in ev.inputs) or "-"
    ng = ", ".join(n.node_name(i) for i in ev.no_grad) or "-"
    return f"GeneralGrad targets {ins}; no_grad {ng}"


@_what("general_grad.update")
def _(ev: Any, n: Names) -> str:
    return f"GeneralGrad: startup {len(ev.startup)}, ending {len(ev.ending)}, needed {len(ev.needed)}"


@_what("general_grad.prune")
def _(ev: Any, n: Names) -> str:
    cuts = ", ".join(f"{n.node_name(e.get('node'))}→{n.node_name(e.get('next'))}" for e in ev.edges)
    return f"GeneralGrad cuts {cuts or 'no edge'}"


@_what("general_grad.result")
def _(ev: Any, n: Names) -> str:
    return f"grad() result for {n.tensor_name(ev.input)} = {fmt_value(ev.value, 30)}"


@_what("backward.end")
def _(ev: Any, n: Names) -> str:
    return f"backward ends: {ev.nodes_run} nodes ran in {ev.wall_ns / 1e6:.2f} ms"


# ---------------------------------------------------------------------------
# Why: the engine rule behind each event
# ---------------------------------------------------------------------------


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
    if ev is None:
        return ""
    try:
        return _why(ev, state)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError):
        return ""


def _why(ev: Any, state: Any) -> str:  # noqa: C901 - one branch per event kind, in the engine's order
    k = ev.kind
    nodes = getattr(state, "nodes", {}) or {}
    bw = getattr(state, "backward", None)
    names: Names = state if state is not None else _Ids
    if k == "tensor.create":
        if ev.grad_node is not None:
            return f"an op's output: its grad_fn is {names.node_name(ev.grad_node)}, output slot {ev.out_slot} rank {ev.out_rank}"
        return "a leaf: made by the user, not by an op" if ev.is_leaf else "made without history (no input requires grad, or no_grad)"
    if k == "tensor.update":
        return "in-place op: the version counter goes up, and saved copies of the old version become invalid"
    if k == "tensor.version":
        return ("the storage's version counter went up: every tensor sharing it (views, detach()) sees the new "
                "version, and saved tensors of an older version are stale: backward through their node will refuse")
    if k == "history.rewrite":
        return ("an in-place change through a view: the base's grad node becomes a CopySlices node whose inputs "
                "are its old history and the op's result (PyTorch's rebase_history); its views replay their "
                "view functions on the new base")
    if k == "api.call":
        return "API layer: arguments checked; the dygraph layer takes over"
    if k == "amp.cast":
        return "autocast: this op's AMP category casts its inputs before the kernel runs"
    if k == "kernel.key":
        return "KernelKey from the inputs: backend from their device, dtype by promotion"
    if k == "kernel.lookup":
        if ev.found:
            return "the registry has a kernel for this key: the search stops here"
        return "no kernel registered for this key: the search tries the next step"
    if k == "kernel.select":
        if getattr(ev, "cached", False):
            return "cached selection: the probes of the first search for this key decided it"
        if ev.fallback_cpu:
            return "no kernel on the requested backend; the CPU fallback flag allowed a CPU kernel"
        return "the first probe that found a kernel decides"
    if k == "data.transform":
        return f"PrepareData: the kernel's argument wants {ev.to}, the input is {ev.from_}"
    if k == "infer_meta":
        return "InferMeta: output shapes and dtypes are computed and checked before the kernel runs"
    if k == "kernel.launch":
        return "the selected kernel runs on the prepared inputs"
    if k == "node.create":
        if ev.copy_of is not None:
            return "GeneralGrad works on a copy of the graph, so grad() never changes the user's graph"
        if ev.is_accumulation:
            return "first use of a leaf that requires grad: its AccumulationNode will write .grad"
        return "an input requires grad and grad mode is on, so the op records a grad node"
    if k == "backward.begin":
        what = "loss.backward()" if ev.mode == "backward" else "grad() (GeneralGrad)"
        return f"{what} starts from the outputs' grad nodes with their seed gradients"
    if k == "backward.in_degree":
        return "BFS from the start nodes counts, per node, the edges that lead into it"
    if k == "queue.push":
        info = nodes.get(ev.node)
        if ev.front:
            return "pushed to the front: AccumulationNodes jump the queue"
        if bw is not None and not bw.executed:
            return "a start node enters the ready queue"
        acc = " (alone in the queue, the front rule does not matter)" if info is not None and info.is_accumulation else ""
        return f"in-degree reached 0: pushed to the back{acc}"
    if k == "queue.pop":
        return "the engine always takes the front of the queue"
    if k == "queue.skip":
        return (f"skipped: in-degree {ev.in_degree} ≠ 0 while other nodes wait; "
                "it comes back when its count reaches 0")
    if k == "node.run":
        info = nodes.get(ev.node)
        if info is not None and info.is_accumulation:
            return "all its gradients are in: the AccumulationNode adds them into the leaf's .grad"
        return "all its gradients are in (in-degree 0): it runs its backward formula"
    if k == "buffer.add":
        if ev.source is None:
            return "the seed gradient goes into the start node's buffer"
        return "gradients for the same (slot, rank) add up in the node's input buffer"
    if k == "in_degree.update":
        return "one edge delivered its gradient: the count drops by one" + (
            "; at 0 the node is ready" if ev.in_degree == 0 else ""
        )
    if k == "hook.run":
        return "hooks see the gradient before it is used and may replace it"
    if k == "grad.accumulate":
        return ".grad accumulates across backward() calls: first assigned, then added"
    if k == "wrappers.clear":
        return "released: retain_graph=False, so the node frees its saved tensors after running"
    if k == "general_grad.copy":
        return "grad() never touches the user's graph: GeneralGrad copies the reachable part"
    if k == "general_grad.targets":
        return "the requested inputs become targets; no_grad_vars are marked so their edges can be cut"
    if k == "general_grad.update":
        return "only nodes on a path from a startup node to an input are needed; the rest are pruned"
    if k == "general_grad.prune":
        return "no_grad_vars: these edges are cut as if the tensors were detached"
    if k == "general_grad.result":
        return "grad() returns this gradient; the leaf's .grad stays untouched"
    if k == "backward.end":
        return "the ready queue is empty: the pass is over"
    return ""


# ---------------------------------------------------------------------------
# Glossary (the TUI's `?` screen and docs/tui.md use the same words)
# ---------------------------------------------------------------------------

#: term -> one sentence, with the PyTorch and Paddle names.
GLOSSARY: dict[str, str] = {
    "grad node": "records how to send an op's output gradient back to its inputs "
    "(PyTorch: Node / grad_fn; Paddle: GradNodeBase).",
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
    "ready queue": "nodes whose in-degree is 0, run front first; AccumulationNodes go to the front "
    "(Paddle: the deque in RunBackward; PyTorch: ReadyQueue).",
    "AccumulationNode": "the node at a leaf: it adds the incoming gradient into .grad "
    "(PyTorch: AccumulateGrad; Paddle: GradNodeAccumulation).",
    "TensorWrapper": "a saved tensor with a version snapshot, freed after the node runs unless retain_graph "
    "(PyTorch: SavedVariable; Paddle: TensorWrapper).",
    "input buffer": "where a node's incoming gradients are summed per (slot, rank) before it runs "
    "(PyTorch: InputBuffer; Paddle: GradTensorHolder).",
    "startup": "GeneralGrad: a node where the walk for grad() begins (an output's grad node).",
    "ending": "GeneralGrad: a node where an input's gradient is collected; it becomes an AccumulationNode in the copy.",
    "needed": "GeneralGrad: a node on some path from a startup node to an input; only needed nodes run.",
    "pruned": "GeneralGrad: a copied node that is not needed, so it never runs.",
    "no_grad": "GeneralGrad: a tensor in no_grad_vars; the edges into it are cut as if it were detached (Paddle only).",
    "released": "a node that ran without retain_graph has freed its saved tensors; a second backward through it fails.",
}
