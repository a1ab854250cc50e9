"""CPU conv2d for the NHWC layout: the second layout of one op (seed 002, layouts in the KernelKey).

``conv2d`` has two CPU kernels: the NCHW one in ``nn.py`` and this one,
registered for ``Layout.NHWC`` ("channels last", the layout cuDNN's tensor
cores prefer). Which one runs is decided by the KernelKey's layout, i.e. the
layout of the input tensor:

- an NCHW input probes ``(CPU, NCHW)`` and gets the NCHW kernel;
- an NHWC input probes ``(CPU, NHWC)`` and gets this kernel. Its weight, an
  OIHW tensor tagged NCHW, is transposed by PrepareData to the kernel's
  declared layout - OIHW becomes OHWI, the "KRSC" filter layout of NHWC
  convolutions - and a ``data.transform`` event says so.

The same function can be registered for a backend whose conv2d is
NHWC-only, declaring its inputs and outputs NHWC while serving NCHW keys::

    register_kernel("conv2d", "TOY", layout=Layout.ALL_LAYOUT,
                    arg_overrides={0: {"layout": Layout.NHWC}, 1: {"layout": Layout.NHWC}},
                    out_layout=Layout.NHWC)(conv2d_nhwc)

Then an NCHW input is transposed in and the NHWC output transposed back,
each step one ``data.transform`` (see ``tests/test_prepare_data.py``).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...dtypes import FLOAT_DTYPES
from ..key import Backend, Layout
from ..registry import register_kernel

__all__ = ["conv2d_nhwc"]


@register_kernel("conv2d", Backend.CPU, layout=Layout.NHWC, dtypes=FLOAT_DTYPES, name="cpu/conv2d_nhwc")
def conv2d_nhwc(x, weight, bias=None, stride=(1, 1), padding=(0, 0)):
    """Cross-correlation of ``x`` (N, H, W, C) with ``weight`` (O, kH, kW, C) -> (N, OH, OW, O)."""
    _, kh, kw, _ = weight.shape
    ph, pw = padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (ph, ph), (pw, pw), (0, 0)))
    # (N, OH', OW', C, kh, kw) windows, then the strided ones.
    win = sliding_window_view(x, (kh, kw), axis=(1, 2))[:, :: stride[0], :: stride[1]]
    # Contract C, kh, kw: channels stay last, as the layout promises.
    out = np.tensordot(win, weight, axes=([3, 4, 5], [3, 1, 2]))  # N, OH, OW, O
    if bias is not None:
        out = out + bias
    return np.ascontiguousarray(out, dtype=x.dtype)
