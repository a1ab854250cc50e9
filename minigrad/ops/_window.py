"""What the sliding-window composites (``conv2d`` in ``convolution.py``, ``max_pool2d`` in ``pooling.py``) share.

Both take PyTorch's long argument lists positionally or by keyword, both turn
``kernel_size``/``stride``/``padding``/``dilation`` from an int or a pair into
a pair, and both pad the last two dims of a batched NCHW input (zeros for
``padding="same"``, ``-inf`` for ``ceil_mode``'s partial windows). Kept here
so neither module reaches into the other's private names.

NOTE [ Window arguments are checked first ]
    kernel_size, stride, padding, dilation and groups are checked for zero,
    negative and too-large values before any op runs, with PyTorch's error
    class (RuntimeError) and words, naming the argument: a zero kernel or
    stride would otherwise reach an integer division, a negative dilation a
    NumPy slice, and a refused call must leave no node behind.

Example:
    >>> from minigrad.ops._window import POOL_ARGS, bind_args, int_pair
    >>> a = bind_args("max_pool2d", POOL_ARGS, ("x", 3), {"stride": (2, 1)})
    >>> int_pair("max_pool2d", "kernel_size", a["kernel_size"]), int_pair("max_pool2d", "stride", a["stride"])
    ((3, 3), (2, 1))
"""

from __future__ import annotations

from typing import Any

from ..devices import filled_array
from ..tensor import Tensor
from ._checks import check_pair
from .shape import concat

#: ``conv2d``'s and ``max_pool2d``'s arguments in PyTorch's order (a name's index is its position in errors).
CONV_ARGS = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
POOL_ARGS = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")


def bind_args(op: str, names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``args`` and ``kwargs`` as one dict by argument name, refused as Python refuses a bad call."""
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


def int_pair(op: str, name: str, v: Any) -> tuple[int, int]:
    """An int or a pair of ints as ``(h, w)``; ``TypeError`` naming ``op``'s argument otherwise (``check_pair``)."""
    return check_pair(op, name, (CONV_ARGS if op == "conv2d" else POOL_ARGS).index(name), v)


def _block(x: Tensor, shape: tuple[int, ...], value: float) -> Tensor:
    """A constant block of ``value`` on ``x``'s device: on a GPU a fill there (a host array copied at every call
    would make the host wait for the device each time)."""
    return Tensor._make(filled_array(shape, value, x.dtype.np, x.device), x.dtype, x.device)


def pad_hw(x: Tensor, top: int, bottom: int, left: int, right: int, value: float = 0.0) -> Tensor:
    """Pad the last two dims of an NCHW ``x`` with ``value`` (a concat of constant blocks, so the gradient is a slice)."""
    n, c, h, w = x.shape
    if top or bottom:
        parts = ([_block(x, (n, c, top, w), value)] if top else []) + [x] + (
            [_block(x, (n, c, bottom, w), value)] if bottom else [])
        x = concat(parts, dim=2)
        h += top + bottom
    if left or right:
        parts = ([_block(x, (n, c, h, left), value)] if left else []) + [x] + (
            [_block(x, (n, c, h, right), value)] if right else [])
        x = concat(parts, dim=3)
    return x
