"""Pooling by positions within a plane: adaptive max pooling (``adaptive_max_pool1d/2d/3d``) and max
unpooling (``max_unpool1d/2d/3d``), as PyTorch's ops and nodes.

A plane is an input's last 2 (or 3) dims; PyTorch's indices of a max pool are
flat row-major positions within it. Adaptive max pooling is three ops here,
the way ``cummax`` is (``ops/cumulative.py``): ``adaptive_max_pool2d_indices``
finds each window's maximum (no gradient), ``adaptive_max_pool2d`` reads the
input there (PyTorch's node ``AdaptiveMaxPool2DBackward0``, which saves the
input and the indices), and its gradient ``adaptive_max_pool2d_backward``
adds each output's gradient at its position (windows overlap), with a formula
of its own for double backward: PyTorch's ``max_pool_double_backward``, a
``gather`` of the flattened planes, and zeros for the input it read the shape
of. ``max_unpool2d`` writes its input at the positions into a zero plane of the
given size; its gradient is the same ``gather``. The 3-D ops are the same
kernels over three dims; the 1-D forms are PyTorch's: the 2-D op between an
``unsqueeze`` and a ``squeeze``.

Example:
    >>> import minigrad as mg
    >>> x = mg.tensor([[[1.0, 5.0, 2.0, 4.0]]])
    >>> out, idx = mg.adaptive_max_pool1d(x, 2)
    >>> out.tolist(), idx.tolist()
    ([[[5.0, 4.0]]], [[[1, 3]]])
    >>> mg.nn.functional.max_unpool1d(out, idx, 2).tolist()
    [[[0.0, 5.0, 0.0, 4.0]]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dtypes import FLOAT_DTYPES
from ..kernels import infer_meta as im
from ..kernels.key import Backend
from ..kernels.pool_windows import adaptive_max_positions, plane_gather, plane_scatter
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_shape, check_tensor
from .registry import Attr, Input, defop, type_name
from .shape import squeeze, unsqueeze

# torch.adaptive_max_pool1d; the other forms live in F
__all__ = ["adaptive_max_pool1d"]

_SIZE = (Attr("output_size", check=check_shape),)


# -- the ops, for 2 and 3 dims ---------------------------------------------------------------------------------

def _indices_meta(op: str, x: Any, output_size: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape[: x.ndim - len(output_size)]) + tuple(output_size), np.dtype(np.int64)


def _picked_meta(op: str, x: Any, indices: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(indices.shape), x.dtype


def _scattered_meta(op: str, grad: Any, x: Any, indices: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape), grad.dtype


def _gathered_planes(ops: Any, g: Any, indices: Any, k: int) -> Any:
    """PyTorch's ``max_pool_double_backward``: ``g``'s planes flattened, read at ``indices`` with ``gather``,
    shaped as ``indices`` (``ViewBackward0``, ``GatherBackward0``, ``ViewBackward0``)."""
    lead = tuple(indices.shape[: len(indices.shape) - k])
    flat_g = ops.reshape(g, lead + (math.prod(g.shape[len(g.shape) - k:]),))
    flat_i = ops.reshape(indices, lead + (math.prod(indices.shape[len(indices.shape) - k:]),))
    return ops.reshape(ops.gather(flat_g, flat_i, len(lead)), tuple(indices.shape))


def picked_pool_ops(name: str, k: int, what: str, layout: str | None = None) -> tuple[Any, Any]:
    """The two ops of a max pool whose windows' maxima its own indices op finds first (adaptive and fractional
    max pooling): the values, ``x`` read at those positions of each plane (the last ``k`` dims), and their
    gradient, added back at the positions - with both formulas (the second is PyTorch's double backward)."""
    def values_cpu(x: np.ndarray, indices: np.ndarray) -> np.ndarray:
        return plane_gather(np, x, indices, k)

    def backward_cpu(grad: np.ndarray, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
        return plane_scatter(np, grad, indices, tuple(x.shape[x.ndim - k:]), np.add.at)  # windows may overlap

    values_cpu.__name__, backward_cpu.__name__ = f"{name}_values_cpu", f"{name}_backward_cpu"
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(values_cpu)
    register_kernel(f"{name}_backward", Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}_backward")(backward_cpu)
    values_op = defop(name, inputs=("x", Input("indices", differentiable=False)), infer_meta=_picked_meta,
                      save=("x", "indices"), key_inputs=(0,), layout=layout,
                      doc=f"{k}-D {what} max pooling's values: x read at the positions {name}_indices found")
    backward_op = defop(f"{name}_backward", inputs=("grad", "x", Input("indices", differentiable=False)),
                        infer_meta=_scattered_meta, save=("indices",), key_inputs=(0,),
                        doc=f"gradient of {name}: each output's gradient added at its position in x's plane")

    @values_op.def_backward
    def _values_backward(ctx: Any, g: Any) -> tuple[Any, None]:
        x, indices = ctx.saved()
        return getattr(ctx.ops, f"{name}_backward")(g, x, indices), None

    @backward_op.def_backward
    def _backward_backward(ctx: Any, h: Any) -> tuple[Any, Any, None]:
        """The gradient read back at the positions; the input gave only its shape: zeros (PyTorch's)."""
        (indices,) = ctx.saved()
        ops = ctx.ops
        return _gathered_planes(ops, h, indices, k), ops.fill(h, 0.0), None

    return values_op, backward_op


def _adaptive_max_ops(k: int) -> tuple[Any, Any, Any]:
    """The ``adaptive_max_pool{k}d`` ops: the indices, the values read there, and the values' gradient."""
    name = f"adaptive_max_pool{k}d"

    def indices_cpu(x: np.ndarray, output_size: tuple[int, ...]) -> np.ndarray:
        return adaptive_max_positions(np, x, tuple(output_size))

    indices_cpu.__name__ = f"{name}_indices_cpu"
    register_kernel(f"{name}_indices", Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}_indices")(indices_cpu)
    # PyTorch keeps a channels-last image channels last in 2-D (NOTE [ A memory format passes through a CNN ])
    layout = "memory_format" if k == 2 else None
    indices_op = defop(f"{name}_indices", inputs=("x",), attrs=_SIZE, infer_meta=_indices_meta, differentiable=False,
                       layout=layout,
                       doc=f"the flat position in each plane (the last {k} dims) of each adaptive window's maximum: "
                           "the first, or the last NaN (int64)")
    return (indices_op, *picked_pool_ops(name, k, "adaptive", layout))


adaptive_max_pool2d_indices, _adaptive_max_pool2d, adaptive_max_pool2d_backward = _adaptive_max_ops(2)
adaptive_max_pool3d_indices, _adaptive_max_pool3d, adaptive_max_pool3d_backward = _adaptive_max_ops(3)


def _unpool_meta(op: str, x: Any, indices: Any, output_size: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    return tuple(x.shape[: x.ndim - len(output_size)]) + tuple(output_size), x.dtype


def _invalid_index(output_size: tuple[int, ...], bad: Any) -> RuntimeError:
    """PyTorch's words for an index outside the output plane (``bad``: the first such, in memory order; PyTorch's
    parallel loop may name another)."""
    return RuntimeError(f"Found an invalid max index: {int(bad)} (output volumes are of size "
                        f"{'x'.join(str(n) for n in output_size)})")


def _unpool_op(k: int) -> Any:
    name = f"max_unpool{k}d"

    def unpool_cpu(x: np.ndarray, indices: np.ndarray, output_size: tuple[int, ...]) -> np.ndarray:
        outside = (indices < 0) | (indices >= math.prod(output_size))
        if outside.any():
            raise _invalid_index(output_size, indices[outside].reshape(-1)[0])
        return plane_scatter(np, x, indices, tuple(output_size))

    unpool_cpu.__name__ = f"{name}_cpu"
    register_kernel(name, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}")(unpool_cpu)
    op = defop(name, inputs=("x", Input("indices", differentiable=False)), attrs=_SIZE, infer_meta=_unpool_meta,
               save=("indices",), key_inputs=(0,), layout="memory_format" if k == 2 else None,
               doc=f"{k}-D max unpooling: x written at its flat positions in zero planes of output_size")

    @op.def_backward
    def _unpool_backward(ctx: Any, g: Any) -> tuple[Any, None]:
        """The gradient read back at the positions (PyTorch's ``max_pool_double_backward``)."""
        (indices,) = ctx.saved()
        return _gathered_planes(ctx.ops, g, indices, k), None

    return op


_max_unpool2d = _unpool_op(2)
_max_unpool3d = _unpool_op(3)


# -- adaptive max pooling: PyTorch's forms ---------------------------------------------------------------------

def _refuse_dtype(op: str, x: Tensor) -> None:
    if not x.dtype.is_floating:
        raise NotImplementedError(f'"{op}" not implemented for \'{im.scalar_type_name(x.dtype.np)}\'')


def _adaptive_size(op: str, output_size: Any, x: Tensor, k: int) -> tuple[int, ...]:
    """``output_size`` as ``k`` ints (PyTorch's ``_list_with_default``: a ``None`` keeps the input's size)."""
    if _is_int(output_size):
        return (int(output_size),) * k
    if not isinstance(output_size, (tuple, list)):
        raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not {type_name(output_size)}")
    if x.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    for pos, v in enumerate(output_size):
        if v is not None and not _is_int(v):
            raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, but found element "
                            f"of type {type_name(v)} at pos {pos}")
    size = tuple(int(x.shape[x.ndim - len(output_size) + i]) if v is None else int(v) for i, v in enumerate(output_size))
    if len(size) == 1:
        size = size * k
    if len(size) != k:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be {k}")
    return size


def _adaptive_max_pool(k: int, input: Any, output_size: Any, return_indices: bool) -> Any:
    op = f"adaptive_max_pool{k}d"
    check_tensor(op, "input", 1, input)
    size = _adaptive_size(op, output_size, input, k)
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{op}(): Expected {k + 1}D or {k + 2}D tensor, but got: {list(input.shape)}")
    for d in range(input.ndim - k - 1, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {d} being empty")
    if min(size) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(input.shape[: input.ndim - k]) + list(size)}")
    _refuse_dtype(op, input)
    indices_op, values_op = (adaptive_max_pool2d_indices, _adaptive_max_pool2d) if k == 2 else (
        adaptive_max_pool3d_indices, _adaptive_max_pool3d)
    indices = indices_op(input, size)
    out = values_op(input, indices)
    return (out, indices) if return_indices else out


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """``torch.nn.functional.adaptive_max_pool2d`` of ``(N, C, H, W)`` or ``(C, H, W)``: the maximum of each adaptive
    window (the first, or the last NaN), one op (``AdaptiveMaxPool2DBackward0``); with ``return_indices`` also
    the flat ``h * W + w`` position of each maximum."""
    return _adaptive_max_pool(2, input, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """``torch.nn.functional.adaptive_max_pool3d`` of ``(N, C, D, H, W)`` or ``(C, D, H, W)``: one op
    (``AdaptiveMaxPool3DBackward0``); the indices are flat positions in each ``D * H * W`` volume."""
    return _adaptive_max_pool(3, input, output_size, return_indices)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """``torch.adaptive_max_pool1d`` of ``(N, C, L)`` or ``(C, L)``: the values and the indices, always (the
    functional form returns the values alone unless asked). PyTorch's composite: the 2-D op over a height of 1
    (``unsqueeze``, ``AdaptiveMaxPool2DBackward0``, ``squeeze``)."""
    op = "adaptive_max_pool1d"
    check_tensor(op, "input", 1, input)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {op})")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:
            raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got {len(output_size)})")
        output_size = output_size[0]
    if not _is_int(output_size):
        raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not {type_name(output_size)}")
    out, indices = _adaptive_max_pool(2, unsqueeze(input, -2), (1, int(output_size)), True)
    return squeeze(out, -2), squeeze(indices, -2)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False
                                     ) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.adaptive_max_pool1d_with_indices``: the values and the indices, whatever
    ``return_indices`` says (PyTorch's)."""
    return adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False
                                     ) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.adaptive_max_pool2d_with_indices``: the values and the indices."""
    return _adaptive_max_pool(2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False
                                     ) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.adaptive_max_pool3d_with_indices``: the values and the indices."""
    return _adaptive_max_pool(3, input, output_size, True)


# -- max unpooling: PyTorch's forms ----------------------------------------------------------------------------

def _tuple(v: Any, k: int) -> tuple[int, ...]:
    return tuple(int(i) for i in v) if isinstance(v, (tuple, list)) else (int(v),) * k


def _unpool_size(input: Tensor, kernel: tuple[int, ...], stride: tuple[int, ...], padding: tuple[int, ...],
                 output_size: Any) -> tuple[int, ...]:
    """PyTorch's ``_unpool_output_size``: the size a max pool of these arguments came from, or ``output_size``
    (its last ``k`` entries) if it is within a stride of it."""
    k = len(kernel)
    default = tuple((input.shape[input.ndim - k + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(k))
    if output_size is None:
        return default
    given = list(output_size)
    if len(given) == k + 2:
        given = given[2:]
    if len(given) != k:
        raise ValueError(f"output_size should be a sequence containing {k} or {k + 2} elements, but it has a length "
                         f"of '{len(given)}'")
    for d in range(k):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < given[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return tuple(int(v) for v in given)


def _max_unpool(k: int, input: Any, indices: Any, output_size: tuple[int, ...], op: str) -> Tensor:
    """The ``max_unpool{k}d`` op, with PyTorch's checks of the input and the indices."""
    check_tensor(op, "input", 0, input)
    check_tensor(op, "indices", 1, indices)
    if indices.dtype.name != "int64":
        raise RuntimeError(f"elements in indices should be type int64 but got: {im.scalar_type_name(indices.dtype.np)}")
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"Input to max_unpooling{k}d should be a {k + 1}d or {k + 2}d Tensor, but got a tensor "
                           f"with {input.ndim} dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    if min(output_size) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(output_size)}: "
                           f"{list(input.shape[: input.ndim - k]) + list(output_size)}")
    _refuse_dtype(op, input)
    return (_max_unpool2d if k == 2 else _max_unpool3d)(input, indices, output_size)


def _unpool_args(k: int, kernel_size: Any, stride: Any, padding: Any) -> tuple[tuple[int, ...], ...]:
    kernel = _tuple(kernel_size, k)
    return kernel, kernel if stride is None else _tuple(stride, k), _tuple(padding, k)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """``torch.nn.functional.max_unpool2d``: ``input`` written at ``indices`` (``max_pool2d``'s flat positions) in
    zero planes, one op (``MaxUnpool2DBackward0``); the planes are the size the pool came from, or ``output_size``."""
    kernel, s, p = _unpool_args(2, kernel_size, stride, padding)
    check_tensor("max_unpool2d", "input", 0, input)
    return _max_unpool(2, input, indices, _unpool_size(input, kernel, s, p, output_size), "max_unpool2d")


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """``torch.nn.functional.max_unpool3d``: the 3-D ``max_unpool2d`` (``MaxUnpool3DBackward0``)."""
    kernel, s, p = _unpool_args(3, kernel_size, stride, padding)
    check_tensor("max_unpool3d", "input", 0, input)
    return _max_unpool(3, input, indices, _unpool_size(input, kernel, s, p, output_size), "max_unpool3d")


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """``torch.nn.functional.max_unpool1d``: PyTorch's composite, the 2-D op over planes of width 1 (``unsqueeze``
    of the input and the indices, ``MaxUnpool2DBackward0``, ``squeeze``)."""
    kernel, s, p = _unpool_args(1, kernel_size, stride, padding)
    check_tensor("max_unpool1d", "input", 0, input)
    check_tensor("max_unpool1d", "indices", 1, indices)
    size = _unpool_size(input, kernel, s, p, output_size)
    return squeeze(_max_unpool(2, unsqueeze(input, -1), unsqueeze(indices, -1), size + (1,), "max_unpool2d"), -1)
