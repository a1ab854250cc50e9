"""3-D convolutions in PyTorch's forms: ``conv3d`` and ``conv_transpose3d`` over ``(N, C, D, H, W)`` volumes.

As in 2-D (``ops/convolution.py``), PyTorch's one ``convolution`` op, node ``ConvolutionBackward0``, is two ops
here: the ``conv3d`` op (a batched input, stride, symmetric padding, dilation, groups), whose gradients are the ops
``conv3d_input_grad`` and ``conv3d_weight_grad`` (each differentiable again through the same three ops), and the
``conv_transpose3d`` op, ``conv3d``'s input gradient with ``x`` in the place of the output gradient, whose
gradients are again those ops. The kernels are im2col by taps, one batched matrix product per call
(``kernels/volume_windows.py``), the same code on the CPU and the GPU.

The forms reduce what the ops do not take, as PyTorch's forms do: an unbatched ``(C, D, H, W)`` input is
``unsqueeze``d first and ``squeeze``d after; ``padding="valid"`` is 0; ``padding="same"`` pads
``dilation * (k - 1)`` in total per dim, half of it (rounded down) by the op, the odd one at the end by
``constant_pad_nd`` first.

Example:
    >>> import minigrad as mg
    >>> mg.conv3d(mg.ones(1, 2, 4, 4, 4), mg.ones(3, 2, 3, 3, 3), padding=1).shape
    minigrad.Size([1, 3, 4, 4, 4])
    >>> mg.conv_transpose3d(mg.ones(1, 2, 2, 2, 2), mg.ones(2, 1, 2, 2, 2), stride=2).shape
    minigrad.Size([1, 1, 4, 4, 4])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES, float32, float64, scalar_type_name
from ..errors import ShapeError
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..kernels.volume_windows import (conv3d_arrays, conv3d_input_grad_arrays, conv3d_weight_grad_arrays,
                                      conv_out_size, conv_transpose3d_arrays)
from ..tensor import Tensor
from ._checks import _is_int, check_shape, check_tensors
from .padding import constant_pad_nd
from .registry import Attr, Input, defop, type_name
from .shape import squeeze, unsqueeze

__all__ = ["conv3d", "conv_transpose3d", "conv3d_input_grad", "conv3d_weight_grad"]


def _check_triple(op: str, name: str, pos: int, v: Any) -> tuple[int, int, int]:
    t = check_shape(op, name, pos, v)
    if len(t) != 3:
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be 3 ints, but got {v!r}")
    return t  # type: ignore[return-value]


def _check_groups_attr(op: str, name: str, pos: int, v: Any) -> int:
    if not _is_int(v) or v <= 0:
        raise RuntimeError(f"{op}(): non-positive groups is not supported")
    return int(v)


_CONV_ATTRS = (Attr("stride", (1, 1, 1), _check_triple), Attr("padding", (0, 0, 0), _check_triple),
               Attr("dilation", (1, 1, 1), _check_triple), Attr("groups", 1, _check_groups_attr))


def _conv_meta(op: str, x: Any, weight: Any, bias: Any = None, stride: Any = (1, 1, 1), padding: Any = (0, 0, 0),
               dilation: Any = (1, 1, 1), groups: int = 1) -> Any:
    out = conv_out_size(tuple(x.shape[2:]), tuple(weight.shape[2:]), stride, padding, dilation)
    return (x.shape[0], weight.shape[0]) + out, x.dtype


def _conv_args(ctx: Any) -> tuple[Any, ...]:
    return tuple(ctx.attrs[k] for k in ("stride", "padding", "dilation", "groups"))


@register_kernel("conv3d", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv3d")
def conv3d_cpu(x, weight, bias=None, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return conv3d_arrays(np, x, weight, bias, stride, padding, dilation, groups)


_conv3d_op = defop(
    "conv3d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_CONV_ATTRS,
    infer_meta=_conv_meta,
    save=("x", "weight"),
    doc="3-D convolution (cross-correlation) of a batched (N, C, D, H, W) input with an (O, C / groups, kD, kH, kW) "
        "weight: stride, symmetric padding, dilation, groups",
    amp="allow",
    layout="conv_memory_format",
)


def _fit(ops: Any, t: Any, shape: tuple[int, ...]) -> Any:
    """``t`` cropped at the end of its spatial dims to ``shape``'s (a transposed convolution's ``output_padding``
    can give the convolution of a gradient more windows than the other side has)."""
    extra = [a - b for a, b in zip(t.shape[2:], shape[2:])]
    if not any(extra):
        return t
    return ops.constant_pad_nd(t, tuple(v for e in reversed(extra) for v in (0, -e)), 0.0)


def _bias_grad(ops: Any, g: Any) -> Any:
    return ops.sum(g, dim=(0, 2, 3, 4))


@_conv3d_op.def_backward
def _conv3d_backward(ctx, g):
    x, w = ctx.saved()
    args, ops = _conv_args(ctx), ctx.ops
    gx = ops.conv3d_input_grad(g, w, x.shape, *args) if ctx.needs(0) else None
    gw = ops.conv3d_weight_grad(x, g, w.shape, *args) if ctx.needs(1) else None
    return gx, gw, _bias_grad(ops, g) if ctx.needs(2) else None


@register_kernel("conv3d_input_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv3d_input_grad")
def conv3d_input_grad_cpu(grad, weight, x_shape, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return conv3d_input_grad_arrays(np, grad, weight, tuple(x_shape), stride, padding, dilation, groups)


conv3d_input_grad = defop(
    "conv3d_input_grad",
    inputs=("grad", "weight"),
    attrs=(Attr("x_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=lambda op, grad, weight, x_shape, *a, **k: (tuple(x_shape), grad.dtype),
    save=("grad", "weight"),
    doc="gradient of conv3d w.r.t. its input (a transposed convolution)",
    amp="allow",
)


@conv3d_input_grad.def_backward
def _conv3d_input_grad_backward(ctx, h):
    g, w = ctx.saved()
    args, ops = _conv_args(ctx), ctx.ops
    return (_fit(ops, ops.conv3d(h, w, None, *args), g.shape) if ctx.needs(0) else None,
            ops.conv3d_weight_grad(h, g, w.shape, *args) if ctx.needs(1) else None)


@register_kernel("conv3d_weight_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv3d_weight_grad")
def conv3d_weight_grad_cpu(x, grad, w_shape, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return conv3d_weight_grad_arrays(np, x, grad, tuple(w_shape), stride, padding, dilation, groups)


conv3d_weight_grad = defop(
    "conv3d_weight_grad",
    inputs=("x", "grad"),
    attrs=(Attr("w_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=lambda op, x, grad, w_shape, *a, **k: (tuple(w_shape), x.dtype),
    save=("x", "grad"),
    doc="gradient of conv3d w.r.t. its weight",
    amp="allow",
)


@conv3d_weight_grad.def_backward
def _conv3d_weight_grad_backward(ctx, k):
    x, g = ctx.saved()
    args, ops = _conv_args(ctx), ctx.ops
    return (ops.conv3d_input_grad(g, k, x.shape, *args) if ctx.needs(0) else None,
            _fit(ops, ops.conv3d(x, k, None, *args), g.shape) if ctx.needs(1) else None)


# -- the conv_transpose3d op: conv3d's input gradient, x in the place of the output gradient -------------------

_TRANSPOSE_ATTRS = (Attr("stride", (1, 1, 1), _check_triple), Attr("padding", (0, 0, 0), _check_triple),
                    Attr("output_padding", (0, 0, 0), _check_triple), Attr("dilation", (1, 1, 1), _check_triple),
                    Attr("groups", 1, _check_groups_attr))


def _transpose_meta(op: str, x: Any, weight: Any, bias: Any = None, stride: Any = (1, 1, 1), padding: Any = (0, 0, 0),
                    output_padding: Any = (0, 0, 0), dilation: Any = (1, 1, 1), groups: int = 1) -> Any:
    out = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 + o for n, k, s, p, d, o in
                zip(x.shape[2:], weight.shape[2:], stride, padding, dilation, output_padding))
    return (x.shape[0], weight.shape[1] * groups) + out, x.dtype


@register_kernel("conv_transpose3d", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv_transpose3d")
def conv_transpose3d_cpu(x, weight, bias=None, stride=(1, 1, 1), padding=(0, 0, 0), output_padding=(0, 0, 0),
                         dilation=(1, 1, 1), groups=1):
    return conv_transpose3d_arrays(np, x, weight, bias, stride, padding, output_padding, dilation, groups)


_conv_transpose3d_op = defop(
    "conv_transpose3d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_TRANSPOSE_ATTRS,
    infer_meta=_transpose_meta,
    save=("x", "weight"),
    doc="transposed 3-D convolution of a batched (N, C_in, D, H, W) input with a (C_in, C_out / groups, kD, kH, kW) "
        "weight (conv3d's input gradient)",
    amp="allow",
    layout="conv_memory_format",
)


@_conv_transpose3d_op.def_backward
def _conv_transpose3d_backward(ctx, g):
    """Its input's gradient is the convolution of ``g``; its weight's the weight gradient with the roles swapped
    (``g`` the image, ``x`` the output gradient)."""
    x, w = ctx.saved()
    args = tuple(ctx.attrs[k] for k in ("stride", "padding", "dilation", "groups"))
    ops = ctx.ops
    gx = _fit(ops, ops.conv3d(g, w, None, *args), x.shape) if ctx.needs(0) else None
    gw = ops.conv3d_weight_grad(g, x, w.shape, *args) if ctx.needs(1) else None
    return gx, gw, _bias_grad(ops, g) if ctx.needs(2) else None


# -- the forms: PyTorch's argument checks, in its words and order, then the op ---------------------------------

def _triple(name: str, v: Any) -> tuple[int, ...]:
    """An int or a sequence of three ints (PyTorch's ``expand_param_if_needed``)."""
    if _is_int(v):
        return (int(v),) * 3
    if isinstance(v, (tuple, list)) and all(_is_int(i) for i in v):
        if len(v) == 1:
            return (int(v[0]),) * 3
        if len(v) == 3:
            return tuple(int(i) for i in v)
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 3 values to match the "
                           f"convolution dimensions, but got {name}={list(v)}")
    raise TypeError(f"conv3d(): argument '{name}' must be tuple of ints, but got {type_name(v)}")


def _check_operands(op: str, input: Any, weight: Any, bias: Any, groups: Any) -> None:
    check_tensors(op, input=input, weight=weight)
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"{op}(): argument 'bias' (position 3) must be Tensor, not {type_name(bias)}")
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to {op}, but got input of size: "
                           f"{list(input.shape)}")
    if weight.ndim != 5:
        raise RuntimeError(f"expected stride to be a single integer value or a list of {weight.ndim - 2} values to "
                           f"match the convolution dimensions, but got stride=[1, 1, 1]")
    if not _is_int(groups):
        raise TypeError(f"{op}(): argument 'groups' must be int, not {type_name(groups)}")


def _check_values(s: tuple[int, ...], p: tuple[int, ...], d: tuple[int, ...] | None, groups: int) -> None:
    """Stride, padding, dilation (``None``: checked later) and groups, in PyTorch's words."""
    for name, values, least in (("stride", s, 1), ("padding", p, 0), ("dilation", d or (1,), 1), ("groups", (groups,), 1)):
        if min(values) < least:
            raise RuntimeError(f"{'non-positive' if least else 'negative'} {name} is not supported")


def _checked_late(input: Tensor) -> bool:
    """Whether PyTorch's CPU checks a dilation only after the shapes, in its 3-D kernel (float64, and float32 in a
    batch of one); its other kernels (float32 batches, half floats) refuse it first."""
    return input.dtype == float64 or (input.dtype == float32 and (input.ndim == 4 or input.shape[0] == 1))


def _late_dilation(op: str, input: Tensor, d: tuple[int, ...]) -> None:
    """A non-positive dilation refused after the shapes (``_checked_late``), or, for a transposed convolution in
    PyTorch's other kernels, by their shape check."""
    if min(d) > 0 or (op == "conv3d" and not _checked_late(input)):
        return
    if op == "conv3d":
        raise RuntimeError(f"dilation should be greater than zero, but got {list(d)}")
    if _checked_late(input):
        names = ", ".join(f"dilation_{n}: {v}" for n, v in zip(("depth", "height", "width"), d))
        raise RuntimeError(f"dilation should be greater than zero, but got {names}")
    raise RuntimeError("dimensions are invalid")


def _check_shapes(input: Tensor, weight: Tensor, bias: Any, p: tuple[int, ...], d: tuple[int, ...], groups: int) -> None:
    """``conv3d``'s weight, channels, bias and kernel against the padded input (PyTorch's
    ``check_shape_forward``)."""
    batched = list(input.shape) if input.ndim == 5 else [1] + list(input.shape)
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    if batched[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{batched} to "
                           f"have {weight.shape[1] * groups} channels, but got {batched[1]} channels instead")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
    padded = [n + 2 * pp for n, pp in zip(batched[2:], p)]
    kernel = [dd * (k - 1) + 1 for dd, k in zip(d, weight.shape[2:])]
    if any(k > n for k, n in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size")
    check_weight_dtype(input, weight)


def check_weight_dtype(input: Tensor, weight: Tensor) -> None:
    """PyTorch's CPU convolution kernels refuse a weight of another dtype than the input's, after the shapes."""
    if weight.dtype != input.dtype:
        raise ShapeError(f"expected scalar type {scalar_type_name(input.dtype)} but found "
                         f"{scalar_type_name(weight.dtype)}")


def _same(input: Tensor, kernel: tuple[int, ...], d: tuple[int, ...]) -> tuple[Tensor, tuple[int, ...]]:
    """``padding="same"``: ``d * (k - 1)`` in total per dim, half (rounded down) by the op, the odd one at the end
    by ``constant_pad_nd`` first (PyTorch's ``_convolution_mode``)."""
    total = [dd * (k - 1) for k, dd in zip(kernel, d)]
    extra = tuple(v for t in reversed(total) for v in (0, t % 2))
    return (constant_pad_nd(input, extra) if any(extra) else input), tuple(t // 2 for t in total)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``torch.nn.functional.conv3d``: cross-correlation of ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` with
    ``weight`` ``(O, C / groups, kD, kH, kW)``; ``padding`` an int, a triple, ``"valid"`` or ``"same"``. One
    ``ConvolutionBackward0`` (an unbatched input adds PyTorch's ``unsqueeze``/``squeeze``)."""
    op = "conv3d"
    _check_operands(op, input, weight, bias, groups)
    s, d = _triple("stride", stride), _triple("dilation", dilation)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if padding == "same" and s != (1, 1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        p = (0, 0, 0) if padding == "valid" else tuple(dd * (k - 1) // 2 for dd, k in zip(d, weight.shape[2:]))
    else:
        p = _triple("padding", padding)
    _check_values(s, p, None if _checked_late(input) else d, groups)
    _check_shapes(input, weight, bias, p, d, groups)
    _late_dilation(op, input, d)
    if input.ndim == 4:
        return squeeze(conv3d(unsqueeze(input, 0), weight, bias, s, padding, d, groups), 0)
    if padding == "same":
        input, p = _same(input, tuple(weight.shape[2:]), d)
    return _conv3d_op(input, weight, bias, s, p, d, groups)


conv3d.name = "conv3d"  # type: ignore[attr-defined]
conv3d.op = _conv3d_op  # type: ignore[attr-defined]


def _check_transposed(input: Tensor, weight: Tensor, bias: Any, s: tuple[int, ...], p: tuple[int, ...],
                      op_: tuple[int, ...], d: tuple[int, ...], groups: int) -> None:
    """``conv_transpose3d``'s channels, bias, output padding and output size, in PyTorch's words."""
    batched = list(input.shape) if input.ndim == 5 else [1] + list(input.shape)
    if batched[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{batched} to have "
                           f"{weight.shape[0]} channels, but got {batched[1]} channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")
    n = weight.shape[1] * groups
    if bias is not None and tuple(bias.shape) != (n,):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {n} elements, but got bias of size {list(bias.shape)} instead")
    if any(o >= st and o >= dl for o, st, dl in zip(op_, s, d)):
        words = " ".join(f"{name}_{dim}: {v}" for name, vals in (("output_padding", op_), ("stride", s),
                                                                 ("dilation", d))
                         for dim, v in zip(("depth", "height", "width"), vals))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {words}")
    out = [(m - 1) * st - 2 * pp + dl * (k - 1) + 1 + o
           for m, st, pp, dl, k, o in zip(batched[2:], s, p, d, weight.shape[2:], op_)]
    if min(out) <= 0:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, batched[2:]))}). Calculated output "
                           f"size per channel: ({' x '.join(map(str, out))}). Output size is too small")
    check_weight_dtype(input, weight)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """``torch.nn.functional.conv_transpose3d``: the transposed convolution of ``(N, C_in, D, H, W)`` or
    ``(C_in, D, H, W)`` with ``weight`` ``(C_in, C_out / groups, kD, kH, kW)``; each output size is
    ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``. One ``ConvolutionBackward0``."""
    op = "conv_transpose3d"
    _check_operands(op, input, weight, bias, groups)
    s, p, d = _triple("stride", stride), _triple("padding", padding), _triple("dilation", dilation)
    o = _triple("output_padding", output_padding)
    _check_values(s, p, None, groups)
    if min(o) < 0:
        raise RuntimeError("negative output_padding is not supported")
    _check_transposed(input, weight, bias, s, p, o, d, groups)
    _late_dilation(op, input, d)
    if input.ndim == 4:
        return squeeze(_conv_transpose3d_op(unsqueeze(input, 0), weight, bias, s, p, o, d, groups), 0)
    return _conv_transpose3d_op(input, weight, bias, s, p, o, d, groups)


conv_transpose3d.name = "conv_transpose3d"  # type: ignore[attr-defined]
conv_transpose3d.op = _conv_transpose3d_op  # type: ignore[attr-defined]
