"""Backends: where arrays live and how they move (seed 004 §2.4 TransDataPlace).

A backend has a name used in KernelKeys (``CPU``, ``GPU``, or a custom one),
the device string users type (``"cpu"``, ``"gpu"``), and two functions that
move arrays to it from NumPy and back. CPU arrays are NumPy arrays; GPU
arrays are CuPy arrays, and CuPy is imported only when the GPU is first used.

A backend may also name a *library-accelerated variant* (``dnn``): the GPU's
is ``GPUDNN`` (cuBLAS/cuDNN kernels). Kernel selection probes the variant
first (seed 002), and its kernels run on the same device.

Registering your own backend (the whole search order, the CPU fallback and
the transfers then work for it, with no GPU needed)::

    class ToyArray(np.ndarray): pass          # a distinct array class

    mg.register_backend(
        "TOY", device="toy", dnn="TOYDNN",
        to_device=lambda a: np.asarray(a).view(ToyArray),
        to_host=lambda a: np.asarray(a).view(np.ndarray),
        array_types=(ToyArray,),
        kernels={"add": [(Layout.ALL_LAYOUT, FLOAT_DTYPES, toy_add)]},
    )
    x = mg.randn(3).to("toy")                 # data.transform CPU -> TOY
    y = x + x                                 # kernel.select toy/toy_add
    z = x.exp()                               # no TOY exp: CPU fallback, result moved back to "toy"
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .key import Backend

__all__ = [
    "BackendInfo",
    "register_backend",
    "unregister_backend",
    "backend_of_device",
    "device_of_backend",
    "move_array",
    "to_numpy",
    "is_gpu_available",
    "devices",
    "dnn_of",
    "base_backend",
]


class BackendInfo:
    """A backend: its KernelKey name, its device string and array movers."""

    __slots__ = ("name", "device", "to_device", "to_host", "array_types", "dnn", "_loader")

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


def register_backend(
    name: str,
    device: str | None = None,
    to_device: Callable[[np.ndarray], Any] | None = None,
    to_host: Callable[[Any], np.ndarray] | None = None,
    array_types: tuple[type, ...] = (),
    loader: Callable[[BackendInfo], None] | None = None,
    dnn: str | None = None,
    kernels: dict[str, Any] | None = None,
) -> BackendInfo:
    """Register a backend so tensors can live on it and kernels can be registered for it.

    Args:
        name: the KernelKey backend name (e.g. ``"TOY"``).
        device: the device string users pass to ``Tensor.to`` (default ``name.lower()``).
        to_device: NumPy array -> backend array.
        to_host: backend array -> NumPy array.
        array_types: the backend's array classes (used to recognise its arrays).
        loader: called once before first use (lazy imports, kernel registration).
        dnn: the name of its library-accelerated variant (like ``GPUDNN`` for
            ``GPU``); kernels registered under it are probed first.
        kernels: ``{op: [(layout, dtypes, fn), ...]}`` registered on ``name``
            (use ``register_kernel(op, name_or_dnn, ...)`` for arg overrides
            or the dnn variant).

    Returns:
        The ``BackendInfo``. ``unregister_backend(name)`` removes it and its kernels.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> info = mg.register_backend("DOC", to_device=np.array, to_host=np.array,
        ...                            kernels={"neg": [("ALL_LAYOUT", [mg.float32], np.negative)]})
        >>> mg.tensor([1.0]).to("doc").neg().device
        'doc'
        >>> mg.unregister_backend("DOC")
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_backend(): argument 'name' must be a non-empty str, but got {name!r}")
    if name in (Backend.CPU, Backend.ALL_BACKEND) and name in _BY_NAME:
        raise ValueError(f"register_backend(): the built-in backend {name!r} cannot be replaced")
    for fn_name, fn in (("to_device", to_device), ("to_host", to_host), ("loader", loader)):
        if fn is not None and not callable(fn):
            raise TypeError(f"register_backend(): argument '{fn_name}' must be callable, but got {type(fn).__name__}")
    info = BackendInfo(name, device or name.lower(), to_device, to_host, tuple(array_types), loader, dnn)
    _BY_DEVICE[info.device] = info
    _BY_NAME[name] = info
    if dnn is not None:
        _BY_DNN[dnn] = info
    from .select import clear_cache

    clear_cache()  # the search order of keys on this backend may have changed
    if kernels:
        from .registry import register_kernel

        for op, entries in kernels.items():
            for layout, dtypes, fn in entries:
                register_kernel(op, name, layout=layout, dtypes=dtypes)(fn)
    return info


def unregister_backend(name: str) -> None:
    """Remove a custom backend and every kernel registered on it (CPU cannot be removed)."""
    if name == Backend.CPU:
        raise ValueError("the CPU backend cannot be unregistered")
    info = _BY_NAME.pop(name, None)
    if info is None:
        return
    _BY_DEVICE.pop(info.device, None)
    if info.dnn is not None:
        _BY_DNN.pop(info.dnn, None)
    from .registry import KERNELS, unregister_kernels

    for op in list(KERNELS):
        unregister_kernels(op, name)
        if info.dnn is not None:
            unregister_kernels(op, info.dnn)


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
    if device == "cuda" or device == "cuda:0":
        return "gpu"
    return device


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
    if isinstance(array, np.ndarray):
        return array
    for info in _BY_NAME.values():
        if info.array_types and isinstance(array, info.array_types) and info.to_host is not None:
            return info.to_host(array)
    get = getattr(array, "get", None)
    return get() if get is not None else np.asarray(array)


def move_array(array: Any, src_device: str, dst_device: str) -> Any:
    """Move ``array`` from ``src_device`` to ``dst_device`` through the host."""
    if src_device == dst_device:
        return array
    src = backend_of_device(src_device)
    dst = backend_of_device(dst_device)
    host = array if src.to_host is None else src.to_host(array)
    return host if dst.to_device is None else dst.to_device(host)


# -- built-in backends -------------------------------------------------------

register_backend(Backend.CPU, "cpu", array_types=(np.ndarray,))


def _load_cupy(info: BackendInfo) -> None:
    try:
        import cupy  # noqa: F401  (imported only when the GPU is first used)
    except ImportError as exc:
        raise RuntimeError(
            "the GPU backend needs CuPy, which is not installed. Install minigrad's gpu extra: "
            "pip install -e \".[gpu]\" (CuPy for CUDA 13 drivers; \".[gpu-cuda12]\" for CUDA 12), on a machine "
            "with an NVIDIA GPU"
        ) from exc
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDA driver missing
        raise RuntimeError(f"CuPy is installed but no CUDA device is usable: {exc}") from exc
    if n < 1:
        raise RuntimeError("CuPy is installed but no CUDA device was found")
    info.to_device = cupy.asarray
    info.to_host = cupy.asnumpy
    info.array_types = (cupy.ndarray,)
    # Register the GPU kernels on first use.
    from .gpu import load as load_gpu_kernels

    load_gpu_kernels()


register_backend(Backend.GPU, "gpu", loader=_load_cupy, dnn=Backend.GPUDNN)


def is_gpu_available() -> bool:
    """True when CuPy imports and a CUDA device is present (never raises)."""
    try:
        backend_of_device("gpu")
    except Exception:
        return False
    return True
