"""``torch.linalg``'s composite functions: ``multi_dot``, ``vecdot``, ``cond``, ``inv_ex``, ``solve_ex``,
``tensorinv``, ``tensorsolve``, ``diagonal`` and ``vander``, each built from ops as PyTorch builds it, so the graph
is PyTorch's (``vecdot``: ``SumBackward1`` over ``MulBackward0``; ``cond``: ``SqueezeBackward1`` over a division
of singular values, or ``NanToNumBackward0`` over the product of two matrix norms; ``inv_ex``:
``LinalgInvExBackward0``, the ``inv`` op's node).

``inv_ex`` and ``solve_ex`` return LAPACK's ``info`` beside the result: 0 for each matrix that was
inverted, else the 1-based position of the first zero pivot of its LU factorization. Where PyTorch returns
LAPACK's partial results for a singular matrix (``inf`` and NaN), minigrad returns NaN for that matrix.

Example:
    >>> import minigrad as mg
    >>> mg.linalg.vecdot(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])).item()
    11.0
    >>> mg.linalg.multi_dot([mg.tensor([1.0, 1.0]), mg.eye(2), mg.tensor([2.0, 3.0])]).item()
    5.0
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import dtypes as _dt
from ..creation import as_tensor, eye
from ..errors import LinAlgError
from ..kernels.array_kernels import first_zero_pivots, singular_error
from ..tensor import Tensor
from ._checks import check_tensor
from . import _return_types as return_types
from .blas import _chain_order, mm
from .cumulative import cumprod
from .inverse import inv_op, solve_op
from .math import where
from .norm import matrix_norm
from .factorization import linalg_svdvals
from .shape import concat
from ..dispatch.amp import autocast_as

__all__: list[str] = []  # torch.linalg only: minigrad/linalg.py names them

#: PyTorch's lower-case names of the dtypes in multi_dot's message
_TYPE_WORDS = {"float64": "double", "float32": "float", "float16": "half", "bfloat16": "bfloat16", "int64": "long",
               "int32": "int", "int16": "short", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


# -- multi_dot ----------------------------------------------------------------------------------------------------

def _check_chain(tensors: Sequence[Tensor]) -> None:
    """PyTorch's checks of ``multi_dot``'s operands, in its order and words."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for k, t in enumerate(tensors):
        check_tensor("linalg.multi_dot", "tensors", 0, t)
        if k in (0, n - 1) and t.ndim not in (1, 2):
            which = "first" if k == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.ndim}D")
        if 0 < k < n - 1 and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {k} must be 2D but got {t.ndim}D")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_TYPE_WORDS[tensors[0].dtype.name]} and tensor {k} {_TYPE_WORDS[t.dtype.name]}")


@autocast_as("linalg_multi_dot")
def multi_dot(tensors: Sequence[Tensor], *, out: Any = None) -> Tensor:
    """``torch.linalg.multi_dot``: the product of the chain of matrices ``tensors`` (the first may be a row
    vector, the last a column vector) in the order of fewest multiplications - PyTorch's dynamic programme and
    its closed form for three -, then a ``view`` to the result's shape (``ViewBackward0`` over ``MmBackward0``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.multi_dot([mg.eye(2), mg.tensor([[1.0, 2.0], [3.0, 4.0]])]).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    if out is not None:
        raise NotImplementedError("linalg.multi_dot: out= is not supported")
    tensors = list(tensors)
    _check_chain(tensors)
    first, last = tensors[0], tensors[-1]
    shape = ([first.shape[0]] if first.ndim == 2 else []) + ([last.shape[1]] if last.ndim == 2 else [])
    matrices = [first.unsqueeze(0) if first.ndim == 1 else first] + tensors[1:-1]
    matrices.append(last.unsqueeze(-1) if last.ndim == 1 else last)
    for k in range(len(matrices) - 1):
        if matrices[k].shape[1] != matrices[k + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {k} and {k + 1} with shapes {list(matrices[k].shape)} and "
                               f"{list(matrices[k + 1].shape)} cannot be multiplied")
    return _chain_product(matrices).view(shape)


def _chain_product(matrices: list[Tensor]) -> Tensor:
    """The ``mm``s of PyTorch's ``multi_dot``: one for two, the cheaper association for three, the split of
    ``_chain_order`` (``ops/blas.py``) for more."""
    if len(matrices) == 2:
        return mm(*matrices)
    if len(matrices) == 3:
        (a, b), (c, d) = matrices[0].shape, matrices[2].shape
        first, second, third = matrices
        return mm(first, mm(second, third)) if a * c * (b + d) > b * d * (a + c) else mm(mm(first, second), third)
    split = _chain_order([m.shape[0] for m in matrices] + [matrices[-1].shape[1]])

    def product(i: int, j: int) -> Tensor:
        return matrices[i] if i == j else mm(product(i, split[i][j]), product(split[i][j] + 1, j))

    return product(0, len(matrices) - 1)


# -- vecdot, diagonal, vander -------------------------------------------------------------------------------------

@autocast_as("linalg_vecdot")
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Any = None) -> Tensor:
    """``torch.linalg.vecdot``: ``sum(x * y, dim)`` over broadcast operands of one floating dtype (``SumBackward1``
    over ``MulBackward0``; complex conjugation has nothing to do for real tensors).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.vecdot(mg.ones(2, 3), mg.ones(3), dim=-1).tolist()
        [3.0, 3.0]
    """
    if out is not None:
        raise NotImplementedError("linalg.vecdot: out= is not supported")
    check_tensor("linalg.vecdot", "x", 0, x)
    check_tensor("linalg.vecdot", "y", 1, y)
    if not x.dtype.is_floating:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{_TYPE_WORDS[x.dtype.name].title()}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_TYPE_WORDS[x.dtype.name].title()} and y of type {_TYPE_WORDS[y.dtype.name].title()} "
                           f"instead")
    return (x * y).sum(dim)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.linalg.diagonal``: ``torch.diagonal`` with the last two dims as its defaults (``DiagonalBackward0``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.diagonal(mg.eye(3)).tolist()
        [1.0, 1.0, 1.0]
    """
    check_tensor("linalg.diagonal", "A", 0, A)
    return A.diagonal(offset, dim1, dim2)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """``torch.linalg.vander``: the powers ``0 .. N - 1`` of each element of ``x`` along a new last dim
    (``N`` defaults to ``x``'s last size), built as PyTorch builds it: the running product (``cumprod``) of ``x``
    expanded ``N - 1`` times, after a column of ones (``CatBackward0`` over ``CumprodBackward0``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.vander(mg.tensor([2, 3])).tolist()
        [[1, 2], [1, 3]]
    """
    check_tensor("linalg.vander", "x", 0, x)
    if x.dtype in (_dt.bool_, _dt.float16, _dt.bfloat16):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{_TYPE_WORDS[x.dtype.name].title() if x.dtype != _dt.bfloat16 else 'BFloat16'}")
    x_ = x.unsqueeze(-1) if x.ndim == 0 else x
    n = x_.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(x_.unsqueeze(-1).expand(*x_.shape, n - 1), -1)
    return concat([powers.new_ones((*x_.shape, 1)), powers], -1)


# -- inv_ex, solve_ex ---------------------------------------------------------------------------------------------

def _square_check(op: str, A: Tensor) -> None:
    """PyTorch's ``squareCheckInputs`` in its words."""
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _info(A: Tensor) -> np.ndarray:
    """LAPACK's ``info`` of each matrix of ``A``: 0 where NumPy inverts it, the first zero pivot where not."""
    data = A.detach().cpu().numpy()
    try:
        np.linalg.inv(data.astype(np.float64) if data.size == 0 else data)
        return np.zeros(A.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        return first_zero_pivots(data)


def _identity_where_singular(info: np.ndarray, A: Tensor) -> tuple[Tensor, Tensor]:
    """``A`` with its singular matrices (``info > 0``) replaced by the identity, for the op to run, and the mask
    (of ``A``'s batch shape) that picks them."""
    mask = as_tensor(info > 0, device=A.device)
    return where(mask[..., None, None], eye(A.shape[-1], dtype=A.dtype, device=A.device), A), mask


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """``torch.linalg.inv_ex``: ``(inverse, info)``, the ``inv`` op's result (``LinalgInvExBackward0``) and
    LAPACK's ``info`` (int32, one per matrix); a singular matrix gives NaN and its first zero pivot, or with
    ``check_errors`` raises ``LinAlgError``.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.inv_ex(mg.zeros(2, 2)).info.item()
        1
    """
    if out is not None:
        raise NotImplementedError("linalg.inv_ex: out= is not supported")
    check_tensor("linalg.inv_ex", "A", 0, A)
    _square_check("linalg.inv", A)
    info = _info(A)
    if check_errors and info.any():
        raise singular_error("linalg.inv_ex", A.detach().cpu().numpy())
    if not info.any():
        return return_types.linalg_inv_ex(inv_op(A), as_tensor(info, device=A.device))
    safe, mask = _identity_where_singular(info, A)
    inverse = where(mask[..., None, None], math.nan, inv_op(safe))
    return return_types.linalg_inv_ex(inverse, as_tensor(info, device=A.device))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """``torch.linalg.solve_ex``: ``(result, info)``, the ``solve`` op's result (``LinalgSolveExBackward0``) and
    LAPACK's ``info`` of each matrix of ``A``; a singular matrix gives NaN, or with ``check_errors`` raises
    ``LinAlgError`` (``left=False`` is refused, as ``linalg.solve``'s).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.solve_ex(2 * mg.eye(2), mg.ones(2)).result.tolist()
        [0.5, 0.5]
    """
    if out is not None:
        raise NotImplementedError("linalg.solve_ex: out= is not supported")
    check_tensor("linalg.solve_ex", "A", 0, A)
    check_tensor("linalg.solve_ex", "B", 1, B)
    if left is not True:
        raise NotImplementedError("linalg.solve_ex: left=False is not supported; solve A^T X^T = B^T instead")
    _square_check("linalg.solve", A)
    info = _info(A)
    if check_errors and info.any():
        raise singular_error("linalg.solve_ex", A.detach().cpu().numpy())
    if not info.any():
        return return_types.linalg_solve_ex(solve_op(A, B), as_tensor(info, device=A.device))
    safe, mask = _identity_where_singular(info, A)
    result = solve_op(safe, B)
    vector = result.ndim == A.ndim - 1
    picked = mask[..., None] if vector else mask[..., None, None]
    return return_types.linalg_solve_ex(where(picked, math.nan, result), as_tensor(info, device=A.device))


# -- tensorinv, tensorsolve ---------------------------------------------------------------------------------------

@autocast_as("linalg_tensorinv")
def tensorinv(A: Tensor, ind: int = 2, *, out: Any = None) -> Tensor:
    """``torch.linalg.tensorinv``: the inverse of ``A`` read as a matrix of its first ``ind`` dims by the rest,
    shaped back as ``A.shape[ind:] + A.shape[:ind]`` (``ReshapeAliasBackward0`` over ``LinalgInvExBackward0``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.tensorinv(mg.eye(4).reshape(4, 2, 2), ind=1).shape
        minigrad.Size([2, 2, 4])
    """
    if out is not None:
        raise NotImplementedError("linalg.tensorinv: out= is not supported")
    check_tensor("linalg.tensorinv", "A", 0, A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    try:
        inverse = inv_op(A.reshape(rows, cols))
    except LinAlgError as e:  # PyTorch's tensorinv calls at::inverse: its message names inv
        raise LinAlgError(str(e).replace("linalg.inv:", "inv:", 1)) from None
    return inverse.reshape(*A.shape[ind:], *A.shape[:ind])


@autocast_as("linalg_tensorsolve")
def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None, *, out: Any = None) -> Tensor:
    """``torch.linalg.tensorsolve``: the ``X`` with ``tensordot(A, X, X.ndim) = B``: ``A`` (its ``dims`` moved to
    the end first) read as a ``B.numel()`` square matrix, ``solve``d against ``B`` flattened, the result shaped as
    ``A``'s last dims (``ViewBackward0`` over ``LinalgSolveExBackward0``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.tensorsolve(mg.eye(4).reshape(2, 2, 4), mg.ones(2, 2)).tolist()
        [1.0, 1.0, 1.0, 1.0]
    """
    if out is not None:
        raise NotImplementedError("linalg.tensorsolve: out= is not supported")
    check_tensor("linalg.tensorsolve", "A", 0, A)
    check_tensor("linalg.tensorsolve", "B", 1, B)
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)
    rows, cols = math.prod(A.shape[:B.ndim]), math.prod(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve_op(A.reshape(rows, cols), B.reshape(-1)).view(list(A.shape[B.ndim:]))


# -- cond ---------------------------------------------------------------------------------------------------------

_COND_NORMS = (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


@autocast_as("linalg_cond")
def cond(A: Tensor, p: Any = None, *, out: Any = None) -> Tensor:
    """``torch.linalg.cond``: the condition number of each matrix in the norm ``p``. For ``p`` None or +-2 the
    ratio of the extreme singular values (``SqueezeBackward1`` over ``DivBackward0``: any shape); for the others
    ``norm(A) * norm(inv(A))`` of square matrices, ``inf`` for a singular one (``NanToNumBackward0`` over
    ``MulBackward0``; its backward is refused, in PyTorch as here: the inverse its node saved is written over
    by a ``masked_fill_``), and for ``'nuc'`` the sum of the singular values times that of their inverses, as
    PyTorch computes them.

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.cond(mg.tensor([[2.0, 0.0], [0.0, 1.0]])).item()
        2.0
    """
    if out is not None:
        raise NotImplementedError("linalg.cond: out= is not supported")
    check_tensor("linalg.cond", "A", 0, A)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in _COND_NORMS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p:g}" if isinstance(p, (int, float))
                           else f"linalg.cond got an invalid norm type: {p}")
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        s = linalg_svdvals(A)
        big, small = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        return (small / big if p == -2 else big / small).squeeze(-1)
    words = p if isinstance(p, str) else ("inf" if p == math.inf else "-inf" if p == -math.inf else str(int(p)))
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={words}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if p == "nuc":  # the sum of the singular values times the sum of their inverses
        s = linalg_svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    inverse, info = inv_ex(A)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, math.inf)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return result.nan_to_num_(math.inf, math.inf, -math.inf)
