"""oneDNN's fused LSTM layer, as PyTorch's CPU runs a float32 LSTM (``mkldnn_rnn_layer``).

``nn.LSTM`` in float32 without projections is, on PyTorch's CPU, one node per layer and direction,
``MkldnnRnnLayerBackward0``, whose inputs are the layer's input, its four weights and its initial
``h`` and ``c`` (aten/src/ATen/native/mkldnn/RNN.cpp); other dtypes run ATen's composite, the ops of
``nn/rnn.py``. This op is that node: the forward is the time loop over arrays, the backward
backpropagation through time written with ops (the states recomputed, then the gradients step by step
from the last), so it is differentiable again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels.array_kernels import lstm_layer_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from .registry import Attr, Input, defop

__all__: list[str] = []  # nn.LSTM's (nn/rnn.py)


def _layer_meta(op: str, input: Any, weight0: Any, weight1: Any, weight2: Any, weight3: Any, hx_: Any, cx_: Any,
                reverse: bool = False) -> Any:
    hidden = weight1.shape[1]
    return [((input.shape[0], input.shape[1], hidden), input.dtype), (tuple(hx_.shape), input.dtype),
            (tuple(cx_.shape), input.dtype)]


@register_kernel("mkldnn_rnn_layer", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/mkldnn_rnn_layer")
def mkldnn_rnn_layer_cpu(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse=False):
    return lstm_layer_arrays(np, input, weight0, weight1, weight2, weight3, hx_, cx_, reverse)


mkldnn_rnn_layer = defop(
    "mkldnn_rnn_layer",
    inputs=("input", "weight0", "weight1", Input("weight2", optional=True), Input("weight3", optional=True), "hx_",
            "cx_"),
    attrs=(Attr("reverse", False),), infer_meta=_layer_meta,
    save=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"), out=False,
    doc="one LSTM layer in one direction (input, W_ih, W_hh, b_ih, b_hh, h0, c0) -> (output, h_n, c_n), "
        "oneDNN's fused layer",
)


def _states(ops: Any, x: Any, w_ih: Any, w_hh: Any, bias: Any, h: Any, c: Any, reverse: bool) -> list[Any]:
    """The forward again, with ops: per step (in the order run) its time, h and c before it, and its gates
    i, f, g, o after their activations and c after it."""
    hidden, steps = w_hh.shape[1], []
    for t in (range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])):
        gates = ops.add(ops.matmul(ops.getitem(x, (t,)), w_ih, transpose_y=True), ops.matmul(h, w_hh, transpose_y=True))
        if bias is not None:
            gates = ops.add(gates, bias)
        i, f, g, o = (ops.getitem(gates, (slice(None), slice(k * hidden, (k + 1) * hidden))) for k in range(4))
        i, f, g, o = ops.sigmoid(i), ops.sigmoid(f), ops.tanh(g), ops.sigmoid(o)
        c_next = ops.add(ops.mul(f, c), ops.mul(i, g))
        steps.append((t, h, c, i, f, g, o, c_next))
        h, c = ops.mul(o, ops.tanh(c_next)), c_next
    return steps


def _one_minus_square(ops: Any, v: Any) -> Any:
    return ops.add(ops.neg(ops.mul(v, v)), 1.0)


def _sigmoid_slope(ops: Any, s: Any) -> Any:
    return ops.sub(s, ops.mul(s, s))


@mkldnn_rnn_layer.def_backward
def _mkldnn_rnn_layer_backward(ctx, grads):
    """Backpropagation through time (PyTorch's ``mkldnn_rnn_layer_backward``): from the last step run back
    to the first, the gradient of h and c carried from step to step; each step's gate gradients give its
    input's gradient and add into the weights' (both biases get the same)."""
    ops = ctx.ops
    saved = list(ctx.saved())
    x, w_ih, w_hh = saved[:3]
    b_ih, b_hh = (saved[3], saved[4]) if ctx.given(3) else (None, None)
    h0, c0 = saved[-2:]
    g_out, dh, dc = grads
    steps = _states(ops, x, w_ih, w_hh, None if b_ih is None else ops.add(b_ih, b_hh), h0, c0, ctx.attrs["reverse"])
    dxs: list[Any] = [None] * len(steps)
    dw_ih = dw_hh = db = None
    for t, h, c, i, f, g, o, c_next in reversed(steps):
        dh = ops.add(dh, ops.getitem(g_out, (t,)))
        tc = ops.tanh(c_next)
        dc = ops.add(dc, ops.mul(ops.mul(dh, o), _one_minus_square(ops, tc)))
        dgates = ops.concat([ops.mul(ops.mul(dc, g), _sigmoid_slope(ops, i)),
                             ops.mul(ops.mul(dc, c), _sigmoid_slope(ops, f)),
                             ops.mul(ops.mul(dc, i), _one_minus_square(ops, g)),
                             ops.mul(ops.mul(dh, tc), _sigmoid_slope(ops, o))], dim=1)
        dxs[t] = ops.matmul(dgates, w_ih)
        step_ih, step_hh = ops.matmul(dgates, ops.getitem(x, (t,)), transpose_x=True), ops.matmul(dgates, h, transpose_x=True)
        step_b = ops.sum(dgates, dim=0)
        dw_ih = step_ih if dw_ih is None else ops.add(dw_ih, step_ih)
        dw_hh = step_hh if dw_hh is None else ops.add(dw_hh, step_hh)
        db = step_b if db is None else ops.add(db, step_b)
        dh, dc = ops.matmul(dgates, w_hh), ops.mul(dc, f)
    return ops.stack(dxs, dim=0), dw_ih, dw_hh, db if b_ih is not None else None, db if b_ih is not None else None, dh, dc
