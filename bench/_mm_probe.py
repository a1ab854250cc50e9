import time, numpy as np, cupy
from cupy_backends.cuda.libs import cublas
def us(fn, n=400):
    best = 1e9
    for _ in range(5):
        cupy.cuda.Device().synchronize(); t0 = time.perf_counter()
        for _ in range(n): fn()
        best = min(best, (time.perf_counter() - t0) / n)
    cupy.cuda.Device().synchronize()
    return best * 1e6
rs = cupy.random.default_rng(0)
f = lambda *s: rs.standard_normal(s, dtype=cupy.float32)
x2, w = f(512, 64), f(64, 192)
x3 = f(16, 32, 64); g2 = f(512, 192)
q, k = f(16, 4, 32, 16), f(16, 4, 16, 32)
h = cupy.cuda.device.get_cublas_handle()
one, zero = np.ones((), np.float32), np.zeros((), np.float32)
a1, a0 = one.ctypes.data, zero.ctypes.data
def sgemm_rm(a, b):  # row-major C = a @ b through column-major cuBLAS: C^T = b^T a^T
    m, kk = a.shape; n = b.shape[1]
    c = cupy.ndarray((m, n), cupy.float32)
    cublas.sgemm(h, 0, 0, n, m, kk, a1, b.data.ptr, n, a.data.ptr, kk, a0, c.data.ptr, n)
    return c
def sgemm_batched(a, b):
    *bt, m, kk = a.shape; n = b.shape[-1]; bc = int(np.prod(bt))
    c = cupy.ndarray((*bt, m, n), cupy.float32)
    cublas.sgemmStridedBatched(h, 0, 0, n, m, kk, a1, b.data.ptr, n, kk * n, a.data.ptr, kk, m * kk, a0, c.data.ptr, n, m * n, bc)
    return c
np.testing.assert_allclose(sgemm_rm(x2, w).get(), cupy.matmul(x2, w).get(), rtol=1e-4, atol=1e-4)
np.testing.assert_allclose(sgemm_batched(q, k).get(), cupy.matmul(q, k).get(), rtol=1e-4, atol=1e-4)
rows = {
 "cupy.matmul 2d (512,64)@(64,192)": us(lambda: cupy.matmul(x2, w)),
 "cublas.sgemm 2d same": us(lambda: sgemm_rm(x2, w)),
 "cupy.matmul 3d@2d (16,32,64)@(64,192)": us(lambda: cupy.matmul(x3, w)),
 "cupy.matmul 2d x.T @ g (64,512)@(512,192)": us(lambda: cupy.matmul(x2.T, g2)),
 "cupy.matmul batched (16,4,32,16)@(16,4,16,32)": us(lambda: cupy.matmul(q, k)),
 "cublas.sgemmStridedBatched same": us(lambda: sgemm_batched(q, k)),
 "cupy.matmul batched q @ q.T (strided)": us(lambda: cupy.matmul(q, q.swapaxes(-1, -2))),
 "cupy.ndarray alloc": us(lambda: cupy.ndarray((512, 192), cupy.float32)),
}
import torch
tx, tw, tq, tk = (torch.randn(*s, device="cuda") for s in ((512, 64), (64, 192), (16, 4, 32, 16), (16, 4, 16, 32)))
rows["torch 2d matmul"] = us(lambda: tx @ tw)
rows["torch batched matmul"] = us(lambda: tq @ tk)
for k_, v in rows.items(): print(f"{k_:48s} {v:7.1f} us")
