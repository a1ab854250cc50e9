"""Padding: the ``constant_pad_nd`` op and ``torch.nn.functional.pad`` with its four modes.

``pad`` is PyTorch's tuple, **last dim first**: ``(left, right)`` pads the last
dim, ``(left, right, top, bottom)`` the last two, and so on. A negative
amount crops.

- ``constant_pad_nd`` is an op: its kernel crops and pads with ``value``; its
  backward is the same op with every amount negated (crop what was added,
  pad back with zeros what was cropped), so it is differentiable to any order.
- ``reflect`` and ``replicate`` are the ops ``reflection_pad`` and
  ``replication_pad`` (PyTorch's ``ReflectionPad2DBackward0``...): each
  padded dim is gathered at the input positions it reads, e.g. reflect of
  ``[a b c d]`` by 2 on the left reads ``[2 1 0 1 2 3]``. Their backward is
  an op too (``*_pad_backward``), a scatter-add, so an input element read
  twice (the edge under ``replicate``) gets both gradients; its own backward
  is the padding again.
- ``circular`` is PyTorch's ``_pad_circular`` op for op: slices of the input
  and of the new tensor copied into slices of a new tensor (``CopySlices``
  over ``SliceBackward0``s, as PyTorch's graph).

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
from ..kernels.array_kernels import index_pad_arrays, index_pad_backward_arrays, pad_geometry
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_tensor
from .registry import Attr, defop, type_name
from .shape import slice_dim
from .views import copy_slices

__all__ = ["constant_pad_nd"]


def _check_pad(op: str, name: str, pos: int, v: Any) -> tuple[int, ...]:
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, not {type_name(v)}")
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


def padded_shape(op: str, shape: tuple[int, ...], pad: tuple[int, ...], narrow: bool = False) -> tuple[int, ...]:
    """The shape after padding (``RuntimeError`` for a pad longer than the dims or a negative size). ``narrow``:
    ``constant_pad_nd``'s refusal, PyTorch's: it narrows each dim by a negative pad (the left one first) before
    padding, and refuses a negative length there."""
    if len(pad) > 2 * len(shape):
        raise RuntimeError(
            f"{op}(): Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {len(shape)}"
        )
    out = list(shape)
    for k in range(len(pad) // 2):
        d = len(shape) - 1 - k
        out[d] = shape[d] + pad[2 * k] + pad[2 * k + 1]
        if narrow and (pad[2 * k] < 0 or pad[2 * k + 1] < 0):
            left = shape[d] + min(pad[2 * k], 0)
            if left < 0 or left + min(pad[2 * k + 1], 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        if out[d] < 0:
            raise RuntimeError(
                f"{op}(): The input size {shape[d]}, plus negative padding {pad[2 * k]} and {pad[2 * k + 1]} "
                f"resulted in a negative output size, which is invalid. Check dimension {d} of your input."
            )
    return tuple(out)


def _constant_pad_meta(op: str, x: Any, pad: tuple[int, ...], value: float = 0.0) -> tuple[tuple[int, ...], Any]:
    return padded_shape(op, tuple(x.shape), pad, narrow=True), x.dtype


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
    layout="keep_channels_last",
)


@constant_pad_nd.def_backward
def constant_pad_nd_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """The adjoint of padding is cropping: the same op with every amount negated, filled with 0."""
    return (ctx.ops.constant_pad_nd(grad, tuple(-p for p in ctx.attrs["pad"]), 0.0),)


def _index_pad_meta(op: str, x: Any, pad: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    return padded_shape(op, tuple(x.shape), pad, narrow=True), x.dtype


def _index_pad_backward_meta(op: str, grad: Any, x: Any, pad: tuple[int, ...]) -> Any:
    return tuple(x.shape), grad.dtype


def _index_pad(name: str, mode: str) -> tuple[Any, Any]:
    """The op ``name`` (``reflect`` or ``replicate`` padding of the last ``len(pad) // 2`` dims) and its
    backward op, each the other's adjoint. The backward op takes the forward's input ``x`` (PyTorch's
    ``reflection_pad2d_backward(grad_output, self, padding)``) for its shape, and gives it a gradient of zeros:
    the edge PyTorch's ``ReflectionPad2DBackwardBackward0`` has."""
    @register_kernel(name, Backend.CPU, dtypes=ALL_DTYPES, name=f"cpu/{name}")
    def forward_cpu(x: np.ndarray, pad: tuple[int, ...]) -> np.ndarray:
        return index_pad_arrays(np, x, mode, pad, lambda i: i)

    @register_kernel(f"{name}_backward", Backend.CPU, dtypes=ALL_DTYPES, name=f"cpu/{name}_backward")
    def backward_cpu(grad: np.ndarray, x: np.ndarray, pad: tuple[int, ...]) -> np.ndarray:
        return index_pad_backward_arrays(np, grad, mode, pad, tuple(x.shape), lambda i: i, np.add.at)

    op = defop(name, inputs=("x",), out=False, attrs=(Attr("pad", check=_check_pad),), infer_meta=_index_pad_meta,
               save=("x",), layout="memory_format", doc=f"{mode} padding of the last len(pad) // 2 dims (pad last dim first)")
    backward = defop(f"{name}_backward", inputs=("grad", "x"), out=False, key_inputs=(0,),
                     attrs=(Attr("pad", check=_check_pad),), infer_meta=_index_pad_backward_meta,
                     doc=f"{name}'s backward: each output's gradient added to the element of x it read")

    @op.def_backward
    def _forward_backward(ctx: Any, grad: Any) -> tuple[Any]:
        (x,) = ctx.saved()
        return (getattr(ctx.ops, f"{name}_backward")(grad, x, ctx.attrs["pad"]),)

    @backward.def_backward
    def _backward_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
        zeros = ctx.ops.fill(grad, 0.0) if ctx.needs(1) else None  # x gave only its shape (PyTorch's zeros_like)
        return getattr(ctx.ops, name)(grad, ctx.attrs["pad"]), zeros

    return op, backward


reflection_pad, reflection_pad_backward = _index_pad("reflection_pad", "reflect")
replication_pad, replication_pad_backward = _index_pad("replication_pad", "replicate")


_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """``torch.nn.functional.pad``: ``constant`` (the ``constant_pad_nd`` op), ``reflect`` and ``replicate``
    (the ``reflection_pad`` and ``replication_pad`` ops) or ``circular`` (PyTorch's ``_pad_circular``: copies
    of slices into a new tensor, ``CopySlices``) padding;
    ``pad`` is last dim first.

    The non-constant modes pad the last 1, 2 or 3 dims of a batched or unbatched
    input (``len(pad)`` of 2 for 2-D/3-D inputs, 4 for 3-D/4-D, 6 for 4-D/5-D), as in PyTorch.
    """
    check_tensor("pad", "input", 1, input)
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type_name(mode)}")
    if mode not in _MODES:
        raise NotImplementedError(f"pad(): Unrecognised padding mode {mode}")
    pad = _check_pad("pad", "pad", 2, pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'pad(): Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if not 1 <= k <= 3 or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            f"Supported combinations for non-constant padding:\n"
            f"  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            f"  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            f"  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    shape = tuple(input.shape)
    if mode != "circular" and 0 in shape[input.ndim - k - 1:]:  # PyTorch's check_valid_input: only a batch dim
        # may be empty
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(shape)}")
    if mode == "circular":  # PyTorch's _pad_circular checks first, dim by dim from the first padded one
        for j in reversed(range(k)):
            n, lo, hi = shape[input.ndim - 1 - j], pad[2 * j], pad[2 * j + 1]
            if lo > n or hi > n:
                raise RuntimeError("pad(): Padding value causes wrapping around more than once.")
            if n + lo + hi < 0:
                raise RuntimeError("pad(): Negative padding value is resulting in an empty dimension")
    padded_shape("pad", shape, pad)
    for j in range(k):
        d = input.ndim - 1 - j
        n, lo, hi = shape[d], pad[2 * j], pad[2 * j + 1]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                f"pad(): Argument #{4 + 2 * j}: Padding size should be less than the corresponding input dimension, "
                f"but got: "
                f"padding ({lo}, {hi}) at dimension {d} of input {list(shape)}"
            )
    if mode == "reflect":
        return reflection_pad(input, pad)
    if mode == "replicate":
        return replication_pad(input, pad)
    return _pad_circular(input, pad)


def _pad_circular(x: Tensor, pad: tuple[int, ...]) -> Tensor:
    """PyTorch's ``_pad_circular``, op for op: a new tensor of the padded shape; the input (cropped where a pad is
    negative, one ``slice`` per padded dim, the last dim first) copied into its middle; then, dim by dim from the
    last, its left padding copied from its own right end and its right padding from its left end (corners are
    written again by the later dims). Each copy is into a slice of the new tensor: PyTorch's ``CopySlices``, whose
    inputs are the tensor so far and the ``SliceBackward0`` of what it copies."""
    k, nd = len(pad) // 2, x.ndim
    in_shape, out_shape = tuple(x.shape), list(x.shape)
    for i in range(k):
        out_shape[nd - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    positions = np.arange(int(np.prod(out_shape))).reshape(out_shape)  # flat positions in the new tensor (host)
    region: list[slice] = [slice(None)] * nd
    src = x
    for i in range(k):
        d, lo, hi = nd - 1 - i, pad[2 * i], pad[2 * i + 1]
        region[d] = slice(max(lo, 0), out_shape[d] - max(hi, 0))
        src = slice_dim(src, d, max(-lo, 0), in_shape[d] - max(-hi, 0))
    out = copy_slices(x.new_empty(tuple(out_shape)), src, positions[tuple(region)])
    for i in range(k):
        d, lo, hi = nd - 1 - i, pad[2 * i], pad[2 * i + 1]
        n, lead = out_shape[d], (slice(None),) * d
        if lo > 0:
            out = copy_slices(out, slice_dim(out, d, n - lo - max(hi, 0), n - max(hi, 0)), positions[lead + (slice(0, lo),)])
        if hi > 0:
            out = copy_slices(out, slice_dim(out, d, max(lo, 0), max(lo, 0) + hi), positions[lead + (slice(n - hi, n),)])
    return out
