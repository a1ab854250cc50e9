"""GPU kernels of the pooling ops that work by flat positions within a plane (``ops/index_pooling.py``): adaptive
max pooling (indices, values, gradient) and max unpooling, in 2-D and 3-D, made of CuPy's own functions.

The same array functions as the CPU kernels' (``kernels/pool_windows.py``) run with ``xp = cupy``: the window
tables are computed on the device from ``arange`` (only their widths, numbers of the shapes, are the host's), the
windows are one gather, each window's maximum an ``argmax`` (the last NaN where a window holds one, as PyTorch's
``val > max || isnan(val)``), the values a ``take_along_axis``, the gradient one ``add_at`` (windows
overlap) and max unpooling one scatter. An index of ``max_unpool`` outside its plane is checked on the device and
reported at the next sync, in the CPU kernel's words (``_runtime.check_later``).
"""

from __future__ import annotations

import math
from typing import Any

import cupy
import numpy as np

from ...dtypes import FLOAT_DTYPES
from ..key import Backend
from ..pool_windows import adaptive_max_positions, plane_gather, plane_scatter
from ..registry import register_kernel
from ._runtime import check_later
from .ordered import add_at

GPU = Backend.GPU

__all__: list[str] = []


def _register(k: int) -> None:
    name = f"adaptive_max_pool{k}d"

    def indices(x: Any, output_size: tuple[int, ...]) -> Any:
        return adaptive_max_positions(cupy, x, tuple(output_size))

    def values(x: Any, indices: Any) -> Any:
        return plane_gather(cupy, x, indices, k)

    def backward(grad: Any, x: Any, indices: Any) -> Any:
        return plane_scatter(cupy, grad, indices, tuple(x.shape[x.ndim - k:]), add_at)

    def unpool(x: Any, indices: Any, output_size: tuple[int, ...]) -> Any:
        size = math.prod(output_size)
        plane = "x".join(str(n) for n in output_size)

        def error(bad: np.ndarray, values: np.ndarray) -> RuntimeError:
            return RuntimeError(f"Found an invalid max index: {int(bad[0])} (output volumes are of size {plane})")

        check_later(indices, 0, size, error)
        return plane_scatter(cupy, x, indices, tuple(output_size))

    for op, fn in ((f"{name}_indices", indices), (name, values), (f"{name}_backward", backward),
                   (f"max_unpool{k}d", unpool)):
        fn.__name__ = op
        register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cupy_{op}")(fn)


_register(2)
_register(3)
