"""GPU kernels (CuPy + hand-written CUDA C). Imported only when the GPU backend is first used.

This package registers the GPU backend (device ``"gpu"``, library variant
``GPUDNN``) with a lazy loader: the first time a tensor goes to the GPU,
``_load_cupy`` imports CuPy, checks for a device and calls ``load()``, which
imports the kernel modules (they import CuPy themselves), whose
``register_kernel`` decorators fill the registry:

- ``elementwise``: hand-written CUDA for the unary/binary/compare ops, where
  and clip (float16/32/64); CuPy built-ins for cast, clone, fill;
- ``reduce``: hand-written sum, mean, max, min, logsumexp;
- ``nn``: hand-written softmax, log_softmax, cross_entropy;
- ``linalg``: matmul twice - cuBLAS (``gemm``: called directly, else through ``cupy.matmul``) as ``GPUDNN``
  and a tiled shared-memory kernel as plain ``GPU`` - so selection shows the
  GPUDNN -> GPU order (``mg.flags.use_gpudnn = False`` picks the tiled one);
- ``shape``: CuPy's views and copies for the shape and indexing ops;
- ``conv``: conv2d (forward and both gradients) twice - im2col + cuBLAS as
  ``GPUDNN`` and direct hand-written kernels as ``GPU`` -, max_pool2d
  (forward, gradient, select) and mse_loss, hand-written (``conv_src.py``);
- ``pooling``: adaptive max pooling and max unpooling (positions within a plane), CuPy's functions;
- ``fractional``: fractional max pooling (windows placed by samples), CuPy's functions;
- ``optim``: the optimizers' multi-tensor (``_foreach_*``) and fused (``_fused_sgd_``,
  ``_fused_adam_``) kernels, many tensors per launch (``optim_src.py``).

Every other op (integer ops, ops added without a GPU kernel...) has no GPU
kernel and falls back to the CPU, visibly (``kernel.select`` with
``fallback_cpu: true`` and ``data.transform`` events).

The CUDA sources live in ``cuda_src.py`` and ``conv_src.py`` as plain strings, so they can be
compiled with ``nvcc`` where no GPU exists.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..backends import BackendInfo, register_backend
from ..key import Backend

_loaded = False
_NUMBERS = (int, float, bool)
#: the largest finite value of each float dtype a one-element fill copies from a kept constant (a larger one
#: is left to ``cupy.full``, whose cast overflows as CUDA's does)
_LARGEST = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}


def load() -> None:
    """Register the GPU kernels (idempotent)."""
    global _loaded
    if _loaded:
        return
    # The kernel modules import CuPy at their top, so they are imported here, on the GPU's
    # first use (the import test allows this one lazy entry point, as it allows CuPy's).
    from . import special  # noqa: F401  (the torch.special kernels: registration side effects)
    from . import conv, elementwise, library, linalg, nn, numbers, optim, pooling, reduce, shape  # noqa: F401  (registration side effects)
    from . import volume  # noqa: F401  (the 3-D convolutions and pools: registration side effects)
    from . import fractional  # noqa: F401  (fractional max pooling: registration side effects)

    _loaded = True


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
    from ._runtime import check_later, constant, raise_failed_checks
    from .syncs import copied

    def to_device(host: Any) -> Any:
        copied("h2d", getattr(host, "nbytes", 0))  # a device.copy event; the sync debug mode's check
        return cupy.asarray(host)

    def to_host(array: Any) -> Any:
        copied("d2h", array.nbytes)
        raise_failed_checks()  # the host waits anyway: checks made on the device report here
        return cupy.asnumpy(array)

    def copy_bytes(dst: Any, src: Any) -> None:
        """``dst``'s bytes from ``src``'s (row-major arrays of one size and dtype): one device-to-device copy
        queued on the stream (cudaMemcpyAsync), no kernel."""
        if dst.nbytes:
            runtime = cupy.cuda.runtime
            runtime.memcpyAsync(dst.data.ptr, src.data.ptr, dst.nbytes, runtime.memcpyDeviceToDevice,
                                cupy.cuda.get_current_stream().ptr)

    def copy_into(dst: Any, src: Any) -> bool:
        """``dst[...] = src`` for two row-major arrays of one shape and dtype (an in-place op's new values, written
        back): one device-to-device copy queued on the stream. CuPy's ``dst[...] = src`` launches its copy kernel
        through its general setitem path, about 15 us of host time a call on an H200."""
        if dst.dtype != src.dtype or dst.shape != src.shape or not (dst.flags.c_contiguous and src.flags.c_contiguous):
            return False
        copy_bytes(dst, src)
        return True

    def fill(shape: tuple[int, ...], value: Any, dtype: Any) -> Any:
        """A new array of ``shape`` holding ``value``, made on the device without a host -> device copy: zeros by a
        memset; one element (``.backward()``'s seed, a ``tensor(1.0)``-like fill) copied on the device from the
        number's kept constant (``_runtime.constant``); anything else by ``cupy.full`` (a kernel that takes the
        value as an argument). ``cupy.full`` goes through CuPy's general ``copyto``: tens of us of host time a
        call, where the memset and the copy cost a few."""
        if type(value) in _NUMBERS:
            dt = np.dtype(dtype)
            if value == 0 and not (type(value) is float and math.copysign(1.0, value) < 0):  # -0.0 is no memset
                return cupy.zeros(shape, dtype=dt)
            if math.prod(shape) == 1 and (dt.kind == "b" or abs(value) <= _LARGEST.get(dt, -1.0)):
                out = cupy.ndarray(shape, dt)
                copy_bytes(out, constant(np.asarray(value, dtype=dt)))
                return out
        return cupy.full(shape, value, dtype=dtype)

    def pin(host: Any) -> Any:
        import cupyx  # noqa: PLC0415  (CuPy's own package, beside cupy)

        pinned = cupyx.empty_pinned(host.shape, dtype=host.dtype)
        pinned[...] = host
        return pinned

    def to_device_async(host: Any) -> Any:
        """From page-locked memory on the current stream: the host queues the copy and goes on."""
        if not host.flags.c_contiguous:
            return to_device(host)
        copied("h2d", host.nbytes, waits=False)
        out = cupy.empty(host.shape, dtype=host.dtype)
        out.set(host, stream=cupy.cuda.get_current_stream())
        return out

    info.to_device = to_device
    info.to_host = to_host
    info.pin = pin
    info.is_pinned = lambda host: isinstance(getattr(host, "base", None), cupy.cuda.PinnedMemoryPointer)
    info.to_device_async = to_device_async
    info.array_types = (cupy.ndarray,)
    info.constant = constant
    info.check_later = check_later
    info.copy_into = copy_into
    info.fill = fill
    from .random import MADE

    info.made = {"arange": cupy.arange, "eye": cupy.eye, **MADE}  # one kernel each, the numbers as its arguments
    load()  # register the GPU kernels on first use


register_backend(Backend.GPU, "gpu", loader=_load_cupy, dnn=Backend.GPUDNN)


def raise_failed_checks() -> None:
    """Report the checks waiting on the device (``_runtime.raise_failed_checks``); ``_runtime`` imports
    CuPy, so it is imported here, on the GPU's use."""
    from ._runtime import raise_failed_checks as report  # noqa: PLC0415

    report()
