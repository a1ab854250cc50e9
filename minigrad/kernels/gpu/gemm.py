"""Matrix products on the GPU: cuBLAS's GEMM called directly where the operands' layout allows, else
``cupy.matmul`` (NOTE [ GEMM without cupy.matmul's host time ])."""

from __future__ import annotations

import importlib
import math
from typing import Any

import cupy
import numpy as np

__all__ = ["matmul"]

# NOTE [ GEMM without cupy.matmul's host time ]
#     A small model's GPU step is bound by host time, and ``cupy.matmul`` costs much of it: on an H200
#     (CuPy 14.2), 30 us of host time for a (512, 64) @ (64, 192) float32 product, 70 us when the right
#     operand is a transposed view (it copies first), 100 us for a (16, 32, 64) @ (64, 192) (it broadcasts
#     the matrix into a batch); ``cublasSgemm`` called with the operands as they lie costs 19 us, the
#     output's allocation included, and PyTorch CUDA's whole ``mm`` 14 us. A char GPT step makes about 55
#     products. So ``matmul`` calls cuBLAS itself for float32 and float64:
#     - each operand is read in place when its last two dims are row-major (cuBLAS's op N) or a transposed
#       row-major matrix (op T), its row stride the leading dimension; row-major ``C = A @ B`` is
#       column-major ``C^T = B^T A^T``, so cuBLAS gets B first;
#     - a batch times one matrix whose batch dims fold into its rows is one GEMM of more rows;
#     - a batch whose dims fold into one stride per operand (0 for a broadcast one) is one strided-batched
#       GEMM into a new row-major result.
#     Anything else - float16 (cuBLAS's mixed-precision entry points differ), 1-D or empty operands,
#     strides that fold into none of these - takes ``cupy.matmul``. The stand-in CuPy emulates these cuBLAS
#     calls from the pointers and leading dimensions they are given (``tests/gpu/fake_cupy.py``).

try:
    cublas: Any = cupy.cuda.cublas
except AttributeError:  # CuPy keeps its cuBLAS binding in cupy_backends
    cublas = importlib.import_module("cupy_backends.cuda.libs.cublas")

#: alpha = 1 and beta = 0 per dtype, on the host (cuBLAS's host pointer mode reads them during the call);
#: kept alive here, as their addresses are handed out below
_SCALARS = {np.dtype(t): (np.ones((), t), np.zeros((), t)) for t in (np.float32, np.float64)}


def _entry(dtype: Any, gemm: str, batched: str) -> tuple[Any, Any, int, int]:
    """The GEMM, the strided-batched GEMM, and the addresses of alpha and beta for ``dtype`` (read once: NumPy's
    ``.ctypes`` makes an object per access, about 1 us of host time a GEMM twice over)."""
    one, zero = _SCALARS[np.dtype(dtype)]
    return getattr(cublas, gemm), getattr(cublas, batched), one.ctypes.data, zero.ctypes.data


_GEMMS = {np.dtype(np.float32): _entry(np.float32, "sgemm", "sgemmStridedBatched"),
          np.dtype(np.float64): _entry(np.float64, "dgemm", "dgemmStridedBatched")}


_INT_MAX = 2 ** 31


def _operand(a: Any) -> tuple[int, int] | None:
    """(op, leading dimension) for cuBLAS reading ``a``'s last two dims in place (column-major, as the
    transpose of what it holds): op 0 for row-major rows, 1 for a transposed row-major matrix; None when
    neither (a copy would be needed)."""
    r, c = a.shape[-2:]
    item = a.itemsize
    s0, s1 = a.strides[-2:]
    if s0 % item or s1 % item:
        return None
    s0, s1 = s0 // item, s1 // item
    if (s1 == 1 or c == 1) and (r == 1 or s0 >= c):
        return 0, max(s0 if r > 1 else c, 1)
    if (s0 == 1 or r == 1) and (c == 1 or s1 >= r):
        return 1, max(s1 if c > 1 else r, 1)
    return None


def _batch_stride(a: Any, batch: tuple[int, ...]) -> int | None:
    """The one element stride between ``a``'s matrices over ``batch`` (its batch dims broadcast to
    ``batch``: 0 along a broadcast dim), or None when its batch dims do not fold into one stride."""
    nb = a.ndim - 2
    stride, expected = 0, None
    for j in range(len(batch) - 1, -1, -1):
        size = batch[j]
        if size == 1:
            continue
        k = j - (len(batch) - nb)
        st = a.strides[k] // a.itemsize if k >= 0 and a.shape[k] != 1 else 0
        if expected is None:
            stride = st
        elif st != expected:
            return None
        expected = st * size
    return stride


def _rows_fold(a: Any) -> bool:
    """Whether ``a``'s batch dims and rows are one run of rows, each ``a.strides[-2]`` apart (row-major rows)."""
    expected = a.strides[-2] * a.shape[-2]
    for k in range(a.ndim - 3, -1, -1):
        if a.shape[k] != 1 and a.strides[k] != expected:
            return False
        expected *= a.shape[k]
    return True


def matmul(a: Any, b: Any) -> Any:
    """``a @ b`` (NumPy's matmul rules) on the GPU: cuBLAS directly where it can (NOTE [ GEMM without
    cupy.matmul's host time ]), else ``cupy.matmul``."""
    gemm = _GEMMS.get(a.dtype) if a.dtype == b.dtype and a.ndim >= 2 and b.ndim >= 2 else None
    if gemm is None or 0 in a.shape or 0 in b.shape or a.shape[-1] != b.shape[-2]:
        return cupy.matmul(a, b)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    pa, pb = _operand(a), _operand(b)
    if pa is None or pb is None or max(a.size, b.size, pa[1], pb[1]) >= _INT_MAX:  # cuBLAS takes int sizes
        return cupy.matmul(a, b)
    if b.ndim == 2 and a.ndim > 2 and pa[0] == 0 and m > 1 and _rows_fold(a):  # a batch times one matrix
        rows = a.size // k
        out = cupy.ndarray((rows, n), a.dtype)
        _gemm(gemm, pb, pa, n, rows, k, b, a, out)
        return out.reshape(*a.shape[:-1], n)
    if a.ndim == 2 and b.ndim == 2:
        out = cupy.ndarray((m, n), a.dtype)
        _gemm(gemm, pb, pa, n, m, k, b, a, out)
        return out
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return cupy.matmul(a, b)  # CuPy's refusal, in its words
    sa, sb = _batch_stride(a, batch), _batch_stride(b, batch)
    count = math.prod(batch)
    if sa is None or sb is None or count == 0 or count * m * n >= _INT_MAX:
        return cupy.matmul(a, b)
    out = cupy.ndarray((*batch, m, n), a.dtype)
    handle = cupy.cuda.device.get_cublas_handle()
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
    gemm[1](handle, pb[0], pa[0], n, m, k, gemm[2], b.data.ptr, pb[1], sb, a.data.ptr, pa[1], sa, gemm[3], out.data.ptr,
            n, m * n, count)
    return out


def _gemm(gemm: tuple[Any, ...], pb: tuple[int, int], pa: tuple[int, int], n: int, m: int, k: int, b: Any, a: Any,
          out: Any) -> None:
    """Column-major ``out^T (n x m) = op(b) op(a)``: row-major ``out = a @ b``."""
    handle = cupy.cuda.device.get_cublas_handle()
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
    gemm[0](handle, pb[0], pa[0], n, m, k, gemm[2], b.data.ptr, pb[1], a.data.ptr, pa[1], gemm[3], out.data.ptr, n)
