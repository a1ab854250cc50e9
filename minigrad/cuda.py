"""``mg.cuda``: PyTorch's questions about the GPU, answered for minigrad's GPU backend (CuPy).

``is_available()`` is true only when CuPy imports and a CUDA device is present;
asking imports CuPy (``import minigrad`` never does). minigrad drives one GPU,
named ``"gpu"`` (PyTorch's ``"cuda"``/``"cuda:0"`` name it too). Random numbers
for GPU tensors are drawn on the GPU by its own generator (Philox4x32-10,
``random.DeviceGenerator``), which the CUDA seeding functions seed.

Timing with events and streams: ``cuda_events.py`` (NOTE [ One stream ]); memory statistics from
CuPy's pool: ``cuda_memory.py`` (NOTE [ The peak starts at the first question ]); NVTX ranges:
``cuda_nvtx.py`` (``mg.cuda.nvtx``). Without a GPU each function answers as PyTorch's CPU-only
build does (0, an empty result, or its ``AssertionError("Torch not compiled with CUDA enabled")``).

Example:
    >>> import minigrad as mg
    >>> device = "cuda" if mg.cuda.is_available() else "cpu"
"""

from __future__ import annotations

import os
import sys
from typing import Any

from . import cuda_nvtx as nvtx
from .cuda_events import NOT_COMPILED, Event, Stream, StreamContext, current_stream, default_stream, stream
from .cuda_memory import (empty_cache, max_memory_allocated, max_memory_cached, max_memory_reserved, mem_get_info,
                          memory_allocated, memory_cached, memory_reserved, memory_stats, memory_stats_as_nested_dict,
                          memory_summary, reset_accumulated_memory_stats, reset_max_memory_allocated,
                          reset_max_memory_cached, reset_peak_memory_stats)
from .devices import is_gpu_available
from .random import device_generator
from .kernels.gpu import raise_failed_checks
from .kernels.gpu.syncs import get_mode, set_mode, synced  # (no CuPy import)

__all__ = [
    "is_available", "device_count", "current_device", "get_device_name", "synchronize", "manual_seed",
    "manual_seed_all", "is_bf16_supported", "initial_seed", "get_rng_state", "set_rng_state", "set_sync_debug_mode", "get_sync_debug_mode",
    "Event", "Stream", "StreamContext", "current_stream", "default_stream", "stream",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
    "reset_max_memory_allocated", "empty_cache", "mem_get_info", "memory_stats", "memory_summary",
    "get_device_properties", "get_device_capability", "set_device", "device", "is_initialized", "init",
    "get_arch_list", "OutOfMemoryError", "nvtx", "memory_cached", "max_memory_cached", "reset_max_memory_cached",
    "reset_accumulated_memory_stats", "memory_stats_as_nested_dict", "seed", "seed_all", "get_rng_state_all",
    "set_rng_state_all", "is_tf32_supported", "set_stream", "default_generators", "device_of", "has_half",
    "has_magma", "current_blas_handle", "get_gencode_flags",
]


def is_available() -> bool:
    """True when CuPy imports and a CUDA device is present (never raises)."""
    return is_gpu_available()


def device_count() -> int:
    """How many GPUs minigrad can use: 1 with CuPy and a device, else 0."""
    return 1 if is_available() else 0


def current_device() -> int:
    """The index of the GPU in use (always 0)."""
    if not is_available():
        raise RuntimeError("No CUDA GPUs are available")
    return 0


def get_device_name(device: Any = None) -> str:
    """The GPU's name, as CUDA reports it."""
    if not is_available():
        raise RuntimeError("No CUDA GPUs are available")
    import cupy  # noqa: PLC0415  (optional third-party package, imported on use)

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(device: Any = None) -> None:
    """Wait for the GPU's queued work to finish (nothing to wait for without one); a ``device.sync``
    event with reason ``"synchronize"`` (and the sync debug mode's warning or error)."""
    if is_available():
        import cupy  # noqa: PLC0415

        synced("synchronize")
        cupy.cuda.Device(0).synchronize()
        raise_failed_checks()


def set_sync_debug_mode(debug_mode: int | str) -> None:
    """What a GPU operation that makes the host wait does, as PyTorch's ``torch.cuda.set_sync_debug_mode``.

    ``"default"`` or 0: nothing; ``"warn"`` or 1: a ``UserWarning``; ``"error"`` or 2: a
    ``RuntimeError`` ("called a synchronizing CUDA operation"). The waits are those a
    ``device.sync`` event records: ``.item()``, ``print``, ``bool(t)``, ``.cpu()``/``.numpy()``, a
    copy to the GPU from host memory, ``synchronize()``; the message names the program's line.

    Example:
        >>> import minigrad as mg
        >>> mg.cuda.set_sync_debug_mode("warn"); mg.cuda.get_sync_debug_mode()
        1
        >>> mg.cuda.set_sync_debug_mode(0)
    """
    set_mode(debug_mode)


def get_sync_debug_mode() -> int:
    """The sync debug mode: 0 (default), 1 (warn) or 2 (error)."""
    return get_mode()


def manual_seed(seed: int) -> None:
    """Seed the generator of draws made on the GPU (``mg.manual_seed`` seeds it too, with the CPU's).
    Its numbers are minigrad's own Philox stream, not the CPU generator's."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"manual_seed(): argument 'seed' must be int, but got {type(seed).__name__}")
    device_generator.manual_seed(seed)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: minigrad's GPU kernels are float16/32/64 (bfloat16 runs on the CPU only), so a program that
    asks, as nanoGPT's does, picks float16 with a ``GradScaler``."""
    return False


def initial_seed() -> int:
    """The GPU generator's seed."""
    return device_generator.initial_seed()


def get_rng_state(device: Any = "cuda") -> Any:
    """The GPU generator's state: its seed and offset as 16 ``uint8`` bytes (PyTorch's layout)."""
    return device_generator.get_state()


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Restore a state from ``get_rng_state()``."""
    device_generator.set_state(new_state)


manual_seed_all = manual_seed


# -- the device's questions ------------------------------------------------------------------------


class OutOfMemoryError(RuntimeError):
    """PyTorch's ``torch.OutOfMemoryError`` (``torch.cuda.OutOfMemoryError``): the GPU had no memory left for
    an allocation. A ``RuntimeError``, so ``except RuntimeError`` catches it too."""


def _index(device: Any, optional: bool = True) -> int:
    """The GPU index ``device`` names (PyTorch's ``_get_device_index``): an int as given, ``"cuda:i"``/
    ``mg.device("cuda", i)`` its ``i``, ``None``/``"cuda"`` the current GPU (0) where ``optional``."""
    if device is None:
        return 0
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str):
        kind, _, number = str.__str__(device).partition(":")
        if kind not in ("cuda", "gpu"):
            raise ValueError(f"Expected a cuda device, but got: {device}")
        if number.isdigit():
            return int(number)
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        return 0
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")


def _check_ordinal(index: int) -> None:
    """CUDA's answer to an index past minigrad's one GPU (PyTorch raises its ``AcceleratorError``, a
    ``RuntimeError``, with these words)."""
    if index >= 1:
        raise RuntimeError("CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?")


class _CudaDeviceProperties:
    """What ``get_device_properties`` returns: CUDA's ``cudaDeviceProp`` fields under PyTorch's names, printed
    as PyTorch prints them (memory in MiB)."""

    def __init__(self, props: dict[str, Any]) -> None:
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.major, self.minor = int(props["major"]), int(props["minor"])
        self.total_memory = int(props["totalGlobalMem"])
        self.multi_processor_count = int(props["multiProcessorCount"])
        self.L2_cache_size = int(props.get("l2CacheSize", 0))
        self.max_threads_per_multi_processor = int(props.get("maxThreadsPerMultiProcessor", 0))
        self.warp_size = int(props.get("warpSize", 32))
        self.is_integrated = int(props.get("integrated", 0))
        self.is_multi_gpu_board = int(props.get("isMultiGpuBoard", 0))
        self.pci_bus_id, self.pci_device_id = int(props.get("pciBusID", 0)), int(props.get("pciDeviceID", 0))
        self.pci_domain_id = int(props.get("pciDomainID", 0))
        raw = bytes(props.get("uuid", b"")) if not isinstance(props.get("uuid"), str) else props["uuid"].encode()
        h = raw.hex() if len(raw) == 16 else "0" * 32
        self.uuid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def __repr__(self) -> str:
        mib = 1024 * 1024
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // mib}MB, multi_processor_count={self.multi_processor_count}, "
                f"uuid={self.uuid}, pci_bus_id={self.pci_bus_id}, pci_device_id={self.pci_device_id}, "
                f"pci_domain_id={self.pci_domain_id}, L2_cache_size={self.L2_cache_size // mib}MB)")


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    """The GPU's name, compute capability, memory, multiprocessors and L2 cache (``cudaGetDeviceProperties``).

    Example:
        >>> import minigrad as mg
        >>> if mg.cuda.is_available():
        ...     p = mg.cuda.get_device_properties(0); assert p.total_memory > 0 and p.major >= 3
    """
    if not is_available():
        raise AssertionError(NOT_COMPILED)
    index = _index(device)
    if index < 0 or index >= device_count():
        raise AssertionError("Invalid device id")
    import cupy  # noqa: PLC0415

    return _CudaDeviceProperties(cupy.cuda.runtime.getDeviceProperties(index))


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """``(major, minor)``: the GPU's compute capability (9, 0 for an H100/H200)."""
    props = get_device_properties(device)
    return props.major, props.minor


def set_device(device: Any) -> None:
    """Select the GPU: 0 (minigrad drives one); a negative index does nothing, as in PyTorch."""
    index = _index(device, optional=False)
    if index < 0:
        return
    if not is_available():  # PyTorch's CPU build has no binding for it
        raise AttributeError("module 'torch._C' has no attribute '_cuda_setDevice'")
    _check_ordinal(index)


class device:  # noqa: N801  (PyTorch's name)
    """``with mg.cuda.device(0):`` - selects the GPU for the block (a no-op for a negative index or None)."""

    def __init__(self, device: Any) -> None:
        self.idx = -1 if device is None else _index(device)

    def __enter__(self) -> None:
        if self.idx < 0:
            return
        if not is_available():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        _check_ordinal(self.idx)

    def __exit__(self, *exc: Any) -> bool:
        return False


def is_initialized() -> bool:
    """True once CuPy was imported and found the GPU (CUDA's context CuPy makes on its first call)."""
    return "cupy" in sys.modules and is_available()


def init() -> None:
    """Initialise the GPU backend now (it otherwise starts on the first GPU question or tensor)."""
    if not is_available():
        raise AssertionError(NOT_COMPILED)


def get_arch_list() -> list[str]:
    """The architectures minigrad's kernels are built for: CuPy compiles them at run time (NVRTC) for the GPU
    present, so its one ``sm_XY``; ``[]`` without a GPU."""
    if not is_available():
        return []
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


# -- the rest of torch.cuda's small questions -----------------------------------------------------------------

has_half = True  # minigrad's GPU kernels take float16
has_magma = False  # (MAGMA's linear algebra: minigrad's GPU uses cuSOLVER through CuPy)


def seed() -> None:
    """Seed the GPU generator with a random number (from the operating system)."""
    device_generator.manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)


seed_all = seed


def get_rng_state_all() -> list[Any]:
    """One state per GPU: ``[get_rng_state()]`` with minigrad's one GPU, ``[]`` without."""
    return [get_rng_state()] if is_available() else []


def set_rng_state_all(new_states: Any) -> None:
    """Restore the states ``get_rng_state_all()`` gave, one per GPU."""
    for i, state in enumerate(new_states):
        _check_ordinal(i)
        set_rng_state(state)


def is_tf32_supported() -> bool:
    """Whether the GPU has TensorFloat-32 units (compute capability 8.0 or later); minigrad's float32
    products stay float32 whatever ``set_float32_matmul_precision`` says."""
    return is_available() and get_device_capability()[0] >= 8


def set_stream(stream: Any) -> None:
    """Make ``stream`` the current stream: the default stream only (NOTE [ One stream ] in cuda_events.py)."""
    if stream is None:
        return
    with StreamContext(stream):
        pass


def _default_generators() -> tuple[Any, ...]:
    return (device_generator,) if is_available() else ()


class device_of(device):  # noqa: N801  (PyTorch's name)
    """``with mg.cuda.device_of(t):`` - the GPU of tensor ``t`` for the block (nothing for a CPU tensor)."""

    def __init__(self, obj: Any) -> None:
        super().__init__(0 if getattr(obj, "is_cuda", False) else -1)


def current_blas_handle() -> int:
    """The cuBLAS handle minigrad's products run on (CuPy's, for the current GPU)."""
    if not is_available():
        raise AssertionError(NOT_COMPILED)
    import cupy  # noqa: PLC0415  (optional third-party package, imported on use)

    return int(cupy.cuda.device.get_cublas_handle())


def get_gencode_flags() -> str:
    """The ``-gencode`` flags of ``get_arch_list()`` ("" without a GPU)."""
    return " ".join(f"-gencode compute=compute_{a[3:]},code={a}" for a in get_arch_list())


def __getattr__(name: str) -> Any:
    if name == "default_generators":  # (asked each time: whether a GPU is there is known only then)
        return _default_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py (``mg.cuda.amp`` is set by amp.py).
    return sorted({*__all__, *(["amp"] if "amp" in globals() else []), *(n for n in globals() if n.startswith("__"))})
