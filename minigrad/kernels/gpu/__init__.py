"""GPU kernels (CuPy + hand-written CUDA C). Imported only when the GPU backend is first used.

``load()`` is called once by the GPU backend's lazy loader
(``kernels/backends.py``) after CuPy imported and a device was found. It
imports the kernel modules, whose ``register_kernel`` decorators fill the
registry:

- ``elementwise``: hand-written CUDA for the unary/binary/compare ops, where
  and clip (float16/32/64); CuPy built-ins for cast, clone, fill;
- ``reduce``: hand-written sum, mean, max, min, logsumexp;
- ``nn``: hand-written softmax, log_softmax, cross_entropy;
- ``linalg``: matmul twice - cuBLAS (through ``cupy.matmul``) as ``GPUDNN``
  and a tiled shared-memory kernel as plain ``GPU`` - so selection shows the
  GPUDNN -> GPU order (``mg.flags.use_gpudnn = False`` picks the tiled one);
- ``shape``: CuPy's views and copies for the shape and indexing ops;
- ``conv``: conv2d (forward and both gradients) twice - im2col + cuBLAS as
  ``GPUDNN`` and direct hand-written kernels as ``GPU`` -, max_pool2d
  (forward, gradient, select) and mse_loss, hand-written (``conv_src.py``).

Every other op (integer ops, ops added without a GPU kernel...) has no GPU
kernel and falls back to the CPU, visibly (``kernel.select`` with
``fallback_cpu: true`` and ``data.transform`` events).

The CUDA sources live in ``cuda_src.py`` and ``conv_src.py`` as plain strings, so they can be
compiled with ``nvcc`` where no GPU exists.
"""

from __future__ import annotations

_loaded = False


def load() -> None:
    """Register the GPU kernels (idempotent)."""
    global _loaded
    if _loaded:
        return
    from . import conv, elementwise, linalg, nn, reduce, shape  # noqa: F401  (registration side effects)

    _loaded = True
