"""Integration by the trapezoidal rule: ``torch.trapezoid`` (``trapz``) and ``torch.cumulative_trapezoid``.

Composites, PyTorch's op for op (``aten/src/ATen/native/Integration.cpp``), so the graph is PyTorch's:

- samples ``x`` given: the spacings ``dx = x[1:] - x[:-1]`` along ``dim`` (a 1-D ``x`` viewed along ``dim``
  first), then ``((y[:-1] + y[1:]) * dx).sum(dim) / 2`` - ``DivBackward1`` over ``SumBackward1`` - or, running,
  ``.cumsum(dim) / 2``;
- a constant spacing ``dx``: ``(y.sum(dim) - (y[0] + y[-1]) * 0.5) * dx`` (the end points counted half; two
  ``select``s, ``MulBackward1`` twice), or, running, ``(dx / 2 * (y[:-1] + y[1:])).cumsum(dim)``.

The numbers multiply and divide by PyTorch's ``mul.Scalar``/``div.Scalar`` (one edge each, as in C++).
``trapezoid`` of no samples along ``dim`` is zeros, as NumPy's. Both run on a GPU wherever their ops do.

Example:
    >>> import minigrad as mg
    >>> y = mg.tensor([1.0, 2.0, 4.0])
    >>> mg.trapezoid(y).item(), mg.trapezoid(y, dx=0.5).item(), mg.trapezoid(y, mg.tensor([0.0, 1.0, 3.0])).item()
    (4.5, 2.25, 7.5)
    >>> mg.cumulative_trapezoid(y).tolist()
    [1.5, 4.5]
"""

from __future__ import annotations

from typing import Any

from ..creation import zeros
from ..tensor import Tensor
from ._checks import check_int, check_tensor, wrap_dim
from .cumulative import cumsum
from .math import add, div, div_scalar, mul, mul_scalar, sub
from .reduce import sum
from .registry import type_name
from .shape import getitem, view

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid"]


def _times(t: Tensor, number: float) -> Tensor:
    """``t * number`` as C++ writes it: ``mul.Scalar`` (``MulBackward1``); an integer tensor, which that overload
    does not take here, by ``mul`` (it has no gradient to name)."""
    return mul_scalar(t, other=number) if t.dtype.is_floating else mul(t, number)


def _halved(t: Tensor) -> Tensor:
    """``t / 2.`` as C++ writes it: ``div.Scalar`` (``DivBackward1``)."""
    return div_scalar(t, other=2.0) if t.dtype.is_floating else div(t, 2.0)


def _ends(y: Tensor, d: int) -> tuple[Tensor, Tensor]:
    """``y.slice(d, 0, -1)`` and ``y.slice(d, 1)``: every sample but the last, every one but the first."""
    n = y.shape[d]
    lead = (slice(None),) * d
    return getitem(y, lead + (slice(0, max(n - 1, 0)),)), getitem(y, lead + (slice(1, max(n, 1)),))


def _spacings(op: str, y: Tensor, x: Tensor, d: int) -> Tensor:
    """``x[1:] - x[:-1]`` along ``d``: a 1-D ``x`` (one value per sample) viewed along ``d``; an ``x`` of fewer dims
    than ``y`` viewed with leading 1s (broadcast with the samples' sums afterwards, as NumPy's)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        x = view(x, tuple(x.shape[0] if k == d else 1 for k in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = view(x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    left, right = _ends(x, d)
    return sub(right, left)


def _arguments(op: str, y: Any, x: Any, dx: Any, dim: Any) -> tuple[int, Any]:
    """``dim`` made non-negative (PyTorch's words for a 0-d ``y``) and the spacing: the tensor ``x`` or a number."""
    check_tensor(op, "y", 0, y)
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments: pass either 'x' or 'dx', not both")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{op}() received an invalid combination of arguments: 'x' must be a Tensor, not "
                        f"{type_name(x)} (a constant spacing is the keyword 'dx')")
    dim = check_int(op, "dim", 2, dim)
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(op, dim, y.ndim)
    if x is None:
        dx = 1 if dx is None else dx
        if isinstance(dx, bool) or not isinstance(dx, (int, float)):
            raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")
        return d, float(dx)
    return d, x


def _refuse_bool(op: str, y: Tensor, x: Any) -> None:
    if isinstance(x, Tensor) and (y.dtype.name == "bool" or x.dtype.name == "bool"):
        raise RuntimeError(f"{op}: received a bool input for `x` or `y`, but bool is not supported")
    if y.dtype.name == "bool":
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule (``torch.trapezoid``): at the
    points ``x`` (a tensor), or spaced ``dx`` apart (1 by default). Composite, PyTorch's op for op.

    Example:
        >>> import minigrad as mg
        >>> mg.trapezoid(mg.tensor([[1.0, 3.0], [2.0, 2.0]]), dim=0).tolist()
        [1.5, 2.5]
    """
    d, spacing = _arguments("trapezoid", y, x, dx, dim)
    if y.shape[d] == 0:  # no samples: 0, as NumPy's (zeros without a graph, as PyTorch's)
        return zeros(tuple(s for k, s in enumerate(y.shape) if k != d), dtype=y.dtype, device=y.device)
    _refuse_bool("trapezoid", y, spacing)
    if isinstance(spacing, Tensor):
        left, right = _ends(y, d)
        return _halved(sum(mul(add(left, right), _spacings("trapezoid", y, spacing, d)), d))
    lead = (slice(None),) * d
    ends = add(getitem(y, lead + (0,)), getitem(y, lead + (-1,)))  # y.select(d, 0) + y.select(d, -1)
    return _times(sub(sum(y, d), _times(ends, 0.5)), spacing)


def trapz(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """``trapezoid`` under its older name (``torch.trapz``)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (``torch.cumulative_trapezoid``): one
    value fewer than the samples, the ``k``-th the integral up to sample ``k + 1``. Composite, PyTorch's op for op.

    Example:
        >>> import minigrad as mg
        >>> mg.cumulative_trapezoid(mg.tensor([1.0, 2.0, 4.0]), mg.tensor([0.0, 1.0, 3.0])).tolist()
        [1.5, 7.5]
    """
    d, spacing = _arguments("cumulative_trapezoid", y, x, dx, dim)
    _refuse_bool("cumulative_trapezoid", y, spacing)
    if isinstance(spacing, Tensor):
        dxs = _spacings("cumulative_trapezoid", y, spacing, d)
        left, right = _ends(y, d)
        return _halved(cumsum(mul(add(left, right), dxs), d))
    left, right = _ends(y, d)
    return cumsum(_times(add(left, right), spacing / 2.0), d)
