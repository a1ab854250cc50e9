"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d`` and ``fractional_max_pool3d``, as PyTorch's ops
and nodes (``FractionalMaxPool2DBackward0``, ``FractionalMaxPool3DBackward0``), and their functional forms.

The windows are ``kernel_size`` wide and start at pseudo-random offsets that spread ``output_size`` windows over the
input, one sample in ``[0, 1)`` per plane and dim placing them (``kernels/fractional_windows.py``, PyTorch's
``generate_intervals``). The samples are ``_random_samples`` ``(N, C, dims)``, drawn with ``rand`` when not given, as
PyTorch's Python does, so ``manual_seed`` gives PyTorch's windows.

As adaptive max pooling (``ops/index_pooling.py``), each is three ops: ``fractional_max_pool2d_indices`` finds each
window's maximum (the first, or the last NaN; flat positions in the plane, no gradient), ``fractional_max_pool2d``
reads the input there (the node), and ``fractional_max_pool2d_backward`` adds each output's gradient at its
position, with PyTorch's ``max_pool_double_backward`` (a ``gather``) as its own backward.

Example:
    >>> import minigrad as mg
    >>> x = mg.arange(16.0).reshape(1, 1, 4, 4)
    >>> mg.nn.functional.fractional_max_pool2d(x, 2, output_size=2, _random_samples=mg.zeros(1, 1, 2)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import rand
from ..dtypes import FLOAT_DTYPES
from ..kernels.fractional_windows import fractional_positions
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import _is_int, check_shape, check_tensor, scalar_type_name
from .index_pooling import picked_pool_ops
from .registry import Attr, Input, defop, type_name

__all__: list[str] = []  # the forms live in F (nn/functional.py), as PyTorch's


# -- the ops, for 2 and 3 dims ---------------------------------------------------------------------------------

def _fractional_ops(k: int) -> tuple[Any, Any, Any]:
    """The ``fractional_max_pool{k}d`` ops: the indices, the values read there, and the values' gradient (the
    last two adaptive max pooling's, ``index_pooling.picked_pool_ops``)."""
    name = f"fractional_max_pool{k}d"

    def indices_cpu(x: np.ndarray, samples: np.ndarray, kernel_size: tuple[int, ...],
                    output_size: tuple[int, ...]) -> np.ndarray:
        return fractional_positions(np, x, samples.astype(x.dtype, copy=False), kernel_size, output_size)

    indices_cpu.__name__ = f"{name}_indices_cpu"
    register_kernel(f"{name}_indices", Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{name}_indices")(indices_cpu)
    indices_op = defop(
        f"{name}_indices", inputs=("x", Input("samples", differentiable=False)),
        attrs=(Attr("kernel_size", check=check_shape), Attr("output_size", check=check_shape)),
        infer_meta=lambda op, x, samples, kernel_size, output_size: (
            tuple(x.shape[:x.ndim - k]) + tuple(output_size), np.dtype(np.int64)),
        differentiable=False, key_inputs=(0,),
        doc=f"the flat position in each plane of each {k}-D fractional window's maximum: the first, or the last NaN "
            "(int64; windows placed by the samples)")
    return (indices_op, *picked_pool_ops(name, k, "fractional"))


fractional_max_pool2d_indices, _fractional_max_pool2d, fractional_max_pool2d_backward = _fractional_ops(2)
fractional_max_pool3d_indices, _fractional_max_pool3d, fractional_max_pool3d_backward = _fractional_ops(3)


# -- the forms: PyTorch's Python (torch/nn/functional.py) and the checks of its kernels -------------------------

def _sizes(op: str, name: str, v: Any, k: int) -> tuple[Any, ...]:
    """An int (or float ratio) for every dim, or a tuple of ``k``."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            v = tuple(v) * k
        if len(v) != k:
            raise RuntimeError(f"{op}: {name} must either be a single int, or a tuple of {('two', 'three')[k - 2]} "
                               f"ints")
        return tuple(v)
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return (v,) * k
    raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, but got {type_name(v)}")


def _check(op: str, x: Tensor, kernel: tuple[int, ...], out: tuple[int, ...], samples: Tensor) -> None:
    """PyTorch's ``fractional_max_pool{2,3}d`` shape checks, in its words."""
    k = len(kernel)
    if x.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{op}(): Expected {k + 1}D or {k + 2}D tensor, but got: {list(x.shape)}" if k == 2 else
                           f"fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: {list(x.shape)}")
    for i in range(x.ndim - k, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(x.shape)} with dimension {i} being empty.")
    if min(kernel) <= 0 and k == 2:
        raise RuntimeError(f"{op}: kernel_size must greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    batch = 1 if x.ndim == k + 1 else x.shape[0]
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    if samples.shape[2] != k:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {k}; got {samples.shape[2]}.")
    if samples.shape[1] != x.shape[-k - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")  # (PyTorch's spelling)
    where = f"{op}()" if k == 2 else f"{op}_out()"
    for dim, n, o, w in zip(("time", "height", "width")[3 - k:], x.shape[-k:], out, kernel):
        if o + w - 1 > n:
            raise RuntimeError(f"{where}: pool {dim} {w} too large relative to input {dim} {n}")


def _with_indices(k: int, input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any,
                  _random_samples: Tensor | None) -> tuple[Tensor, Tensor]:
    op = f"fractional_max_pool{k}d"
    check_tensor(op, "input", 0, input)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if k == 2 and len(output_ratio) > 2:  # (a bare number fails here, as in PyTorch's Python: no len())
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _sizes(op, "output_ratio", output_ratio, k)
        output_size = tuple(int(n * r) for n, r in zip(input.shape[-k:], ratio))
    kernel = tuple(int(v) for v in _sizes(op, "kernel_size", kernel_size, k))
    out = _sizes(op, "output_size", output_size, k)
    if not all(_is_int(v) for v in out + kernel):
        raise TypeError(f"{op}(): argument 'output_size' must be tuple of ints, but got {type_name(output_size)}")
    out = tuple(int(v) for v in out)
    if input.ndim < k + 1:  # (PyTorch's Python reads input.size(-k - 1) for the samples' shape)
        nd = max(input.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {-k - 1})")
    if _random_samples is None and not input.dtype.is_floating:
        raise NotImplementedError(f'"check_uniform_bounds" not implemented for \'{scalar_type_name(input.dtype.np)}\'')
    if _random_samples is None:  # PyTorch's draws, in its order: one rand per (sample, plane, dim)
        batch = 1 if input.ndim == k + 1 else input.shape[0]
        _random_samples = rand(batch, input.shape[-k - 1], k, dtype=input.dtype, device=input.device)
    check_tensor(op, "_random_samples", 5, _random_samples)
    _check(op, input, kernel, out, _random_samples)
    samples = _random_samples.detach()
    indices_op, values_op = ((fractional_max_pool2d_indices, _fractional_max_pool2d) if k == 2 else
                             (fractional_max_pool3d_indices, _fractional_max_pool3d))
    batch = 1 if input.ndim == k + 1 else input.shape[0]
    if samples.shape[0] != batch:  # (PyTorch reads only the first batch rows)
        samples = samples[:batch]
    indices = indices_op(input.detach(), samples, kernel, out)
    return values_op(input, indices), indices


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.fractional_max_pool2d_with_indices``: the values (``FractionalMaxPool2DBackward0``) and
    the flat positions in each ``H * W`` plane, of ``(N, C, H, W)`` or ``(C, H, W)``."""
    return _with_indices(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """``torch.nn.functional.fractional_max_pool3d_with_indices``: the values (``FractionalMaxPool3DBackward0``) and
    the flat positions in each ``T * H * W`` volume, of ``(N, C, T, H, W)`` or ``(C, T, H, W)``."""
    return _with_indices(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """``torch.nn.functional.fractional_max_pool2d``: the values, and the indices with ``return_indices``.

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.fractional_max_pool2d(mg.randn(1, 2, 7, 7), 2, output_ratio=(0.5, 0.5)).shape
        minigrad.Size([1, 2, 3, 3])
    """
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, False, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Tensor | None = None) -> Any:
    """``torch.nn.functional.fractional_max_pool3d``: the values, and the indices with ``return_indices``."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, False, _random_samples)
    return out if return_indices else out[0]
