"""Memory accounting from the events: what is alive, and what backward keeps.

``memory(events)`` folds a trace once and tells, after every event, how many
bytes are alive in each of five categories, and where the peak is:

- ``params``: leaf tensors that require grad (model parameters, inputs
  created with ``requires_grad=True``), from their ``tensor.create``;
- ``grads``: their ``.grad`` fields, from the first ``grad.accumulate`` of each
  (a ``.grad`` set back to ``None`` leaves no event and stays counted);
- ``saved``: the tensors grad nodes saved for backward (``node.create``'s
  ``saved``), each counted once however many nodes saved it, until the last of
  those nodes releases them (``wrappers.clear``). A parameter saved by a node
  is counted under ``params`` only, and so is a view of one (``nn.Linear``'s
  ``weight.t()``: ``tensor.create``'s ``base`` names the parameter); a save a pack hook took (``saved.pack``:
  ``saved_tensors_hooks``, ``save_on_cpu``, a non-reentrant ``checkpoint``) holds
  what the hook returned, not the tensor, and is not counted; an output selective checkpointing
  keeps (``checkpoint.saved``) is counted from its keep in the forward to its reuse in the recomputation;
- ``buffers``: gradient buffers of the backward pass, one per (node, slot,
  rank) a ``buffer.add`` filled, until that node runs (``node.run`` consumes
  them) or the pass ends;
- ``outputs``: the gradients ``grad()`` returns (``general_grad.result``).

Bytes come from the shapes and dtypes of ``tensor.create`` (elements times
item size): nothing is measured. What the events cannot show is not counted:
tensors the program itself holds (activations kept in Python variables), a
graph dropped without a backward pass (its nodes never emit
``wrappers.clear``), and views (a view's bytes are counted as if it owned
them). GeneralGrad's copies share the user's saved tensors and let go of
them when their pass ends.

The questions a reader asks first have their own answers: the bytes alive
when the first backward pass begins (``backward_begin``; what activation
checkpointing lowers), the peak during backward and the node running then
(``backward_peak``), and the spans a chart zooms to (``windows``: each
backward pass with the forward before it). Modules are named as
``print(model)`` names them (``module_name``: ``"blocks.1"``, ``"0.1"``).

Example:
    >>> import minigrad as mg
    >>> with mg.trace(values=False) as tr:
    ...     x = mg.ones(256, requires_grad=True)
    ...     y = (x.exp() * x).sum()
    ...     y.backward()
    >>> m = mg.trace.memory(tr.events)
    >>> m.saved_bytes_total            # exp's output (saved by exp and by mul) and x (saved by mul)
    2048
    >>> m.peak_bytes > 0, m.events[m.peak_index].kind in ("node.create", "buffer.add", "grad.accumulate")
    (True, True)
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from .describe import describe

__all__ = ["memory", "Memory", "MemoryPoint", "SavedTensor", "CATEGORIES", "nbytes", "format_bytes"]

#: The categories of ``MemoryPoint``, in the order the viewers draw them.
CATEGORIES = ("params", "grads", "saved", "buffers", "outputs")

_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "float16": 2, "bfloat16": 2, "int32": 4,
             "float32": 4, "int64": 8, "float64": 8, "complex64": 8, "complex128": 16}


def nbytes(shape: Sequence[int], dtype: str) -> int:
    """Bytes of a tensor of ``shape`` and ``dtype`` (a dtype name as events write it)."""
    return math.prod(shape) * _ITEMSIZE.get(dtype, 4)


def format_bytes(n: float) -> str:
    """``1536`` -> ``'1.5 KiB'``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


@dataclass(frozen=True)
class MemoryPoint:
    """Bytes alive, by category, after one event."""

    params: int = 0
    grads: int = 0
    saved: int = 0
    buffers: int = 0
    outputs: int = 0

    @property
    def total(self) -> int:
        return self.params + self.grads + self.saved + self.buffers + self.outputs

    def to_dict(self) -> dict[str, int]:
        return {**{c: getattr(self, c) for c in CATEGORIES}, "total": self.total}


@dataclass
class SavedTensor:
    """A tensor some grad node saved for backward: its size and who saved it where."""

    tensor: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    bytes: int
    parameter: bool
    nodes: list[int] = field(default_factory=list)  # the nodes that saved it, in order
    packed: int = 0  # how many of those saves a pack hook took (they hold no array)
    saved_at: int = -1  # index of the first node.create that listed it
    freed_at: int | None = None  # index of the wrappers.clear that released it (None: alive at the end)

    def to_dict(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "name": self.name, "shape": list(self.shape), "dtype": self.dtype,
                "bytes": self.bytes, "parameter": self.parameter, "nodes": list(self.nodes), "packed": self.packed,
                "saved_at": self.saved_at, "freed_at": self.freed_at}


@dataclass
class _Node:
    id: int
    name: str
    op: str
    saved: list[int]
    held: list[int]  # the saved tensors whose arrays the node holds (not taken by a pack hook)
    module: str | None
    source: str | None
    created_at: int
    recompute: int | None  # the node whose recomputation made it (inside recompute.begin/end)
    copy_of: int | None
    inputs: list[int] = field(default_factory=list)  # the tensors its api.call took
    kernel_ns: int = 0  # the kernel time of its forward call
    freed_at: int | None = None


class Memory:
    """The accounting of one trace (see the module docstring).

    Attributes:
        events: the events folded.
        timeline: one ``MemoryPoint`` per event (the bytes alive after it).
        peak_bytes, peak_index: the largest total and the first event that reached it.
        saved: every tensor a node saved, by tensor id.
        nodes: every grad node's saved list, module, source line and recomputation mark.
    """

    def __init__(self, events: Sequence[Any]) -> None:
        self.events = tuple(events)
        self.tensors: dict[int, dict[str, Any]] = {}
        for ev in self.events:  # sizes first: a saved output may be announced after its node
            if ev.kind == "tensor.create" and ev.tensor not in self.tensors:
                self.tensors[ev.tensor] = {"name": ev.name, "shape": tuple(ev.shape), "dtype": ev.dtype,
                                           "bytes": nbytes(ev.shape, ev.dtype), "grad_node": ev.grad_node,
                                           "out_slot": ev.out_slot, "out_rank": ev.out_rank,
                                           "base": getattr(ev, "base", None)}
        self.saved: dict[int, SavedTensor] = {}
        self.nodes: dict[int, _Node] = {}
        self.node_names: dict[int, str] = {}  # every node.create's display name (accumulation nodes too)
        self.timeline: list[MemoryPoint] = []
        self.backward_spans: list[tuple[int, int]] = []  # (backward.begin, backward.end or the last event) per pass
        self._running: list[int | None] = []  # per event: the grad node running then (None outside a node)
        self._fold()
        totals = [p.total for p in self.timeline]
        self.peak_bytes = max(totals, default=0)
        self.peak_index = totals.index(self.peak_bytes) if totals else -1
        self.module_names = _module_names({n.module for n in self.nodes.values() if n.module})

    # -- folding ------------------------------------------------------------

    def _fold(self) -> None:
        params: set[int] = set()
        grads: set[int] = set()
        refs: dict[int, int] = {}  # saved tensor -> live nodes holding it
        buffers: dict[tuple[int, int, int], int] = {}
        outputs = 0
        passes: list[list[int]] = []  # per open backward pass: the copies it made
        recomputing: list[int] = []
        kept: dict[str, list[int]] = {}  # per op name (aten): the bytes of selective checkpointing's kept outputs
        self._packed: dict[int, int] = {}  # tensor -> saves a pack hook took, not yet claimed by a node
        self._call: list[Any] = [[], 0]  # the last api.call's tensor inputs and its kernels' time so far
        self.created_at: dict[int, int] = {}  # tensor -> index of its first tensor.create
        self._outputs_of: dict[tuple[int, int, int], int] = {
            (t["grad_node"], t["out_slot"], t["out_rank"]): t["bytes"]
            for t in self.tensors.values() if t["grad_node"] is not None}
        self._leaf_of: dict[int, int] = {}
        point = {c: 0 for c in CATEGORIES}

        def size(tid: int) -> int:
            info = self.tensors.get(tid)
            if info is None or info["base"] in params:
                return 0  # a view of a parameter (nn.Linear's weight.t()) holds the parameter's bytes
            return info["bytes"]

        def hold(tid: int) -> None:
            refs[tid] = refs.get(tid, 0) + 1
            if refs[tid] == 1 and tid not in params:
                point["saved"] += size(tid)

        def drop(tid: int, i: int) -> None:
            refs[tid] -= 1
            if refs[tid] == 0:
                if tid not in params:
                    point["saved"] -= size(tid)
                self.saved[tid].freed_at = i

        def release(node_id: int, i: int) -> None:
            node = self.nodes.get(node_id)
            if node is None or node.freed_at is not None:
                return
            node.freed_at = i
            for tid in node.held:
                drop(tid, i)

        self._params = params
        running: list[int] = []  # node.begin .. node.run, innermost last (a checkpoint's node runs others)
        last: int | None = None  # the node that ran last: its gradients are being passed on
        depth = 0  # open backward passes (a nested one runs inside a checkpoint's node)
        for i, ev in enumerate(self.events):
            k = ev.kind
            if k == "node.begin":
                running.append(ev.node)
            elif k == "node.run" and running:
                last = running.pop()
            elif k == "backward.begin":
                depth += 1
                if depth == 1:
                    self.backward_spans.append((i, len(self.events) - 1))
            elif k == "backward.end" and depth:
                depth -= 1
                if depth == 0:
                    self.backward_spans[-1] = (self.backward_spans[-1][0], i)
                    last = None
            self._running.append(running[-1] if running else last)
            if k == "api.call":
                self._call = [_tensor_ids(ev.inputs), 0]
            elif k == "kernel.launch":
                self._call[1] += ev.wall_ns
            if k in ("tensor.create", "tensor.update"):
                self.created_at.setdefault(ev.tensor, i)
                if ev.is_leaf and ev.requires_grad and ev.tensor not in params:
                    params.add(ev.tensor)
                    point["params"] += size(ev.tensor)
                    if refs.get(ev.tensor):
                        point["saved"] -= size(ev.tensor)  # counted as a parameter from now on
            elif k == "node.create":
                self._on_node_create(ev, i, recomputing, passes, params, hold)
            elif k == "wrappers.clear":
                release(ev.node, i)
            elif k == "grad.accumulate":
                if ev.tensor not in grads:
                    grads.add(ev.tensor)
                    point["grads"] += size(ev.tensor)
            elif k == "buffer.add":
                key = (ev.node, ev.slot, ev.rank)
                if key not in buffers:
                    buffers[key] = self._buffer_bytes(ev.node, ev.slot, ev.rank)
                    point["buffers"] += buffers[key]
            elif k == "node.run":
                for key in [key for key in buffers if key[0] == ev.node]:
                    point["buffers"] -= buffers.pop(key)
            elif k == "general_grad.result":
                outputs += size(ev.input)
                point["outputs"] = outputs
            elif k == "backward.begin":
                passes.append([])
            elif k == "backward.end":
                for copy in passes.pop() if passes else ():
                    release(copy, i)
                if not passes:
                    for key in list(buffers):
                        point["buffers"] -= buffers.pop(key)
            elif k == "saved.pack":
                self._packed[ev.tensor] = self._packed.get(ev.tensor, 0) + 1
            elif k == "checkpoint.saved":  # a kept output: held from its keep to its reuse, in order per op
                if ev.use == "keep":
                    kept.setdefault(ev.aten, []).append(ev.bytes)
                    point["saved"] += ev.bytes
                elif kept.get(ev.aten):
                    point["saved"] -= kept[ev.aten].pop(0)
            elif k == "recompute.begin":
                recomputing.append(ev.node)
            elif k == "recompute.end":
                if recomputing:
                    recomputing.pop()
            self.timeline.append(MemoryPoint(**point))

    def _on_node_create(self, ev: Any, i: int, recomputing: list[int], passes: list[list[int]],
                        params: set[int], hold: Any) -> None:
        self.node_names[ev.node] = ev.name
        if ev.is_accumulation:
            if ev.tensor is not None:
                self._leaf_of[ev.node] = ev.tensor
            return
        original = self.nodes.get(ev.copy_of) if ev.copy_of is not None else None
        if original is not None:  # a GeneralGrad copy shares its original's wrappers
            held = list(original.held)
        else:
            held = []
            for tid in ev.saved:
                if self._packed.get(tid, 0) > 0:
                    self._packed[tid] -= 1
                else:
                    held.append(tid)
        node = _Node(ev.node, ev.name, ev.op, list(ev.saved), held, ev.module, ev.source, i,
                     recomputing[-1] if recomputing else None, ev.copy_of)
        node.inputs, node.kernel_ns = self._call
        self._call = [[], 0]
        self.nodes[ev.node] = node
        if ev.copy_of is not None and passes:
            passes[-1].append(ev.node)
        for tid in node.saved:
            info = self.tensors.get(tid, {})
            entry = self.saved.get(tid)
            if entry is None:
                entry = self.saved[tid] = SavedTensor(
                    tid, info.get("name", f"t{tid}"), info.get("shape", ()), info.get("dtype", "?"),
                    info.get("bytes", 0), tid in params or info.get("base") in params, saved_at=i)
            entry.nodes.append(ev.node)
        for tid in node.held:
            self.saved[tid].freed_at = None
            hold(tid)
        for tid in set(node.saved):
            self.saved[tid].packed += node.saved.count(tid) - node.held.count(tid)

    def _buffer_bytes(self, node_id: int, slot: int, rank: int) -> int:
        """The bytes of the gradient a node's buffer holds: the size of that node output."""
        node = self.nodes.get(node_id)
        original = node.copy_of if node is not None and node.copy_of is not None else node_id
        leaf = self._leaf_of.get(original)
        if leaf is not None:
            info = self.tensors.get(leaf)
            return info["bytes"] if info else 0
        return self._outputs_of.get((original, slot, rank), 0)

    # -- names ----------------------------------------------------------------

    def node_name(self, node_id: int | None) -> str:
        """``MulBackward0#3``: the name the node's ``node.create`` gave (``describe`` calls this)."""
        if node_id is None:
            return "-"
        return self.node_names.get(node_id, f"node#{node_id}")

    def tensor_name(self, tensor_id: int | None) -> str:
        """The name a tensor's ``tensor.create`` gave."""
        if tensor_id is None:
            return "-"
        info = self.tensors.get(tensor_id)
        return info["name"] if info else f"t{tensor_id}"

    def module_name(self, path: str | None) -> str:
        """A ``module`` path as ``print(model)`` spells it: ``"Sequential.1.0 (Linear)"`` -> ``"1.0"``."""
        if path is None:
            return "(no module)"
        return self.module_names.get(path, path)

    def running_node(self, index: int) -> int | None:
        """The grad node running at event ``index`` (the one that ran last, while its gradients are passed on)."""
        return self._running[index] if 0 <= index < len(self._running) else None

    # -- questions ------------------------------------------------------------

    def at(self, index: int) -> MemoryPoint:
        """The bytes alive after event ``index`` (``MemoryPoint()`` before the first event)."""
        return self.timeline[index] if 0 <= index < len(self.timeline) else MemoryPoint()

    @property
    def saved_bytes_total(self) -> int:
        """The bytes of every distinct tensor a ``node.create`` lists as saved (parameters included)."""
        return sum(s.bytes for s in self.saved.values())

    def saved_by(self, node_id: int) -> list[SavedTensor]:
        """The tensors ``node_id`` saved, in its ``saved`` order."""
        node = self.nodes.get(node_id)
        return [self.saved[t] for t in node.saved if t in self.saved] if node else []

    def by_node(self) -> dict[int, dict[str, Any]]:
        """Per grad node that saved something: its saved bytes (distinct tensors) and where it was made."""
        out = {}
        for node in self.nodes.values():
            if not node.saved:
                continue
            tensors = self.saved_by(node.id)
            distinct = {s.tensor: s for s in tensors}.values()
            out[node.id] = {"name": node.name, "op": node.op, "module": node.module, "source": node.source,
                            "bytes": sum(s.bytes for s in distinct),
                            "activation_bytes": sum(s.bytes for s in distinct if not s.parameter),
                            "saved": [s.tensor for s in tensors], "recompute_of": node.recompute,
                            "created_at": node.created_at, "freed_at": node.freed_at}
        return out

    def by_module(self) -> dict[str, dict[str, Any]]:
        """Per module, named as ``print(model)`` names it (``module_name``; ``"(no module)"`` outside any): the
        distinct tensors its nodes saved, their bytes, its recorded ``path``, its class and the first source line."""
        groups: dict[str, dict[str, Any]] = {}
        for node in self.nodes.values():
            if not node.saved or node.recompute is not None:
                continue
            g = groups.setdefault(self.module_name(node.module), {"tensors": {}, "nodes": 0, "source": node.source,
                                                                 "path": node.module})
            g["nodes"] += 1
            for s in self.saved_by(node.id):
                g["tensors"][s.tensor] = s
        return {m: {"bytes": sum(s.bytes for s in g["tensors"].values()),
                    "activation_bytes": sum(s.bytes for s in g["tensors"].values() if not s.parameter),
                    "tensors": len(g["tensors"]), "nodes": g["nodes"], "source": g["source"], "path": g["path"],
                    "type": _module_type(g["path"])}
                for m, g in groups.items()}

    def top_saved(self, n: int = 10) -> list[SavedTensor]:
        """The ``n`` largest saved tensors (ties: the first saved first)."""
        return sorted(self.saved.values(), key=lambda s: (-s.bytes, s.saved_at))[:n]

    def peak_event(self) -> dict[str, Any]:
        """The event at which the total peaked: index, seq, kind, what it did and the node running then."""
        return self._event_at(self.peak_index)

    def _event_at(self, index: int) -> dict[str, Any]:
        if index < 0:
            return {"index": -1, "seq": None, "kind": None, "what": "no events", "node": None, "node_name": None}
        ev = self.events[index]
        node = self.running_node(index)
        return {"index": index, "seq": ev.seq, "kind": ev.kind, "what": describe(ev, self), "node": node,
                "node_name": None if node is None else self.node_name(node)}

    def windows(self) -> list[tuple[int, int, str]]:
        """The spans a chart zooms to, ``(first event, last event, what it holds)``: each backward pass with
        the forward before it (from the event after the previous pass), then what follows the last pass."""
        n = len(self.events)
        out: list[tuple[int, int, str]] = []
        lo = 0
        for a, b in self.backward_spans:
            out.append((lo, b, f"the forward and the backward pass (events {a}\u2013{b}) that ends it"))
            lo = b + 1
        if lo < n:
            out.append((lo, n - 1, "after the last backward pass" if out else "the whole recording (no backward pass)"))
        return out

    def window(self, index: int) -> tuple[int, int, str]:
        """The span of ``windows()`` holding event ``index`` (the first one before the first event)."""
        spans = self.windows() or [(0, 0, "no events")]
        return next((w for w in spans if w[0] <= index <= w[1]), spans[0])

    def backward_begin(self) -> dict[str, Any] | None:
        """The bytes alive when the first backward pass begins (``None``: no backward pass): what a
        checkpoint saves shows here, in ``saved``."""
        if not self.backward_spans:
            return None
        at = self.backward_spans[0][0]
        return {"index": at, **self.at(at).to_dict()}

    def backward_peak(self) -> dict[str, Any] | None:
        """The largest total during any backward pass, the first event that reached it, and the node running."""
        if not self.backward_spans:
            return None
        inside = (i for a, b in self.backward_spans for i in range(a, b + 1))
        best = max(inside, key=lambda i: (self.timeline[i].total, -i))  # the first event that reached it
        return {**self._event_at(best), "bytes": self.timeline[best].total, **{"alive": self.at(best).to_dict()}}

    def what_if_checkpoint(self, module: str) -> dict[str, Any]:
        """What checkpointing ``module`` would change, from this recording.

        ``module`` is named as ``print(model)`` names it (``"blocks.1"``) or by
        its recorded path (``"CharGPT.blocks.1"``).

        At the start of the first backward pass (the end of the trace without one),
        the nodes the module made would hold nothing and a reentrant checkpoint's
        node would hold the module's inputs instead; the module's forward would
        run again inside backward. Returns the saved bytes alive now and then
        (parameters excluded, as in ``saved``), the bytes freed, the inputs kept,
        and the extra forward work: the module's ops and their kernel time
        against the whole forward's.
        """
        prefix = self._module_prefix(module)

        def inside(path: str | None) -> bool:
            return path is not None and (path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + " ("))

        kinds = [ev.kind for ev in self.events]
        at = kinds.index("backward.begin") if "backward.begin" in kinds else len(self.events) - 1
        alive = [n for n in self.nodes.values() if n.created_at < at and n.recompute is None and n.copy_of is None
                 and (n.freed_at is None or n.freed_at > at)]
        mine = [n for n in alive if inside(n.module)]
        if not mine:
            raise ValueError(f"what_if_checkpoint(): no node of module {module!r} is alive when backward begins; "
                             f"modules: {', '.join(sorted(self.by_module()))}")
        produced = {t for t, info in self.tensors.items() if info["grad_node"] in {n.id for n in mine}}
        first = min(n.created_at for n in mine)
        params = {t for t, s in self.saved.items() if s.parameter}
        params |= {t for t in self.tensors if self._is_param(t)}
        inputs = sorted({t for n in mine for t in n.inputs if t not in produced and t not in params
                         and self.created_at.get(t, first) < first})
        kept = {t for n in alive if not inside(n.module) for t in n.held} | set(inputs)
        size = self._size
        now = self.at(at).saved
        then = sum(size(t) for t in kept if t not in params)
        forward = [n for n in self.nodes.values() if n.created_at < at and n.recompute is None and n.copy_of is None]
        return {"module": module, "at": at, "saved_bytes": now, "saved_bytes_if_checkpointed": then,
                "saved_bytes_freed": now - then, "inputs_kept": inputs,
                "inputs_bytes": sum(size(t) for t in inputs),
                "recompute_ops": len(mine), "recompute_kernel_ns": sum(n.kernel_ns for n in mine),
                "forward_ops": len(forward), "forward_kernel_ns": sum(n.kernel_ns for n in forward)}

    def _module_prefix(self, module: str) -> str:
        """The recorded path prefix of ``module``, spelled as ``print(model)`` does (``"blocks.1"``) or as the
        events do (``"CharGPT.blocks.1"``, with or without its ``" (Block)"``). Raises ``ValueError`` naming the
        close names when no module has that name."""
        want = module.split(" (")[0]
        known: dict[str, str] = {}  # every spelling of every module and of its ancestors -> the recorded prefix
        for path, name in self.module_names.items():
            full, short = path.split(" (")[0].split("."), name.split(".")
            cut = len(full) - len(short)  # 1 where the root's class was dropped
            for j in range(1, len(full) + 1):
                known.setdefault(".".join(full[:j]), ".".join(full[:j]))
                if j > cut:
                    known.setdefault(".".join(short[:j - cut]), ".".join(full[:j]))
        if want in known:
            return known[want]
        shown = sorted({n for name in self.module_names.values() for n in _prefixes(name)})
        close = difflib.get_close_matches(want, list(known), n=4, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"what_if_checkpoint(): no module named {module!r} in this recording{hint} "
                         f"(modules, as print(model) names them: {', '.join(shown)})")

    def _size(self, tid: int) -> int:
        info = self.tensors.get(tid)
        return info["bytes"] if info else 0

    def _is_param(self, tid: int) -> bool:
        return tid in self._params

    def to_json(self) -> dict[str, Any]:
        """``{"backward_begin", "backward_peak", "saved_bytes_total", "peak_bytes", "peak_event", "by_module",
        "by_node", "timeline", "top_saved"}`` (node ids as strings, as JSON keys are)."""
        return {
            "backward_begin": self.backward_begin(),
            "backward_peak": self.backward_peak(),
            "saved_bytes_total": self.saved_bytes_total,
            "peak_bytes": self.peak_bytes,
            "peak_event": self.peak_event(),
            "by_module": self.by_module(),
            "by_node": {str(k): v for k, v in self.by_node().items()},
            "timeline": [{"index": i, "seq": ev.seq, "kind": ev.kind, **p.to_dict()}
                         for i, (ev, p) in enumerate(zip(self.events, self.timeline))],
            "top_saved": [s.to_dict() for s in self.top_saved()],
        }


def _prefixes(name: str) -> list[str]:
    """``"blocks.1.attn"`` -> ``["blocks", "blocks.1", "blocks.1.attn"]``."""
    parts = name.split(".")
    return [".".join(parts[:j]) for j in range(1, len(parts) + 1)]


def _module_type(path: str | None) -> str | None:
    """``"Sequential.1.0 (Linear)"`` -> ``"Linear"``; a path of one class is that class."""
    if path is None:
        return None
    return path[path.index(" (") + 2:-1] if path.endswith(")") and " (" in path else path.split(".")[-1]


def _module_names(paths: set[str]) -> dict[str, str]:
    """Each recorded ``module`` path spelled as ``print(model)`` spells it.

    A path is the class of the module called first (the model), then the
    dotted path below it, then the innermost class: ``"CharGPT.blocks.1 (Block)"``.
    When every path with a dotted part starts at one model class, that class is
    dropped (``"blocks.1"``, ``"1.0"``); a module called on its own with no
    model above it keeps its class (``"CrossEntropyLoss"``). With two model
    classes in one recording the paths keep them, so no two modules share a name.
    """
    bases = {p: p.split(" (")[0] for p in paths}
    roots = {b.split(".")[0] for b in bases.values() if "." in b}
    if len(roots) != 1:
        return bases
    root = next(iter(roots)) + "."
    return {p: b[len(root):] if b.startswith(root) else b for p, b in bases.items()}


def _tensor_ids(inputs: Any) -> list[int]:
    """The tensor ids of an ``api.call``'s ``inputs`` (ints, possibly in nested lists; ``None`` for non-tensors)."""
    out: list[int] = []
    stack = [inputs]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            out.append(item)
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return out


def memory(events: Sequence[Any] | Any) -> Memory:
    """The memory accounting of ``events`` (a list, or anything with ``.events``)."""
    return Memory(getattr(events, "events", events))
