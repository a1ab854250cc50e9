"""Replay: fold an event list into a sequence of immutable states.

The viewers (renderer, TUI) never re-implement the engine: they draw the
states that ``replay`` computes from the events alone. ``replay(events)[i]``
is the world *after* event ``i``: the graph seen so far (nodes, edges,
tensors), each forward op call with its kernel-selection steps, and, for
every backward pass begun so far, its ready queue, in-degree map, gradient
buffers, current node, executed and released nodes and GeneralGrad marks; and
what the program asked of the GPU (launches, host<->device copies, syncs), per
stretch - the forward before each pass, the pass - and per source line
(``State.device``, drawn by the viewers' Device tabs).

NOTE [ Checkpoints make time travel cheap ]
    A 5 000-node backward pass has tens of thousands of events; keeping a full
    copy of every state would cost gigabytes. ``Replay`` folds the events once
    with a mutable reducer and keeps a frozen snapshot every
    ``CHECKPOINT_EVERY`` events. ``replay[i]`` restores the nearest earlier
    snapshot and folds forward at most that many events, so stepping in either
    direction is fast and always lands on exactly the same (equal) state.

Example:
    >>> import minigrad as mg
    >>> with mg.trace() as tr:
    ...     x = mg.tensor([1.0, 2.0], requires_grad=True)
    ...     (x * x).sum().backward()
    >>> states = mg.trace.replay(tr.events)
    >>> final = states[-1]
    >>> final.backward.done, len(final.backward.executed) > 0
    (True, True)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Sequence

from .events import Event
from .memory import Memory
from .versions import VersionHistory

__all__ = [
    "EdgeInfo",
    "NodeInfo",
    "TensorInfo",
    "OpCall",
    "GeneralGradMarks",
    "BackwardPass",
    "State",
    "Replay",
    "replay",
    "node_status",
    "VersionBump",
    "HistoryRewriteInfo",
    "StaleSaved",
    "stale_saved",
    "DeviceTally",
    "DeviceSpan",
    "device_lines",
]

CHECKPOINT_EVERY = 128
MAX_CHECKPOINTS = 200

_EMPTY: Mapping[Any, Any] = MappingProxyType({})


def _empty() -> Mapping[Any, Any]:
    return _EMPTY


@dataclass(frozen=True)
class EdgeInfo:
    """An output edge of a grad node: (slot, rank) -> next node's (next_slot, next_rank)."""

    slot: int
    rank: int
    next: int | None
    next_slot: int
    next_rank: int


@dataclass(frozen=True)
class NodeInfo:
    """A grad node as announced by ``node.create`` (and edited by GeneralGrad)."""

    id: int
    name: str
    op: str
    topo_nr: int
    seq_nr: int
    is_accumulation: bool
    tensor: int | None
    copy_of: int | None
    edges: tuple[EdgeInfo, ...]
    saved: tuple[int, ...]
    attrs: Mapping[str, Any]
    created_at: int
    source: str | None = None  # file:line of the user's call that made it (recorded traces only)
    module: str | None = None  # the nn.Module path that was running
    recompute_of: int | None = None  # made by activation checkpointing's recomputation, which this node asked for
    #: The version of each ``saved`` tensor when the node saved it (the version known to replay then).
    saved_versions: tuple[int, ...] = ()

    @property
    def next_nodes(self) -> tuple[int, ...]:
        """Ids of the nodes this node's edges lead to (in slot, rank order)."""
        return tuple(e.next for e in self.edges if e.next is not None)


@dataclass(frozen=True)
class VersionBump:
    """One ``tensor.version``: at event ``index`` the in-place op ``op`` (through the view ``via``, if
    any) took the counter of ``tensor`` and its ``aliases`` to ``version``."""

    index: int
    tensor: int
    version: int
    op: str
    via: int | None
    aliases: tuple[int, ...]


@dataclass(frozen=True)
class HistoryRewriteInfo:
    """One ``history.rewrite``: the base ``tensor``'s grad node went from ``from_node`` to ``to_node``
    (the CopySlices node), for a change through the view of geometry ``view``."""

    index: int
    tensor: int
    from_node: int | None
    to_node: int
    view: Mapping[str, Any]


@dataclass(frozen=True)
class StaleSaved:
    """A saved tensor of ``node`` changed in place since it was saved: backward through ``node`` will raise."""

    node: int
    tensor: int
    saved_version: int
    version: int


@dataclass(frozen=True)
class TensorInfo:
    """A tensor as announced by ``tensor.create`` / ``tensor.update``."""

    id: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    device: str
    requires_grad: bool
    is_leaf: bool
    grad_node: int | None
    out_slot: int
    out_rank: int
    value: Any
    created_at: int
    version: int = 0
    base: int | None = None  # a view's root base (``tensor.create``'s ``base``)


@dataclass(frozen=True)
class OpCall:
    """One op call through the four layers: API, AMP, kernel selection, launch.

    ``phase`` is ``"backward"`` for calls made by backward formulas while a
    backward pass runs, ``"forward"`` otherwise.
    """

    index: int
    op: str
    inputs: tuple[Any, ...]
    attrs: Mapping[str, Any]
    phase: str
    amp_casts: tuple[Mapping[str, Any], ...] = ()
    key: Mapping[str, Any] | None = None
    lookups: tuple[Mapping[str, Any], ...] = ()
    select: Mapping[str, Any] | None = None
    transforms: tuple[Mapping[str, Any], ...] = ()
    infer_meta: Mapping[str, Any] | None = None
    launch: Mapping[str, Any] | None = None
    outputs: tuple[int, ...] = ()
    node: int | None = None
    #: The ``error`` that ended the call (as ``BackwardPass.error``), or None.
    error: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class GeneralGradMarks:
    """What GeneralGrad decided for a ``grad()`` pass (all ids are copied nodes)."""

    copies: Mapping[int, int] = field(default_factory=_empty)
    inputs: tuple[int, ...] = ()
    no_grad: tuple[int, ...] = ()
    startup: frozenset[int] = frozenset()
    ending: frozenset[int] = frozenset()
    needed: frozenset[int] = frozenset()
    pruned: tuple[Mapping[str, Any], ...] = ()
    results: Mapping[int, Any] = field(default_factory=_empty)


@dataclass(frozen=True)
class BackwardPass:
    """The engine's state during (or after) one ``run_backward``."""

    number: int
    mode: str
    start: tuple[int, ...]
    retain_graph: bool
    create_graph: bool
    begin_at: int
    end_at: int | None = None
    in_degree: Mapping[int, int] = field(default_factory=_empty)
    initial_in_degree: Mapping[int, int] = field(default_factory=_empty)
    queue: tuple[int, ...] = ()
    buffers: Mapping[int, Mapping[tuple[int, int], Any]] = field(default_factory=_empty)
    current: int | None = None
    executed: tuple[int, ...] = ()
    skipped: tuple[int, ...] = ()
    released: frozenset[int] = frozenset()
    last_changed: int | None = None
    grads_in: Mapping[int, Any] = field(default_factory=_empty)
    grads_out: Mapping[int, Any] = field(default_factory=_empty)
    accumulated: Mapping[int, Any] = field(default_factory=_empty)
    #: tensor id -> whether this pass added to a ``.grad`` already there (``grad.accumulate``'s ``added``).
    grad_added: Mapping[int, bool | None] = field(default_factory=_empty)
    hooks: tuple[Mapping[str, Any], ...] = ()
    general: GeneralGradMarks | None = None
    nodes_run: int = 0
    wall_ns: int = 0
    #: The ``error`` that ended the pass: ``{"error", "message", "source", "node", "op", "at"}`` (``at``: its
    #: event index), or None. A pass ended by an error is over (``done``) without a ``backward.end``.
    error: Mapping[str, Any] | None = None

    @property
    def done(self) -> bool:
        """True once the pass is over: ``backward.end`` was seen, or the ``error`` that ended it."""
        return self.end_at is not None

    @property
    def nodes(self) -> frozenset[int]:
        """The nodes taking part: everything in the in-degree map plus the start nodes."""
        return frozenset(self.initial_in_degree) | frozenset(self.start) | frozenset(self.executed)


#: The backends whose kernels run on the GPU (``kernel.launch``'s ``backend``); a CPU launch is no device work.
GPU_BACKENDS = frozenset({"GPU", "GPUDNN"})


@dataclass(frozen=True)
class DeviceTally:
    """What a stretch of the program asked of the GPU: kernel launches, host<->device copies (count and
    bytes each way) and syncs by reason (``device.sync``'s ``reason``: ``item``, ``print``, ...)."""

    launches: int = 0
    h2d: int = 0
    d2h: int = 0
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    syncs: Mapping[str, int] = field(default_factory=_empty)

    @property
    def copies(self) -> int:
        return self.h2d + self.d2h

    @property
    def sync_count(self) -> int:
        return sum(self.syncs.values())

    @property
    def empty(self) -> bool:
        return not (self.launches or self.copies or self.syncs)

    def __add__(self, other: "DeviceTally") -> "DeviceTally":
        syncs = dict(self.syncs)
        for reason, n in other.syncs.items():
            syncs[reason] = syncs.get(reason, 0) + n
        return DeviceTally(self.launches + other.launches, self.h2d + other.h2d, self.d2h + other.d2h,
                           self.h2d_bytes + other.h2d_bytes, self.d2h_bytes + other.d2h_bytes,
                           MappingProxyType(syncs))


@dataclass(frozen=True)
class DeviceSpan:
    """The GPU work of one stretch of the recording, as a learner reads a training loop: backward pass
    ``pass_no`` (``phase == "backward"``), or the forward before it (``phase == "forward"``: the ops,
    the optimizer step and the prints between two passes, ``pass_no`` the pass that follows it, or
    ``len(passes)`` after the last). ``lines`` splits ``tally`` by the user's ``file:line`` (``None``: no
    line recorded - an op under ``no_grad`` makes no grad node to carry one). A launch in backward counts
    for the line that made the node running it."""

    phase: str
    pass_no: int
    begin: int
    end: int | None = None
    tally: DeviceTally = DeviceTally()
    lines: Mapping[str | None, DeviceTally] = field(default_factory=_empty)


def device_lines(spans: Sequence[DeviceSpan]) -> dict[str | None, DeviceTally]:
    """The ``lines`` of ``spans`` added up: what each source line asked of the GPU over those stretches."""
    out: dict[str | None, DeviceTally] = {}
    for span in spans:
        for source, tally in span.lines.items():
            out[source] = out.get(source, DeviceTally()) + tally
    return out


@dataclass(frozen=True)
class State:
    """Everything a viewer may draw after event ``index`` (``-1``: before any event)."""

    index: int
    event: Event | None
    nodes: Mapping[int, NodeInfo]
    tensors: Mapping[int, TensorInfo]
    calls: tuple[OpCall, ...]
    passes: tuple[BackwardPass, ...]
    #: Every ``tensor.version`` so far, and every ``history.rewrite`` so far, in order.
    versions: tuple[VersionBump, ...] = ()
    rewrites: tuple[HistoryRewriteInfo, ...] = ()
    #: Every ``error`` event so far, as ``BackwardPass.error`` holds one, in order.
    errors: tuple[Mapping[str, Any], ...] = ()
    #: The GPU work so far, stretch by stretch: the forward before pass 0, pass 0, the forward between
    #: passes 0 and 1, ... (``DeviceSpan``); all empty on a recording made on the CPU.
    device: tuple[DeviceSpan, ...] = ()

    @property
    def backward(self) -> BackwardPass | None:
        """The latest backward pass begun so far (running or done), if any."""
        return self.passes[-1] if self.passes else None

    def node_name(self, node_id: int | None) -> str:
        """Display name of a node id (``MulBackward0#3``), tolerant of unknown ids."""
        if node_id is None:
            return "-"
        info = self.nodes.get(node_id)
        return info.name if info is not None else f"node#{node_id}"

    def tensor_name(self, tensor_id: int | None) -> str:
        """Display name of a tensor id, tolerant of unknown ids."""
        if tensor_id is None:
            return "-"
        info = self.tensors.get(tensor_id)
        return info.name if info is not None else f"t{tensor_id}"


def stale_saved(state: State) -> list[StaleSaved]:
    """The saved tensors that in-place changes made stale so far, node by node (what a backward
    through those nodes would refuse): each saved tensor whose version now differs from its saved one."""
    out = []
    for node in state.nodes.values():
        for tid, saved_at in zip(node.saved, node.saved_versions):
            info = state.tensors.get(tid)
            if info is not None and info.version != saved_at:
                out.append(StaleSaved(node.id, tid, saved_at, info.version))
    return out


def node_status(state: State, node_id: int, bw: BackwardPass | None = None) -> str:
    """A node's status in a backward pass.

    One of ``"running"`` (popped and about to run / running; or the node an error stopped), ``"released"``
    (ran and freed its TensorWrappers), ``"done"`` (ran), ``"queued"`` (in the
    ready queue), ``"pending"`` (waiting for gradients) or ``"idle"`` (not part
    of the pass).
    """
    bw = bw if bw is not None else state.backward
    if bw is None:
        return "idle"
    if bw.current == node_id and (not bw.done or bw.error is not None):
        return "running"  # (a pass ended by an error keeps the node that failed in focus, as it ran then)
    if node_id in bw.released:
        return "released"
    if node_id in bw.executed:
        return "done"
    if node_id in bw.queue:
        return "queued"
    if node_id in bw.initial_in_degree or node_id in bw.start:
        return "pending"
    return "idle"


# ---------------------------------------------------------------------------
# The reducer: a mutable fold over events, frozen into States on demand.
# ---------------------------------------------------------------------------


class _PassBuilder:
    """Mutable twin of ``BackwardPass`` used while folding."""

    def __init__(self, number: int, ev: Any, index: int) -> None:
        self.number = number
        self.mode = ev.mode
        self.start = tuple(ev.start)
        self.retain_graph = ev.retain_graph
        self.create_graph = ev.create_graph
        self.begin_at = index
        self.end_at: int | None = None
        self.in_degree: dict[int, int] = {}
        self.initial_in_degree: dict[int, int] = {}
        self.queue: tuple[int, ...] = ()
        self.buffers: dict[int, dict[tuple[int, int], Any]] = {}
        self.current: int | None = None
        self.executed: list[int] = []
        self.skipped: list[int] = []
        self.released: set[int] = set()
        self.last_changed: int | None = None
        self.grads_in: dict[int, Any] = {}
        self.grads_out: dict[int, Any] = {}
        self.accumulated: dict[int, Any] = {}
        self.grad_added: dict[int, bool | None] = {}
        self.hooks: list[Mapping[str, Any]] = []
        self.general: GeneralGradMarks | None = None
        self.nodes_run = 0
        self.wall_ns = 0
        self.error: Mapping[str, Any] | None = None

    def clone(self) -> "_PassBuilder":
        other = copy.copy(self)
        other.in_degree = dict(self.in_degree)
        other.initial_in_degree = dict(self.initial_in_degree)
        other.buffers = {k: dict(v) for k, v in self.buffers.items()}
        other.executed = list(self.executed)
        other.skipped = list(self.skipped)
        other.released = set(self.released)
        other.grads_in = dict(self.grads_in)
        other.grads_out = dict(self.grads_out)
        other.accumulated = dict(self.accumulated)
        other.grad_added = dict(self.grad_added)
        other.hooks = list(self.hooks)
        return other

    def freeze(self) -> BackwardPass:
        return BackwardPass(
            number=self.number,
            mode=self.mode,
            start=self.start,
            retain_graph=self.retain_graph,
            create_graph=self.create_graph,
            begin_at=self.begin_at,
            end_at=self.end_at,
            in_degree=MappingProxyType(dict(self.in_degree)),
            initial_in_degree=MappingProxyType(dict(self.initial_in_degree)),
            queue=self.queue,
            buffers=MappingProxyType({k: MappingProxyType(dict(v)) for k, v in self.buffers.items()}),
            current=self.current,
            executed=tuple(self.executed),
            skipped=tuple(self.skipped),
            released=frozenset(self.released),
            last_changed=self.last_changed,
            grads_in=MappingProxyType(dict(self.grads_in)),
            grads_out=MappingProxyType(dict(self.grads_out)),
            accumulated=MappingProxyType(dict(self.accumulated)),
            grad_added=MappingProxyType(dict(self.grad_added)),
            hooks=tuple(self.hooks),
            general=self.general,
            nodes_run=self.nodes_run,
            wall_ns=self.wall_ns,
            error=self.error,
        )


class _CallBuilder:
    """Mutable twin of ``OpCall`` while its events arrive (frozen when complete)."""

    __slots__ = ("index", "op", "inputs", "attrs", "phase", "amp_casts", "key", "lookups", "select", "transforms",
                 "infer_meta", "launch", "outputs", "node", "error")

    def __init__(self, index: int, ev: Any, phase: str) -> None:
        self.index = index
        self.op = ev.op
        self.inputs = tuple(ev.inputs)
        self.attrs = MappingProxyType(dict(ev.attrs))
        self.phase = phase
        self.amp_casts: list[Mapping[str, Any]] = []
        self.key: Mapping[str, Any] | None = None
        self.lookups: list[Mapping[str, Any]] = []
        self.select: Mapping[str, Any] | None = None
        self.transforms: list[Mapping[str, Any]] = []
        self.infer_meta: Mapping[str, Any] | None = None
        self.launch: Mapping[str, Any] | None = None
        self.outputs: list[int] = []
        self.node: int | None = None
        self.error: Mapping[str, Any] | None = None

    def clone(self) -> "_CallBuilder":
        other = copy.copy(self)
        other.amp_casts = list(self.amp_casts)
        other.lookups = list(self.lookups)
        other.transforms = list(self.transforms)
        other.outputs = list(self.outputs)
        return other

    def freeze(self) -> OpCall:
        return OpCall(
            index=self.index, op=self.op, inputs=self.inputs, attrs=self.attrs, phase=self.phase,
            amp_casts=tuple(self.amp_casts), key=self.key, lookups=tuple(self.lookups), select=self.select,
            transforms=tuple(self.transforms), infer_meta=self.infer_meta, launch=self.launch,
            outputs=tuple(self.outputs), node=self.node, error=self.error,
        )


class _SpanBuilder:
    """Mutable twin of ``DeviceSpan``: counts as plain numbers, ``lines`` as ``source -> [launches, h2d,
    d2h, h2d_bytes, d2h_bytes, {reason: syncs}]``."""

    __slots__ = ("phase", "pass_no", "begin", "counts", "lines")

    def __init__(self, phase: str, pass_no: int, begin: int) -> None:
        self.phase, self.pass_no, self.begin = phase, pass_no, begin
        self.counts: list[Any] = [0, 0, 0, 0, 0, {}]
        self.lines: dict[str | None, list[Any]] = {}

    def clone(self) -> "_SpanBuilder":
        other = _SpanBuilder(self.phase, self.pass_no, self.begin)
        other.counts = self.counts[:5] + [dict(self.counts[5])]
        other.lines = {k: v[:5] + [dict(v[5])] for k, v in self.lines.items()}
        return other

    def add(self, source: str | None, slot: int, n: int = 1, reason: str | None = None) -> None:
        """Count ``n`` in ``slot`` (0 launches, 1 h2d, 2 d2h, 3 h2d bytes, 4 d2h bytes, 5 syncs by ``reason``),
        for the span and for ``source``'s line."""
        for counts in (self.counts, self.lines.setdefault(source, [0, 0, 0, 0, 0, {}])):
            if slot == 5:
                counts[5][reason] = counts[5].get(reason, 0) + n
            else:
                counts[slot] += n

    def freeze(self, end: int | None = None) -> DeviceSpan:
        def tally(c: list[Any]) -> DeviceTally:
            return DeviceTally(c[0], c[1], c[2], c[3], c[4], MappingProxyType(dict(c[5])))

        return DeviceSpan(self.phase, self.pass_no, self.begin, end, tally(self.counts),
                          MappingProxyType({k: tally(v) for k, v in self.lines.items()}))


class _Reducer:
    """Folds events one at a time. ``snapshot()`` supports checkpoints."""

    def __init__(self) -> None:
        self.index = -1
        self.event: Event | None = None
        self.nodes: dict[int, NodeInfo] = {}
        self.tensors: dict[int, TensorInfo] = {}
        #: base tensor id -> the ids of its views (reducer-internal, for ``_on_tensor_version``)
        self.views_of: dict[int, list[int]] = {}
        self.calls: list[OpCall] = []  # complete calls, frozen
        self.passes: list[BackwardPass] = []  # finished passes, frozen
        self.active: _PassBuilder | None = None
        self.open: _CallBuilder | None = None  # the op call whose events are still arriving
        self.recomputing: tuple[int, ...] = ()  # nodes whose recomputation is running (recompute.begin), innermost last
        self.versions: list[VersionBump] = []
        self.rewrites: list[HistoryRewriteInfo] = []
        self.errors: list[Mapping[str, Any]] = []
        self.spans: list[DeviceSpan] = []  # finished stretches of GPU work, frozen
        self.span = _SpanBuilder("forward", 0, 0)  # the stretch the events now arriving belong to

    # -- checkpoints -------------------------------------------------------

    def snapshot(self) -> "_Reducer":
        """An independent copy (values are immutable, so containers are copied one level)."""
        other = _Reducer.__new__(_Reducer)
        other.index = self.index
        other.event = self.event
        other.nodes = dict(self.nodes)
        other.tensors = dict(self.tensors)
        other.views_of = {k: list(v) for k, v in self.views_of.items()}
        other.calls = list(self.calls)
        other.passes = list(self.passes)
        other.active = self.active.clone() if self.active is not None else None
        other.open = self.open.clone() if self.open is not None else None
        other.recomputing = self.recomputing
        other.versions = list(self.versions)
        other.rewrites = list(self.rewrites)
        other.errors = list(self.errors)
        other.spans = list(self.spans)
        other.span = self.span.clone()
        return other

    def freeze(self) -> State:
        passes = tuple(self.passes)
        if self.active is not None:
            passes = passes + (self.active.freeze(),)
        calls = tuple(self.calls)
        if self.open is not None:
            calls = calls + (self.open.freeze(),)
        return State(
            index=self.index,
            event=self.event,
            nodes=MappingProxyType(dict(self.nodes)),
            tensors=MappingProxyType(dict(self.tensors)),
            calls=calls,
            passes=passes,
            versions=tuple(self.versions),
            rewrites=tuple(self.rewrites),
            errors=tuple(self.errors),
            device=(*self.spans, self.span.freeze()),
        )

    # -- folding -----------------------------------------------------------

    def apply(self, ev: Event) -> None:
        self.index += 1
        self.event = ev
        handler = getattr(self, "_on_" + ev.kind.replace(".", "_"), None)
        if handler is not None:
            handler(ev)

    def _call_for(self, op: str) -> _CallBuilder | None:
        """The open call, if ``op`` is its op (kernel events name the op they belong to)."""
        call = self.open
        return call if call is not None and call.op == op else None

    def _close_call(self) -> None:
        if self.open is not None:
            call = self.open
            if call.launch is not None and call.phase == "forward" and call.launch["backend"] in GPU_BACKENDS:
                # A forward launch counts for the line that made its grad node (known once the call is over).
                node = self.nodes.get(call.node) if call.node is not None else None
                self.span.lines.setdefault(node.source if node is not None else None, [0, 0, 0, 0, 0, {}])[0] += 1
            self.calls.append(call.freeze())
            self.open = None

    def _on_tensor_create(self, ev: Any) -> None:
        self.tensors[ev.tensor] = TensorInfo(
            id=ev.tensor,
            name=ev.name,
            shape=tuple(ev.shape),
            dtype=ev.dtype,
            device=ev.device,
            requires_grad=ev.requires_grad,
            is_leaf=ev.is_leaf,
            grad_node=ev.grad_node,
            out_slot=ev.out_slot,
            out_rank=ev.out_rank,
            value=ev.value,
            created_at=self.index,
            base=getattr(ev, "base", None),
        )
        if getattr(ev, "base", None) is not None:
            self.views_of.setdefault(ev.base, []).append(ev.tensor)
        call = self.open
        if call is not None and call.launch is not None:
            call.outputs.append(ev.tensor)
            if ev.grad_node is not None:
                call.node = ev.grad_node
            expected = len(call.infer_meta["shapes"]) if call.infer_meta is not None else 1
            if len(call.outputs) >= expected:
                self._close_call()  # complete: later tensors are not its outputs

    def _on_tensor_update(self, ev: Any) -> None:
        old = self.tensors.get(ev.tensor)
        if old is None:
            return
        self.tensors[ev.tensor] = replace(
            old,
            requires_grad=ev.requires_grad,
            is_leaf=ev.is_leaf,
            grad_node=ev.grad_node,
            out_slot=ev.out_slot,
            out_rank=ev.out_rank,
            value=ev.value,
            version=ev.version,
        )

    def _on_api_call(self, ev: Any) -> None:
        self._close_call()
        phase = "backward" if (self.active is not None and self.active.end_at is None) else "forward"
        self.open = _CallBuilder(self.index, ev, phase)

    def _on_amp_cast(self, ev: Any) -> None:
        if self.open is not None:
            self.open.amp_casts.append(
                MappingProxyType({"tensor": ev.tensor, "from_dtype": ev.from_dtype, "to_dtype": ev.to_dtype})
            )

    def _on_kernel_key(self, ev: Any) -> None:
        call = self._call_for(ev.op)
        if call is not None:
            call.key = MappingProxyType({"backend": ev.backend, "layout": ev.layout, "dtype": ev.dtype})

    def _on_kernel_lookup(self, ev: Any) -> None:
        call = self._call_for(ev.op)
        if call is not None:
            call.lookups.append(MappingProxyType(
                {"backend": ev.backend, "layout": ev.layout, "dtype": ev.dtype, "step": ev.step, "found": ev.found}
            ))

    def _on_kernel_select(self, ev: Any) -> None:
        call = self._call_for(ev.op)
        if call is not None:
            call.select = MappingProxyType(
                {
                    "kernel": ev.kernel,
                    "backend": ev.backend,
                    "layout": ev.layout,
                    "dtype": ev.dtype,
                    "fallback_cpu": ev.fallback_cpu,
                    "cached": getattr(ev, "cached", False),
                }
            )

    def _on_data_transform(self, ev: Any) -> None:
        call = self._call_for(ev.op)
        if call is not None:
            call.transforms.append(MappingProxyType({"arg": ev.arg, "what": ev.what, "from": ev.from_, "to": ev.to}))

    def _on_infer_meta(self, ev: Any) -> None:
        call = self._call_for(ev.op)
        if call is not None:
            call.infer_meta = MappingProxyType({"shapes": ev.shapes, "dtypes": ev.dtypes})

    def _on_kernel_launch(self, ev: Any) -> None:
        call = self._call_for(ev.op)
        if call is not None:
            call.launch = MappingProxyType({"kernel": ev.kernel, "backend": ev.backend, "wall_ns": ev.wall_ns})
        if ev.backend not in GPU_BACKENDS:
            return
        self.span.counts[0] += 1
        if call is None or call.phase != "forward":  # (a forward call's line is counted when it closes)
            bw = self.active
            node = self.nodes.get(bw.current) if bw is not None and bw.current is not None else None
            self.span.lines.setdefault(node.source if node is not None else None, [0, 0, 0, 0, 0, {}])[0] += 1

    def _on_device_copy(self, ev: Any) -> None:
        way = 1 if ev.direction == "h2d" else 2
        self.span.add(ev.source, way)
        self.span.add(ev.source, way + 2, ev.bytes)

    def _on_device_sync(self, ev: Any) -> None:
        self.span.add(ev.source, 5, reason=ev.reason)

    def _next_span(self, phase: str, pass_no: int, begin: int) -> None:
        """The stretch of GPU work so far ends at the event before ``begin``; ``phase`` begins there."""
        self.spans.append(self.span.freeze(begin - 1))
        self.span = _SpanBuilder(phase, pass_no, begin)

    def _on_node_create(self, ev: Any) -> None:
        edges = tuple(
            EdgeInfo(
                slot=e["slot"],
                rank=e["rank"],
                next=e.get("next"),
                next_slot=e.get("next_slot", 0),
                next_rank=e.get("next_rank", 0),
            )
            for e in ev.edges
        )
        self.nodes[ev.node] = NodeInfo(
            id=ev.node,
            name=ev.name,
            op=ev.op,
            topo_nr=ev.topo_nr,
            seq_nr=ev.seq_nr,
            is_accumulation=ev.is_accumulation,
            tensor=ev.tensor,
            copy_of=ev.copy_of,
            edges=edges,
            saved=tuple(ev.saved),
            attrs=MappingProxyType(dict(ev.attrs)),
            created_at=self.index,
            source=getattr(ev, "source", None),
            module=getattr(ev, "module", None),
            recompute_of=self.recomputing[-1] if self.recomputing else None,
            saved_versions=tuple(self._version_of(t) for t in ev.saved),
        )

    def _on_recompute_begin(self, ev: Any) -> None:
        self.recomputing = self.recomputing + (ev.node,)

    def _on_recompute_end(self, ev: Any) -> None:
        self.recomputing = self.recomputing[:-1]

    def _version_of(self, tensor_id: int) -> int:
        info = self.tensors.get(tensor_id)
        return info.version if info is not None else 0

    def _on_tensor_version(self, ev: Any) -> None:
        # The base, the live aliases the event names, and every view ever announced of the base: a view
        # gone by now may still be what a node saved (``weight.t()`` saved by ``addmm``).
        for tid in dict.fromkeys((ev.tensor, *ev.aliases, *self.views_of.get(ev.tensor, ()))):
            old = self.tensors.get(tid)
            if old is not None:
                self.tensors[tid] = replace(old, version=ev.version)
        self.versions.append(VersionBump(self.index, ev.tensor, ev.version, ev.op, ev.via, tuple(ev.aliases)))

    def _on_history_rewrite(self, ev: Any) -> None:
        old = self.tensors.get(ev.tensor)
        if old is not None:
            self.tensors[ev.tensor] = replace(old, grad_node=ev.to_node, is_leaf=False, requires_grad=True)
        self.rewrites.append(HistoryRewriteInfo(self.index, ev.tensor, ev.from_node, ev.to_node,
                                                MappingProxyType(dict(ev.view))))

    # -- backward ----------------------------------------------------------

    def _on_backward_begin(self, ev: Any) -> None:
        if self.active is not None:
            self.passes.append(self.active.freeze())
        self.active = _PassBuilder(len(self.passes), ev, self.index)
        self._close_call()
        self._next_span("backward", self.active.number, self.index)

    def _on_backward_in_degree(self, ev: Any) -> None:
        if self.active is not None:
            self.active.in_degree = dict(ev.in_degree)
            self.active.initial_in_degree = dict(ev.in_degree)

    def _on_queue_push(self, ev: Any) -> None:
        if self.active is not None:
            self.active.queue = tuple(ev.queue)

    def _on_queue_pop(self, ev: Any) -> None:
        if self.active is not None:
            self.active.queue = tuple(ev.queue)
            self.active.current = ev.node
            self._close_call()

    def _on_queue_skip(self, ev: Any) -> None:
        if self.active is not None:
            self.active.skipped.append(ev.node)
            if self.active.current == ev.node:
                self.active.current = None

    def _on_node_begin(self, ev: Any) -> None:
        if self.active is not None:
            self.active.current = ev.node
            self.active.grads_in[ev.node] = ev.grads_in
            # The node took its GradTensorHolder out of the buffers.
            self.active.buffers.pop(ev.node, None)
            self._close_call()

    def _on_node_run(self, ev: Any) -> None:
        if self.active is not None:
            self.active.current = ev.node
            self.active.executed.append(ev.node)
            self.active.nodes_run += 1
            self.active.grads_in[ev.node] = ev.grads_in
            self.active.grads_out[ev.node] = ev.grads_out
            # The node consumed its GradTensorHolder.
            self.active.buffers.pop(ev.node, None)

    def _on_buffer_add(self, ev: Any) -> None:
        if self.active is not None:
            self.active.buffers.setdefault(ev.node, {})[(ev.slot, ev.rank)] = ev.value

    def _on_in_degree_update(self, ev: Any) -> None:
        if self.active is not None:
            self.active.in_degree[ev.node] = ev.in_degree
            self.active.last_changed = ev.node

    def _on_hook_run(self, ev: Any) -> None:
        if self.active is not None:
            self.active.hooks.append(MappingProxyType({"target": ev.target, "hook_kind": ev.hook_kind, "at": self.index}))

    def _on_grad_accumulate(self, ev: Any) -> None:
        if self.active is not None:
            self.active.accumulated[ev.tensor] = ev.value
            self.active.grad_added[ev.tensor] = getattr(ev, "added", None)

    def _on_wrappers_clear(self, ev: Any) -> None:
        if self.active is not None:
            self.active.released.add(ev.node)

    def _general(self) -> GeneralGradMarks:
        assert self.active is not None
        return self.active.general or GeneralGradMarks()

    def _on_general_grad_copy(self, ev: Any) -> None:
        if self.active is not None:
            self.active.general = replace(self._general(), copies=MappingProxyType(dict(ev.mapping)))

    def _on_general_grad_targets(self, ev: Any) -> None:
        if self.active is not None:
            self.active.general = replace(self._general(), inputs=tuple(ev.inputs), no_grad=tuple(ev.no_grad))

    def _on_general_grad_update(self, ev: Any) -> None:
        if self.active is not None:
            self.active.general = replace(
                self._general(),
                startup=frozenset(ev.startup),
                ending=frozenset(ev.ending),
                needed=frozenset(ev.needed),
            )

    def _on_general_grad_prune(self, ev: Any) -> None:
        if self.active is not None:
            g = self._general()
            pruned = tuple(MappingProxyType(dict(e)) for e in ev.edges)
            self.active.general = replace(g, pruned=g.pruned + pruned)

    def _on_general_grad_result(self, ev: Any) -> None:
        if self.active is not None:
            g = self._general()
            results = dict(g.results)
            results[ev.input] = ev.value
            self.active.general = replace(g, results=MappingProxyType(results))

    def _on_backward_end(self, ev: Any) -> None:
        if self.active is not None:
            self.active.end_at = self.index
            self.active.current = None
            self.active.nodes_run = ev.nodes_run
            self.active.wall_ns = ev.wall_ns
            self.passes.append(self.active.freeze())
            self.active = None
            self._next_span("forward", len(self.passes), self.index + 1)

    def _on_error(self, ev: Any) -> None:
        """An exception escaped to the user's code: it ends the running pass, else the open op call."""
        error = MappingProxyType({"error": ev.error, "message": ev.message, "source": ev.source, "node": ev.node,
                                  "op": ev.op, "at": self.index})
        self.errors.append(error)
        bw = self.active
        if bw is not None and bw.end_at is None:
            bw.end_at = self.index
            bw.error = error
            if ev.node is not None:
                bw.current = ev.node  # the node that failed stays in focus
            self.passes.append(bw.freeze())
            self.active = None
            self._next_span("forward", len(self.passes), self.index + 1)
        elif self.open is not None and self.open.op == ev.op:  # the call it interrupted (not a finished one)
            self.open.error = error
        self._close_call()


class Replay(Sequence[State]):
    """The states of a trace: ``len(r) == len(events)``; ``r[i]`` is the state after event ``i``.

    Attributes:
        events: the events folded.
        initial: the state before any event.
    """

    def __init__(self, events: Sequence[Event], checkpoint_every: int | None = None) -> None:
        self.events: tuple[Event, ...] = tuple(events)
        if checkpoint_every is None:
            # At most MAX_CHECKPOINTS snapshots: each copies the graph seen so far, so on a
            # large trace fewer, wider checkpoints keep loading linear in the events.
            checkpoint_every = max(CHECKPOINT_EVERY, -(-len(self.events) // MAX_CHECKPOINTS))
        self._every = max(1, checkpoint_every)
        self._checkpoints: list[_Reducer] = []
        reducer = _Reducer()
        self.initial = reducer.freeze()
        for i, ev in enumerate(self.events):
            if i % self._every == 0:
                self._checkpoints.append(reducer.snapshot())
            reducer.apply(ev)
        self._final = reducer
        self._cursor: _Reducer | None = None  # reducer positioned at the last state served

    def extend(self, events: Sequence[Event]) -> None:
        """Fold more events onto the end (a trace that is still being recorded).

        States already served stay valid: events are only appended. When the
        checkpoints outgrow ``2 * MAX_CHECKPOINTS``, every other one is dropped
        and the spacing doubles, so a long live trace keeps memory bounded.
        """
        if not events:
            return
        reducer = self._final
        start = len(self.events)
        self.events = self.events + tuple(events)
        for i in range(start, len(self.events)):
            if i % self._every == 0:
                self._checkpoints.append(reducer.snapshot())
            reducer.apply(self.events[i])
        if len(self._checkpoints) > 2 * MAX_CHECKPOINTS:
            self._checkpoints = self._checkpoints[::2]
            self._every *= 2
        self._cursor = None

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, index: int) -> State:  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]  # type: ignore[return-value]
        n = len(self.events)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"state index {index} out of range for a trace of {n} events")
        return self._reducer_at(index).freeze()

    def __iter__(self) -> Iterator[State]:
        reducer = _Reducer()
        for ev in self.events:
            reducer.apply(ev)
            yield reducer.freeze()

    def _reducer_at(self, index: int) -> _Reducer:
        cur = self._cursor
        if cur is not None and cur.index <= index and index - cur.index <= self._every:
            reducer = cur
        else:
            reducer = self._checkpoints[index // self._every].snapshot()
        while reducer.index < index:
            reducer.apply(self.events[reducer.index + 1])
        self._cursor = reducer
        return reducer

    def pass_at(self, index: int, number: int) -> BackwardPass | None:
        """Backward pass ``number`` as of event ``index``: ``self[index].passes[number]`` (``None`` before it
        begins), without freezing the rest of the state (the web stepper asks this for every event)."""
        if not 0 <= index < len(self.events):
            raise IndexError(f"state index {index} out of range for a trace of {len(self.events)} events")
        reducer = self._reducer_at(index)
        if number < len(reducer.passes):
            return reducer.passes[number]
        active = reducer.active
        return active.freeze() if active is not None and active.number == number else None

    # -- navigation helpers used by the viewers ----------------------------

    def indices_of(self, *kinds: str) -> list[int]:
        """Indices of the events whose kind is one of ``kinds``."""
        wanted = set(kinds)
        return [i for i, ev in enumerate(self.events) if ev.kind in wanted]

    def backward_passes(self) -> list[tuple[int, int | None, str]]:
        """``(begin index, end index or None, mode)`` of every backward pass."""
        out: list[tuple[int, int | None, str]] = []
        for i, ev in enumerate(self.events):
            if ev.kind == "backward.begin":
                out.append((i, None, ev.mode))  # type: ignore[attr-defined]
            elif ev.kind in ("backward.end", "error") and out and out[-1][1] is None:
                b, _, m = out[-1]
                out[-1] = (b, i, m)
        return out

    @property
    def memory(self) -> Any:
        """The memory accounting of the events folded so far (``tracing/memory.py``); ``memory.at(i)``
        is the bytes alive in state ``i``."""
        cached = getattr(self, "_memory", None)
        if cached is None or len(cached.events) != len(self.events):
            cached = self._memory = Memory(self.events)
        return cached

    @property
    def versions(self) -> Any:
        """The version view's facts of the events folded so far (``tracing/versions.py``);
        ``versions.at(i)`` is what it shows at event ``i``."""
        cached = getattr(self, "_versions", None)
        if cached is None or cached.length != len(self.events):
            cached = self._versions = VersionHistory(self)
        return cached

    @property
    def final(self) -> State:
        """The state after the last event (``initial`` for an empty trace)."""
        return self._final.freeze() if self.events else self.initial


def replay(events: Sequence[Event] | Any) -> Replay:
    """Fold ``events`` (a list, or anything with ``.events``) into a ``Replay`` of states."""
    evs = getattr(events, "events", events)
    return Replay(evs)
