"""GPU kernels (CuPy + CUDA C). Imported only when the GPU backend is first used."""

from __future__ import annotations


def load() -> None:
    """Register the GPU kernels (none yet on this build: every GPU op falls back to CPU)."""
