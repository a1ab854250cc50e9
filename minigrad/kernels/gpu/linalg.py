"""GPU matmul, twice: cuBLAS (``GPUDNN``) and a hand-written tiled kernel (``GPU``).

Kernel selection probes ``GPUDNN`` first (Paddle's paddle/phi/core/kernel_factory.cc), so with
``mg.flags.use_gpudnn`` on (the default) matmul runs cuBLAS (``gemm.py``),
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

from ...devices import to_numpy
from ...dtypes import FLOAT_DTYPES, float32, float64
from ..array_kernels import (column_major, lu_transposed_solve_arrays, nan_where_a_holds_nan, singular_error,
                             vector_rhs)
from ..key import Backend
from ..linalg_arrays import (apply_reflectors_arrays, cholesky_info, cholesky_inverse_arrays, eigh_arrays, geqrf_arrays,
                             householder_product_arrays, lstsq_arrays, lu_factor_arrays, lu_solve_arrays, lu_unpack_arrays,
                             matrix_exp_arrays, permutation_matrix, pinv_arrays, qr_arrays, solve_triangular_arrays,
                             svd_arrays)
from ..array_kernels import (euclidean_dist_arrays, row_differences, trilinear_arrays,
                             vector_norm_arrays)
from ..registry import register_kernel
from . import cuda_src as src
from ._runtime import dtype_name, function
from .elementwise import run_elementwise
from .gemm import matmul as gemm

__all__ = ["matmul_cublas", "matmul_tiled", "inv", "solve", "det"]


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
    """cuBLAS GEMM (``gemm.matmul``: called directly where the layout allows, else through ``cupy.matmul``)."""
    if transpose_x and x.ndim >= 2:
        x = x.swapaxes(-1, -2)
    if transpose_y and y.ndim >= 2:
        y = y.swapaxes(-1, -2)
    return gemm(x, y)  # (a CuPy array, a 0-d one for two vectors)


@register_kernel("addmm", Backend.GPUDNN, dtypes=FLOAT_DTYPES, name="gpudnn/cublas_addmm")
def addmm_cublas(input: Any, mat1: Any, mat2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (mat1 @ mat2)``: cuBLAS GEMM, then the scaled sum (scalars by value). The common
    form, ``nn.Linear``'s (``beta = alpha = 1``), adds the bias with the hand-written ``add`` kernel the op
    selects: CuPy's ``+`` goes through its general ufunc dispatch, more host time than a launch of our own."""
    product = gemm(mat1, mat2)
    if alpha != 1:
        product = product * product.dtype.type(alpha)
    if beta == 0:
        return product
    if beta == 1 and input.dtype == product.dtype:
        return run_elementwise("add", "binary", (product, input), product.dtype)
    return cupy.asarray(product + (input if beta == 1 else input * input.dtype.type(beta)))


def _scaled_product(op: str) -> None:
    """``addmv``, ``addr``, ``baddbmm``, ``addbmm``: cuBLAS's product (``cupy.matmul``; an outer product a
    broadcast ``*``), then ``addmm``'s scaled sum (scalars by value; ``input`` ignored at ``beta=0``)."""
    def kernel(input: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        if op == "addr":
            product = a[:, None] * b[None, :]
        else:
            product = gemm(a, b)
            product = product.sum(axis=0) if op == "addbmm" else product
        if alpha != 1:
            product = product * product.dtype.type(alpha)
        if beta == 0:
            return cupy.asarray(product)
        return cupy.asarray(product + (input if beta == 1 else input * input.dtype.type(beta)))

    kernel.__name__ = f"{op}_cublas"
    register_kernel(op, Backend.GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cublas_{op}")(kernel)


for _op in ("addmv", "addr", "baddbmm", "addbmm"):
    _scaled_product(_op)


@register_kernel("cross", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_cross")
def cross(x: Any, y: Any, dim: int = -1) -> Any:
    """CuPy's cross product along ``dim`` (the two broadcast), row-major as PyTorch's."""
    return cupy.ascontiguousarray(cupy.cross(x, y, axis=dim))


# -- distances: the CPU kernels' bodies on CuPy (kernels/array_kernels.py) --------------------------------


@register_kernel("vdot", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_vdot")
def vdot(x: Any, y: Any) -> Any:
    """The vectors' product on the device (``cupy.matmul`` of two 1-D arrays: a 0-d result, nothing read back)."""
    return cupy.matmul(x, y)


@register_kernel("dist", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_dist")
def dist(x: Any, y: Any, p: float = 2.0) -> Any:
    return vector_norm_arrays(cupy, x - y, p, None, False, _acc(x))


@register_kernel("cdist", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_cdist")
def cdist(x1: Any, x2: Any, p: float = 2.0) -> Any:
    return cupy.ascontiguousarray(vector_norm_arrays(cupy, row_differences(cupy, x1, x2), p, -1, False, _acc(x1)))


@register_kernel("euclidean_dist", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_euclidean_dist")
def euclidean_dist(x1: Any, x2: Any) -> Any:
    """One cuBLAS product of the padded rows (PyTorch's ``_euclidean_dist``)."""
    return euclidean_dist_arrays(cupy, x1, x2)


def _acc(x: Any) -> Any:
    """A half's norm accumulated in float32, as PyTorch's CUDA kernel (and ``vector_norm``'s GPU kernel)."""
    return np.float32 if x.dtype == np.float16 else None


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


# -- inv, solve, det: cuSOLVER through cupy.linalg ------------------------------------------------------

#: the dtypes cuSOLVER factors (a half has no LU there, nor in PyTorch's linalg)
_LINALG_DTYPES = (float32, float64)


def _refuse_singular(op: str, a: Any, out: Any) -> None:
    """PyTorch CUDA's ``linalg.inv``/``linalg.solve`` read the LU factorization's status back and raise for a
    singular matrix: a sync, which their documentation names. CuPy does not look (a zero pivot leaves
    infinities and NaN in the result), so whether a matrix of finite numbers gave a result that is not finite
    is computed on the device and read back: one flag, a ``device.copy`` and a ``device.sync`` as PyTorch's. A
    matrix holding NaN or an infinity is not refused (NaN everywhere for NaN: ``nan_where_a_holds_nan``)."""
    if not out.size:
        return
    batch = a.shape[:-2]
    finite_in = cupy.isfinite(a).reshape(batch + (-1,)).all(axis=-1)
    finite_out = cupy.isfinite(out).reshape(out.shape[: len(batch)] + (-1,)).all(axis=-1) if batch else \
        cupy.isfinite(out).all()
    if bool(to_numpy((finite_in & ~finite_out).any())):
        raise singular_error(op, a)


@register_kernel("inv", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_inv")
def inv(a: Any) -> Any:
    """cuSOLVER's LU and inverse (batched), a singular matrix refused after one read (``_refuse_singular``), one
    holding NaN giving NaN everywhere as PyTorch's (``nan_where_a_holds_nan``: cuSOLVER's does not)."""
    if not a.size:
        return cupy.empty(a.shape, dtype=a.dtype)
    out = column_major(cupy, nan_where_a_holds_nan(cupy, a, cupy.linalg.inv(a)))
    _refuse_singular("linalg.inv", a, out)
    return out


@register_kernel("solve", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_solve")
def solve(a: Any, b: Any) -> Any:
    """cuSOLVER's LU solve, the batch dims broadcast first (PyTorch's rule for a vector ``B``), a singular
    matrix refused after one read (``_refuse_singular``), one holding NaN giving NaN (``nan_where_a_holds_nan``)."""
    vector = vector_rhs(a.shape, b.shape)
    rhs = b[..., None] if vector else b
    batch = tuple(np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2]))
    a_b = cupy.ascontiguousarray(cupy.broadcast_to(a, batch + a.shape[-2:]))
    rhs_b = cupy.ascontiguousarray(cupy.broadcast_to(rhs, batch + rhs.shape[-2:]))
    if not a_b.size or not rhs_b.size:
        out = cupy.empty(rhs_b.shape, dtype=a.dtype)
    else:
        out = nan_where_a_holds_nan(cupy, a_b, cupy.linalg.solve(a_b, rhs_b))
        _refuse_singular("linalg.solve", a_b, out)
    return cupy.ascontiguousarray(out[..., 0]) if vector else column_major(cupy, out)


@register_kernel("det", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_det")
def det(a: Any) -> Any:
    """cuSOLVER's LU of ``A`` (``_lu_of_a``), the pivots' product (0 for a singular matrix, no read back), as
    PyTorch's; NaN for a matrix holding NaN (``_nan_det``)."""
    if not a.size:
        return cupy.ones(a.shape[:-2], dtype=a.dtype) if a.shape[-1] == 0 else cupy.empty(a.shape[:-2], dtype=a.dtype)
    out = cupy.asarray(cupy.linalg.det(_lu_of_a(a))).astype(a.dtype, copy=False)
    return _own(_nan_det(a, out))  # (not ascontiguousarray: it makes a 0-d array 1-d)


def _lu_of_a(a: Any) -> Any:
    """What to hand ``cupy.linalg.det``/``slogdet`` for them to factor ``A``, as PyTorch's CUDA and the CPU's LAPACK
    do: CuPy factors the row-major copy of its argument read as column-major (cupy/linalg/_decomposition.py
    ``_lu_factor``: "Inputs and outputs are transposed"), so the LU of ``a`` itself would be ``A^T``'s, whose
    rounding differs - an exactly singular matrix got a pivot of ``eps`` there, a determinant of ``1e-16``
    instead of 0, and so ``det``'s backward ``G det(A) A^{-T}`` came out finite where PyTorch's is 0."""
    return cupy.swapaxes(a, -1, -2)


def _nan_det(a: Any, out: Any) -> Any:
    """``out`` (one number per matrix) NaN where the matrix holds a NaN, as PyTorch's LAPACK LU carries it onto
    the diagonal; cuSOLVER's reads it as 0 (pytorch/pytorch#173638: a finite determinant, or 0)."""
    return cupy.where(cupy.isnan(a).any(axis=(-2, -1)), out.dtype.type(np.nan), out)


@register_kernel("lu_transposed_solve", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_lu_transposed_solve")
def lu_transposed_solve(a: Any, g: Any, perturb: bool = False) -> Any:
    """``det``'s and ``slogdet``'s backward solve: the CPU's LU and triangle solves (``lu_transposed_solve_arrays``),
    a few kernels per column on the device, nothing read back (a zero pivot gives inf and NaN, no error)."""
    n = a.shape[-1]
    return lu_transposed_solve_arrays(cupy, a, cupy.asarray(g)[..., None, None] * cupy.eye(n, dtype=a.dtype), perturb)


@register_kernel("_trilinear", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_trilinear")
def trilinear(i1: Any, i2: Any, i3: Any, expand1: Any, expand2: Any, expand3: Any, sumdim: Any,
              unroll_dim: int = 1) -> Any:
    """``bilinear``'s product: one ``cupy.einsum`` (pairwise contractions on cuBLAS), as the CPU's."""
    return trilinear_arrays(cupy, i1, i2, i3, expand1, expand2, expand3, sumdim)


# -- the factorizations (ops/factorization.py): cuSOLVER through cupy.linalg, no read back ---------------------


def _cholesky(a: Any, upper: bool = False) -> tuple[Any, Any]:
    """cuSOLVER's ``potrf`` (batched) through ``cupy.linalg.cholesky``, ``info`` computed on the device from the
    factor (``cholesky_info``: CuPy leaves cuSOLVER's own status unread unless told to, which is a sync).
    ``linalg.cholesky`` reads ``info`` to raise, as PyTorch's does; ``cholesky_ex`` reads nothing."""
    low = cupy.zeros(a.shape, dtype=a.dtype) if not a.size else cupy.linalg.cholesky(a)
    info = cholesky_info(cupy, low)
    return column_major(cupy, cupy.swapaxes(low, -1, -2) if upper else low), info


for _op in ("linalg_cholesky_ex", "cholesky"):
    register_kernel(_op, Backend.GPU, dtypes=_LINALG_DTYPES, name=f"gpu/cusolver_{_op}")(_cholesky)


@register_kernel("cholesky_inverse", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_cholesky_inverse")
def cholesky_inverse(a: Any, upper: bool = False) -> Any:
    """The factor's triangle inverted (``cupy.linalg.solve``) and multiplied by its transpose on cuBLAS
    (``cholesky_inverse_arrays``, the CPU's body); nothing read back."""
    return cholesky_inverse_arrays(cupy, a, upper)


@register_kernel("linalg_slogdet", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_linalg_slogdet")
def slogdet(a: Any) -> tuple[Any, Any]:
    """cuSOLVER's LU of ``A`` (batched, ``_lu_of_a``) through ``cupy.linalg.slogdet``: sign 0 and ``-inf`` for a
    singular matrix; sign 0 and NaN for one holding NaN, as PyTorch's (the sign of a NaN pivot is 0)."""
    if not a.size:
        shape = a.shape[:-2]
        fill = 1 if a.shape[-1] == 0 else 0
        return cupy.full(shape, fill, dtype=a.dtype), cupy.zeros(shape, dtype=a.dtype)
    sign, logabsdet = cupy.linalg.slogdet(_lu_of_a(a))
    logabsdet = _nan_det(a, logabsdet.astype(a.dtype, copy=False))
    sign = cupy.where(cupy.isnan(logabsdet), sign.dtype.type(0), sign)
    return _own(sign.astype(a.dtype, copy=False)), _own(logabsdet)


def _own(x: Any) -> Any:
    """``x`` row-major (not ``ascontiguousarray``, which turns a 0-d array into shape (1,))."""
    return x if x.flags.c_contiguous else x.copy()


@register_kernel("linalg_qr", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_linalg_qr")
def qr(a: Any, mode: str = "reduced") -> tuple[Any, Any]:
    """cuSOLVER's ``geqrf``/``orgqr`` through ``cupy.linalg.qr`` (the CPU kernel's body, ``qr_arrays``)."""
    return qr_arrays(cupy, a, mode)


@register_kernel("linalg_eigh", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_linalg_eigh")
def eigh(a: Any, UPLO: str = "L") -> tuple[Any, Any]:
    """cuSOLVER's symmetric eigensolver through ``cupy.linalg.eigh`` (``eigh_arrays``)."""
    return eigh_arrays(cupy, a, UPLO)


@register_kernel("linalg_svd", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_linalg_svd")
def svd(a: Any, full_matrices: bool = True) -> tuple[Any, Any, Any]:
    """cuSOLVER's SVD through ``cupy.linalg.svd`` (``svd_arrays``). A matrix holding NaN or an infinity gives
    NaN, without the error the CPU's raises: PyTorch's CUDA check of it is a read, which this kernel does
    not make."""
    return svd_arrays(cupy, a, full_matrices)


@register_kernel("linalg_pinv", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_linalg_pinv")
def pinv(a: Any, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    """cuSOLVER's SVD (``hermitian``: eigendecomposition) and cuBLAS products (``pinv_arrays``, the CPU's body:
    ``cupy.linalg.pinv`` knows only a relative tolerance)."""
    return pinv_arrays(cupy, a, atol, rtol, hermitian)


@register_kernel("linalg_lstsq", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cusolver_linalg_lstsq")
def lstsq(a: Any, b: Any, rcond: Any = None, driver: Any = None) -> tuple[Any, Any, Any, Any]:
    """The pseudo-inverse's solution (``lstsq_arrays``), with the results of PyTorch's one CUDA driver, ``gels``:
    the residuals for ``m > n``, no rank or singular values, nothing read back."""
    if driver not in (None, "gels"):
        raise RuntimeError("torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA")
    return lstsq_arrays(cupy, a, b, rcond, "gels")


@register_kernel("linalg_matrix_exp", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_linalg_matrix_exp")
def matrix_exp(a: Any) -> Any:
    """Taylor's polynomial and the squarings as cuBLAS products (``cupy.matmul``: ``matrix_exp_arrays``, the
    CPU's body); the number of squarings, the largest over the batch, is read back (one read, as PyTorch's
    CUDA ``mexp`` reads its norms). A half is computed in float32."""
    if a.dtype.itemsize < 4:
        return matrix_exp_arrays(cupy, a.astype(cupy.float32)).astype(a.dtype)
    return matrix_exp_arrays(cupy, a)


@register_kernel("linalg_solve_triangular", Backend.GPU, dtypes=_LINALG_DTYPES,
                 name="gpu/cusolver_linalg_solve_triangular")
def solve_triangular(a: Any, b: Any, upper: bool, left: bool = True, unitriangular: bool = False) -> Any:
    """The triangle solved with ``cupy.linalg.solve`` (``solve_triangular_arrays``): no read back - a zero on the
    diagonal gives infinities or NaN, as PyTorch's, which raises nothing either."""
    return solve_triangular_arrays(cupy, a, b, upper, left, unitriangular)


# -- Householder reflectors and the solves from a factor (ops/householder.py, ops/inverse.py, ops/lu.py) -----------
# The CPU kernels' bodies (kernels/linalg_arrays.py) on CuPy: products and elementwise kernels, nothing read back.


@register_kernel("geqrf", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_geqrf")
def geqrf(a: Any) -> tuple[Any, Any]:
    """LAPACK's ``geqrf`` column by column on the device (``geqrf_arrays``: its ``larfg`` reflectors)."""
    if not a.size:
        return a.copy(), cupy.zeros(a.shape[:-2] + (min(a.shape[-2:]),), dtype=a.dtype)
    return geqrf_arrays(cupy, a)


@register_kernel("linalg_householder_product", Backend.GPU, dtypes=_LINALG_DTYPES,
                 name="gpu/cupy_linalg_householder_product")
def householder_product(a: Any, tau: Any) -> Any:
    """One rank-1 update per reflector (``householder_product_arrays``)."""
    return householder_product_arrays(cupy, a, tau)


@register_kernel("ormqr", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_ormqr")
def ormqr(a: Any, tau: Any, c: Any, left: bool = True, transpose: bool = False) -> Any:
    return column_major(cupy, apply_reflectors_arrays(cupy, a, tau, c, left, transpose))


@register_kernel("triangular_solve", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_triangular_solve")
def triangular_solve(b: Any, a: Any, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> tuple[Any, Any]:
    tri = cupy.swapaxes(a, -1, -2) if transpose else a
    x = solve_triangular_arrays(cupy, tri, b, upper != transpose, True, unitriangular)
    return x, column_major(cupy, cupy.broadcast_to(a, x.shape[:-2] + a.shape[-2:]))


@register_kernel("cholesky_solve", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_cholesky_solve")
def cholesky_solve(b: Any, factor: Any, upper: bool = False) -> Any:
    ft = cupy.swapaxes(factor, -1, -2)
    first, second = (ft, factor) if upper else (factor, ft)
    return solve_triangular_arrays(cupy, second, solve_triangular_arrays(cupy, first, b, False), True)


@register_kernel("linalg_lu_solve", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_linalg_lu_solve")
def lu_solve(lu: Any, pivots: Any, b: Any, left: bool = True, adjoint: bool = False) -> Any:
    """The pivots' swaps by ``where`` and two triangular solves (``lu_solve_arrays``)."""
    return lu_solve_arrays(cupy, lu, pivots, b, left, adjoint)


@register_kernel("lu_unpack", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_lu_unpack")
def lu_unpack(lu: Any) -> tuple[Any, Any]:
    return lu_unpack_arrays(cupy, lu)


@register_kernel("lu_permutation", Backend.GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_lu_permutation")
def lu_permutation(lu: Any, pivots: Any) -> Any:
    m = lu.shape[-2]
    p = permutation_matrix(cupy, pivots, m, lu.dtype)
    return cupy.ascontiguousarray(cupy.broadcast_to(p, tuple(np.broadcast_shapes(lu.shape[:-2], p.shape[:-2])) + (m, m)))


@register_kernel("linalg_lu_factor_ex", Backend.GPU, dtypes=_LINALG_DTYPES, name="gpu/cupy_linalg_lu_factor_ex")
def lu_factor(a: Any, pivot: bool = True) -> tuple[Any, Any, Any]:
    """``getrf`` column by column on the device (``lu_factor_arrays``): the pivots chosen and swapped by
    ``argmax`` and ``where``, ``info`` computed there too; nothing read back."""
    return lu_factor_arrays(cupy, a)
