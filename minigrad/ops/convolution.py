"""Convolutions in PyTorch's forms: ``conv2d`` (every argument form), ``conv1d``,
``conv_transpose1d``/``conv_transpose2d``, ``unfold`` (im2col) and ``fold`` (col2im). All composite,
built on the ``conv2d`` op and its gradient ops, defined first in this file.

- ``conv2d``: the op takes a batched NCHW input, ``stride`` and symmetric
  ``padding``; the other forms reduce to it with other ops, so their
  gradients are those ops' gradients: an **unbatched input** ``(C, H, W)`` is
  ``unsqueeze``d; ``padding="valid"`` is 0; ``padding="same"`` pads
  ``dilation * (k - 1)`` in total per dim, the odd one on the bottom/right
  (as PyTorch), with a ``concat`` of zeros where it is not symmetric;
  **dilation** spreads the kernel by scattering it into a larger zero kernel
  (``getitem_grad``, the adjoint of slicing ``[::d]``); **groups** split the
  channels, each group convolved with its slice of the weight, the results
  joined (``concat``).

- ``conv1d`` is ``conv2d`` over a height of 1 (``unsqueeze``, ``conv2d``, ``squeeze``),
  so its nodes and gradients are ``conv2d``'s.
- A **transposed convolution** is the gradient of a convolution with respect
  to its input: ``conv_transpose2d(x, w)`` runs the ``conv2d_input_grad`` op
  with ``x`` in the place of the output gradient. That op's backward is made
  of ``conv2d`` and ``conv2d_weight_grad``, so the gradients of ``x`` and ``w``
  come from the same three ops that serve ``conv2d``. ``dilation`` spreads
  the kernel (``getitem_grad`` of ``[::d]``), ``groups`` splits the channels,
  ``output_padding`` adds rows/columns to the output size only
  (NOTE [ The transposed convolution's full output ]).
- ``unfold`` gathers every ``kernel_size`` window into a column with one
  ``getitem`` of index arrays (after ``constant_pad_nd``); ``fold`` is its
  adjoint: ``getitem_grad`` scatter-adds the columns back, summing where
  windows overlap, then the padding is cropped.

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

from ..dtypes import FLOAT_DTYPES
from ..errors import ShapeError
from ..kernels import infer_meta as im
from ..kernels.key import Backend, Layout
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_nonneg_pair, check_positive_pair, check_shape, check_tensor, check_tensors
from ._window import CONV_ARGS, bind_args, int_pair, pad_hw
from .math import add
from .padding import constant_pad_nd
from .registry import Attr, Input, defop, type_name
from .shape import concat, getitem, getitem_grad, reshape, squeeze, unsqueeze

__all__ = ["conv2d", "conv1d", "conv_transpose1d", "conv_transpose2d", "conv2d_input_grad", "conv2d_weight_grad"]  # conv2d: the form; the op is _conv2d_op


# -- the conv2d op (batched NCHW, stride, symmetric padding) and its two gradient ops ----------

def _windows(x, kh, kw, stride, padding):
    """(N, C, OH, OW, kh, kw) windows of the zero-padded input."""
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = sliding_window_view(x, (kh, kw), axis=(2, 3))
    return win[:, :, :: stride[0], :: stride[1]]


_CONV_ATTRS = (Attr("stride", (1, 1), check_positive_pair), Attr("padding", (0, 0), check_nonneg_pair))

@register_kernel("conv2d", Backend.CPU, layout=Layout.NCHW, dtypes=FLOAT_DTYPES, name="cpu/conv2d")
def conv2d_cpu(x, weight, bias=None, stride=(1, 1), padding=(0, 0)):
    _, _, kh, kw = weight.shape
    win = _windows(x, kh, kw, stride, padding)
    out = np.tensordot(win, weight, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, O
    out = out.transpose(0, 3, 1, 2)
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
def conv2d_nhwc(x, weight, bias=None, stride=(1, 1), padding=(0, 0)):
    """Cross-correlation of ``x`` (N, H, W, C) with ``weight`` (O, kH, kW, C) -> (N, OH, OW, O)."""
    _, kh, kw, _ = weight.shape
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    # (N, OH', OW', C, kh, kw) windows, then the strided ones.
    win = sliding_window_view(x, (kh, kw), axis=(1, 2))[:, :: stride[0], :: stride[1]]
    # Contract C, kh, kw: channels stay last, as the layout promises.
    out = np.tensordot(win, weight, axes=([3, 4, 5], [3, 1, 2]))  # N, OH, OW, O
    if bias is not None:
        out = out + bias
    return np.ascontiguousarray(out, dtype=x.dtype)


_conv2d_op = defop(
    "conv2d",
    inputs=("x", "weight", Input("bias", optional=True)),
    attrs=_CONV_ATTRS,
    infer_meta=im.conv2d,
    save=("x", "weight"),
    doc="2-D convolution (cross-correlation), NCHW input, OIHW weight",
    amp="allow",
)


@_conv2d_op.def_backward
def _conv2d_backward(ctx, g):
    x, w = ctx.saved()
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    ops = ctx.ops
    gx = ops.conv2d_input_grad(g, w, x.shape, stride, padding) if ctx.needs(0) else None
    gw = ops.conv2d_weight_grad(x, g, w.shape, stride, padding) if ctx.needs(1) else None
    gb = ops.sum(g, dim=(0, 2, 3)) if ctx.needs(2) else None
    return gx, gw, gb


def _input_grad_meta(op: str, grad: Any, weight: Any, x_shape: tuple[int, ...], stride: Any = (1, 1), padding: Any = (0, 0)) -> Any:
    return tuple(x_shape), grad.dtype


def _weight_grad_meta(op: str, x: Any, grad: Any, w_shape: tuple[int, ...], stride: Any = (1, 1), padding: Any = (0, 0)) -> Any:
    return tuple(w_shape), x.dtype


@register_kernel("conv2d_input_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv2d_input_grad")
def conv2d_input_grad_cpu(grad, weight, x_shape, stride=(1, 1), padding=(0, 0)):
    n, c, h, w = x_shape
    _, _, kh, kw = weight.shape
    ph, pw = padding
    _, _, oh, ow = grad.shape
    cols = np.tensordot(grad, weight, axes=([1], [0]))  # N, OH, OW, C, kh, kw
    dxp = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=grad.dtype)
    sh, sw = stride
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i : i + sh * oh : sh, j : j + sw * ow : sw] += cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
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
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    ops = ctx.ops
    return (
        ops.conv2d(h, w, None, stride, padding) if ctx.needs(0) else None,
        ops.conv2d_weight_grad(h, g, w.shape, stride, padding) if ctx.needs(1) else None,
    )


@register_kernel("conv2d_weight_grad", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/conv2d_weight_grad")
def conv2d_weight_grad_cpu(x, grad, w_shape, stride=(1, 1), padding=(0, 0)):
    _, _, kh, kw = w_shape
    win = _windows(x, kh, kw, stride, padding)  # N, C, OH, OW, kh, kw
    dw = np.tensordot(grad, win, axes=([0, 2, 3], [0, 2, 3]))  # O, C, kh, kw
    return np.ascontiguousarray(dw, dtype=x.dtype)


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
    stride, padding = ctx.attrs["stride"], ctx.attrs["padding"]
    ops = ctx.ops
    return (
        ops.conv2d_input_grad(g, k, x.shape, stride, padding) if ctx.needs(0) else None,
        ops.conv2d(x, k, None, stride, padding) if ctx.needs(1) else None,
    )


def _check_conv_args(x: Any, weight: Any, stride: tuple[int, int], padding: Any, dilation: tuple[int, int],
                     groups: Any) -> None:
    """conv2d's argument values (NOTE [ Window arguments are checked first ] in ``_window.py``)."""
    if min(stride) <= 0:
        raise RuntimeError(f"conv2d(): argument 'stride': non-positive stride is not supported, but got {stride}")
    if not isinstance(padding, str) and min(int_pair("conv2d", "padding", padding)) < 0:
        raise RuntimeError(f"conv2d(): argument 'padding': negative padding is not supported, but got {padding!r}")
    if min(dilation) <= 0:
        raise RuntimeError(f"conv2d(): argument 'dilation' should be greater than zero, but got {dilation}")
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(f"conv2d(): argument 'groups' (position 6) must be int, but got {type(groups).__name__}")
    if groups <= 0:
        raise RuntimeError(f"conv2d(): argument 'groups': non-positive groups is not supported, but got {groups}")
    if isinstance(weight, Tensor) and weight.ndim == 4:
        if weight.shape[0] < groups:
            raise RuntimeError(f"conv2d(): Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
                               f"but got weight of size {list(weight.shape)} instead")
        if min(weight.shape[2:]) <= 0:
            raise RuntimeError(f"conv2d(): kernel size should be greater than zero, but got weight of size {list(weight.shape)}")


def conv2d(*args: Any, **kwargs: Any) -> Tensor:
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` as ``torch.nn.functional.conv2d``.
    Composite (the ``conv2d`` op with ``getitem``/``getitem_grad``/``concat``).

    ``input`` is ``(N, C, H, W)`` or unbatched ``(C, H, W)``; ``padding`` an
    int, a pair, ``"valid"`` or ``"same"``; ``weight`` is ``(O, C / groups, kH, kW)``.
    """
    a = bind_args("conv2d", CONV_ARGS, args, kwargs)
    dilation = int_pair("conv2d", "dilation", a.get("dilation", 1))
    groups = a.get("groups", 1)
    padding = a.get("padding", 0)
    x, weight = a.get("input"), a.get("weight")
    _check_conv_args(x, weight, int_pair("conv2d", "stride", a.get("stride", 1)), padding, dilation, groups)
    plain = dilation == (1, 1) and groups == 1 and not isinstance(padding, str) and not (
        isinstance(x, Tensor) and x.ndim == 3)
    if plain:  # the op itself, with its own argument checks and messages
        return _conv2d_op(*args[:5], **{k: v for k, v in kwargs.items() if k not in ("dilation", "groups")})
    if not isinstance(x, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("conv2d(): 'input' and 'weight' must be Tensors")
    bias, stride = a.get("bias"), int_pair("conv2d", "stride", a.get("stride", 1))
    unbatched = x.ndim == 3
    if unbatched:
        x = unsqueeze(x, 0)
    if x.ndim != 4 or weight.ndim != 4:
        raise ShapeError(f"conv2d(): expected a 3-D or 4-D input and a 4-D weight, but got {tuple(x.shape)} and {tuple(weight.shape)}")
    o, ci, kh, kw = weight.shape
    if x.shape[1] != ci * groups or o % groups:
        raise ShapeError(
            f"conv2d(): input with {x.shape[1]} channels and weight {tuple(weight.shape)} do not fit groups={groups} "
            f"(need in_channels = {ci} * groups and out_channels divisible by groups)"
        )
    if dilation != (1, 1):  # spread the kernel: w_d[:, :, ::dh, ::dw] = w
        kh, kw = dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1
        weight = getitem_grad(weight, (slice(None), slice(None), slice(None, None, dilation[0]),
                                       slice(None, None, dilation[1])), (o, ci, kh, kw))
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise ShapeError("conv2d(): padding='same' is not supported for strided convolutions (as in PyTorch)")
            th, tw = kh - 1, kw - 1
            if th % 2 or tw % 2:
                x = pad_hw(x, th // 2, th - th // 2, tw // 2, tw - tw // 2)
                pad = (0, 0)
            else:
                pad = (th // 2, tw // 2)
        else:
            raise ShapeError(f"conv2d(): padding must be an int, a pair, 'valid' or 'same', but got {padding!r}")
    else:
        pad = int_pair("conv2d", "padding", padding)
    if groups == 1:
        out = _conv2d_op(x, weight, bias, stride, pad)
    else:
        og = o // groups
        outs = []
        for g in range(groups):
            xg = getitem(x, (slice(None), slice(g * ci, (g + 1) * ci)))
            wg = getitem(weight, (slice(g * og, (g + 1) * og),))
            bg = getitem(bias, (slice(g * og, (g + 1) * og),)) if bias is not None else None
            outs.append(_conv2d_op(xg, wg, bg, stride, pad))
        out = concat(outs, dim=1)
    return squeeze(out, 0) if unbatched else out


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
        raise RuntimeError(f"{op}(): non-positive groups is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(f"{op}(): Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{list(weight.shape)}] instead")
    return int(groups)


def _check_bias(op: str, bias: Any, n: int, weight: Tensor, transposed: bool) -> None:
    if bias is not None and tuple(bias.shape) != (n,):
        raise RuntimeError(f"{op}(): Given {'transposed=1, ' if transposed else ''}weight of size {list(weight.shape)}, "
                           f"expected bias to be 1-dimensional with {n} elements, but got bias of size {list(bias.shape)} instead")


def _check_operands(op: str, input: Any, weight: Any, bias: Any, groups: Any, rank: int, weight_dims: str) -> int:
    """The tensors, their ranks (a ``rank``-D weight; a ``rank``-D input, or one less unbatched) and ``groups``,
    in PyTorch's words (``weight_dims``: how many and which, as its message says them); returns ``groups``."""
    _check_tensors(op, input, weight, bias)
    if input.ndim not in (rank - 1, rank):
        raise RuntimeError(f"{op}(): Expected {rank - 1}D (unbatched) or {rank}D (batched) input to {op}, but got input "
                           f"of size: {list(input.shape)}")
    if weight.ndim != rank:
        raise RuntimeError(f"{op}(): weight should have {weight_dims}, but got {list(weight.shape)}")
    return _check_groups(op, groups, weight)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution of ``(N, C, L)`` or ``(C, L)`` with ``weight`` ``(O, C / groups, K)``: ``conv2d`` over a height of 1.

    ``padding`` is an int, a 1-tuple, ``"valid"`` or ``"same"``.
    """
    op = "conv1d"
    groups = _check_operands(op, input, weight, bias, groups, 3,
                             "three dimensions (out_channels, in_channels / groups, kernel)")
    channels = input.shape[-2]
    if channels != weight.shape[1] * groups:
        raise RuntimeError(f"{op}(): Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got {channels} channels instead")
    _check_bias(op, bias, weight.shape[0], weight, False)
    (s,), (d,) = _tuple(op, "stride", stride, 1), _tuple(op, "dilation", dilation, 1)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ShapeError(f"{op}(): Invalid padding string {padding!r}, should be one of ('valid', 'same')")
        pad2: Any = padding
    else:
        (p,) = _tuple(op, "padding", padding, 1)
        pad2 = (0, p)
        if input.shape[-1] + 2 * p < d * (weight.shape[-1] - 1) + 1:
            raise RuntimeError(f"{op}(): Calculated padded input size per channel: ({input.shape[-1] + 2 * p}). Kernel size: "
                               f"({d * (weight.shape[-1] - 1) + 1}). Kernel size can't be greater than actual input size")
    out = conv2d(unsqueeze(input, -2), unsqueeze(weight, -2), bias, (1, s), pad2, (1, d), groups)
    return squeeze(out, -2)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 2-D convolution ("deconvolution") of ``(N, C_in, H, W)`` or ``(C_in, H, W)`` with ``weight``
    ``(C_in, C_out / groups, kH, kW)``: the gradient of ``conv2d`` with respect to its input (``conv2d_input_grad``).

    The output is ``(H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1`` high (and so wide).
    """
    op = "conv_transpose2d"
    groups = _check_operands(op, input, weight, bias, groups, 4,
                             "four dimensions (in_channels, out_channels / groups, kH, kW)")
    cin, cout_g, kh, kw = weight.shape
    if input.shape[-3] != cin:
        raise RuntimeError(f"{op}(): Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {cin} channels, but got {input.shape[-3]} channels instead")
    _check_bias(op, bias, cout_g * groups, weight, True)
    s, p = _tuple(op, "stride", stride, 2), _tuple(op, "padding", padding, 2)
    op_, d = _tuple(op, "output_padding", output_padding, 2), _tuple(op, "dilation", dilation, 2)
    if min(s) <= 0 or min(d) <= 0 or min(p) < 0 or min(op_) < 0:
        raise RuntimeError(f"{op}(): stride and dilation must be positive, padding and output_padding non-negative")
    if any(o >= st and o >= dl for o, st, dl in zip(op_, s, d)):
        raise RuntimeError(f"{op}(): output padding must be smaller than either stride or dilation, but got "
                           f"output_padding {op_}, stride {s}, dilation {d}")
    keff = (d[0] * (kh - 1) + 1, d[1] * (kw - 1) + 1)
    h, w = input.shape[-2:]
    out_hw = tuple((n - 1) * st - 2 * pp + k + o for n, st, pp, k, o in zip((h, w), s, p, keff, op_))
    if min(out_hw) <= 0:
        raise RuntimeError(f"{op}(): the output size {out_hw} is too small (input ({h}, {w}), stride {s}, padding {p})")
    # NOTE [ The transposed convolution's full output ]
    #     conv2d_input_grad is run unpadded, to the full size every window reaches,
    #     (H - 1) * stride + k; padding then crops, output_padding appends zeros.
    #     Its own backward (conv2d, conv2d_weight_grad) needs exactly that size:
    #     a larger one (output_padding >= stride, allowed with dilation) would
    #     give those ops one window more than the input has.
    full = tuple((n - 1) * st + k for n, st, k in zip((h, w), s, keff))
    unbatched = input.ndim == 3
    x = unsqueeze(input, 0) if unbatched else input
    if d != (1, 1):  # spread the kernel: w_d[:, :, ::dh, ::dw] = w
        weight = getitem_grad(weight, (slice(None), slice(None), slice(None, None, d[0]), slice(None, None, d[1])),
                              (cin, cout_g) + keff)
    n = x.shape[0]
    cin_g = cin // groups
    outs = []
    for g in range(groups):
        xg = x if groups == 1 else getitem(x, (slice(None), slice(g * cin_g, (g + 1) * cin_g)))
        wg = weight if groups == 1 else getitem(weight, (slice(g * cin_g, (g + 1) * cin_g),))
        outs.append(conv2d_input_grad(xg, wg, (n, cout_g) + full, s, (0, 0)))
    out = outs[0] if groups == 1 else concat(outs, dim=1)
    if p != (0, 0) or op_ != (0, 0):  # crop the padding; output_padding adds rows no window reaches (zeros)
        out = constant_pad_nd(out, (-p[1], op_[1] - p[1], -p[0], op_[0] - p[0]))
    if bias is not None:
        out = add(out, reshape(bias, (-1, 1, 1)))
    return squeeze(out, 0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """Transposed 1-D convolution of ``(N, C_in, L)`` or ``(C_in, L)``: ``conv_transpose2d`` over a height of 1."""
    op = "conv_transpose1d"
    _check_tensors(op, input, weight, bias)
    if input.ndim not in (2, 3) or weight.ndim != 3:
        raise RuntimeError(f"{op}(): Expected 2D (unbatched) or 3D (batched) input and a 3D weight, but got input of "
                           f"size {list(input.shape)} and weight of size {list(weight.shape)}")
    (s,), (p,) = _tuple(op, "stride", stride, 1), _tuple(op, "padding", padding, 1)
    (o,), (d,) = _tuple(op, "output_padding", output_padding, 1), _tuple(op, "dilation", dilation, 1)
    out = conv_transpose2d(unsqueeze(input, -2), unsqueeze(weight, -2), bias, (1, s), (0, p), (0, o), groups, (1, d))
    return squeeze(out, -2)


# -- unfold / fold -------------------------------------------------------------------------

def _blocks(op: str, hw: tuple[int, int], k: tuple[int, ...], d: tuple[int, ...], p: tuple[int, ...],
            s: tuple[int, ...]) -> tuple[int, int]:
    blocks = tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip(hw, k, d, p, s))
    if min(blocks) <= 0:
        raise RuntimeError(f"{op}(): Given input with spatial size {hw}, kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as {blocks}, but its components must be at least one.")
    return blocks  # type: ignore[return-value]


def _window_index(k: tuple[int, ...], d: tuple[int, ...], s: tuple[int, ...], blocks: tuple[int, int]) -> tuple[Any, ...]:
    """Index arrays ``R (kh, 1, oh, 1)`` and ``C (1, kw, 1, ow)``: ``x[:, :, R, C]`` is ``(N, C, kh, kw, oh, ow)``."""
    rows = np.arange(k[0]).reshape(-1, 1, 1, 1) * d[0] + np.arange(blocks[0]).reshape(1, 1, -1, 1) * s[0]
    cols = np.arange(k[1]).reshape(1, -1, 1, 1) * d[1] + np.arange(blocks[1]).reshape(1, 1, 1, -1) * s[1]
    return (slice(None), slice(None), rows, cols)


def _fold_args(op: str, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple[tuple[int, ...], ...]:
    k, d = _tuple(op, "kernel_size", kernel_size, 2), _tuple(op, "dilation", dilation, 2)
    p, s = _tuple(op, "padding", padding, 2), _tuple(op, "stride", stride, 2)
    if min(k) <= 0 or min(d) <= 0 or min(s) <= 0 or min(p) < 0:
        raise RuntimeError(f"{op}(): kernel_size, dilation and stride must be positive and padding non-negative, but got "
                           f"kernel_size={k}, dilation={d}, padding={p}, stride={s}")
    return k, d, p, s


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """im2col: every ``kernel_size`` window of ``(N, C, H, W)`` (or ``(C, H, W)``) as a column of
    ``(N, C * kH * kW, L)``, ``L`` the number of windows. Composite (``constant_pad_nd``, ``getitem``, ``reshape``)."""
    op = "unfold"
    check_tensor(op, "input", 0, input)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{op}(): Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    k, d, p, s = _fold_args(op, kernel_size, dilation, padding, stride)
    blocks = _blocks(op, tuple(input.shape[-2:]), k, d, p, s)
    unbatched = input.ndim == 3
    x = unsqueeze(input, 0) if unbatched else input
    if p != (0, 0):
        x = constant_pad_nd(x, (p[1], p[1], p[0], p[0]))
    n, c = x.shape[:2]
    cols = reshape(getitem(x, _window_index(k, d, s, blocks)), (n, c * k[0] * k[1], blocks[0] * blocks[1]))
    return squeeze(cols, 0) if unbatched else cols


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """col2im, the adjoint of ``unfold``: columns ``(N, C * kH * kW, L)`` (or unbatched) summed back into
    ``(N, C, *output_size)``, overlapping windows adding up. Composite (``getitem_grad``, ``constant_pad_nd``)."""
    op = "fold"
    check_tensor(op, "input", 0, input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{op}(): Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                           f"(got {input.ndim}D)")
    out_hw = _tuple(op, "output_size", output_size, 2)
    k, d, p, s = _fold_args(op, kernel_size, dilation, padding, stride)
    rows = input.shape[-2]
    if rows % (k[0] * k[1]):
        raise RuntimeError(f"{op}(): Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={rows} and kernel_size={k}.")
    blocks = _blocks(op, out_hw, k, d, p, s)
    if input.shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"{op}(): Given output_size={out_hw}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={input.shape[-1]}.")
    unbatched = input.ndim == 2
    x = unsqueeze(input, 0) if unbatched else input
    n, c = x.shape[0], rows // (k[0] * k[1])
    windows = reshape(x, (n, c) + k + blocks)
    padded = (n, c, out_hw[0] + 2 * p[0], out_hw[1] + 2 * p[1])
    out = getitem_grad(windows, _window_index(k, d, s, blocks), padded)
    if p != (0, 0):
        out = constant_pad_nd(out, (-p[1], -p[1], -p[0], -p[0]))
    return squeeze(out, 0) if unbatched else out
