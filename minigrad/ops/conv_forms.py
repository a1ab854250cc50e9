"""PyTorch's argument forms of ``conv2d`` and ``max_pool2d``, built on the registered ops.

The ``conv2d`` and ``max_pool2d`` ops take a batched NCHW input, ``stride``
and symmetric ``padding``. The forms below reduce to them with other ops, so
their gradients are those ops' gradients:

- **unbatched input** ``(C, H, W)``: ``unsqueeze`` a batch dim, ``squeeze`` it after;
- ``padding="valid"`` is 0; ``padding="same"`` pads ``dilation * (k - 1)``
  in total per dim, the odd one on the bottom/right (as PyTorch), with a
  ``concat`` of zeros where it is not symmetric;
- **dilation** (conv): the kernel is spread out by scattering it into a
  larger zero kernel (``getitem_grad``, the adjoint of slicing ``[::d]``);
- **groups**: the channels are split into groups, each convolved with its
  slice of the weight, and the results joined (``concat``);
- **dilation** (pool): windows are gathered with integer indexing and reduced with ``amax``;
- ``ceil_mode``: extra ``-inf`` rows/columns on the bottom/right so the last partial window counts;
- ``return_indices``: the flat ``H * W`` position of each window's maximum (no gradient).

Example:
    >>> import minigrad as mg
    >>> x, w = mg.ones(1, 5, 5), mg.ones(2, 1, 3, 3)
    >>> mg.conv2d(x, w, padding="same").shape
    (2, 5, 5)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..kernels.backends import move_array, to_numpy
from ..tensor import Tensor
from .nn import _max_pool2d
from .nn import conv2d as _conv2d_op
from .reduce import max as _max
from .shape import concat, getitem, getitem_grad, squeeze, unsqueeze

__all__ = ["conv2d", "max_pool2d"]

_CONV_ARGS = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
_POOL_ARGS = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")


def _bind(op: str, names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    if len(args) > len(names):
        raise TypeError(f"{op}() takes at most {len(names)} arguments ({', '.join(names)}) but {len(args)} were given")
    out = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{op}() got an unexpected keyword argument '{k}' (arguments: {', '.join(names)})")
        if k in out:
            raise TypeError(f"{op}() got multiple values for argument '{k}'")
        out[k] = v
    return out


def _pair(op: str, name: str, v: Any) -> tuple[int, int]:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v), int(v))
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(d, (int, np.integer)) for d in v):
        return (int(v[0]), int(v[1]))
    pos = (_CONV_ARGS if op == "conv2d" else _POOL_ARGS).index(name)
    raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be an int or a pair of ints, but got {v!r}")


# NOTE [ Window arguments are checked first ]
#     kernel_size, stride, padding, dilation and groups are checked for zero,
#     negative and too-large values before any op runs, with PyTorch's error
#     class (RuntimeError) and words, naming the argument: a zero kernel or
#     stride would otherwise reach an integer division, a negative dilation a
#     NumPy slice, and a refused call must leave no node behind.


def _check_conv_args(x: Any, weight: Any, stride: tuple[int, int], padding: Any, dilation: tuple[int, int],
                     groups: Any) -> None:
    """conv2d's argument values (NOTE [ Window arguments are checked first ])."""
    if min(stride) <= 0:
        raise RuntimeError(f"conv2d(): argument 'stride': non-positive stride is not supported, but got {stride}")
    if not isinstance(padding, str) and min(_pair("conv2d", "padding", padding)) < 0:
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


def _check_pool_args(x: Tensor, k: tuple[int, int], s: tuple[int, int], p: tuple[int, int],
                     d: tuple[int, int]) -> None:
    """max_pool2d's argument values (NOTE [ Window arguments are checked first ])."""
    if min(k) <= 0:
        raise RuntimeError(f"max_pool2d(): argument 'kernel_size' should be greater than zero, but got {k}")
    if min(s) <= 0:
        raise RuntimeError(f"max_pool2d(): argument 'stride' should be greater than zero, but got {s}")
    if min(d) <= 0:
        raise RuntimeError(f"max_pool2d(): argument 'dilation' should be greater than zero, but got {d}")
    if min(p) < 0:
        raise RuntimeError(f"max_pool2d(): argument 'padding' must be non-negative, but got {p}")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError(f"max_pool2d(): padding should be at most half of the kernel size, "
                           f"got padding {p} for kernel_size {k}")
    if x.ndim not in (3, 4) or 0 in tuple(x.shape)[-3:]:
        raise ValueError(f"max_pool2d(): expected a 3-D or 4-D (batch mode) input with non-zero sizes except the "
                         f"batch, but got shape {tuple(x.shape)}")


def _zeros_like_part(x: Tensor, shape: tuple[int, ...], value: float = 0.0) -> Tensor:
    arr = np.full(shape, value, dtype=x.dtype.np)
    return Tensor._make(arr if x.device == "cpu" else move_array(arr, "cpu", x.device), x.dtype, x.device)


def _pad_hw(x: Tensor, top: int, bottom: int, left: int, right: int, value: float = 0.0) -> Tensor:
    """Pad the last two dims with ``value`` (a concat of constant blocks, so the gradient is a slice)."""
    n, c, h, w = x.shape
    if top or bottom:
        parts = ([_zeros_like_part(x, (n, c, top, w), value)] if top else []) + [x] + (
            [_zeros_like_part(x, (n, c, bottom, w), value)] if bottom else [])
        x = concat(parts, dim=2)
        h += top + bottom
    if left or right:
        parts = ([_zeros_like_part(x, (n, c, h, left), value)] if left else []) + [x] + (
            [_zeros_like_part(x, (n, c, h, right), value)] if right else [])
        x = concat(parts, dim=3)
    return x


def conv2d(*args: Any, **kwargs: Any) -> Tensor:
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`` as ``torch.nn.functional.conv2d``.

    ``input`` is ``(N, C, H, W)`` or unbatched ``(C, H, W)``; ``padding`` an
    int, a pair, ``"valid"`` or ``"same"``; ``weight`` is ``(O, C / groups, kH, kW)``.
    """
    a = _bind("conv2d", _CONV_ARGS, args, kwargs)
    dilation = _pair("conv2d", "dilation", a.get("dilation", 1))
    groups = a.get("groups", 1)
    padding = a.get("padding", 0)
    x, weight = a.get("input"), a.get("weight")
    _check_conv_args(x, weight, _pair("conv2d", "stride", a.get("stride", 1)), padding, dilation, groups)
    plain = dilation == (1, 1) and groups == 1 and not isinstance(padding, str) and not (
        isinstance(x, Tensor) and x.ndim == 3)
    if plain:  # the op itself, with its own argument checks and messages
        return _conv2d_op(*args[:5], **{k: v for k, v in kwargs.items() if k not in ("dilation", "groups")})
    if not isinstance(x, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("conv2d(): 'input' and 'weight' must be Tensors")
    bias, stride = a.get("bias"), _pair("conv2d", "stride", a.get("stride", 1))
    unbatched = x.ndim == 3
    if unbatched:
        x = unsqueeze(x, 0)
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"conv2d(): expected a 3-D or 4-D input and a 4-D weight, but got {tuple(x.shape)} and {tuple(weight.shape)}")
    o, ci, kh, kw = weight.shape
    if x.shape[1] != ci * groups or o % groups:
        raise ValueError(
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
                raise ValueError("conv2d(): padding='same' is not supported for strided convolutions (as in PyTorch)")
            th, tw = kh - 1, kw - 1
            if th % 2 or tw % 2:
                x = _pad_hw(x, th // 2, th - th // 2, tw // 2, tw - tw // 2)
                pad = (0, 0)
            else:
                pad = (th // 2, tw // 2)
        else:
            raise ValueError(f"conv2d(): padding must be an int, a pair, 'valid' or 'same', but got {padding!r}")
    else:
        pad = _pair("conv2d", "padding", padding)
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


def _pool_out(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (math.ceil(span / s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:  # the last window must start inside the input or its left padding
        out -= 1
    return out


def max_pool2d(*args: Any, **kwargs: Any) -> Any:
    """``max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)``.

    ``input`` is ``(N, C, H, W)`` or unbatched ``(C, H, W)``; with
    ``return_indices`` the result is ``(values, indices)``, the indices being
    flat positions in each ``H * W`` plane, as PyTorch's.
    """
    a = _bind("max_pool2d", _POOL_ARGS, args, kwargs)
    x = a.get("input")
    if not isinstance(x, Tensor):
        raise TypeError(f"max_pool2d(): argument 'input' (position 0) must be Tensor, but got {type(x).__name__}")
    if "kernel_size" not in a:
        raise TypeError("max_pool2d() missing required argument 'kernel_size' (position 1)")
    k = _pair("max_pool2d", "kernel_size", a["kernel_size"])
    stride = a.get("stride")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _pair("max_pool2d", "stride", stride)
    p = _pair("max_pool2d", "padding", a.get("padding", 0))
    d = _pair("max_pool2d", "dilation", a.get("dilation", 1))
    ceil_mode, return_indices = bool(a.get("ceil_mode", False)), bool(a.get("return_indices", False))
    _check_pool_args(x, k, s, p, d)
    c, h, w = tuple(x.shape)[-3:]
    oh, ow = _pool_out(h, k[0], s[0], p[0], d[0], ceil_mode), _pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"max_pool2d(): kernel {k} (dilation {d}) is larger than the padded input ({h}, {w}): "
                           f"given input size ({c}x{h}x{w}), calculated output size ({c}x{oh}x{ow}) is too small")
    unbatched = x.ndim == 3
    xb = unsqueeze(x, 0) if unbatched else x
    n = xb.shape[0]
    if d == (1, 1) and not ceil_mode:
        out = _max_pool2d(xb, k, s, p)
    else:
        # Pad with -inf to cover every window, then gather each window's elements and take their max.
        need_h, need_w = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1, (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
        xp = _pad_hw(xb, p[0], max(need_h - h - p[0], 0), p[1], max(need_w - w - p[1], 0), float("-inf"))
        rows = (np.arange(oh)[:, None] * s[0] + np.arange(k[0])[None, :] * d[0])  # (oh, kh)
        cols = (np.arange(ow)[:, None] * s[1] + np.arange(k[1])[None, :] * d[1])  # (ow, kw)
        r = rows[:, None, :, None]
        cc = cols[None, :, None, :]
        windows = getitem(xp, (slice(None), slice(None), r, cc))  # (n, c, oh, ow, kh, kw)
        out = _max(windows, dim=(-2, -1))
    if return_indices:
        idx = _argmax_positions(to_numpy(xb._data), k, s, p, d, oh, ow)
        data = idx if x.device == "cpu" else move_array(idx, "cpu", x.device)
        ind = Tensor._make(data, _dt.int64, x.device)
        if unbatched:
            return squeeze(out, 0), squeeze(ind, 0)
        return out, ind
    return squeeze(out, 0) if unbatched else out


max_pool2d.name = "max_pool2d"  # type: ignore[attr-defined]
max_pool2d.op = _max_pool2d  # type: ignore[attr-defined]


def _argmax_positions(x: np.ndarray, k: tuple[int, int], s: tuple[int, int], p: tuple[int, int], d: tuple[int, int],
                      oh: int, ow: int) -> np.ndarray:
    """Flat ``h * W + w`` index of each window's maximum (the first one on ties), as PyTorch returns."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow), dtype=np.int64)
    xf = x.astype(np.float64)
    for i in range(oh):
        for j in range(ow):
            hs = i * s[0] - p[0] + np.arange(k[0]) * d[0]
            ws = j * s[1] - p[1] + np.arange(k[1]) * d[1]
            hs, ws = hs[(hs >= 0) & (hs < h)], ws[(ws >= 0) & (ws < w)]
            win = xf[:, :, hs[:, None], ws[None, :]].reshape(n, c, -1)
            best = np.argmax(win, axis=-1)
            out[:, :, i, j] = hs[best // len(ws)] * w + ws[best % len(ws)]
    return out
