"""Backends: where arrays live and how they move (seed 004 §2.4 TransDataPlace).

A backend has a name used in KernelKeys (``CPU``, ``GPU``, or a custom one),
the device string users type (``"cpu"``, ``"gpu"``), and two functions that
move arrays to it from NumPy and back. CPU arrays are NumPy arrays; GPU
arrays are CuPy arrays, and CuPy is imported only when the GPU is first used.
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
]


class BackendInfo:
    """A backend: its KernelKey name, its device string and array movers."""

    __slots__ = ("name", "device", "to_device", "to_host", "array_types", "_loader")

    def __init__(
        self,
        name: str,
        device: str,
        to_device: Callable[[np.ndarray], Any] | None = None,
        to_host: Callable[[Any], np.ndarray] | None = None,
        array_types: tuple[type, ...] = (),
        loader: Callable[["BackendInfo"], None] | None = None,
    ) -> None:
        self.name = name
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


def register_backend(
    name: str,
    device: str | None = None,
    to_device: Callable[[np.ndarray], Any] | None = None,
    to_host: Callable[[Any], np.ndarray] | None = None,
    array_types: tuple[type, ...] = (),
    loader: Callable[[BackendInfo], None] | None = None,
) -> BackendInfo:
    """Register a backend so tensors can live on it and kernels can be registered for it.

    Args:
        name: the KernelKey backend name (e.g. ``"TOY"``).
        device: the device string users pass to ``Tensor.to`` (default ``name.lower()``).
        to_device: NumPy array -> backend array.
        to_host: backend array -> NumPy array.
        array_types: the backend's array classes (used to recognise its arrays).
        loader: called once before first use (lazy imports).
    """
    info = BackendInfo(name, device or name.lower(), to_device, to_host, array_types, loader)
    _BY_DEVICE[info.device] = info
    _BY_NAME[name] = info
    return info


def unregister_backend(name: str) -> None:
    """Remove a custom backend (the built-in CPU backend cannot be removed)."""
    if name == Backend.CPU:
        raise ValueError("the CPU backend cannot be unregistered")
    info = _BY_NAME.pop(name, None)
    if info is not None:
        _BY_DEVICE.pop(info.device, None)


def devices() -> list[str]:
    """Device strings of all registered backends."""
    return list(_BY_DEVICE)


def backend_of_device(device: str) -> BackendInfo:
    """The backend for a device string; ``ValueError`` for an unknown device."""
    info = _BY_DEVICE.get(device)
    if info is None:
        raise ValueError(f"unknown device {device!r}; expected one of {', '.join(repr(d) for d in _BY_DEVICE)}")
    info.ensure_loaded()
    return info


def device_of_backend(name: str) -> str:
    """The device string of a KernelKey backend (``GPUDNN`` kernels run on ``"gpu"``)."""
    if name == Backend.GPUDNN:
        name = Backend.GPU
    info = _BY_NAME.get(name)
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
            "pip install -e \".[gpu]\" (CuPy for CUDA 12), on a machine with an NVIDIA GPU"
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


register_backend(Backend.GPU, "gpu", loader=_load_cupy)


def is_gpu_available() -> bool:
    """True when CuPy imports and a CUDA device is present (never raises)."""
    try:
        backend_of_device("gpu")
    except Exception:
        return False
    return True
