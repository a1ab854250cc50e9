"""Convolutions in PyTorch's forms: ``conv2d`` (every argument form), ``conv1d``,
``conv_transpose1d``/``conv_transpose2d``, ``unfold`` (im2col) and ``fold`` (col2im).

PyTorch runs every convolution through one op, ``convolution``, and shows one node,
``ConvolutionBackward0``. minigrad has two ops, defined first in this file, each with that node name:

- the ``conv2d`` op: a batched input, 2-D ``(N, C, H, W)`` or 1-D ``(N, C, L)``, with stride,
  symmetric padding, dilation and groups. ``conv1d`` is this op on the 3-D tensors (its kernels run
  it over a height of 1). Its gradients are two ops of their own, ``conv2d_input_grad`` and
  ``conv2d_weight_grad``, whose gradients are again these three ops.
- the ``conv_transpose2d`` op (1-D and 2-D too): a **transposed convolution** is the gradient of a
  convolution with respect to its input, ``conv2d_input_grad`` with ``x`` in the place of the output
  gradient (``kernels/conv_forms.py``); so its gradients come from the same three ops.

What the ops do not take, the forms reduce to them with other ops, as PyTorch's forms do: an
**unbatched input** ``(C, H, W)`` is ``unsqueeze``d first and ``squeeze``d after; ``padding="valid"``
is 0; ``padding="same"`` pads ``dilation * (k - 1)`` in total per dim, half of it (rounded down) by the
op's padding and the odd one on the bottom/right by ``constant_pad_nd`` first.

``unfold`` is PyTorch's ``im2col`` op: every ``kernel_size`` window of the zero-padded input copied into a
column (``Im2ColBackward0``); ``fold`` is ``col2im``, its adjoint, adding the columns back, summing where
windows overlap (``Col2ImBackward0``). Each is the other's gradient.

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> mg.conv2d(mg.ones(1, 5, 5), mg.ones(2, 1, 3, 3), padding="same").shape
    minigrad.Size([2, 5, 5])
    >>> F.conv_transpose2d(mg.ones(1, 1, 2, 2), mg.ones(1, 1, 2, 2), stride=2).shape
    minigrad.Size([1, 1, 4, 4])
    >>> F.unfold(mg.ones(1, 2, 4, 4), kernel_size=2).shape
    minigrad.Size([1, 8, 9])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numpy.lib.stride_tricks import sliding_window_view

from ..dtypes import FLOAT_DTYPES, bool_, cpp_type_name, scalar_type_name
from ..errors import ShapeError
from ..kernels import infer_meta as im
from ..kernels.conv_forms import as_2d, transposed_output
from ..kernels.key import Backend, Layout
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_nonneg_pair, check_pair, check_positive_pair, check_shape, check_tensor, check_tensors
from ._window import CONV_ARGS, bind_args, int_pair
from .padding import constant_pad_nd
from .registry import Attr, Input, defop, type_name
from .shape import squeeze, unsqueeze

__all__ = ["conv2d", "conv1d", "conv_transpose1d", "conv_transpose2d", "conv2d_input_grad", "conv2d_weight_grad"]  # conv2d: the form; the op is _conv2d_op


# -- the conv2d op and its two gradient ops -------------------------------------------------------
#
# One op serves every convolution that is not transposed, as PyTorch's ``convolution`` does (one
# ConvolutionBackward0 node): a batched input, 2-D (N, C, H, W) or 1-D (N, C, L), stride, symmetric
# padding, dilation and groups. What the op does not take - an unbatched input, a string padding - the
# forms below reduce to it with other ops, as PyTorch's own forms do.

def _windows(x, kh, kw, stride, padding, dilation=(1, 1)):
    """(N, C, OH, OW, kh, kw) windows of the zero-padded input, their taps ``dilation`` apart."""
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    dh, dw = dilation
    win = sliding_window_view(x, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))
    return win[:, :, :: stride[0], :: stride[1], ::dh, ::dw]


def _by_group(a, groups):
    """``a`` cut along dim 0 into ``groups`` equal blocks (a weight's, or a gradient's, output channels)."""
    n = a.shape[0] // groups
    return [a[g * n:(g + 1) * n] for g in range(groups)]


def _check_groups_attr(op: str, name: str, pos: int, v: Any) -> int:
    if not _is_int(v):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be int, but got {type_name(v)}")
    if v <= 0:
        raise RuntimeError(f"{op}(): non-positive groups is not supported")
    return int(v)


_CONV_ATTRS = (Attr("stride", (1, 1), check_positive_pair), Attr("padding", (0, 0), check_nonneg_pair),
               Attr("dilation", (1, 1), check_positive_pair), Attr("groups", 1, _check_groups_attr))


@register_kernel("conv2d", Backend.CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="cpu/conv2d")
def conv2d_cpu(x, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    if x.ndim == 3:
        return conv2d_cpu(*as_2d(x, weight), bias, stride, padding, dilation, groups)[:, :, 0]
    _, cg, kh, kw = weight.shape
    win = _windows(x, kh, kw, stride, padding, dilation)
    outs = [np.tensordot(win[:, g * cg:(g + 1) * cg], wg, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, O / groups
            for g, wg in enumerate(_by_group(weight, groups))]
    out = (outs[0] if groups == 1 else np.concatenate(outs, axis=3)).transpose(0, 3, 1, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return np.ascontiguousarray(out, dtype=x.dtype)


# NOTE [ Two layouts of one op ]
#     conv2d has two CPU kernels: the NCHW one above and this one, registered
#     for Layout.NHWC ("channels last", the layout cuDNN's tensor cores prefer).
#     The KernelKey's layout - the input tensor's layout - decides: an NHWC
#     input probes (CPU, NHWC) and gets this kernel; its OIHW weight (tagged
#     NCHW) is transposed by PrepareData to OHWI, the "KRSC" filter layout of
#     NHWC convolutions, and a data.transform event says so. The same function
#     can serve a backend whose conv2d is NHWC-only, declaring its arguments and
#     outputs NHWC while serving NCHW keys (register_kernel's arg_overrides and
#     out_layout); see tests/test_prepare_data.py.
@register_kernel("conv2d", Backend.CPU, layout=Layout.NHWC, dtypes=FLOAT_DTYPES, name="cpu/conv2d_nhwc")
def conv2d_nhwc(x, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    """Cross-correlation of ``x`` (N, H, W, C) with ``weight`` (O, kH, kW, C / groups) -> (N, OH, OW, O)."""
    _, kh, kw, cg = weight.shape
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    dh, dw = dilation
    # (N, OH, OW, C, kh, kw) windows: the strided ones, their taps dilation apart.
    win = sliding_window_view(x, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(1, 2))
    win = win[:, :: stride[0], :: stride[1], :, ::dh, ::dw]
    # Contract C, kh, kw: channels stay last, as the layout promises.
    outs = [np.tensordot(win[:, :, :, g * cg:(g + 1) * cg], wg, axes=([3, 4, 5], [3, 1, 2]))  # N, OH, OW, O / groups
            for g, wg in enumerate(_by_group(weight, groups))]
    out = outs[0] if groups == 1 else np.concatenate(outs, axis=3)
    if bias is not None:
        out = out + bias
    return np.ascontiguousarray(out, dtype=x.dtype)


_conv2d_op = defop(
    "conv2d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_CONV_ATTRS,
    infer_meta=im.conv2d,
    save=("x", "weight"),
    doc="convolution (cross-correlation) of a batched (N, C, H, W) or (N, C, L) input with an "
        "(O, C / groups, kH, kW) or (O, C / groups, K) weight: stride, symmetric padding, dilation, groups",
    amp="allow",
    layout="conv_memory_format",
)


def _conv_args(ctx: Any) -> tuple[Any, ...]:
    return tuple(ctx.attrs[k] for k in ("stride", "padding", "dilation", "groups"))


def _fit(ops: Any, t: Any, shape: tuple[int, ...]) -> Any:
    """``t`` cropped at the end of its spatial dims to ``shape``'s. A convolution of a gradient can reach
    windows the other side lacks: a transposed convolution's ``output_padding`` (as large as the dilation)
    makes an output whose convolution has more windows than the input had."""
    extra = [a - b for a, b in zip(t.shape[2:], shape[2:])]
    if not any(extra):
        return t
    pad: tuple[int, ...] = ()
    for e in reversed(extra):  # constant_pad_nd's amounts go from the last dim
        pad += (0, -e)
    return ops.constant_pad_nd(t, pad, 0.0)


def _bias_grad(ops: Any, g: Any) -> Any:
    return ops.sum(g, dim=(0,) + tuple(range(2, g.ndim)))


@_conv2d_op.def_backward
def _conv2d_backward(ctx, g):
    x, w = ctx.saved()
    args = _conv_args(ctx)
    ops = ctx.ops
    gx = ops.conv2d_input_grad(g, w, x.shape, *args) if ctx.needs(0) else None
    gw = ops.conv2d_weight_grad(x, g, w.shape, *args) if ctx.needs(1) else None
    gb = _bias_grad(ops, g) if ctx.needs(2) else None
    return gx, gw, gb


def _input_grad_meta(op: str, grad: Any, weight: Any, x_shape: tuple[int, ...], *args: Any, **kwargs: Any) -> Any:
    return tuple(x_shape), grad.dtype


def _weight_grad_meta(op: str, x: Any, grad: Any, w_shape: tuple[int, ...], *args: Any, **kwargs: Any) -> Any:
    return tuple(w_shape), x.dtype


@register_kernel("conv2d_input_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv2d_input_grad")
def conv2d_input_grad_cpu(grad, weight, x_shape, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    if grad.ndim == 3:
        n, c, length = x_shape
        return conv2d_input_grad_cpu(*as_2d(grad, weight), (n, c, 1, length), stride, padding, dilation, groups)[:, :, 0]
    n, c, h, w = x_shape
    _, cg, kh, kw = weight.shape
    (ph, pw), (sh, sw), (dh, dw) = padding, stride, dilation
    _, _, oh, ow = grad.shape  # the gradient's windows (a transposed convolution's may be fewer than x_shape has)
    dxp = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=grad.dtype)
    for g, (gy, wg) in enumerate(zip(_by_group(grad.swapaxes(0, 1), groups), _by_group(weight, groups))):
        cols = np.tensordot(gy, wg, axes=([0], [0]))  # N, OH, OW, C / groups, kh, kw
        dst = dxp[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                rows, columns = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh), slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
                dst[:, :, rows, columns] += cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(dxp[:, :, ph : ph + h, pw : pw + w])


conv2d_input_grad = defop(
    "conv2d_input_grad",
    inputs=("grad", "weight"),
    attrs=(Attr("x_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=_input_grad_meta,
    save=("grad", "weight"),
    doc="gradient of conv2d w.r.t. its input (a transposed convolution)",
    amp="allow",
)


@conv2d_input_grad.def_backward
def _conv2d_input_grad_backward(ctx, h):
    g, w = ctx.saved()
    args = _conv_args(ctx)
    ops = ctx.ops
    return (
        _fit(ops, ops.conv2d(h, w, None, *args), g.shape) if ctx.needs(0) else None,
        ops.conv2d_weight_grad(h, g, w.shape, *args) if ctx.needs(1) else None,
    )


@register_kernel("conv2d_weight_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv2d_weight_grad")
def conv2d_weight_grad_cpu(x, grad, w_shape, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    if x.ndim == 3:
        o, cg, k = w_shape
        return conv2d_weight_grad_cpu(*as_2d(x, grad), (o, cg, 1, k), stride, padding, dilation, groups)[:, :, 0]
    _, cg, kh, kw = w_shape
    _, _, oh, ow = grad.shape
    win = _windows(x, kh, kw, stride, padding, dilation)[:, :, :oh, :ow]  # N, C, OH, OW, kh, kw: the gradient's windows
    dws = [np.tensordot(gy, win[:, g * cg:(g + 1) * cg], axes=([1, 2, 3], [0, 2, 3]))  # O / groups, C / groups, kh, kw
           for g, gy in enumerate(_by_group(grad.swapaxes(0, 1), groups))]
    return np.ascontiguousarray(dws[0] if groups == 1 else np.concatenate(dws), dtype=x.dtype)


conv2d_weight_grad = defop(
    "conv2d_weight_grad",
    inputs=("x", "grad"),
    attrs=(Attr("w_shape", check=check_shape),) + _CONV_ATTRS,
    infer_meta=_weight_grad_meta,
    save=("x", "grad"),
    doc="gradient of conv2d w.r.t. its weight",
    amp="allow",
)


@conv2d_weight_grad.def_backward
def _conv2d_weight_grad_backward(ctx, k):
    x, g = ctx.saved()
    args = _conv_args(ctx)
    ops = ctx.ops
    return (
        ops.conv2d_input_grad(g, k, x.shape, *args) if ctx.needs(0) else None,
        _fit(ops, ops.conv2d(x, k, None, *args), g.shape) if ctx.needs(1) else None,
    )


# -- the conv_transpose2d op ------------------------------------------------------------------------
#
# PyTorch's ``convolution`` with ``transposed=True``: the gradient of a convolution with respect to its
# input, with x in the place of the output gradient (kernels/conv_forms.py). Its own gradients are the
# convolution's other two ops: the input's is the convolution of the gradient, the weight's the weight
# gradient with the two roles swapped (the gradient is the image, x the output gradient).

_TRANSPOSE_ATTRS = (Attr("stride", (1, 1), check_positive_pair), Attr("padding", (0, 0), check_nonneg_pair),
                    Attr("output_padding", (0, 0), check_nonneg_pair), Attr("dilation", (1, 1), check_positive_pair),
                    Attr("groups", 1, _check_groups_attr))


@register_kernel("conv_transpose2d", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv_transpose2d")
def conv_transpose2d_cpu(x, weight, bias=None, stride=(1, 1), padding=(0, 0), output_padding=(0, 0),
                         dilation=(1, 1), groups=1):
    if x.ndim == 3:
        return conv_transpose2d_cpu(*as_2d(x, weight), bias, stride, padding, output_padding, dilation, groups)[:, :, 0]
    y = transposed_output(conv2d_input_grad_cpu, np.zeros, x, weight, bias, stride, padding, output_padding,
                          dilation, groups)
    return np.ascontiguousarray(y, dtype=x.dtype)


_conv_transpose_op = defop(
    "conv_transpose2d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_TRANSPOSE_ATTRS,
    infer_meta=im.conv_transpose2d,
    save=("x", "weight"),
    doc="transposed convolution of a batched (N, C_in, H, W) or (N, C_in, L) input with a "
        "(C_in, C_out / groups, kH, kW) or (C_in, C_out / groups, K) weight (conv2d's input gradient)",
    amp="allow",
    layout="conv_memory_format",
)


@_conv_transpose_op.def_backward
def _conv_transpose2d_backward(ctx, g):
    x, w = ctx.saved()
    stride, padding, dilation, groups = (ctx.attrs[k] for k in ("stride", "padding", "dilation", "groups"))
    ops = ctx.ops
    gx = _fit(ops, ops.conv2d(g, w, None, stride, padding, dilation, groups), x.shape) if ctx.needs(0) else None
    gw = ops.conv2d_weight_grad(g, x, w.shape, stride, padding, dilation, groups) if ctx.needs(1) else None
    gb = _bias_grad(ops, g) if ctx.needs(2) else None
    return gx, gw, gb


def _check_conv_args(x: Any, weight: Any, stride: tuple[int, int], padding: Any, dilation: tuple[int, int],
                     groups: Any) -> None:
    """conv2d's argument values (NOTE [ Window arguments are checked first ] in ``_window.py``)."""
    if min(stride) <= 0:
        raise RuntimeError(f"conv2d(): argument 'stride': non-positive stride is not supported, but got {stride}")
    if not isinstance(padding, str) and min(int_pair("conv2d", "padding", padding)) < 0:
        raise RuntimeError(f"conv2d(): argument 'padding': negative padding is not supported, but got {padding!r}")
    if min(dilation) < 0:
        raise ShapeError("conv2d(): dilation should be greater than zero")
    if min(dilation) == 0:
        raise ShapeError(f"conv2d(): dilation should be greater than zero, but got {list(dilation)}")
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(f"conv2d(): argument 'groups' (position 6) must be int, but got {type(groups).__name__}")
    if groups <= 0:
        raise RuntimeError(f"conv2d(): argument 'groups': non-positive groups is not supported, but got {groups}")
    if isinstance(weight, Tensor) and weight.ndim == 4:
        if weight.shape[0] < groups:
            raise RuntimeError(f"conv2d(): Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
                               f"but got weight of size {list(weight.shape)} instead")
        if min(weight.shape[2:]) <= 0:
            raise RuntimeError(f"conv2d(): kernel size should be greater than zero, but got kernel_height: "
                               f"{weight.shape[2]} kernel_width: {weight.shape[3]}")


def _same_padding(x: Tensor, kernel: tuple[int, ...], dilation: tuple[int, ...]) -> tuple[Tensor, tuple[int, ...]]:
    """``padding="same"`` as PyTorch's ``_convolution_mode``: ``dilation * (k - 1)`` in total per dim, half of it
    (rounded down) by the convolution's own padding, the odd one on the end by ``constant_pad_nd`` first."""
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    extra: tuple[int, ...] = ()
    for t in reversed(total):  # constant_pad_nd's amounts go from the last dim
        extra += (0, t % 2)
    return (constant_pad_nd(x, extra) if any(extra) else x), tuple(t // 2 for t in total)


def conv2d(*args: Any, **kwargs: Any) -> Tensor:
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` as ``torch.nn.functional.conv2d``.

    ``input`` is ``(N, C, H, W)`` or unbatched ``(C, H, W)``; ``padding`` an
    int, a pair, ``"valid"`` or ``"same"``; ``weight`` is ``(O, C / groups, kH, kW)``. A batched input with
    numeric padding is the ``conv2d`` op itself; an unbatched one is ``unsqueeze``d first and ``squeeze``d
    after, and an odd ``"same"`` padding adds a ``constant_pad_nd``, as PyTorch.
    """
    a = bind_args("conv2d", CONV_ARGS, args, kwargs)
    dilation = int_pair("conv2d", "dilation", a.get("dilation", 1))
    groups = a.get("groups", 1)
    padding = a.get("padding", 0)
    x, weight = a.get("input"), a.get("weight")
    if isinstance(x, Tensor) and isinstance(a.get("bias"), Tensor):
        _check_bias_dtype(x, a["bias"])
    if isinstance(x, Tensor) and x.ndim not in (3, 4):
        raise ShapeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: {list(x.shape)}")
    if isinstance(x, Tensor) and isinstance(weight, Tensor):
        _check_weight_rank("conv2d", x, weight, a.get("stride", 1), 4)
    _check_conv_args(x, weight, int_pair("conv2d", "stride", a.get("stride", 1)), padding, dilation, groups)
    # (a channels-last tensor of minigrad's NHWC layout, whose shape is (N, H, W, C), is checked by the op)
    if isinstance(x, Tensor) and isinstance(weight, Tensor) and isinstance(groups, int) and groups > 0 \
            and x.layout != "NHWC":
        if weight.shape[0] >= groups and weight.shape[0] % groups == 0:
            # the checks the op would make, in PyTorch's order: channels and bias, then the kernel and dtypes
            batched = list(x.shape) if x.ndim == 4 else [1] + list(x.shape)
            if batched[1] != weight.shape[1] * groups:
                raise ShapeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                                 f"{batched} to have {weight.shape[1] * groups} channels, but got {batched[1]} "
                                 f"channels instead")
            bias = a.get("bias")
            if isinstance(bias, Tensor) and tuple(bias.shape) != (weight.shape[0],):
                raise ShapeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                                 f"{weight.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
            pads = None if isinstance(padding, str) else int_pair("conv2d", "padding", padding)
            _check_kernel_fits("conv2d", x, weight, pads, dilation)
    if not isinstance(padding, str) and not (isinstance(x, Tensor) and x.ndim == 3):
        # the op itself, with its own argument checks and messages
        return _conv2d_op(x, weight, a.get("bias"), a.get("stride", 1), padding, dilation, groups)
    if not isinstance(x, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("conv2d(): 'input' and 'weight' must be Tensors")
    bias, stride = a.get("bias"), int_pair("conv2d", "stride", a.get("stride", 1))
    if x.ndim == 3:
        return squeeze(conv2d(unsqueeze(x, 0), weight, bias, stride, padding, dilation, groups), 0)
    if x.ndim != 4 or weight.ndim != 4:
        raise ShapeError(f"conv2d(): expected a 3-D or 4-D input and a 4-D weight, but got {tuple(x.shape)} and {tuple(weight.shape)}")
    if padding == "valid":
        return _conv2d_op(x, weight, bias, stride, (0, 0), dilation, groups)
    if padding != "same":
        raise ShapeError(f"Invalid padding string: {padding!r}")
    if stride != (1, 1):
        raise ShapeError("padding='same' is not supported for strided convolutions")
    x, pad = _same_padding(x, tuple(weight.shape[2:]), dilation)
    return _conv2d_op(x, weight, bias, stride, pad, dilation, groups)


conv2d.name = "conv2d"  # type: ignore[attr-defined]
conv2d.op = _conv2d_op  # type: ignore[attr-defined]


def _tuple(op: str, name: str, v: Any, k: int) -> tuple[int, ...]:
    if _is_int(v):
        return (int(v),) * k
    if isinstance(v, (tuple, list)) and all(_is_int(d) for d in v) and len(v) in (1, k):
        return tuple(int(d) for d in v) * (k if len(v) == 1 else 1)
    raise TypeError(f"{op}(): argument '{name}' must be an int or a tuple of {k} ints, but got {v!r}")


def _check_tensors(op: str, input: Any, weight: Any, bias: Any) -> None:
    check_tensors(op, input=input, weight=weight)
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"{op}(): argument 'bias' (position 2) must be Tensor or None, but got {type_name(bias)}")


def _check_groups(op: str, groups: Any, weight: Tensor) -> int:
    if not _is_int(groups):
        raise TypeError(f"{op}(): argument 'groups' must be int, but got {type_name(groups)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups:  # (PyTorch's message shows the size in two pairs of brackets)
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{list(weight.shape)}] instead")
    return int(groups)


def _check_bias(op: str, bias: Any, n: int, weight: Tensor, transposed: bool) -> None:
    if bias is not None and tuple(bias.shape) != (n,):
        raise RuntimeError(f"Given {'transposed=1, ' if transposed else ''}weight of size {list(weight.shape)}, "
                           f"expected bias to be 1-dimensional with {n} elements, but got bias of size {list(bias.shape)} instead")


def _check_bias_dtype(input: Tensor, bias: Any) -> None:
    """PyTorch's conv1d/2d/3d refuse a bias of another dtype than the input's, before any other check."""
    if bias is not None and bias.dtype != input.dtype:
        raise ShapeError(f"Input type ({cpp_type_name(input.dtype)}) and bias type ({cpp_type_name(bias.dtype)}) "
                         f"should be the same")


def _check_weight_rank(op: str, input: Tensor, weight: Tensor, stride: Any, rank: int) -> None:
    """PyTorch's refusal of a weight of another rank than ``rank``: ``stride`` (an int stands for ``rank - 2`` of
    them) does not fit its spatial dims, or, where one stride fits any, the input's rank does not."""
    listed = isinstance(stride, (tuple, list)) and all(_is_int(v) for v in stride)
    if (weight.ndim == rank and not (listed and len(stride) not in (1, rank - 2))) or not (listed or _is_int(stride)):
        return
    if weight.ndim < 3:
        raise ShapeError(f"{op}(): weight should have at least three dimensions")
    strides = [int(stride)] * (rank - 2) if _is_int(stride) else list(stride)
    if len(strides) != 1 and len(strides) != weight.ndim - 2:
        raise ShapeError(f"expected stride to be a single integer value or a list of {weight.ndim - 2} values to "
                         f"match the convolution dimensions, but got stride={strides}")
    batched = list(input.shape) if input.ndim == rank else [1] + list(input.shape)
    raise ShapeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                     f"{list(weight.shape)}, but got {rank}-dimensional input of size {batched} instead")


def _check_kernel_fits(op: str, input: Tensor, weight: Tensor, padding: tuple[int, ...] | None,
                       dilation: tuple[int, ...]) -> None:
    """PyTorch's last checks of a convolution: the dilated kernel against the padded input (none for
    ``padding=None``, "same"), then the weight's dtype against the input's."""
    nd = weight.ndim - 2
    if padding is not None:
        padded = [n + 2 * p for n, p in zip(tuple(input.shape)[-nd:], padding[-nd:])]
        kernel = [d * (k - 1) + 1 for k, d in zip(tuple(weight.shape)[2:], dilation[-nd:])]
        if any(k > n for k, n in zip(kernel, padded)):
            raise ShapeError(f"{op}(): Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                             f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than "
                             f"actual input size")
    if weight.dtype != input.dtype:
        raise ShapeError(f"expected scalar type {scalar_type_name(input.dtype)} but found "
                         f"{scalar_type_name(weight.dtype)}")


def _check_operands(op: str, input: Any, weight: Any, bias: Any, groups: Any, rank: int, stride: Any = 1,
                    transposed: bool = False) -> int:
    """The tensors, their ranks (a ``rank``-D weight; a ``rank``-D input, or one less unbatched) and ``groups``,
    in PyTorch's words and order; returns ``groups``."""
    _check_tensors(op, input, weight, bias)
    if not transposed:
        _check_bias_dtype(input, bias)
    if input.ndim not in (rank - 1, rank):
        raise RuntimeError(f"Expected {rank - 1}D (unbatched) or {rank}D (batched) input to {op}, but got input "
                           f"of size: {list(input.shape)}")
    _check_weight_rank(op, input, weight, stride, rank)
    return _check_groups(op, groups, weight)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution of ``(N, C, L)`` or ``(C, L)`` with ``weight`` ``(O, C / groups, K)``: the ``conv2d`` op on
    the 3-D tensors (its kernels run it over a height of 1), one ``ConvolutionBackward0`` as PyTorch's.

    ``padding`` is an int, a 1-tuple, ``"valid"`` or ``"same"``.
    """
    op = "conv1d"
    groups = _check_operands(op, input, weight, bias, groups, 3, stride)
    channels = input.shape[-2]
    if channels != weight.shape[1] * groups:
        batched = tuple(input.shape) if input.ndim == 3 else (1,) + tuple(input.shape)
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(batched)} to have {weight.shape[1] * groups} channels, but got {channels} channels instead")
    _check_bias(op, bias, weight.shape[0], weight, False)
    (s,), (d,) = _tuple(op, "stride", stride, 1), _tuple(op, "dilation", dilation, 1)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ShapeError(f"Invalid padding string: {padding!r}")
        if padding == "same" and s != 1:
            raise ShapeError("padding='same' is not supported for strided convolutions")
        p = 0
    else:
        (p,) = _tuple(op, "padding", padding, 1)
    _check_kernel_fits(op, input, weight, None if padding == "same" else (p,), (d,))
    if input.ndim == 2:
        return squeeze(conv1d(unsqueeze(input, 0), weight, bias, s, padding, d, groups), 0)
    if padding == "same":
        input, (p,) = _same_padding(input, tuple(weight.shape[2:]), (d,))
    return _conv2d_op(input, weight, bias, (1, s), (0, p), (1, d), groups)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 2-D convolution ("deconvolution") of ``(N, C_in, H, W)`` or ``(C_in, H, W)`` with ``weight``
    ``(C_in, C_out / groups, kH, kW)``: the ``conv_transpose2d`` op (``conv2d``'s input gradient; an unbatched
    input is ``unsqueeze``d first and ``squeeze``d after).

    The output is ``(H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1`` high (and so wide).
    """
    op = "conv_transpose2d"
    groups = _check_operands(op, input, weight, bias, groups, 4, stride, transposed=True)
    return _transposed(op, input, weight, bias, _tuple(op, "stride", stride, 2), _tuple(op, "padding", padding, 2),
                       _tuple(op, "output_padding", output_padding, 2), groups, _tuple(op, "dilation", dilation, 2))


def _transposed(op: str, input: Tensor, weight: Tensor, bias: Any, s: tuple[int, ...], p: tuple[int, ...],
                op_: tuple[int, ...], groups: int, d: tuple[int, ...]) -> Tensor:
    """``conv_transpose1d``/``2d``'s checks in PyTorch's words (the 1-D one's pairs start with the height of 1),
    then the op."""
    cin, cout_g = weight.shape[:2]
    for name, values, least in (("stride", s, 1), ("padding", p, 0), ("output_padding", op_, 0), ("dilation", d, 1)):
        if min(values) < least:
            raise RuntimeError(f"{'non-positive' if least else 'negative'} {name} is not supported")
    if input.shape[-weight.ndim + 1] != cin:
        batched = tuple(input.shape) if input.ndim == weight.ndim else (1,) + tuple(input.shape)
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(batched)} "
                           f"to have {cin} channels, but got {input.shape[-weight.ndim + 1]} channels instead")
    _check_bias(op, bias, cout_g * groups, weight, True)
    if any(o >= st and o >= dl for o, st, dl in zip(op_, s, d)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got output_padding_height: "
                           f"{op_[0]} output_padding_width: {op_[1]} stride_height: {s[0]} stride_width: {s[1]} "
                           f"dilation_height: {d[0]} dilation_width: {d[1]}")
    kernel = (1,) * (4 - weight.ndim) + tuple(weight.shape[2:])
    hw = (1,) * (4 - weight.ndim) + tuple(input.shape[-(weight.ndim - 2):])
    out_hw = tuple((n - 1) * st - 2 * pp + dl * (k - 1) + 1 + o for n, st, pp, dl, k, o in zip(hw, s, p, d, kernel, op_))
    if min(out_hw) <= 0:
        raise RuntimeError(f"{op}(): the output size {out_hw[4 - weight.ndim:]} is too small (input "
                           f"{hw[4 - weight.ndim:]}, stride {s[4 - weight.ndim:]}, padding {p[4 - weight.ndim:]})")
    _check_kernel_fits(op, input, weight, None, d)
    if input.ndim == weight.ndim - 1:  # unbatched
        return squeeze(_conv_transpose_op(unsqueeze(input, 0), weight, bias, s, p, op_, d, groups), 0)
    return _conv_transpose_op(input, weight, bias, s, p, op_, d, groups)


conv_transpose2d.name = "conv_transpose2d"  # type: ignore[attr-defined]
conv_transpose2d.op = _conv_transpose_op  # type: ignore[attr-defined]


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 1-D convolution of ``(N, C_in, L)`` or ``(C_in, L)`` with ``weight`` ``(C_in, C_out / groups, K)``:
    the ``conv_transpose2d`` op on the 3-D tensors, one ``ConvolutionBackward0`` as PyTorch's."""
    op = "conv_transpose1d"
    groups = _check_operands(op, input, weight, bias, groups, 3, stride, transposed=True)
    (s,), (p,) = _tuple(op, "stride", stride, 1), _tuple(op, "padding", padding, 1)
    (o,), (d,) = _tuple(op, "output_padding", output_padding, 1), _tuple(op, "dilation", dilation, 1)
    return _transposed(op, input, weight, bias, (1, s), (0, p), (0, o), groups, (1, d))


# -- unfold / fold: the im2col and col2im ops, each the other's gradient ---------------------------
#
# PyTorch's F.unfold is its im2col op and F.fold its col2im (Im2ColBackward0, Col2ImBackward0), batched
# (N, C, H, W) / (N, C kH kW, L) or not: the unbatched forms are the same ops, no unsqueeze node.

_FOLD_DTYPES = FLOAT_DTYPES + (bool_,)  # PyTorch's CPU im2col/col2im: floats and bool, no other integers


def _blocks(hw: tuple[int, ...], k: tuple[int, ...], d: tuple[int, ...], p: tuple[int, ...], s: tuple[int, ...]) -> tuple[int, ...]:
    """The number of sliding windows along each spatial dim."""
    return tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip(hw, k, d, p, s))


def _im2col_batch(x: np.ndarray, kernel_size: tuple[int, int], dilation: tuple[int, int], padding: tuple[int, int],
                  stride: tuple[int, int]) -> np.ndarray:
    """``(N, C, H, W)`` to ``(N, C kH kW, L)``: a strided view of the zero-padded input over ``(C, kH, kW, oh, ow)``,
    copied. (The GPU's is the GEMM convolution's im2col kernel, ``kernels/gpu/conv.py``.)"""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    xpad = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else np.ascontiguousarray(x)
    n, c = x.shape[:2]
    oh, ow = _blocks(tuple(x.shape[2:]), kernel_size, dilation, padding, stride)
    bn, bc, bh, bw = xpad.strides
    win = np.lib.stride_tricks.as_strided(xpad, (n, c, kh, kw, oh, ow), (bn, bc, bh * dh, bw * dw, bh * sh, bw * sw))
    return np.ascontiguousarray(win).reshape(n, c * kh * kw, oh * ow)


def _col2im_batch(cols: np.ndarray, output_size: tuple[int, int], kernel_size: tuple[int, int],
                  dilation: tuple[int, int], padding: tuple[int, int], stride: tuple[int, int]) -> np.ndarray:
    """The adjoint of ``_im2col_batch``: each tap's columns added into its strided slice of the padded image, taps
    in PyTorch's order (``(i, j)`` increasing), so overlapping windows sum as its CPU kernel sums them."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    oh, ow = _blocks(output_size, kernel_size, dilation, padding, stride)
    n, c = cols.shape[0], cols.shape[1] // (kh * kw)
    h, w = output_size
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=cols.dtype)
    taps = cols.reshape(n, c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            rows, columns = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh), slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
            out[:, :, rows, columns] += taps[:, :, i, j]
    return np.ascontiguousarray(out[:, :, ph:ph + h, pw:pw + w])


def _batched_fold(kernel: Any, x: Any, batched_ndim: int, *args: Any) -> Any:
    """``kernel`` on ``x`` with a batch dim (added to an unbatched input, and taken off the result)."""
    return kernel(x, *args) if x.ndim == batched_ndim else kernel(x[None], *args)[0]


def _im2col_meta(op: str, x: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    oh, ow = _blocks(tuple(x.shape[-2:]), kernel_size, dilation, padding, stride)
    c = x.shape[-3] * kernel_size[0] * kernel_size[1]
    return tuple(x.shape[:-3]) + (c, oh * ow), x.dtype


def _col2im_meta(op: str, x: Any, output_size: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    c = x.shape[-2] // (kernel_size[0] * kernel_size[1])
    return tuple(x.shape[:-2]) + (c,) + tuple(output_size), x.dtype


@register_kernel("im2col", Backend.CPU, dtypes=_FOLD_DTYPES)
def im2col_cpu(x: np.ndarray, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> np.ndarray:
    return _batched_fold(_im2col_batch, x, 4, kernel_size, dilation, padding, stride)


@register_kernel("col2im", Backend.CPU, dtypes=_FOLD_DTYPES)
def col2im_cpu(x: np.ndarray, output_size: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> np.ndarray:
    return _batched_fold(_col2im_batch, x, 3, output_size, kernel_size, dilation, padding, stride)


_WINDOW_ATTRS = (Attr("kernel_size", check=check_positive_pair), Attr("dilation", (1, 1), check_positive_pair),
                 Attr("padding", (0, 0), check_nonneg_pair), Attr("stride", (1, 1), check_positive_pair))

_im2col = defop(
    "im2col",
    inputs=("x",),
    out=False,
    attrs=_WINDOW_ATTRS,
    infer_meta=_im2col_meta,
    doc="every kernel_size window of (N, C, H, W) (or (C, H, W)) as a column of (N, C kH kW, L), L the windows",
)

_col2im = defop(
    "col2im",
    inputs=("x",),
    out=False,
    attrs=(Attr("output_size", check=check_pair), *_WINDOW_ATTRS),
    infer_meta=_col2im_meta,
    doc="columns (N, C kH kW, L) (or unbatched) summed back into (N, C, *output_size), overlapping windows adding up",
)


@_im2col.def_backward
def _im2col_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """im2col copies; its adjoint adds every copy back: col2im to the input's size."""
    a = ctx.attrs
    size = tuple(ctx.input_shape(0)[-2:])
    return (ctx.ops.col2im(grad, size, a["kernel_size"], a["dilation"], a["padding"], a["stride"]),)


@_col2im.def_backward
def _col2im_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """col2im sums; its adjoint hands every summand the sum's gradient: im2col."""
    a = ctx.attrs
    return (ctx.ops.im2col(grad, a["kernel_size"], a["dilation"], a["padding"], a["stride"]),)


def _fold_args(op: str, sizes: tuple[tuple[str, Any], ...]) -> tuple[tuple[int, ...], ...]:
    """Each argument as a pair (an int repeated), checked as PyTorch's ``im2col_shape_check``, in its order."""
    pairs = {}
    for name, v in sizes:
        if isinstance(v, (tuple, list)):
            if len(v) != 2:
                raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
            items = tuple(v)
        else:
            items = (v, v)
        for pos, item in enumerate(items):
            if not _is_int(item):
                raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, but found element of type "
                                f"{type_name(item)} at pos {pos}")
        pairs[name] = tuple(int(i) for i in items)
    for name, words, low in (("kernel_size", "kernel size", 1), ("dilation", "dilation", 1),
                             ("padding", "padding", 0), ("stride", "stride", 1)):
        a, b = pairs[name]
        if min(a, b) < low:
            label = name.split("_")[0] if name != "kernel_size" else "kernel"
            label = "pad" if name == "padding" else label
            raise RuntimeError(f"{words} should be {'greater than zero' if low else 'non-negative'}, but got "
                               f"{label}_height: {a} {label}_width: {b}")
    return tuple(pairs.values())


def _check_blocks(hw: tuple[int, ...], k: tuple[int, ...], d: tuple[int, ...], p: tuple[int, ...],
                  s: tuple[int, ...]) -> tuple[int, ...]:
    blocks = _blocks(hw, k, d, p, s)
    if min(blocks) <= 0:
        raise RuntimeError(f"Given input with spatial size {hw}, kernel_size={k}, dilation={d}, padding={p}, calculated "
                           f"shape of the array of sliding blocks as {blocks}, but its components must be at least one.")
    return blocks


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """im2col: every ``kernel_size`` window of ``(N, C, H, W)`` (or ``(C, H, W)``) as a column of
    ``(N, C * kH * kW, L)``, ``L`` the number of windows. One op, ``Im2ColBackward0``, as PyTorch's."""
    op = "im2col"
    check_tensor("unfold", "input", 0, input)
    k, d, p, s = _fold_args(op, (("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding),
                                 ("stride", stride)))
    if input.ndim == 0:  # PyTorch reads a size of the input before it checks the rank
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{input.ndim}, {input.ndim - 1}], "
                         f"but got {input.ndim})")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    _check_blocks(tuple(input.shape[-2:]), k, d, p, s)
    return _im2col(input, k, d, p, s)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """col2im, the adjoint of ``unfold``: columns ``(N, C * kH * kW, L)`` (or unbatched) summed back into
    ``(N, C, *output_size)``, overlapping windows adding up. One op, ``Col2ImBackward0``, as PyTorch's."""
    op = "col2im"
    check_tensor("fold", "input", 0, input)
    out_hw, k, d, p, s = _fold_args(op, (("output_size", output_size), ("kernel_size", kernel_size),
                                         ("dilation", dilation), ("padding", padding), ("stride", stride)))
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    rows = input.shape[-2]
    if rows % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={rows} and kernel_size={k}.")
    blocks = _check_blocks(out_hw, k, d, p, s)
    if input.shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={out_hw}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={input.shape[-1]}.")
    return _col2im(input, out_hw, k, d, p, s)
