"""Devices: where a tensor's array lives and how arrays move between them (Paddle's ``TransDataPlace``, paddle/phi/api/lib/data_transform.cc).

Each device belongs to a *backend*, the name kernels are registered under
(``"cpu"`` -> ``CPU``, ``"gpu"`` -> ``GPU``, or a custom one), with two
functions that move arrays to it from NumPy and back. CPU arrays are NumPy
arrays; GPU arrays are CuPy arrays, and CuPy is imported only when the GPU is
first used (the GPU backend registers itself, with that lazy loader, in
``kernels/gpu/__init__.py``).

This is storage, so it sits below the tensor: ``Tensor.numpy()`` and the
creation functions use it. Registering a backend *with kernels* is the kernel
layer's business (``kernels/backends.py``: ``register_backend``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = [
    "Backend", "Layout", "BackendInfo", "add_backend", "remove_backend", "backend_of_device", "device_of_backend",
    "move_array", "constant_array", "filled_array", "made_array", "mixed_devices_error", "check_range", "out_of_range", "device_of_array", "to_numpy",
    "partial_overlap",
    "is_gpu_available", "devices", "dnn_of", "base_backend", "canonical_device",
    "device", "as_device", "memory_format", "contiguous_format", "preserve_format", "channels_last_3d", "CHANNELS_LAST",
    "as_memory_format", "check_memory_format_rank", "is_contiguous_as", "suggested_memory_format", "default_device",
    "array_module", "row_major_strides", "strided_copy",
    "get_default_device", "set_default_device",
]


class Backend:
    """Backend names. ``GPUDNN`` is the library-accelerated GPU variant (cuBLAS/cuDNN)."""

    CPU = "CPU"
    GPU = "GPU"
    GPUDNN = "GPUDNN"
    #: An argument def that accepts any backend (PrepareData does not move it).
    ALL_BACKEND = "ALL_BACKEND"


class memory_format(str):  # noqa: N801  (PyTorch's class name)
    """PyTorch's ``torch.memory_format``: how ``clone`` lays out its copy (a string underneath).

    ``preserve_format`` (``clone``'s default) keeps the input's order of strides - the copy of a
    transposed matrix is transposed too, so ``.view(-1)`` of it fails as in PyTorch;
    ``contiguous_format`` makes it row-major (``Tensor.contiguous()``).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"minigrad.{str.__str__(self)}"

    __str__ = __repr__


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last_3d = memory_format("channels_last_3d")

#: The channels-last formats by name: the rank each needs and the order of its dims, slowest first
#: (the channels fastest: N, H, W, C; N, D, H, W, C).
CHANNELS_LAST = {"channels_last": (4, (0, 2, 3, 1)), "channels_last_3d": (5, (0, 2, 3, 4, 1))}


def as_memory_format(op: str, v: Any, pos: int | None = 0) -> str:
    """``v`` as the plain name of a memory format (``minigrad.channels_last`` is one, and also Paddle's
    layout function), or PyTorch's TypeError (``pos`` None: a keyword-only argument)."""
    if isinstance(v, memory_format):
        return str.__str__(v)
    where = "" if pos is None else f" (position {pos})"
    raise TypeError(f"{op}(): argument 'memory_format'{where} must be minigrad.memory_format, not {type(v).__name__}")


def check_memory_format_rank(fmt: str, ndim: int) -> None:
    """PyTorch's refusal of a channels-last format for a tensor of another rank."""
    if fmt in CHANNELS_LAST and ndim != CHANNELS_LAST[fmt][0]:
        raise RuntimeError(f"required rank {CHANNELS_LAST[fmt][0]} tensor to use {fmt} format")


def suggested_memory_format(shape: tuple[int, ...], strides: tuple[int, ...]) -> str:
    """PyTorch's ``suggest_memory_format()``: ``channels_last`` (``_3d``) where the strides look channels last
    - the channels the fastest dim, the others in (N, [D,] H, W) order, an ambiguous case (an N111 tensor)
    counted as contiguous - else ``contiguous_format``. ``to(memory_format=...)`` copies unless it is the
    format asked for."""
    for fmt, (rank, order) in CHANNELS_LAST.items():
        if len(shape) != rank or strides[1] == 0:
            continue
        low, like = 0, True
        for d in (1,) + tuple(reversed(order[1:-1])) + (0,):
            if shape[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
                like = False
                break
            low = strides[d] * (shape[d] if shape[d] > 1 else 1)
        if like:
            return fmt
    return "contiguous_format"


def format_strides(shape: tuple[int, ...], fmt: str) -> tuple[int, ...]:
    """The element strides PyTorch gives a new tensor of ``shape`` in the channels-last format ``fmt``
    (a size-1 dim's too: ``(4, 1, 4, 4)`` for (2, 4, 1, 1))."""
    order = CHANNELS_LAST[fmt][1]
    in_order = row_major_strides(tuple(shape[d] for d in order))
    strides = [0] * len(shape)
    for k, d in enumerate(order):
        strides[d] = in_order[k]
    return tuple(strides)


def is_contiguous_as(fmt: str, shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether ``strides`` (elements) lay ``shape`` out densely in the channels-last format ``fmt``'s order
    (a size-1 dim's stride does not count, as in PyTorch's ``is_channels_last_contiguous``)."""
    rank, order = CHANNELS_LAST[fmt]
    if len(shape) != rank:
        return False
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


class Layout:
    """Data layouts. Tensors default to ``NCHW`` (as Paddle's DenseTensor does);
    most kernels are registered for ``ALL_LAYOUT``."""

    ALL_LAYOUT = "ALL_LAYOUT"
    NCHW = "NCHW"
    NHWC = "NHWC"


class BackendInfo:
    """A backend: its KernelKey name, its device string and array movers."""

    __slots__ = ("name", "device", "to_device", "to_host", "array_types", "dnn", "_loader", "constant", "fill",
                 "made", "check_later", "pin", "is_pinned", "to_device_async", "copy_into")

    def __init__(
        self,
        name: str,
        device: str,
        to_device: Callable[[np.ndarray], Any] | None = None,
        to_host: Callable[[Any], np.ndarray] | None = None,
        array_types: tuple[type, ...] = (),
        loader: Callable[["BackendInfo"], None] | None = None,
        dnn: str | None = None,
    ) -> None:
        self.name = name
        self.dnn = dnn
        self.device = device
        self.to_device = to_device
        self.to_host = to_host
        self.array_types = array_types
        self._loader = loader
        #: ``constant(host_0d_array) -> backend array``: how the backend makes the 0-d constant of a
        #: Python number operand, when it has a better way than a copy (set by its loader; see ``constant_array``)
        self.constant: Callable[[np.ndarray], Any] | None = None
        #: ``fill(shape, value, np_dtype) -> backend array``: a new array of one value made on the backend
        #: (set by its loader; see ``filled_array``)
        self.fill: Callable[[tuple[int, ...], Any, Any], Any] | None = None
        #: factory name (``"arange"``, ``"eye"``) -> a function making that factory's array on the backend,
        #: with NumPy's arguments (set by its loader; see ``made_array``)
        self.made: dict[str, Callable[..., Any]] = {}
        #: ``pin(host) -> host array in page-locked memory``, ``is_pinned(host) -> bool`` and
        #: ``to_device_async(pinned host) -> backend array`` (a copy the host does not wait for): a device
        #: whose copies from pageable memory wait (set by its loader; see ``pinned_array``, ``move_array``)
        self.pin: Callable[[np.ndarray], np.ndarray] | None = None
        self.is_pinned: Callable[[np.ndarray], bool] | None = None
        self.to_device_async: Callable[[np.ndarray], Any] | None = None
        #: ``check_later(data, low, high, make_error, ignore)``: a range check run on the backend and reported
        #: at the program's next sync (set by its loader; see ``check_range``)
        self.check_later: Callable[..., None] | None = None
        #: ``copy_into(dst, src) -> bool``: ``dst[...] = src`` the backend's fastest way, where it has one for
        #: these two arrays (an in-place op's write-back: ``dispatch/dygraph.py``); False to use ``dst[...] = src``
        self.copy_into: Callable[[Any, Any], bool] | None = None

    def ensure_loaded(self) -> None:
        """Run the lazy loader once (imports CuPy for the GPU)."""
        if self._loader is not None:
            loader, self._loader = self._loader, None
            try:
                loader(self)
            except BaseException:
                self._loader = loader
                raise

    def __repr__(self) -> str:
        return f"<backend {self.name} device={self.device!r}>"


_BY_DEVICE: dict[str, BackendInfo] = {}
_BY_NAME: dict[str, BackendInfo] = {}
#: library-accelerated variant name -> the backend it belongs to (``GPUDNN`` -> GPU's info)
_BY_DNN: dict[str, BackendInfo] = {}


def add_backend(info: BackendInfo) -> None:
    """Put ``info`` in the device tables (``kernels.backends.register_backend`` checks it first)."""
    _BY_DEVICE[info.device] = info
    _BY_NAME[info.name] = info
    if info.dnn is not None:
        _BY_DNN[info.dnn] = info


def remove_backend(name: str) -> BackendInfo | None:
    """Take backend ``name`` out of the device tables; returns it (None if unknown)."""
    info = _BY_NAME.pop(name, None)
    if info is not None:
        _BY_DEVICE.pop(info.device, None)
        if info.dnn is not None:
            _BY_DNN.pop(info.dnn, None)
    return info


def dnn_of(backend: str) -> str | None:
    """The library-accelerated variant of ``backend`` (``GPU`` -> ``GPUDNN``), or None."""
    info = _BY_NAME.get(backend)
    return None if info is None else info.dnn


def base_backend(backend: str) -> str:
    """The backend whose device a kernel backend runs on (``GPUDNN`` -> ``GPU``)."""
    info = _BY_DNN.get(backend)
    return backend if info is None else info.name


def devices() -> list[str]:
    """Device strings of all registered backends."""
    return list(_BY_DEVICE)


def canonical_device(device: str) -> str:
    """PyTorch's names for the GPU (``"cuda"``, ``"cuda:0"``) are minigrad's ``"gpu"``; others pass through."""
    name = str.__str__(device)  # a ``device`` object is its string (NOTE [ A device is its string ])
    if name == "cuda" or name == "cuda:0":
        return "gpu"
    return name


def backend_of_device(device: str, caller: str | None = None) -> BackendInfo:
    """The backend for a device string (``"cuda"`` names the GPU); ``ValueError`` for an unknown device.

    Args:
        caller: the user's call, named in the error (``"to()"`` -> ``to(): argument 'device': unknown device 'tpu' ...``).
    """
    info = _BY_DEVICE.get(canonical_device(device))
    if info is None:
        where = f"{caller}: argument 'device': " if caller else ""
        raise ValueError(f"{where}unknown device {device!r}; expected one of {', '.join(repr(d) for d in _BY_DEVICE)}")
    info.ensure_loaded()
    return info


def device_of_backend(name: str) -> str:
    """The device string of a KernelKey backend (``GPUDNN`` kernels run on ``"gpu"``)."""
    info = _BY_NAME.get(name) or _BY_DNN.get(name)
    if info is None:
        raise ValueError(f"unknown backend {name!r}")
    return info.device


def to_numpy(array: Any) -> np.ndarray:
    """A NumPy array with the values of any backend's array."""
    if type(array) is np.ndarray:
        return array
    for info in _BY_NAME.values():
        if info.array_types and isinstance(array, info.array_types) and info.to_host is not None:
            return info.to_host(array)  # a backend's array class may subclass NumPy's (the stand-in CuPy's does)
    if isinstance(array, np.ndarray):
        return array
    get = getattr(array, "get", None)
    return get() if get is not None else np.asarray(array)


def move_array(array: Any, src_device: str, dst_device: str, non_blocking: bool = False) -> Any:
    """Move ``array`` from ``src_device`` to ``dst_device`` through the host. ``non_blocking`` from pinned
    host memory (``Tensor.pin_memory()``) is a copy the host does not wait for, as in PyTorch; from any
    other memory it is the ordinary copy."""
    if src_device == dst_device:
        return array
    src = backend_of_device(src_device)
    dst = backend_of_device(dst_device)
    if (non_blocking and src.to_host is None and dst.to_device_async is not None and dst.is_pinned is not None
            and dst.is_pinned(array)):
        return dst.to_device_async(array)
    host = array if src.to_host is None else src.to_host(array)
    return host if dst.to_device is None else dst.to_device(host)


def constant_array(host: np.ndarray, device: str) -> Any:
    """The 0-d constant of a Python number operand (``x * 0.5``) on ``device``.

    A backend with its own way (the GPU's, ``kernels/gpu/__init__.py``: filled by a kernel that takes the
    value as an argument, and kept for reuse - no host -> device copy, no sync) makes it; any other
    backend gets the value moved like any array. The result is read, never written: callers make
    operands with it, not tensors a program can change.
    """
    info = backend_of_device(device)
    if info.constant is not None:
        return info.constant(host)
    return move_array(host, "cpu", device)


def filled_array(shape: tuple[int, ...], value: Any, np_dtype: Any, device: str) -> Any:
    """A new array of ``shape`` holding ``value`` on ``device``: made there by a backend that can (the
    GPU fills it with a kernel, no host -> device copy), else made on the host and moved."""
    info = backend_of_device(device)
    if info.fill is not None:
        return info.fill(shape, value, np_dtype)
    host = np.empty(shape, dtype=np_dtype)
    host.fill(value)
    return host if device == "cpu" else move_array(host, "cpu", device)


def mixed_devices_error(first: str, second: str, where: str = "") -> RuntimeError:
    """PyTorch's error for tensors of one call on two devices (``cuda:0`` for minigrad's GPU); ``where`` is
    the argument and kernel PyTorch's message adds for some ops."""
    names = ["cuda:0" if d == "gpu" else d for d in (first, second)]
    tail = f" (when checking argument for argument {where})" if where else ""
    return RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                        f"{names[0]} and {names[1]}!{tail}")


def made_array(kind: str, device: str, *args: Any, **kwargs: Any) -> Any:
    """The array of factory ``kind`` (``"arange"``, ``"eye"``, with NumPy's arguments) made on ``device`` by
    the backend's own kernel - no host -> device copy -, or ``None`` where the backend has none for it
    (the caller then makes it on the host, and it is copied)."""
    make = backend_of_device(device).made.get(kind)
    return None if make is None else make(*args, **kwargs)


def device_of_array(array: Any) -> str:
    """The device whose array class ``array`` is (``"cpu"`` for NumPy's own arrays and anything unknown)."""
    if type(array) is np.ndarray:
        return "cpu"
    for info in _BY_NAME.values():
        if info.name != Backend.CPU and info.array_types and isinstance(array, info.array_types):
            return info.device
    return "cpu"


def check_range(data: Any, device: str, low: int, high: int,
                make_error: Callable[[np.ndarray, np.ndarray], BaseException], ignore: int | None = None) -> None:
    """Refuse integer values outside ``[low, high)`` (other than ``ignore``): ``make_error(bad, values)``
    is raised (``bad`` the failing values in order, 1-D; ``values`` all of them, NumPy arrays).

    On the CPU the check runs now. A backend with ``check_later`` (the GPU) runs it on the device and
    reports it at the program's next sync (``.item()``, ``print``, ``.cpu()``, ``synchronize()``), as
    CUDA's device-side asserts are reported: reading the values now would make the host wait for the
    device at every call (NOTE [ Checks on the GPU are reported at the next sync ] in
    ``kernels/gpu/_runtime.py``).
    """
    info = backend_of_device(device)
    if info.check_later is not None:
        info.check_later(data, low, high, make_error, ignore)
        return
    host = to_numpy(data)
    if host.size and (host.min() < low or host.max() >= high):
        bad = out_of_range(host, low, high, ignore)
        if bad.size:
            raise make_error(bad, host)


def out_of_range(host: np.ndarray, low: int, high: int, ignore: int | None = None) -> np.ndarray:
    """The values of ``host`` outside ``[low, high)`` other than ``ignore``, in order (1-D)."""
    mask = (host < low) | (host >= high)
    if ignore is not None:
        mask &= host != ignore
    return host[mask].reshape(-1)


def _address(a: Any) -> int:
    """The address of ``a``'s first element: CuPy's ``a.data.ptr`` on the device, NumPy's on the host."""
    data = getattr(a, "data", None)
    ptr = getattr(data, "ptr", None)
    return int(ptr) if ptr is not None else a.__array_interface__["data"][0]


def array_module(device: str) -> Any:
    """The array module of ``device``'s arrays: NumPy on the CPU, CuPy (the stand-in where installed) on the GPU."""
    if device == "cpu":
        return np
    import importlib

    return importlib.import_module("cupy")


def row_major_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major element strides of ``shape`` (a dim of size 0 counted as 1, as PyTorch's)."""
    out, running = [], 1
    for n in reversed(shape):
        out.append(running)
        running *= max(n, 1)
    return tuple(reversed(out))


def strided_copy(xp: Any, a: Any, strides: tuple[int, ...]) -> Any:
    """``a``'s values in a new buffer of ``xp``'s laid out with ``strides`` (elements; a dense layout of
    ``a.shape``, as PyTorch's ``empty_strided(...).copy_(a)``)."""
    out = xp.lib.stride_tricks.as_strided(xp.empty(a.size, a.dtype), a.shape,
                                          tuple(st * a.itemsize for st in strides)).view()
    out[...] = a
    return out


def swap_rule(shape: tuple[int, ...], operands: list[Any]) -> Any:
    """TensorIterator's ``should_swap(d0, d1)`` over operands of these strides: the first operand whose strides
    of the two dims are both non-zero and differ decides (1 swap, -1 keep); equal strides swap a larger dim
    ahead; 0 where no operand decides."""
    def should_swap(d0: int, d1: int) -> int:
        for st in operands:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    return should_swap


def iterator_order(nd: int, should_swap: Any) -> list[int]:
    """TensorIterator's order of ``nd`` dims, fastest first: an insertion sort from the reversed order that
    takes ``should_swap(d0, d1)``'s ambiguous answers (1 swap, -1 keep, 0 no preference: look further)."""
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def dense_strides_in_order(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """PyTorch's ``infer_dense_strides``: dense strides (elements) laying ``shape`` out in the order of
    ``strides`` - how ``empty_like`` lays out the copy of a strided tensor that is not dense (a slice of a
    transpose stays transposed)."""
    perm = iterator_order(len(shape), swap_rule(shape, [strides]))
    out, running = [0] * len(shape), 1
    for d in perm:
        out[d] = running
        running *= max(shape[d], 1)
    return tuple(out)


def _non_overlapping_and_dense(a: Any) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the elements fill one block of memory, each once - some
    order of the dims (size-1 dims aside) is row-major."""
    expected = a.itemsize
    for size, stride in sorted(((n, s) for n, s in zip(a.shape, a.strides) if n != 1), key=lambda p: p[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def any_overlap(a: Any, b: Any) -> bool:
    """PyTorch's ``get_overlap_status(a, b)`` is ``FULL`` or ``PARTIAL`` for two arrays of one backend (what
    ``assert_no_overlap`` refuses: ``x[idx] = x``, ``x[idx] = x[0]``): the same array, or both dense and their
    blocks of memory intersecting. Empty or not dense (``TOO_HARD``) is allowed, as in PyTorch."""
    if a is b:
        return True
    return partial_overlap(a, b) or (a.size and b.size and _non_overlapping_and_dense(a)
                                     and _non_overlapping_and_dense(b) and _address(a) == _address(b)
                                     and a.size * a.itemsize == b.size * b.itemsize and np.may_share_memory(a, b))


def partial_overlap(a: Any, b: Any) -> bool:
    """PyTorch's ``get_overlap_status(a, b) == PARTIAL`` for two arrays of one backend: both dense, their
    blocks of memory intersect, and they are not the same elements in the same order (a ``FULL`` overlap,
    ``x.mul_(x)``, is allowed). An array that is not dense is ``TOO_HARD`` there, and allowed, as in PyTorch.
    Read from addresses, shapes and strides only, so the GPU's arrays are checked as the CPU's."""
    if a is b or a.size == 0 or b.size == 0 or not np.may_share_memory(a, b):  # (bounds only: CuPy's for its own)
        return False
    if not (_non_overlapping_and_dense(a) and _non_overlapping_and_dense(b)):
        return False
    a0, b0 = _address(a), _address(b)
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if (a0, a1) == (b0, b1):
        return a.strides != b.strides or a.itemsize != b.itemsize
    return a0 < b1 and b0 < a1


def is_gpu_available() -> bool:
    """True when CuPy imports and a CUDA device is present (never raises)."""
    try:
        backend_of_device("gpu")
    except Exception:
        return False
    return True


add_backend(BackendInfo(Backend.CPU, "cpu", array_types=(np.ndarray,)))


# -- PyTorch's device objects ---------------------------------------------------------------------

#: device types a ``device(...)`` may name besides the registered ones (PyTorch's, checked when used)
_KNOWN_TYPES = ("cpu", "cuda", "gpu", "meta", "mps", "xpu")


class device(str):  # noqa: N801  (PyTorch's lower-case class name)
    """A device, as ``torch.device``: ``mg.device("cpu")``, ``mg.device("cuda")``, ``mg.device("cuda", 0)``.

    NOTE [ A device is its string ] A device object *is* minigrad's device string
    (``"cpu"``, ``"gpu"`` ...; a ``str`` subclass), so it goes wherever a device
    string goes and ``x.device == "cpu"`` holds. It compares equal to PyTorch's
    spellings of the same device (``"cuda"``, ``"cuda:0"`` name minigrad's GPU);
    ``type`` and ``index`` read as PyTorch's.

    Example:
        >>> import minigrad as mg
        >>> mg.device("cuda", 0)
        device(type='cuda', index=0)
        >>> mg.device("cpu") == "cpu"
        True
    """

    type: str
    index: int | None

    def __new__(cls, type_or_device: Any, index: int | None = None) -> "device":
        if isinstance(type_or_device, device) and index is None:
            return type_or_device
        if isinstance(type_or_device, bool) or not isinstance(type_or_device, (str, int)):
            raise TypeError(f"device(): argument 'type' must be str, but got {type(type_or_device).__name__}")
        if isinstance(type_or_device, int):  # torch.device(0) is the first CUDA device
            type_or_device, index = "cuda", type_or_device
        kind, sep, tail = str(type_or_device).partition(":")
        if sep:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type_or_device}")
            if not tail.isdigit():
                raise RuntimeError(f"Invalid device string: '{type_or_device}'")
            index = int(tail)
        if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
            raise RuntimeError(f"Device index must not be negative, but got {index!r}")
        if kind not in _KNOWN_TYPES and kind not in _BY_DEVICE:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN_TYPES)} device type at start of device string: {type_or_device}")
        is_gpu = kind in ("cuda", "gpu")
        name = "gpu" if is_gpu and not index else (f"{kind}:{index}" if index is not None and not (kind == "cpu") else kind)
        obj = super().__new__(cls, name)
        obj.type = "cuda" if is_gpu else kind
        obj.index = index
        return obj

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str.__eq__(canonical_device(str.__str__(self)), canonical_device(str(other)))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        """PyTorch's spelling (``print(x.device)`` shows ``cuda:0`` for a GPU tensor, ``cpu``); the object's
        value stays minigrad's device string (``"gpu"``), which ``==`` and the engine use."""
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)  # f"{x.device}" as print shows it

    def __reduce__(self) -> Any:
        return (device, (self.type, self.index))


_DEVICE_OBJECTS: dict[str, device] = {}


def as_device(name: str) -> device:
    """The device object of a tensor's device string (one object per string, made on first use)."""
    obj = _DEVICE_OBJECTS.get(name)
    if obj is None:
        obj = _DEVICE_OBJECTS[name] = device(name, 0) if name == "gpu" else device(name)
    return obj


_DEFAULT_DEVICE = ["cpu"]  # one cell, changed by set_default_device


def default_device() -> str:
    """The device string of a factory function's result when it is given no ``device=`` (``"cpu"`` unless
    ``set_default_device`` changed it)."""
    return _DEFAULT_DEVICE[0]


def get_default_device() -> device:
    """The device factory functions use when given no ``device=``, as ``torch.get_default_device()``.

    Example:
        >>> import minigrad as mg
        >>> mg.get_default_device()
        device(type='cpu')
    """
    return as_device(_DEFAULT_DEVICE[0])


def set_default_device(device: Any) -> None:
    """Put the results of ``tensor``, ``zeros``, ``randn``, ``arange``... (and new layers' parameters) on
    ``device`` when a call names none, as ``torch.set_default_device``; ``None`` restores the CPU. Functions
    that follow a tensor (``zeros_like``, ``x.new_zeros``) keep following it.

    Example:
        >>> import minigrad as mg
        >>> mg.set_default_device("cpu"); mg.zeros(2).device
        device(type='cpu')
        >>> mg.set_default_device(None)
    """
    if device is None:
        _DEFAULT_DEVICE[0] = "cpu"
        return
    if isinstance(device, int) and not isinstance(device, bool):  # set_default_device(0): the first CUDA device
        device = "cuda"
    if not isinstance(device, str):
        raise TypeError(f"set_default_device(): argument 'device' must be str, but got {type(device).__name__}")
    backend_of_device(str.__str__(device), "set_default_device()")
    _DEFAULT_DEVICE[0] = canonical_device(str.__str__(device))
