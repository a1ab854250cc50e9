"""``mg.cuda.Event`` and ``mg.cuda.Stream``: timing GPU work and ordering it, as PyTorch's ``torch.cuda`` does.

A GPU runs behind the host: ``y = x @ w`` returns as soon as the kernel is *queued*. Host clocks
(``time.perf_counter``) around it measure the queueing, not the kernel. A CUDA event is a marker
placed in the GPU's queue; the GPU stamps it when it reaches it, so two events time the work
between them::

    start, end = mg.cuda.Event(enable_timing=True), mg.cuda.Event(enable_timing=True)
    start.record()
    y = x @ w
    end.record()
    end.synchronize()              # the host waits for the GPU to reach ``end``
    ms = start.elapsed_time(end)   # GPU time between the two stamps, in milliseconds

Which calls wait (mirrors c10/cuda/CUDAEvent.h and CUDAStream.h):

=========================  ==========================================================================
``record()``               queues the marker; no wait
``query()``                asks whether the GPU has passed the marker; no wait
``elapsed_time(end)``      reads two stamps; no wait (an event the GPU has not reached is an error)
``wait(stream)``           makes a stream's later work wait for the marker; the host does not wait
``synchronize()``          the host waits: a ``device.sync`` event with reason ``"event"``
                           (``set_sync_debug_mode`` lets it pass, as PyTorch's does: timing with
                           events is how a program measures the GPU, not a hidden sync)
``Stream.synchronize()``   the host waits for the whole stream (reason ``"event"`` too, and the sync
                           debug mode's warning or error, as PyTorch gives there)
=========================  ==========================================================================

NOTE [ One stream ] minigrad queues every kernel and copy on CuPy's current stream, which is the
default (null) stream. ``current_stream()`` and ``default_stream()`` are that stream; ``Stream()``
makes a CuPy stream that events can be recorded on and waited for, but minigrad cannot run its
kernels there, so ``with mg.cuda.stream(side):`` is refused with a ``RuntimeError`` (the default
stream's context, and ``stream(None)``, are accepted and change nothing).

Without a GPU each behaves as PyTorch's CPU-only build: ``Event()`` and ``Stream()`` raise
``RuntimeError``, ``current_stream()``/``default_stream()`` ``AssertionError``.
"""

from __future__ import annotations

from typing import Any

from .devices import device as _device, is_gpu_available
from .kernels.gpu.syncs import synced  # (no CuPy import)

__all__ = ["Event", "Stream", "StreamContext", "current_stream", "default_stream", "stream"]

NOT_COMPILED = "Torch not compiled with CUDA enabled"  # PyTorch's CPU build's words (torch/cuda/__init__.py)


def _cupy() -> Any:
    """CuPy's module (imported on use: ``import minigrad`` never imports it)."""
    import cupy  # noqa: PLC0415  (optional third-party package, imported on use)

    return cupy


class Event:
    """A CUDA event over ``cupy.cuda.Event`` (PyTorch's ``torch.cuda.Event``).

    As PyTorch's, the CUDA event is made at the first ``record()``: before it, ``query()`` is True,
    ``synchronize()`` returns at once and ``elapsed_time`` refuses the event.

    Args:
        enable_timing: stamp the event with the GPU's clock (needed by ``elapsed_time``).
        blocking: ``synchronize()`` blocks the host thread instead of spinning.
        interprocess: the event may be shared between processes.

    Example:
        >>> import minigrad as mg
        >>> if mg.cuda.is_available():
        ...     start, end = mg.cuda.Event(enable_timing=True), mg.cuda.Event(enable_timing=True)
        ...     start.record(); end.record(); end.synchronize()
        ...     assert start.elapsed_time(end) >= 0.0
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        if not is_gpu_available():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self.enable_timing, self.blocking, self.interprocess = bool(enable_timing), bool(blocking), bool(interprocess)
        self._event: Any = None  # the cupy.cuda.Event, made at the first record

    @property
    def cuda_event(self) -> int:
        """The ``cudaEvent_t`` handle (0 before the first record)."""
        return int(self._event.ptr) if self._event is not None else 0

    event_id = cuda_event

    @property
    def device(self) -> Any:
        """The event's device (``cuda:0``) once recorded, else None."""
        return _gpu_device() if self._event is not None else None

    def record(self, stream: Stream | None = None) -> None:
        """Queue the marker on ``stream`` (the current stream when None)."""
        where = (stream or current_stream())._stream
        if self._event is None:
            self._event = _cupy().cuda.Event(block=self.blocking, disable_timing=not self.enable_timing,
                                             interprocess=self.interprocess)
        self._event.record(where)

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream``'s later work wait for this event (the host does not wait)."""
        if self._event is not None:
            (stream or current_stream())._stream.wait_event(self._event)

    def query(self) -> bool:
        """Whether the GPU has passed the marker (True before any record); the host does not wait."""
        return self._event is None or bool(self._event.done)

    def synchronize(self) -> None:
        """The host waits until the GPU reaches the marker (a ``device.sync`` event, reason ``"event"``)."""
        if self._event is not None:
            synced("event", debug_mode=False)
            self._event.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds of GPU time from this event's stamp to ``end_event``'s; no wait: both must have
        been reached (``end_event.synchronize()`` first). PyTorch's checks, in its order and words."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._event is None or end_event._event is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and end_event.query()):
            raise RuntimeError("Both events must be completed before calculating elapsed time.")
        return float(_cupy().cuda.get_elapsed_time(self._event, end_event._event))

    def __repr__(self) -> str:
        return f"<torch.cuda.Event {self.cuda_event:#x}>" if self._event is not None else "<torch.cuda.Event uninitialized>"


class Stream:
    """A CUDA stream (PyTorch's ``torch.cuda.Stream``); NOTE [ One stream ]: minigrad's work runs on the
    default stream, so a new ``Stream()`` orders only the events recorded on it.

    Example:
        >>> import minigrad as mg
        >>> if mg.cuda.is_available():
        ...     s = mg.cuda.current_stream(); s.synchronize(); assert s == mg.cuda.default_stream()
    """

    def __init__(self, device: Any = None, priority: int = 0, *, _wrap: Any = None) -> None:
        if not is_gpu_available():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.priority = int(priority)
        self._stream = _wrap if _wrap is not None else _cupy().cuda.Stream(non_blocking=False)

    @property
    def cuda_stream(self) -> int:
        """The ``cudaStream_t`` handle (0: the default stream)."""
        return int(self._stream.ptr)

    @property
    def device(self) -> Any:
        return _gpu_device()

    @property
    def stream_id(self) -> int:
        return self.cuda_stream

    def query(self) -> bool:
        """Whether all the work queued on the stream has finished; the host does not wait."""
        return bool(self._stream.done)

    def synchronize(self) -> None:
        """The host waits for all the work queued on the stream (a ``device.sync`` event, reason ``"event"``)."""
        synced("event")
        self._stream.synchronize()

    def wait_event(self, event: Event) -> None:
        """Make the stream's later work wait for ``event``."""
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Make the stream's later work wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one when None) on this stream, and return it."""
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream

    def __hash__(self) -> int:
        return hash(("cuda", self.cuda_stream))

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device=cuda:0 cuda_stream={self.cuda_stream:#x}>"


_DEFAULT: list[Stream] = []  # the one Stream over CuPy's null stream, made on first use


def default_stream(device: Any = None) -> Stream:
    """The default (null) stream, on which minigrad queues all its work."""
    if not is_gpu_available():
        raise AssertionError(NOT_COMPILED)
    if not _DEFAULT:
        _DEFAULT.append(Stream(_wrap=_cupy().cuda.Stream.null))
    return _DEFAULT[0]


def current_stream(device: Any = None) -> Stream:
    """The stream work is queued on: always the default stream (NOTE [ One stream ])."""
    return default_stream(device)


class StreamContext:
    """``with mg.cuda.stream(s):`` - accepted for ``None`` and the default stream (nothing changes);
    any other stream is refused (NOTE [ One stream ])."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> Stream | None:
        s = self.stream
        if s is not None and is_gpu_available() and s != default_stream():
            raise RuntimeError(
                f"minigrad runs its kernels on the default stream only: it cannot queue work on {s!r}. "
                "Leave out `with torch.cuda.stream(...)` (or pass torch.cuda.current_stream()); events can "
                "still be recorded on and waited for by that stream.")
        return s

    def __exit__(self, *exc: Any) -> None:
        return None


def stream(stream: Stream | None) -> StreamContext:
    """PyTorch's ``torch.cuda.stream``: a context manager over ``StreamContext``."""
    return StreamContext(stream)


def _gpu_device() -> Any:
    return _device("cuda", 0)
