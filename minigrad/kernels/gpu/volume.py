"""GPU kernels of the 3-D convolutions and pools (``ops/convolution3d.py``, ``ops/pooling3d.py``), made of CuPy's
own functions: the same array code as the CPU kernels (``kernels/volume_windows.py``) run with ``xp = cupy``.

A convolution is its taps' strided slices stacked into columns and one batched matrix product per call
(cuBLAS's); its input gradient adds each tap's columns back into its slice; a max pool takes an ``argmax`` over
the stacked taps and reads, adds (one ``add_at``: windows overlap) or gathers at the flat positions it finds;
adaptive average pooling is three matrix products whose matrices are made on the device from ``arange``. Every
size is a number of the shapes: nothing is copied from the host and nothing is read back.
"""

from __future__ import annotations

from typing import Any

import cupy

from ...dtypes import FLOAT_DTYPES
from ..key import Backend
from ..pool_windows import apply_windows_3d, plane_gather, plane_scatter
from ..registry import register_kernel
from ..volume_windows import (adaptive_matrices, conv3d_arrays, conv3d_input_grad_arrays, conv3d_weight_grad_arrays,
                              conv_transpose3d_arrays, max_pool3d_positions)
from .ordered import add_at

GPU = Backend.GPU

__all__: list[str] = []


@register_kernel("conv3d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_conv3d")
def conv3d(x, weight, bias=None, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return conv3d_arrays(cupy, x, weight, bias, stride, padding, dilation, groups)


@register_kernel("conv3d_input_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_conv3d_input_grad")
def conv3d_input_grad(grad, weight, x_shape, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return conv3d_input_grad_arrays(cupy, grad, weight, tuple(x_shape), stride, padding, dilation, groups)


@register_kernel("conv3d_weight_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_conv3d_weight_grad")
def conv3d_weight_grad(x, grad, w_shape, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    return conv3d_weight_grad_arrays(cupy, x, grad, tuple(w_shape), stride, padding, dilation, groups)


@register_kernel("conv_transpose3d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_conv_transpose3d")
def conv_transpose3d(x, weight, bias=None, stride=(1, 1, 1), padding=(0, 0, 0), output_padding=(0, 0, 0),
                     dilation=(1, 1, 1), groups=1):
    return conv_transpose3d_arrays(cupy, x, weight, bias, stride, padding, output_padding, dilation, groups)


def _positions(x: Any, window: tuple[Any, ...]) -> Any:
    return max_pool3d_positions(cupy, x, *window)


@register_kernel("max_pool3d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_max_pool3d")
def max_pool3d(x, kernel_size, stride, padding, dilation, ceil_mode):
    return plane_gather(cupy, x, _positions(x, (kernel_size, stride, padding, dilation, ceil_mode)), 3)


@register_kernel("max_pool3d_indices", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_max_pool3d_indices")
def max_pool3d_indices(x, kernel_size, stride, padding, dilation, ceil_mode):
    return _positions(x, (kernel_size, stride, padding, dilation, ceil_mode))


@register_kernel("max_pool3d_grad", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_max_pool3d_grad")
def max_pool3d_grad(grad, x, kernel_size, stride, padding, dilation, ceil_mode):
    pos = _positions(x, (kernel_size, stride, padding, dilation, ceil_mode))
    return plane_scatter(cupy, grad, pos, tuple(x.shape[-3:]), add_at)


@register_kernel("max_pool3d_select", GPU, dtypes=FLOAT_DTYPES, name="gpu/cupy_max_pool3d_select")
def max_pool3d_select(grad_x, x, kernel_size, stride, padding, dilation, ceil_mode):
    return plane_gather(cupy, grad_x, _positions(x, (kernel_size, stride, padding, dilation, ceil_mode)), 3)


@register_kernel("adaptive_avg_pool3d", GPU, dtypes=FLOAT_DTYPES, name="gpu/cublas_adaptive_avg_pool3d")
def adaptive_avg_pool3d(x: Any, output_size: tuple[int, ...]) -> Any:
    mats = adaptive_matrices(cupy, tuple(x.shape[-3:]), tuple(output_size), x.dtype)
    return apply_windows_3d(cupy, x, *mats, 1.0)


@register_kernel("adaptive_avg_pool3d_backward", GPU, dtypes=FLOAT_DTYPES,
                 name="gpu/cublas_adaptive_avg_pool3d_backward")
def adaptive_avg_pool3d_backward(grad: Any, input_size: tuple[int, ...]) -> Any:
    mats = adaptive_matrices(cupy, tuple(input_size), tuple(grad.shape[-3:]), grad.dtype)
    return apply_windows_3d(cupy, grad, *(m.T for m in mats), 1.0)
