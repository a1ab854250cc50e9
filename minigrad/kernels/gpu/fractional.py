"""GPU kernels of fractional max pooling (``ops/fractional_pooling.py``): the windows' maxima, the values read there
and the gradient, in 2-D and 3-D, made of CuPy's own functions.

The same array functions as the CPU kernels' run with ``xp = cupy``: the window starts are computed on the device
from the samples (``kernels/fractional_windows.py``: only the shapes are the host's), each window's maximum an
``argmax`` (the last NaN where a window holds one), the values a ``take_along_axis`` and the gradient one ``add_at``
(windows overlap).
"""

from __future__ import annotations

from typing import Any

import cupy

from ...dtypes import FLOAT_DTYPES
from ..fractional_windows import fractional_positions
from ..key import Backend
from ..pool_windows import plane_gather, plane_scatter
from ..registry import register_kernel
from .ordered import add_at

GPU = Backend.GPU

__all__: list[str] = []


def _register(k: int) -> None:
    name = f"fractional_max_pool{k}d"

    def indices(x: Any, samples: Any, kernel_size: tuple[int, ...], output_size: tuple[int, ...]) -> Any:
        return fractional_positions(cupy, x, samples.astype(x.dtype, copy=False), tuple(kernel_size),
                                    tuple(output_size))

    def values(x: Any, indices: Any) -> Any:
        return plane_gather(cupy, x, indices, k)

    def backward(grad: Any, x: Any, indices: Any) -> Any:
        return plane_scatter(cupy, grad, indices, tuple(x.shape[x.ndim - k:]), add_at)

    for op, fn in ((f"{name}_indices", indices), (name, values), (f"{name}_backward", backward)):
        fn.__name__ = op
        register_kernel(op, GPU, dtypes=FLOAT_DTYPES, name=f"gpu/cupy_{op}")(fn)


_register(2)
_register(3)
