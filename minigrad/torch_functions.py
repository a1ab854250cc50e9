"""PyTorch's other top-level functions (``torch.view_copy``, ``torch.layer_norm``, ``torch.range`` ...). Composite.

Course notebooks and older code call names that PyTorch keeps at the top level of ``torch`` although
their real home is elsewhere: the ``*_copy`` forms of the view ops (what PyTorch's functionalization
pass turns views into), ATen's spellings of ``nn.functional`` (``torch.embedding(weight, indices)``,
``torch.batch_norm(..., cudnn_enabled)``, reductions given as the numbers 0/1/2), and small utilities
(``torch.range``, ``torch.gradient``, ``torch.histogramdd``, ``torch.asarray`` ...). Every one here is a
composite of minigrad's public ops and functions: no kernel and no backward formula of its own, so
each name's gradient is the gradient of the ops it runs. The families, in order:

1. The copy forms of the views: the view, then a contiguous ``clone``.
2. ATen's functional forms: dropout, embedding, normalisation, RNN cells and the layers' flat-weight forms
   (``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu``: ``nn/rnn.py``'s loop), losses, convolution, grid sampling,
   ``detach``.
3. Utilities: ranges, numerical gradients, histograms, default types, threads and build flags,
   the constructors that share memory (``asarray``, ``frombuffer``, ``from_file``), denormal flushing and
   device modules.

Where minigrad departs from PyTorch it says so at the function: a ``*_copy`` is two nodes
(``CloneBackward0`` over the view's node) where PyTorch's is one (``ViewBackward0_copy``) - except
``diagonal_copy``, an op of its own (``ops/views.py``) - and
``native_dropout``'s node is the ``mul`` it runs (PyTorch's ``NativeDropoutBackward0``).

Example:
    >>> import minigrad as mg
    >>> x = mg.arange(6.0).reshape(2, 3)
    >>> y = mg.t_copy(x)
    >>> y._base is None, y.tolist()
    (True, [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])
"""

from __future__ import annotations

import ctypes
import math
import os
import platform
import sys
import types
import warnings
from typing import Any, Sequence

import numpy as np

from . import cpu, creation, cuda, dtypes, ops
from ._tensor_methods_more import angle, as_strided_scatter, conv_tbc
from .autograd.grad_mode import is_grad_enabled
from .cuda import OutOfMemoryError
from .creation import arange, as_tensor, from_numpy, linspace, tensor, zeros
from .devices import canonical_device, contiguous_format
from .dtypes import get_default_dtype, set_default_dtype
from .kernels.cascade_sum import get_num_threads
from .kernels.infer_meta import scalar_type_name
from .nn import functional as F
from .random import bernoulli_array, default_generator
from .nn.rnn import _CELLS, _CellParams, _gather_params, _packed_call, _rnn_impl
from .ops.embedding import embedding_renorm_ as _embedding_renorm
from .ops import dropout as _dropout_forms
from .ops._return_types import _structseq
from .ops.search import histogram_bounds
from .ops.views import diagonal_copy as _diagonal_copy_op
from .ops._checks import wrap_dim
from .ops.grid_sample import _check_sampler, grid_sampler_2d as _grid_sampler_2d, grid_sampler_3d as _grid_sampler_3d
from .tensor import Tensor
from .dispatch.amp import autocast_as

__all__ = [
    # 1. the copy forms of the views
    "view_copy", "t_copy", "permute_copy", "expand_copy", "select_copy", "slice_copy", "split_copy",
    "split_with_sizes_copy", "squeeze_copy", "unsqueeze_copy", "transpose_copy", "unbind_copy", "unfold_copy",
    "alias_copy", "as_strided_copy", "detach_copy", "narrow_copy", "diagonal_copy",
    # 2. ATen's functional forms
    "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_",
    "feature_alpha_dropout", "feature_alpha_dropout_", "native_dropout", "embedding", "layer_norm", "group_norm",
    "instance_norm", "batch_norm", "native_layer_norm", "native_batch_norm", "native_group_norm",
    "native_channel_shuffle", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "lstm", "gru", "rnn_tanh",
    "rnn_relu", "embedding_renorm_", "native_norm", "conv_tbc", "as_strided_scatter", "slice_inverse", "angle",
    "margin_ranking_loss",
    "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss", "triplet_margin_loss",
    "binary_cross_entropy_with_logits", "convolution", "grid_sampler_2d", "grid_sampler_3d", "detach", "detach_",
    # 3. utilities
    "range", "gradient", "histogramdd", "nonzero_static", "resize_as_", "set_default_tensor_type",
    "set_warn_always", "is_warn_always_enabled", "get_device", "layout", "strided", "get_num_interop_threads",
    "set_num_interop_threads", "init_num_threads", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
    "is_distributed", "is_vulkan_available", "cudnn_is_acceptable", "asarray", "frombuffer", "empty_permuted",
    "set_flush_denormal", "from_file", "get_device_module", "OutOfMemoryError",
]

_range = range  # the builtin, which ``torch.range`` below shadows in this module


# -- 1. The copy forms of the views ---------------------------------------------------------------------------------
#
# PyTorch's ``view_copy(x, ...)`` is ``x.view(...).clone(memory_format=contiguous_format)`` in one kernel: a new
# tensor with its own contiguous storage. Here it is those two ops, so the graph shows both nodes.

def _copy(view: Tensor) -> Tensor:
    """A contiguous copy of a view, in its own storage (``_base`` None)."""
    return ops.clone(view, memory_format=contiguous_format)


def view_copy(input: Tensor, size: Any) -> Tensor:
    """``torch.view_copy``: ``input.view(size)`` (a shape or a dtype) as a new tensor (composite)."""
    return _copy(input.view(size))


def t_copy(input: Tensor) -> Tensor:
    """``torch.t_copy``: ``input.t()`` as a new tensor (composite)."""
    return _copy(ops.t(input))


def permute_copy(input: Tensor, dims: Sequence[int]) -> Tensor:
    """``torch.permute_copy``: ``input.permute(dims)`` as a new tensor (composite)."""
    return _copy(ops.permute(input, tuple(dims)))


def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    """``torch.expand_copy``: ``input.expand(size)`` written out element by element (composite)."""
    return _copy(input.expand(*size))


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """``torch.select_copy``: ``input.select(dim, index)`` as a new tensor (composite)."""
    return _copy(ops.select(input, dim, index))


def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    """``torch.slice_copy``: ``input[..., start:end:step]`` along ``dim`` as a new tensor (composite).

    Example:
        >>> import minigrad as mg
        >>> mg.slice_copy(mg.arange(6), 0, 1, 5, 2).tolist()
        [1, 3]
    """
    if step <= 0:
        raise ValueError("slice step must be positive")
    d = dim % max(input.ndim, 1)
    return _copy(input[(slice(None),) * d + (slice(start, end, step),)] if d else input[start:end:step])


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.split_copy``: the pieces of ``input.split(split_size, dim)``, each a new tensor (composite)."""
    return tuple(_copy(p) for p in ops.split(input, split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.split_with_sizes_copy``: ``input.split_with_sizes(split_sizes, dim)``, each a new tensor (composite)."""
    return tuple(_copy(p) for p in ops.split_with_sizes(input, list(split_sizes), dim))


def squeeze_copy(input: Tensor, dim: Any = None) -> Tensor:
    """``torch.squeeze_copy``: ``input.squeeze(dim)`` as a new tensor (composite)."""
    return _copy(ops.squeeze(input) if dim is None else ops.squeeze(input, dim))


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """``torch.unsqueeze_copy``: ``input.unsqueeze(dim)`` as a new tensor (composite)."""
    return _copy(ops.unsqueeze(input, dim))


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``torch.transpose_copy``: ``input.transpose(dim0, dim1)`` as a new tensor (composite)."""
    return _copy(ops.transpose(input, dim0, dim1))


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.unbind_copy``: the slices of ``input.unbind(dim)``, each a new tensor (composite)."""
    return tuple(_copy(p) for p in ops.unbind(input, dim))


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``torch.unfold_copy``: ``input.unfold(dimension, size, step)`` (the windows) as a new tensor (composite)."""
    return _copy(input.unfold(dimension, size, step))


def alias_copy(input: Tensor) -> Tensor:
    """``torch.alias_copy``: a copy of ``input`` (an alias of it, written out) (composite)."""
    return _copy(input.view(tuple(input.shape)))


def as_strided_copy(input: Tensor, size: Sequence[int], stride: Sequence[int],
                    storage_offset: int | None = None) -> Tensor:
    """``torch.as_strided_copy``: ``input.as_strided(size, stride, storage_offset)`` as a new tensor (composite)."""
    return _copy(ops.as_strided(input, tuple(size), tuple(stride), storage_offset))


def detach_copy(input: Tensor) -> Tensor:
    """``torch.detach_copy``: a copy of ``input`` outside the graph (composite)."""
    return _copy(input.detach())


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``torch.narrow_copy``: ``input.narrow(dim, start, length)`` as a new tensor (composite)."""
    return _copy(ops.narrow(input, dim, start, length))


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``torch.diagonal_copy``: ``input.diagonal(offset, dim1, dim2)`` as a new tensor.

    The one copy form minigrad has as an op (``mg.diag`` of a matrix runs it): one node,
    ``DiagonalBackward0_copy``, as PyTorch's.
    """
    d1, d2 = wrap_dim("diagonal_copy", dim1, input.ndim), wrap_dim("diagonal_copy", dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _diagonal_copy_op(input, offset, d1, d2)


# -- 2. ATen's functional forms --------------------------------------------------------------------------------------
#
# ATen's spellings of ``nn.functional``: every argument positional, in ATen's order (``weight`` before
# ``indices``, ``weight``/``bias`` before the running statistics), flags that select cuDNN accepted and
# ignored, and a loss's reduction as ATen's number.

#: ATen's ``Reduction`` enum: the numbers ``torch.*_loss`` take where ``F.*_loss`` take strings.
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(fn: str, reduction: Any) -> str:
    if reduction not in _REDUCTIONS or isinstance(reduction, bool):
        raise ValueError(f"{fn}(): reduction must be 0 (none), 1 (mean) or 2 (sum), but got {reduction!r}")
    return _REDUCTIONS[reduction]


def _feature_dropout(fn: str, input: Tensor, p: float, train: bool, alpha: bool, inplace: bool) -> Tensor:
    p = _dropout_forms._check(fn, input, p)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout_forms._dropout(input, p, train, feature=True, alpha=alpha, inplace=inplace)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.dropout``: ``F.dropout(input, p, train)``, PyTorch's mask after ``manual_seed`` (composite)."""
    p = _dropout_forms._check("dropout", input, p)
    return F.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.dropout_``: ``dropout`` in place (composite)."""
    p = _dropout_forms._check("dropout_", input, p)
    return _dropout_forms._dropout(input, p, train, feature=False, alpha=False, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout``: whole channels (dim 1) zeroed, the rest scaled by ``1/(1-p)`` (composite)."""
    return _feature_dropout("feature_dropout", input, p, train, alpha=False, inplace=False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout_``: ``feature_dropout`` in place (composite)."""
    return _feature_dropout("feature_dropout_", input, p, train, alpha=False, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout``: ``F.alpha_dropout(input, p, train)`` (composite)."""
    return _dropout_forms.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout_``: ``alpha_dropout`` in place (composite)."""
    return _dropout_forms.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout``: ``F.feature_alpha_dropout(input, p, train)`` (composite)."""
    return _feature_dropout("feature_alpha_dropout", input, p, train, alpha=True, inplace=False)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout_``: ``feature_alpha_dropout`` in place (composite)."""
    return _feature_dropout("feature_alpha_dropout_", input, p, train, alpha=True, inplace=True)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """``torch.native_dropout``: ``(output, mask)``, the mask a bool tensor of the kept elements (composite).

    PyTorch's CPU kernel draws ``bernoulli(1 - p)`` into a tensor like ``input`` and returns
    ``input * mask * (1 / (1 - p))``; the same draws here give the same mask. The output's node is the
    ``mul`` that ran (PyTorch's is ``NativeDropoutBackward0``); its gradient is the same.
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"native_dropout(): argument 'p' must be float, but got {type(p).__name__}")
    if not 0.0 <= 1.0 - p <= 1.0:  # refused where PyTorch's kernel refuses it: at the draw of 1 - p
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1.0 - p:g}")
    if train is False or input.numel() == 0:
        return ops.clone(input), creation.ones_like(input, dtype=dtypes.bool_)
    # ``mask.bernoulli_(1 - p)``: PyTorch's draws of a number probability (NOTE [ The same masks as PyTorch ]
    # in ops/dropout.py), one per element in order
    draws = bernoulli_array(default_generator, 1.0 - p, input.numel()).reshape(tuple(input.shape))
    keep = as_tensor(draws.astype(input.dtype.np), device=input.device)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return ops.mul(ops.mul(input, keep), scale), ops.cast(keep, dtypes.bool_)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding``: ``weight``'s rows at ``indices`` - note ATen's order, ``weight`` first (composite).

    A negative ``padding_idx`` (ATen's -1 default) means no padding row.
    """
    if not isinstance(indices, Tensor) or indices.dtype not in (dtypes.int64, dtypes.int32):
        got = type(indices).__name__ if not isinstance(indices, Tensor) else f"torch.{indices.type().split('.')[-1]}"
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {got} instead (while checking arguments for embedding)")
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """``torch.layer_norm``: ``F.layer_norm`` with ATen's ``cudnn_enable`` flag (ignored) (composite)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """``torch.group_norm``: ``F.group_norm`` with ATen's ``cudnn_enabled`` flag (ignored) (composite)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """``torch.instance_norm``: ``F.instance_norm`` in ATen's argument order (composite)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``torch.batch_norm``: ``F.batch_norm`` in ATen's argument order (composite)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _stats(x: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    """The mean and ``1 / sqrt(biased variance + eps)`` over ``dims`` (kept), outside the graph."""
    x = x.detach()
    mean = ops.mean(x, dims, keepdim=True)
    var = ops.mean(ops.square(ops.sub(x, mean)), dims, keepdim=True)
    return mean, ops.rsqrt(ops.add(var, eps))


def native_layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None, bias: Tensor | None,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.native_layer_norm``: ``(output, mean, rstd)``; mean and rstd keep the normalised dims as 1 (composite).

    The output is ``layer_norm``'s (``NativeLayerNormBackward0``); the statistics are computed again,
    outside the graph, equal to PyTorch's to rounding.
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    out = F.layer_norm(input, shape, weight, bias, eps)
    mean, rstd = _stats(input, tuple(_range(input.ndim - len(shape), input.ndim)), eps)
    return out, mean, rstd


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                      running_var: Tensor | None, training: bool, momentum: float,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.native_batch_norm``: ``(output, save_mean, save_invstd)`` (composite).

    Training, the batch's per-channel mean and ``1/sqrt(var + eps)`` (before the running statistics are
    updated in place, as PyTorch's); in evaluation two empty tensors, as PyTorch's CPU kernel.
    """
    if not training:
        empty = zeros(0, dtype=input.dtype)
        return F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps), empty, empty
    mean, invstd = _stats(input, (0,) + tuple(_range(2, input.ndim)), eps)
    out = F.batch_norm(input, running_mean, running_var, weight, bias, True, momentum, eps)
    return out, ops.reshape(mean, (-1,)), ops.reshape(invstd, (-1,))


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.native_group_norm``: ``(output, mean, rstd)``, mean and rstd of shape ``(N, group)`` (composite)."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements (N * C * HxW = {N} * {C} * {HxW}), "
                           f"but got {input.numel()}")
    out = F.group_norm(input, group, weight, bias, eps)
    mean, rstd = _stats(ops.reshape(input, (N, group, -1)), (2,), eps)
    return out, ops.reshape(mean, (N, group)), ops.reshape(rstd, (N, group))


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.native_channel_shuffle``: ``F.channel_shuffle(input, groups)`` (composite)."""
    return F.channel_shuffle(input, groups)


def _cell_params(w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None) -> _CellParams:
    return _CellParams(w_ih, w_hh, b_ih, b_hh)


@autocast_as("lstm_cell")
def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """``torch.lstm_cell``: one LSTM step, ``hx = (h, c)`` -> ``(h', c')``, as ``nn.LSTMCell`` (composite)."""
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell: Expected hx to have 2 tensors, but got {len(hx)}")
    return _CELLS["LSTM"](input, (hx[0], hx[1]), _cell_params(w_ih, w_hh, b_ih, b_hh))


@autocast_as("gru_cell")
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    """``torch.gru_cell``: one GRU step, as ``nn.GRUCell`` (composite)."""
    return _CELLS["GRU"](input, hx, _cell_params(w_ih, w_hh, b_ih, b_hh))


@autocast_as("rnn_tanh_cell")
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (composite)."""
    return _CELLS["RNN_TANH"](input, hx, _cell_params(w_ih, w_hh, b_ih, b_hh))


@autocast_as("rnn_relu_cell")
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """``torch.rnn_relu_cell``: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (composite)."""
    return _CELLS["RNN_RELU"](input, hx, _cell_params(w_ih, w_hh, b_ih, b_hh))



# The layers' functional forms: ``nn.LSTM``/``nn.GRU``/``nn.RNN`` call these with their ``_flat_weights``
# (``[w_ih, w_hh, b_ih, b_hh]`` per layer-direction, ``w_hr`` after them with projections). They run the layers'
# own loop (``nn/rnn.py``'s ``_rnn_impl``), so values, gradients, dropout draws and graph are the modules'.
# PyTorch's second overload, ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
# bidirectional)``, takes a packed sequence's two tensors (``nn/utils/rnn.py``) and runs ``_packed_call``.

def _run_packed(fn: str, mode: str, data: Any, batch_sizes: Any, hx: Any, params: Any, has_biases: Any,
                num_layers: Any, dropout: Any, train: Any, bidirectional: Any) -> tuple[Tensor, Any]:
    """The packed overload: ``hx`` one tensor, or ``lstm``'s pair."""
    states = tuple(hx) if fn == "lstm" else (hx,)
    _check_rnn(fn, data, states, params)
    if not isinstance(batch_sizes, Tensor):
        raise TypeError(f"{fn}(): argument 'batch_sizes' (position 2) must be Tensor, not {type(batch_sizes).__name__}")
    return _packed_call(mode, data, [int(b) for b in batch_sizes.tolist()], states if fn == "lstm" else hx, params,
                        has_biases, num_layers, dropout, train, bidirectional)


def _check_rnn(fn: str, input: Any, hx: Sequence[Any], params: Any) -> None:
    """The argument types PyTorch's parser insists on, before any op."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    for h in hx:
        if not isinstance(h, Tensor):
            raise TypeError(f"{fn}(): argument 'hx' (position 2) must be {'tuple of Tensors' if fn == 'lstm' else 'Tensor'}"
                            f", not {type(h).__name__}")
    if not isinstance(params, (list, tuple)) or not all(isinstance(w, Tensor) for w in params):
        raise TypeError(f"{fn}(): argument 'params' (position 3) must be tuple of Tensors, not {type(params).__name__}")


def _simple_rnn(fn: str, mode: str, input: Tensor, hx: Any, params: Any, has_biases: bool, num_layers: int,
                dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    if isinstance(params, Tensor):  # (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
        return _run_packed(fn, mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                           batch_first)
    _check_rnn(fn, input, (hx,), params)
    return _rnn_impl(mode, input, hx, _gather_params(params, has_biases), num_layers, dropout, train, bidirectional,
                     batch_first)


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool, num_layers: int,
         dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """``torch.lstm``: ``nn.LSTM``'s loop on flat weights; returns ``(output, h_n, c_n)``. ``h_0`` narrower than
    ``c_0`` means projections (``w_hr`` closes each layer-direction's weights), as in ATen.

    Example:
        >>> import minigrad as mg
        >>> m = mg.nn.LSTM(3, 4)
        >>> h = mg.zeros(1, 2, 4)
        >>> out, h_n, c_n = mg.lstm(mg.randn(5, 2, 3), (h, h), m._flat_weights, True, 1, 0.0, False, False, False)
        >>> out.shape, c_n.shape
        (minigrad.Size([5, 2, 4]), minigrad.Size([1, 2, 4]))
    """
    if isinstance(hx, Tensor):  # (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
        if not isinstance(params, (list, tuple)):
            raise TypeError(f"lstm(): argument 'hx' (position 3) must be tuple of Tensors, not {type(params).__name__}")
        if len(params) != 2:
            raise RuntimeError("lstm expects two hidden states")
        output, (h, c) = _run_packed("lstm", "LSTM", input, hx, params, has_biases, num_layers, dropout, train,
                                     bidirectional, batch_first)
        return output, h, c
    if not isinstance(hx, (list, tuple)):
        raise TypeError(f"lstm(): argument 'hx' (position 2) must be tuple of Tensors, not {type(hx).__name__}")
    _check_rnn("lstm", input, hx, params)
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    projections = hx[0].size(2) != hx[1].size(2)
    output, (h, c) = _rnn_impl("LSTM", input, tuple(hx), _gather_params(params, has_biases, projections), num_layers,
                               dropout, train, bidirectional, batch_first)
    return output, h, c


def gru(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
        train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """``torch.gru``: ``nn.GRU``'s loop on flat weights; returns ``(output, h_n)``."""
    return _simple_rnn("gru", "GRU", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def rnn_tanh(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
             train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """``torch.rnn_tanh``: ``nn.RNN``'s loop (tanh) on flat weights; returns ``(output, h_n)``."""
    return _simple_rnn("rnn_tanh", "RNN_TANH", input, hx, params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)


def rnn_relu(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
             train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """``torch.rnn_relu``: ``nn.RNN(nonlinearity='relu')``'s loop on flat weights; returns ``(output, h_n)``."""
    return _simple_rnn("rnn_relu", "RNN_RELU", input, hx, params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """``torch.embedding_renorm_``: the rows of ``input`` (an embedding table) picked by ``indices`` whose
    ``norm_type``-norm exceeds ``max_norm`` scaled down to ``max_norm``, in place (what ``F.embedding(...,
    max_norm=)`` runs). Outside the graph: where PyTorch records an ``EmbeddingRenormBackward0`` (whose backward
    is not implemented) on a non-leaf, minigrad records nothing.

    Example:
        >>> import minigrad as mg
        >>> w = mg.tensor([[3.0, 4.0], [0.3, 0.4]])
        >>> mg.embedding_renorm_(w, mg.tensor([0, 1]), 1.0, 2.0).norm(dim=1).tolist()
        [1.0, 0.5]
    """
    what = "(while checking arguments for embedding_renorm_)"
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead {what}")
    if input.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' {what}")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{scalar_type_name(input.dtype)} instead.")
    if is_grad_enabled() and input.requires_grad and input.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if indices.numel():
        rows = input.shape[0]
        low, high = int(indices.min()), int(indices.max())
        bad = high if high >= rows else low if low < -rows else None
        if bad is not None:
            raise IndexError(f"select(): index {bad} out of range for tensor of size {list(input.shape)} at dimension 0")
        indices = ops.remainder(indices, rows)  # a negative row counts from the end, as select's
    return _embedding_renorm(input, indices, max_norm, norm_type)


def native_norm(input: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """``torch.native_norm``: in PyTorch a kernel for sparse tensors only, so a dense tensor is refused in its
    words. minigrad has no sparse tensors; ``torch.linalg.vector_norm`` is the dense norm."""
    backend = "CUDA" if isinstance(input, Tensor) and input.device != "cpu" else "CPU"
    raise NotImplementedError(f"Could not run 'aten::native_norm' with arguments from the '{backend}' backend. This "
                              f"could be because the operator doesn't exist for this backend. 'aten::native_norm' is "
                              f"only available for sparse tensors (SparseCPU, SparseCUDA), which minigrad has not: "
                              f"use torch.linalg.vector_norm.")


def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """``torch.slice_inverse``: the inverse of ``slice`` for PyTorch's functionalization pass - given ``input``,
    a slice of some base, and ``src`` with the base's geometry, the view of ``input``'s storage with ``src``'s
    sizes, strides and storage offset (``dim``, ``start``, ``end``, ``step`` play no part).
    Composite: ``as_strided`` (PyTorch's node is ``SliceInverseBackward0``).

    Example:
        >>> import minigrad as mg
        >>> base = mg.arange(6.0)
        >>> mg.slice_inverse(base[1:4], mg.zeros(6), 0, 1, 4).tolist()
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    """
    for pos, (name, t) in enumerate((("input", input), ("src", src))):
        if not isinstance(t, Tensor):
            raise TypeError(f"slice_inverse(): argument '{name}' (position {pos + 1}) must be Tensor, "
                            f"not {type(t).__name__}")
    return ops.as_strided(input, tuple(src.shape), src.stride(), src.storage_offset())


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:
    """``torch.margin_ranking_loss``: ``F.margin_ranking_loss``, the reduction as ATen's number (composite)."""
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction("margin_ranking_loss", reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1) -> Tensor:
    """``torch.hinge_embedding_loss``: ``F.hinge_embedding_loss``, the reduction as a number (composite)."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 1) -> Tensor:
    """``torch.cosine_embedding_loss``: ``F.cosine_embedding_loss``, the reduction as a number (composite)."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction("cosine_embedding_loss", reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """``torch.poisson_nll_loss``: ``F.poisson_nll_loss``, every argument required, as ATen's (composite)."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction("poisson_nll_loss", reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, reduction: int = 1) -> Tensor:
    """``torch.triplet_margin_loss``: ``F.triplet_margin_loss``, the reduction as a number (composite)."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction("triplet_margin_loss", reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 1) -> Tensor:
    """``torch.binary_cross_entropy_with_logits``: ATen's order (``weight`` before ``pos_weight``) (composite)."""
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction("binary_cross_entropy_with_logits", reduction),
                                              pos_weight=pos_weight)


#: The convolutions by spatial rank: ``(forward, transposed)``.
_CONVOLUTIONS = {1: (F.conv1d, F.conv_transpose1d), 2: (F.conv2d, F.conv_transpose2d),
                 3: (F.conv3d, F.conv_transpose3d)}


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int], padding: Sequence[int],
                dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int) -> Tensor:
    """``torch.convolution``: ATen's one convolution, picked by the input's rank and ``transposed`` (composite).

    Example:
        >>> import minigrad as mg
        >>> y = mg.convolution(mg.ones(1, 1, 4, 4), mg.ones(1, 1, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
        >>> y.shape, y.grad_fn is None
        (minigrad.Size([1, 1, 2, 2]), True)
    """
    rank = weight.ndim - 2
    if rank not in _CONVOLUTIONS:
        raise RuntimeError(f"convolution(): expected a 3-D, 4-D or 5-D weight, but got weight of size "
                           f"{list(weight.shape)}")
    forward, backward = _CONVOLUTIONS[rank]
    if transposed:
        return backward(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding), groups,
                        tuple(dilation))
    if any(output_padding):
        raise RuntimeError("convolution(): output_padding is only supported with transposed=True, but got "
                           f"output_padding={list(output_padding)}")
    return forward(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def _grid_sampler(dims: int, input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                  align_corners: bool) -> Tensor:
    if input.ndim != dims + 2:
        raise RuntimeError(f"grid_sampler_{dims}d(): expected {dims + 2}D input and grid, but got input with sizes "
                           f"{list(input.shape)}")
    _check_sampler(input, grid, interpolation_mode)
    op = _grid_sampler_2d if dims == 2 else _grid_sampler_3d
    return op(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``torch.grid_sampler_2d``: ``grid_sample`` of a 4-D input, the modes as numbers (``GridSampler2DBackward0``)."""
    return _grid_sampler(2, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``torch.grid_sampler_3d``: ``grid_sample`` of a 5-D input, the modes as numbers (``GridSampler3DBackward0``)."""
    return _grid_sampler(3, input, grid, interpolation_mode, padding_mode, align_corners)


def detach(input: Tensor) -> Tensor:
    """``torch.detach``: ``input.detach()``, the same storage outside the graph."""
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """``torch.detach_``: ``input.detach_()``, in place."""
    return input.detach_()


# -- 3. Utilities ----------------------------------------------------------------------------------------------------

_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).")


def range(start: float = 0, end: float | None = None, step: float = 1, *, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:  # noqa: A001  (torch.range shadows the builtin, as PyTorch's)
    """``torch.range`` (deprecated): ``start, start + step, ...`` up to and *including* ``end`` (composite).

    Unlike ``arange`` the end is included and the dtype is the default float dtype even for integer
    arguments; each value is ``start + i * step`` computed in float64, then cast, as PyTorch's CPU kernel.

    Example:
        >>> import warnings, minigrad as mg
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     mg.range(1, 4).tolist()
        [1.0, 2.0, 3.0, 4.0]
    """
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    if end is None:
        raise TypeError("range() missing required argument 'end' (pos 2)")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    values = arange(n, dtype=dtypes.float64) * float(step) + float(start)
    out = ops.cast(values, dtype or get_default_dtype())
    if device is not None:
        out = out.to(device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def _gradient_dims(input: Tensor, spacing: Any, dim: Any, edge_order: int) -> tuple[list[int], list[Any]]:
    """PyTorch's ``pre_check_gradient``: the dims to differentiate along and a spacing (number or tensor) for each."""
    dims = list(_range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [d % input.ndim if input.ndim else d for d in dims]
    for k, d in enumerate(dims):
        if d in dims[:k]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if spacing is None:
        spacings: list[Any] = [1.0] * len(dims)
    elif isinstance(spacing, (int, float, Tensor)) and not (isinstance(spacing, Tensor) and spacing.ndim == 1):
        spacings = [spacing.item() if isinstance(spacing, Tensor) else spacing] * len(dims)
    else:
        spacings = list(spacing) if not isinstance(spacing, Tensor) else [spacing]
        if len(spacings) != len(dims) and dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got a "
                               f"list of length {len(spacings)}")
        if len(spacings) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacings)} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d, h in zip(dims, spacings):
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        if isinstance(h, Tensor) and (h.ndim != 1 or h.shape[0] != input.shape[d]):
            raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and the spacing "
                               f"coordinates of dimension {d} to have the size of that dimension, "
                               f"{input.shape[d]}, but got {list(h.shape)}")
    return dims, spacings


def _along(x: Tensor, dim: int, start: int | None, stop: int | None) -> Tensor:
    return x[(slice(None),) * dim + (slice(start, stop),)]


def _gradient_uniform(x: Tensor, d: int, h: float, edge_order: int) -> Tensor:
    """PyTorch's ``gradient_helper_float`` for a number spacing: central differences, one-sided at the edges."""
    center = ops.div(ops.sub(_along(x, d, 2, None), _along(x, d, 0, -2)), h)
    if edge_order == 1:
        first = ops.div(ops.sub(_along(x, d, 1, 2), _along(x, d, 0, 1)), h)
        last = ops.div(ops.sub(_along(x, d, -1, None), _along(x, d, -2, -1)), h)
    else:
        first = ops.div(ops.sub(ops.add(ops.mul(_along(x, d, 0, 1), -1.5), ops.mul(_along(x, d, 1, 2), 2)),
                                ops.mul(_along(x, d, 2, 3), 0.5)), h)
        last = ops.div(ops.add(ops.add(ops.mul(_along(x, d, -3, -2), 0.5), ops.mul(_along(x, d, -2, -1), -2)),
                               ops.mul(_along(x, d, -1, None), 1.5)), h)
    return ops.cat([first, ops.div(center, 2), last], d)


def _gradient_coordinates(x: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:
    """PyTorch's ``gradient_helper`` for coordinates: second-order differences on an uneven grid."""
    shape = [1] * x.ndim
    shape[d] = -1
    dx = ops.diff(coords)
    dx1, dx2 = dx[:-1], dx[1:]
    a = ops.reshape(ops.div(ops.neg(dx2), ops.mul(dx1, ops.add(dx1, dx2))), shape)
    b = ops.reshape(ops.div(ops.sub(dx2, dx1), ops.mul(dx1, dx2)), shape)
    c = ops.reshape(ops.div(dx1, ops.mul(dx2, ops.add(dx1, dx2))), shape)
    center = ops.add(ops.add(ops.mul(a, _along(x, d, 0, -2)), ops.mul(b, _along(x, d, 1, -1))),
                     ops.mul(c, _along(x, d, 2, None)))
    if edge_order == 1:
        first = ops.div(ops.sub(_along(x, d, 1, 2), _along(x, d, 0, 1)), dx[0])
        last = ops.div(ops.sub(_along(x, d, -1, None), _along(x, d, -2, -1)), dx[-1])
    else:
        h0, h1 = dx[0], dx[1]
        a = ops.div(ops.neg(ops.add(ops.mul(h0, 2.0), h1)), ops.mul(h0, ops.add(h0, h1)))
        b = ops.div(ops.add(h0, h1), ops.mul(h0, h1))
        c = ops.div(ops.neg(h0), ops.mul(h1, ops.add(h0, h1)))
        first = ops.add(ops.add(ops.mul(a, _along(x, d, 0, 1)), ops.mul(b, _along(x, d, 1, 2))),
                        ops.mul(c, _along(x, d, 2, 3)))
        hl, hm = dx[-1], dx[-2]
        a = ops.div(hl, ops.mul(hm, ops.add(hl, hm)))
        b = ops.div(ops.neg(ops.add(hl, hm)), ops.mul(hl, hm))
        c = ops.div(ops.add(ops.mul(hl, 2), hm), ops.mul(hl, ops.add(hl, hm)))
        last = ops.add(ops.add(ops.mul(a, _along(x, d, -3, -2)), ops.mul(b, _along(x, d, -2, -1))),
                       ops.mul(c, _along(x, d, -1, None)))
    return ops.cat([first, center, last], d)


def gradient(input: Tensor, *, spacing: Any = None, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """``torch.gradient``: the numerical derivative of ``input`` along each of ``dim`` (composite).

    ``spacing`` is the sample distance (one number, one per dim) or the sample coordinates (one 1-D
    tensor per dim). Inside, central differences (second-order accurate, also on an uneven grid); at
    the edges, one-sided differences of order ``edge_order`` (1 or 2). PyTorch's formulas, term by term.

    Example:
        >>> import minigrad as mg
        >>> mg.gradient(mg.tensor([1.0, 4.0, 9.0, 16.0, 25.0]), spacing=2.0)[0].tolist()
        [1.5, 2.0, 3.0, 4.0, 4.5]
    """
    dims, spacings = _gradient_dims(input, spacing, dim, edge_order)
    x = input if input.dtype.is_floating else ops.cast(input, get_default_dtype())
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor):
            out.append(_gradient_coordinates(x, d, h if h.dtype.is_floating else ops.cast(h, x.dtype), edge_order))
        else:
            out.append(_gradient_uniform(x, d, h, edge_order))
    return tuple(out)


#: ``torch.return_types.histogramdd``: ``(hist, bin_edges)``, the edges a tuple of 1-D tensors.
histogramdd_result = _structseq("histogramdd", ["hist", "bin_edges"])


def _histogramdd_edges(column: Tensor, bins: Any, low_high: Any, d: int) -> Tensor:
    """One dim's edges: the given tensor, or ``bins + 1`` points over ``torch.histogram``'s range of the column
    (``ops.search.histogram_bounds``), as ``linspace`` makes them."""
    if isinstance(bins, Tensor):
        return bins
    low, high = histogram_bounds(column, int(bins), low_high, d)
    return linspace(low, high, int(bins) + 1, dtype=column.dtype)


def histogramdd(input: Tensor, bins: Any, *, range: Sequence[float] | None = None,  # noqa: A002
                weight: Tensor | None = None, density: bool = False) -> Any:
    """``torch.histogramdd``: a D-dimensional histogram of the points ``input[..., :]`` (composite).

    ``bins`` is a count for every dim, a count per dim, or a 1-D tensor of increasing edges per dim;
    ``range`` gives ``[low0, high0, low1, high1, ...]``. A point counts (or adds its ``weight``) in the
    cell whose edges hold it in every dim, the last bin of each dim closed on the right, as
    ``torch.histogram``; points outside are ignored. ``density`` divides by the total and by each cell's
    volume, as PyTorch's.

    Example:
        >>> import minigrad as mg
        >>> mg.histogramdd(mg.tensor([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2).hist.tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    if input.ndim < 2 and input.ndim != 1:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions, but got "
                           f"{input.ndim}")
    if input.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{scalar_type_name(input.dtype)}'")
    D = input.shape[-1]
    points = ops.reshape(input.detach(), (-1, D))
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * D
    if len(per_dim) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} "
                           f"elements, but got {len(range)}")
    edges = [_histogramdd_edges(points[:, d], per_dim[d], None if range is None else range[2 * d:2 * d + 2], d)
             for d in _range(D)]
    counts = [e.shape[0] - 1 for e in edges]
    inside = creation.ones(points.shape[0], dtype=dtypes.bool_)
    cell = zeros(points.shape[0], dtype=dtypes.int64)
    for d, e in enumerate(edges):
        column = points[:, d]
        inside = ops.logical_and(inside, ops.logical_and(ops.ge(column, e[0]), ops.le(column, e[-1])))
        position = ops.clamp(ops.sub(ops.searchsorted(e, column, right=True), 1), 0, counts[d] - 1)
        cell = ops.add(ops.mul(cell, counts[d]), position)
    values = creation.ones(points.shape[0], dtype=input.dtype) if weight is None else ops.reshape(weight, (-1,))
    hist = ops.index_add(zeros(math.prod(counts), dtype=input.dtype), 0, cell[inside], values[inside])
    hist = ops.reshape(hist, tuple(counts))
    if density:
        hist = ops.div(hist, ops.sum(hist))
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = counts[d]
            hist = ops.div(hist, ops.reshape(ops.diff(e), shape))
    return histogramdd_result(hist, tuple(edges))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``torch.nonzero_static``: ``nonzero(input)`` cut or padded with ``fill_value`` to exactly ``size`` rows.

    Example:
        >>> import minigrad as mg
        >>> mg.nonzero_static(mg.tensor([1, 0, 2]), size=3).tolist()
        [[0], [2], [-1]]
    """
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = ops.nonzero(input)
    if found.shape[0] >= size:
        return ops.clone(found[:size], memory_format=contiguous_format)
    pad = creation.full((size - found.shape[0], input.ndim), fill_value, dtype=dtypes.int64)
    return ops.cat([found, pad], 0)


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``torch.resize_as_``: give ``input`` the template's shape in place, keeping its first elements.

    New elements are uninitialised (zeros here), as PyTorch's ``resize_``. A tensor that requires grad,
    or a view, is refused, as PyTorch refuses to resize them.
    """
    if input.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if input._base is not None:
        raise RuntimeError(f"resize_as_(): the input of shape {list(input.shape)} is a view and cannot be "
                           "resized; resize the tensor it views, or a clone")
    if input.device != "cpu":
        raise NotImplementedError("resize_as_(): minigrad resizes CPU tensors only")
    old = np.ascontiguousarray(input._data).reshape(-1)
    new = np.zeros(math.prod(the_template.shape), dtype=old.dtype)
    keep = min(old.size, new.size)
    new[:keep] = old[:keep]
    input._data = new.reshape(tuple(the_template.shape))
    return input


_TENSOR_TYPES = {"torch.FloatTensor": dtypes.float32, "torch.DoubleTensor": dtypes.float64,
                 "torch.HalfTensor": dtypes.float16, "torch.BFloat16Tensor": dtypes.bfloat16}


def set_default_tensor_type(t: Any) -> None:
    """``torch.set_default_tensor_type`` (deprecated since PyTorch 2.1): set the default float dtype.

    ``t`` is a legacy type (``mg.DoubleTensor``) or its name (``"torch.DoubleTensor"``); only the float
    types are accepted, as PyTorch's.
    """
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    name = t if isinstance(t, str) else f"torch.{getattr(t, '__name__', type(t).__name__)}"
    if name not in _TENSOR_TYPES:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(_TENSOR_TYPES[name])


_warn_always = [False]


def set_warn_always(b: bool) -> None:
    """``torch.set_warn_always``: the warnings PyTorch gives once a process (``TORCH_WARN_ONCE``: here
    ``frombuffer``'s non-writable buffer) are given every time while it is True. Python's ``warnings``
    filters still decide what is shown."""
    _warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """``torch.is_warn_always_enabled``: the switch ``set_warn_always`` sets."""
    return _warn_always[0]


def get_device(input: Tensor) -> int:
    """``torch.get_device``: the device index of ``input``, -1 for the CPU."""
    return input.get_device()


class layout:  # noqa: N801  (torch.layout's spelling)
    """``torch.layout``: how a tensor's elements are laid out. minigrad has one, ``strided``."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


strided = layout("strided")

_interop_threads = [0]  # 0: not set


def get_num_interop_threads() -> int:
    """``torch.get_num_interop_threads``: the threads for running ops side by side (minigrad runs them
    one after another, so this is bookkeeping: the value set, else the intra-op thread count)."""
    return _interop_threads[0] or get_num_threads()


def set_num_interop_threads(num: int) -> None:
    """``torch.set_num_interop_threads``: set it once, as PyTorch allows."""
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop_threads[0]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _interop_threads[0] = num


def init_num_threads() -> None:
    """``torch.init_num_threads``: nothing to set up (minigrad's thread pool starts on first use)."""


# What this build of minigrad has (not the installed PyTorch's flags): LAPACK and FFTs through NumPy,
# no MKL or OpenMP of its own, no distributed package, no Vulkan, and no cuDNN call anywhere.
has_lapack = True
has_mkl = False
has_openmp = False
has_spectral = True


def is_distributed() -> bool:
    """``torch.is_distributed``: False (minigrad has no distributed package)."""
    return False


def is_vulkan_available() -> bool:
    """``torch.is_vulkan_available``: False."""
    return False


def cudnn_is_acceptable(tensor: Tensor) -> bool:
    """``torch.cudnn_is_acceptable``: False (minigrad calls no cuDNN)."""
    return False


def _has_buffer(obj: Any) -> bool:
    """Whether ``obj`` exposes Python's buffer protocol (``memoryview(obj)`` works)."""
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """``torch.asarray``: ``obj`` as a tensor, sharing its memory when it can (a tensor, a NumPy array).

    ``copy=None`` shares when the dtype and device allow, ``copy=True`` always copies, ``copy=False``
    refuses to copy. An object with Python's buffer protocol (``bytearray``, ``array.array``) is read as raw
    memory in ``dtype`` (the default dtype when None), shared, as ``frombuffer``; any other object (lists,
    numbers, NumPy scalars) is read into a new tensor.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> a = np.zeros(3, dtype=np.float32)
        >>> t = mg.asarray(a)
        >>> a[0] = 5.0
        >>> t.tolist()
        [5.0, 0.0, 0.0]
    """
    if isinstance(obj, np.ndarray):  # shared, as PyTorch's (then cast or moved below if asked)
        obj = from_numpy(obj)
    if isinstance(obj, Tensor):
        same = ((dtype is None or dtypes.as_dtype(dtype) is obj.dtype)
                and (device is None or canonical_device(device) == obj.device))
        if same and copy is not True:
            out = obj
        elif copy is False and device is not None and canonical_device(device) != obj.device:
            raise ValueError(f"can't alias tensor from device '{obj.device}' to '{canonical_device(device)}'.")
        elif copy is False:
            raise ValueError(f"can't alias tensor with dtype '{scalar_type_name(obj.dtype)}' into dtype "
                             f"'{scalar_type_name(dtypes.as_dtype(dtype))}'.")
        else:
            out = obj.to(device=device or obj.device, dtype=dtype or obj.dtype, copy=True)
    elif not isinstance(obj, np.generic) and _has_buffer(obj):  # bytes, bytearray, array.array: read as memory
        out = frombuffer(obj, dtype=dtypes.as_dtype(dtype) if dtype is not None else get_default_dtype())
        out = ops.clone(out) if copy else out
        out = out.to(device) if device is not None else out
    else:
        if copy is False:
            raise ValueError(f"can't alias {type(obj).__name__} without a copy")
        out = tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


_NOT_WRITABLE = ("The given buffer is not writable, and PyTorch does not support non-writable tensors. This means "
                 "you can write to the underlying (supposedly non-writable) buffer using the tensor. You may want "
                 "to copy the buffer to protect its data or make it writable before converting it to a tensor. "
                 "This type of warning will be suppressed for the rest of this program.")


_warned_not_writable = [False]  # the non-writable warning is given once a process, unless set_warn_always(True)


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """``torch.frombuffer``: a 1-D tensor over an object's buffer (``bytearray``, ``array.array``), sharing it.

    Example:
        >>> import minigrad as mg
        >>> buf = bytearray(8)
        >>> t = mg.frombuffer(buf, dtype=mg.int32)
        >>> t[1] = 7
        >>> buf[4]
        7
    """
    view = memoryview(buffer)
    itemsize = dtype.np.itemsize
    length = view.nbytes
    if length <= 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count <= 0 and (length - offset) % itemsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({itemsize})")
    n = (length - offset) // itemsize if count <= 0 else count
    if offset + n * itemsize > length:
        raise ValueError(f"requested buffer length ({n} * {itemsize} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    if view.readonly and (_warn_always[0] or not _warned_not_writable[0]):  # PyTorch's TORCH_WARN_ONCE
        _warned_not_writable[0] = True
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=2)
    array = np.frombuffer(buffer, dtype=dtype.np, count=n, offset=offset)
    if not array.flags.writeable:  # PyTorch writes through anyway; NumPy needs to be told
        array = np.lib.stride_tricks.as_strided(array)
    out = from_numpy(array)
    return out.requires_grad_(True) if requires_grad else out


def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """``torch.empty_permuted``: an uninitialised tensor of ``size`` whose memory holds its dims in
    ``physical_layout``'s order (``(0, 2, 3, 1)``: channels last) (composite).

    Example:
        >>> import minigrad as mg
        >>> mg.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
        (12, 1, 3)
    """
    size, order = tuple(size), tuple(physical_layout)
    if len(order) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    for k, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               f"index {k}).  NB: negative dims not currently supported; file an issue if you want it.")
        if d in order[:k]:
            raise RuntimeError("Duplicate dim not allowed")
    stride, step = [0] * len(size), 1
    for d in reversed(order):  # the last dim of the layout is the fastest in memory
        stride[d], step = step, step * max(size[d], 1)
    out = creation.empty_strided(size, tuple(stride), dtype=dtype, device=device)
    return out.requires_grad_(True) if requires_grad else out


# -- denormals, memory-mapped files, device modules -------------------------------------------------------------------
#
# NOTE [ Flushing denormals ]
#     PyTorch's ``set_flush_denormal`` sets the CPU's FTZ and DAZ bits (MXCSR bits 15 and 6 on x86) so that
#     results and inputs below the smallest normal number count as zero; it answers True where the CPU can do
#     that. NumPy has no switch for it, but its loops run on the calling thread's MXCSR, so on x86-64 Linux
#     minigrad sets the bits through the C library's ``fegetenv``/``fesetenv`` (glibc's ``fenv_t`` keeps MXCSR
#     in its last four bytes). Elsewhere it answers False, as PyTorch does where the CPU cannot flush. As in
#     PyTorch, the setting belongs to the thread that made the call.

_FTZ_DAZ = (1 << 15) | (1 << 6)
_FENV_SIZE, _MXCSR_AT = 32, 28


def _libm() -> Any:
    """The C maths library with ``fegetenv``/``fesetenv``, or None where MXCSR cannot be reached this way."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None
    try:
        return ctypes.CDLL("libm.so.6")
    except OSError:
        return None


def set_flush_denormal(mode: bool) -> bool:
    """``torch.set_flush_denormal``: flush denormal floats to zero (``True``) or keep them (``False``) on the
    CPU, for this thread; whether the CPU supports it (NOTE [ Flushing denormals ]).

    Example:
        >>> import minigrad as mg
        >>> mg.set_flush_denormal(False)
        True
    """
    if not isinstance(mode, bool):
        raise TypeError(f"set_flush_denormal(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}")
    libm = _libm()
    if libm is None:
        return False
    env = ctypes.create_string_buffer(_FENV_SIZE)
    if libm.fegetenv(env) != 0:
        return False
    mxcsr = int.from_bytes(env.raw[_MXCSR_AT:_MXCSR_AT + 4], "little")
    mxcsr = mxcsr | _FTZ_DAZ if mode else mxcsr & ~_FTZ_DAZ
    ctypes.memmove(ctypes.addressof(env) + _MXCSR_AT, mxcsr.to_bytes(4, "little"), 4)
    return libm.fesetenv(env) == 0


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype: Any = None, layout: Any = None,
              device: Any = None, pin_memory: bool = False) -> Tensor:
    """``torch.from_file``: a 1-D CPU tensor of ``size`` elements over a memory-mapped file. With ``shared`` the
    mapping is the file's (writes reach it; the file is created or grown to fit), otherwise a private copy on
    write (the file must hold ``size`` elements).

    Example:
        >>> import minigrad as mg, numpy as np, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
        >>> np.arange(3, dtype=np.float32).tofile(path)
        >>> mg.from_file(path, size=3).tolist()
        [0.0, 1.0, 2.0]
    """
    if canonical_device(str(device)) not in ("None", "cpu"):
        raise RuntimeError("from_file: only CPU tensors can be mapped from a file")
    dtype = get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    nbytes = size * dtype.itemsize
    if size < 0:
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot allocate memory (12)")
    if shared:
        if not os.path.exists(filename) or os.path.getsize(filename) < nbytes:
            with open(filename, "ab") as f:
                f.truncate(max(nbytes, f.tell()))
    elif not os.path.exists(filename):
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such file or directory (2)")
    elif os.path.getsize(filename) < nbytes:
        raise RuntimeError(f"file <{filename}> size <{os.path.getsize(filename)}> is smaller than the required "
                           f"mapping size <{nbytes}>")
    if size == 0:
        return creation.empty(0, dtype=dtype)
    data = np.memmap(filename, dtype=dtype.np, mode="r+" if shared else "c", shape=(size,))
    return from_numpy(data)


_CPU = cpu
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
                 "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def get_device_module(device: Any = None) -> types.ModuleType:
    """``torch.get_device_module``: the module for ``device``'s type - ``minigrad.cuda`` for the GPU (``"cuda"``,
    ``"cuda:0"``, ``"gpu"``), the CPU's for ``"cpu"``; with no device, the GPU's where minigrad has one, else the
    CPU's (PyTorch's current accelerator).

    Example:
        >>> import minigrad as mg
        >>> mg.get_device_module("cuda") is mg.cuda
        True
    """
    if device is None:
        return cuda if cuda.is_available() else _CPU
    if not isinstance(device, str):  # a device object is its string
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    kind = str.__str__(device).partition(":")[0]
    if kind in ("cuda", "gpu"):
        return cuda
    if kind == "cpu":
        return _CPU
    if kind in _DEVICE_TYPES:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'.")
    raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {device}")
