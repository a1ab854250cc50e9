"""Registering backends, with their kernels (Paddle's ``TransDataPlace``, paddle/phi/api/lib/data_transform.cc).

A backend has a name used in KernelKeys (``CPU``, ``GPU``, or a custom one),
the device string users type (``"cpu"``, ``"gpu"``), and two functions that
move arrays to it from NumPy and back. The device tables and the movers
live below the tensor, in ``minigrad/devices.py`` (re-exported here);
``register_backend`` adds a backend there *and* registers its kernels,
then tells kernel selection to forget its cached searches.

A backend may also name a *library-accelerated variant* (``dnn``): the GPU's
is ``GPUDNN`` (cuBLAS/cuDNN kernels). Kernel selection probes the variant
first (Paddle's paddle/phi/core/kernel_factory.cc), and its kernels run on the same device.

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

from ..devices import (
    BackendInfo,
    add_backend,
    backend_of_device,
    base_backend,
    canonical_device,
    device_of_backend,
    devices,
    dnn_of,
    is_gpu_available,
    move_array,
    remove_backend,
    to_numpy,
)
from ..devices import _BY_NAME
from .key import Backend
from .registry import KERNELS, notify_change, register_kernel, unregister_kernels

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
    "canonical_device",
]


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
        >>> mg.tensor([1.0]).to("doc").neg().device == "doc"
        True
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
    add_backend(info)
    notify_change()  # the search order of keys on this backend may have changed
    if kernels:
        for op, entries in kernels.items():
            for layout, dtypes, fn in entries:
                register_kernel(op, name, layout=layout, dtypes=dtypes)(fn)
    return info


def unregister_backend(name: str) -> None:
    """Remove a custom backend and every kernel registered on it (CPU cannot be removed)."""
    if name == Backend.CPU:
        raise ValueError("the CPU backend cannot be unregistered")
    info = remove_backend(name)
    if info is None:
        return
    for op in list(KERNELS):
        unregister_kernels(op, name)
        if info.dnn is not None:
            unregister_kernels(op, info.dnn)
