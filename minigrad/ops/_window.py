"""What the sliding-window composites (``conv2d`` in ``convolution.py``, ``max_pool2d`` in ``pooling.py``) share.

Both take PyTorch's long argument lists positionally or by keyword, and both
turn ``kernel_size``/``stride``/``padding``/``dilation`` from an int or a pair
into a pair. Kept here so neither module reaches into the other's private names.

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

from ..errors import ArgumentTypeError, ShapeError
from ._checks import _is_int, check_pair

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


#: PyTorch's words for a pooling window argument of the wrong length (``max_pool2d``'s meta function)
_PAIR_WORDS = {"kernel_size": "must either be a single int", "stride": "must either be omitted, a single int",
               "padding": "must either be a single int", "dilation": "must be either a single int"}


def int_pair(op: str, name: str, v: Any) -> tuple[int, int]:
    """An int or a pair of ints as ``(h, w)``; ``TypeError`` naming ``op``'s argument otherwise (``check_pair``).
    A pooling op also takes one int in a tuple, as PyTorch's, and refuses another length in PyTorch's words
    (checked only once ``check_pair`` has refused: the common call costs nothing more)."""
    try:
        return check_pair(op, name, (CONV_ARGS if op == "conv2d" else POOL_ARGS).index(name), v)
    except TypeError:
        if op == "conv2d" or not isinstance(v, (tuple, list)) or not all(_is_int(d) for d in v):
            raise
    if len(v) == 1:
        return (int(v[0]), int(v[0]))
    raise ArgumentTypeError(f"{op}: {name} {_PAIR_WORDS[name]}, or a tuple of two ints") from None


def check_window_dims(prefix: str, k: tuple[int, ...], s: tuple[int, ...], p: tuple[int, ...],
                      d: tuple[int, ...]) -> None:
    """PyTorch's ``pooling_output_shape`` checks of each dim's window, in its words and order: a zero stride, a
    negative padding, a padding past half the dilated kernel (``prefix``: the op's name where PyTorch's words
    carry it, as ``max_pool2d(): ``)."""
    for kk, ss, pp, dd in zip(k, s, p, d):
        if ss == 0:
            raise ShapeError(f"{prefix}stride should not be zero")
        if pp < 0:
            raise ShapeError(f"{prefix}pad must be non-negative, but got pad: {pp}")
        if pp > int(((kk - 1) * dd + 1) / 2):  # (C++'s division, toward zero)
            raise ShapeError(f"{prefix}pad should be at most half of effective kernel size, but got pad={pp}, "
                             f"kernel_size={kk} and dilation={dd}")
