"""Spatial transformers: ``affine_grid`` (a grid of positions from a batch of affine matrices) and
``grid_sample`` (the input read at those positions), as ``torch.nn.functional``'s, each one op.

- ``affine_grid_generator`` (``AffineGridGeneratorBackward0``): ``base @ theta^T``, ``base`` the output
  points' ``(x, y[, z], 1)`` in ``[-1, 1]``; its gradient ``(base^T @ grad)^T`` is PyTorch's
  ``affine_grid_generator_backward``, ``transpose(bmm(base^T, view(grad)))`` (``matmul`` of two batches, the first transposed: one ``BmmBackward0``).
- ``grid_sampler_2d`` / ``grid_sampler_3d`` (``GridSampler2DBackward0``, ``GridSampler3DBackward0``): the
  input (``(N, C, H, W)`` / ``(N, C, D, H, W)``) sampled at the grid's positions, ``bilinear``,
  ``nearest`` or ``bicubic`` (2-D only), with ``zeros``, ``border`` or ``reflection`` padding.
  Their gradient is one op, ``grid_sampler_2d_backward`` / ``_3d_backward``, giving the input's and the
  grid's gradients from one node, as PyTorch's (``GridSampler2DBackwardBackward0`` under
  ``create_graph``).
- ``grid_sampler_derivative`` and ``grid_sampler_derivative_backward``: the sum of taps behind all of
  these with the grid derivative of any order, and its adjoint (NOTE [ Sampling and its derivatives are
  one sum of taps ] in ``kernels/grid_sample.py``). The double backward is made of them, and they of each
  other, so every order is differentiable (PyTorch computes its double backward with other ops: the
  values agree, the nodes past the first backward do not).

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> theta = mg.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])  # the identity
    >>> grid = F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
    >>> x = mg.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> F.grid_sample(x, grid, align_corners=False).tolist()
    [[[[1.0, 2.0], [3.0, 4.0]]]]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..errors import ShapeError
from ..kernels import grid_sample as gs
from ..kernels.infer_meta import scalar_type_name
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_bool, check_int, check_shape, check_tensor
from .registry import Attr, Input, defop

__all__ = ["affine_grid_generator", "grid_sampler"]  # torch.affine_grid_generator, torch.grid_sampler

CPU = Backend.CPU
_MODES = {"bilinear": gs.BILINEAR, "nearest": gs.NEAREST, "bicubic": gs.BICUBIC}
_PADDINGS = {"zeros": gs.ZEROS, "border": gs.BORDER, "reflection": gs.REFLECTION}
_DEFAULT_CHANGED = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                    "grid_sample for details.")


# -- affine_grid_generator ----------------------------------------------------------------------------------

def _affine_meta(op: str, theta: Any, size: tuple[int, ...], align_corners: bool) -> tuple[tuple[int, ...], Any]:
    k = len(size) - 2
    if theta.shape[0] != size[0]:
        raise ShapeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {k + 1}] but "
                         f"got: [{theta.shape[0]}, {k + 1}].")
    return (size[0],) + tuple(size[2:]) + (k,), theta.dtype


@register_kernel("affine_grid_generator", CPU, dtypes=FLOAT_DTYPES)
def affine_grid_generator_cpu(theta: np.ndarray, size: tuple[int, ...], align_corners: bool) -> np.ndarray:
    return gs.affine_grid(np, theta, size, align_corners)


_AFFINE_ATTRS = (Attr("size", check=check_shape), Attr("align_corners", check=check_bool))

affine_grid_generator_op = defop(
    "affine_grid_generator",
    inputs=("theta",),
    attrs=_AFFINE_ATTRS,
    infer_meta=_affine_meta,
    doc="a grid of sampling positions from a batch of affine matrices (N, k, k + 1): base @ theta^T",
)


@affine_grid_generator_op.def_backward
def _affine_grid_generator_backward(ctx: Any, grad: Any) -> tuple[Any]:
    """PyTorch's ``affine_grid_generator_backward``: ``(base^T @ grad)^T``, one product a batch element."""
    ops = ctx.ops
    size, align = ctx.attrs["size"], ctx.attrs["align_corners"]
    n, k = size[0], len(size) - 2
    flat = ops.view(grad, (n, int(np.prod(size[2:])), k))
    base = ops.affine_grid_base(flat, size, align)
    return (ops.transpose(ops.matmul(base, flat, transpose_x=True), 1, 2),)


def _base_meta(op: str, like: Any, size: tuple[int, ...], align_corners: bool) -> tuple[tuple[int, ...], Any]:
    return (size[0], int(np.prod(size[2:])), len(size) - 1), like.dtype


@register_kernel("affine_grid_base", CPU, dtypes=FLOAT_DTYPES)
def affine_grid_base_cpu(like: np.ndarray, size: tuple[int, ...], align_corners: bool) -> np.ndarray:
    return gs.batched_base(np, size, align_corners, like.dtype)


affine_grid_base = defop(
    "affine_grid_base",
    inputs=(Input("like", differentiable=False),),
    attrs=_AFFINE_ATTRS,
    infer_meta=_base_meta,
    differentiable=False,
    doc="the output points' (x, y[, z], 1) of affine_grid, per batch element: a constant of its gradient (like's "
        "dtype and device)",
)


def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """``torch.affine_grid_generator``: ``F.affine_grid`` without its checks."""
    return affine_grid_generator_op(theta, tuple(size), align_corners)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """``torch.nn.functional.affine_grid``: the ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``) sampling grid of the
    affine matrices ``theta`` (``(N, 2, 3)`` / ``(N, 3, 4)``) for an output of ``size`` ``(N, C, H, W)`` (or
    ``(N, C, D, H, W)``), in ``[-1, 1]`` coordinates; ``align_corners`` as ``grid_sample``'s.

    Example:
        >>> import minigrad as mg
        >>> theta = mg.tensor([[[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> mg.nn.functional.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, 0].tolist()  # the top row
        [[-2.0, -1.0], [2.0, -1.0]]
    """
    check_tensor("affine_grid", "theta", 0, theta)
    if align_corners is None:
        warnings.warn(_DEFAULT_CHANGED, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) in (4, 5):
        k = len(size) - 2
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (k, k + 1):
            raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator_op(theta, size, align_corners)


# -- grid_sampler_2d / _3d and their backward ---------------------------------------------------------------

_SAMPLER_ATTRS = (Attr("interpolation_mode", check=check_int), Attr("padding_mode", check=check_int),
                  Attr("align_corners", check=check_bool))
_NAMES = ("interpolation_mode", "padding_mode", "align_corners")


def _sampler_meta(op: str, input: Any, grid: Any, **a: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(input.shape[:2]) + tuple(grid.shape[1:-1]), input.dtype


def _backward_meta(op: str, grad: Any, input: Any, grid: Any, **a: Any) -> list[Any]:
    return [(tuple(input.shape), input.dtype), (tuple(grid.shape), grid.dtype)]


def _modes(a: dict[str, Any]) -> tuple[int, int, bool]:
    return a["interpolation_mode"], a["padding_mode"], a["align_corners"]


def _define_sampler(dims: int) -> tuple[Any, Any]:
    """The ``grid_sampler_{dims}d`` op and its backward op (PyTorch's pair), with their CPU kernels."""
    name = f"grid_sampler_{dims}d"

    def forward_cpu(input: np.ndarray, grid: np.ndarray, **a: Any) -> np.ndarray:
        return gs.sample(np, input, grid, (0,) * dims, *_modes(a))

    def backward_cpu(grad: np.ndarray, input: np.ndarray, grid: np.ndarray, output_mask: tuple[bool, bool] = (True, True),
                     **a: Any) -> tuple[np.ndarray, np.ndarray]:
        return gs.sampler_backward(np, np.add.at, grad, input, grid, output_mask, *_modes(a))

    forward_cpu.__name__, backward_cpu.__name__ = f"{name}_cpu", f"{name}_backward_cpu"
    register_kernel(name, CPU, dtypes=FLOAT_DTYPES)(forward_cpu)
    register_kernel(f"{name}_backward", CPU, dtypes=FLOAT_DTYPES)(backward_cpu)
    forward = defop(name, inputs=("input", "grid"), attrs=_SAMPLER_ATTRS, infer_meta=_sampler_meta,
                    save=("input", "grid"), amp="deny",  # PyTorch's autocast runs grid_sampler in float32
                    doc=f"the {dims}-D input sampled at the grid's positions (torch.{name})")
    backward = defop(f"{name}_backward", inputs=("grad_output", "input", "grid"),
                     attrs=_SAMPLER_ATTRS + (Attr("output_mask", (True, True)),), infer_meta=_backward_meta,
                     save=("grad_output", "input", "grid"),
                     doc=f"the input's and the grid's gradients of {name}, from one node")
    forward.def_backward(_sampler_backward)
    backward.def_backward(_sampler_double_backward)
    return forward, backward


def _sampler_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """PyTorch's formula: both gradients from ``grid_sampler_*_backward``, only those needed."""
    x, grid = ctx.saved()
    mask = (ctx.needs(0), ctx.needs(1))
    backward = getattr(ctx.ops, f"grid_sampler_{grid.ndim - 2}d_backward")
    grad_input, grad_grid = backward(grad, x, grid, *(ctx.attrs[n] for n in _NAMES), mask)
    return (grad_input if mask[0] else None, grad_grid if mask[1] else None)


def _sampler_double_backward(ctx: Any, grads: Any) -> tuple[Any, Any, Any]:
    """The gradients of ``(grad_input, grad_grid)`` (cotangents ``u``, ``v``) to ``grad_output``, ``input`` and
    ``grid``: ``grad_input`` is the adjoint sum at the grid, ``grad_grid[..., j]`` the channels' sum of
    ``grad_output`` times the first derivative along ``j`` (NOTE [ Sampling and its derivatives are one sum of
    taps ] in ``kernels/grid_sample.py``)::

        d grad_output = S(u) + sum_j S_j(x) * v_j
        d input       = sum_j S_j*(grad_output * v_j)
        d grid_j      = sum_c grad_output * (S_j(u) + sum_l S_jl(x) * v_l)
    """
    go, x, grid = ctx.saved()
    ops = ctx.ops
    u, v = grads if isinstance(grads, list) else (grads, None)
    k = grid.ndim - 2
    modes = tuple(ctx.attrs[n] for n in _NAMES)

    def s(a: Any, *axes: int) -> Any:
        return ops.grid_sampler_derivative(a, grid, gs.unit_order(k, *axes), *modes)

    v_j = [ops.unsqueeze(ops.getitem(v, (Ellipsis, j)), 1) for j in range(k)] if v is not None else []
    d_go = d_x = None
    if ctx.needs(0):
        terms = ([s(u)] if u is not None else []) + [ops.mul(s(x, j), v_j[j]) for j in range(k)]
        d_go = _total(ops, terms)
    if ctx.needs(1) and v is not None:
        d_x = _total(ops, [ops.grid_sampler_derivative_backward(ops.mul(go, v_j[j]), grid, tuple(x.shape),
                                                                gs.unit_order(k, j), *modes) for j in range(k)])
    d_grid = None
    if ctx.needs(2):
        cols = []
        for j in range(k):
            terms = ([s(u, j)] if u is not None else []) + [ops.mul(s(x, j, l), v_j[l]) for l in range(k)]
            cols.append(ops.sum(ops.mul(go, _total(ops, terms)), dim=1))
        d_grid = ops.stack(cols, -1)
    return d_go, d_x, d_grid


def _total(ops: Any, terms: list[Any]) -> Any:
    total = terms[0]
    for t in terms[1:]:
        total = ops.add(total, t)
    return total


grid_sampler_2d, grid_sampler_2d_backward = _define_sampler(2)
grid_sampler_3d, grid_sampler_3d_backward = _define_sampler(3)


# -- the sum of taps with a grid derivative, and its adjoint -------------------------------------------------

_DERIVATIVE_ATTRS = (Attr("order", check=check_shape),) + _SAMPLER_ATTRS


@register_kernel("grid_sampler_derivative", CPU, dtypes=FLOAT_DTYPES)
def grid_sampler_derivative_cpu(input: np.ndarray, grid: np.ndarray, order: tuple[int, ...], **a: Any) -> np.ndarray:
    return gs.sample(np, input, grid, order, *_modes(a))


grid_sampler_derivative = defop(
    "grid_sampler_derivative",
    inputs=("input", "grid"),
    attrs=_DERIVATIVE_ATTRS,
    infer_meta=_sampler_meta,
    save=("input", "grid"),
    doc="the derivative of grid sampling of the given order along the grid's coordinates (order 0: the sample)",
)


@grid_sampler_derivative.def_backward
def _grid_sampler_derivative_backward(ctx: Any, grad: Any) -> tuple[Any, Any]:
    """Linear in the input (its adjoint); along grid coordinate ``j``, the next order's derivative."""
    x, grid = ctx.saved()
    ops, order = ctx.ops, ctx.attrs["order"]
    modes = tuple(ctx.attrs[n] for n in _NAMES)
    d_x = ops.grid_sampler_derivative_backward(grad, grid, tuple(x.shape), order, *modes) if ctx.needs(0) else None
    d_grid = None
    if ctx.needs(1):
        d_grid = ops.stack([ops.sum(ops.mul(grad, ops.grid_sampler_derivative(x, grid, _next(order, j), *modes)),
                                    dim=1) for j in range(len(order))], -1)
    return d_x, d_grid


def _next(order: tuple[int, ...], j: int) -> tuple[int, ...]:
    return tuple(a + (i == j) for i, a in enumerate(order))


def _adjoint_meta(op: str, grad: Any, grid: Any, input_size: tuple[int, ...], **a: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(input_size), grad.dtype


@register_kernel("grid_sampler_derivative_backward", CPU, dtypes=FLOAT_DTYPES)
def grid_sampler_derivative_backward_cpu(grad: np.ndarray, grid: np.ndarray, input_size: tuple[int, ...],
                                         order: tuple[int, ...], **a: Any) -> np.ndarray:
    return gs.sample_adjoint(np, np.add.at, grad, grid, tuple(input_size), order, *_modes(a))


grid_sampler_derivative_backward = defop(
    "grid_sampler_derivative_backward",
    inputs=("grad", "grid"),
    attrs=(Attr("input_size", check=check_shape),) + _DERIVATIVE_ATTRS,
    infer_meta=_adjoint_meta,
    save=("grad", "grid"),
    doc="the adjoint of grid_sampler_derivative in its input: each gradient added to its taps",
)


@grid_sampler_derivative_backward.def_backward
def _grid_sampler_derivative_backward_backward(ctx: Any, h: Any) -> tuple[Any, Any]:
    """``<h, S*(g)> = <S(h), g>``: linear in ``g`` (the sum itself); along the grid, the next order's sum of
    ``h`` times ``g``."""
    g, grid = ctx.saved()
    ops, order = ctx.ops, ctx.attrs["order"]
    modes = tuple(ctx.attrs[n] for n in _NAMES)
    d_g = ops.grid_sampler_derivative(h, grid, order, *modes) if ctx.needs(0) else None
    d_grid = None
    if ctx.needs(1):
        d_grid = ops.stack([ops.sum(ops.mul(g, ops.grid_sampler_derivative(h, grid, _next(order, j), *modes)),
                                    dim=1) for j in range(len(order))], -1)
    return d_g, d_grid


# -- PyTorch's functions --------------------------------------------------------------------------------------

def _check_sampler(input: Tensor, grid: Tensor, interpolation_mode: int) -> None:
    """``check_grid_sampler_common`` and the 2-D/3-D checks, in PyTorch's words."""
    op = "grid_sampler()"
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype.np)} but found "
                           f"{scalar_type_name(grid.dtype.np)}")
    if input.ndim == 0 or grid.ndim == 0 or input.shape[0] != grid.shape[0]:
        raise ShapeError(f"{op}: expected grid and input to have same batch size, but got input with sizes "
                         f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise ShapeError(f"{op}: expected grid to have size {input.ndim - 2} in last dimension, but got grid with "
                         f"sizes {list(grid.shape)}")
    for d in range(2, input.ndim):
        if input.shape[d] == 0:
            raise ShapeError(f"{op}: expected input to have non-empty spatial dimensions, but input has sizes "
                             f"{list(input.shape)} with dimension {d} being empty")
    expected = 4 if input.ndim == 4 else 5  # PyTorch runs the 2-D checks on a 4-D input, the 3-D ones otherwise
    if input.ndim != expected or grid.ndim != expected:
        raise ShapeError(f"{op}: expected {expected}D input and grid with same number of dimensions, but got input "
                         f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if interpolation_mode == gs.BICUBIC and input.ndim != 4:
        raise ShapeError(f"{op}: bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating:
        raise NotImplementedError(f"\"grid_sampler_{input.ndim - 2}d_cpu_kernel_impl\" not implemented for "
                                  f"'{scalar_type_name(input.dtype.np)}'")


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """``torch.grid_sampler``: ``grid_sample`` with the modes as PyTorch's numbers (bilinear 0, nearest 1,
    bicubic 2; zeros 0, border 1, reflection 2)."""
    check_tensor("grid_sampler", "input", 0, input)
    check_tensor("grid_sampler", "grid", 1, grid)
    # PyTorch reads an unknown number as garbage memory: minigrad refuses it
    if interpolation_mode not in _MODES.values():
        raise ValueError(f"grid_sampler(): interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), but "
                         f"got {interpolation_mode!r}")
    if padding_mode not in _PADDINGS.values():
        raise ValueError(f"grid_sampler(): padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), but got "
                         f"{padding_mode!r}")
    _check_sampler(input, grid, interpolation_mode)
    op = grid_sampler_2d if input.ndim == 4 else grid_sampler_3d
    return op(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``torch.nn.functional.grid_sample``: ``input`` (``(N, C, H, W)`` or ``(N, C, D, H, W)``) read at the
    positions of ``grid`` (``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``, ``x`` first, in
    ``[-1, 1]``), ``mode`` ``bilinear``, ``nearest`` or ``bicubic`` (4-D only); outside the input
    ``padding_mode`` reads ``zeros``, the ``border`` or a ``reflection``. ``align_corners=True`` puts -1 and 1 at
    the corner pixels' centres, ``False`` at the image's edges.

    Example:
        >>> import minigrad as mg
        >>> x = mg.tensor([[[[0.0, 10.0]]]])
        >>> grid = mg.tensor([[[[0.0, 0.0], [3.0, 0.0]]]])  # the middle, and a pixel past the right edge
        >>> mg.nn.functional.grid_sample(x, grid, align_corners=True).tolist()
        [[[[5.0, 0.0]]]]
    """
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_DEFAULT_CHANGED, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)
