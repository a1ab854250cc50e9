"""Lesson 5: GPU kernels written in CUDA C and launched through CuPy.

CuPy is imported inside the functions, so this file imports on machines
without a GPU (the tests then skip). ``register()`` makes ``softplus_gpu``
minigrad's GPU kernel of the ``softplus`` op (lesson 1's op).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_KERNELS: dict[str, Any] = {}

#: CUDA C of the row-sum reduction (Task 5.2): one block per row, a tree in shared memory.
ROW_SUM_THREADS = 256


def softplus_gpu(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """``log1p(exp(beta*x)) / beta`` (``x`` where ``beta*x > threshold``) on a CuPy array, same dtype.

    Uses one ``cupy.ElementwiseKernel`` (cached in ``_KERNELS["softplus"]``)
    whose CUDA C body computes one element, stable for large ``|x|``.
    """
    # BEGIN LESSON 5 TASK 5.1: an elementwise kernel
    import cupy as cp

    kernel = _KERNELS.get("softplus")
    if kernel is None:
        kernel = _KERNELS["softplus"] = cp.ElementwiseKernel(
            "T x, T beta, T threshold",
            "T y",
            """
            T bx = x * beta;
            T pos = bx > (T)0 ? bx : (T)0;
            y = bx > threshold ? x : (pos + log1p(exp(-fabs(bx)))) / beta;
            """,
            "minigrad_softplus",
        )
    return kernel(x, x.dtype.type(beta), x.dtype.type(threshold))
    # END LESSON 5 TASK 5.1


def row_sum_gpu(x: Any) -> Any:
    """Sums of the rows of a 2-D float32 CuPy array, shape ``(rows,)``.

    A ``cupy.RawKernel`` (cached in ``_KERNELS["row_sum"]``) launched with
    one block of ``ROW_SUM_THREADS`` threads per row: each thread sums a
    strided slice of its row, then the block adds the partial sums pairwise
    in shared memory (``__syncthreads()`` between levels).
    """
    # BEGIN LESSON 5 TASK 5.2: a reduction kernel
    import cupy as cp

    kernel = _KERNELS.get("row_sum")
    if kernel is None:
        kernel = _KERNELS["row_sum"] = cp.RawKernel(
            r"""
            extern "C" __global__ void row_sum(const float* x, float* out, int cols) {
                extern __shared__ float buf[];
                const int row = blockIdx.x;
                float acc = 0.0f;
                for (int j = threadIdx.x; j < cols; j += blockDim.x) acc += x[(long long)row * cols + j];
                buf[threadIdx.x] = acc;
                __syncthreads();
                for (int s = blockDim.x / 2; s > 0; s >>= 1) {
                    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
                    __syncthreads();
                }
                if (threadIdx.x == 0) out[row] = buf[0];
            }
            """,
            "row_sum",
        )
    x = cp.ascontiguousarray(x, dtype=cp.float32)
    rows, cols = x.shape
    out = cp.empty((rows,), dtype=cp.float32)
    if rows:
        kernel((rows,), (ROW_SUM_THREADS,), (x, out, np.int32(cols)), shared_mem=ROW_SUM_THREADS * 4)
    return out
    # END LESSON 5 TASK 5.2


def register() -> None:
    """Make ``softplus_gpu`` the GPU kernel of minigrad's ``softplus`` (float32/float64)."""
    from minigrad import dtypes
    from minigrad.kernels.key import Backend
    from minigrad.kernels.registry import register_kernel

    register_kernel("softplus", Backend.GPU, dtypes=(dtypes.float32, dtypes.float64), name="gpu/softplus_gpu")(
        softplus_gpu
    )


def unregister() -> None:
    """Undo ``register()``."""
    from minigrad.kernels.key import Backend
    from minigrad.kernels.registry import unregister_kernels

    unregister_kernels("softplus", Backend.GPU)
