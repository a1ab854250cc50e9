"""GPU matmul, twice: cuBLAS (``GPUDNN``) and a hand-written tiled kernel (``GPU``).

Kernel selection probes ``GPUDNN`` first (Paddle's paddle/phi/core/kernel_factory.cc), so with
``mg.flags.use_gpudnn`` on (the default) matmul runs ``cupy.matmul`` - cuBLAS,
the library-accelerated variant - and with it off the search goes on to the
plain GPU kernel below: ``cuda_src.matmul_source``'s 16x16 shared-memory
tiles. Both follow NumPy's matmul rules (1-D operands, broadcast batches);
the tiled one gets its operands as contiguous (batch, M, K) / (batch, K, N)
blocks, with batch stride 0 for an operand that is broadcast.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ...dtypes import FLOAT_DTYPES
from ..key import Backend
from ..registry import register_kernel
from . import cuda_src as src
from ._runtime import dtype_name, function

__all__ = ["matmul_cublas", "matmul_tiled"]


def _operands(x: Any, y: Any, transpose_x: bool, transpose_y: bool) -> tuple[Any, Any, bool, bool]:
    x1, y1 = x.ndim == 1, y.ndim == 1
    if transpose_x and not x1:
        x = cupy.swapaxes(x, -1, -2)
    if transpose_y and not y1:
        y = cupy.swapaxes(y, -1, -2)
    if x1:
        x = x.reshape(1, -1)
    if y1:
        y = y.reshape(-1, 1)
    return x, y, x1, y1


@register_kernel("matmul", Backend.GPUDNN, dtypes=FLOAT_DTYPES, name="gpudnn/cublas_matmul")
def matmul_cublas(x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False) -> Any:
    """cuBLAS GEMM through ``cupy.matmul``."""
    if transpose_x and x.ndim >= 2:
        x = cupy.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = cupy.swapaxes(y, -1, -2)
    return cupy.asarray(cupy.matmul(x, y))


@register_kernel("addmm", Backend.GPUDNN, dtypes=FLOAT_DTYPES, name="gpudnn/cublas_addmm")
def addmm_cublas(input: Any, mat1: Any, mat2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (mat1 @ mat2)``: cuBLAS GEMM, then the scaled sum (scalars by value)."""
    product = cupy.matmul(mat1, mat2)
    if alpha != 1:
        product = product * product.dtype.type(alpha)
    if beta == 0:
        return cupy.asarray(product)
    return cupy.asarray(product + (input if beta == 1 else input * input.dtype.type(beta)))


def _batched(a: Any, batch: tuple[int, ...]) -> tuple[Any, int]:
    """``a`` as a contiguous (B, r, c) block and its batch stride (0 when a has no batch)."""
    r, c = a.shape[-2:]
    b = int(np.prod(batch, dtype=np.int64)) if batch else 1
    if a.shape[:-2] == batch:
        return cupy.ascontiguousarray(a).reshape(b, r, c), r * c
    if all(s == 1 for s in a.shape[:-2]):
        return cupy.ascontiguousarray(a).reshape(r, c), 0
    return cupy.ascontiguousarray(cupy.broadcast_to(a, batch + (r, c))).reshape(b, r, c), r * c


_MAX_GRID_Z = 65535


@register_kernel("matmul", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cuda_tiled_matmul")
def matmul_tiled(x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False) -> Any:
    """The hand-written tiled shared-memory kernel."""
    a, b, x1, y1 = _operands(x, y, transpose_x, transpose_y)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    nb = int(np.prod(batch, dtype=np.int64)) if batch else 1
    out = cupy.empty((nb, m, n), dtype=x.dtype)
    if out.size and k:
        a3, sa = _batched(a, batch)
        b3, sb = _batched(b, batch)
        dt = dtype_name(x.dtype)
        fn = function(f"matmul_{dt}", lambda: src.matmul_source(dt), f"mg_matmul_{src.DTYPES[dt][2]}")
        t = src.TILE
        for z0 in range(0, nb, _MAX_GRID_Z):
            zn = min(_MAX_GRID_Z, nb - z0)
            fn(((n + t - 1) // t, (m + t - 1) // t, zn), (t, t, 1),
               (a3.ravel()[z0 * sa:] if sa else a3, b3.ravel()[z0 * sb:] if sb else b3, out[z0:],
                np.int32(m), np.int32(n), np.int32(k), np.int64(sa), np.int64(sb), np.int64(m * n)))
    elif out.size:
        out.fill(0)
    out = out.reshape(batch + (m, n))
    if x1:
        out = out[..., 0, :]
    if y1:
        out = out[..., 0]
    # (not ascontiguousarray: it turns a 0-d result into shape (1,))
    return out if out.flags.c_contiguous else out.copy()
