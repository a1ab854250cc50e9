"""``mg.profiler``: PyTorch's profiler - where a training step's time goes, op by op.

A performance lesson starts here. ``profile`` times what the program runs inside it: each op call under
the name PyTorch's profiler gives it (``aten::addmm``), each grad node the backward pass runs
(``autograd::engine::evaluate_function: AddmmBackward0``), each optimizer step
(``Optimizer.step#AdamW.step``) and each range the program names with ``record_function``; on a GPU,
with ``ProfilerActivity.CUDA``, each kernel launch, host/device copy and wait for the device too
(``tracing/profiling.py`` says how the ranges are taken, and what is counted but not timed)::

    from minigrad.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("train_step"):
            loss = model(x).sum()
            loss.backward()
            opt.step()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

``schedule(wait=1, warmup=1, active=3)`` with ``prof.step()`` at the end of each iteration profiles some
steps of a loop and hands each finished cycle to ``on_trace_ready`` (``tensorboard_trace_handler(dir)``
writes it as a Chrome trace). The table is PyTorch's, column for column (``profiler/results.py``).

``profile_memory=True`` counts the bytes each op call allocates for its outputs (on the CPU or the GPU:
``CPU Mem``, ``CUDA Mem``), and ``with_stack=True`` keeps the program's lines at each op call
(``key_averages(group_by_stack_n=3)``). What is not here: memory freed is not counted (PyTorch subtracts
it from the op that frees it), FLOPs (``with_flops=True``) are refused, not ignored, and the device's own
time of a kernel is not measured, so the tables have no CUDA time columns.
"""

from __future__ import annotations

import enum
import functools
import gzip
import os
import shutil
import socket
import time
import warnings
from typing import Any, Callable, Iterable

from ..kernels.backends import is_gpu_available as _is_gpu_available
from ..tracing.profiling import ProfileRecorder as _ProfileRecorder, scope as _scope
from .results import EventList as _EventList, events_of as _events_of

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """What a profile records: the host's ranges (``CPU``), and the GPU's launches, copies and waits (``CUDA``)."""

    CPU = 0
    CUDA = 2

    def __repr__(self) -> str:
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class ProfilerAction(enum.Enum):
    """What a schedule asks of a step: nothing, warm up, record, or record and hand the trace over."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set[ProfilerActivity]:
    """The activities a profile can record here: the CPU's, and the GPU's where one is present."""
    return {ProfilerActivity.CPU, ProfilerActivity.CUDA} if _is_gpu_available() else {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """PyTorch's schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle, ``warmup`` warming and
    ``active`` recorded steps, the last of which hands the trace over; ``repeat`` cycles (0: no end)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _record_always(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[["profile"], None]:
    """An ``on_trace_ready`` that writes each trace to ``dir_name`` as ``<worker>.<ns>.pt.trace.json``."""

    def handler_fn(prof: "profile") -> None:
        nonlocal worker_name
        try:
            os.makedirs(dir_name, exist_ok=True)
        except Exception as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)

    return handler_fn


class record_function(_scope):
    """``with record_function("name"):`` (or ``@record_function("name")``): a range the profile shows under
    that name, around what runs inside. Outside a profile it does nothing."""

    __slots__ = ("args",)

    def __init__(self, name: str, args: str | None = None) -> None:
        super().__init__(name)
        self.args = args

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def ranged(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return ranged




class profile:
    """PyTorch's ``torch.profiler.profile`` (see the module docstring)."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[["profile"], Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None) -> None:
        if with_flops:
            raise NotImplementedError("minigrad's profiler does not count FLOPs (with_flops=True): it times the "
                                      "host's ranges, counts the GPU's launches, copies and waits, and the "
                                      "memory each op allocates")
        acts = set(supported_activities() if activities is None else activities)
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
            acts.add(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        self.activities = acts
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.use_device = "cuda" if ProfilerActivity.CUDA in acts else None
        self.acc_events = acc_events
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _record_always
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recorder: _ProfileRecorder | None = None
        self._events: _EventList | None = None
        self._step_range: record_function | None = None
        self._t0 = 0

    # -- the schedule ----------------------------------------------------------

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """The next step of the program's loop begins (a schedule decides what is recorded)."""
        self._exit_step()
        prev, self.step_num = self.current_action, self.step_num + 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._enter_step()

    def _enter_step(self) -> None:
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _exit_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def _transit(self, prev: ProfilerAction, now: ProfilerAction | None) -> None:
        """PyTorch's table of what a change of action does (``torch/profiler/profiler.py``)."""
        A = ProfilerAction
        recording = (A.RECORD, A.RECORD_AND_SAVE)
        if prev is A.RECORD_AND_SAVE:
            self._stop_trace()
            self._trace_ready()
            if now in recording:
                self._start_trace()
        elif prev is A.RECORD:
            if now is None:
                self._stop_trace()
                self._trace_ready()
            elif now not in recording:
                warnings.warn(f"Incorrect schedule: RECORD followed by {now.name}")
                self._stop_trace()
        elif prev is A.WARMUP:
            if now in recording:
                self._start_trace()
            elif now is A.NONE or now is None:
                if now is A.NONE:
                    warnings.warn("Incorrect schedule: WARMUP followed by NONE")
                self._start_trace()
                self._stop_trace()
        elif prev is A.NONE and now in recording:
            self._start_trace()

    def _start_trace(self) -> None:
        self._recorder = _ProfileRecorder(self.record_shapes, self.use_device is not None, self.profile_memory,
                                          self.with_stack)
        self._t0 = time.perf_counter_ns()
        self._recorder.start()

    def _stop_trace(self) -> None:
        rec, self._recorder = self._recorder, None
        if rec is None:
            return
        rec.close_all()
        rec.stop()
        events = _events_of(rec.spans, self._t0, self.use_device, self.profile_memory)
        if self.acc_events and self._events is not None:
            events = _EventList([*self._events, *events], self.use_device, self.profile_memory)
        self._events = events

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # -- what it found -----------------------------------------------------------

    def events(self) -> _EventList:
        """Every range of the last trace, in the order they began."""
        if self._events is None:
            raise AssertionError("Expected profiling results to be available: run the profile first")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> _EventList:
        """The ranges summed by name (``EventList.key_averages``)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the last trace for ``chrome://tracing`` or Perfetto."""
        self.events().export_chrome_trace(path)

    def export_stacks(self, path: str | os.PathLike[str], metric: str = "self_cpu_time_total") -> None:
        """Write the ops' program lines with ``metric``, a flame graph's input (``with_stack=True``)."""
        self.events().export_stacks(path, metric)
