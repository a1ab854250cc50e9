"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells (composites of ops).

Every layer is written with ordinary ops, as PyTorch's CPU runs them (its ATen composite,
aten/src/ATen/native/RNN.cpp, with the same graph node for node): the input projection of every
time step at once (``linear`` over the whole sequence), ``unbind`` into steps, one cell per step
(``linear`` of the hidden state, the gates cut by ``unsafe_chunk``, ``sigmoid``, ``tanh``, ``mul``),
``stack`` of the outputs. So backpropagation through time is nothing special: the backward graph is
the forward's nodes, step after step, and the TUI shows it node by node. A float32 LSTM without
projections is, as on PyTorch's CPU, oneDNN's fused layer instead: one ``mkldnn_rnn_layer`` node per
layer and direction (``ops/rnn.py``). On a GPU every layer is the composite: PyTorch's CUDA runs cuDNN's
fused layers there (``CudnnRnnBackward0``), which minigrad does not have.

A ``PackedSequence`` (``nn/utils/rnn.py``) runs ATen's ``PackedLayer`` instead, on every device: the input
projection of all the packed rows at once, then per step only the rows of the sequences still running
(``narrow``), the hidden state cut as sequences end (``narrow``) and the final states joined (``cat``); the
outputs of all the steps are one ``cat`` (``CatBackward0``), as PyTorch's packed graph.

The equations (PyTorch's, with its gate order; ``W_ih`` stacks the gates' input weights, ``W_hh``
their hidden weights), written in ATen's order of operations::

    RNN:   h' = tanh((h W_hh^T + b_hh) + (x W_ih^T + b_ih))            (or relu)
    LSTM:  i, f, g, o = unsafe_chunk((h W_hh^T + b_hh) + (x W_ih^T + b_ih), 4)
           c' = sigmoid(f) * c + sigmoid(i) * tanh(g);   h' = sigmoid(o) * tanh(c')   (h' W_hr^T with proj_size)
    GRU:   r_x, z_x, n_x = unsafe_chunk(x W_ih^T + b_ih, 3);  r_h, z_h, n_h = unsafe_chunk(h W_hh^T + b_hh, 3)
           r = sigmoid(r_h + r_x);  z = sigmoid(z_h + z_x);  n = tanh(n_x + n_h * r)
           h' = (h - n) * z + n

Parameters have PyTorch's names and shapes (``weight_ih_l{k}``,
``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``, with ``_reverse`` for the
backward direction), so a PyTorch ``state_dict`` loads as is; all start from
``uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size))`` drawn in that order.

Example:
    >>> import minigrad as mg
    >>> _ = mg.manual_seed(0)  # returns the generator, as in PyTorch
    >>> lstm = mg.nn.LSTM(input_size=3, hidden_size=5, num_layers=2, batch_first=True)
    >>> out, (h, c) = lstm(mg.randn(4, 7, 3))
    >>> out.shape, h.shape, c.shape
    (minigrad.Size([4, 7, 5]), minigrad.Size([2, 4, 5]), minigrad.Size([2, 4, 5]))
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

from .. import ops
from ..creation import zeros
from ..dtypes import float32
from ..ops.rnn import mkldnn_rnn_layer
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, Parameter, _new_parameter
from .utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

#: Gates per mode: the rows of W_ih / W_hh are ``gates * hidden_size``.
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _uniform(shape: tuple[int, ...], bound: float, dtype: Any, device: Any) -> Parameter:
    """A parameter on ``device`` drawn from ``uniform(-bound, bound)`` by the default generator (nn.init's draw)."""
    p = _new_parameter(shape, dtype, device=device)
    init.uniform_(p, -bound, bound)
    return p


# -- one time step of each kind: ATen's cells (shared by the layers and the cells) -------------------

class _CellParams(NamedTuple):
    """One layer-direction's weights and ATen's three products with them (``CellParams``)."""

    w_ih: Tensor
    w_hh: Tensor
    b_ih: Tensor | None
    b_hh: Tensor | None
    w_hr: Tensor | None = None

    def linear_ih(self, x: Tensor) -> Tensor:
        return F.linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h: Tensor) -> Tensor:
        return F.linear(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h: Tensor) -> Tensor:
        """The projection of an LSTM's hidden state (``proj_size``), or ``h`` itself."""
        return h if self.w_hr is None else ops.matmul(h, ops.t(self.w_hr))


# A cell takes ``x`` (or, with ``precomputed``, ``x W_ih^T + b_ih`` already: the layers project every
# step at once), the hidden state and the weights. ATen changes its intermediates in place (``add_``,
# ``sigmoid_``, ``mul_`` on the pieces of ``unsafe_chunk``); the out-of-place ops here make the same
# nodes with the same inputs.

def _simple_cell(act: Callable[[Tensor], Tensor]) -> Callable[..., Tensor]:
    """ATen's ``SimpleCell``: ``act(linear_hh(h) + linear_ih(x))``."""
    def cell(x: Tensor, h: Tensor, p: _CellParams, precomputed: bool = False) -> Tensor:
        hh = p.linear_hh(h)
        return act(ops.add(hh, x if precomputed else p.linear_ih(x)))
    return cell


def _lstm_cell(x: Tensor, state: tuple[Tensor, Tensor], p: _CellParams,
               precomputed: bool = False) -> tuple[Tensor, Tensor]:
    """ATen's ``LSTMCell``; with ``w_hr`` (``proj_size``) the new hidden state is projected."""
    h, c = state
    hh = p.linear_hh(h)
    ingate, forgetgate, cellgate, outgate = ops.unsafe_chunk(ops.add(hh, x if precomputed else p.linear_ih(x)), 4, 1)
    ingate, forgetgate, cellgate, outgate = (ops.sigmoid(ingate), ops.sigmoid(forgetgate), ops.tanh(cellgate),
                                             ops.sigmoid(outgate))
    cy = ops.add(ops.mul(forgetgate, c), ops.mul(ingate, cellgate))
    return p.matmul_hr(ops.mul(outgate, ops.tanh(cy))), cy


def _gru_cell(x: Tensor, h: Tensor, p: _CellParams, precomputed: bool = False) -> Tensor:
    """ATen's ``GRUCell``: ``h' = (h - n) * z + n``."""
    igates = ops.unsafe_chunk(x if precomputed else p.linear_ih(x), 3, 1)
    hgates = ops.unsafe_chunk(p.linear_hh(h), 3, 1)
    reset_gate = ops.sigmoid(ops.add(hgates[0], igates[0]))
    input_gate = ops.sigmoid(ops.add(hgates[1], igates[1]))
    new_gate = ops.tanh(ops.add(igates[2], ops.mul(hgates[2], reset_gate)))
    return ops.add(ops.mul(ops.sub(h, new_gate), input_gate), new_gate)


_CELLS: dict[str, Callable[..., Any]] = {"RNN_TANH": _simple_cell(ops.tanh), "RNN_RELU": _simple_cell(ops.relu),
                                         "LSTM": _lstm_cell, "GRU": _gru_cell}


def _full_layer(mode: str, x: Tensor, hidden: Any, p: _CellParams, reverse: bool) -> tuple[Tensor, Any]:
    """One layer in one direction over ``x`` (L, N, H_in), ATen's ``FullLayer`` on the CPU: the input
    projection of every step at once, ``unbind`` into steps, the cell per step, ``stack`` of the outputs
    (in time order)."""
    steps = list(ops.unbind(p.linear_ih(x), 0))
    if not steps:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    cell = _CELLS[mode]
    outputs = []
    for xt in reversed(steps) if reverse else steps:
        hidden = cell(xt, hidden, p, True)
        outputs.append(hidden[0] if mode == "LSTM" else hidden)
    if reverse:
        outputs.reverse()
    return ops.stack(outputs, 0), hidden



def _hidden_slice(hidden: Any, start: int, end: int) -> Any:
    """ATen's ``hidden_slice``: rows ``start:end`` of the hidden state (both of an LSTM's)."""
    if isinstance(hidden, tuple):
        return tuple(ops.narrow(h, 0, start, end - start) for h in hidden)
    return ops.narrow(hidden, 0, start, end - start)


def _hidden_concat(hiddens: list[Any]) -> Any:
    """ATen's ``hidden_concat``: the hidden states' rows joined (each of an LSTM's two)."""
    if isinstance(hiddens[0], tuple):
        return tuple(ops.cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return ops.cat(hiddens, 0)


def _packed_layer(mode: str, data: Tensor, batch_sizes: list[int], hidden: Any, p: _CellParams,
                  reverse: bool) -> tuple[Tensor, Any]:
    """One layer in one direction over packed ``data``, ATen's ``PackedLayer`` (``ReversedPackedLayer``):
    the input projection of every row at once, then per step the rows of the sequences still running
    (``narrow``) through the cell. Forward, a sequence that ends leaves its hidden state aside (the final
    states are those, joined by ``cat``, shortest last); backward, from the last step, the hidden state
    grows as sequences begin."""
    xw, cell, lstm = p.linear_ih(data), _CELLS[mode], mode == "LSTM"
    outputs = []
    if not reverse:
        finals, last, offset = [], batch_sizes[0], 0
        for n in batch_sizes:
            step = ops.narrow(xw, 0, offset, n)
            offset += n
            if last > n:
                finals.append(_hidden_slice(hidden, n, last))
                hidden = _hidden_slice(hidden, 0, n)
            last = n
            hidden = cell(step, hidden, p, True)
            outputs.append(hidden[0] if lstm else hidden)
        finals.append(hidden)
        finals.reverse()
        return ops.cat(outputs, 0), _hidden_concat(finals)
    offset, last = data.shape[0], batch_sizes[-1]
    state = _hidden_slice(hidden, 0, last)
    for n in reversed(batch_sizes):
        if n > last:
            state = _hidden_concat([state, _hidden_slice(hidden, last, n)])
        step = ops.narrow(xw, 0, offset - n, n)
        offset, last = offset - n, n
        state = cell(step, state, p, True)
        outputs.append(state[0] if lstm else state)
    outputs.reverse()
    return ops.cat(outputs, 0), state


def _packed_rnn_impl(mode: str, data: Tensor, batch_sizes: list[int], hx: Any, params: list[_CellParams],
                     num_layers: int, dropout: float, train: bool, bidirectional: bool) -> tuple[Tensor, Any]:
    """ATen's ``rnn_tanh``/``rnn_relu``/``gru``/``lstm`` of a packed sequence (``data``, ``batch_sizes``):
    ``_layer_stack`` with ``PackedLayer``s (both directions' outputs joined on the last dim), the final
    states of the layer-directions joined by ``stack``. PyTorch runs no fused layer here, on any device."""
    _check_stack(mode, hx, params, num_layers, bidirectional)
    layer = (lambda m, x, h, p, rev: _packed_layer(m, x, batch_sizes, h, p, rev))
    output, finals = _layer_stack(mode, data, _split_hidden(mode, hx), params, num_layers, dropout, train,
                                  bidirectional, layer)
    return output, _joined_finals(mode, finals)


def _packed_call(mode: str, data: Tensor, batch_sizes: list[int], hx: Any, flat_weights: Any, has_biases: bool,
                 num_layers: int, dropout: float, train: bool, bidirectional: bool) -> tuple[Tensor, Any]:
    """ATen's packed overload of ``lstm``/``gru``/``rnn_tanh``/``rnn_relu`` on flat weights (what
    ``torch.lstm(data, batch_sizes, hx, params, ...)`` and the layers run): an LSTM has projections when its
    ``h_0`` is narrower than its ``c_0``."""
    projections = mode == "LSTM" and hx[0].size(2) != hx[1].size(2)
    return _packed_rnn_impl(mode, data, batch_sizes, hx, _gather_params(flat_weights, has_biases, projections),
                            num_layers, dropout, train, bidirectional)


def _gather_params(params: Any, has_biases: bool, has_projections: bool = False) -> list[_CellParams]:
    """ATen's ``gather_params``: the flat list ``[w_ih, w_hh, (b_ih, b_hh), (w_hr)]`` of every layer-direction,
    in ``_flat_weights`` order, cut into one ``_CellParams`` each."""
    params = list(params)
    stride = (4 if has_biases else 2) + (1 if has_projections else 0)
    if len(params) % stride:
        raise RuntimeError("got an incorrect number of RNN parameters")
    cells = []
    for i in range(0, len(params), stride):
        w_ih, w_hh, *rest = params[i:i + stride]
        b_ih, b_hh = (rest[0], rest[1]) if has_biases else (None, None)
        cells.append(_CellParams(w_ih, w_hh, b_ih, b_hh, rest[-1] if has_projections else None))
    return cells


def _layer_stack(mode: str, x: Tensor, hiddens: list[Any], params: list[_CellParams], num_layers: int,
                 dropout: float, train: bool, bidirectional: bool,
                 run_layer: Callable[..., tuple[Tensor, Any]] = _full_layer) -> tuple[Tensor, list[Any]]:
    """ATen's ``apply_layer_stack``: each layer (``run_layer``: a ``FullLayer``, or a ``PackedLayer`` over
    packed rows) on the last one's output (both directions' outputs joined by ``cat``), dropout between
    layers in training; the final hidden state of each layer-direction."""
    d = 2 if bidirectional else 1
    finals: list[Any] = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(d):
            i = layer * d + direction
            out, final = run_layer(mode, x, hiddens[i], params[i], bool(direction))
            outputs.append(out)
            finals.append(final)
        x = outputs[0] if d == 1 else ops.cat(outputs, outputs[0].ndim - 1)
        if dropout and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    return x, finals


def _mkldnn_lstm(input: Tensor, hx: Any, params: list[_CellParams], num_layers: int, dropout: float, train: bool,
                 bidirectional: bool, batch_first: bool) -> tuple[Tensor, Any]:
    """ATen's ``mkldnn_rnn``, PyTorch's CPU LSTM in float32 without projections: a contiguous time-major
    input, one fused ``mkldnn_rnn_layer`` per layer and direction (``MkldnnRnnLayerBackward0``, given its
    slice of ``h_0`` and ``c_0``), directions joined by ``cat``, dropout between layers in training."""
    x = (ops.transpose(input, 0, 1) if batch_first else input).contiguous()
    h0, c0 = hx[0].contiguous(), hx[1].contiguous()
    d = 2 if bidirectional else 1
    hys, cys = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(d):
            i = layer * d + direction
            p = params[i]
            out, hy, cy = mkldnn_rnn_layer(x, p.w_ih, p.w_hh, p.b_ih, p.b_hh, ops.getitem(h0, i), ops.getitem(c0, i),
                                           reverse=bool(direction))
            outputs.append(out)
            hys.append(hy)
            cys.append(cy)
        x = outputs[0] if d == 1 else ops.cat(outputs, outputs[0].ndim - 1)
        if dropout and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    output = ops.transpose(x, 0, 1) if batch_first else x
    return output, (ops.stack(hys, 0), ops.stack(cys, 0))


def _rnn_impl(mode: str, input: Tensor, hx: Any, params: list[_CellParams], num_layers: int, dropout: float,
              train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Any]:
    """ATen's ``rnn_tanh``/``rnn_relu``/``gru``/``lstm`` without cuDNN (``_rnn_impl_with_concat``), what
    ``torch.lstm`` and the others run and ``nn.RNNBase.forward`` calls: time-major input, ``hx`` cut into
    layer-directions by ``unbind``, the final states joined by ``stack``. With ``batch_first`` the output is
    transposed back in place by ``transpose_`` (``TransposeBackward1``), but ``lstm``'s by ``transpose``
    (``TransposeBackward0``). ``hx`` is ``(h_0, c_0)`` for ``LSTM``; ``params`` one per layer-direction."""
    _check_stack(mode, hx, params, num_layers, bidirectional)
    if (mode == "LSTM" and params[0].w_hr is None and input.dtype == float32 and input.numel()
            and input.device == "cpu"):  # (PyTorch's CUDA runs cuDNN's fused layers, which minigrad has not)
        return _mkldnn_lstm(input, hx, params, num_layers, dropout, train, bidirectional, batch_first)
    x = ops.transpose(input, 0, 1) if batch_first else input
    output, finals = _layer_stack(mode, x, _split_hidden(mode, hx), params, num_layers, dropout, train, bidirectional)
    if mode == "LSTM":
        hidden = _joined_finals(mode, finals)
        return (ops.transpose(output, 0, 1) if batch_first else output), hidden
    if batch_first:
        output.transpose_(0, 1)
    return output, _joined_finals(mode, finals)


def _check_stack(mode: str, hx: Any, params: list[_CellParams], num_layers: int, bidirectional: bool) -> None:
    """ATen's checks of ``stacked_rnn``, before any op: a hidden state and weights per layer-direction."""
    layers = num_layers * (2 if bidirectional else 1)
    if (hx[0] if mode == "LSTM" else hx).shape[0] != layers:
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if len(params) != layers:
        raise RuntimeError("Expected more weights in stacked_rnn")


def _split_hidden(mode: str, hx: Any) -> list[Any]:
    """``hx`` cut into its layer-directions' states by ``unbind`` (an LSTM's ``(h, c)`` pairs)."""
    if mode == "LSTM":
        return list(zip(ops.unbind(hx[0], 0), ops.unbind(hx[1], 0)))
    return list(ops.unbind(hx, 0))


def _joined_finals(mode: str, finals: list[Any]) -> Any:
    """The layer-directions' final states joined by ``stack`` (an LSTM's h and c each)."""
    if mode == "LSTM":
        return ops.stack([f[0] for f in finals], 0), ops.stack([f[1] for f in finals], 0)
    return ops.stack(finals, 0)


def _permuted(hx: Any, permutation: Tensor | None) -> Any:
    """PyTorch's ``permute_hidden``: the hidden state's batch reordered (``index_select`` on dim 1)."""
    if permutation is None:
        return hx
    if isinstance(hx, tuple):
        return tuple(ops.index_select(h, 1, permutation) for h in hx)
    return ops.index_select(hx, 1, permutation)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional loop shared by ``RNN``, ``LSTM`` and ``GRU``.

    Shapes (``D`` = 2 if bidirectional else 1): input ``(L, N, H_in)``
    (``(N, L, H_in)`` with ``batch_first``, ``(L, H_in)`` unbatched); output
    ``(L, N, D * H)``; hidden state ``(D * num_layers, N, H)``.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        name = type(self).__name__
        for nm, v in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"{name}(): argument '{nm}' must be int, but got {type(v).__name__}")
            if v <= 0:
                raise ValueError(f"{nm} must be greater than zero" if nm != "input_size"
                                 else f"{name}(): input_size must be a positive int, but got {v}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gate_rows = _GATES[mode] * hidden_size
        out_size = proj_size or hidden_size  # the width of h (and of each direction's output)
        bound = 1.0 / math.sqrt(hidden_size)
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else out_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [(f"weight_ih{suffix}", (gate_rows, layer_in)), (f"weight_hh{suffix}", (gate_rows, out_size))]
                if bias:
                    shapes += [(f"bias_ih{suffix}", (gate_rows,)), (f"bias_hh{suffix}", (gate_rows,))]
                if proj_size:
                    shapes.append((f"weight_hr{suffix}", (proj_size, hidden_size)))
                for pname, shape in shapes:
                    setattr(self, pname, _uniform(shape, bound, dtype, device))
                    self._flat_weights_names.append(pname)

    # -- checks (all before the first op: a failed call leaves no node) ---------------------

    def _check_input(self, input: Tensor, hx: Any) -> bool:
        """Check ``input`` and ``hx``; return whether the input is batched."""
        name = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: argument 'input' must be a Tensor, but got {type(input).__name__}")
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        batched = input.ndim == 3
        states = hx if isinstance(hx, tuple) else (hx,)
        if self.mode == "LSTM" and hx is not None and (not isinstance(hx, tuple) or len(hx) != 2):
            raise TypeError(f"{name}: hx must be a tuple (h_0, c_0) of Tensors")
        d = 2 if self.bidirectional else 1
        n = input.shape[1 if not self.batch_first else 0] if batched else None
        widths = (self.proj_size or self.hidden_size, self.hidden_size)  # h, then c
        for k, (s, width) in enumerate(zip(states, widths)):
            if s is None:
                continue
            if not isinstance(s, Tensor):
                raise TypeError(f"{name}: hx must be a Tensor, but got {type(s).__name__}")
            if batched and s.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {s.ndim}-D tensor")
            if not batched and s.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {s.ndim}-D tensor")
            want = (d * self.num_layers, n, width) if batched else (d * self.num_layers, width)
            self._check_hidden_size(s, want, k)
        return batched

    def _check_hidden_size(self, s: Tensor, want: tuple[int, ...], k: int) -> None:
        """PyTorch's ``check_hidden_size``: an LSTM names ``hidden[0]`` (h) or ``hidden[1]`` (c)."""
        if tuple(s.shape) != want:
            what = f"hidden[{k}] size" if self.mode == "LSTM" else "hidden size"
            raise RuntimeError(f"Expected {what} {want}, got {list(s.shape)}")

    def _check_packed(self, data: Tensor, hx: Tensor, batch: int) -> None:
        """``check_forward_args`` of a packed input to an RNN or GRU: 2-D rows of ``input_size`` features, a
        hidden state of the first step's batch (PyTorch checks it after ``permute_hidden``)."""
        if data.ndim != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {data.shape[-1]}")
        self._check_hidden_size(hx, ((2 if self.bidirectional else 1) * self.num_layers, batch, self.hidden_size), 0)

    def _forward_packed(self, input: PackedSequence, hx: Any) -> tuple[PackedSequence, Any]:
        """``forward`` of a ``PackedSequence``, as PyTorch's: a hidden state given in the batch's own order is
        put in the packed order (``index_select`` by ``sorted_indices``) and the final one put back. As in
        PyTorch, an RNN's or GRU's arguments are checked (``check_forward_args``) and an LSTM's are not: a
        wrong one fails in the ops that meet it, in their words."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(b) for b in batch_sizes.tolist()]
        lstm = self.mode == "LSTM"
        if hx is None:
            layers = (2 if self.bidirectional else 1) * self.num_layers
            h0 = zeros(layers, sizes[0], self.proj_size or self.hidden_size, dtype=data.dtype, device=data.device)
            hx = (h0, zeros(layers, sizes[0], self.hidden_size, dtype=data.dtype, device=data.device)) if lstm else h0
        else:
            hx = _permuted(tuple(hx) if lstm else hx, sorted_indices)
        if not lstm:
            self._check_packed(data, hx, sizes[0])
        output, hidden = _packed_call(self.mode, data, sizes, hx, self._flat_weights, self.bias, self.num_layers,
                                      self.dropout, self.training, self.bidirectional)
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), _permuted(hidden, unsorted_indices)

    # -- the loop: torch.nn's forward around ATen's rnn_tanh / rnn_relu / gru / lstm ------------------

    def _cell_params(self, layer: int, reverse: bool) -> _CellParams:
        suffix = f"_l{layer}" + ("_reverse" if reverse else "")
        weight = (lambda name: getattr(self, name + suffix))
        return _CellParams(weight("weight_ih"), weight("weight_hh"), weight("bias_ih") if self.bias else None,
                           weight("bias_hh") if self.bias else None, weight("weight_hr") if self.proj_size else None)

    @property
    def _flat_weights(self) -> list[Tensor]:
        """The parameters in ``_flat_weights_names`` order: the ``params`` list ``torch.lstm`` and the others take."""
        return [getattr(self, name) for name in self._flat_weights_names]

    def _aten_rnn(self, input: Tensor, hx: Any) -> tuple[Tensor, Any]:
        """``torch.lstm``/``torch.gru``/``torch.rnn_tanh``/``torch.rnn_relu`` on this layer's weights (as
        ``nn.RNNBase.forward`` calls ``_VF``)."""
        d = 2 if self.bidirectional else 1
        params = [self._cell_params(layer, bool(direction)) for layer in range(self.num_layers) for direction in range(d)]
        return _rnn_impl(self.mode, input, hx, params, self.num_layers, self.dropout, self.training,
                         self.bidirectional, self.batch_first)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        batched = self._check_input(input, hx)
        lstm = self.mode == "LSTM"
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = ops.unsqueeze(input, batch_dim)
            if hx is not None:
                hx = (ops.unsqueeze(hx[0], 1), ops.unsqueeze(hx[1], 1)) if lstm else ops.unsqueeze(hx, 1)
        if hx is None:
            layers, batch = (2 if self.bidirectional else 1) * self.num_layers, input.shape[batch_dim]
            h0 = zeros(layers, batch, self.proj_size or self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (h0, zeros(layers, batch, self.hidden_size, dtype=input.dtype, device=input.device)) if lstm else h0
        output, hidden = self._aten_rnn(input, hx)
        if not batched:
            output = ops.squeeze(output, batch_dim)
            hidden = (ops.squeeze(hidden[0], 1), ops.squeeze(hidden[1], 1)) if lstm else ops.squeeze(hidden, 1)
        return output, hidden

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``nonlinearity='relu'``: relu).

    Returns ``(output, h_n)``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, g, o`` (PyTorch's order). Returns ``(output, (h_n, c_n))``.

    With ``proj_size > 0`` each new hidden state is projected to ``proj_size`` features by
    ``weight_hr_l{k}`` (so ``h`` and the output have ``proj_size`` features, ``c`` keeps ``hidden_size``).
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit: gates ``r, z, n`` (PyTorch's order). Returns ``(output, h_n)``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)


class RNNCellBase(Module):
    """One time step: parameters ``weight_ih (G*H, H_in)``, ``weight_hh (G*H, H)``, ``bias_ih``, ``bias_hh``."""

    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = _GATES[self._mode] * hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        self.weight_ih = _uniform((rows, input_size), bound, dtype, device)
        self.weight_hh = _uniform((rows, hidden_size), bound, dtype, device)
        if bias:
            self.bias_ih = _uniform((rows,), bound, dtype, device)
            self.bias_hh = _uniform((rows,), bound, dtype, device)
        else:
            self.bias_ih = self.bias_hh = None

    def _check(self, input: Tensor, hx: Any) -> bool:
        name = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: argument 'input' must be a Tensor, but got {type(input).__name__}")
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        for s in (hx if isinstance(hx, tuple) else (hx,)):
            if s is None:
                continue
            if not isinstance(s, Tensor):
                raise TypeError(f"{name}: hx must be a Tensor, but got {type(s).__name__}")
            if s.ndim != input.ndim:
                raise ValueError(f"{name}: Expected hidden to be {input.ndim}D, got {s.ndim}D instead")
            want = tuple(input.shape[:-1]) + (self.hidden_size,)
            if tuple(s.shape) != want:
                raise RuntimeError(f"hidden has inconsistent shape: got {tuple(s.shape)} expected {want}")
        return input.ndim == 2

    def _zeros(self, x: Tensor) -> Tensor:
        return zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)

    def _cell_params(self) -> _CellParams:
        return _CellParams(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")
        if getattr(self, "nonlinearity", "tanh") != "tanh":  # RNNCell's; PyTorch prints it unquoted
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, device, dtype)  # one gate either way
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched = self._check(input, hx)
        x = input if batched else ops.unsqueeze(input, 0)
        h = self._zeros(x) if hx is None else hx if batched else ops.unsqueeze(hx, 0)
        out = _CELLS[self._mode](x, h, self._cell_params())
        return out if batched else ops.squeeze(out, 0)


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is ``(h, c)``; returns ``(h', c')``."""

    _mode = "LSTM"

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        if hx is not None and (not isinstance(hx, tuple) or len(hx) != 2):
            raise TypeError("LSTMCell: hx must be a tuple (h_0, c_0) of Tensors")
        batched = self._check(input, hx)
        x = input if batched else ops.unsqueeze(input, 0)
        if hx is None:
            h = self._zeros(x)
            state = (h, h)
        else:
            state = hx if batched else (ops.unsqueeze(hx[0], 0), ops.unsqueeze(hx[1], 0))
        h, c = _lstm_cell(x, state, self._cell_params())
        return (h, c) if batched else (ops.squeeze(h, 0), ops.squeeze(c, 0))


class GRUCell(RNNCellBase):
    """One GRU step; returns ``h'``."""

    _mode = "GRU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched = self._check(input, hx)
        x = input if batched else ops.unsqueeze(input, 0)
        h = self._zeros(x) if hx is None else hx if batched else ops.unsqueeze(hx, 0)
        out = _gru_cell(x, h, self._cell_params())
        return out if batched else ops.squeeze(out, 0)
