"""``multilabel_margin_loss``: PyTorch's op (``MultilabelMarginLossBackward0``) and its gradient op.

Each row of the input ``(N, C)`` (or one sample ``(C,)``) comes with a row of class indices, read up to its first
``-1``: the listed classes are the sample's targets. The loss of a row sums the hinge ``max(0, 1 - x[y] + x[d])``
over its listed targets ``y`` and the classes ``d`` that are no target, over ``C``. The gradient is one kernel,
PyTorch's ``multilabel_margin_loss_backward``, which has no derivative of its own: with ``create_graph`` its node
is PyTorch's ``NotImplemented``, and a backward through it raises PyTorch's error (as ``multi_margin_loss``'s).

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> round(mg.nn.functional.multilabel_margin_loss(x, mg.tensor([[3, 0, -1, 1]])).item(), 4)
    0.85
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.loss_terms import multilabel_margin_grad, multilabel_margin_terms, reduce_terms
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_reduction, check_tensors
from .loss import reduction_of
from .registry import Attr, Input, defop

__all__: list[str] = []

_OP = "multilabel_margin_loss"


def _rows(a: Any) -> Any:
    """``(N, C)`` as it is, one sample ``(C,)`` or a 0-d input (one class) as one row."""
    return a.reshape(-1, a.shape[-1] if a.ndim else 1)


def _check_targets(target: np.ndarray, c: int) -> None:
    if target.size and (target.min() < -1 or target.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")


def _loss_meta(op: str, input: Any, target: Any, reduction: str = "mean") -> tuple[tuple[int, ...], Any]:
    return ((input.shape[0],) if reduction == "none" and input.ndim == 2 else ()), input.dtype


def _grad_meta(op: str, grad: Any, input: Any, target: Any, reduction: str = "mean") -> tuple[tuple[int, ...], Any]:
    return tuple(input.shape), input.dtype


@register_kernel(_OP, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{_OP}")
def multilabel_margin_loss_cpu(input: np.ndarray, target: np.ndarray, reduction: str = "mean") -> np.ndarray:
    rows, t = _rows(input), _rows(target)
    _check_targets(t, rows.shape[1])
    terms = multilabel_margin_terms(np, rows, t)
    return reduce_terms(np, terms if input.ndim == 2 else terms.reshape(()), reduction, input.dtype)


@register_kernel(f"{_OP}_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{_OP}_backward")
def multilabel_margin_loss_backward_cpu(grad: np.ndarray, input: np.ndarray, target: np.ndarray,
                                        reduction: str = "mean") -> np.ndarray:
    return multilabel_margin_grad(np, grad, _rows(input), _rows(target), reduction).reshape(input.shape)


_REDUCTION = (Attr("reduction", "mean", check_reduction),)
_multilabel_margin_loss = defop(
    _OP, inputs=("input", Input("target", differentiable=False)), attrs=_REDUCTION, infer_meta=_loss_meta,
    save=("input", "target"), key_inputs=(0,), amp="deny",
    doc="multi-label hinge loss: over the targets listed before the first -1 and the other classes, "
        "max(0, 1 - x[y] + x[d]), summed, over C; reduced",
)
_multilabel_margin_loss_backward = defop(
    # (PyTorch's node of it has one edge, the input's: the incoming gradient is taken as a constant)
    f"{_OP}_backward", inputs=(Input("grad", differentiable=False), "input", Input("target", differentiable=False)),
    attrs=_REDUCTION,
    infer_meta=_grad_meta, key_inputs=(0,), differentiable=False, amp="deny",
    doc="multilabel_margin_loss's gradient w.r.t. its input",
)


@_multilabel_margin_loss_backward.def_backward
def _multilabel_margin_loss_backward_formula(ctx: Any, grad: Any) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::multilabel_margin_loss_backward is not implemented")


@_multilabel_margin_loss.def_backward
def _multilabel_margin_loss_formula(ctx: Any, grad: Any) -> tuple[Any, None]:
    """PyTorch's ``multilabel_margin_loss_backward(grad, self, target, reduction, is_target)`` (the targets' mask
    found again from ``target``)."""
    x, target = ctx.saved()
    return ctx.ops.multilabel_margin_loss_backward(grad, x, target, ctx.attrs["reduction"]), None


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """``torch.nn.functional.multilabel_margin_loss``: the op (``MultilabelMarginLossBackward0``, as PyTorch's),
    ``target`` the int64 class indices of each row up to its first ``-1``."""
    reduction = reduction_of(_OP, size_average, reduce, reduction)
    check_tensors(_OP, input=input, target=target)
    if input.ndim > 2 or (input.ndim and input.shape[-1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if not input.dtype.is_floating:
        raise NotImplementedError(f'"multilabel_margin_loss_forward_out_frame" not implemented for '
                                  f"'{im.scalar_type_name(input.dtype.np)}'")
    if target.dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {im.scalar_type_name(target.dtype.np)}")
    return _multilabel_margin_loss(input, target, reduction)
