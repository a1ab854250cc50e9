"""``minigrad.linalg``: PyTorch's ``torch.linalg`` names (norms, ``inv``, ``solve``, ``det``, ``matrix_power``,
``cross``, and the factorizations: ``cholesky``, ``cholesky_ex``, ``slogdet``, ``qr``, ``eigh``, ``eigvalsh``, ``svd``,
``svdvals``, ``pinv``, ``lstsq``; ``solve_triangular``, ``matrix_exp``).

The ops live with their families under ``minigrad/ops/`` (``ops/norm.py``, ``ops/inverse.py``,
``ops/factorization.py``);
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
from .ops.factorization import linalg_svd as svd
from .ops.factorization import linalg_svdvals as svdvals
from .ops.inverse import det, inv, matrix_power, solve
from .ops.norm import linalg_norm as norm
from .ops.norm import matrix_norm, vector_norm
from .tensor import Tensor

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "solve", "det", "matrix_power", "cross", "cholesky",
           "cholesky_ex", "slogdet", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv",
           "lstsq", "matrix_exp", "solve_triangular"]


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``torch.linalg.cross``: the cross product along ``dim`` (the last by default)."""
    return _cross(input, other, dim)
