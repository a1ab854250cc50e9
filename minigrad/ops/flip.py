"""Reordering without arithmetic: ``flip`` (reverse dims) and ``roll`` (shift with wrap-around).

Both only move elements, so each one's backward formula is the same op run
the other way: ``flip`` is its own inverse, and ``roll`` by ``-shifts``
undoes ``roll`` by ``shifts``. ``fliplr``/``flipud`` are composites
(``flip`` of dim 1 / dim 0). ``rot90`` is an op of its own, as PyTorch's (``Rot90Backward0``): a ``flip``
and a swap of two dims, undone by the opposite rotation. The results are copies, as in PyTorch.

Example:
    >>> import minigrad as mg
    >>> mg.flip(mg.tensor([[1, 2], [3, 4]]), [1]).tolist()
    [[2, 1], [4, 3]]
    >>> mg.roll(mg.tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OutOfRangeError, ShapeError
from ..dtypes import ALL_DTYPES
from ..kernels.array_kernels import rot90_steps
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_dims, check_int, check_tensor, wrap_dim
from .registry import Attr, defop

__all__ = ["flip", "roll", "fliplr", "flipud", "rot90"]


def _axes(op: str, dims: Any, ndim: int) -> tuple[int, ...]:
    """``dims`` (an int or a sequence) as non-negative axes; a 0-d tensor takes dim 0 / -1 (and has no axis)."""
    dims = () if dims is None else ((dims,) if isinstance(dims, int) else tuple(dims))
    out = []
    for d in dims:
        axis = wrap_dim(op, d, ndim)
        if axis in out:
            raise ShapeError(f"{op}(): dim {axis} appears multiple times in the list of dims")
        out.append(axis)
    return tuple(out) if ndim else ()


# -- flip ----------------------------------------------------------------------------------------


def infer_flip(op: str, x: Any, dims: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``x``'s shape and dtype; each dim named at most once."""
    _axes(op, dims, x.ndim)
    return tuple(x.shape), x.dtype


@register_kernel("flip", Backend.CPU, dtypes=ALL_DTYPES)
def flip_cpu(x: np.ndarray, dims: Any) -> np.ndarray:
    """``np.flip`` copied into fresh storage (NumPy's result is a view with negative strides)."""
    axes = _axes("flip", dims, x.ndim)
    return np.array(np.flip(x, axis=axes), copy=True) if axes else np.array(x, copy=True)


def _check_flip_dims(op: str, name: str, pos: int, v: Any) -> Any:
    if v is None:
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, but got NoneType")
    return check_dims(op, name, pos, v)


flip = defop(
    "flip",
    inputs=("x",),
    out=False,  # PyTorch's flip takes no out=
    attrs=(Attr("dims", check=_check_flip_dims),),
    infer_meta=infer_flip,
    layout="elementwise",  # clone's layout of the input (PyTorch's empty_like), not NumPy's of the reversed view
    doc="x with the order of the elements along each of dims reversed",
)


@flip.def_backward
def flip_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """Flipping is its own inverse: flip the gradient back."""
    return (ctx.ops.flip(grad, ctx.attrs["dims"]),)


def fliplr(input: Tensor) -> Tensor:
    """Reverse the columns (dim 1) of a tensor with at least 2 dims (composite: ``flip(input, [1])``)."""
    check_tensor("fliplr", "input", 0, input)
    if input.ndim < 2:
        raise ShapeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Reverse the rows (dim 0) of a tensor with at least 1 dim (composite: ``flip(input, [0])``)."""
    check_tensor("flipud", "input", 0, input)
    if input.ndim < 1:
        raise ShapeError("Input must be >= 1-d.")
    return flip(input, (0,))


# -- roll ----------------------------------------------------------------------------------------


def _check_shifts(op: str, name: str, pos: int, v: Any) -> Any:
    v = check_dims(op, name, pos, v)
    if v is None:
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be int or tuple of ints, but got NoneType")
    return v


def _check_roll_dims(op: str, name: str, pos: int, v: Any) -> Any:
    """``check_dims``; no dims (``()``) is ``None``, a roll of the flattened tensor, as in PyTorch."""
    v = check_dims(op, name, pos, v)
    return None if v == () or v == [] else v


def infer_roll(op: str, x: Any, shifts: Any, dims: Any = None) -> tuple[tuple[int, ...], Any]:
    """InferMeta: ``x``'s shape and dtype; one shift per dim (or one shift of the flattened tensor)."""
    n_shifts = 1 if isinstance(shifts, int) else len(shifts)
    n_dims = 0 if dims is None else 1 if isinstance(dims, int) else len(dims)
    if n_shifts == 0:
        raise RuntimeError("`shifts` required")
    if n_dims == 0 and n_shifts == 1:  # one shift of the flattened tensor
        return tuple(x.shape), x.dtype
    if n_dims != n_shifts:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {n_shifts}, dims:{n_dims}")
    for d in (dims,) if isinstance(dims, int) else dims:
        if x.ndim == 0:  # PyTorch's roll names no dim of a 0-d tensor (its other ops take 0 and -1)
            raise OutOfRangeError(f"Dimension specified as {d} but tensor has no dimensions")
        wrap_dim(op, d, x.ndim)
    return tuple(x.shape), x.dtype


@register_kernel("roll", Backend.CPU, dtypes=ALL_DTYPES)
def roll_cpu(x: np.ndarray, shifts: Any, dims: Any = None) -> np.ndarray:
    if x.ndim == 0:
        return np.array(x, copy=True)
    if dims is None:  # roll the flattened tensor, keep the shape
        return np.roll(x, shifts if isinstance(shifts, int) else shifts[0])
    return np.roll(x, shifts, axis=dims)


roll = defop(
    "roll",
    inputs=("x",),
    out=False,  # PyTorch's roll takes no out=
    attrs=(Attr("shifts", check=_check_shifts), Attr("dims", None, _check_roll_dims)),
    infer_meta=infer_roll,
    layout="contiguous",
    doc="x shifted by shifts along dims, elements that fall off one end coming back at the other",
    methods=("roll",),
)


@roll.def_backward
def roll_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """Roll the gradient back by the opposite shifts."""
    shifts = ctx.attrs["shifts"]
    back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
    return (ctx.ops.roll(grad, back, ctx.attrs["dims"]),)


# -- rot90 ---------------------------------------------------------------------------------------


def infer_rot90(op: str, x: Any, k: int, dims: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta: two different dims of a tensor with at least 2; a quarter turn swaps their sizes."""
    if len(dims) != 2:
        raise RuntimeError(f"{op}(): expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"{op}(): expected total dims >= 2, but got total dims = {x.ndim}")
    d0, d1 = (wrap_dim(op, d, x.ndim) for d in dims)
    if d0 == d1:  # (the dims as given, as PyTorch words it)
        raise RuntimeError(f"{op}(): expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = "
                           f"{dims[1]}")
    shape = list(x.shape)
    if k % 2:
        shape[d0], shape[d1] = shape[d1], shape[d0]
    return tuple(shape), x.dtype


@register_kernel("rot90", Backend.CPU, dtypes=ALL_DTYPES)
def rot90_cpu(x: np.ndarray, k: int, dims: Any) -> np.ndarray:
    return rot90_steps(np, x, k, dims)


def _check_rot_dims(op: str, name: str, pos: int, v: Any) -> Any:
    v = _check_flip_dims(op, name, pos, v)
    return (v,) if isinstance(v, int) else tuple(v)


rot90_op = defop(
    "rot90",
    inputs=("x",),
    out=False,  # PyTorch's rot90 takes no out=
    attrs=(Attr("k", 1, check_int), Attr("dims", (0, 1), _check_rot_dims)),
    infer_meta=infer_rot90,
    doc="x rotated by 90 degrees k times in the plane of dims, from the first dim towards the second",
)


@rot90_op.def_backward
def rot90_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """A rotation is undone by the opposite one."""
    return (ctx.ops.rot90(grad, -ctx.attrs["k"], ctx.attrs["dims"]),)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first dim towards the second
    (``torch.rot90``): one op (``Rot90Backward0``), whose gradient is the opposite rotation.

    Example:
        >>> import minigrad as mg
        >>> mg.rot90(mg.tensor([[1, 2], [3, 4]])).tolist()
        [[2, 4], [1, 3]]
    """
    check_tensor("rot90", "input", 0, input)
    return rot90_op(input, k, dims)
