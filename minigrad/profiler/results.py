"""What a profile found: ``FunctionEvent`` per range, ``EventList`` of them, and PyTorch's tables.

``prof.events()`` is an ``EventList`` of ``FunctionEvent`` (one per range the profile timed, with its
parent and children); ``prof.key_averages()`` sums them by name into ``FunctionEventAvg``; ``table()``
prints what PyTorch's ``torch.autograd.profiler_util`` prints for the same numbers, column for column:
the name, self and total CPU time with their shares of the whole, the average, the number of calls, and
the input shapes when the profile recorded them. Times are in microseconds, as PyTorch's are.

Example:
    >>> import minigrad as mg
    >>> from minigrad.profiler import profile, record_function
    >>> with profile() as prof:
    ...     with record_function("step"):
    ...         y = (mg.ones(3, requires_grad=True) * 2).sum()
    ...         y.backward()
    >>> [e.key for e in prof.key_averages()][:3]
    ['step', 'aten::ones', 'aten::mul']
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable

from ..ops.aten_names import profiler_name
from ..tracing.profiling import Span

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "events_of"]

#: The profiler's steps are summed together: ``ProfilerStep#3`` is listed as ``ProfilerStep*``.
_STEP = "ProfilerStep#"


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


def _format_memory(nbytes: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes * 1.0 / size:.2f} {unit}"
    return f"{nbytes} B"


class _Times:
    """The times every row of a table has, formatted as PyTorch formats them."""

    cpu_time_total: float
    self_cpu_time_total: float
    count: int

    @property
    def cpu_time(self) -> float:
        """The average total time of one call."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    device_time_total = self_device_time_total = 0.0  # minigrad times the host (see ``tracing/profiling.py``)

    @property
    def device_time(self) -> float:
        return 0.0

    @property
    def cuda_time_total(self) -> float:  # PyTorch's older name
        return 0.0

    @property
    def self_cuda_time_total(self) -> float:
        return 0.0

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)


class FunctionEvent(_Times):
    """One range the profile timed: ``name``, its ``time_range`` (microseconds from the profile's start),
    the ranges inside it (``cpu_children``) and the one around it (``cpu_parent``); with ``profile_memory``
    the bytes allocated inside it (``cpu_memory_usage``, ``device_memory_usage``: its own and its
    children's; the ``self_`` ones its own)."""

    def __init__(self, span: Span, t0_ns: int, name: str, trace_name: str) -> None:
        self.id = span.id
        self.name = name
        self.trace_name = trace_name  # as the Chrome trace names it: ``ProfilerStep#3``, not ``ProfilerStep*``
        self.thread = span.thread
        self.device_type = "cuda" if span.kind == "runtime" else "cpu"
        self.start_us = (span.start_ns - t0_ns) / 1000.0
        self.end_us = (span.end_ns - t0_ns) / 1000.0
        self.input_shapes: Any = span.shapes if span.shapes is not None else []
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.count = 1
        self.is_async = False
        self.is_user_annotation = span.kind == "user"
        self.stack: list[str] = span.stack or []
        on_gpu = span.device != "cpu"
        self._own_cpu_memory = 0 if on_gpu else span.allocated
        self._own_device_memory = span.allocated if on_gpu else 0

    @property
    def cpu_memory_usage(self) -> int:
        return self._own_cpu_memory + sum(child.cpu_memory_usage for child in self.cpu_children)

    @property
    def device_memory_usage(self) -> int:
        return self._own_device_memory + sum(child.device_memory_usage for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self._own_cpu_memory

    @property
    def self_device_memory_usage(self) -> int:
        return self._own_device_memory

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def time_range(self) -> tuple[float, float]:
        return (self.start_us, self.end_us)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} cpu_children={[c.id for c in self.cpu_children]} "
                f"cpu_parent={self.cpu_parent.id if self.cpu_parent else None} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_Times):
    """The events of one key summed: total and self times, and the number of calls."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: Any = None
        self.stack: list[str] = []
        self.cpu_parent: FunctionEvent | None = None
        self.is_async = False
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_memory_usage = self.self_device_memory_usage = 0

    def add(self, other: "FunctionEvent | FunctionEventAvg") -> "FunctionEventAvg":
        if self.key is None:
            self.key, self.input_shapes, self.cpu_parent = other.key, other.input_shapes, other.cpu_parent
            self.stack = other.stack
        elif other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        return self

    __iadd__ = add

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of events with PyTorch's summaries: ``table``, ``key_averages``, ``total_average``,
    ``export_chrome_trace``. ``profile_memory``: the tables show memory; ``use_device``: ``"cuda"`` when the
    profile kept the GPU's rows (its memory gets columns of its own)."""

    def __init__(self, events: Iterable[Any] = (), use_device: str | None = None, profile_memory: bool = False) -> None:
        super().__init__(events)
        self.use_device, self.profile_memory = use_device, profile_memory

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> "EventList":
        """The events summed by name (and by input shapes when asked), in the order each name first ran."""
        stats: dict[Any, FunctionEventAvg] = {}
        for e in self:
            key: tuple[Any, ...] = (e.key, str(e.input_shapes)) if group_by_input_shape else (e.key,)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            stats.setdefault(key, FunctionEventAvg()).add(e)
        out = EventList(stats.values(), self.use_device, self.profile_memory)
        for avg in out:
            avg.stack = avg.stack[:group_by_stack_n]
            if not group_by_input_shape:
                avg.input_shapes = ""
        return out

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for e in self:
            total.key = e.key
            total.add(e)
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """PyTorch's table of these events (see the module docstring)."""
        return build_table(self, sort_by, row_limit, (max_name_column_width, max_shapes_column_width,
                           max_src_column_width), header, top_level_events_only, time_unit)

    def __str__(self) -> str:
        return self.table()

    @staticmethod
    def supported_export_stacks_metrics() -> list[str]:
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total", "self_privateuse1_time_total"]

    def export_stacks(self, path: str | os.PathLike[str], metric: str) -> None:
        """Write each op's program lines, outermost first, with its ``metric`` in whole microseconds: the
        input of a flame graph (``flamegraph.pl``), as PyTorch writes it (``with_stack=True``)."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: " + str(self.supported_export_stacks_metrics()))
        blanks = str.maketrans(" ;\t\n", "____")
        field = metric.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")
        with open(path, "w") as f:
            for e in self:
                value = int(getattr(e, field))
                if e.stack and value > 0:
                    f.write(";".join(entry.translate(blanks) for entry in reversed(e.stack)) + f" {value}\n")

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto): one complete event each."""
        rows = [{"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                 "name": e.trace_name, "pid": os.getpid(), "tid": e.thread, "ts": e.start_us,
                 "dur": e.cpu_time_total, "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}}
                for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": rows}, f)


def _time_in(us: float, unit: str | None) -> str:
    if unit == "s":
        return f"{us / 1e6:.3f}s"
    if unit == "ms":
        return f"{us / 1e3:.3f}ms"
    if unit == "us":
        return f"{us:.3f}us"
    return _format_time(us)


_SPACING = 2
_WIDTH = 12


def build_table(events: "EventList", sort_by: str | None, row_limit: int, widths_max: tuple[int | None, ...],
                header: str | None, top_level_only: bool, time_unit: str | None) -> str:
    """The table PyTorch's ``EventList.table`` prints: columns right-aligned, two spaces apart; memory
    columns with ``profile_memory``; a source column, left-aligned, when the events carry stacks."""
    use_device, memory = events.use_device, events.profile_memory
    rows = list(events)
    if not rows:
        return ""
    if sort_by is not None:
        field = sort_by.replace("cuda", "device").replace("xpu", "device")
        rows = sorted(rows, key=lambda e: getattr(e, field), reverse=True)
    columns = _columns(rows, widths_max, memory, use_device)
    fmt = "".join("{: " + align + str(w) + "}" + " " * _SPACING for _, w, align in columns)
    sep = "".join("-" * w + " " * _SPACING for _, w, _ in columns)
    line_length = sum(w + _SPACING for _, w, _ in columns) - _SPACING
    total = sum(e.self_cpu_time_total for e in rows)
    lines: list[str] = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [sep, fmt.format(*(title for title, _, _ in columns)), sep]
    names = {title for title, _, _ in columns}
    max_name = widths_max[0]
    shown = 0
    for e in rows:
        if shown == row_limit:
            break
        if top_level_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name is not None and len(name) >= max_name - 3:
            name = name[: max_name - 3] + "..."
        values: list[Any] = [name, _format_share(e.self_cpu_time_total, total), _time_in(e.self_cpu_time_total, time_unit),
                             _format_share(e.cpu_time_total, total), _time_in(e.cpu_time_total, time_unit),
                             _time_in(e.cpu_time, time_unit)]
        if memory:
            values += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if "CUDA Mem" in names:
                values += [_format_memory(e.device_memory_usage), _format_memory(e.self_device_memory_usage)]
        values.append(e.count)
        if "Input Shapes" in names:
            values.append(str(e.input_shapes)[: columns[len(values)][1]])
        if "Source Location" in names:
            width = columns[-1][1]
            values.append(_trim(e.stack[0], width) if e.stack else "")
            lines.append(fmt.format(*values))
            blank = [""] * (len(columns) - 1)
            lines += [fmt.format(*blank, _trim(entry, width)) for entry in e.stack[1:]]
            lines.append(fmt.format(*blank, ""))
            continue
        lines.append(fmt.format(*values))
    lines += [sep, f"Self CPU time total: {_time_in(total, time_unit)}"]
    return "".join(line + "\n" for line in lines)


def _columns(rows: list[Any], widths_max: tuple[int | None, ...], memory: bool,
             use_device: str | None) -> list[tuple[str, int, str]]:
    """The table's columns: title, width, alignment."""
    max_name, max_shapes, max_src = widths_max
    name_width = max(len(e.key) for e in rows) + 4
    if max_name is not None:
        name_width = min(name_width, max_name)
    titles = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if memory:
        titles += ["CPU Mem", "Self CPU Mem"]
        if use_device and any(e.self_device_memory_usage > 0 for e in rows):
            titles += [f"{use_device.upper()} Mem", f"Self {use_device.upper()} Mem"]
    titles.append("# of Calls")
    columns = [("Name", name_width, ">")] + [(t, _WIDTH, ">") for t in titles]
    if any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in rows):
        width = max(len(str(e.input_shapes)) for e in rows) + 4
        columns.append(("Input Shapes", width if max_shapes is None else min(width, max_shapes), ">"))
    stacks = [e.stack for e in rows if e.stack]
    if stacks:
        width = max(len(entry) for stack in stacks for entry in stack) + 4
        columns.append(("Source Location", width if max_src is None else min(width, max_src), "<"))
    return columns


def _trim(path: str, width: int) -> str:
    """A source line cut to ``width`` from the left, its first three characters made ``...``."""
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def events_of(spans: list[Span], t0_ns: int, use_device: str | None = None, profile_memory: bool = False) -> EventList:
    """The profile's ranges as ``FunctionEvent``, each named as PyTorch's profiler names it, linked to
    its parent and children."""
    made: dict[int, FunctionEvent] = {}
    out = EventList((), use_device, profile_memory)
    for span in spans:
        name = _name_of(span)
        event = FunctionEvent(span, t0_ns, "ProfilerStep*" if name.startswith(_STEP) else name, name)
        made[id(span)] = event
        if span.parent is not None and id(span.parent) in made:
            event.cpu_parent = made[id(span.parent)]
            event.cpu_parent.cpu_children.append(event)
        out.append(event)
    return out


def _name_of(span: Span) -> str:
    if span.call is not None:
        op, metas, attrs = span.call
        return profiler_name(op, metas, attrs, span.device)
    return span.name
