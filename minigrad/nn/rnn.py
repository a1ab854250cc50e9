"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells (composites of ops).

Every layer is written with ordinary ops - ``linear`` (matmul + add),
``sigmoid``, ``tanh``, ``mul``, ``chunk``, ``stack`` - one group of them per
time step, so backpropagation through time is nothing special: the backward
graph is the forward's nodes, step after step, and the TUI shows it node by node.

The equations (PyTorch's, with its gate order; ``W_ih`` stacks the gates' input
weights, ``W_hh`` their hidden weights)::

    RNN:   h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)            (or relu)
    LSTM:  i, f, g, o = chunk(x W_ih^T + b_ih + h W_hh^T + b_hh, 4)
           c' = sigmoid(f) * c + sigmoid(i) * tanh(g);   h' = sigmoid(o) * tanh(c')
    GRU:   r, z, n_x = chunk(x W_ih^T + b_ih, 3);  r_h, z_h, n_h = chunk(h W_hh^T + b_hh, 3)
           r = sigmoid(r + r_h);  z = sigmoid(z + z_h);  n = tanh(n_x + r * n_h)
           h' = (1 - z) * n + z * h

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
from typing import Any, Callable

from .. import ops
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, Parameter, _new_parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

#: Gates per mode: the rows of W_ih / W_hh are ``gates * hidden_size``.
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _uniform(shape: tuple[int, ...], bound: float, dtype: Any) -> Parameter:
    """A parameter drawn from ``uniform(-bound, bound)`` by the default generator (nn.init's draw)."""
    p = _new_parameter(shape, dtype)
    init.uniform_(p, -bound, bound)
    return p


# -- one time step of each kind (shared by the layers and the cells) --------------------------

def _rnn_step(x_proj: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, act: Callable[[Tensor], Tensor]) -> Tensor:
    """``h' = act(x_proj + h W_hh^T + b_hh)``, where ``x_proj = x W_ih^T + b_ih`` was computed already."""
    return act(ops.add(x_proj, F.linear(h, w_hh, b_hh)))


def _lstm_step(x_proj: Tensor, state: tuple[Tensor, Tensor], w_hh: Tensor, b_hh: Tensor | None,
               w_hr: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step; with ``w_hr`` (``proj_size``) the new hidden state is projected: ``h' W_hr^T``."""
    h, c = state
    i, f, g, o = ops.chunk(ops.add(x_proj, F.linear(h, w_hh, b_hh)), 4, -1)
    c = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
    h = ops.mul(ops.sigmoid(o), ops.tanh(c))
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_step(x_proj: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    r_x, z_x, n_x = ops.chunk(x_proj, 3, -1)
    r_h, z_h, n_h = ops.chunk(F.linear(h, w_hh, b_hh), 3, -1)
    r = ops.sigmoid(ops.add(r_x, r_h))
    z = ops.sigmoid(ops.add(z_x, z_h))
    n = ops.tanh(ops.add(n_x, ops.mul(r, n_h)))
    return ops.add(ops.mul(ops.sub(1.0, z), n), ops.mul(z, h))  # (1 - z) * n + z * h


def _activation(mode: str) -> Callable[[Tensor], Tensor]:
    return ops.relu if mode == "RNN_RELU" else ops.tanh


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
                    setattr(self, pname, _uniform(shape, bound, dtype))
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
        for s, width in zip(states, widths):
            if s is None:
                continue
            if not isinstance(s, Tensor):
                raise TypeError(f"{name}: hx must be a Tensor, but got {type(s).__name__}")
            if batched and s.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {s.ndim}-D tensor")
            if not batched and s.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {s.ndim}-D tensor")
            want = (d * self.num_layers, n, width) if batched else (d * self.num_layers, width)
            if tuple(s.shape) != want:
                raise RuntimeError(f"Expected hidden size {want}, got {tuple(s.shape)}")
        return batched

    # -- the loop --------------------------------------------------------------------------

    def _initial_state(self, hx: Any, index: int, batch: int, like: Tensor) -> Any:
        """Layer-direction ``index``'s initial state: a slice of ``hx``, or zeros."""
        if hx is None:
            col = ops.fill(ops.getitem(like, (slice(None), slice(0, 1))), 0.0)  # (N, 1)
            zeros = ops.expand(col, (batch, self.hidden_size)).detach()
            if self.mode != "LSTM":
                return zeros
            h0 = ops.expand(col, (batch, self.proj_size)).detach() if self.proj_size else zeros
            return h0, zeros
        if self.mode == "LSTM":
            return ops.getitem(hx[0], index), ops.getitem(hx[1], index)
        return ops.getitem(hx, index)

    def _run_direction(self, x: Tensor, state: Any, layer: int, reverse: bool) -> tuple[list[Tensor], Any]:
        """Run one layer in one direction over the sequence ``x`` (L, N, H_in)."""
        suffix = f"_l{layer}" + ("_reverse" if reverse else "")
        w_ih, w_hh = getattr(self, f"weight_ih{suffix}"), getattr(self, f"weight_hh{suffix}")
        b_ih = getattr(self, f"bias_ih{suffix}") if self.bias else None
        b_hh = getattr(self, f"bias_hh{suffix}") if self.bias else None
        w_hr = getattr(self, f"weight_hr{suffix}") if self.proj_size else None
        # The input projection of every step at once: one 2-D matmul over (L * N) rows, then one
        # unbind into per-step tensors (its backward is one stack, not a scatter per step).
        length, batch = x.shape[0], x.shape[1]
        x_proj = F.linear(ops.reshape(x, (length * batch, x.shape[2])), w_ih, b_ih)
        per_step = ops.unbind(ops.reshape(x_proj, (length, batch, x_proj.shape[-1])), 0)
        steps = range(length - 1, -1, -1) if reverse else range(length)
        outs: list[Tensor] = []
        for t in steps:
            xt = per_step[t]
            if self.mode == "LSTM":
                state = _lstm_step(xt, state, w_hh, b_hh, w_hr)
                outs.append(state[0])
            elif self.mode == "GRU":
                state = _gru_step(xt, state, w_hh, b_hh)
                outs.append(state)
            else:
                state = _rnn_step(xt, state, w_hh, b_hh, _activation(self.mode))
                outs.append(state)
        if reverse:
            outs.reverse()
        return outs, state

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        batched = self._check_input(input, hx)
        x = input
        if not batched:
            x = ops.unsqueeze(x, 1)
            if hx is not None:
                hx = tuple(ops.unsqueeze(s, 1) for s in hx) if self.mode == "LSTM" else ops.unsqueeze(hx, 1)
        elif self.batch_first:
            x = ops.transpose(x, 0, 1)
        batch = x.shape[1]
        d = 2 if self.bidirectional else 1
        finals: list[Any] = []
        for layer in range(self.num_layers):
            per_dir = []
            for direction in range(d):
                state = self._initial_state(hx, layer * d + direction, batch, ops.getitem(x, 0))
                outs, state = self._run_direction(x, state, layer, bool(direction))
                per_dir.append(ops.stack(outs, 0))
                finals.append(state)
            x = per_dir[0] if d == 1 else ops.cat(per_dir, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        if self.mode == "LSTM":
            h_n = ops.stack([s[0] for s in finals], 0)
            c_n = ops.stack([s[1] for s in finals], 0)
        else:
            h_n = ops.stack(finals, 0)
        if not batched:
            x = ops.squeeze(x, 1)
            h_n = ops.squeeze(h_n, 1)
            if self.mode == "LSTM":
                c_n = ops.squeeze(c_n, 1)
        elif self.batch_first:
            x = ops.transpose(x, 0, 1)
        return (x, (h_n, c_n)) if self.mode == "LSTM" else (x, h_n)

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
        self.weight_ih = _uniform((rows, input_size), bound, dtype)
        self.weight_hh = _uniform((rows, hidden_size), bound, dtype)
        if bias:
            self.bias_ih = _uniform((rows,), bound, dtype)
            self.bias_hh = _uniform((rows,), bound, dtype)
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
        col = ops.fill(ops.getitem(x, (Ellipsis, slice(0, 1))), 0.0)
        return ops.expand(col, tuple(x.shape[:-1]) + (self.hidden_size,)).detach()

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
        self._check(input, hx)
        h = self._zeros(input) if hx is None else hx
        return _rnn_step(F.linear(input, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                         _activation(self._mode))


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is ``(h, c)``; returns ``(h', c')``."""

    _mode = "LSTM"

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        if hx is not None and (not isinstance(hx, tuple) or len(hx) != 2):
            raise TypeError("LSTMCell: hx must be a tuple (h_0, c_0) of Tensors")
        self._check(input, hx)
        state = (self._zeros(input), self._zeros(input)) if hx is None else hx
        return _lstm_step(F.linear(input, self.weight_ih, self.bias_ih), state, self.weight_hh, self.bias_hh)


class GRUCell(RNNCellBase):
    """One GRU step; returns ``h'``."""

    _mode = "GRU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        self._check(input, hx)
        h = self._zeros(input) if hx is None else hx
        return _gru_step(F.linear(input, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
