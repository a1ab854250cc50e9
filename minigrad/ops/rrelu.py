"""Randomized leaky ReLU: ``rrelu`` (``F.rrelu``, ``nn.RReLU``, ``rrelu_``), PyTorch's ``rrelu_with_noise`` op.

In training each non-positive element is multiplied by its own slope drawn
uniformly from ``[lower, upper]``; in evaluation every slope is
``(lower + upper) / 2``, a leaky ReLU. Both are one op, as PyTorch's
(``RreluWithNoiseBackward0``; ``RreluWithNoiseBackward1`` in place), whose
second input is the noise: the slopes drawn (1 where ``x > 0``). Its gradient
is an op of its own, ``rrelu_with_noise_backward`` (``grad * noise`` in
training, the leaky ReLU's gradient in evaluation), differentiable again.

NOTE [ rrelu's draws ]
    PyTorch's CPU kernel walks the input in order and, for each element
    ``<= 0``, draws one ``uniform_real_distribution<double>(lower, upper)``
    from the generator: a 64-bit word, its low 53 bits times ``2^-53``, then
    ``u * (upper - lower) + lower`` in double (no fused multiply-add), rounded
    to the input's type (``lower`` and ``upper`` rounded to it first). The host
    draws here are those, word for word, so a seeded ``F.rrelu`` gives
    PyTorch's numbers. On a GPU the slopes are drawn there, one per element
    from the device generator (``device_draws``), as PyTorch's CUDA kernel
    draws one per element: no copy of the input to the host.

Example:
    >>> import minigrad as mg
    >>> mg.nn.functional.rrelu(mg.tensor([-2.0, 3.0])).tolist()
    [-0.4583333432674408, 3.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dispatch.dygraph import run_inplace
from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.backends import to_numpy
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..random import device_draws, generator_arg
from ..tensor import Tensor
from ._checks import check_tensor
from ._constants import constant, kept_constant
from .registry import Attr, Input, defop

__all__ = ["rrelu", "rrelu_"]

_ATTRS = (Attr("lower", 1.0 / 8), Attr("upper", 1.0 / 3), Attr("training", False))


def _slope(dtype: Any, lower: float, upper: float) -> Any:
    """Evaluation's slope ``(lower + upper) / 2``, computed in double, rounded to ``dtype``."""
    return np.asarray((float(lower) + float(upper)) / 2, dtype=dtype)[()]


def rrelu_with_noise_cpu(x: np.ndarray, noise: np.ndarray, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                         training: bool = False) -> np.ndarray:
    """``x * noise`` where ``x <= 0`` in training (a NaN passes), else the leaky ReLU of the mean slope."""
    if training:
        return np.asarray(np.where(x <= 0, x * noise, x), dtype=x.dtype)
    return np.asarray(np.where(x > 0, x, x * _slope(x.dtype, lower, upper)), dtype=x.dtype)


@register_kernel("rrelu_with_noise_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/rrelu_with_noise_backward")
def rrelu_with_noise_backward_cpu(grad: np.ndarray, x: np.ndarray, noise: np.ndarray, lower: float = 1.0 / 8,
                                  upper: float = 1.0 / 3, training: bool = False) -> np.ndarray:
    """``grad * noise`` where ``x <= 0`` in training, else the leaky ReLU's gradient of the mean slope."""
    if training:
        return np.asarray(np.where(x <= 0, grad * noise, grad), dtype=grad.dtype)
    return np.asarray(np.where(x > 0, grad, grad * _slope(grad.dtype, lower, upper)), dtype=grad.dtype)


def _rrelu_meta(op: str, x: Any, noise: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape), x.dtype


def _backward_meta(op: str, grad: Any, x: Any, noise: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(grad.shape), grad.dtype


# (the GPU expressions: p0 lower, p1 upper, p2 training)
_FORWARD_GPU = "(ACC)p2 != (ACC)0 ? (a <= (ACC)0 ? a * b : a) : (a > (ACC)0 ? a : a * (ACC)((p0 + p1) * 0.5))"
_BACKWARD_GPU = "(ACC)p2 != (ACC)0 ? (b <= (ACC)0 ? a * c : a) : (b > (ACC)0 ? a : a * (ACC)((p0 + p1) * 0.5))"


def _rrelu_op(name: str) -> Any:
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(rrelu_with_noise_cpu)
    op = defop(name, inputs=("x", Input("noise", differentiable=False)), attrs=_ATTRS, infer_meta=_rrelu_meta,
               save=("x", "noise"), key_inputs=(0,), gpu=("param", _FORWARD_GPU),
               doc="randomized leaky ReLU: x times its drawn slope (noise) where x <= 0 in training, the mean "
                   "slope's leaky ReLU in evaluation" + (" (rrelu_, in place)" if name.endswith("_") else ""))

    @op.def_backward
    def _backward(ctx: Any, grad: Any) -> tuple[Any, None]:
        x, noise = ctx.saved()
        a = ctx.attrs
        return ctx.ops.rrelu_with_noise_backward(grad, x, noise, a["lower"], a["upper"], a["training"]), None

    return op


_rrelu_with_noise = _rrelu_op("rrelu_with_noise")
_rrelu_with_noise_ = _rrelu_op("rrelu_with_noise_")  # its node is RreluWithNoiseBackward1, PyTorch's in-place one

rrelu_with_noise_backward = defop(
    "rrelu_with_noise_backward", inputs=("grad", "x", Input("noise", differentiable=False)), attrs=_ATTRS,
    infer_meta=_backward_meta, save=("x", "noise"), key_inputs=(0,), gpu=("ternary", _BACKWARD_GPU),
    doc="rrelu's gradient: grad times the noise where x <= 0 in training, the leaky ReLU's gradient in evaluation",
)


@rrelu_with_noise_backward.def_backward
def _rrelu_with_noise_backward_backward(ctx: Any, h: Any) -> tuple[Any, Any, None]:
    """Linear in ``grad``: the same op on ``h``; the input only chose the branch, its gradient is zeros."""
    x, noise = ctx.saved()
    a = ctx.attrs
    ops = ctx.ops
    return (ops.rrelu_with_noise_backward(h, x, noise, a["lower"], a["upper"], a["training"]), ops.fill(h, 0.0),
            None)


def _noise(x: Tensor, lower: float, upper: float, generator: Any) -> Tensor:
    """The slopes of a training call (NOTE [ rrelu's draws ]): PyTorch's host draws for the elements ``<= 0`` of a
    CPU input (1 elsewhere), one device draw per element on a GPU."""
    dt = x.dtype.np
    drawn = device_draws("uniform", tuple(x.shape), dt, x.device, float(lower), float(upper), generator=generator) \
        if x.device != "cpu" else None
    if drawn is not None:
        return constant(drawn, x)
    values = np.asarray(to_numpy(x.detach()._data))
    acc = np.float64 if dt == np.float64 else np.float32  # PyTorch's opmath type
    lo, hi = float(acc(lower)), float(acc(upper))
    negative = values <= 0
    u = generator_arg("rrelu", generator).uniform_double(int(negative.sum()))
    noise = np.ones(values.shape, dtype=dt)
    noise[negative] = (u * (hi - lo) + lo).astype(acc).astype(dt)
    return constant(noise, x)


def _rrelu(op: str, input: Any, lower: Any, upper: Any, training: bool, generator: Any, inplace: bool) -> Tensor:
    check_tensor(op, "input", 0, input)
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not input.dtype.is_floating or (training and input.device == "cpu" and input.dtype.name == "float16"):
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{im.scalar_type_name(input.dtype.np)}\'')
    generator_arg(op, generator)
    # (evaluation reads no noise: a 0-d zero, kept on the device)
    noise = _noise(input, lower, upper, generator) if training else kept_constant(
        ("rrelu: no noise",), lambda: np.zeros(()), input, input.dtype)
    if not inplace:
        return _rrelu_with_noise(input, noise, float(lower), float(upper), bool(training))
    return run_inplace(input, "rrelu_", lambda: _rrelu_with_noise_(input, noise, float(lower), float(upper),
                                                                   bool(training)), operands=())


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    """``torch.rrelu``: each element ``<= 0`` times a slope drawn from ``[lower, upper]`` in training (from
    ``generator``, PyTorch's draws: NOTE [ rrelu's draws ]), times ``(lower + upper) / 2`` otherwise; the
    ``rrelu_with_noise`` op (``RreluWithNoiseBackward0``)."""
    return _rrelu("rrelu", input, lower, upper, training, generator, False)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    """``torch.rrelu_``: ``rrelu`` in place (``RreluWithNoiseBackward1``)."""
    return _rrelu("rrelu_", input, lower, upper, training, generator, True)
