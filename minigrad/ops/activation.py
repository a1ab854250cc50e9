"""Activations, each defined in one place. ``softplus``: InferMeta, CPU kernel, OpDef and backward.

``softplus(x, beta=1, threshold=20) = log(1 + exp(beta * x)) / beta``, and
``x`` itself where ``beta * x > threshold`` (as ``torch.nn.functional.softplus``).
It is the op of lesson 1: its reference code sits in the marked regions
below, which ``minigrad lessons build`` turns into the student's holes.
Each piece is what one layer of the forward path (PaddlePaddle's eager forward path) calls:

- the **API layer** checks the arguments (the ``Attr`` checkers);
- the **kernel layer** selects ``softplus_cpu`` by KernelKey, then calls
  ``infer_softplus`` (InferMeta) before the kernel;
- the **dygraph layer** creates a ``SoftplusBackward0`` that saves ``x``;
  ``softplus_backward`` is its formula, written with minigrad ops so that
  ``create_graph=True`` can differentiate it again.

The file also holds the other activations of ``torch.nn.functional``
(NOTE [ Activations of the PyTorch surface ], below): ``silu``,
``leaky_relu``, ``elu`` (with selu's ``scale`` and ``input_scale``), ``celu``, ``hardtanh``, ``hardswish``,
``hardsigmoid`` as ops;
the activations of every network, ``tanh``, ``sigmoid``, ``relu``, ``gelu``,
``softmax`` and ``log_softmax``, as ops (relu's, gelu's, softmax's and
log_softmax's backwards are ops of their own, ``threshold_backward``,
``gelu_backward``, ``softmax_backward_data`` and ``log_softmax_backward_data``,
as PyTorch's are);
``threshold``, ``hardshrink``, ``softshrink``, ``glu`` and ``prelu_kernel`` (prelu's) as ops;
and the functions ``relu6``, ``selu`` (the elu op), ``celu``, ``mish``, ``softsign``,
``logsigmoid``, ``tanhshrink``, ``softmin``, ``prelu``.

Example:
    >>> import minigrad as mg
    >>> round(mg.softplus(mg.tensor([0.0])).item(), 4)
    0.6931
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..errors import ShapeError
from .. import dtypes as _dt
from ..dispatch.amp import autocast_as
from ..dispatch.dygraph import run_inplace
from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NUMERIC_DTYPES, is_floating_np
from ..kernels import infer_meta as im
from ..kernels import special
from ..kernels.key import Backend
from ..kernels.loss_terms import log_sigmoid_terms
from ..kernels.registry import register_kernel
from ..kernels.special import row_max
from ..tensor import Tensor
from ._checks import check_int, check_tensor, refuse_unless_floating, wrap_dim
from .math import abs, add, cast, div, neg, sub
from .registry import Attr, Input, defop
from .shape import reshape

__all__ = ["softplus"]  # the public API; the pieces below are imported from this module by name



def _check_positive(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type(v).__name__}")
    if name == "beta" and v <= 0:
        raise ShapeError(f"{op}(): argument 'beta' (position {pos}) must be positive, but got {v}")
    return float(v)


def infer_softplus(op: str, x: Any, beta: float = 1.0, threshold: float = 20.0) -> tuple[tuple[int, ...], Any]:
    """InferMeta of softplus: the output has ``x``'s shape and (floating) dtype.

    Raises:
        ValueError: ``x`` is not a floating-point array (the kernel layer casts
            integer inputs first, so this means a kernel-layer bug or a direct call).
    """
    # BEGIN LESSON 1 TASK 1.2: InferMeta
    if np.dtype(x.dtype).kind != "f":
        raise ValueError(f"{op}(): 'x' must have a floating-point dtype, but has {x.dtype}")
    return tuple(x.shape), x.dtype
    # END LESSON 1 TASK 1.2


@register_kernel("softplus", Backend.CPU, dtypes=FLOAT_DTYPES)
def softplus_cpu(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """The CPU kernel: ``log1p(exp(beta*x)) / beta``, stable for large ``|x|``, linear above ``threshold``."""
    # BEGIN LESSON 1 TASK 1.1: the forward kernel
    bx = x * beta
    # log(1 + e^t) = max(t, 0) + log1p(e^-|t|): exp of a non-positive number never overflows.
    soft = (np.maximum(bx, 0) + np.log1p(np.exp(-np.abs(bx)))) / beta
    return np.where(bx > threshold, x, soft).astype(x.dtype, copy=False)
    # END LESSON 1 TASK 1.1


softplus = defop(
    "softplus",
    inputs=("x",),
    attrs=(Attr("beta", 1.0, _check_positive), Attr("threshold", 20.0, _check_positive)),
    infer_meta=infer_softplus,
    save=("x",),
    promote="float",
    transform_dtype=True,
    doc="log(1 + exp(beta * x)) / beta; x where beta * x > threshold",
    # (no GPU kernel of its own: lesson 5 has the student write it, and registers it; until then it falls back)
)


@softplus.def_backward
def softplus_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d softplus / dx = sigmoid(beta * x) (1 in the linear region), times the incoming gradient."""
    # BEGIN LESSON 1 TASK 1.3: the backward formula
    (x,) = ctx.saved()
    beta, threshold = ctx.attrs["beta"], ctx.attrs["threshold"]
    ops = ctx.ops
    bx = ops.mul(x, beta)
    slope = ops.where(ops.gt(bx, threshold), 1.0, ops.sigmoid(bx))
    return (ops.mul(grad, slope),)
    # END LESSON 1 TASK 1.3


# -- more activations of torch.nn.functional ------------------------------------------------
# NOTE [ Activations of the PyTorch surface ]
#     Each primitive below is one op: its CPU kernel, its backward formula written
#     with ``ctx.ops``, and (where it takes no attribute) its CUDA expression for
#     the elementwise template. The derivatives follow PyTorch's own
#     ``*_backward`` kernels, including their choice at the kinks (hardtanh
#     passes the gradient only strictly inside its bounds). The composites at
#     the end (``relu6``, ``selu``, ``mish`` ...) are built from these ops, so
#     their nodes in a trace are those ops' nodes.

__all__ += ["silu", "leaky_relu", "elu", "hardtanh", "hardswish", "hardsigmoid"]


def _check_number(op: str, name: str, pos: int, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be a number, but got {type(v).__name__}")
    return float(v)


def _float_like(op: str, x: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """InferMeta of a floating activation: ``x``'s shape and dtype (integer inputs arrive cast to float)."""
    if not is_floating_np(np.dtype(x.dtype)):
        raise ShapeError(f"{op}(): 'x' must have a floating-point dtype, but has {x.dtype}")
    return tuple(x.shape), x.dtype


def _floating_only(kernel_name: str) -> Any:
    """InferMeta of an activation PyTorch computes only for floating dtypes: an integer (or bool) tensor is refused
    in its words (``"hardswish_cpu" not implemented for 'Long'``), not promoted; otherwise ``x``'s shape and dtype.
    (Its CPU kernel is registered for every dtype, so that such a call reaches this refusal.)"""
    def meta(op: str, x: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
        refuse_unless_floating(kernel_name, x)
        return tuple(x.shape), x.dtype

    return meta


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # exp of a non-positive number: never overflows
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


@register_kernel("silu", Backend.CPU, dtypes=FLOAT_DTYPES)
def silu_cpu(x: np.ndarray) -> np.ndarray:
    return np.asarray(x * _sigmoid(x), dtype=x.dtype)


silu = defop(
    "silu",
    inputs=("x",),
    infer_meta=_float_like,
    save=("x",),
    promote="float",
    gpu=("unary", "a / ((ACC)1 + {exp}(-a))"),
    doc="x * sigmoid(x) (the swish of Ramachandran et al.)",
)


@silu.def_backward
def silu_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d silu / dx = s (1 + x (1 - s)) with s = sigmoid(x)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    s = ops.sigmoid(x)
    return (ops.mul(grad, ops.mul(s, ops.add(ops.mul(x, ops.sub(1.0, s)), 1.0))),)


@register_kernel("leaky_relu", Backend.CPU, dtypes=FLOAT_DTYPES)
def leaky_relu_cpu(x: np.ndarray, negative_slope: float = 0.01) -> np.ndarray:
    return np.asarray(np.where(x > 0, x, x * negative_slope), dtype=x.dtype)


leaky_relu = defop(
    "leaky_relu",
    inputs=("x",),
    attrs=(Attr("negative_slope", 0.01, _check_number),),
    infer_meta=_float_like,
    save=("x",),
    promote="float",
    doc="x where x > 0, negative_slope * x elsewhere",
    gpu=("param", "a > (ACC)0 ? a : a * (ACC)p0"),
)


@leaky_relu.def_backward
def leaky_relu_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``leaky_relu_backward``: the gradient where x > 0, times the slope elsewhere."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.where(ops.gt(x, 0.0), grad, ops.mul(grad, ctx.attrs["negative_slope"])),)


@register_kernel("elu", Backend.CPU, dtypes=FLOAT_DTYPES)
def elu_cpu(x: np.ndarray, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> np.ndarray:
    neg = alpha * np.expm1(np.minimum(x, 0) * input_scale)  # exp only of non-positive numbers
    out = np.where(x > 0, x, neg)
    return np.asarray(out if scale == 1.0 else out * scale, dtype=x.dtype)


elu = defop(
    "elu",
    inputs=("x",),
    attrs=(Attr("alpha", 1.0, _check_number), Attr("scale", 1.0, _check_number),
           Attr("input_scale", 1.0, _check_number)),
    infer_meta=_float_like,
    save=("x",),
    promote="float",
    doc="scale * x where x > 0, scale * alpha * (exp(input_scale * x) - 1) elsewhere (PyTorch's elu, which selu "
        "calls with its constants)",
    gpu=("param", "(ACC)p1 * (a > (ACC)0 ? a : (ACC)p0 * {expm1}(a * (ACC)p2))"),
)


def _elu_slope(ops: Any, grad: Any, v: Any, alpha: float, scale: float, input_scale: float,
               is_result: bool = False) -> Any:
    """PyTorch's ``elu_backward``, ``scale`` times the gradient where ``v > 0`` and elsewhere (at NaN too, as
    PyTorch's test is ``v <= 0``): of the input ``v = x``, ``input_scale * scale * alpha * exp(input_scale *
    x)`` times it; of the result ``v = out`` (``is_result``: the in-place forms, which keep no input),
    ``input_scale * (out + scale * alpha)`` times it - the same derivative written with its value - and a
    negative ``alpha`` is refused. (celu's formula is the same with ``input_scale = 1 / alpha``.)"""
    if is_result:
        if alpha < 0:
            raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format(op="elu"))
        negative = ops.mul(grad, ops.mul(ops.add(v, scale * alpha), input_scale))
    else:
        negative = ops.mul(grad, ops.mul(ops.exp(ops.mul(ops.minimum(v, 0.0), input_scale)),
                                         input_scale * scale * alpha))
    return ops.where(ops.le(v, 0.0), negative, grad if scale == 1.0 else ops.mul(grad, scale))


@elu.def_backward
def elu_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``_elu_slope`` with the call's ``alpha``, ``scale`` and ``input_scale``."""
    (x,) = ctx.saved()
    a = ctx.attrs
    return (_elu_slope(ctx.ops, grad, x, a["alpha"], a["scale"], a["input_scale"]),)


def _check_celu_alpha(op: str, name: str, pos: int, v: Any) -> float:
    alpha = _check_number(op, name, pos, v)
    if alpha == 0:
        raise RuntimeError("celu(): ZeroDivisionError: alpha cannot be 0 for CELU")
    return alpha


@register_kernel("celu", Backend.CPU, dtypes=FLOAT_DTYPES)
def celu_cpu(x: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    return elu_cpu(x, alpha, 1.0, 1.0 / alpha)


_celu_op = defop(
    "celu",
    inputs=("x",),
    attrs=(Attr("alpha", 1.0, _check_celu_alpha),),
    infer_meta=_float_like,
    save=("x",),
    promote="float",
    doc="x where x > 0, alpha * (exp(x / alpha) - 1) elsewhere (Barron, 2017): PyTorch's CeluBackward0",
    gpu=("param", "a > (ACC)0 ? a : (ACC)p0 * {expm1}(a / (ACC)p0)"),
)


@_celu_op.def_backward
def celu_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's formula for celu: ``elu_backward`` with ``scale = 1``, ``input_scale = 1 / alpha``."""
    (x,) = ctx.saved()
    alpha = ctx.attrs["alpha"]
    return (_elu_slope(ctx.ops, grad, x, alpha, 1.0, 1.0 / alpha),)


# NOTE [ The in-place activations that save their result ]
#     PyTorch's ``leaky_relu_``, ``elu_`` (selu_'s too) and ``celu_`` are overloads of their own
#     (``LeakyReluBackward1``, ``EluBackward1``, ``CeluBackward1``): their input is overwritten, so their
#     node saves the *result* and its formula reads the slope from it (``elu_backward`` with
#     ``is_result``). That works only where the result's sign is the input's, so a negative slope
#     (``negative_slope`` or ``alpha`` below 0) is refused in backward, with PyTorch's words. Each is an
#     op of its own here, with the out-of-place op's kernel; ``run_inplace`` writes its values back.

_NEGATIVE_SLOPE_INPLACE = ("In-place {op} backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")


def _inplace_twin(op: Any, kernel: Callable[..., np.ndarray], doc: str) -> Any:
    """The op ``<op>_`` (``leaky_relu_``): ``op``'s values and attributes, its node saving the result (NOTE [ The
    in-place activations that save their result ])."""
    name = op.name + "_"
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(kernel)
    return defop(name, inputs=("x",), attrs=op.attrs, infer_meta=op.infer_meta, save=("out",), promote="float",
                 gpu=op.gpu_elementwise, out=False, doc=doc)


leaky_relu_ = _inplace_twin(leaky_relu, leaky_relu_cpu, "leaky_relu's values, for F.leaky_relu(x, inplace=True): "
                                                      "its node (LeakyReluBackward1) saves the result")
elu_ = _inplace_twin(elu, elu_cpu, "elu's values, for F.elu(x, inplace=True) and selu's: its node (EluBackward1) "
                                   "saves the result")
_celu_inplace_op = _inplace_twin(_celu_op, celu_cpu, "celu's values, for F.celu(x, inplace=True): its node (CeluBackward1) "
                                          "saves the result")


@leaky_relu_.def_backward
def leaky_relu_inplace_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``leaky_relu_backward`` of the result: the gradient where the result is positive, times the slope
    elsewhere (a negative slope refused)."""
    (out,) = ctx.saved()
    slope = ctx.attrs["negative_slope"]
    if slope < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_INPLACE.format(op="leakyReLu") + " File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
                           "calculation with negative slope")
    ops = ctx.ops
    return (ops.where(ops.gt(out, 0.0), grad, ops.mul(grad, slope)),)


@elu_.def_backward
def elu_inplace_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``_elu_slope`` of the result with the call's ``alpha``, ``scale`` and ``input_scale``."""
    (out,) = ctx.saved()
    a = ctx.attrs
    return (_elu_slope(ctx.ops, grad, out, a["alpha"], a["scale"], a["input_scale"], is_result=True),)


@_celu_inplace_op.def_backward
def celu_inplace_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``_elu_slope`` of the result with ``scale = 1``, ``input_scale = 1 / alpha`` (PyTorch's formula for celu_)."""
    (out,) = ctx.saved()
    alpha = ctx.attrs["alpha"]
    return (_elu_slope(ctx.ops, grad, out, alpha, 1.0, 1.0 / alpha, is_result=True),)


@register_kernel("hardtanh", Backend.CPU, dtypes=FLOAT_DTYPES)
def hardtanh_cpu(x: np.ndarray, min_val: float = -1.0, max_val: float = 1.0) -> np.ndarray:
    # np.clip keeps NaN, as PyTorch's clamp does.
    return np.asarray(np.clip(x, min_val, max_val), dtype=x.dtype)


def _hardtanh_meta(op: str, x: Any, min_val: float = -1.0, max_val: float = 1.0) -> tuple[tuple[int, ...], Any]:
    if min_val > max_val:
        raise ValueError(f"{op}(): min_val cannot be greater than max_val, but got min_val={min_val}, max_val={max_val}")
    return _float_like(op, x)


hardtanh = defop(
    "hardtanh",
    inputs=("x",),
    attrs=(Attr("min_val", -1.0, _check_number), Attr("max_val", 1.0, _check_number)),
    infer_meta=_hardtanh_meta,
    save=("x",),
    promote="float",
    doc="x clamped into [min_val, max_val]; the gradient passes strictly inside",
    gpu=("param", "a != a ? a : (a < (ACC)p0 ? (ACC)p0 : (a > (ACC)p1 ? (ACC)p1 : a))"),  # NaN stays, as clamp's
)


@hardtanh.def_backward
def hardtanh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``hardtanh_backward``: 0 where ``x <= min_val`` or ``x >= max_val``, the gradient elsewhere - at
    NaN too, which neither test holds for."""
    (x,) = ctx.saved()
    ops = ctx.ops
    below_max = ops.where(ops.ge(x, ctx.attrs["max_val"]), 0.0, grad)
    return (ops.where(ops.le(x, ctx.attrs["min_val"]), 0.0, below_max),)


@register_kernel("hardswish", Backend.CPU, dtypes=ALL_DTYPES)  # integers and bools reach InferMeta's refusal
def hardswish_cpu(x: np.ndarray) -> np.ndarray:
    return np.asarray(x * np.clip(x + 3, 0, 6) / 6, dtype=x.dtype)


hardswish = defop(
    "hardswish",
    inputs=("x",),
    infer_meta=_floating_only("hardswish_cpu"),
    save=("x",),
    gpu=("unary", "a * (a + (ACC)3 < (ACC)0 ? (ACC)0 : (a + (ACC)3 > (ACC)6 ? (ACC)6 : a + (ACC)3)) / (ACC)6"),
    doc="x * relu6(x + 3) / 6 (MobileNetV3)",
)


@hardswish.def_backward
def hardswish_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``hardswish_backward``: 0 up to -3, x / 3 + 1/2 strictly between -3 and 3, 1 from 3 on."""
    (x,) = ctx.saved()
    ops = ctx.ops
    middle = ops.add(ops.div(x, 3.0), 0.5)
    slope = ops.where(ops.le(x, -3.0), 0.0, ops.where(ops.lt(x, 3.0), middle, 1.0))
    return (ops.mul(grad, slope),)


@register_kernel("hardsigmoid", Backend.CPU, dtypes=ALL_DTYPES)  # integers and bools reach InferMeta's refusal
def hardsigmoid_cpu(x: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(x + 3, 0, 6) / 6, dtype=x.dtype)


hardsigmoid = defop(
    "hardsigmoid",
    inputs=("x",),
    infer_meta=_floating_only("hardsigmoid_cpu"),
    save=("x",),
    gpu=("unary", "(a + (ACC)3 < (ACC)0 ? (ACC)0 : (a + (ACC)3 > (ACC)6 ? (ACC)6 : a + (ACC)3)) / (ACC)6"),
    doc="relu6(x + 3) / 6, a piecewise-linear sigmoid",
)


@hardsigmoid.def_backward
def hardsigmoid_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``hardsigmoid_backward``: 1/6 strictly between -3 and 3, 0 elsewhere."""
    (x,) = ctx.saved()
    ops = ctx.ops
    below_3 = ops.where(ops.lt(x, 3.0), ops.div(grad, 6.0), 0.0)
    return (ops.where(ops.gt(x, -3.0), below_3, 0.0),)


# -- the activation ops of every network: tanh, sigmoid, relu, gelu, softmax, log_softmax -------------
#
# relu's and gelu's backwards are ops of their own (``threshold_backward``, ``gelu_backward``), as
# PyTorch's are: one fused kernel each, with a formula of their own for double backward.

__all__ += ["tanh", "sigmoid", "relu", "threshold_backward", "gelu", "gelu_backward", "softmax", "log_softmax",
            "softmax_backward_data", "log_softmax_backward_data"]


@register_kernel("tanh", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/tanh")
def tanh_cpu(x: np.ndarray) -> np.ndarray:
    """``numpy.tanh`` (a 0-d result as an array)."""
    return np.asarray(np.tanh(x))


tanh = defop("tanh", inputs=("x",), infer_meta=im.same, save=("out",), promote="float", methods=("tanh",),
             gpu=("unary", "{tanh}(a)"))


@tanh.def_backward
def tanh_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``tanh_backward``: ``grad * (1 - out * out)``."""
    (out,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.sub(1, ops.mul(out, out))),)


@register_kernel("sigmoid", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/sigmoid")
def sigmoid_cpu(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))``, stable for large ``|x|``: exp of a non-positive number only."""
    e = np.exp(-np.abs(x))
    return np.asarray(np.where(x >= 0, 1 / (1 + e), e / (1 + e)), dtype=x.dtype)


sigmoid = defop("sigmoid", inputs=("x",), infer_meta=im.same, save=("out",), promote="float", methods=("sigmoid",),
                gpu=("unary", "(a >= (ACC)0 ? (ACC)1 : {exp}(-{fabs}(a))) / ((ACC)1 + {exp}(-{fabs}(a)))"))


@sigmoid.def_backward
def sigmoid_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``sigmoid_backward``: ``grad * out * (1 - out)``."""
    (s,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.mul(s, ops.sub(1, s))),)


@register_kernel("relu", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/relu")
def relu_cpu(x: np.ndarray) -> np.ndarray:
    """``0`` where ``x < 0``, else ``x`` (NaN and -0.0 pass unchanged, as PyTorch's ``clamp_min(x, 0)``;
    NumPy's ``maximum(-0.0, 0)`` is +0.0, so ``1 / relu(-0.0)`` would be +inf)."""
    return np.asarray(np.where(x < 0, np.zeros((), dtype=x.dtype), x))


relu = defop("relu", inputs=("x",), out=False, infer_meta=im.same, save=("out",), methods=("relu",),
             gpu=("unary", "(a < (ACC)0) ? (ACC)0 : a"))


@relu.def_backward
def relu_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """``threshold_backward(grad, out)``: the gradient passes where the output is positive."""
    return (ctx.ops.threshold_backward(grad, ctx.saved()[0]),)


@register_kernel("threshold_backward", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/threshold_backward")
def threshold_backward_cpu(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``grad`` where ``x > 0``, else 0 (a NaN ``x`` passes ``grad`` on)."""
    return np.asarray(np.where(x <= 0, np.zeros((), dtype=grad.dtype), grad))


threshold_backward = defop(
    "threshold_backward",
    inputs=("grad", Input("x", differentiable=False)),
    infer_meta=im.grad_like,
    save=("x",),
    key_inputs=(0,),
    doc="relu's backward (PyTorch's threshold_backward at 0): grad where x > 0, else 0; NaN passes grad on",
    gpu=("binary", "(b <= (ACC)0) ? (ACC)0 : a"),
)


@threshold_backward.def_backward
def threshold_backward_backward(ctx: Any, grad: Any) -> tuple[Any, None]:
    """The same mask again for ``grad``; ``x`` is only compared, so it gets no gradient."""
    return ctx.ops.threshold_backward(grad, ctx.saved()[0]), None


_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@register_kernel("gelu", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/gelu")
def gelu_cpu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, ``x * Phi(x)``, as PyTorch's default, in float32 for float16 (PyTorch's opmath);
    chunk by chunk (``kernels/special.py``)."""
    work = x.astype(np.float32, copy=False) if x.dtype == np.float16 else x
    return special.by_chunks(_gelu_part, work).astype(x.dtype, copy=False)


def _gelu_part(x: np.ndarray) -> np.ndarray:
    out, _ = _normal_cdf(x)
    out *= x
    return out


def _normal_cdf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Phi(x) as a new array, and exp(-x**2 / 2) where it comes with it (float32; else None).

    float32: ``special.normal_cdf_float32``, one smooth piece. float64:
    ``(1 + erf(x / sqrt(2))) / 2``, whose cancellation for negative ``x`` float64 can afford.
    """
    if x.dtype == np.float32:
        return special.normal_cdf_float32(x)
    cdf = special.erf(x * _INV_SQRT2)
    cdf += 1.0
    cdf *= 0.5
    return cdf, None


_gelu_op = defop("gelu", inputs=("x",), infer_meta=im.same, save=("x",), promote="float",
                 doc="exact GELU: x * Phi(x)", methods=("gelu",),
                 gpu=("unary", "(ACC)0.5 * a * ((ACC)1 + {erf}(a * (ACC)0.7071067811865476))"))


@_gelu_op.def_backward
def gelu_backward_formula(ctx: Any, grad: Any) -> tuple[Any]:
    """``gelu_backward(grad, x)``: one fused kernel, as PyTorch's."""
    return (ctx.ops.gelu_backward(grad, ctx.saved()[0]),)


@register_kernel("gelu_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/gelu_backward")
def gelu_backward_cpu(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``grad * GELU'(x) = grad * (Phi(x) + x * phi(x))``, in float32 for float16 (PyTorch's opmath)."""
    work = np.float32 if grad.dtype == np.float16 else grad.dtype
    out = special.by_chunks(_gelu_backward_part, grad.astype(work, copy=False), x.astype(work, copy=False))
    return out.astype(grad.dtype, copy=False)


def _gelu_backward_part(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    cdf, pdf = _normal_cdf(x)
    if pdf is None:
        pdf = x * x
        pdf *= -0.5
        np.exp(pdf, out=pdf)
    pdf *= _INV_SQRT_2PI
    pdf *= x
    cdf += pdf
    cdf *= grad
    return cdf


gelu_backward = defop(
    "gelu_backward",
    inputs=("grad", "x"),
    infer_meta=im.grad_like,
    save=("grad", "x"),
    save_for={"grad": (1,)},
    transform_dtype=True,
    doc="gelu's backward (PyTorch's gelu_backward): grad * (Phi(x) + x * phi(x)), one fused kernel",
    gpu=("binary", "a * (((ACC)1 + {erf}(b * (ACC)0.7071067811865476)) * (ACC)0.5"
                   " + b * {exp}(b * b * (ACC)-0.5) * (ACC)0.3989422804014327)"),
)


@gelu_backward.def_backward
def gelu_double_backward(ctx: Any, h: Any) -> tuple[Any, Any]:
    """d/dgrad is GELU'(x) again; d/dx of grad * GELU'(x) is grad * phi(x) * (2 - x**2)."""
    grad, x = ctx.saved()  # grad is kept only for x's gradient (save_for)
    ops = ctx.ops
    gx = None
    if ctx.needs(1):
        pdf = ops.mul(ops.exp(ops.mul(ops.mul(x, x), -0.5)), _INV_SQRT_2PI)
        gx = ops.mul(ops.mul(h, grad), ops.mul(pdf, ops.sub(2, ops.mul(x, x))))
    return (ops.gelu_backward(h, x) if ctx.needs(0) else None), gx


# GELU's tanh approximation, GPT-2's: its own ops, as PyTorch's ``gelu(approximate='tanh')`` is one node
# (GeluBackward0, its backward GeluBackwardBackward0), the formulas of PyTorch's GeluKernel.

_BETA = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715


def _opmath(*arrays: np.ndarray) -> list[np.ndarray]:
    """float16 in float32 (PyTorch's opmath); the rest as they are."""
    return [a.astype(np.float32, copy=False) if a.dtype == np.float16 else a for a in arrays]


@register_kernel("gelu_tanh", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/gelu_tanh")
def gelu_tanh_cpu(x: np.ndarray) -> np.ndarray:
    """``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    (a,) = _opmath(x)
    return (0.5 * a * (1.0 + np.tanh(_BETA * (a + _KAPPA * a * a * a)))).astype(x.dtype, copy=False)


_gelu_tanh_op = defop("gelu_tanh", inputs=("x",), infer_meta=im.same, save=("x",), promote="float",
                      doc="GELU's tanh approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (GPT-2's)",
                      gpu=("unary", "(ACC)0.5 * a * ((ACC)1 + {tanh}((ACC)0.7978845608028654 * "
                                    "(a + (ACC)0.044715 * a * a * a)))"))


@_gelu_tanh_op.def_backward
def _gelu_tanh_backward_formula(ctx: Any, grad: Any) -> tuple[Any]:
    """``gelu_backward(grad, x, approximate='tanh')``: one fused kernel, as PyTorch's."""
    return (ctx.ops.gelu_tanh_backward(grad, ctx.saved()[0]),)


@register_kernel("gelu_tanh_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/gelu_tanh_backward")
def gelu_tanh_backward_cpu(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``grad * (0.5 (1 + t) + 0.5 x (1 - t^2) u')`` with ``t = tanh(u)``, ``u = beta (x + kappa x^3)``."""
    g, a = _opmath(grad, x)
    t = np.tanh(_BETA * (a + _KAPPA * a * a * a))
    slope = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * _BETA * (1.0 + 3.0 * _KAPPA * a * a)
    return (g * slope).astype(grad.dtype, copy=False)


gelu_tanh_backward = defop(
    "gelu_tanh_backward",
    inputs=("grad", "x"),
    infer_meta=im.grad_like,
    save=("grad", "x"),
    save_for={"grad": (1,)},
    transform_dtype=True,
    doc="the tanh GELU's backward (PyTorch's gelu_backward, approximate='tanh'), one fused kernel",
    gpu=("binary", "a * ((ACC)0.5 * ((ACC)1 + {tanh}((ACC)0.7978845608028654 * (b + (ACC)0.044715 * b * b * b)))"
                   " + (ACC)0.5 * b * ((ACC)1 - {tanh}((ACC)0.7978845608028654 * (b + (ACC)0.044715 * b * b * b))"
                   " * {tanh}((ACC)0.7978845608028654 * (b + (ACC)0.044715 * b * b * b)))"
                   " * (ACC)0.7978845608028654 * ((ACC)1 + (ACC)0.134145 * b * b))"),
)


@gelu_tanh_backward.def_backward
def _gelu_tanh_double_backward(ctx: Any, h: Any) -> tuple[Any, Any]:
    """d/dgrad is the slope again; d/dx of ``grad * slope(x)`` is ``grad (1 - t^2) (u' + 0.5 x (u'' - 2 t u'^2))``."""
    grad, x = ctx.saved()  # grad is kept only for x's gradient (save_for)
    ops = ctx.ops
    gx = None
    if ctx.needs(1):
        x2 = ops.mul(x, x)
        t = ops.tanh(ops.mul(ops.add(x, ops.mul(ops.mul(x2, x), _KAPPA)), _BETA))
        du = ops.mul(ops.add(ops.mul(x2, 3.0 * _KAPPA), 1.0), _BETA)  # u'
        ddu = ops.mul(x, 6.0 * _KAPPA * _BETA)  # u''
        sech2 = ops.sub(1.0, ops.mul(t, t))
        inner = ops.add(du, ops.mul(ops.mul(x, 0.5), ops.sub(ddu, ops.mul(ops.mul(t, 2.0), ops.mul(du, du)))))
        gx = ops.mul(ops.mul(h, grad), ops.mul(sech2, inner))
    return (ops.gelu_tanh_backward(h, x) if ctx.needs(0) else None), gx


@register_kernel("softmax", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/softmax")
def softmax_cpu(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """``exp(x - max) / sum(exp(x - max))`` along ``dim``."""
    if x.size == 0:  # an empty axis (or any zero-size input): nothing to normalise, and np.max has no identity
        return np.empty_like(x)
    e = np.exp(x - row_max(x, dim))
    return np.asarray(e / np.sum(e, axis=dim, keepdims=True), dtype=x.dtype)


_softmax_op = defop("softmax", inputs=("x",), attrs=(Attr("dim", -1, check_int),), infer_meta=im.softmax,
                    save=("out",), methods=("softmax",), amp="deny")


@_softmax_op.def_backward
def softmax_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """One fused op, as PyTorch's ``SoftmaxBackward0`` calls ``_softmax_backward_data``."""
    return (ctx.ops.softmax_backward_data(grad, ctx.saved()[0], ctx.attrs["dim"]),)


def _softmax_backward_meta(op: str, grad_output: Any, output: Any, dim: int = -1) -> Any:
    im.normalize_dims(op, dim, output.ndim)
    return im.grad_like(op, grad_output, output)


def _backward_data_op(name: str, rows: Callable[[np.ndarray, np.ndarray, int | None], np.ndarray], doc: str) -> Any:
    """The op ``name`` (softmax's or log_softmax's backward, from the gradient and the forward's output) and
    its CPU kernel ``rows(g, y, axis)``: float16 and bfloat16 computed in float32; a 0-d tensor is one row
    of one element (``axis`` None)."""
    def kernel(grad_output: np.ndarray, output: np.ndarray, dim: int = -1) -> np.ndarray:
        work = np.float32 if grad_output.itemsize == 2 else grad_output.dtype  # float16, bfloat16
        g, y = grad_output.astype(work, copy=False), output.astype(work, copy=False)
        return np.asarray(rows(g, y, dim if y.ndim else None)).astype(grad_output.dtype, copy=False)

    kernel.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(kernel)
    return defop(name, inputs=("grad_output", "output"), attrs=(Attr("dim", -1, check_int),),
                 infer_meta=_softmax_backward_meta, save=("grad_output", "output"),
                 save_for={"grad_output": (1,)}, transform_dtype=True, doc=doc)


softmax_backward_data = _backward_data_op(
    "softmax_backward_data", lambda g, y, axis: (g - np.sum(g * y, axis=axis, keepdims=True)) * y,
    doc="softmax's backward (PyTorch's _softmax_backward_data): output * (grad_output - sum(grad_output * output, "
        "dim)), one fused kernel")


@softmax_backward_data.def_backward
def softmax_double_backward(ctx: Any, h: Any) -> tuple[Any, Any]:
    """Of ``y * (g - sum(g * y))``: d/dg is ``softmax_backward_data(h, y)`` again; d/dy is
    ``g * h - sum(g * y) * h - g * sum(y * h)`` (PyTorch's ``softmax_double_backward``)."""
    g, y = ctx.saved()  # grad_output is kept only for output's gradient (save_for)
    ops, dim = ctx.ops, ctx.attrs["dim"]
    gg = ops.softmax_backward_data(h, y, dim) if ctx.needs(0) else None
    gy = None
    if ctx.needs(1):
        gy = ops.sub(ops.mul(ops.sub(g, ops.sum(ops.mul(g, y), dim=dim, keepdim=True)), h),
                     ops.mul(g, ops.sum(ops.mul(y, h), dim=dim, keepdim=True)))
    return gg, gy


@register_kernel("log_softmax", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/log_softmax")
def log_softmax_cpu(x: np.ndarray, dim: int = -1) -> np.ndarray:
    """``z - log(sum(exp(z)))`` with ``z = x - max`` along ``dim`` (stable)."""
    if x.size == 0:
        return np.empty_like(x)
    z = x - row_max(x, dim)
    return np.asarray(z - np.log(np.sum(np.exp(z), axis=dim, keepdims=True)), dtype=x.dtype)


_log_softmax_op = defop("log_softmax", inputs=("x",), attrs=(Attr("dim", -1, check_int),), infer_meta=im.softmax,
                        save=("out",), methods=("log_softmax",), amp="deny")


@_log_softmax_op.def_backward
def log_softmax_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """One fused op, as PyTorch's ``LogSoftmaxBackward0`` calls ``_log_softmax_backward_data``."""
    return (ctx.ops.log_softmax_backward_data(grad, ctx.saved()[0], ctx.attrs["dim"]),)


log_softmax_backward_data = _backward_data_op(
    "log_softmax_backward_data", lambda g, y, axis: g - np.exp(y) * np.sum(g, axis=axis, keepdims=True),
    doc="log_softmax's backward (PyTorch's _log_softmax_backward_data): grad_output - exp(output) * "
        "sum(grad_output, dim), one fused kernel")


@log_softmax_backward_data.def_backward
def log_softmax_double_backward(ctx: Any, h: Any) -> tuple[Any, Any]:
    """Of ``g - exp(y) * sum(g)``: d/dg is ``h - sum(h * exp(y))``, d/dy is ``-h * exp(y) * sum(g)``
    (PyTorch's formulas for ``_log_softmax_backward_data``)."""
    g, y = ctx.saved()  # grad_output is kept only for output's gradient (save_for)
    ops, dim = ctx.ops, ctx.attrs["dim"]
    e = ops.exp(y)
    gg = ops.sub(h, ops.sum(ops.mul(h, e), dim=dim, keepdim=True)) if ctx.needs(0) else None
    gy = ops.neg(ops.mul(ops.mul(h, e), ops.sum(g, dim=dim, keepdim=True))) if ctx.needs(1) else None
    return gg, gy


# -- PyTorch's functional forms: ``inplace=`` and the composites --------------------------

def inplace_form(op: Any, n_attrs: int | None = None, inplace_op: Any = None) -> Any:
    """``op`` with PyTorch's trailing ``inplace=False`` argument (``F.leaky_relu(x, 0.2, inplace=True)``).

    ``inplace=True`` writes the values into ``input`` (``run_inplace``: its version moves, a leaf that requires
    grad is refused), recorded by ``inplace_op`` - the op of PyTorch's in-place overload where its node is one of
    its own (``leaky_relu_``: ``LeakyReluBackward1``) - or by ``op`` itself (``F.relu``: ``ReluBackward0`` either
    way). ``n_attrs``: how many of the op's attributes the functional form takes by position before ``inplace``
    (all of them by default; ``F.elu(x, alpha, inplace)`` takes one).
    """
    n_attrs = len(op.attrs) if n_attrs is None else n_attrs
    taken = {a.name for a in op.attrs[:n_attrs]}
    twin = op if inplace_op is None else inplace_op

    def functional(input: Any, *args: Any, **kwargs: Any) -> Any:
        inplace = kwargs.pop("inplace", False)
        for name in kwargs.keys() - taken:
            raise TypeError(f"{op.name}() got an unexpected keyword argument '{name}'")
        if len(args) > n_attrs:  # inplace given by position, after the op's attributes
            args, inplace = args[:n_attrs], args[n_attrs]
        if not isinstance(inplace, bool):
            raise TypeError(f"{op.name}(): argument 'inplace' must be bool, but got {type(inplace).__name__}")
        if inplace and isinstance(input, Tensor):  # (anything else: the op's own refusal)
            return run_inplace(input, op.name + "_", lambda: twin(input, *args, **kwargs))
        return op(input, *args, **kwargs)

    functional.__name__ = functional.__qualname__ = op.name
    functional.__doc__ = (f"``minigrad.{op.name}`` with PyTorch's ``inplace=False`` argument (``inplace=True``: "
                          f"written into ``input``, {twin.node_class.__name__}).")
    functional.op = op  # type: ignore[attr-defined]
    return functional


__all__ += ["selu", "celu", "prelu"]  # torch.selu, torch.celu, torch.prelu; the others live in F only


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: composite, ``hardtanh(x, 0, 6)`` as in PyTorch (``hardtanh_`` with ``inplace``)."""
    if inplace:
        check_tensor("relu6", "input", 0, input)
        return run_inplace(input, "hardtanh_", lambda: hardtanh(input, 0.0, 6.0))
    return hardtanh(input, 0.0, 6.0)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants: the ``elu`` op with them as its ``alpha`` and
    ``scale`` (one ``EluBackward0``, as PyTorch's selu calls elu)."""
    check_tensor("selu", "input", 0, input)
    if inplace:  # torch.selu_: elu_ with the constants (EluBackward1)
        return run_inplace(input, "selu_", lambda: elu_(input, _SELU_ALPHA, _SELU_SCALE, 1.0))
    return elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: the ``celu`` op (``CeluBackward0``, as PyTorch's)."""
    check_tensor("celu", "input", 0, input)
    if inplace:  # torch.celu_ (CeluBackward1)
        return run_inplace(input, "celu_", lambda: _celu_inplace_op(input, alpha))
    return _celu_op(input, alpha)


@register_kernel("mish", Backend.CPU, dtypes=FLOAT_DTYPES)
def mish_cpu(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``x * tanh(log1p(exp(x)))`` (an infinite ``exp`` gives ``tanh(inf) = 1``: ``x`` itself)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x * np.tanh(np.log1p(np.exp(x))), dtype=x.dtype)


_mish = defop("mish", inputs=("x",), infer_meta=_float_like, save=("x",), promote="float",
              doc="x * tanh(softplus(x)) (Misra, 2019)", gpu=("unary", "a * {tanh}({log1p}({exp}(a)))"))


@_mish.def_backward
def _mish_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``mish_backward``: ``g (t + x s (1 - t^2))`` with ``s = sigmoid(x)``, ``t = tanh(softplus(x))``."""
    (x,) = ctx.saved()
    ops = ctx.ops
    t = ops.tanh(ops.log1p(ops.exp(x)))
    return (ops.mul(grad, ops.add(t, ops.mul(ops.mul(x, ops.sigmoid(x)), ops.sub(1.0, ops.mul(t, t))))),)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))`` (Misra, 2019): the ``mish`` op (``MishBackward0``, as PyTorch's)."""
    check_tensor("mish", "input", 0, input)
    if inplace:
        return run_inplace(input, "mish_", lambda: _mish(input))
    return _mish(input)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``: composite."""
    check_tensor("softsign", "input", 0, input)
    return div(input, add(abs(input), 1.0))


@register_kernel("log_sigmoid", Backend.CPU, dtypes=ALL_DTYPES)  # integers and bools reach InferMeta's refusal
def log_sigmoid_cpu(x: np.ndarray) -> np.ndarray:
    return np.asarray(log_sigmoid_terms(np, x), dtype=x.dtype)  # (binary_cross_entropy_with_logits's too)


log_sigmoid = defop("log_sigmoid", inputs=("x",), infer_meta=_floating_only("log_sigmoid_cpu"), save=("x",),
                    doc="log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|",
                    gpu=("unary", "(a < (ACC)0 ? a : (ACC)0) - {log1p}({exp}(-{fabs}(a)))"))


@log_sigmoid.def_backward
def log_sigmoid_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """d log_sigmoid / dx = 1 - sigmoid(x) = sigmoid(-x)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.mul(grad, ops.sigmoid(ops.neg(x))),)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, stable for large ``|x|``: the ``log_sigmoid`` op (``LogSigmoidBackward0``, as
    PyTorch's)."""
    check_tensor("logsigmoid", "input", 0, input)
    return log_sigmoid(input)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``: composite."""
    check_tensor("tanhshrink", "input", 0, input)
    return sub(input, tanh(input))


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-x, dim)``: composite. ``dim=None`` takes PyTorch's implicit choice (0 for 0-, 1- and 3-D inputs, else 1)."""
    check_tensor("softmin", "input", 0, input)
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _softmax_op(_cast_for("softmin", neg(input), dtype), dim)  # PyTorch's (-input).softmax(dim, dtype)


@register_kernel("prelu_kernel", Backend.CPU, dtypes=FLOAT_DTYPES)
def prelu_kernel_cpu(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``x`` where positive, ``weight * x`` elsewhere (a NaN ``x`` stays NaN), ``weight`` broadcast against ``x``."""
    return np.asarray(np.where(x > 0, x, weight * x), dtype=x.dtype)


_prelu_kernel = defop(
    "prelu_kernel",
    inputs=("x", "weight"),
    infer_meta=im.broadcast,
    save=("x", "weight"),
    transform_dtype=True,
    doc="PyTorch's _prelu_kernel: x where x > 0, weight * x elsewhere, weight already shaped to broadcast",
    gpu=("binary", "a > (ACC)0 ? a : b * a"),
)


@_prelu_kernel.def_backward
def prelu_kernel_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's ``_prelu_kernel_backward``: for ``x`` the gradient where ``x > 0``, ``weight`` times it elsewhere;
    for ``weight`` ``x`` times the gradient where ``x <= 0`` (0 elsewhere), summed to the weight's shape."""
    x, w = ctx.saved()
    ops = ctx.ops
    positive = ops.gt(x, 0.0)
    gx = ops.where(positive, grad, ops.mul(w, grad)) if ctx.needs(0) else None
    gw = ops.sum_to(ops.where(positive, 0.0, ops.mul(x, grad)), w.shape) if ctx.needs(1) else None
    return gx, gw


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one slope or one per channel (dim 1).

    PyTorch's ``prelu``: the weight reshaped to ``(1, C, 1, ...)`` (a ``view``, where the input has another number
    of dims), then the ``prelu_kernel`` op (``PreluKernelBackward0``).
    """
    check_tensor("prelu", "input", 0, input)
    check_tensor("prelu", "weight", 1, weight)
    if weight.ndim > 1:
        raise RuntimeError(f"prelu(): Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    n = weight.numel()
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("prelu(): Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if n != channels:
            raise RuntimeError(f"prelu(): Mismatch of parameter numbers and input channel size. Found parameter "
                               f"numbers = {n} and channel size = {channels}.")
    if input.ndim != weight.ndim:
        weight = reshape(weight, tuple(n if d == 1 else 1 for d in range(input.ndim)))
    return _prelu_kernel(input, weight)


# -- threshold, hardshrink, softshrink, glu: one op each, as PyTorch's ----------------------------------------
#
# Their backwards are PyTorch's formulas written with ``ctx.ops`` (a ``where`` of the mask); PyTorch fuses each
# into a kernel of its own (``threshold_backward``, ``hardshrink_backward`` ...), which only a double backward sees.

@register_kernel("threshold", Backend.CPU, dtypes=NUMERIC_DTYPES)
def threshold_cpu(x: np.ndarray, threshold: float, value: float) -> np.ndarray:
    """``value`` where ``x <= threshold``, else ``x`` (a NaN ``x`` stays; ``value`` in ``x``'s dtype, as PyTorch's
    ``threshold`` of an integer tensor)."""
    return np.asarray(np.where(x <= threshold, np.asarray(value).astype(x.dtype), x), dtype=x.dtype)


_threshold_op = defop(
    "threshold",
    inputs=("x",),
    attrs=(Attr("threshold", check=_check_number), Attr("value", check=_check_number)),
    infer_meta=im.same,
    save=("x",),
    doc="x where x > threshold, value elsewhere (NaN stays NaN)",
    gpu=("param", "a <= (ACC)p0 ? (ACC)p1 : a"),
)


@_threshold_op.def_backward
def threshold_formula(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``threshold_backward(grad, self, threshold)``: 0 where ``x <= threshold``, the gradient elsewhere
    (at NaN too)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.where(ops.le(x, ctx.attrs["threshold"]), 0.0, grad),)


register_kernel("threshold_", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/threshold_")(threshold_cpu)
#: ``threshold_``, PyTorch's in-place overload (``ThresholdBackward1``): threshold's values and formula, its node
#: saving the input as it was before the op wrote into it
_threshold_inplace_op = defop("threshold_", inputs=("x",), attrs=_threshold_op.attrs, infer_meta=im.same, save=("x",),
                   gpu=_threshold_op.gpu_elementwise, out=False,
                   doc="threshold's values, for F.threshold(x, threshold, value, inplace=True) (ThresholdBackward1)")
_threshold_inplace_op.def_backward(threshold_formula)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere: the ``threshold`` op (``ThresholdBackward0``); with
    ``inplace``, ``threshold_`` written into ``input`` (``ThresholdBackward1``)."""
    check_tensor("threshold", "input", 0, input)
    if inplace:
        return run_inplace(input, "threshold_", lambda: _threshold_inplace_op(input, threshold, value))
    return _threshold_op(input, threshold, value)


def _shrink_formula(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``hardshrink_backward`` and ``softshrink_backward``: 0 where ``-lambd <= x <= lambd``, the
    gradient elsewhere (at NaN too, for which ``|x| <= lambd`` is false)."""
    (x,) = ctx.saved()
    ops = ctx.ops
    return (ops.where(ops.le(ops.abs(x), ctx.attrs["lambd"]), 0.0, grad),)


@register_kernel("hardshrink", Backend.CPU, dtypes=FLOAT_DTYPES)
def hardshrink_cpu(x: np.ndarray, lambd: float = 0.5) -> np.ndarray:
    """0 where ``-lambd <= x <= lambd``, else ``x`` (NaN stays)."""
    inside = (x >= -lambd) & (x <= lambd)
    return np.asarray(np.where(inside, np.zeros((), dtype=x.dtype), x), dtype=x.dtype)


_hardshrink_op = defop(
    "hardshrink",
    inputs=("x",),
    attrs=(Attr("lambd", 0.5, _check_number),),
    infer_meta=_float_like,
    save=("x",),
    methods=("hardshrink",),
    doc="x where |x| > lambd, 0 elsewhere",
    gpu=("param", "(a >= -(ACC)p0 && a <= (ACC)p0) ? (ACC)0 : a"),
)
_hardshrink_op.def_backward(_shrink_formula)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, 0 elsewhere: the ``hardshrink`` op (``HardshrinkBackward0``)."""
    check_tensor("hardshrink", "input", 0, input)
    return _hardshrink_op(input, lambd)


def _softshrink_meta(op: str, x: Any, lambd: float = 0.5) -> tuple[tuple[int, ...], Any]:
    if lambd < 0:
        raise RuntimeError(f"softshrink(): lambda must be in range [0, 3.40282e+38] for input dtype Float, but found "
                           f"{lambd:g}")
    return _float_like(op, x)


@register_kernel("softshrink", Backend.CPU, dtypes=FLOAT_DTYPES)
def softshrink_cpu(x: np.ndarray, lambd: float = 0.5) -> np.ndarray:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, ``x * 0`` between (0, and NaN for NaN)."""
    out = np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))
    return np.asarray(out, dtype=x.dtype)


_softshrink_op = defop(
    "softshrink",
    inputs=("x",),
    attrs=(Attr("lambd", 0.5, _check_number),),
    infer_meta=_softshrink_meta,
    save=("x",),
    doc="x - lambd above lambd, x + lambd below -lambd, 0 between",
    gpu=("param", "a > (ACC)p0 ? a - (ACC)p0 : (a < -(ACC)p0 ? a + (ACC)p0 : a * (ACC)0)"),
)
_softshrink_op.def_backward(_shrink_formula)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between: the ``softshrink`` op
    (``SoftshrinkBackward0``)."""
    check_tensor("softshrink", "input", 0, input)
    return _softshrink_op(input, lambd)


def _glu_meta(op: str, x: Any, dim: int = -1) -> tuple[tuple[int, ...], Any]:
    """The input with ``dim`` halved; it must have even size there."""
    if x.ndim == 0:
        raise RuntimeError(f"{op}(): glu does not support scalars because halving size must be even")
    d = dim + x.ndim if dim < 0 else dim
    if not 0 <= d < x.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], "
                         f"but got {dim})")
    if x.shape[d] % 2:
        raise RuntimeError(f"{op}(): Halving dimension must be even, but dimension {d} is size {x.shape[d]}")
    shape, dtype = _floating_only("glu_cpu")(op, x)
    return shape[:d] + (shape[d] // 2,) + shape[d + 1:], dtype


@register_kernel("glu", Backend.CPU, dtypes=ALL_DTYPES)  # integers and bools reach InferMeta's refusal
def glu_cpu(x: np.ndarray, dim: int = -1) -> np.ndarray:
    a, b = np.split(x, 2, axis=dim)
    return np.asarray(a * _sigmoid(b), dtype=x.dtype)


_glu_op = defop(
    "glu",
    inputs=("x",),
    attrs=(Attr("dim", -1, check_int),),
    infer_meta=_glu_meta,
    save=("x",),
    doc="gated linear unit: a * sigmoid(b), a and b the halves of x along dim",
)


@_glu_op.def_backward
def glu_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``glu_backward``: ``grad * sigmoid(b)`` for the first half, ``grad * a * s (1 - s)`` for the
    second (``s = sigmoid(b)``), joined along ``dim``."""
    (x,) = ctx.saved()
    ops, dim = ctx.ops, ctx.attrs["dim"]
    d = dim % x.ndim
    n = x.shape[d] // 2
    lead = (slice(None),) * d
    a, b = ops.getitem(x, lead + (slice(0, n),)), ops.getitem(x, lead + (slice(n, 2 * n),))
    s = ops.sigmoid(b)
    ga = ops.mul(grad, s)
    gb = ops.mul(ops.mul(grad, a), ops.mul(s, ops.sub(1.0, s)))
    return (ops.concat([ga, gb], d),)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim``, return ``a * sigmoid(b)``: the ``glu``
    op (``GluBackward0``)."""
    check_tensor("glu", "input", 0, input)
    return _glu_op(input, dim)


# -- PyTorch's forms of gelu (approximate=), softmax and log_softmax (dtype=), each calling its op --------


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU: exact (``x * Phi(x)``, the ``gelu`` op) or ``approximate='tanh'``
    (``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, GPT-2's form, the ``gelu_tanh`` op); both are
    PyTorch's ``GeluBackward0``.
    """
    if approximate == "none":
        return _gelu_op(input)
    if approximate != "tanh":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _gelu_tanh_op(input)


def _cast_for(op: str, x: Tensor, dtype: Any) -> Tensor:
    """``x`` in ``dtype`` (PyTorch's ``input.to(dtype)``: no node where it already is)."""
    if dtype is None:
        return x
    dtype = _dt.as_dtype(dtype, f"{op}(): argument 'dtype'")
    return x if dtype is x.dtype else cast(x, dtype)


def _floating_for(op: str, x: Any, dim: Any) -> Any:
    """``x``, or PyTorch's CPU refusal of an integer or bool input (after ``dim``'s range, as PyTorch): its kernel,
    ``<op>_lastdim_kernel_impl`` along the last dim and ``<op>_kernel_impl`` along another, has no case for it."""
    if isinstance(x, Tensor) and not x.dtype.is_floating and type(dim) is int:
        d = wrap_dim(op, dim, x.ndim)
        kernel = f"{op}_lastdim_kernel_impl" if d == max(x.ndim, 1) - 1 else f"{op}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dt.scalar_type_name(x.dtype)}\'')
    return x


@autocast_as("softmax")
def softmax(input: Tensor, dim: int = -1, dtype: Any = None) -> Tensor:
    """Softmax along ``dim``; with ``dtype`` the input is cast first (``softmax(x, -1, dtype=mg.float64)``).

    Composite (``cast``, ``softmax``). Under CUDA autocast it is given ``dtype=float32`` unless the call gave a
    dtype, which is kept (PyTorch's ``fp32_set_opt_dtype``).
    """
    return _softmax_op(_floating_for("softmax", _cast_for("softmax", input, dtype), dim), dim)


@autocast_as("log_softmax")
def log_softmax(input: Tensor, dim: int = -1, dtype: Any = None) -> Tensor:
    """Log-softmax along ``dim`` (stable); with ``dtype`` the input is cast first.

    Composite (``cast``, ``log_softmax``).
    """
    return _log_softmax_op(_floating_for("log_softmax", _cast_for("log_softmax", input, dtype), dim), dim)


# What ``mg.gelu``/``mg.softmax``/``mg.log_softmax`` compute (NOTE [ One export per public name ]).
gelu.op = _gelu_op  # type: ignore[attr-defined]
softmax.op = _softmax_op  # type: ignore[attr-defined]
log_softmax.op = _log_softmax_op  # type: ignore[attr-defined]


# -- PyTorch's torch.* forms of activations minigrad otherwise has in F: hardshrink, threshold, and the in-place
#    threshold_, celu_, selu_ (torch's functions; Tensor has no such methods)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In place: ``input`` where ``input > threshold``, ``value`` elsewhere (``torch.threshold_``;
    ``ThresholdBackward1``)."""
    check_tensor("threshold_", "input", 0, input)
    return run_inplace(input, "threshold_", lambda: _threshold_inplace_op(input, threshold, value))


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In place: ``celu(input, alpha)`` written into ``input`` (``torch.celu_``; ``CeluBackward1``)."""
    return celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """In place: ``selu(input)`` written into ``input`` (``torch.selu_``; ``EluBackward1``, as PyTorch's elu_)."""
    return selu(input, inplace=True)


__all__ += ["hardshrink", "threshold", "threshold_", "celu_", "selu_"]
