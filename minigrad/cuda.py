"""``mg.cuda``: PyTorch's questions about the GPU, answered for minigrad's GPU backend (CuPy).

``is_available()`` is true only when CuPy imports and a CUDA device is present;
asking imports CuPy (``import minigrad`` never does). minigrad drives one GPU,
named ``"gpu"`` (PyTorch's ``"cuda"``/``"cuda:0"`` name it too). Random numbers
on the GPU are drawn by the CPU generator and moved, so the CUDA seeding
functions seed nothing of their own.

Example:
    >>> import minigrad as mg
    >>> device = "cuda" if mg.cuda.is_available() else "cpu"
"""

from __future__ import annotations

from typing import Any

from .devices import is_gpu_available

__all__ = [
    "is_available", "device_count", "current_device", "get_device_name", "synchronize", "manual_seed",
    "manual_seed_all",
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
    """Wait for the GPU's queued work to finish (nothing to wait for without one)."""
    if is_available():
        import cupy  # noqa: PLC0415

        cupy.cuda.Device(0).synchronize()


def manual_seed(seed: int) -> None:
    """Accepted for PyTorch's programs: GPU tensors draw from the CPU generator (``mg.manual_seed``)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"manual_seed(): argument 'seed' must be int, but got {type(seed).__name__}")


manual_seed_all = manual_seed
