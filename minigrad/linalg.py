"""``minigrad.linalg``: PyTorch's ``torch.linalg`` names (norms, ``inv``, ``solve``, ``det``, ``matrix_power``,
``cross``, and the factorizations: ``cholesky``, ``cholesky_ex``, ``slogdet``, ``qr``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, ``pinv``, ``lstsq``; ``solve_triangular``, ``matrix_exp``; ``matmul`` and ``matrix_rank``;
``householder_product``; ``lu``, ``lu_factor``, ``lu_factor_ex`` and ``lu_solve``; ``ldl_factor``, ``ldl_factor_ex``
and ``ldl_solve``).

The ops live with their families under ``minigrad/ops/`` (``ops/norm.py``, ``ops/inverse.py``,
``ops/factorization.py``, ``ops/householder.py``, ``ops/lu.py``, ``ops/ldl.py``);
this module gives them the names ``torch.linalg`` uses.

Example:
    >>> import minigrad as mg
    >>> mg.linalg.norm(mg.tensor([3.0, 4.0])).item()
    5.0
"""

from __future__ import annotations

from typing import Any

from .ops.blas import cross as _cross
from .ops.factorization import linalg_cholesky as cholesky
from .ops.factorization import linalg_cholesky_ex as cholesky_ex
from .ops.factorization import linalg_eigh as eigh
from .ops.factorization import linalg_eigvalsh as eigvalsh
from .ops.factorization import linalg_lstsq as lstsq
from .ops.factorization import linalg_matrix_exp as matrix_exp
from .ops.factorization import linalg_pinv as pinv
from .ops.factorization import linalg_qr as qr
from .ops.factorization import linalg_slogdet as slogdet
from .ops.factorization import linalg_solve_triangular as solve_triangular
from .ops.householder import linalg_householder_product as householder_product
from .ops.ldl import linalg_ldl_factor as ldl_factor
from .ops.ldl import linalg_ldl_factor_ex as ldl_factor_ex
from .ops.ldl import linalg_ldl_solve as ldl_solve
from .ops.lu import linalg_lu as lu
from .ops.lu import linalg_lu_factor as lu_factor
from .ops.lu import linalg_lu_factor_ex as lu_factor_ex
from .ops.lu import linalg_lu_solve as lu_solve
from .ops.factorization import linalg_svd as svd
from .ops.factorization import linalg_svdvals as svdvals
from .ops.inverse import det, inv, matrix_power, solve
from .ops.norm import linalg_norm as norm
from .ops.norm import matrix_norm, vector_norm
from .ops.linalg_functions import cond, diagonal, inv_ex, multi_dot, solve_ex, tensorinv, tensorsolve, vander, vecdot
from .errors import LinAlgError
from .tensor import Tensor
from .autograd.grad_mode import no_grad as _no_grad
from .dtypes import finfo as _finfo
from .ops import matmul, maximum as _maximum

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "solve", "det", "matrix_power", "cross", "cholesky",
           "cholesky_ex", "slogdet", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv",
           "lstsq", "matrix_exp", "solve_triangular", "matmul", "matrix_rank",
           "householder_product", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "ldl_factor", "ldl_factor_ex",
           "ldl_solve"]
__all__ += ["cond", "diagonal", "inv_ex", "multi_dot", "solve_ex", "tensorinv", "tensorsolve", "vander", "vecdot",
            "LinAlgError"]  # (ops/linalg_functions.py; LinAlgError: minigrad/errors.py)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``torch.linalg.cross``: the cross product along ``dim`` (the last by default)."""
    return _cross(input, other, dim)


def matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None) -> Tensor:
    """``torch.linalg.matrix_rank``: how many singular values (eigenvalues' sizes for ``hermitian``) exceed
    ``max(atol, rtol * the largest)``, an int64 tensor over the batch dims, without gradient. Without
    ``atol`` and ``rtol``, ``rtol`` is the dtype's eps times ``max(m, n)``; a positive ``atol`` alone means
    ``rtol = 0``; the old ``tol`` is ``atol`` with ``rtol = 0``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.matrix_rank(mg.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    if tol is not None:
        atol, rtol = tol, 0.0
    m, n = A.shape[-2:]
    if rtol is None:
        rtol = 0.0 if atol is not None and float(atol) > 0 else _finfo(A.dtype).eps * max(m, n)
    with _no_grad():
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        largest = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
        limit = _maximum(rtol * largest, largest.new_full((), 0.0 if atol is None else float(atol)))
        return (S > limit).sum(-1)
