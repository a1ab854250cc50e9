"""``mg.autograd.profiler``: PyTorch's older profiler surface, over ``mg.profiler``.

Older tutorials write ``with torch.autograd.profiler.profile() as prof:`` and print
``prof.key_averages().table(...)``; this is that ``profile`` (its ranges are ``mg.profiler``'s) and the
same ``record_function``.
"""

from __future__ import annotations

from typing import Any

from ..profiler import ProfilerActivity, profile as _profile, record_function
from ..profiler.results import EventList, FunctionEvent, FunctionEventAvg as _FunctionEventAvg

__all__ = ["profile", "record_function", "EventList", "FunctionEvent"]


class profile:
    """``torch.autograd.profiler.profile(enabled=True, *, use_cuda=False, record_shapes=False, ...)``."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False) -> None:
        self.enabled = enabled
        acts = [ProfilerActivity.CPU] if use_cpu else []
        if use_cuda or use_device == "cuda":
            acts.append(ProfilerActivity.CUDA)
        self._inner = _profile(activities=acts, record_shapes=record_shapes, with_flops=with_flops,
                               profile_memory=profile_memory, with_stack=with_stack, acc_events=acc_events)
        self.function_events: EventList | None = None

    def __enter__(self) -> "profile":
        if self.enabled:
            self._inner.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._inner.stop()
            self.function_events = self._inner.events()

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> _FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        self._events().export_chrome_trace(path)

    def __str__(self) -> str:
        return self.table()
