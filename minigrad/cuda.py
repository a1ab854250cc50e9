"""``mg.cuda``: PyTorch's questions about the GPU, answered for minigrad's GPU backend (CuPy).

``is_available()`` is true only when CuPy imports and a CUDA device is present;
asking imports CuPy (``import minigrad`` never does). minigrad drives one GPU,
named ``"gpu"`` (PyTorch's ``"cuda"``/``"cuda:0"`` name it too). Random numbers
for GPU tensors are drawn on the GPU by its own generator (Philox4x32-10,
``random.DeviceGenerator``), which the CUDA seeding functions seed.

Example:
    >>> import minigrad as mg
    >>> device = "cuda" if mg.cuda.is_available() else "cpu"
"""

from __future__ import annotations

from typing import Any

from .devices import is_gpu_available
from .random import device_generator
from .kernels.gpu import raise_failed_checks
from .kernels.gpu.syncs import get_mode, set_mode, synced  # (no CuPy import)

__all__ = [
    "is_available", "device_count", "current_device", "get_device_name", "synchronize", "manual_seed",
    "manual_seed_all", "is_bf16_supported", "initial_seed", "get_rng_state", "set_rng_state", "set_sync_debug_mode", "get_sync_debug_mode",
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
