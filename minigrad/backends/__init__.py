"""``minigrad.backends``: PyTorch's backend switches, so ``torch.backends.cudnn.deterministic = True`` runs.

What minigrad does with each (``docs/concepts/kernel-selection.md``):

- ``cudnn.enabled``: the same switch as ``minigrad.flags.use_gpudnn`` - off, GPU ops skip the
  library-accelerated ``GPUDNN`` kernels (cuBLAS matmul) and run the hand-written ones;
- ``cudnn.deterministic``: read and kept; it changes nothing (cuDNN's switch: minigrad calls no cuDNN). What
  makes a GPU run repeat bit for bit is ``mg.use_deterministic_algorithms(True)``, which puts the GPU's atomic
  scatters in order (``minigrad/determinism.py``);
- ``cudnn.benchmark``, ``cudnn.allow_tf32``, ``cuda.matmul.allow_tf32`` and ``set_float32_matmul_precision``
  (exported as ``mg.set_float32_matmul_precision``): read and kept; minigrad has no algorithm search and never
  computes in TF32, so they change nothing;
- ``mps.is_available()``/``is_built()``: False (minigrad's GPU backend is CUDA through CuPy).

Example:
    >>> import minigrad as mg
    >>> mg.backends.cudnn.deterministic = True
    >>> mg.backends.cudnn.benchmark = False
    >>> mg.backends.mps.is_available()
    False
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace

from .. import flags as _flags
from ..kernels.backends import is_gpu_available

__all__ = ["cudnn", "mps", "cuda", "set_float32_matmul_precision", "get_float32_matmul_precision"]


class _CuDNN:
    """``torch.backends.cudnn``'s flags (see the module docstring for what each does here)."""

    deterministic = False
    benchmark = False
    allow_tf32 = True

    @property
    def enabled(self) -> bool:
        return _flags.use_gpudnn

    @enabled.setter
    def enabled(self, value: bool) -> None:
        _flags.use_gpudnn = bool(value)

    @staticmethod
    def is_available() -> bool:
        """Whether the library-accelerated GPU kernels can run: a GPU is there."""
        return is_gpu_available()

    @staticmethod
    def version() -> None:
        return None


class _MPS:
    """``torch.backends.mps``: Apple's GPUs; minigrad has no backend for them."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def is_built() -> bool:
        return False


cudnn = _CuDNN()
mps = _MPS()
cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False), is_built=is_gpu_available)


_MATMUL_PRECISION = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """``torch.set_float32_matmul_precision``: ``"highest"``, ``"high"`` or ``"medium"``, kept and read back
    (``"high"``/``"medium"`` set ``backends.cuda.matmul.allow_tf32``, as PyTorch's). minigrad's float32
    matmuls always compute in float32 (NumPy's, cuBLAS's default), as ``"highest"`` does."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _MATMUL_PRECISION[0] = precision
    cuda.matmul.allow_tf32 = precision != "highest"


def get_float32_matmul_precision() -> str:
    """The value last given to ``set_float32_matmul_precision`` (``"highest"`` at start)."""
    return _MATMUL_PRECISION[0]
