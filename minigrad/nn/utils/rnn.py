"""Batches of sequences of different lengths: padded (``pad_sequence``) or packed (``PackedSequence``).

A padded batch wastes the recurrent layers' work on padding; a packed one holds only the elements, step
after step, with ``batch_sizes[t]`` the sequences still running at step ``t``, longest first. ``nn.RNN``,
``nn.LSTM`` and ``nn.GRU`` take a ``PackedSequence`` and run each step on the sequences still running
(ATen's ``PackedLayer``: ``nn/rnn.py``), so a shorter sequence's final hidden state is the one after its
own last step. ``pack_padded_sequence`` is one op with PyTorch's node, ``PackPaddedSequenceBackward0``
(``ops/packed_sequence.py``); ``pad_packed_sequence`` is PyTorch's composite (a filled tensor, each run of
steps copied into its slice: ``CopySlices``).

Example:
    >>> import minigrad as mg
    >>> from minigrad.nn.utils.rnn import pad_sequence
    >>> pad_sequence([mg.ones(3), mg.ones(1)], batch_first=True).tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ... import ops
from ...creation import arange as _arange, empty_like as _empty_like, full as _full, tensor as _tensor, zeros as _zeros
from ...dtypes import int64 as _int64
from ...ops.packed_sequence import pack_padded_sequence_op as _pack_op
from ...tensor import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence", "unpack_sequence",
           "pad_sequence", "unpad_sequence", "invert_permutation"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def _map(t: Tensor | None, fn: Any) -> Tensor | None:
    return None if t is None else fn(t)


class PackedSequence(PackedSequence_):
    """A packed batch: ``data`` (the elements, step after step), ``batch_sizes`` (a CPU int64 tensor: the
    sequences running at each step), and, when the batch was sorted by length to pack it, the permutation
    (``sorted_indices``) and its inverse (``unsorted_indices``). Made by ``pack_padded_sequence`` and
    ``pack_sequence``, not by hand."""

    def __new__(cls, data: Any, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> "PackedSequence":
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """``data`` converted as ``Tensor.to``; the indices follow it to its device (``batch_sizes`` stays)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, _map(self.sorted_indices, move), _map(self.unsorted_indices, move))

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(*args, device="cpu", **kwargs)

    def _as(self, dtype: Any) -> "PackedSequence":
        return self.to(dtype=dtype)

    def double(self) -> "PackedSequence":
        return self._as("float64")

    def float(self) -> "PackedSequence":
        return self._as("float32")

    def half(self) -> "PackedSequence":
        return self._as("float16")

    def long(self) -> "PackedSequence":
        return self._as("int64")

    def int(self) -> "PackedSequence":
        return self._as("int32")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of ``permutation`` (``sorted_indices`` -> ``unsorted_indices``), by ``scatter_``."""
    if permutation is None:
        return None
    out = _empty_like(permutation)
    return out.scatter_(0, permutation, _arange(0, permutation.numel(), device=permutation.device))


def _lengths_of(lengths: Any) -> Tensor:
    """``lengths`` as PyTorch takes them: a list becomes a CPU int64 tensor, a tensor is cast to int64."""
    if isinstance(lengths, Tensor):
        return lengths.to(dtype=_int64)
    return _tensor(np.asarray(lengths, dtype=np.int64))


def _check_lengths(x: Tensor, lengths: Tensor, batch_first: bool) -> tuple[int, ...]:
    """ATen's checks of ``_pack_padded_sequence``, in its order and words; the lengths as ints."""
    if lengths.ndim != 1 or lengths.device.type != "cpu":
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D "
                           f"{lengths.device} Long tensor")
    if x.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = x.shape[0 if batch_first else 1]
    if lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={batch})")
    values = tuple(int(n) for n in lengths.tolist())
    if values[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(values, values[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    return values


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequences have
    ``lengths``. With ``enforce_sorted=False`` the batch is first sorted by length, longest first (an
    ``index_select``), and the permutation kept to undo it."""
    lengths = _lengths_of(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = ops.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = ops.index_select(input, 0 if batch_first else 1, sorted_indices)
    values = _check_lengths(input, lengths, batch_first)
    data = _pack_op(input, lengths=values, batch_first=bool(batch_first))
    return PackedSequence(data, _tensor(np.asarray(_counts_above(values), dtype=np.int64)), sorted_indices, None)


def _counts_above(values: Any) -> list[int]:
    """How many of ``values`` (in decreasing order) exceed each of 0, 1, ..., ``values[0] - 1``: a packed
    batch's ``batch_sizes`` from its lengths, and its lengths from its ``batch_sizes``."""
    return [sum(1 for n in values if n > t) for t in range(values[0])]


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The padded batch of a packed one, and each sequence's length (in the batch's own order).

    ATen's composite: a tensor filled with ``padding_value``, each run of steps with one batch size copied
    into its slice (so the gradient flows through ``CopySlices``), transposed with ``batch_first``."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    out = _full((steps, batch_sizes[0], *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    offset, start = 0, 0
    for t in range(len(batch_sizes) + 1):
        n = batch_sizes[t] if t < len(batch_sizes) else 0
        if t and n != batch_sizes[t - 1]:
            width = batch_sizes[t - 1]
            rows = width * (t - start)
            piece = ops.reshape(ops.narrow(data, 0, offset, rows), (t - start, width, *data.shape[1:]))
            ops.getitem(out, (slice(start, t), slice(0, width))).copy_(piece)
            offset, start = offset + rows, t
    lengths = _counts_above(batch_sizes)
    if batch_first:
        out = ops.transpose(out, 0, 1)
    lengths_t = _tensor(np.asarray(lengths, dtype=np.int64))
    if sequence.unsorted_indices is not None:
        return (ops.index_select(out, 0 if batch_first else 1, sequence.unsorted_indices),
                lengths_t[sequence.unsorted_indices.cpu()])
    return out, lengths_t


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (``pad_sequence``, then ``pack_padded_sequence``)."""
    lengths = _tensor(np.asarray([v.shape[0] for v in sequences], dtype=np.int64))
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a packed batch holds, in the batch's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


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
            filler = _zeros(missing, *tail, dtype=t.dtype, device=t.device)
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
