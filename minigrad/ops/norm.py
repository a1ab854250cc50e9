"""Norms: ``vector_norm`` and ``norm`` (ops: PyTorch's ``linalg_vector_norm``, and its ``at::norm``, which
its C++ composites call), and the composites ``matrix_norm``, ``linalg_norm`` and ``norm``.

``vector_norm(x, ord, dim)`` is ``(sum |x|^ord)^(1/ord)`` over ``dim`` (all
elements when ``None``); ``ord = inf / -inf`` is the largest / smallest
``|x|``, ``ord = 0`` counts the non-zero elements. Its backward formula,
for a finite ``ord >= 1`` or ``0 < ord < 1``::

    d ||x|| / d x_i = sign(x_i) |x_i|^(ord-1) / ||x||^(ord-1)

taken as 0 where ``||x|| = 0`` (PyTorch's subgradient: the gradient of
``x.norm()`` at ``x = 0`` is 0, not NaN) and, for ``ord < 1``, where
``x_i = 0``. For ``ord = +-inf`` the gradient is ``sign(x_i)`` shared among
the elements that attain the extreme (as ``max``'s); for ``ord = 0`` it is 0.

``matrix_norm`` (``'fro'``, ``inf``, ``-inf``, ``1``, ``-1``) is made of
``vector_norm``, ``abs``, ``sum`` and ``amax``/``amin``; ``'nuc'`` and
``2``/``-2`` of ``svdvals`` (``ops/factorization.py``) and ``sum``/``amax``/``amin``.

Example:
    >>> import minigrad as mg
    >>> mg.linalg.vector_norm(mg.tensor([3.0, 4.0])).item()
    5.0
    >>> mg.tensor([[1.0, -2.0], [3.0, 4.0]]).norm(p=1).item()
    10.0
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.array_kernels import renorm_arrays, vector_norm_arrays
from ..kernels.registry import in_dtype, register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_dims, check_int, check_opt_dtype, check_tensor, wrap_dim
from .factorization import linalg_svdvals
from .math import abs as _abs
from .math import cast
from .reduce import amax as _amax
from .reduce import amin as _amin
from .reduce import sum as _sum
from .reduce import to_input_dtype
from .registry import Attr, defop, type_name
from .shape import permute, squeeze, unsqueeze
from ..dispatch.amp import autocast_as

__all__ = ["norm", "nuclear_norm"]  # vector_norm, matrix_norm and linalg.norm are reached as mg.linalg.* (minigrad/linalg.py)

_INF = math.inf


def _check_ord(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type_name(v)}")
    return float(v)


def _check_norm_dtype(op: str, given: Any, dtype: Any) -> None:
    """A norm's ``dtype=``: floating, and one the input's dtype widens to (PyTorch's checks, in its words)."""
    if not dtype.is_floating:
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got {im.scalar_type_name(dtype.np)}")
    if _dt.promote(given, dtype) is not dtype:
        raise RuntimeError(f"{op}: the dtype of the input ({im.scalar_type_name(given.np)}) should be convertible "
                           f"without narrowing to the specified dtype ({im.scalar_type_name(dtype.np)})")


def infer_vector_norm(op: str, x: Any, ord: float = 2.0, dim: Any = None, keepdim: bool = False,
                      dtype: Any = None) -> Any:
    """InferMeta: the reduced shape; floating inputs only; an empty reduction only for ``0 <= ord < inf`` (no identity
    otherwise); the input's dtype, or ``dtype`` (a floating one) where given."""
    if not _dt.is_floating_np(x.dtype):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{im.scalar_type_name(x.dtype)}")
    if dtype is not None:
        _check_norm_dtype("linalg.vector_norm", _dt.from_numpy(x.dtype), dtype)
    dims = im.reduced_dims(op, dim, x.ndim)
    if (ord < 0 or ord == _INF) and (x.size == 0 and (not dims or any(x.shape[d] == 0 for d in dims))):
        shown = "inf" if ord == _INF else ("-inf" if ord == -_INF else f"{ord:g}")
        raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because the "
                           f"operation does not have an identity")
    if keepdim:
        shape = tuple(1 if i in dims else s for i, s in enumerate(x.shape))
    else:
        shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    return shape, x.dtype if dtype is None else dtype.np


# Registered for every dtype so that an integer input reaches InferMeta, which refuses it in PyTorch's words.
@register_kernel("vector_norm", Backend.CPU, dtypes=ALL_DTYPES)
def vector_norm_cpu(x: np.ndarray, ord: float = 2.0, dim: Any = None, keepdim: bool = False,
                    dtype: Any = None) -> np.ndarray:
    if dtype is not None and dtype.np != x.dtype:  # ``dtype=``: that dtype's kernel on x cast to it
        return in_dtype("vector_norm", Backend.CPU, x, dtype, ord, dim, keepdim)
    return vector_norm_arrays(np, x, ord, dim, keepdim)  # (the GPU's kernel runs the same body on CuPy)


vector_norm_op = defop(
    "vector_norm",
    inputs=("x",),
    attrs=(Attr("ord", 2.0, _check_ord), Attr("dim", None, check_dims), Attr("keepdim", False, check_bool),
           Attr("dtype", None, check_opt_dtype, keyword_only=True)),
    dtype_out=True,
    infer_meta=infer_vector_norm,
    layout="contiguous",
    save=("x", "out"),
    amp="deny",
    doc="(sum |x|^ord)^(1/ord) over dim; max |x| for ord=inf, min for -inf, the non-zero count for 0",
)


def _spread(ops: Any, v: Any, x_shape: tuple[int, ...], dim: Any, keepdim: bool) -> Any:
    """A reduced value broadcast back to ``x``'s shape (the reduced dims re-inserted as size 1)."""
    dims = im.reduced_dims("vector_norm", dim, len(x_shape))
    if not keepdim:
        v = ops.reshape(v, tuple(1 if i in dims else s for i, s in enumerate(x_shape)))
    return ops.expand(v, tuple(x_shape))


def norm_grad(ops: Any, x: Any, grad: Any, out: Any, ord: float, dim: Any = None, keepdim: bool = False) -> Any:
    """The gradient of ``out``, the ``ord``-norm of ``x`` over ``dim``, given ``grad`` (shaped as ``out``):
    ``sign(x) |x|^(ord-1) / ||x||^(ord-1)``, 0 where ``||x|| = 0`` (and where ``x = 0``); for ``+-inf``
    shared among the elements that attain the norm; 0 for ``ord = 0``. PyTorch's
    ``linalg_vector_norm_backward``, which its ``norm_backward`` (``norm``, ``dist``) is too."""
    shape = tuple(x.shape)
    g = _spread(ops, grad, shape, dim, keepdim)
    zero = ops.mul(ops.fill(x, 0.0), 1.0)
    if ord == 0:
        return zero
    sign = ops.sign(x)
    if ord in (_INF, -_INF):
        hit = ops.cast(ops.eq(ops.abs(x), _spread(ops, out, shape, dim, keepdim)), x.dtype)
        count = _spread(ops, ops.sum(hit, dim, keepdim), shape, dim, keepdim)
        return ops.div(ops.mul(ops.mul(g, sign), hit), count)
    if ord == 1:
        return ops.mul(g, sign)
    n = _spread(ops, out, shape, dim, keepdim)
    n_zero = ops.eq(n, 0.0)
    n_safe = ops.where(n_zero, ops.fill(x, 1.0), n)
    if ord == 2:
        scaled = ops.div(x, n_safe)
    else:
        ax = ops.abs(x)
        ratio = ops.div(ax, n_safe)  # (|x| / ||x||)^(ord-1), kept finite where x = 0
        scaled = ops.mul(sign, ops.pow(ops.where(ops.eq(ax, 0.0), ops.fill(x, 1.0), ratio), ord - 1.0))
        scaled = ops.where(ops.eq(ax, 0.0), zero, scaled)
    return ops.where(n_zero, zero, ops.mul(g, scaled))


@vector_norm_op.def_backward
def vector_norm_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``norm_grad`` of the call's ``ord`` (with ``dtype=``, the input read in the result's dtype, and the gradient
    cast back to the input's)."""
    x, out = ctx.saved()
    if x.dtype != out.dtype:
        x = ctx.ops.cast(x, out.dtype)
    g = norm_grad(ctx.ops, x, grad, out, ctx.attrs["ord"], ctx.attrs["dim"], ctx.attrs["keepdim"])
    return (to_input_dtype(ctx, g),)


# -- at::norm(x, p, dim, keepdim): the norm PyTorch's C++ composites call (pairwise_distance) ---------------


@register_kernel("norm", Backend.CPU, dtypes=FLOAT_DTYPES)
def norm_cpu(x: np.ndarray, p: float = 2.0, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    return vector_norm_arrays(np, x, p, dim, keepdim)


def _infer_norm(op: str, x: Any, p: float = 2.0, dim: Any = None, keepdim: bool = False) -> Any:
    """InferMeta of ``norm``: ``vector_norm``'s, of ``p``."""
    return infer_vector_norm(op, x, p, dim, keepdim)


_norm_op = defop(
    "norm",
    inputs=("x",),
    attrs=(Attr("p", 2.0, _check_ord), Attr("dim", None, check_dims), Attr("keepdim", False, check_bool)),
    infer_meta=_infer_norm,
    layout="contiguous",
    save=("x", "out"),
    amp="deny",
    doc="PyTorch's at::norm(x, p, dim, keepdim), which its C++ composites call (pairwise_distance): vector_norm's "
        "values and gradient, NormBackward0 / NormBackward1 (torch.norm and x.norm() are linalg.vector_norm's)",
)


@_norm_op.def_backward
def norm_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``norm_grad`` of the call's ``p`` (PyTorch's ``norm_backward``)."""
    x, out = ctx.saved()
    return (norm_grad(ctx.ops, x, grad, out, ctx.attrs["p"], ctx.attrs["dim"], ctx.attrs["keepdim"]),)


# -- PyTorch's signatures (``torch.linalg.vector_norm``, ``matrix_norm``, ``norm``; ``torch.norm``) --------


def _cast(x: Tensor, dtype: Any) -> Tensor:
    return x if dtype is None or dtype is x.dtype else cast(x, dtype)


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``torch.linalg.vector_norm``: the ``ord``-norm over ``dim`` (all elements when ``None``).

    Example:
        >>> import minigrad as mg
        >>> mg.linalg.vector_norm(mg.tensor([[3.0, 4.0], [0.0, 1.0]]), dim=1).tolist()
        [5.0, 1.0]
    """
    check_tensor("linalg.vector_norm", "input", 0, x)
    return vector_norm_op(x, _check_ord("linalg.vector_norm", "ord", 1, ord), dim, keepdim, dtype=dtype)


@autocast_as("linalg_matrix_norm")
def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``torch.linalg.matrix_norm`` for ``ord`` in ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, ``1``, ``-1``, ``2``, ``-2``
    (composite).

    ``inf``: the largest sum of ``|a|`` over a row; ``1``: over a column; ``-inf``/``-1``: the smallest.
    """
    check_tensor("linalg.matrix_norm", "input", 0, A)
    if not A.dtype.is_floating:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{im.scalar_type_name(A.dtype.np)}")
    if dtype is not None:
        _check_norm_dtype("linalg.matrix_norm", A.dtype, dtype)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions, but got shape {tuple(A.shape)}")
    dims = check_dims("linalg.matrix_norm", "dim", 2, dim)
    if not isinstance(dims, tuple) or len(dims) != 2:
        shown = " ".join(map(str, dims)) if isinstance(dims, tuple) else dims
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    r, c = (d % A.ndim for d in dims)
    if r == c:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    if ord == "fro":  # one node, the input read in ``dtype``, as PyTorch's
        return vector_norm_op(A, 2.0, (r, c), keepdim, dtype=dtype)
    A = _cast(A, dtype)
    if ord == "nuc" or ord in (2, -2):
        return _singular_value_norm(A, ord, (r, c), keepdim)
    if ord not in (_INF, -_INF, 1, -1):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # inf: sum over the columns of each row, then the extreme over the rows; 1: the other way round.
    summed, over = (c, r) if ord in (_INF, -_INF) else (r, c)
    rows = _sum(_abs(A), dim=summed, keepdim=True)
    pick = _amax if ord > 0 else _amin
    out = pick(rows, dim=over, keepdim=True)
    return out if keepdim else squeeze(out, (r, c))


@autocast_as("nuclear_norm")
def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """``torch.nuclear_norm`` (deprecated in PyTorch for ``linalg.matrix_norm(A, 'nuc')``): the sum of the singular
    values over ``dim`` (the last two by default); ``nuclear_norm(A, True)`` is ``keepdim``. Composite, as
    PyTorch's: ``matrix_norm``'s ``svdvals`` and sum (``SumBackward1``).

    Example:
        >>> import minigrad as mg
        >>> mg.nuclear_norm(mg.tensor([[3.0, 0.0], [0.0, -4.0]])).item()
        7.0
    """
    check_tensor("nuclear_norm", "input", 0, input)
    if isinstance(dim, bool):  # the overload nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not input.dtype.is_floating:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{im.scalar_type_name(input.dtype)}")
    if input.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{im.scalar_type_name(input.dtype)}")
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, check_bool("nuclear_norm", "keepdim", 2, keepdim))


def _singular_value_norm(A: Tensor, ord: Any, dims: tuple[int, int], keepdim: bool) -> Tensor:
    """The nuclear norm (the sum of the singular values), ``ord=2`` (the largest) or ``-2`` (the smallest) over the
    matrices of dims ``dims``. PyTorch's composite: the two dims moved to the end (``permute``), ``svdvals``,
    then ``sum``/``amax``/``amin`` over them; ``keepdim`` puts the two dims back as size 1 (``unsqueeze``,
    ``permute``)."""
    order = [d for d in range(A.ndim) if d not in dims] + list(dims)
    values = linalg_svdvals(permute(A, order))
    if ord == "nuc":
        out = _sum(values, dim=-1, keepdim=keepdim)
    else:
        out = (_amax if ord == 2 else _amin)(values, dim=-1, keepdim=keepdim)
    if not keepdim:
        return out
    return permute(unsqueeze(out, -1), [order.index(d) for d in range(A.ndim)])


def linalg_norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``torch.linalg.norm``: a vector norm for one dim (or a 1-D input), a matrix norm for two dims (or a
    2-D input with ``ord`` given); with ``ord=None`` the 2-norm of the flattened input (Frobenius)."""
    check_tensor("linalg.norm", "input", 0, A)
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.ndim}D.")
        dim = tuple(range(A.ndim))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: ord={ord!r} is a matrix norm; it needs two dims")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """``torch.norm``: the ``p``-norm of the elements over ``dim`` (all when ``None``); ``'fro'`` is the 2-norm.

    Example:
        >>> import minigrad as mg
        >>> mg.norm(mg.tensor([[3.0, 4.0]]), dim=1).tolist()
        [5.0]
    """
    check_tensor("norm", "input", 0, input)
    if p == "fro" or p is None:
        p = 2
    elif p == "nuc":  # PyTorch's: the nuclear matrix norm over dim (the last two dims of a 2-D input)
        return matrix_norm(input, "nuc", tuple(range(input.ndim)) if dim is None else dim, keepdim, dtype=dtype)
    elif isinstance(p, str):
        raise RuntimeError(f"norm(): p={p!r} is not supported ('fro', 'nuc' or a number)")
    if isinstance(dim, int) and not isinstance(dim, bool):
        dim = (dim,)
    return vector_norm_op(input, _check_ord("norm", "p", 1, p), dim, keepdim, dtype=dtype)


# -- renorm: each slice along a dim scaled down to a largest norm --------------------------------------------------


@register_kernel("renorm", Backend.CPU, dtypes=FLOAT_DTYPES)
def renorm_cpu(x: np.ndarray, p: float, dim: int, maxnorm: float) -> np.ndarray:
    return renorm_arrays(np, x, p, dim, maxnorm)


renorm_op = defop(
    "renorm",
    inputs=("x",),
    attrs=(Attr("p"), Attr("dim"), Attr("maxnorm")),
    infer_meta=lambda op, x, **attrs: (tuple(x.shape), x.dtype),
    save=("x",),
    doc="x with each slice along dim scaled down to p-norm maxnorm where its norm is larger (RenormBackward0)",
)


@renorm_op.def_backward
def renorm_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``renorm_backward``: where a slice was scaled, the derivative of ``x * maxnorm / (||x|| + 1e-7)``
    - the gradient scaled, less the norm's gradient (``norm_grad``) of ``sum(x * grad)`` over the slice, times
    ``maxnorm / (||x|| + 1e-7)^2``; elsewhere ``grad`` as it is."""
    (x,) = ctx.saved()
    ops, p, maxnorm = ctx.ops, ctx.attrs["p"], ctx.attrs["maxnorm"]
    dims = tuple(k for k in range(len(x.shape)) if k != ctx.attrs["dim"])
    norm = ops.vector_norm(x, p, dims, True)
    along = ops.sum(ops.mul(x, grad), dims, True)
    nb = norm_grad(ops, x, along, norm, p, dims, True)
    shifted = ops.add(norm, 1e-7)
    factor = ops.div(ops.fill(norm, maxnorm), shifted)
    scaled = ops.sub(ops.mul(factor, grad), ops.mul(ops.div(factor, shifted), nb))
    return (ops.where(ops.gt(norm, maxnorm), scaled, grad),)


def renorm(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """``input`` with each slice along ``dim`` (``input.select(dim, i)``) whose ``p``-norm exceeds ``maxnorm``
    scaled down to norm ``maxnorm`` (``torch.renorm``; the scale is ``maxnorm / (norm + 1e-7)``). One op,
    ``RenormBackward0``.

    Example:
        >>> import minigrad as mg
        >>> mg.renorm(mg.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0).tolist()
        [[0.6000000238418579, 0.800000011920929], [0.30000001192092896, 0.4000000059604645]]
    """
    check_tensor("renorm", "input", 0, input)
    p = _check_ord("renorm", "p", 1, p)
    maxnorm = _check_ord("renorm", "maxnorm", 3, maxnorm)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = wrap_dim("renorm", check_int("renorm", "dim", 2, dim), input.ndim)
    if not input.dtype.is_floating:  # (refused by the norm PyTorch's kernel takes first)
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{im.scalar_type_name(input.dtype)}")
    return renorm_op(input, p, d, maxnorm)


__all__ += ["renorm"]


@autocast_as("frobenius_norm")
def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """The 2-norm over at most two dims (``torch.frobenius_norm``, deprecated in PyTorch - kept for TorchScript -,
    whose warning it gives once): PyTorch's ``at::norm(input, 2, dim, keepdim)``, the ``norm`` op
    (``NormBackward1``)."""
    if not _FROBENIUS_WARNED[0]:
        _FROBENIUS_WARNED[0] = True
        warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed "
                      "in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                      UserWarning, stacklevel=2)
    check_tensor("frobenius_norm", "input", 0, input)
    dims = check_dims("frobenius_norm", "dim", 1, dim)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    if not input.dtype.is_floating:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{im.scalar_type_name(input.dtype)} instead.")
    dims = dims or tuple(range(input.ndim))  # no dim given: all of them, as at::norm reads an empty list
    return _norm_op(input, 2.0, dims, check_bool("frobenius_norm", "keepdim", 2, keepdim))


_FROBENIUS_WARNED = [False]  # PyTorch warns once per process (TORCH_WARN_ONCE)

__all__ += ["frobenius_norm"]
