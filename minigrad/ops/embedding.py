"""Embedding lookups and one-hot encoding (``torch.nn.functional.embedding``, ``embedding_bag``, ``one_hot``).

``embedding`` picks rows of a weight matrix by integer indices: the op
``embedding`` (PyTorch's ``EmbeddingBackward0``), whose backward,
``embedding_dense_backward``, adds each row's gradient back into the picked row
(a row picked twice gets both gradients). ``embedding_bag`` sums, averages or
maxes bags of picked rows in one op (``EmbeddingBagBackward0``), never making the
rows in between. ``one_hot`` builds a constant (it has no gradient: its input is
integers).

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.one_hot(mg.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    >>> F.embedding(mg.tensor([1]), mg.eye(3)).tolist()
    [[0.0, 1.0, 0.0]]
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..errors import ArgumentTypeError, OutOfRangeError, ShapeError
from .. import dtypes as _dt
from ..devices import check_range, mixed_devices_error
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, scalar_type_name
from ..kernels.array_kernels import embedding_bag_arrays, embedding_bag_layout_arrays, frequency_scale
from ..kernels.backends import to_numpy
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_int
from ._constants import constant
from .math import where
from .norm import vector_norm
from .registry import Attr, Input, defop
from .shape import add_rows


CPU = Backend.CPU

__all__: list[str] = []  # F only (torch.nn.functional.embedding / one_hot)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices ``(...)`` to one-hot rows ``(..., num_classes)`` of int64 (``num_classes=-1``: max + 1).

    Composite (a constant, no graph).
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, not {type(tensor).__name__}")
    if tensor.dtype is not _dt.int64:
        raise ArgumentTypeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = to_numpy(tensor._data).astype(np.int64)
    if not idx.size:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return constant(np.zeros(idx.shape + (num_classes,), dtype=np.int64), tensor, _dt.int64)
    if idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    n = int(idx.max()) + 1 if num_classes == -1 else num_classes
    if idx.max() >= n:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return constant(np.eye(n, dtype=np.int64)[idx], tensor, _dt.int64)


def _embedding_meta(op: str, weight: Any, indices: Any, padding_idx: int = -1, scale_grad_by_freq: bool = False) -> Any:
    return tuple(indices.shape) + (weight.shape[1],), weight.dtype


@register_kernel("embedding", CPU, dtypes=ALL_DTYPES, name="cpu/embedding")
def embedding_cpu(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    return np.take(weight, indices, axis=0)  # the indices were checked: [0, rows)


embedding_op = defop(
    "embedding",
    inputs=("weight", Input("indices", differentiable=False)),
    attrs=(Attr("padding_idx", -1, check_int), Attr("scale_grad_by_freq", False)),
    infer_meta=_embedding_meta,
    save=("indices",),
    key_inputs=(0,),
    doc="rows of weight picked by integer indices (weight[indices]); the padding_idx row gets no gradient",
)


@embedding_op.def_backward
def _embedding_backward(ctx, g):
    (indices,) = ctx.saved()
    return ctx.ops.embedding_dense_backward(g, indices, num_weights=ctx.input_shape(0)[0],
                                            padding_idx=ctx.attrs["padding_idx"],
                                            scale_grad_by_freq=ctx.attrs["scale_grad_by_freq"]), None


def _dense_backward_meta(op: str, grad: Any, indices: Any, num_weights: int, padding_idx: int = -1,
                         scale_grad_by_freq: bool = False) -> Any:
    return (num_weights, grad.shape[-1]), grad.dtype


@register_kernel("embedding_dense_backward", CPU, dtypes=FLOAT_DTYPES, name="cpu/embedding_dense_backward")
def embedding_dense_backward_cpu(grad, indices, num_weights, padding_idx=-1, scale_grad_by_freq=False):
    out = np.zeros((num_weights, grad.shape[-1]), dtype=grad.dtype)
    rows = grad.reshape(-1, grad.shape[-1])
    if scale_grad_by_freq:
        rows = rows * frequency_scale(np, indices, num_weights, grad.dtype)
    add_rows(out, indices, rows)
    if padding_idx >= 0:
        out[padding_idx] = 0
    return out


embedding_dense_backward = defop(
    "embedding_dense_backward",
    inputs=("grad", Input("indices", differentiable=False)),
    attrs=(Attr("num_weights", check=check_int), Attr("padding_idx", -1, check_int),
           Attr("scale_grad_by_freq", False)),
    infer_meta=_dense_backward_meta,
    save=("indices",),
    key_inputs=(0,),
    doc="embedding's weight gradient: each row of grad added into the row its index picked (zeros elsewhere, "
        "and at padding_idx), with scale_grad_by_freq divided by the count of its index",
)


@embedding_dense_backward.def_backward
def _embedding_dense_double_backward(ctx, h):
    """PyTorch's ``embedding_dense_double_backward``: the rows picked back (a gather), zero where the index
    is ``padding_idx``. Like PyTorch's (tools/autograd/derivatives.yaml), it leaves out the
    ``scale_grad_by_freq`` scale: that scale is a heuristic, not part of a derivative."""
    (indices,) = ctx.saved()
    ops = ctx.ops
    out = ops.embedding(h, indices)
    pad = ctx.attrs["padding_idx"]
    if pad >= 0:
        out = ops.where(ops.unsqueeze(ops.eq(indices, pad), -1), 0.0, out)
    return out, None


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by the integer ``input`` (``weight[input]``), one node
    (``EmbeddingBackward0``) whose backward adds each row's gradient into the row it picked; the row at
    ``padding_idx`` gets no gradient, as in PyTorch. With ``max_norm`` the picked rows of ``weight``
    whose ``norm_type``-norm exceeds it are first scaled down to it, in place and outside the graph
    (``embedding_renorm_``); with ``scale_grad_by_freq`` each row's gradient is divided by how often
    its index occurs in ``input``.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(weight, Tensor):
        raise TypeError(f"embedding(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    if weight.ndim != 2:
        raise ShapeError(f"'weight' must be 2-D (embedding(): weight of shape {tuple(weight.shape)}, expected "
                         f"(num_embeddings, embedding_dim))")
    if input.dtype not in (_dt.int64, _dt.int32):
        kind = f"torch.{'cuda.' if input._device != 'cpu' else ''}{scalar_type_name(input.dtype)}Tensor"
        raise ArgumentTypeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                              f"Long, Int; but got {kind} instead (while checking arguments for embedding)")
    if sparse:
        raise NotImplementedError("embedding(): sparse=True (a sparse gradient) is not supported by minigrad; "
                                  "use sparse=False")
    if input._device != weight._device:  # PyTorch's index_select refuses indices on another device
        raise mixed_devices_error(weight._device, input._device, "index in method wrapper_CUDA__index_select")
    rows = weight.shape[0]
    if padding_idx is None:
        padding_idx = -1
    elif not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")  # PyTorch's assert, in its words
    elif padding_idx < 0:
        padding_idx += rows
    # Checked before the op: a negative index would otherwise wrap around (weight[-1]), where PyTorch refuses.
    # On the GPU the check runs on the device and fails at the next sync (devices.check_range).
    check_range(input._data, input._device, 0, rows, lambda bad, idx: OutOfRangeError(
        f"index out of range in self (embedding(): indices must be in [0, {rows - 1}], but got {idx.min()}..{idx.max()})"))
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return embedding_op(weight, input, padding_idx=padding_idx, scale_grad_by_freq=bool(scale_grad_by_freq))


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Scale each row of ``weight`` picked by ``indices`` whose ``norm_type``-norm exceeds ``max_norm`` down
    to ``max_norm / (norm + 1e-7)`` times itself, in place, outside the graph (``torch.embedding_renorm_``,
    which ``F.embedding`` runs under ``no_grad``). A row picked twice gets the same new value twice.
    Composite (``embedding``, ``linalg.vector_norm``, ``where``, ``index_copy_``)."""
    with no_grad():
        flat = indices.reshape(-1)
        picked = embedding_op(weight, flat, padding_idx=-1, scale_grad_by_freq=False)
        # PyTorch reads each norm as a double and scales by ``max_norm / (norm + 1e-7)`` in double.
        norms = vector_norm(picked, norm_type, 1, keepdim=True).double()
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
        weight.index_copy_(0, flat, picked * scale)
    return weight


# -- embedding_bag: one node for a bag's lookups and their sum, mean or max ---------------------------------

_MODES = {"sum": 0, "mean": 1, "max": 2}
_NP_SCATTER = SimpleNamespace(add=np.add.at, maximum=np.maximum.at, minimum=np.minimum.at)


def _bag_meta(op: str, weight: Any, indices: Any, offsets: Any, per_sample_weights: Any = None, mode: int = 1,
              scale_grad_by_freq: bool = False, include_last_offset: bool = False, padding_idx: int = -1) -> Any:
    return (offsets.shape[0] - (1 if include_last_offset else 0), weight.shape[1]), weight.dtype


@register_kernel("embedding_bag", CPU, dtypes=FLOAT_DTYPES, name="cpu/embedding_bag")
def embedding_bag_cpu(weight, indices, offsets, per_sample_weights=None, mode=1, scale_grad_by_freq=False,
                      include_last_offset=False, padding_idx=-1):
    return embedding_bag_arrays(np, _NP_SCATTER, weight, indices, offsets, per_sample_weights, mode,
                                include_last_offset, padding_idx)[0]


embedding_bag_op = defop(
    "embedding_bag",
    inputs=("weight", Input("indices", differentiable=False), Input("offsets", differentiable=False),
            Input("per_sample_weights", optional=True)),
    attrs=(Attr("mode", 1, check_int), Attr("scale_grad_by_freq", False), Attr("include_last_offset", False),
           Attr("padding_idx", -1, check_int)),
    infer_meta=_bag_meta, save=("weight", "indices", "offsets", "per_sample_weights"), key_inputs=(0,), out=False,
    doc="the rows of weight picked by each bag of indices (offsets give where each starts), summed (mode 0, "
        "each times its per_sample_weights), averaged (1) or maxed (2); padding_idx rows left out",
)


def _layout_meta(op: str, indices: Any, offsets: Any, mode: int = 1, scale_grad_by_freq: bool = False,
                 include_last_offset: bool = False, padding_idx: int = -1, num_weights: int = 0) -> Any:
    return [(tuple(indices.shape), np.dtype(np.int64)), (tuple(indices.shape), np.dtype(np.float64))]


@register_kernel("_embedding_bag_layout", CPU, dtypes=(_dt.int32, _dt.int64), name="cpu/_embedding_bag_layout")
def embedding_bag_layout_cpu(indices, offsets, mode=1, scale_grad_by_freq=False, include_last_offset=False,
                             padding_idx=-1, num_weights=0):
    bag, scale = embedding_bag_layout_arrays(np, indices, offsets, mode, scale_grad_by_freq, include_last_offset,
                                             padding_idx, num_weights)
    return bag.astype(np.int64), scale


embedding_bag_layout = defop(
    "_embedding_bag_layout", inputs=("indices", "offsets"),
    attrs=(Attr("mode", 1, check_int), Attr("scale_grad_by_freq", False), Attr("include_last_offset", False),
           Attr("padding_idx", -1, check_int), Attr("num_weights", 0, check_int)),
    infer_meta=_layout_meta, differentiable=False, out=False,
    doc="embedding_bag's backward: each index's bag and its weight in the bag's gradient (0 where left out)",
)


def _argmax_meta(op: str, weight: Any, indices: Any, offsets: Any, include_last_offset: bool = False,
                 padding_idx: int = -1) -> Any:
    return (offsets.shape[0] - (1 if include_last_offset else 0), weight.shape[1]), np.dtype(np.int64)


@register_kernel("_embedding_bag_argmax", CPU, dtypes=FLOAT_DTYPES, name="cpu/_embedding_bag_argmax")
def embedding_bag_argmax_cpu(weight, indices, offsets, include_last_offset=False, padding_idx=-1):
    return embedding_bag_arrays(np, _NP_SCATTER, weight, indices, offsets, None, 2, include_last_offset,
                                padding_idx)[1]


embedding_bag_argmax = defop(
    "_embedding_bag_argmax", inputs=("weight", Input("indices", differentiable=False),
                                     Input("offsets", differentiable=False)),
    attrs=(Attr("include_last_offset", False), Attr("padding_idx", -1, check_int)),
    infer_meta=_argmax_meta, differentiable=False, key_inputs=(0,), out=False,
    doc="embedding_bag's max mode: the flat position (row * D + feature) of each output element's row "
        "(weight.numel() for an empty bag)",
)


@embedding_bag_op.def_backward
def _embedding_bag_backward(ctx, g):
    """PyTorch's ``_embedding_bag_backward`` and ``_embedding_bag_per_sample_weights_backward``, made of
    differentiable ops: in sum and mean mode each index's row of the gradient is its bag's row times its
    weight in the bag (``_embedding_bag_layout``) and its sample weight, added into the row it picked
    (``embedding_dense_backward``); in max mode each output element's gradient goes to the element that
    gave it (a scatter into the flat table). A sample weight's gradient is its row's dot with its bag's."""
    saved = ctx.saved()  # a missing optional input saves nothing
    weight, indices, offsets = saved[:3]
    psw = saved[3] if ctx.given(3) else None
    ops, attrs = ctx.ops, ctx.attrs
    rows, dim = ctx.input_shape(0)
    if attrs["mode"] == 2:
        flat = ops._embedding_bag_argmax(weight, indices, offsets, include_last_offset=attrs["include_last_offset"],
                                         padding_idx=attrs["padding_idx"])
        table = ops.embedding_dense_backward(ops.reshape(g, (-1, 1)), ops.reshape(flat, (-1,)),
                                             num_weights=rows * dim + 1)
        return ops.reshape(ops.getitem(table, (slice(0, rows * dim),)), (rows, dim)), None, None, None
    bag, scale = ops._embedding_bag_layout(indices, offsets, mode=attrs["mode"],
                                           scale_grad_by_freq=attrs["scale_grad_by_freq"],
                                           include_last_offset=attrs["include_last_offset"],
                                           padding_idx=attrs["padding_idx"], num_weights=rows)
    per_index = ops.embedding(g, bag)  # each index's bag's gradient row
    grad_weight = grad_psw = None
    if ctx.needs(0):
        scaled = ops.mul(per_index, ops.unsqueeze(ops.cast(scale, g.dtype), 1))
        if psw is not None:
            scaled = ops.mul(scaled, ops.unsqueeze(psw, 1))
        grad_weight = ops.embedding_dense_backward(scaled, indices, num_weights=rows, padding_idx=attrs["padding_idx"])
    if psw is not None and ctx.needs(3):
        dots = ops.sum(ops.mul(ops.embedding(weight, indices), per_index), 1)
        grad_psw = ops.where(ops.ne(scale, 0.0), dots, 0.0)
    return grad_weight, None, None, grad_psw


def _bag_offsets(input: Tensor, offsets: Any, per_sample_weights: Any) -> tuple[Tensor, Tensor, Any]:
    """``F.embedding_bag``'s forms: a 2-D input is one bag per row (offsets made here, every row's start);
    a 1-D one needs 1-D ``offsets``. Returns the flat indices, the offsets, the flat sample weights."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        starts = np.arange(0, input.numel(), max(input.shape[1], 1), dtype=input.dtype.np)
        offsets = constant(starts, input, input.dtype)
        flat = input.reshape(-1)
        return flat, offsets, None if per_sample_weights is None else per_sample_weights.reshape(-1)
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if not isinstance(offsets, Tensor) or offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    return input, offsets, per_sample_weights


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sum, mean or max of each bag of looked-up rows, without the ``(N, D)`` rows in between: one node
    (``EmbeddingBagBackward0``), as ``torch.nn.functional.embedding_bag``. A 2-D ``input`` is one bag per
    row; a 1-D one is cut into bags where ``offsets`` say (with ``include_last_offset`` the last offset ends
    the last bag). ``per_sample_weights`` (sum mode) scales each row; rows at ``padding_idx`` are left out of
    their bag (and of its count); an empty bag gives zeros. ``max_norm`` renormalises the picked rows first,
    as ``embedding``'s; ``scale_grad_by_freq`` divides each row's gradient by its index's count (as
    ``embedding`` and PyTorch's GPU do; PyTorch's CPU kernel scales some rows by another index's count).
    """
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError("embedding_bag(): 'input' and 'weight' must be Tensors")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    indices, offsets, per_sample_weights = _bag_offsets(input, offsets, per_sample_weights)
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag(): sparse=True (a sparse gradient) is not supported by minigrad; "
                                  "use sparse=False")
    rows = weight.shape[0]
    check_range(indices._data, indices._device, 0, rows, lambda bad, idx: RuntimeError(
        f"Index {int(np.flatnonzero((idx < 0) | (idx >= rows))[0])} of input takes value {int(bad[0])} which is not "
        f"in the valid range [0, {rows})"))
    if offsets.numel():
        check_range(offsets[:1]._data, offsets._device, 0, 1, lambda bad, idx: RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {int(bad[0])}"))
        check_range(offsets[-1:]._data, offsets._device, -(2 ** 62), indices.numel() + 1, lambda bad, idx: RuntimeError(
            f"offsets[-1] can not be greater than input's length {indices.numel()} but got offsets[-1] of {int(bad[0])}"))
    if max_norm is not None:
        embedding_renorm_(weight, indices, max_norm, norm_type)
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                           f"'per_sample_weights'; but type {weight.dtype} does not equal {per_sample_weights.dtype} "
                           "(while checking arguments for embedding_bag)")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
                                  f"for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    if padding_idx is None:
        padding_idx = -1
    elif not -rows <= padding_idx < rows:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, {-rows} through {rows - 1}, "
                           f"but got {padding_idx}")
    elif padding_idx < 0:
        padding_idx += rows
    return embedding_bag_op(weight, indices, offsets, per_sample_weights, mode=_MODES[mode],
                            scale_grad_by_freq=bool(scale_grad_by_freq), include_last_offset=bool(include_last_offset),
                            padding_idx=padding_idx)
