"""Global flags (Paddle's FLAGS_*), as plain attributes: ``mg.flags.enable_api_kernel_fallback = False``."""

from __future__ import annotations

__all__ = ["enable_api_kernel_fallback", "use_gpudnn", "retain_grad_for_all_tensor"]

#: When no kernel exists for the requested backend, try the CPU kernels (Paddle's paddle/phi/core/kernel_factory.cc).
enable_api_kernel_fallback: bool = True

#: Let GPU ops try the library-accelerated ``GPUDNN`` kernels first (Paddle's paddle/phi/core/kernel_factory.cc); the same
#: switch governs the ``dnn`` variant of a backend registered with ``mg.register_backend``.
#: Off, matmul on the GPU runs the hand-written tiled kernel instead of cuBLAS.
use_gpudnn: bool = True

#: Keep ``.grad`` of every non-leaf tensor (Paddle's FLAGS_retain_grad_for_all_tensor).
retain_grad_for_all_tensor: bool = False
