"""Padding: the ``constant_pad_nd`` op and ``torch.nn.functional.pad`` with its four modes.

``pad`` is PyTorch's tuple, **last dim first**: ``(left, right)`` pads the last
dim, ``(left, right, top, bottom)`` the last two, and so on. A negative
amount crops.

- ``constant_pad_nd`` is an op: its kernel crops and pads with ``value``; its
  backward is the same op with every amount negated (crop what was added,
  pad back with zeros what was cropped), so it is differentiable to any order.
- ``reflect``, ``replicate`` and ``circular`` are composites: each padded
  dim is gathered with an integer index array (``getitem``), e.g. reflect
  of ``[a b c d]`` by 2 on the left reads positions ``[2 1 0 1 2 3]``. The
  gradient is ``getitem``'s: a scatter-add, so an input element read twice
  (the edge under ``replicate``) gets both gradients.

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.pad(mg.tensor([1.0, 2.0, 3.0]), (2, 1), mode="constant", value=0.0).tolist()
    [0.0, 0.0, 1.0, 2.0, 3.0, 0.0]
    >>> F.pad(mg.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect").tolist()
    [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels.key import Backend
from ..kernels.array_kernels import pad_geometry
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_tensor
from .registry import Attr, defop, type_name
from .shape import getitem

__all__ = ["constant_pad_nd"]


def _check_pad(op: str, name: str, pos: int, v: Any) -> tuple[int, ...]:
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, but got {type_name(v)}")
    for i, d in enumerate(v):
        if not _is_int(d):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, but found element "
                            f"of type {type_name(d)} at pos {i}")
    if len(v) % 2:
        raise RuntimeError(f"{op}(): Padding length must be divisible by 2, but got {len(v)}")
    return tuple(int(d) for d in v)


def _check_value(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type_name(v)}")
    return float(v)


def padded_shape(op: str, shape: tuple[int, ...], pad: tuple[int, ...]) -> tuple[int, ...]:
    """The shape after padding (``RuntimeError`` for a pad longer than the dims or a negative size)."""
    if len(pad) > 2 * len(shape):
        raise RuntimeError(
            f"{op}(): Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {len(shape)}"
        )
    out = list(shape)
    for k in range(len(pad) // 2):
        d = len(shape) - 1 - k
        out[d] = shape[d] + pad[2 * k] + pad[2 * k + 1]
        if out[d] < 0:
            raise RuntimeError(
                f"{op}(): The input size {shape[d]}, plus negative padding {pad[2 * k]} and {pad[2 * k + 1]} "
                f"resulted in a negative output size, which is invalid. Check dimension {d} of your input."
            )
    return tuple(out)


def _constant_pad_meta(op: str, x: Any, pad: tuple[int, ...], value: float = 0.0) -> tuple[tuple[int, ...], Any]:
    return padded_shape(op, tuple(x.shape), pad), x.dtype


@register_kernel("constant_pad_nd", Backend.CPU, dtypes=ALL_DTYPES)
def constant_pad_nd_cpu(x: np.ndarray, pad: tuple[int, ...], value: float = 0.0) -> np.ndarray:
    """PyTorch's layouts: a pad that only crops is a ``clone`` of the cropped view (its layout kept), any other
    a new row-major tensor filled and written (``np.pad`` keeps a transposed input's column-major order)."""
    crop, widths = pad_geometry(x.shape, pad)
    core = x[crop]
    out = np.pad(core, widths, constant_values=np.asarray(value).astype(x.dtype)).astype(x.dtype, copy=False)
    if any(p > 0 for p in pad) and not out.flags.c_contiguous:
        out = np.ascontiguousarray(out)
    return out


constant_pad_nd = defop(
    "constant_pad_nd",
    inputs=("x",),
    out=False,  # PyTorch's constant_pad_nd takes no out=
    attrs=(Attr("pad", check=_check_pad), Attr("value", 0.0, _check_value)),
    infer_meta=_constant_pad_meta,
    doc="pad (last dim first) with a constant value; negative amounts crop",
)


@constant_pad_nd.def_backward
def constant_pad_nd_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """The adjoint of padding is cropping: the same op with every amount negated, filled with 0."""
    return (ctx.ops.constant_pad_nd(grad, tuple(-p for p in ctx.attrs["pad"]), 0.0),)


def _source_index(mode: str, n: int, lo: int, hi: int) -> np.ndarray:
    """For each output position along one dim, the input position it reads.

    A negative amount crops. ``reflect`` and ``replicate`` read in the input's own
    positions; ``circular`` wraps around what is left after cropping (PyTorch's rules).
    """
    if mode == "circular":
        start = max(-lo, 0)
        m = n - start - max(-hi, 0)
        return np.arange(-max(lo, 0), m + max(hi, 0)) % m + start
    i = np.arange(-lo, n + hi)
    if mode == "reflect":
        i = np.abs(i)
        return np.where(i >= n, 2 * (n - 1) - i, i)
    return np.clip(i, 0, n - 1)  # replicate


_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """``torch.nn.functional.pad``: ``constant`` (the ``constant_pad_nd`` op), ``reflect``, ``replicate`` or
    ``circular`` (composites of ``getitem``) padding; ``pad`` is last dim first.

    The non-constant modes pad the last 1, 2 or 3 dims of a batched or unbatched
    input (``len(pad)`` of 2 for 2-D/3-D inputs, 4 for 3-D/4-D, 6 for 4-D/5-D), as in PyTorch.
    """
    check_tensor("pad", "input", 1, input)
    if mode not in _MODES:
        raise NotImplementedError(f"pad(): Unrecognised padding mode {mode}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    pad = _check_pad("pad", "pad", 2, pad)
    if value is not None and value != 0:
        raise RuntimeError(f'pad(): Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if not 1 <= k <= 3 or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"pad(): Padding size {len(pad)} is not supported for {input.ndim}D input tensor. Non-constant padding "
            f"pads the last 1, 2 or 3 dims: padding size 2 for 2D or 3D input, 4 for 3D or 4D, 6 for 4D or 5D."
        )
    shape = tuple(input.shape)
    padded_shape("pad", shape, pad)
    indices = []
    for j in range(k):
        d = input.ndim - 1 - j
        n, lo, hi = shape[d], pad[2 * j], pad[2 * j + 1]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"pad(): Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({lo}, {hi}) at dimension {d} of input {list(shape)}"
            )
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("pad(): Padding value causes wrapping around more than once.")
        indices.append((d, _source_index(mode, n, lo, hi)))
    out = input
    for d, idx in indices:
        out = getitem(out, (slice(None),) * d + (idx,))
    return out
