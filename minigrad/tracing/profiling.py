"""The profiler's recorder: timed ranges (``mg.profiler.profile`` turns them into PyTorch's tables).

A trace keeps every step as an event; a profile keeps *ranges* - what ran, from when to when, inside
what - as PyTorch's profiler does. ``ProfileRecorder`` is a recorder, so the engine's layers report to
it as they report to a trace (``bus.recorder``), but it keeps no events. It opens and closes ranges:

* an op call (``dispatch/dygraph.py`` calls ``op_begin``/``op_end`` around the layers' steps), named
  as PyTorch's dispatcher names the same call: ``aten::mm`` for a matrix product of matrices
  (``ops/aten_names.py``);
* a grad node the engine runs: ``autograd::engine::evaluate_function: MulBackward0`` from the node's
  start until the engine takes the next node from the queue (its gradients passed on), and inside it
  ``MulBackward0``, the node's own run (hooks and formula);
* a range the program names: ``record_function("train_step")``, an optimizer's
  ``Optimizer.step#AdamW.step`` and ``Optimizer.zero_grad#AdamW.zero_grad``, a profiler step
  ``ProfilerStep#3``;
* on a GPU, each kernel's launch (``cudaLaunchKernel``, the host's time of the call), each copy
  between host and device (``cudaMemcpyAsync``) and each wait for the device
  (``cudaStreamSynchronize``), inside whatever range was open. minigrad knows when a copy or a wait
  happens, not how long the device took: those two are counted, with no time of their own.

NOTE [ A profile times what runs unrecorded ]
    A trace makes the fused and multi-tensor paths (an optimizer's fused step, the scaler's
    unscaling) run as ops, so each of their steps has its events. A profile must time the program
    as it runs without one, so this recorder says ``steps_as_ops = False`` and those paths run as
    they do untraced: their time is the self time of the range around them
    (``Optimizer.step#AdamW.step``). The rest of the engine's recording still runs (each op still
    builds its ``api.call``), so a profiled op costs a few microseconds more than an unprofiled one,
    as PyTorch's profiler adds its own cost to each op.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from typing import Any

from ..dtypes import as_dtype
from . import bus
from .events import Event
from .provenance import is_user_file
from .recorder import Recorder

__all__ = ["Meta", "ProfileRecorder", "Span", "scope"]

_now = time.perf_counter_ns

#: Node class names PyTorch's profiler spells with their C++ namespace.
_NAMESPACED = {"AccumulateGrad": "torch::autograd::AccumulateGrad", "CopySlices": "torch::autograd::CopySlices",
               "GraphRoot": "torch::autograd::GraphRoot"}


class Span:
    """One range: ``name`` from ``start_ns`` to ``end_ns`` (``perf_counter_ns``), inside ``parent``."""

    __slots__ = ("id", "name", "start_ns", "end_ns", "parent", "children", "shapes", "kind", "thread", "device",
                 "call", "allocated", "stack")

    def __init__(self, sid: int, name: str, start_ns: int, parent: "Span | None", kind: str,
                 shapes: list[list[int]] | None = None, device: str = "cpu") -> None:
        self.id, self.name, self.start_ns, self.end_ns = sid, name, start_ns, start_ns
        self.parent, self.children, self.shapes, self.kind = parent, [], shapes, kind
        self.thread, self.device = threading.get_ident(), device
        #: An op call's (op, its inputs' ``Meta``, attributes): what names it as PyTorch would.
        self.call: tuple[str, list[Any], dict[str, Any]] | None = None
        #: Bytes of the new arrays an op call made for its outputs, on ``device`` (``profile_memory``).
        self.allocated = 0
        #: The program's frames at the call, innermost first, as ``file(line): function`` (``with_stack``).
        self.stack: list[str] | None = None
        if parent is not None:
            parent.children.append(self)

    def __repr__(self) -> str:
        return f"Span({self.name!r}, {(self.end_ns - self.start_ns) / 1000:.3f}us, {len(self.children)} inside)"


class ProfileRecorder(Recorder):
    """A recorder that keeps timed ranges instead of events (see the module docstring).

    Args:
        record_shapes: keep each op call's input shapes (``record_shapes=True``).
        device_rows: keep the GPU's launches, copies and waits (``ProfilerActivity.CUDA``).
        memory: count the bytes each op call allocates for its outputs (``profile_memory=True``).
        with_stack: keep the program's frames at each op call (``with_stack=True``).
    """

    __slots__ = ("spans", "_open", "_node_names", "_evaluating", "_running", "record_shapes", "device_rows",
                 "_next_id", "memory", "with_stack")

    ranges = True
    steps_as_ops = False

    def __init__(self, record_shapes: bool = False, device_rows: bool = False, memory: bool = False,
                 with_stack: bool = False) -> None:
        super().__init__(values=False)
        self.provenance = False
        #: Every range opened, in the order they were opened.
        self.spans: list[Span] = []
        self._open: list[Span] = []
        self._node_names: dict[int, str] = {}
        self._evaluating: Span | None = None  # the open ``evaluate_function`` range
        self._running: Span | None = None  # the open node range inside it
        self.record_shapes, self.device_rows = record_shapes, device_rows
        self.memory, self.with_stack = memory, with_stack
        self._next_id = 1

    # -- ranges ------------------------------------------------------------

    def begin(self, name: str, kind: str = "user", shapes: list[list[int]] | None = None, device: str = "cpu",
              at: int | None = None) -> Span:
        """Open a range named ``name`` inside the innermost open one."""
        parent = self._open[-1] if self._open else None
        span = Span(self._next_id, name, _now() if at is None else at, parent, kind, shapes, device)
        self._next_id += 1
        self.spans.append(span)
        self._open.append(span)
        return span

    def end(self, span: Span, at: int | None = None) -> None:
        """Close ``span``, and any range opened inside it and left open (an exception passing through)."""
        if span not in self._open:
            return
        t = _now() if at is None else at
        while self._open:
            top = self._open.pop()
            top.end_ns = t
            if top is span:
                break

    def op_begin(self, op: str, inputs: list[Any], attrs: dict[str, Any]) -> None:
        """An op call starts: a range for it, named later as PyTorch's dispatcher names the call
        (``mg.profiler`` reads ``call``), with its inputs' shapes when asked."""
        metas = [Meta(x) for x in inputs]
        device = "cpu"
        for m in metas:
            if m.device is not None:
                device = m.device
                break
        span = self.begin(op, "op", [list(m.shape) for m in metas] if self.record_shapes else None, device)
        span.call = (op, metas, attrs)
        if self.with_stack:
            span.stack = program_stack()

    def op_end(self, inputs: Any = (), outs: Any = None) -> None:
        """The op call begun last returns ``outs`` (None: it raised); with ``memory``, the bytes of the
        arrays it made for them - not an input's array handed back, not a view of one."""
        if not (self._open and self._open[-1].kind == "op"):
            return
        span = self._open[-1]
        if self.memory and outs is not None:
            span.allocated = new_bytes(inputs, outs if type(outs) is tuple else (outs,))
        self.end(span)

    def close_all(self) -> None:
        """Close every open range now (the profile stops)."""
        if self._open:
            self.end(self._open[0])
        self._evaluating = self._running = None

    # -- the engine's events -------------------------------------------------

    def emit(self, event: Event) -> None:
        handler = _HANDLERS.get(event.kind)
        if handler is not None:
            handler(self, event)

    def emit_copies(self, templates: tuple[Event, ...]) -> None:
        """The kernel layer's cached events: nothing to time."""

    def record_error(self, exc: BaseException, node: int | None = None, op: str | None = None) -> None:
        """A backward pass failed: the node's ranges end here (an op call's end in ``op_end``)."""
        self._end_evaluation()

    def meet_graph(self, roots: list[Any]) -> None:
        """A backward pass starts from ``roots``: learn the names of nodes made before the profile began."""
        names, stack, seen = self._node_names, list(roots), set()
        while stack:
            node = stack.pop()
            if node is None or node.id in seen:
                continue
            seen.add(node.id)
            if node.id not in names:
                names[node.id] = _NAMESPACED.get(type(node).__name__, type(node).__name__)
            for row in node.next_edges:
                stack.extend(edge.node for edge in row)

    def _node_created(self, ev: Any) -> None:
        name = ev.name.rpartition("#")[0] or ev.name
        self._node_names[ev.node] = _NAMESPACED.get(name, name)

    def _node_begin(self, ev: Any) -> None:
        self._end_evaluation()
        name = self._node_names.get(ev.node, f"node {ev.node}")
        self._evaluating = self.begin(f"autograd::engine::evaluate_function: {name}", "backward")
        self._running = self.begin(name, "node")

    def _node_run(self, ev: Any) -> None:
        if self._running is not None:
            self.end(self._running)
            self._running = None

    def _end_evaluation(self, ev: Any = None) -> None:
        if self._evaluating is not None:
            self.end(self._evaluating)
            self._evaluating = self._running = None

    def _created(self, ev: Any) -> None:
        """A creation function's tensor announced: with ``memory``, its bytes are its range's."""
        span = self._open[-1] if self._open else None
        if self.memory and span is not None and span.kind == "create" and not span.allocated:
            span.allocated = math.prod(ev.shape) * as_dtype(ev.dtype).itemsize

    def _launched(self, ev: Any) -> None:
        if self.device_rows and ev.backend in _GPU_BACKENDS:
            t = _now()
            self.end(self.begin("cudaLaunchKernel", "runtime", None, "gpu", at=t - ev.wall_ns), at=t)

    def _copied(self, ev: Any) -> None:
        if self.device_rows:
            self._counted("cudaMemcpyAsync")

    def _synced(self, ev: Any) -> None:
        if self.device_rows:
            self._counted("cudaStreamSynchronize")

    def _counted(self, name: str) -> None:
        """A range of no time: minigrad knows that a copy or a wait happens, not how long the device took."""
        t = _now()
        self.end(self.begin(name, "runtime", None, "gpu", at=t), at=t)


class scope:
    """``with scope("Optimizer.step#SGD.step"):`` - a range of the profile recording this thread, if any
    (``mg.profiler.record_function`` is this with PyTorch's surface). Without one it costs a read."""

    __slots__ = ("name", "kind", "_rec", "_span")

    def __init__(self, name: str, kind: str = "user") -> None:
        self.name = name
        #: ``"create"``: a creation function's range, whose tensor's bytes are its memory (``tensor.create``)
        self.kind = kind
        self._rec: Any = None
        self._span: Span | None = None

    def __enter__(self) -> "scope":
        rec = bus.recorder
        if rec is not None and rec.ranges:
            self._rec, self._span = rec, rec.begin(self.name, self.kind)
        return self

    def __exit__(self, *exc: object) -> bool:
        rec, self._rec = self._rec, None
        if rec is not None:
            rec.end(self._span)
        return False


def new_bytes(inputs: Any, outs: tuple[Any, ...]) -> int:
    """The bytes of the memory ``outs``' arrays hold that no input's array holds: each array's memory is
    its root's (a view's base, followed to the end), counted once."""
    given = {id(_root(getattr(x, "_data", None))) for x in inputs}
    counted: set[int] = set()
    total = 0
    for t in outs:
        data = getattr(t, "_data", None)
        if data is None:
            continue
        root = _root(data)
        if id(root) not in given and id(root) not in counted:
            counted.add(id(root))
            total += root.nbytes
    return total


def _root(array: Any) -> Any:
    """The array whose memory ``array`` sees (itself, unless it is a view)."""
    while getattr(array, "base", None) is not None and hasattr(array.base, "nbytes"):
        array = array.base
    return array


def program_stack() -> list[str]:
    """The program's frames calling into minigrad now, innermost first (PyTorch's ``with_stack`` entries)."""
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if is_user_file(code.co_filename):
            frames.append(f"{code.co_filename}({frame.f_lineno}): {code.co_name}")
        frame = frame.f_back
    return frames


class Meta:
    """What naming an op call needs of one input, without keeping its array: its ``shape`` (``()`` for
    anything but a tensor, a list of tensors too, as PyTorch's profiler lists them), NumPy ``dtype`` and
    ``device``."""

    __slots__ = ("shape", "dtype", "device")

    def __init__(self, x: Any) -> None:
        data = getattr(x, "_data", None)
        if data is None:
            self.shape, self.dtype, self.device = (), None, None
        else:
            self.shape, self.dtype, self.device = data.shape, data.dtype, x._device

    @property
    def ndim(self) -> int:
        return len(self.shape)


_GPU_BACKENDS = frozenset({"GPU", "GPUDNN"})

_HANDLERS = {
    "node.create": ProfileRecorder._node_created,
    "node.begin": ProfileRecorder._node_begin,
    "node.run": ProfileRecorder._node_run,
    "queue.pop": ProfileRecorder._end_evaluation,
    "backward.end": ProfileRecorder._end_evaluation,
    "tensor.create": ProfileRecorder._created,
    "kernel.launch": ProfileRecorder._launched,
    "device.copy": ProfileRecorder._copied,
    "device.sync": ProfileRecorder._synced,
}
