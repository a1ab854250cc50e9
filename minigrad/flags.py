"""Global flags (Paddle's FLAGS_*), as plain attributes: ``mg.flags.enable_api_kernel_fallback = False``."""

from __future__ import annotations

__all__ = ["enable_api_kernel_fallback", "use_gpudnn", "retain_grad_for_all_tensor", "deterministic_algorithms",
           "deterministic_warn_only", "fill_uninitialized_memory"]

#: When no kernel exists for the requested backend, try the CPU kernels (Paddle's paddle/phi/core/kernel_factory.cc).
enable_api_kernel_fallback: bool = True

#: Let GPU ops try the library-accelerated ``GPUDNN`` kernels first (Paddle's paddle/phi/core/kernel_factory.cc); the same
#: switch governs the ``dnn`` variant of a backend registered with ``mg.register_backend``.
#: Off, matmul on the GPU runs the hand-written tiled kernel instead of cuBLAS.
use_gpudnn: bool = True

#: Keep ``.grad`` of every non-leaf tensor (Paddle's FLAGS_retain_grad_for_all_tensor).
retain_grad_for_all_tensor: bool = False

#: ``mg.use_deterministic_algorithms(True)``: kernels that would give different bits from run to run (the GPU's
#: atomic scatters) apply their writes in order instead (``kernels/gpu/ordered.py``); read it with
#: ``mg.are_deterministic_algorithms_enabled()``.
deterministic_algorithms: bool = False

#: ``use_deterministic_algorithms(True, warn_only=True)``: kept, as PyTorch keeps it (minigrad has no
#: nondeterministic kernel left to warn about once the mode is on).
deterministic_warn_only: bool = False

#: ``mg.utils.deterministic.fill_uninitialized_memory``: under the deterministic mode, ``empty`` and its
#: relatives fill floats with NaN and integers with their largest value, as PyTorch's.
fill_uninitialized_memory: bool = True
