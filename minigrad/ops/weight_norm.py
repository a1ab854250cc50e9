"""Weight normalization: the op ``weight_norm_interface`` (PyTorch's ``_weight_norm_interface``,
``WeightNormInterfaceBackward0``) and the composites ``_weight_norm`` and ``norm_except_dim`` that
``nn.utils.weight_norm`` and ``nn.utils.parametrizations.weight_norm`` call.

NOTE [ Weight normalization is one node where the norm runs along the first or last dim ]
    Weight normalization (Salimans & Kingma, 2016) writes a weight as ``w = g * v / ||v||``: a direction
    ``v`` and a magnitude ``g``, one norm per slice along ``dim`` (per output channel for ``dim=0``).
    PyTorch's ``_weight_norm(v, g, dim)`` runs one fused kernel, ``_weight_norm_interface``, when ``dim``
    is the first or the last dim - its node ``WeightNormInterfaceBackward0`` takes both gradients at once -
    and the composite ``v * (g / norm_except_dim(v, 2, dim))`` otherwise (``dim=-1`` there means the norm
    of the whole tensor, not the last dim: ``MulBackward0`` over ``DivBackward0`` over ``NormBackward0``).
    minigrad does the same, so a student sees the same graph. With ``s`` the per-slice sum of
    ``grad * v`` and ``n`` the slice's norm, the gradients are ``grad_g = s / n`` and
    ``grad_v = (g / n) * grad - (g / n) * (grad_g / n) * v``: the part of ``grad`` along ``v`` is removed,
    because scaling ``v`` does not change ``w``. The formula recomputes ``n`` from ``v`` with ops, so a
    double backward differentiates through it.

Example:
    >>> import minigrad as mg
    >>> v = mg.tensor([[3.0, 4.0], [0.0, 2.0]], requires_grad=True)
    >>> g = mg.tensor([[10.0], [1.0]], requires_grad=True)
    >>> w = mg._weight_norm(v, g, 0)
    >>> w.tolist(), type(w.grad_fn).__name__
    ([[6.0, 8.0], [0.0, 1.0]], 'WeightNormInterfaceBackward0')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.array_kernels import weight_norm_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_int, check_tensor, check_tensors, wrap_dim
from .math import div, mul
from .norm import _norm_op
from .registry import Attr, defop
from .shape import transpose, view

__all__ = ["norm_except_dim"]  # and _weight_norm, private as torch._weight_norm (bound in minigrad/__init__.py)


def _infer_weight_norm(op: str, v: Any, g: Any, dim: int = 0) -> tuple[tuple[int, ...], Any]:
    """``v``'s shape and dtype; ``g`` of ``v``'s dtype with one value per slice along ``dim``."""
    if v.dtype != g.dtype:
        raise RuntimeError(f"expected scalar type {im.scalar_type_name(v.dtype)} but found "
                           f"{im.scalar_type_name(g.dtype)}")
    slices = v.shape[dim] if len(v.shape) else 1
    if int(np.prod(g.shape)) != slices:  # PyTorch's kernel reads g flat without a check; minigrad refuses
        raise RuntimeError(f"_weight_norm_interface(): g must have one value per slice of v along dim {dim} "
                           f"({slices}), but has shape {list(g.shape)}")
    return tuple(v.shape), v.dtype


@register_kernel("weight_norm_interface", Backend.CPU, dtypes=FLOAT_DTYPES)
def weight_norm_interface_cpu(v: np.ndarray, g: np.ndarray, dim: int = 0) -> np.ndarray:
    return weight_norm_arrays(np, v, g, dim)  # (the GPU's kernel runs the same body on CuPy)


weight_norm_interface = defop(
    "weight_norm_interface",
    inputs=("v", "g"),
    attrs=(Attr("dim", 0, check_int),),
    infer_meta=_infer_weight_norm,
    layout="contiguous",
    save=("v", "g"),
    doc="v * (g / ||v||), one norm per slice along dim (the first or the last): PyTorch's _weight_norm_interface",
)


@weight_norm_interface.def_backward
def _weight_norm_interface_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """NOTE [ Weight normalization is one node where the norm runs along the first or last dim ]."""
    ops = ctx.ops
    v, g = ctx.saved()
    dim = ctx.attrs["dim"]
    axes = tuple(d for d in range(v.ndim) if d != dim)
    norm = ops.sqrt(ops.sum(ops.mul(v, v), axes, True))
    g_slices = ops.reshape(g, tuple(norm.shape))
    scale = ops.div(g_slices, norm)
    grad_g = ops.div(ops.sum(ops.mul(grad, v), axes, True), norm)
    grad_v = ops.sub(ops.mul(scale, grad), ops.mul(ops.div(ops.mul(scale, grad_g), norm), v)) if ctx.needs(0) else None
    return grad_v, ops.reshape(grad_g, tuple(g.shape)) if ctx.needs(1) else None


def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """``torch.norm_except_dim``: the ``pow``-norm of each slice of ``v`` along ``dim``, shaped for broadcasting
    against ``v`` (size 1 in every other dim); ``dim=-1`` is the norm of the whole tensor (composite of
    ``at::norm``, views and transposes, as PyTorch's)."""
    check_tensor("norm_except_dim", "v", 0, v)
    pow = check_int("norm_except_dim", "pow", 1, pow)
    dim = check_int("norm_except_dim", "dim", 2, dim)
    if dim == -1:
        return _norm_op(v, float(pow))
    if v.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    last = v.ndim - 1
    if dim not in (0, last):
        wrap_dim("norm_except_dim", dim, v.ndim)
        return transpose(norm_except_dim(transpose(v, 0, dim), pow, 0), 0, dim)
    size = v.shape[dim]
    rows = view(v.contiguous(), (size, -1) if dim == 0 else (-1, size))
    shape = tuple(size if d == dim else 1 for d in range(v.ndim))
    return view(_norm_op(rows, float(pow), (1 if dim == 0 else 0,)), shape)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``torch._weight_norm``: ``v * (g / ||v||)`` with one norm per slice along ``dim`` - one
    ``weight_norm_interface`` op for the first or the last dim, the composite otherwise (NOTE [ Weight
    normalization is one node where the norm runs along the first or last dim ])."""
    check_tensors("_weight_norm", v=v, g=g)
    dim = check_int("_weight_norm", "dim", 2, dim)
    if v.ndim and dim in (0, v.ndim - 1):
        return weight_norm_interface(v.contiguous(), g.contiguous(), dim)
    return mul(v, div(g, norm_except_dim(v, 2, dim)))
