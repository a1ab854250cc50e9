"""Compiling and launching the CUDA sources with CuPy (imported only on the GPU path)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

import cupy
import numpy as np

from ...devices import out_of_range
from ...tracing.provenance import user_source
from ..kept import kept
from . import cuda_src
from .syncs import copied

__all__ = ["function", "record_launches", "forget_on_recording", "dtype_name", "grid_1d", "launch_1d", "strides_meta", "block_for", "constant", "upload",
           "check_later", "raise_failed_checks", "constant_value"]

_modules: dict[tuple[str, str], Any] = {}

#: NumPy dtype -> minigrad dtype name of the hand-written kernels
_NAMES = {np.dtype(np.float16): "float16", np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}


def dtype_name(dt: Any) -> str:
    return _NAMES[np.dtype(dt)]


#: when a list, every launch made through ``function()`` is also appended to it as (kernel, grid, block, args)
recording: list[tuple[Any, tuple, tuple, tuple]] | None = None
#: caches that hold kernels ``function()`` returned (elementwise launch plans): a kernel looked up before a
#: recording began would launch unrecorded, so they are emptied when one begins
_KERNEL_CACHES: list[dict[Any, Any]] = []


def forget_on_recording(cache: dict[Any, Any]) -> dict[Any, Any]:
    """Register ``cache`` (a dict whose values hold kernels) to be emptied when a recording begins."""
    _KERNEL_CACHES.append(cache)
    return cache


@contextmanager
def record_launches() -> Iterator[list[tuple[Any, tuple, tuple, tuple]]]:
    """Every launch of a hand-written kernel inside the block, as (kernel, grid, block, args): how a device
    counts launches (CuPy's own kernels - its ufuncs, cuBLAS - are not seen) and how the benchmark replays them.

    A launch plan cached before the recording began holds its kernel unwrapped and would launch unseen (the
    optimizers' for-loop once counted 0 launches on a device): the caches are emptied first, so every launch
    looks its kernel up through ``function()``.
    """
    global recording
    for cache in _KERNEL_CACHES:
        cache.clear()
    recording = seen = []
    try:
        yield seen
    finally:
        recording = None


class _Recorded:
    """A kernel that notes each launch in ``recording`` (used by ``bench/gpu_kernels.py`` to time kernels alone)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, grid: tuple, block: tuple, args: tuple) -> None:
        self.fn(grid, block, args)
        if recording is not None:
            recording.append((self.fn, grid, block, args))


def function(label: str, make_source: Callable[[], str], name: str, options: tuple[str, ...] = ()) -> Any:
    """The kernel ``name`` of the module ``label`` (compiled once with NVRTC and ``options``, then cached)."""
    fn = _modules.get((label, name))
    if fn is None:
        mod = _modules.get((label, ""))
        if mod is None:
            mod = cupy.RawModule(code=make_source(), options=options)
            _modules[(label, "")] = mod
        fn = _modules[(label, name)] = mod.get_function(name)
    return fn if recording is None else _Recorded(fn)


_SM_COUNT: list[int] = []


def grid_1d(n: int, threads: int = 256) -> tuple[int]:
    """A grid-stride launch's grid: enough blocks to fill the device, at most one per ``threads`` elements."""
    if not _SM_COUNT:
        _SM_COUNT.append(cupy.cuda.Device().attributes["MultiProcessorCount"])
    return (max(1, min((n + threads - 1) // threads, _SM_COUNT[0] * 32)),)


def launch_1d(fn: Any, n: int, args: tuple[Any, ...], threads: int = 256) -> None:
    """A grid-stride launch over ``n`` elements (``grid_1d``)."""
    fn(grid_1d(n, threads), (threads,), args)


# NOTE [ Stride tables are uploaded once per geometry ]
#     A strided launch reads its operands through a table: the output shape, then
#     each input's element strides (0 on broadcast dimensions). Copying that table
#     to the device at every launch is a host -> device copy from pageable memory,
#     which waits for the stream: a device sync per launch. A training step
#     launches the same few geometries again and again, so each distinct table is
#     uploaded once and the device array is reused (PyTorch passes its
#     ``OffsetCalculator`` by value as a kernel parameter instead; a table of any
#     rank here needs no fixed maximum). The cache is bounded: when it is full it
#     is emptied and refilled, which costs one upload per geometry again.
_META: dict[tuple[Any, ...], Any] = {}
_META_MAX = 4096


def upload(host: Any) -> Any:
    """A kernel's own host data (an index list, a stride table) copied to the device: a ``device.copy``
    event, and a sync (the copy is from pageable memory)."""
    host = np.asarray(host)
    copied("h2d", host.nbytes)
    return cupy.asarray(host)


def strides_meta(out_shape: tuple[int, ...], *arrays: Any) -> Any:
    """Output shape then each input's element strides (0 on broadcast dims), as a device int64 array
    (NOTE [ Stride tables are uploaded once per geometry ])."""
    return kept(_META, (out_shape, *[(a.shape, a.strides, a.itemsize) for a in arrays]),
                lambda: upload(np.asarray(_stride_rows(out_shape, arrays), dtype=np.int64).reshape(-1)), _META_MAX)


def _stride_rows(out_shape: tuple[int, ...], arrays: tuple[Any, ...]) -> list[list[int]]:
    nd = len(out_shape)
    rows = [list(out_shape)]
    for a in arrays:
        lead = nd - a.ndim
        st = [0] * lead
        for d, (size, stride) in enumerate(zip(a.shape, a.strides)):
            st.append(0 if size == 1 and out_shape[lead + d] != 1 else stride // a.itemsize)
        rows.append(st)
    return rows


# NOTE [ Number operands are filled on the device, not copied ]
#     ``x * 0.5``, Adam's betas, ``lr`` and ``eps`` reach the kernels as 0-d
#     tensors (``Tensor._scalar``). Copying each from the host would wait for the
#     stream (a pageable host -> device copy): a sync per number. Instead the 0-d
#     array is filled on the device by a kernel that takes the value as an
#     argument (``cupy.full``: CuPy's fill passes it by value), and kept: a step
#     uses the same constants every time (0.5, betas, eps...), so the array made
#     for a value and dtype is reused while the cache holds it. The arrays are
#     only ever read (they are operands, never a tensor a program can change).
#     The elementwise kernels do not read them at all: their value, known on the
#     host (``constant_value``), goes to the kernel as a ``double`` argument
#     (the ``_scalar0``/``_scalar1`` variants in ``cuda_src.ew_source``).
_CONSTANTS: dict[tuple[str, bytes], Any] = {}
#: id of a constant's device array -> (the array, its value as a float64): what the elementwise kernels take
#: by value instead of reading the array (``constant_value``)
_VALUES: dict[int, tuple[Any, np.float64]] = {}
_CONSTANTS_MAX = 1024


def constant(host: np.ndarray) -> Any:
    """The device 0-d array of a number operand (NOTE [ Number operands are filled on the device, not copied ])."""
    key = (host.dtype.str, host.tobytes())  # the bytes tell 0.0 from -0.0 and keep each NaN
    arr = _CONSTANTS.get(key)
    if arr is None:
        if len(_CONSTANTS) >= _CONSTANTS_MAX:
            _CONSTANTS.clear()
            _VALUES.clear()
        arr = _CONSTANTS[key] = cupy.full((), host[()], dtype=host.dtype)
        if host.dtype.kind == "f":
            _VALUES[id(arr)] = (arr, np.float64(host[()]))  # exact: every float16/32 value is a float64
    return arr


def constant_value(arr: Any) -> np.float64 | None:
    """The value of ``arr`` when it is a number operand's constant (known on the host), else None."""
    entry = _VALUES.get(id(arr))
    return entry[1] if entry is not None and entry[0] is arr else None


# NOTE [ Checks on the GPU are reported at the next sync ]
#     Some ops refuse values, not shapes: an embedding index past the table, a class
#     index past the classes. Checking them on the host means copying them there,
#     and the copy waits for the device: a sync per call. PyTorch's CUDA kernels
#     check them on the device instead (a device-side assert) and the error
#     surfaces at a later call that waits for the device. minigrad does the same,
#     with the words the CPU uses: ``check_later`` computes on the device whether
#     any value is out of range (a flag that stays there) and keeps it with the
#     call's ``file:line``; the next sync (``.item()``, ``print``, ``.cpu()``,
#     ``synchronize()`` - any copy to the host) reads every kept flag in one copy
#     and raises the first failed check's error, naming the call that failed. At
#     most ``_PENDING_MAX`` flags wait: a program that never syncs gets one sync
#     per that many checks.
_PENDING: list[tuple[Any, tuple[int, int, int | None], Callable[[Any, Any], BaseException], str | None]] = []
_PENDING_MAX = 256
#: one device flag per waiting check (``mg_check_range_i64`` sets its slot), zero between syncs
_FLAGS: list[Any] = []


def check_later(data: Any, low: int, high: int, make_error: Callable[[Any, Any], BaseException],
                ignore: int | None = None) -> None:
    """Check ``low <= data < high`` (``ignore`` allowed too) on the device; the error waits for the next
    sync (NOTE above). ``make_error`` gets the failing values (1-D) and all of them, NumPy arrays."""
    if not data.size:
        return
    x = cupy.ascontiguousarray(data, dtype=np.int64)  # the index itself when it is int64 already
    fn = function("check_range", cuda_src.check_range_source, "mg_check_range_i64")
    launch_1d(fn, x.size, (x, np.int64(x.size), np.int64(low), np.int64(high), np.int64(0 if ignore is None else ignore),
                           np.int32(ignore is not None), *check_in_kernel(data, low, high, make_error, ignore)))


def check_in_kernel(data: Any, low: int, high: int, make_error: Callable[[Any, Any], BaseException],
                    ignore: int | None = None) -> tuple[Any, np.int64]:
    """``check_later``'s check made by the op's own kernel, which sets ``flags[slot]`` where it finds a value
    of ``data`` outside ``[low, high)``: the ``(flags, slot)`` to give that kernel (no launch of its own)."""
    if not _FLAGS:
        _FLAGS.append(cupy.zeros((_PENDING_MAX,), dtype=np.uint32))
    if len(_PENDING) >= _PENDING_MAX:  # every flag taken (their kernels all launched): read them, one sync
        raise_failed_checks()
    slot = np.int64(len(_PENDING))
    _PENDING.append((data, (low, high, ignore), make_error, user_source()))
    return _FLAGS[0], slot


def raise_failed_checks() -> None:
    """Read the waiting checks' flags (one copy) and raise the first failed one's error."""
    if not _PENDING:
        return
    pending = list(_PENDING)
    _PENDING.clear()
    flags = _FLAGS[0][: len(pending)]
    copied("d2h", flags.nbytes, waits=False, of_tensor=False)  # a copy of its own, inside the wait of the value's
    failed = flags.get()
    if not failed.any():
        return
    flags.fill(0)
    for bad, (data, bounds, make_error, source) in zip(failed, pending):
        if bad:
            host = data.get()
            exc = make_error(out_of_range(host, *bounds), host)
            where = f" at {source}" if source else ""
            exc.args = (f"{exc.args[0] if exc.args else ''} (checked on the GPU for the call{where}; "
                        "a GPU reports a failed check at the next sync, as CUDA's device-side asserts)",)
            raise exc


def block_for(cols: int) -> int:
    """Threads per row-block: a power of two in [32, 256] covering ``cols``."""
    b = 32
    while b < cols and b < 256:
        b *= 2
    return b


# Re-export for the kernel modules.
sources = cuda_src
