"""Batches of sequences of different lengths: ``pad_sequence`` and ``unpad_sequence`` (composites).

Packed sequences (``pack_padded_sequence``) are not provided: minigrad's
recurrent layers take padded batches.

Example:
    >>> import minigrad as mg
    >>> from minigrad.nn.utils.rnn import pad_sequence
    >>> pad_sequence([mg.ones(3), mg.ones(1)], batch_first=True).tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

from ... import ops
from ...creation import zeros
from ...tensor import Tensor

__all__ = ["pad_sequence", "unpad_sequence"]


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors ``(L_i, *)`` into ``(L_max, B, *)`` (``(B, L_max, *)`` with ``batch_first``), filling
    with ``padding_value`` after (``padding_side='left'``: before) each shorter sequence.

    Built from ``fill``, ``cat`` and ``stack``, so gradients flow back to every sequence.
    """
    items = list(ops.unbind(sequences, 0)) if isinstance(sequences, Tensor) else list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not items:
        raise RuntimeError("received an empty list of sequences")
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"pad_sequence(): expected a list of Tensors, but element {i} is {type(t).__name__}")
    tail = tuple(items[0].shape[1:])
    for t in items:
        if tuple(t.shape[1:]) != tail:
            raise RuntimeError(f"pad_sequence(): every sequence must have the trailing shape {tail}, but got "
                               f"{tuple(t.shape[1:])}")
    longest = max(t.shape[0] for t in items)
    padded = []
    for t in items:
        missing = longest - t.shape[0]
        if missing:
            filler = zeros(missing, *tail, dtype=t.dtype, device=t.device)
            if padding_value != 0:
                filler = ops.fill(filler, padding_value)
            t = ops.cat([t, filler] if padding_side == "right" else [filler, t], 0)
        padded.append(t)
    return ops.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list[Tensor]:
    """The inverse of ``pad_sequence``: the first ``lengths[i]`` steps of each sequence."""
    x = padded_sequences if batch_first else ops.transpose(padded_sequences, 0, 1)
    lens = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    return [ops.getitem(ops.getitem(x, i), slice(0, int(n))) for i, n in enumerate(lens)]
