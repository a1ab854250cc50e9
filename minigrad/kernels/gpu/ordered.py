"""The GPU's scatters, atomic or - under ``mg.use_deterministic_algorithms(True)`` - in the order of their writes.

NOTE [ A scatter in the order of its writes ]
    CuPy's ``cupyx.scatter_add`` adds with atomics: the writes to one element land in whichever order the
    threads reach it, so a float sum may differ in its last bits from run to run, and of two plain writes
    ``x[i] = v`` to one element either may stay. Both are fast and PyTorch CUDA does the same in
    ``index_add_``/``scatter_add_``. Under the deterministic mode (``minigrad/determinism.py``) the kernels
    that scatter call ``add_at``/``set_at`` here instead, which number the elements the index names (an
    ``arange`` read through the same index), sort the writes by element (CuPy's ``argsort``, a stable radix
    sort: one element's writes keep their order) and launch one kernel in which the thread at the first write
    of each element applies that element's writes in order: ``mg_oadd`` adds them one by one, rounding each sum
    to the dtype - NumPy's ``np.add.at``, so where the CPU kernel adds with it the device's sums are the CPU's,
    bit for bit (an index's or an embedding's gradient sums on the CPU with ``np.add.reduceat``, in an order
    of its own: the same bits run after run there too) - and ``mg_oset`` keeps the last, as NumPy's
    assignment does. Seven launches where the atomic scatter takes one, and only
    under the mode. bfloat16 (no CUDA kernel here) and integers, whose sums do not depend on their order, keep
    the atomic add.
"""

from __future__ import annotations

from typing import Any

import cupy
import numpy as np

from ... import flags
from . import conv_src as src
from ._runtime import dtype_name, function, launch_1d

__all__ = ["add_at", "set_at"]


def add_at(target: Any, where: Any, values: Any) -> None:
    """``target[where] += values`` with repeated elements adding up (``cupyx.scatter_add``'s signature)."""
    if flags.deterministic_algorithms and target.dtype.kind == "f" and np.dtype(target.dtype).name in src.DTYPES:
        _in_order(target, where, values, add=True)
        return
    import cupyx  # noqa: PLC0415  (CuPy's extras: its atomic scatter-add)

    cupyx.scatter_add(target, where, values)


def set_at(target: Any, where: Any, values: Any) -> None:
    """``target[where] = values``: of repeated writes to one element, the last stays under the mode (one of
    them otherwise, as CuPy's and PyTorch CUDA's)."""
    if flags.deterministic_algorithms:
        _in_order(target, where, values, add=False)
    else:
        target[where] = values


def _in_order(target: Any, where: Any, values: Any, add: bool) -> None:
    """The writes of ``target[where] (+)= values`` sorted by element and applied in order (NOTE above)."""
    element = cupy.arange(target.size, dtype=np.int64).reshape(target.shape)[where]
    if element.size == 0:
        return
    if not isinstance(values, cupy.ndarray):  # a number: filled on the device
        values = cupy.full(element.shape, values, dtype=target.dtype)
    values = cupy.ascontiguousarray(cupy.broadcast_to(values.astype(target.dtype, copy=False), element.shape))
    order = cupy.argsort(element.reshape(-1))
    pos, vals = element.reshape(-1)[order], values.reshape(-1)[order]
    flat = target.reshape(-1) if target.flags.c_contiguous else cupy.ascontiguousarray(target).reshape(-1)
    if add:
        dt = dtype_name(target.dtype)
        fn = function(f"oadd_{dt}", lambda: src.ordered_add_source(dt), f"mg_oadd_{src.DTYPES[dt][2]}")
        launch_1d(fn, pos.size, (flat, pos, vals, np.int64(pos.size)))
    else:  # elements as bytes: one kernel for every dtype
        fn = function("oset", src.ordered_set_source, "mg_oset")
        launch_1d(fn, pos.size, (flat.view(np.uint8), pos, vals.view(np.uint8), np.int64(pos.size),
                                 np.int32(target.dtype.itemsize)))
    if not target.flags.c_contiguous:
        target[...] = flat.reshape(target.shape)
