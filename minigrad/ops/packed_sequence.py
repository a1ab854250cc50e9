"""Packing padded sequences: ATen's ``_pack_padded_sequence`` and its adjoint (``nn.utils.rnn`` uses them).

A batch of sequences of different lengths, padded to the longest, is packed into the rows that hold an
element: step 0 of every sequence, then step 1 of those at least two long, and so on (time-major;
``nn/utils/rnn.py`` keeps each step's count as ``batch_sizes``). PyTorch does this in one op with its own
node, ``PackPaddedSequenceBackward0``, whose gradient puts each row's gradient back where the element came
from and zeros in the padding - ``_pack_padded_sequence_backward``, the other op here. The two are each
other's adjoint, so each one's formula is the other.

Example:
    >>> import minigrad as mg
    >>> from minigrad.nn.utils.rnn import pack_padded_sequence
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 0.0]], requires_grad=True)  # (T=3, B=2): lengths 3 and 2
    >>> packed = pack_padded_sequence(x, [3, 2])
    >>> packed.data.tolist(), packed.batch_sizes.tolist(), packed.data.grad_fn.name()
    ([1.0, 2.0, 3.0, 4.0, 5.0], [2, 2, 1], 'PackPaddedSequenceBackward0')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import ALL_DTYPES
from ..kernels.array_kernels import pack_padded_arrays, pack_padded_backward_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import Attr, defop

__all__: list[str] = []  # nn.utils.rnn's (nn/utils/rnn.py)


def _pack_meta(op: str, input: Any, lengths: tuple[int, ...] = (), batch_first: bool = False) -> Any:
    steps = input.shape[1 if batch_first else 0]  # (a length past the input's steps takes what there is, as ATen's)
    return (sum(min(n, steps) for n in lengths),) + tuple(input.shape[2:]), input.dtype


def _unpack_meta(op: str, grad: Any, input_size: tuple[int, ...] = (), lengths: tuple[int, ...] = (),
                 batch_first: bool = False) -> Any:
    return tuple(input_size), grad.dtype


@register_kernel("_pack_padded_sequence", Backend.CPU, dtypes=ALL_DTYPES, name="cpu/_pack_padded_sequence")
def pack_padded_sequence_cpu(input: Any, lengths: tuple[int, ...] = (), batch_first: bool = False) -> Any:
    return pack_padded_arrays(np, input, lengths, batch_first)


@register_kernel("_pack_padded_sequence_backward", Backend.CPU, dtypes=ALL_DTYPES,
                 name="cpu/_pack_padded_sequence_backward")
def pack_padded_sequence_backward_cpu(grad: Any, input_size: tuple[int, ...] = (), lengths: tuple[int, ...] = (),
                                      batch_first: bool = False) -> Any:
    return pack_padded_backward_arrays(np, grad, input_size, lengths, batch_first)


pack_padded_sequence_op = defop(
    "_pack_padded_sequence", inputs=("input",),
    attrs=(Attr("lengths", ()), Attr("batch_first", False)), infer_meta=_pack_meta,
    doc="the rows of a padded batch (T, B, *) that hold an element, step after step; lengths in decreasing order",
)

pack_padded_sequence_backward_op = defop(
    "_pack_padded_sequence_backward", inputs=("grad",),
    attrs=(Attr("input_size", ()), Attr("lengths", ()), Attr("batch_first", False)), infer_meta=_unpack_meta,
    doc="the adjoint of _pack_padded_sequence: each packed row back in its place, zeros in the padding",
)


@pack_padded_sequence_op.def_backward
def _pack_padded_sequence_grad(ctx, grad):
    """Each row's gradient back where its element came from (``_pack_padded_sequence_backward``)."""
    a = ctx.attrs
    return (ctx.ops._pack_padded_sequence_backward(grad, input_size=tuple(ctx.input_shape(0)),
                                                   lengths=a["lengths"], batch_first=a["batch_first"]),)


@pack_padded_sequence_backward_op.def_backward
def _pack_padded_sequence_backward_grad(ctx, grad):
    """The rows of the gradient that held an element, packed again (``_pack_padded_sequence``)."""
    a = ctx.attrs
    return (ctx.ops._pack_padded_sequence(grad, lengths=a["lengths"], batch_first=a["batch_first"]),)
