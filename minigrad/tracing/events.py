"""Event types: the public contract between the engine and the viewers (docs/events.md, generated from here).

Every step of the forward path and the backward engine (docs/architecture.md)
emits one of these. Events are *data*: integer ids, names, shapes and value
previews, never live tensors or nodes, so a trace can be saved, loaded on
another machine and replayed.

NOTE [ Events are slotted, not frozen ]
    Events are small ``slots=True`` dataclasses. They are treated as
    immutable, but are not ``frozen=True``: frozen dataclasses cost 3-4x more
    to construct, which matters while recording a large backward pass. The
    recorder stamps ``seq`` and ``ts_ns`` once, when the event is emitted;
    nothing changes an event after that.

The kind names and field names below are public: viewers, tests and anyone's
own tools rely on them. New kinds and fields may be added; none may be renamed.

Example:
    >>> ev = QueuePush(node=3, front=False, queue=[3, 5])
    >>> ev.kind, ev.to_dict()["queue"]
    ('queue.push', [3, 5])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "NODE_HOOK_KINDS",
    "Event",
    "EVENT_TYPES",
    "TensorCreate",
    "TensorUpdate",
    "TensorVersion",
    "HistoryRewrite",
    "ApiCall",
    "AmpCast",
    "KernelKeyEvent",
    "KernelLookup",
    "KernelSelect",
    "DataTransform",
    "InferMetaEvent",
    "KernelLaunch",
    "DeviceCopy",
    "DeviceSync",
    "NodeCreate",
    "BackwardBegin",
    "BackwardInDegree",
    "QueuePush",
    "QueuePop",
    "QueueSkip",
    "NodeBegin",
    "NodeRun",
    "BufferAdd",
    "InDegreeUpdate",
    "HookRun",
    "GradAccumulate",
    "WrappersClear",
    "SavedPack",
    "RecomputeBegin",
    "RecomputeEnd",
    "GeneralGradCopy",
    "GeneralGradTargets",
    "GeneralGradUpdate",
    "GeneralGradPrune",
    "GeneralGradResult",
    "BackwardEnd",
    "ErrorEvent",
    "UnknownEvent",
    "event_from_dict",
]

# A value preview is either a nested list of numbers (small tensors) or a
# summary ``{"shape": [...], "dtype": "float32"}`` (large tensors, or
# ``values=False``). ``None`` means "no tensor here".
Preview = Any

EVENT_TYPES: dict[str, type["Event"]] = {}


@dataclass(slots=True, kw_only=True)
class Event:
    """Common header of every event.

    Attributes:
        seq: position in the trace, strictly increasing (stamped on emit).
        ts_ns: nanoseconds since the recorder started (stamped on emit).
        kind: the event's kind, e.g. ``"queue.push"`` (a class constant).
    """

    kind: ClassVar[str] = "event"
    # Fields whose dict keys are integers (JSON turns them into strings).
    int_key_fields: ClassVar[tuple[str, ...]] = ()

    seq: int = -1
    ts_ns: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Flat JSON-ready dict: header first, then the kind's fields."""
        out: dict[str, Any] = {"seq": self.seq, "ts_ns": self.ts_ns, "kind": self.kind}
        for f in dataclasses.fields(self):
            if f.name not in ("seq", "ts_ns"):
                out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The kind-specific field names (without the header)."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in ("seq", "ts_ns"))


# NOTE [ Building events without the class call ]
#     ``KernelLookup(op=..., ...)`` goes through ``type.__call__``, which packs the
#     keywords into a dict and unpacks them again for ``__init__``: about 1 us per
#     event, as much as everything else the recorder does for it. Each event class
#     therefore also gets ``new(...)``, a plain function with the same keyword-only
#     fields and defaults that makes the object with ``object.__new__`` and sets its
#     slots (~0.3 us), and ``clone(ev)``, a fresh copy of ``ev``'s fields (used to
#     re-emit cached kernel-layer events; ``copy_at(ev, seq, ts_ns)`` is the same
#     copy with its header stamped). Both make objects equal, field for field,
#     to what the class call makes (``tests/test_recorder_cache.py`` checks every kind);
#     the emit sites in the engine use ``new``.


def _add_builders(cls: type) -> None:
    """Attach ``cls.new(**fields)``, ``cls.clone(ev)`` and ``cls.copy_at(ev, seq, ts_ns)`` (see NOTE above)."""
    fields = [f for f in dataclasses.fields(cls) if f.name not in ("seq", "ts_ns")]
    params, sets, copies = [], ["e.seq = seq", "e.ts_ns = ts_ns"], ["e.seq = src.seq", "e.ts_ns = src.ts_ns"]
    stamped = ["e.seq = seq", "e.ts_ns = ts_ns"]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    for f in fields:
        if f.default is not dataclasses.MISSING:
            env[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:  # UnknownEvent only; no kind uses it
            raise TypeError(f"{cls.__name__}.{f.name}: builders do not support default factories")
        else:
            params.append(f.name)
        sets.append(f"e.{f.name} = {f.name}")
        copies.append(f"e.{f.name} = src.{f.name}")
        stamped.append(f"e.{f.name} = src.{f.name}")
    src = (
        f"def new(*, {', '.join(params + ['seq=-1', 'ts_ns=0'])}):\n"
        f"    e = _new(_cls)\n    " + "\n    ".join(sets) + "\n    return e\n"
        "def clone(src):\n"
        "    e = _new(_cls)\n    " + "\n    ".join(copies) + "\n    return e\n"
        "def copy_at(src, seq, ts_ns):\n"
        "    e = _new(_cls)\n    " + "\n    ".join(stamped) + "\n    return e\n"
    )
    exec(src, env)  # noqa: S102 - generated from the dataclass fields above, no outside input
    env["new"].__qualname__ = f"{cls.__name__}.new"
    env["clone"].__qualname__ = f"{cls.__name__}.clone"
    env["copy_at"].__qualname__ = f"{cls.__name__}.copy_at"
    env["copy_at"].__doc__ = f"A copy of a ``{cls.__name__}`` stamped with ``seq`` and ``ts_ns`` (for ``emit_copies``)."
    env["new"].__doc__ = f"A ``{cls.__name__}`` from its fields, without the class call (NOTE [ Building events ... ])."
    env["clone"].__doc__ = f"A copy of a ``{cls.__name__}`` (same field objects), without the class call."
    cls.new = staticmethod(env["new"])  # type: ignore[attr-defined]
    cls.clone = staticmethod(env["clone"])  # type: ignore[attr-defined]
    cls.copy_at = staticmethod(env["copy_at"])  # type: ignore[attr-defined]


def _event(kind: str):
    """Class decorator: a slotted keyword-only dataclass registered under ``kind``, with ``new``/``clone``."""

    def wrap(cls):
        cls.kind = kind
        new = dataclass(slots=True, kw_only=True)(cls)
        _add_builders(new)
        EVENT_TYPES[kind] = new
        return new

    return wrap


# ---------------------------------------------------------------------------
# Forward path (docs/concepts/forward.md, docs/concepts/kernel-selection.md)
# ---------------------------------------------------------------------------


@_event("tensor.create")
class TensorCreate(Event):
    """A tensor came into existence (a leaf, an op output, a gradient). ``base``: for a view, the
    tensor whose storage and version counter it shares (its root base), else None; an in-place change
    of the base makes what the view's saved copies hold stale, even after the view itself is gone."""

    tensor: int
    name: str
    shape: list[int]
    dtype: str
    device: str
    requires_grad: bool
    is_leaf: bool
    grad_node: int | None
    out_slot: int
    out_rank: int
    value: Preview = None
    base: int | None = None


@_event("tensor.update")
class TensorUpdate(Event):
    """An in-place op changed a tensor: new version, maybe a new grad node (docs/architecture.md, engine rules)."""

    tensor: int
    op: str
    version: int
    requires_grad: bool
    is_leaf: bool
    grad_node: int | None
    out_slot: int
    out_rank: int
    value: Preview = None


@_event("tensor.version")
class TensorVersion(Event):
    """An in-place op bumped a version counter: ``tensor`` is the storage's base (the changed tensor
    itself when it is no view), ``via`` the view it was changed through (None if none), ``aliases``
    every other announced tensor sharing that counter (its views, ``detach()``es), at ``version`` now.
    Saved tensors of these ids, saved at an older version, are stale (backward will refuse them).
    ``source`` is the ``file:line`` of the user's call that made the change (stamped while recording,
    as for ``node.create``; see tracing/provenance.py)."""

    tensor: int
    version: int
    op: str
    via: int | None
    aliases: list[int]
    source: str | None = None


@_event("history.rewrite")
class HistoryRewrite(Event):
    """An in-place op through a view replaced the base's grad node (PyTorch's CopySlices): ``tensor``'s
    history was ``from_node`` (None: it had none) and is ``to_node`` now; ``view`` is the view's geometry
    in the base, as ``as_strided`` names it: ``{"size": [...], "stride": [...], "offset": n}`` (elements)."""

    tensor: int
    from_node: int | None
    to_node: int
    view: dict[str, Any]


@_event("api.call")
class ApiCall(Event):
    """The API layer accepted a call: ``op``, its input tensor ids and attributes."""

    op: str
    inputs: list[Any]
    attrs: dict[str, Any]


@_event("amp.cast")
class AmpCast(Event):
    """AMP auto-cast changed an input's dtype before the kernel layer."""

    op: str
    tensor: int
    from_dtype: str
    to_dtype: str


@_event("kernel.key")
class KernelKeyEvent(Event):
    """The KernelKey parsed from the inputs (backend set, layout, promoted dtype)."""

    op: str
    backend: str
    layout: str
    dtype: str


@_event("kernel.lookup")
class KernelLookup(Event):
    """One probe of the registry during kernel selection (the search order in docs/concepts/kernel-selection.md)."""

    op: str
    backend: str
    layout: str
    dtype: str
    step: str
    found: bool


@_event("kernel.select")
class KernelSelect(Event):
    """The kernel chosen for a key; ``fallback_cpu`` when the CPU steps found it."""

    op: str
    kernel: str
    backend: str
    layout: str
    dtype: str
    fallback_cpu: bool
    cached: bool = False


@_event("data.transform")
class DataTransform(Event):
    """PrepareData moved an argument to the kernel's declared backend/layout/dtype."""

    op: str
    arg: str
    what: str
    # ``from`` is a Python keyword; the dataclass field is ``from_`` and the
    # JSON key is "from" (see ``to_dict``/``event_from_dict``).
    from_: str
    to: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "ts_ns": self.ts_ns,
            "kind": self.kind,
            "op": self.op,
            "arg": self.arg,
            "what": self.what,
            "from": self.from_,
            "to": self.to,
        }

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return ("op", "arg", "what", "from", "to")


@_event("infer_meta")
class InferMetaEvent(Event):
    """InferMeta checked the inputs and computed the output shapes and dtypes."""

    op: str
    shapes: list[list[int]]
    dtypes: list[str]


@_event("kernel.launch")
class KernelLaunch(Event):
    """The kernel ran; ``wall_ns`` is its wall time."""

    op: str
    kernel: str
    backend: str
    wall_ns: int


@_event("device.copy")
class DeviceCopy(Event):
    """Data crossed between the host and the GPU: ``direction`` is ``"h2d"`` (host to device) or
    ``"d2h"``, ``bytes`` its size, ``tensor`` the tensor whose data moved (None when the copy is not a
    tensor's: a kernel's own table, an index list). ``source`` is the ``file:line`` of the user's call
    that caused it (stamped as ``node.create``'s; see tracing/provenance.py). A copy from ordinary
    (pageable) host memory waits for the GPU's queued work, so each is followed by a ``device.sync``;
    a ``non_blocking=True`` copy from pinned memory (``Tensor.pin_memory()``) is not, nor a copy made
    inside another copy's wait (the flags of the device-side index checks, read with a value: ``tensor``
    None, right after that value's ``device.sync``)."""

    direction: str
    bytes: int
    tensor: int | None
    source: str | None = None


@_event("device.sync")
class DeviceSync(Event):
    """The host waited for the GPU to finish its queued work. ``reason`` says what asked:
    ``"item"`` (``.item()``, ``int()``/``float()`` of a tensor), ``"bool"`` (``if tensor:``),
    ``"print"`` (printing a tensor's values), ``"host copy"`` (``.cpu()``, ``.numpy()``, ``.tolist()``,
    a tensor moved to or made from host data), ``"nonzero"`` (the number of non-zero elements, which sizes
    the result of ``nonzero``, ``x[mask]``, ``masked_select``), ``"unique"`` (the number of distinct values),
    ``"cholesky"`` (``linalg.cholesky``'s ``info``, read to refuse a matrix that is not positive-definite),
    ``"matrix_exp"`` (the number of squarings ``matrix_exp`` makes), ``"anomaly check"`` (anomaly mode's
    NaN test of a node's outputs, ``mg.autograd.detect_anomaly``), ``"synchronize"``
    (``mg.cuda.synchronize()``) or ``"event"`` (``mg.cuda.Event.synchronize()``, ``Stream.synchronize()``);
    ``source`` is the user's ``file:line``. ``mg.cuda.set_sync_debug_mode`` warns or raises at each."""

    reason: str
    source: str | None = None


@_event("node.create")
class NodeCreate(Event):
    """A grad node was created (the dygraph layer, docs/architecture.md), or copied by GeneralGrad.

    ``edges`` lists the node's output edges in slot, then rank order:
    ``{"slot", "rank", "next", "next_slot", "next_rank"}`` where ``next`` is
    the next node's id (``None`` for an input that needs no gradient).
    """

    node: int
    name: str
    op: str
    topo_nr: int
    seq_nr: int
    is_accumulation: bool
    tensor: int | None
    copy_of: int | None
    edges: list[dict[str, Any]]
    saved: list[int]
    attrs: dict[str, Any]
    source: str | None = None  # file:line of the user's call that made the node (see tracing/provenance.py)
    module: str | None = None  # the nn.Module path running then, e.g. "Sequential.2 (Linear)"


# ---------------------------------------------------------------------------
# Backward engine (docs/concepts/backward.md)
# ---------------------------------------------------------------------------


@_event("backward.begin")
class BackwardBegin(Event):
    """``run_backward`` started; ``mode`` is ``"backward"`` or ``"grad"``."""

    mode: str
    start: list[int]
    retain_graph: bool
    create_graph: bool


@_event("backward.in_degree")
class BackwardInDegree(Event):
    """The in-degree map computed by BFS from the start nodes."""

    int_key_fields: ClassVar[tuple[str, ...]] = ("in_degree",)
    in_degree: dict[int, int]


@_event("queue.push")
class QueuePush(Event):
    """A node entered the ready queue (``front`` for AccumulationNodes)."""

    node: int
    front: bool
    queue: list[int]


@_event("queue.pop")
class QueuePop(Event):
    """The engine took the front node of the queue."""

    node: int
    queue: list[int]


@_event("queue.skip")
class QueueSkip(Event):
    """The popped node is not ready (in-degree not 0) and is dropped for now."""

    node: int
    in_degree: int


@_event("node.begin")
class NodeBegin(Event):
    """The engine starts a grad node: its gradient buffer as taken (missing gradients are zeros, no hook ran yet).

    Emitted before the node's hooks and its backward formula, so the formula's
    own events (``api.call``, ``kernel.launch`` ...) come between this event
    and the node's ``node.run``.
    """

    node: int
    grads_in: list[list[Preview]]


@_event("node.run")
class NodeRun(Event):
    """A grad node finished: the gradients its formula got (after hooks) and gave, per slot and rank."""

    node: int
    grads_in: list[list[Preview]]
    grads_out: list[list[Preview]]


@_event("buffer.add")
class BufferAdd(Event):
    """A gradient was added to ``node``'s GradTensorHolder at (slot, rank)."""

    node: int
    slot: int
    rank: int
    source: int | None
    value: Preview = None


@_event("in_degree.update")
class InDegreeUpdate(Event):
    """A node's in-degree changed to ``in_degree``."""

    node: int
    in_degree: int


#: The ``hook_kind`` values of a grad node's own hooks, whose ``hook.run`` ``target`` is a node id (the other kinds'
#: is a tensor id, or -1 for the final-backward hooks).
NODE_HOOK_KINDS = frozenset({"node_pre", "node_post"})


@_event("hook.run")
class HookRun(Event):
    """A hook ran on a gradient (``hook_kind``: tensor, retain_grad, final, post_accumulate_grad - a leaf's
    ``register_post_accumulate_grad_hook``, after its ``.grad`` was written -, module_backward_pre and
    module_backward - a module's full backward hooks -, and node_pre and node_post - a grad node's own
    ``register_prehook`` and ``register_hook``, whose ``target`` is the node's id, not a tensor's)."""

    target: int
    hook_kind: str


@_event("grad.accumulate")
class GradAccumulate(Event):
    """An AccumulationNode wrote a leaf's ``.grad`` (first assigned, then added).

    ``added`` is True when the gradient was added to a ``.grad`` already there (a
    second ``backward()`` without ``zero_grad()``), False when ``.grad`` was
    ``None`` and is now assigned; ``None`` in traces recorded before the field.
    """

    tensor: int
    value: Preview = None
    added: bool | None = None


@_event("wrappers.clear")
class WrappersClear(Event):
    """A node released its TensorWrappers (backward without ``retain_graph``)."""

    node: int


@_event("saved.pack")
class SavedPack(Event):
    """A saved-tensor pack hook (``mg.autograd.graph.saved_tensors_hooks``, ``save_on_cpu``,
    ``mg.utils.checkpoint``) took ``tensor`` as an op saved it: the grad node announced next
    keeps what ``hook`` returned, not the tensor's array (one event per save)."""

    tensor: int
    hook: str


@_event("recompute.begin")
class RecomputeBegin(Event):
    """Activation checkpointing (``mg.utils.checkpoint``) runs a checkpointed forward again,
    inside backward: every event up to the matching ``recompute.end`` is recomputation.
    ``node`` is the grad node whose saved tensors were asked for; ``function`` names the
    checkpointed callable; ``mode`` is ``"reentrant"`` or ``"non_reentrant"``."""

    node: int
    function: str
    mode: str


@_event("recompute.end")
class RecomputeEnd(Event):
    """The recomputation begun by the last open ``recompute.begin`` finished (or stopped early
    once every saved tensor it needed was made again)."""

    node: int


@_event("checkpoint.saved")
class CheckpointSaved(Event):
    """Selective checkpointing (``create_selective_checkpoint_contexts``) kept a kernel call's output:
    ``use`` is ``"keep"`` in the forward (the policy said save: the output stays alive until backward)
    and ``"reuse"`` in the recomputation (the kept output is handed back: no kernel runs, so no
    ``kernel.launch`` follows). ``op`` is minigrad's op, ``aten`` PyTorch's name for the call
    (``aten.mm.default``), ``bytes`` the output's size."""

    op: str
    aten: str
    bytes: int
    use: str


# ---------------------------------------------------------------------------
# GeneralGrad (docs/concepts/general-grad.md)
# ---------------------------------------------------------------------------


@_event("general_grad.copy")
class GeneralGradCopy(Event):
    """The reachable graph was copied: original node id -> copy id."""

    int_key_fields: ClassVar[tuple[str, ...]] = ("mapping",)
    mapping: dict[int, int]


@_event("general_grad.targets")
class GeneralGradTargets(Event):
    """Target nodes (copied ids) of ``inputs`` and ``no_grad_vars``."""

    inputs: list[int]
    no_grad: list[int]


@_event("general_grad.update")
class GeneralGradUpdate(Event):
    """Startup, ending and needed node sets (copied ids)."""

    startup: list[int]
    ending: list[int]
    needed: list[int]


@_event("general_grad.prune")
class GeneralGradPrune(Event):
    """Edges cut for ``no_grad_vars``: ``{"node", "slot", "rank", "next"}``."""

    edges: list[dict[str, Any]]


@_event("general_grad.result")
class GeneralGradResult(Event):
    """The gradient returned for one input tensor (``None`` when unused)."""

    input: int
    value: Preview = None


@_event("backward.end")
class BackwardEnd(Event):
    """``run_backward`` finished."""

    nodes_run: int
    wall_ns: int


@_event("error")
class ErrorEvent(Event):
    """An exception escaped an op call or a backward pass while recording, on its way to the user's code.

    It ends what it interrupted: the backward pass running (``node`` is the grad node that was
    running, or None when the pass failed before any ran), else the op call (``op``). ``error`` is
    the exception's class name and ``message`` its text, as the user sees them; ``source`` is the
    ``file:line`` of the user's call. One event per failure: the outermost handler of a nested
    failure (an op inside a backward formula, a backward inside a hook) does not repeat it.
    """

    error: str
    message: str
    source: str | None
    node: int | None
    op: str | None


@dataclass(slots=True, kw_only=True)
class UnknownEvent(Event):
    """A kind this version does not know (kept as data so newer traces load)."""

    kind_name: str = "unknown"
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.kind_name

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "ts_ns": self.ts_ns, "kind": self.kind_name, **self.data}


def event_from_dict(d: dict[str, Any]) -> Event:
    """Rebuild an event from its flat dict (the inverse of ``Event.to_dict``).

    Raises:
        KeyError: a required field is missing (the message names it).
        TypeError: the header is malformed.
    """
    kind = d.get("kind")
    if not isinstance(kind, str):
        raise TypeError("event has no string 'kind'")
    seq, ts = d.get("seq"), d.get("ts_ns")
    if not isinstance(seq, int) or not isinstance(ts, int):
        raise TypeError("event header needs integer 'seq' and 'ts_ns'")
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        data = {k: v for k, v in d.items() if k not in ("seq", "ts_ns", "kind")}
        return UnknownEvent(seq=seq, ts_ns=ts, kind_name=kind, data=data)
    kwargs: dict[str, Any] = {}
    for name, key, required, int_keys in _field_specs(cls):
        if key in d:
            value = d[key]
            if int_keys and isinstance(value, dict):
                value = {int(k): v for k, v in value.items()}
            kwargs[name] = value
        elif required:
            raise KeyError(f"missing field '{key}' for kind '{kind}'")
    return cls(seq=seq, ts_ns=ts, **kwargs)


_FIELD_SPECS: dict[type, tuple[tuple[str, str, bool, bool], ...]] = {}


def _field_specs(cls: type) -> tuple[tuple[str, str, bool, bool], ...]:
    """(field name, JSON key, required, int-keyed) per field of an event class (cached)."""
    specs = _FIELD_SPECS.get(cls)
    if specs is None:
        specs = tuple(
            (
                f.name,
                "from" if f.name == "from_" else f.name,
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
                f.name in cls.int_key_fields,  # type: ignore[attr-defined]
            )
            for f in dataclasses.fields(cls)
            if f.name not in ("seq", "ts_ns")
        )
        _FIELD_SPECS[cls] = specs
    return specs
