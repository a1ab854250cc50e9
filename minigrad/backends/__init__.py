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
- ``mps.is_available()``/``is_built()``: False (minigrad's GPU backend is CUDA through CuPy);
- ``cuda.enable_flash_sdp``/``enable_mem_efficient_sdp``/``enable_math_sdp``/``enable_cudnn_sdp`` (and
  ``torch.nn.attention.sdpa_kernel``, which sets them): which kernels ``scaled_dot_product_attention`` may run.
  minigrad's fused attention node stands for the fused kernel PyTorch would pick (flash on a CPU; flash or
  memory-efficient on a GPU): with that kernel off, the math path runs (the composite), and with it off too,
  PyTorch's "No viable backend" error. cuDNN's attention is never PyTorch's pick here.

Example:
    >>> import minigrad as mg
    >>> mg.backends.cudnn.deterministic = True
    >>> mg.backends.cudnn.benchmark = False
    >>> mg.backends.mps.is_available()
    False
"""

from __future__ import annotations

import contextlib
import warnings
from types import SimpleNamespace
from typing import Any, Iterator

from .. import flags as _flags
from ..kernels.backends import is_gpu_available

__all__ = ["cudnn", "mps", "cuda", "set_float32_matmul_precision", "get_float32_matmul_precision", "SDP_ENABLED"]


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


#: the attention kernels ``scaled_dot_product_attention`` may run (``enable_*_sdp``, ``nn.attention.sdpa_kernel``)
SDP_ENABLED = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switches(name: str) -> tuple[Any, Any]:
    def enable(enabled: bool) -> None:
        SDP_ENABLED[name] = bool(enabled)

    def is_enabled() -> bool:
        return SDP_ENABLED[name]

    enable.__name__, is_enabled.__name__ = f"enable_{name}_sdp", f"{name}_sdp_enabled"
    enable.__doc__ = f"``torch.backends.cuda.enable_{name}_sdp``: let ``scaled_dot_product_attention`` run it, or not."
    is_enabled.__doc__ = f"``torch.backends.cuda.{name}_sdp_enabled``: whether it may run."
    return enable, is_enabled


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True) -> Iterator[dict[str, Any]]:
    """``torch.backends.cuda.sdp_kernel`` (deprecated: ``nn.attention.sdpa_kernel``): the four switches for the
    length of the block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature", FutureWarning, stacklevel=3)
    before = dict(SDP_ENABLED)
    SDP_ENABLED.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn)
    try:
        yield {}
    finally:
        SDP_ENABLED.update(before)


cudnn = _CuDNN()
mps = _MPS()
cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False), is_built=is_gpu_available, sdp_kernel=sdp_kernel)
for _name in SDP_ENABLED:
    _on, _is_on = _sdp_switches(_name)
    setattr(cuda, _on.__name__, _on)
    setattr(cuda, _is_on.__name__, _is_on)


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
