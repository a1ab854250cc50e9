"""The window matrices of average pooling, for the CPU's and the GPU's kernels (NumPy only; shapes in, no data).

NOTE [ Average pooling is two small matrix products ] (``ops/pooling.py``): a
pool over ``(H, W)`` planes is ``rows @ x @ cols.T`` with an ``(out_h, H)`` and
an ``(out_w, W)`` matrix, each row holding ``1 / size`` on its output's window.
The matrices depend on the shapes and the attributes only, so a GPU keeps them
on the device per geometry (``kernels/gpu/library.py``). A 3-D pool over
``(D, H, W)`` volumes is the same with a third matrix along the depth.
Windows that tile the plane (stride = kernel, no padding: the common 2x2
pool, a global average) need no product: ``tiled_mean`` sums each window
as PyTorch's CPU loop does (its bits), one reduction on a GPU. An inf or a
NaN stays in its own windows either way (NOTE [ A non-finite value in a
window ]).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["pool_out_size", "avg_matrix", "adaptive_matrix", "avg_matrices", "apply_windows", "avg_matrices_3d",
           "tiling", "avg_tiles", "adaptive_tiles", "tiled_mean", "tiled_mean_adjoint",
           "apply_windows_3d", "adaptive_window_table", "adaptive_max_positions", "plane_gather", "plane_scatter"]


def pool_out_size(n: int, k: int, s: int, p: int, ceil_mode: bool, d: int = 1) -> int:
    """PyTorch's ``pooling_output_shape``: windows (of ``k`` taps ``d`` apart) along a dim of ``n``; with
    ``ceil_mode`` the last partial window counts where it starts inside the input or its left padding."""
    out = (n + 2 * p - d * (k - 1) - 1 + ((s - 1) if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def avg_matrix(n: int, k: int, s: int, p: int, ceil_mode: bool, count_include_pad: bool, divide: bool) -> np.ndarray:
    """``(out, n)`` weights of one dim of ``avg_pool2d`` (``divide=False``: 0/1, for ``divisor_override``)."""
    out = pool_out_size(n, k, s, p, ceil_mode)
    m = np.zeros((out, n))
    for o in range(out):
        start = o * s - p
        end = min(start + k, n + p)  # a window may hang over the right padding only up to its end
        size = end - start
        lo, hi = max(start, 0), min(end, n)
        m[o, lo:hi] = 1.0 / (size if count_include_pad else hi - lo) if divide else 1.0
    return m


def adaptive_matrix(n: int, out: int) -> np.ndarray:
    """``(out, n)`` weights of one dim of adaptive average pooling: window ``[floor(o n / out), ceil((o + 1) n / out))``."""
    m = np.zeros((out, n))
    for o in range(out):
        lo, hi = (o * n) // out, -((-(o + 1) * n) // out)
        m[o, lo:hi] = 1.0 / (hi - lo)
    return m


def avg_matrices(hw: tuple[int, int], a: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, float]:
    """The two matrices of ``avg_pool2d`` over an ``(H, W)`` plane with attributes ``a``, and the constant scale."""
    divisor = a["divisor_override"]
    divide = divisor is None
    rows = avg_matrix(hw[0], a["kernel_size"][0], a["stride"][0], a["padding"][0], a["ceil_mode"], a["count_include_pad"], divide)
    cols = avg_matrix(hw[1], a["kernel_size"][1], a["stride"][1], a["padding"][1], a["ceil_mode"], a["count_include_pad"], divide)
    return rows, cols, 1.0 if divide else 1.0 / divisor


def apply_windows(xp: Any, x: Any, rows: Any, cols: Any, scale: float) -> Any:
    """``rows @ x @ cols.T`` on every plane of ``x`` (and the adjoint, given transposed matrices), with
    ``xp`` NumPy or CuPy; the matrices are of ``x``'s dtype and module. A non-finite value stays in its own
    windows (NOTE [ A non-finite value in a window ])."""
    return _finite_products(xp, x, lambda a: xp.matmul(xp.matmul(rows, a), cols.T), scale)


def _finite_products(xp: Any, x: Any, product: Any, scale: float) -> Any:
    """``product(x) * scale``, with the windows that hold an inf or a NaN set as IEEE adds their values.

    NOTE [ A non-finite value in a window ]
        A matrix product multiplies every element of a row by its weight, 0 outside the window, and
        ``0 * inf`` is NaN: one inf in a plane made NaN of every window sharing its rows or columns, where
        PyTorch's loop over a window reads only the window's own elements. So the product runs on ``x`` with
        its non-finite values set to 0, and on three indicators (+inf, -inf, NaN), whose window sums (of
        positive weights) say which windows hold one; such a window is NaN (a NaN, or both infinities) or
        that infinity. On the CPU this runs only when ``x`` holds one (a host check); a GPU would wait for
        that check, so there it always runs.
    """
    on_host = xp is np
    if on_host and np.isfinite(x).all():
        out = product(x)
        return xp.ascontiguousarray(out * np.asarray(scale, dtype=x.dtype)[()] if scale != 1.0 else out, dtype=x.dtype)
    finite = xp.isfinite(x)
    out = product(xp.where(finite, x, x.dtype.type(0)))
    if scale != 1.0:
        out = out * np.asarray(scale, dtype=x.dtype)[()]
    marks = product(xp.stack([x == np.inf, x == -np.inf, xp.isnan(x)]).astype(x.dtype)) > 0
    up, down = (np.inf, -np.inf) if scale > 0 else (-np.inf, np.inf)
    out = xp.where(marks[0], x.dtype.type(up), out)
    out = xp.where(marks[1], x.dtype.type(down), out)
    out = xp.where(marks[2] | (marks[0] & marks[1]), x.dtype.type(np.nan), out)
    return xp.ascontiguousarray(out, dtype=x.dtype)


def tiling(hw: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...], padding: tuple[int, ...]) -> bool:
    """Whether the windows tile the plane: stride = kernel, no padding, a whole number of windows along each
    dim (then ``ceil_mode`` and ``count_include_pad`` change nothing and every window has ``prod(kernel)``
    elements)."""
    return all(s == k and p == 0 and n % k == 0 for n, k, s, p in zip(hw, kernel, stride, padding))


def avg_tiles(hw: tuple[int, ...], a: dict[str, Any]) -> tuple[tuple[int, int], tuple[float, ...]] | None:
    """``avg_pool2d``'s window and divisor when its windows tile the plane, else None."""
    if not tiling(tuple(hw), a["kernel_size"], a["stride"], a["padding"]):
        return None
    kh, kw = a["kernel_size"]
    return (kh, kw), (a["divisor_override"] or kh * kw,)


def adaptive_tiles(hw: tuple[int, ...], out: tuple[int, ...]) -> tuple[tuple[int, int], tuple[float, ...]] | None:
    """``adaptive_avg_pool2d``'s window and divisors (its height, then its width) when the output divides the
    plane, else None."""
    if not out[0] or not out[1] or hw[0] % out[0] or hw[1] % out[1]:
        return None
    kh, kw = hw[0] // out[0], hw[1] // out[1]
    return (kh, kw), (kh, kw)


def tiled_mean(xp: Any, x: Any, kernel: tuple[int, int], divisors: tuple[float, ...]) -> Any:
    """Average pooling over windows that tile the plane: each window's sum over its rows, then its columns,
    divided by each of ``divisors`` in turn (``avg_pool2d``'s one; ``adaptive_avg_pool2d``'s kernel divides by
    the window's height, then its width). On the CPU the sum adds one element at a time, as PyTorch's loop (so the values
    are its bits); on a GPU one reduction (CUDA's order is its own anyway)."""
    kh, kw = kernel
    h, w = x.shape[-2:]
    tiles = x.reshape(x.shape[:-2] + (h // kh, kh, w // kw, kw))
    acc = np.float32 if x.dtype.itemsize < 4 else x.dtype.type
    if xp is np:
        total = tiles[..., 0, :, 0].astype(acc)
        for i in range(kh):
            for j in range(kw):
                if i or j:
                    total = total + tiles[..., i, :, j]
    else:
        total = tiles.sum(axis=(-3, -1), dtype=acc)
    for d in divisors:
        total = total / acc(d)
    return xp.ascontiguousarray(total, dtype=x.dtype)


def tiled_mean_adjoint(xp: Any, grad: Any, kernel: tuple[int, int], divisors: tuple[float, ...]) -> Any:
    """The gradient of ``tiled_mean``: each output's gradient divided by ``divisors``, copied over its window."""
    kh, kw = kernel
    oh, ow = grad.shape[-2:]
    acc = np.float32 if grad.dtype.itemsize < 4 else grad.dtype.type
    share = grad.astype(acc)
    for d in divisors:
        share = share / acc(d)
    share = share.astype(grad.dtype)
    spread = xp.broadcast_to(share[..., :, None, :, None], grad.shape[:-2] + (oh, kh, ow, kw))
    return xp.ascontiguousarray(spread).reshape(grad.shape[:-2] + (oh * kh, ow * kw))


def avg_matrices_3d(dhw: tuple[int, int, int], a: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The three matrices of ``avg_pool3d`` over a ``(D, H, W)`` volume with attributes ``a``, and the constant
    scale: PyTorch's divisor of a window is the product of its three extents (each counted with or without the
    padding), so it factors into the matrices as the 2-D one does."""
    divisor = a["divisor_override"]
    divide = divisor is None
    depth, rows, cols = (avg_matrix(n, a["kernel_size"][i], a["stride"][i], a["padding"][i], a["ceil_mode"],
                                    a["count_include_pad"], divide) for i, n in enumerate(dhw))
    return depth, rows, cols, 1.0 if divide else 1.0 / divisor


def apply_windows_3d(xp: Any, x: Any, depth: Any, rows: Any, cols: Any, scale: float) -> Any:
    """``depth``, ``rows`` and ``cols`` applied along the last three dims of ``x`` (``(..., D, H, W)``; the
    adjoint, given transposed matrices): each plane as ``apply_windows``, then the planes mixed along the depth by
    one more product, the planes flattened."""
    def product(a: Any) -> Any:
        planes = xp.matmul(xp.matmul(rows, a), cols.T)  # (..., D, oh, ow)
        lead, (d, oh, ow) = planes.shape[:-3], planes.shape[-3:]
        return xp.matmul(depth, planes.reshape(lead + (d, oh * ow))).reshape(lead + (depth.shape[0], oh, ow))

    return _finite_products(xp, x, product, scale)


# -- pooling by flat positions in a plane: adaptive max pooling, its gradient, max unpooling ---------------------
# PyTorch's indices of ``adaptive_max_pool2d/3d`` and ``max_pool*d`` are flat positions within each plane (the
# last 2 or 3 dims, row-major); the ops below read and write planes at such positions, with ``xp`` NumPy or CuPy.

def adaptive_window_table(xp: Any, n: int, out: int) -> Any:
    """``(out, widest)`` int64 input positions of the adaptive windows ``[floor(o n / out), ceil((o + 1) n / out))``
    along one dim, a shorter window repeating its last position (a repeated element changes neither the first
    maximum nor the last NaN). The widest window is a host number of the shapes; the table is made on ``xp``."""
    o = np.arange(out)
    width = int((-((-(o + 1) * n) // out) - (o * n) // out).max()) if out else 0
    at = xp.arange(out, dtype=np.int64)
    lo, hi = (at * n) // out, -((-(at + 1) * n) // out)
    return xp.minimum(lo[:, None] + xp.arange(width, dtype=np.int64)[None, :], hi[:, None] - 1)


def adaptive_max_positions(xp: Any, x: Any, output_size: tuple[int, ...]) -> Any:
    """The flat position within each plane (``x``'s last ``len(output_size)`` dims) of each adaptive window's
    maximum, int64, shaped ``x.shape[:-k] + output_size``: PyTorch's rule ``val > max || isnan(val)`` over the
    window in row-major order, so the first maximum, or the last NaN where the window holds one."""
    k = len(output_size)
    lead, spatial = tuple(x.shape[:-k]), tuple(x.shape[-k:])
    tables = [adaptive_window_table(xp, n, o) for n, o in zip(spatial, output_size)]
    index, positions, stride = [], 0, 1
    for d in reversed(range(k)):  # each table's outputs on axis d and its window on axis k + d
        shape = [1] * (2 * k)
        shape[d], shape[k + d] = tables[d].shape
        index.insert(0, tables[d].reshape(shape))
        positions = positions + index[0] * stride
        stride *= spatial[d]
    windows = x[(Ellipsis,) + tuple(index)]  # lead + output_size + widths
    n_out, n_win = math.prod(output_size), math.prod(t.shape[1] for t in tables)
    flat = windows.reshape(lead + (n_out, n_win))
    arg = flat.argmax(axis=-1) if n_win else xp.zeros(lead + (n_out,), dtype=np.int64)
    if x.dtype.kind == "f" and n_win:
        nan = xp.isnan(flat)
        arg = xp.where(nan.any(axis=-1), n_win - 1 - nan[..., ::-1].argmax(axis=-1), arg)
    table = xp.broadcast_to(positions, tuple(output_size) + tuple(t.shape[1] for t in tables)).reshape(n_out, n_win)
    return table[xp.arange(n_out, dtype=np.int64), arg].reshape(lead + tuple(output_size))


def _rows(a: Any, k: int) -> Any:
    """``a`` as ``(planes, plane size)``: its last ``k`` dims flattened (a copy only where they must be)."""
    return a.reshape((math.prod(a.shape[:-k]), math.prod(a.shape[-k:])))


def plane_gather(xp: Any, x: Any, indices: Any, k: int) -> Any:
    """``x`` read at ``indices`` (flat positions within each of its planes, the last ``k`` dims), shaped as
    ``indices``: adaptive max pooling's values, PyTorch's ``max_pool_double_backward``."""
    if not indices.size:
        return xp.zeros(indices.shape, dtype=x.dtype)
    return xp.take_along_axis(_rows(x, k), _rows(indices, k), axis=1).reshape(indices.shape)


def plane_scatter(xp: Any, src: Any, indices: Any, plane: tuple[int, ...], accumulate: Any = None) -> Any:
    """A zero tensor of ``src``'s lead dims and ``plane`` with ``src`` written at ``indices`` (flat positions
    within each plane): ``accumulate`` (``numpy.add.at`` or ``cupyx.scatter_add``) adds where positions repeat (the
    gradient of adaptive max pooling, whose windows overlap); without it one write wins, the last on a CPU
    (max unpooling, as PyTorch's loop)."""
    k = len(plane)
    lead = tuple(src.shape[:-k])
    out = xp.zeros((math.prod(lead), math.prod(plane)), dtype=src.dtype)
    if src.size:
        rows = xp.arange(out.shape[0], dtype=np.int64)[:, None]
        where = (rows, _rows(indices, k))
        if accumulate is None:
            out[where] = _rows(src, k)
        else:
            accumulate(out, where, _rows(src, k))
    return out.reshape(lead + tuple(plane))
