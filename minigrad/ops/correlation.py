"""Covariance and correlation: ``torch.cov`` and ``torch.corrcoef``.

Composites, PyTorch's op for op (``aten/src/ATen/native/Correlation.cpp``): the rows are variables and the
columns observations; the mean of each row (weighted by ``fweights`` and ``aweights`` where given) is
subtracted, the centred rows multiplied by their transpose with ``mm``, and the product divided by the
normalization factor (the observations' total weight less ``correction``). ``corrcoef`` divides the
covariance by the standard deviations on both sides and clamps it into ``[-1, 1]``.

Example:
    >>> import minigrad as mg
    >>> mg.cov(mg.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    >>> mg.corrcoef(mg.tensor([[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..kernels.backends import to_numpy
from ..kernels.infer_meta import scalar_type_name
from ..tensor import Tensor
from ._checks import check_tensor
from ._constants import constant
from .blas import mm
from .indexing import diagonal
from .math import clip, div, mul, sqrt, sub
from .reduce import sum
from .registry import type_name
from .shape import squeeze, t, unsqueeze, view

__all__ = ["cov", "corrcoef"]


def _weights(name: str, w: Any, n: int, integral: bool) -> Tensor:
    """``fweights`` (integers) or ``aweights`` (floats), checked as PyTorch checks them, their values too (a
    read, as PyTorch's ``any(w < 0)`` is)."""
    check_tensor("cov", name, 0, w)
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} "
                           f"dimensions")
    if integral and w.dtype.is_floating:
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{scalar_type_name(w.dtype.np)} dtype")
    if not integral and not w.dtype.is_floating:
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{scalar_type_name(w.dtype.np)} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {n}")
    if w.numel() and bool((to_numpy(w._data) < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the rows of ``input`` (variables) over its columns (observations), ``torch.cov``:
    ``(x - mean) (x - mean)^T / (N - correction)``, with frequency (``fweights``) and observation (``aweights``)
    weights as PyTorch weighs them. A 1-D input is one variable (a 0-d result)."""
    check_tensor("cov", "input", 0, input)
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} "
                           f"dimensions")
    if isinstance(correction, bool) or not isinstance(correction, int):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type_name(correction)}")
    x = view(input, (1, -1)) if input.ndim < 2 else input
    n = x.shape[1]
    w = None if fweights is None else _weights("fweights", fweights, n, integral=True)
    if aweights is not None:
        aweights = _weights("aweights", aweights, n, integral=False)
        w = aweights if w is None else mul(w, aweights)
    w_sum = constant(np.array(n, dtype=np.int64), x) if w is None else sum(w)
    if w is None:
        norm = constant(np.array(n - correction, dtype=np.int64), x)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = sub(w_sum, correction)
    else:
        norm = sub(w_sum, div(mul(sum(mul(w, aweights)), correction), w_sum))
    if float(to_numpy(norm._data)) <= 0:  # (a read of the weights' sum, as PyTorch's check is)
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = constant(np.zeros((), dtype=norm.dtype.np), x)
    avg = div(sum(x if w is None else mul(x, w), 1), w_sum)
    centred = sub(x, unsqueeze(avg, 1))
    c = mm(centred, t(centred if w is None else mul(centred, w)))
    return squeeze(div(c, norm))


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the rows of ``input`` (``torch.corrcoef``): the covariance divided by
    the standard deviations on both sides, clamped into ``[-1, 1]`` (a 1-D input: ``c / c``)."""
    c = cov(input)
    if c.ndim == 0:
        return div(c, c)
    stddev = sqrt(diagonal(c))
    c = div(div(c, view(stddev, (-1, 1))), view(stddev, (1, -1)))
    return clip(c, -1, 1)

