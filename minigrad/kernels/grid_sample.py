"""``grid_sample``'s and ``affine_grid``'s arithmetic on arrays, shared by the CPU's kernels (NumPy) and the GPU's (CuPy).

A grid holds, for each output point, a position in the input in ``[-1, 1]`` coordinates (``x`` along the
last input dim, then ``y``, then ``z``). Each coordinate is turned into a pixel position (PyTorch's
``grid_sampler_compute_source_index``: *unnormalized*, then clipped or reflected by the padding mode), and
the output is a weighted sum of the input at a few *taps* around it: 2 per dim for ``bilinear``, 1 for
``nearest``, 4 for ``bicubic`` (Keys' cubic, ``A = -0.75``). A tap outside the input reads 0 (``zeros``);
``border`` and ``reflection`` moved the position inside first (bicubic moves each tap instead).

NOTE [ Sampling and its derivatives are one sum of taps ]
    The weight of a tap is a product of one 1-D weight per dim, ``w_d(c_d)``, and ``c_d`` depends on
    the grid coordinate ``g_d`` through a map with a piecewise-constant slope ``m_d`` (the
    unnormalizing scale, times 0 where the border clips, times -1 where a reflection flips). So the
    derivative of the output to the grid, of any order ``a = (a_x, a_y[, a_z])``, is the same sum of
    taps with ``w_d`` replaced by its ``a_d``-th derivative times ``m_d ** a_d`` (``sample``'s
    ``order``). The sum is linear in the input, and its adjoint (``sample_adjoint``) scatters a
    gradient back to the taps with the same weights. Every gradient of ``grid_sample``, of every
    order, is made of these two sums (``ops/grid_sample.py``).

Example:
    >>> import numpy as np
    >>> x = np.arange(4.0).reshape(1, 1, 2, 2)
    >>> grid = np.zeros((1, 1, 1, 2))  # the centre
    >>> sample(np, x, grid, (0, 0), 0, 0, False).tolist()
    [[[[1.5]]]]
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import numpy as np

__all__ = ["BILINEAR", "NEAREST", "BICUBIC", "ZEROS", "BORDER", "REFLECTION", "base_grid", "affine_grid",
           "batched_base", "sample", "sample_adjoint", "unit_order", "sampler_backward"]

#: PyTorch's ``GridSamplerInterpolation`` and ``GridSamplerPadding`` numbers (``torch.grid_sampler``'s ints)
BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2

_A = -0.75  # Keys' cubic, as PyTorch's bicubic


def base_grid(xp: Any, spatial: tuple[int, ...], align_corners: bool, dtype: Any) -> Any:
    """``(prod(spatial), k + 1)`` rows ``(x, y[, z], 1)`` of every output point, ``x`` the fastest
    (PyTorch's ``make_base_grid_4D/5D``): ``linspace(-1, 1, n)``, shrunk by ``(n - 1) / n`` without
    ``align_corners`` so the points are the pixels' centres."""
    axes = [_line(xp, n, align_corners, dtype) for n in reversed(spatial)]  # x runs along the last dim
    mesh = xp.meshgrid(*reversed(axes), indexing="ij")  # (spatial) arrays, in the spatial dims' order
    cols = [m.reshape(-1) for m in reversed(mesh)] + [xp.ones((math.prod(spatial),), dtype=dtype)]
    return xp.stack(cols, axis=1)


def _line(xp: Any, n: int, align_corners: bool, dtype: Any) -> Any:
    """PyTorch's ``linspace_from_neg_one``: ``linspace(-1, 1, n)`` in ``dtype`` (each half stepped from its
    own end, as PyTorch's linspace), times ``(n - 1) / n`` without ``align_corners``; 0 for ``n <= 1``."""
    if n <= 1:
        return xp.zeros((n,), dtype=dtype)
    i = xp.arange(n).astype(dtype)
    step = np.dtype(dtype).type(2.0 / (n - 1))  # a number of the dtype: no host array in a device ufunc
    line = xp.where(i < n // 2, -1 + i * step, 1 - ((n - 1) - i) * step).astype(dtype, copy=False)
    return line if align_corners else (line * (n - 1) / n).astype(dtype, copy=False)


def affine_grid(xp: Any, theta: Any, size: tuple[int, ...], align_corners: bool) -> Any:
    """``base @ theta^T`` for every batch element: ``(N, *spatial, k)``."""
    spatial = tuple(size[2:])
    base = base_grid(xp, spatial, align_corners, theta.dtype)
    out = xp.matmul(base[None], xp.swapaxes(theta, 1, 2))
    return out.reshape((theta.shape[0],) + spatial + (len(spatial),)).astype(theta.dtype, copy=False)


def batched_base(xp: Any, size: tuple[int, ...], align_corners: bool, dtype: Any) -> Any:
    """``base_grid`` once per batch element, ``(N, prod(spatial), k + 1)``: the constant of the gradient."""
    base = base_grid(xp, tuple(size[2:]), align_corners, dtype)
    return xp.ascontiguousarray(xp.broadcast_to(base, (size[0],) + base.shape))


# -- one coordinate: pixel position, its slope, and the taps ------------------------------------------------

def _unnormalize(coord: Any, size: int, align_corners: bool) -> tuple[Any, float]:
    """``[-1, 1]`` to pixels: corners' centres (``align_corners``) or the image's edges; and the slope."""
    if align_corners:
        return ((coord + 1) / 2) * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _clip(xp: Any, c: Any, size: int) -> tuple[Any, Any]:
    """Clip to ``[0, size - 1]`` (a NaN to 0, as PyTorch's CPU kernels do); the slope is 0 there, the bounds
    included (PyTorch's ``clip_coordinates_set_grad`` counts a border as outside)."""
    inside = (c > 0) & (c < size - 1)
    low = xp.where(c > 0, c, 0)
    return xp.where(low < size - 1, low, size - 1).astype(c.dtype, copy=False), inside


def _reflect(xp: Any, c: Any, twice_low: int, twice_high: int) -> tuple[Any, Any]:
    """Reflect into ``[low, high]`` (bounds given doubled, so half-pixels are ints); the slope's sign."""
    if twice_low == twice_high:
        return xp.zeros_like(c), xp.zeros(c.shape, dtype=bool)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = c - low
    sign = d >= 0
    d = xp.abs(d)
    extra = xp.fmod(d, span)
    even = xp.fmod(xp.floor(d / span), 2) == 0
    out = xp.where(even, extra + low, span - extra + low).astype(c.dtype, copy=False)
    return out, sign == even  # +1 where the flips and the side agree


def _pad_position(xp: Any, c: Any, size: int, padding: int, align_corners: bool) -> tuple[Any, Any]:
    """The padding mode's map of a pixel position (PyTorch's ``compute_coordinates``), with its slope
    (an array of -1, 0, 1, or the number 1 where it is the identity)."""
    if padding == ZEROS:
        return c, 1
    slope = 1
    if padding == REFLECTION:
        c, positive = (_reflect(xp, c, 0, 2 * (size - 1)) if align_corners else _reflect(xp, c, -1, 2 * size - 1))
        slope = xp.where(positive, 1, -1)
    c, inside = _clip(xp, c, size)
    return c, slope * inside


def _safe(xp: Any, c: Any) -> Any:
    """A position that is no number, or past int range, becomes -100: outside every input."""
    return xp.where(xp.isfinite(c) & (c > -2.0**31) & (c < 2.0**31 - 1), c, -100).astype(c.dtype, copy=False)


def _cubic_near(x: Any, k: int) -> Any:
    """The ``k``-th derivative of Keys' cubic for ``|x| <= 1``."""
    a = _A
    return [((a + 2) * x - (a + 3)) * x * x + 1, (3 * (a + 2) * x - 2 * (a + 3)) * x,
            6 * (a + 2) * x - 2 * (a + 3), 6 * (a + 2) + 0 * x][k] if k < 4 else 0 * x


def _cubic_far(x: Any, k: int) -> Any:
    """The ``k``-th derivative of Keys' cubic for ``1 < |x| < 2``."""
    a = _A
    return [((a * x - 5 * a) * x + 8 * a) * x - 4 * a, (3 * a * x - 10 * a) * x + 8 * a,
            6 * a * x - 10 * a, 6 * a + 0 * x][k] if k < 4 else 0 * x


def _taps(xp: Any, coord: Any, size: int, mode: int, padding: int, align_corners: bool,
          order: int) -> list[tuple[Any, Any]]:
    """The taps of one coordinate: ``(index, weight)`` pairs, the weight the ``order``-th derivative to the
    grid coordinate (0 on a tap outside the input, whose index is clamped to 0)."""
    c, scale = _unnormalize(coord, size, align_corners)
    if mode == BICUBIC:  # the taps are padded, not the position
        i0 = xp.floor(c)
        t = c - i0
        sign = (-1) ** order
        weights = [_cubic_far(t + 1, order), _cubic_near(t, order), sign * _cubic_near(1 - t, order),
                   sign * _cubic_far(2 - t, order)]
        taps = []
        for k, w in enumerate(weights):
            pos = _safe(xp, _pad_position(xp, i0 + (k - 1), size, padding, align_corners)[0])
            taps.append((pos, w * scale ** order))
        return [_bounded(xp, pos, w, size) for pos, w in taps]
    c, slope = _pad_position(xp, c, size, padding, align_corners)
    d = scale if isinstance(slope, int) else (slope * scale).astype(c.dtype)
    if mode == NEAREST:
        w = xp.ones_like(c) if order == 0 else xp.zeros_like(c)
        return [_bounded(xp, xp.rint(_safe(xp, c)), w, size)]
    i0 = xp.floor(_safe(xp, c))  # the weights take c itself: a NaN position gives NaN, as PyTorch's CPU kernel
    i1 = i0 + 1
    if order == 0:
        pairs = [(i0, i1 - c), (i1, c - i0)]
    elif order == 1:
        pairs = [(i0, -d * xp.ones_like(c)), (i1, d * xp.ones_like(c))]
    else:
        pairs = [(i0, xp.zeros_like(c)), (i1, xp.zeros_like(c))]
    return [_bounded(xp, i, w, size) for i, w in pairs]


def _bounded(xp: Any, pos: Any, w: Any, size: int) -> tuple[Any, Any, Any]:
    """An integer index (clamped to 0 outside ``[0, size)``), its weight, and whether it is inside."""
    inside = (pos >= 0) & (pos < size)
    return xp.where(inside, pos, 0).astype(np.int64), w, inside


# -- the sum of taps, and its adjoint -----------------------------------------------------------------------

def _combos(xp: Any, grid: Any, spatial: tuple[int, ...], order: tuple[int, ...], mode: int, padding: int,
            align_corners: bool) -> tuple[int, int, list[tuple[Any, Any, Any]]]:
    """``(Q, P, [(flat index, weight, inside)])``: the flat input index ``(N, Q)`` of each combination of taps,
    its weight (the product of the dims') and whether every tap is inside the input (one outside reads 0,
    skipped, as PyTorch's ``within_bounds``). ``grid``'s coordinate ``j`` runs along the input's dim ``-1 - j``."""
    k = len(spatial)
    n = grid.shape[0]
    q = math.prod(grid.shape[1:-1])
    g = grid.reshape(n, q, k)
    per_dim = []
    for j in range(k):
        size = spatial[k - 1 - j]
        per_dim.append(_taps(xp, g[:, :, j], size, mode, padding, align_corners, order[j]))
    strides = [math.prod(spatial[k - j:]) for j in range(k)]  # coordinate j's stride in the flat input
    combos = []
    for pick in itertools.product(*per_dim):
        index = sum(i * s for (i, _, _), s in zip(pick, strides))
        weight, inside = pick[0][1], pick[0][2]
        for _, w, ok in pick[1:]:
            weight, inside = weight * w, inside & ok
        combos.append((index, weight, inside))
    return q, math.prod(spatial), combos


def sample(xp: Any, x: Any, grid: Any, order: tuple[int, ...], mode: int, padding: int,
           align_corners: bool) -> Any:
    """``(N, C, *grid's spatial)``: the taps' weighted sum at every grid point; with ``order`` not all 0, its
    derivative of that order to the grid coordinates (NOTE [ Sampling and its derivatives are one sum of taps ])."""
    n, c = x.shape[:2]
    q, p, combos = _combos(xp, grid, tuple(x.shape[2:]), order, mode, padding, align_corners)
    out = xp.zeros((n, q, c), dtype=x.dtype)
    if n and c and q:
        xt = xp.swapaxes(x.reshape(n, c, p), 1, 2)  # (N, P, C): one gather a tap reads every channel
        rows = xp.arange(n)[:, None]
        for index, weight, inside in combos:
            out += xp.where(inside[..., None], xt[rows, index], 0) * weight[..., None]  # a tap outside reads 0
    return xp.ascontiguousarray(xp.swapaxes(out, 1, 2)).reshape((n, c) + tuple(grid.shape[1:-1]))


def sample_adjoint(xp: Any, scatter_add: Callable[[Any, Any, Any], None], grad: Any, grid: Any,
                   input_shape: tuple[int, ...], order: tuple[int, ...], mode: int, padding: int,
                   align_corners: bool) -> Any:
    """``sample``'s adjoint in the input: each output's gradient added to its taps with their weights
    (``scatter_add(target, (rows, index), values)``: NumPy's ``add.at``, CuPy's ``scatter_add``)."""
    n, c = input_shape[:2]
    q, p, combos = _combos(xp, grid, tuple(input_shape[2:]), order, mode, padding, align_corners)
    out = xp.zeros((n, p, c), dtype=grad.dtype)
    if n and c and q:
        gt = xp.swapaxes(grad.reshape(n, c, q), 1, 2)
        rows = xp.broadcast_to(xp.arange(n)[:, None], (n, q))
        for index, weight, inside in combos:
            scatter_add(out, (rows, index), xp.where(inside[..., None], gt * weight[..., None], 0).astype(grad.dtype))
    return xp.ascontiguousarray(xp.swapaxes(out, 1, 2)).reshape(tuple(input_shape))


def unit_order(k: int, *axes: int) -> tuple[int, ...]:
    """The derivative order ``(0, .., 1, .., 0)`` along the grid coordinates ``axes`` (added)."""
    order = [0] * k
    for j in axes:
        order[j] += 1
    return tuple(order)


def sampler_backward(xp: Any, scatter_add: Callable[[Any, Any, Any], None], grad: Any, x: Any, grid: Any,
                     output_mask: tuple[bool, bool], mode: int, padding: int, align_corners: bool) -> tuple[Any, Any]:
    """PyTorch's ``grid_sampler_2d/3d_backward``: the input's gradient (the adjoint of the sum of taps) and the
    grid's (each coordinate's first derivative of the sum, times ``grad``, summed over the channels); zeros
    where ``output_mask`` asks for none."""
    k = grid.shape[-1]
    grad_input = (sample_adjoint(xp, scatter_add, grad, grid, tuple(x.shape), (0,) * k, mode, padding, align_corners)
                  if output_mask[0] else xp.zeros(x.shape, dtype=x.dtype))
    if output_mask[1] and mode != NEAREST:  # nearest's weights are constant: no gradient to the grid
        grad_grid = xp.stack([(sample(xp, x, grid, unit_order(k, j), mode, padding, align_corners) * grad).sum(axis=1)
                              for j in range(k)], axis=-1).astype(grid.dtype, copy=False)
    else:
        grad_grid = xp.zeros(grid.shape, dtype=grid.dtype)
    return grad_input, grad_grid
