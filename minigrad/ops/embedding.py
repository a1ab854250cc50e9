"""Embedding lookups and one-hot encoding (``torch.nn.functional.embedding``, ``one_hot``).

``embedding`` picks rows of a weight matrix by integer indices: the op
``embedding`` (PyTorch's ``EmbeddingBackward0``), whose backward,
``embedding_dense_backward``, adds each row's gradient back into the picked row
(a row picked twice gets both gradients). ``one_hot`` builds a constant (it has
no gradient: its input is integers).

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.one_hot(mg.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    >>> F.embedding(mg.tensor([1]), mg.eye(3)).tolist()
    [[0.0, 1.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..errors import OutOfRangeError, ShapeError
from .. import dtypes as _dt
from ..devices import check_range, mixed_devices_error
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES
from ..kernels.array_kernels import frequency_scale
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
    if not isinstance(tensor, Tensor) or tensor.dtype not in (_dt.int64, _dt.int32):
        raise TypeError("one_hot(): argument 'tensor' must be an integer (int64) Tensor of class indices")
    idx = to_numpy(tensor._data).astype(np.int64)
    n = int(idx.max()) + 1 if num_classes == -1 and idx.size else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"one_hot(): class values must be in [0, {n - 1}], but got {idx.min()}..{idx.max()}")
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
    if not isinstance(input, Tensor) or input.dtype.is_floating:
        raise TypeError("embedding(): argument 'input' must be an integer Tensor of indices")
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ShapeError(f"embedding(): 'weight' must be a 2-D Tensor (num_embeddings, embedding_dim), "
                         f"but got {tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
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
