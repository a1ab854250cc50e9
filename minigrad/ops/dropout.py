"""Channel-wise and alpha dropout (``F.dropout1d/2d/3d``, ``F.alpha_dropout``, ``F.feature_alpha_dropout``). Composite.

Plain dropout (``F.dropout``, in ``nn/functional.py``) zeroes single elements. *Feature* dropout zeroes
whole channels: one keep/drop draw per (sample, channel), broadcast over the channel's positions, because
neighbouring positions of a feature map are correlated and dropping single pixels regularises little.
*Alpha* dropout is for self-normalising (SELU) networks: a dropped unit is set to SELU's negative
saturation value instead of zero, then an affine map restores zero mean and unit variance.

Each is a ``mul`` (and for alpha dropout an ``add``) by a constant tensor, so its backward is the
ordinary ``mul``/``add`` nodes.

NOTE [ The same masks as PyTorch ]
    PyTorch's CPU dropout fills a noise tensor with ``bernoulli_(1 - p)`` from the default generator:
    one draw per element for ``alpha_dropout``, and for the feature forms one per (sample, channel),
    a noise tensor of shape ``(N, C, 1, ...)`` (an unbatched input counts as N = 1). The masks here
    are drawn in the same number and order, so ``mg.manual_seed(s)`` gives PyTorch's masks for
    ``torch.manual_seed(s)``; the alpha constants are computed in the input's dtype in PyTorch's
    order, so the outputs are equal bit for bit.

Example:
    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> _ = mg.manual_seed(0)
    >>> F.dropout2d(mg.ones(1, 4, 2, 2), 0.5)[0, :, 0, 0].tolist()   # whole channels kept (x2) or zeroed
    [0.0, 0.0, 2.0, 0.0]
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..errors import ShapeError
from ..random import bernoulli_array, default_generator, device_draws
from ..tensor import Tensor
from ._checks import check_tensor
from ._constants import constant
from .math import add, mul
from .registry import type_name

# ``nn.functional`` imports these; none joins ``minigrad``'s own namespace (PyTorch has no torch.dropout2d).
__all__: list[str] = []

#: SELU's negative saturation value, ``scale * alpha`` of ``selu``: where alpha dropout sends a dropped unit.
_SELU_SATURATION = 1.7580993408473766


def _check(fn: str, input: Any, p: Any) -> float:
    check_tensor(fn, "input", 1, input)
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{fn}(): argument 'p' must be float, but got {type_name(p)}")
    if not 0.0 <= p <= 1.0:
        raise ShapeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def _noise_shape(x: Tensor, feature: bool, batched: bool = True) -> tuple[int, ...]:
    """One draw per element, or per (sample, channel): ``(N, C, 1, ...)``, ``(C, 1, ...)`` unbatched."""
    if not feature:
        return tuple(x.shape)
    lead = 2 if batched else 1
    return tuple(x.shape[:lead]) + (1,) * (x.ndim - lead)


def _dropout(x: Tensor, p: float, train: bool, feature: bool, alpha: bool, inplace: bool,
             batched: bool = True) -> Tensor:
    """PyTorch's ``_dropout_impl``: draw the noise, then ``x * noise`` (``+ b`` for alpha dropout)."""
    if p == 0.0 or not train or x.numel() == 0:
        return x
    if p == 1.0:
        return x.mul_(0.0) if inplace else mul(x, 0.0)
    shape = _noise_shape(x, feature, batched)
    dt = x.dtype.np.type
    # on a GPU the draws are made there (NOTE [ Draws made on the GPU: Philox4x32-10 ]): not PyTorch's
    # numbers, but no copy; the arithmetic below runs on whichever side the noise is
    noise = device_draws("bernoulli", shape, x.dtype.np, x.device, 1.0 - p, 1.0) if x.device != "cpu" else None
    if noise is None:
        noise = bernoulli_array(default_generator, 1.0 - p, math.prod(shape)).reshape(shape).astype(x.dtype.np)
    b = None
    if alpha:  # a dropped unit becomes -saturation * a * (1 - p): mean 0 and variance 1 kept
        a = 1.0 / math.sqrt((_SELU_SATURATION**2 * p + 1) * (1 - p))
        b = (noise - dt(1)) * dt(_SELU_SATURATION * a) + dt(_SELU_SATURATION * a * p)
        noise = noise * dt(a)
    else:
        noise = noise / dt(1.0 - p)
    out = x.mul_(constant(noise, x)) if inplace else mul(x, constant(noise, x))
    if b is None:
        return out
    return out.add_(constant(b, x)) if inplace else add(out, constant(b, x))


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, L)`` or unbatched ``(C, L)`` input (composite).

    Example:
        >>> import minigrad as mg
        >>> mg.nn.functional.dropout1d(mg.ones(2, 3, 4), 0.5, training=False).shape
        minigrad.Size([2, 3, 4])
    """
    p = _check("dropout1d", input, p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _dropout(input, p, training, feature=True, alpha=False, inplace=inplace, batched=input.ndim == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, H, W)`` input (composite).

    As in PyTorch, a 3-D input is read as ``(N, C, L)`` (channel-wise 1-D dropout), with a warning.
    """
    p = _check("dropout2d", input, p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead.", stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.", stacklevel=2)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout(input, p, training, feature=True, alpha=False, inplace=inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` input (composite)."""
    p = _check("dropout3d", input, p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead.", stacklevel=2)
    batched = input.ndim == 5
    if input.ndim == 0:  # PyTorch adds a batch dimension to an unbatched input: (1,) is still too few
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout(input, p, training, feature=True, alpha=False, inplace=inplace, batched=batched)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """``F.alpha_dropout``: note PyTorch's default ``training=False`` (composite)."""
    p = _check("alpha_dropout", input, p)
    return _dropout(input, p, training, feature=False, alpha=True, inplace=inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """``F.feature_alpha_dropout``: alpha dropout of whole channels (default ``training=False``) (composite)."""
    p = _check("feature_alpha_dropout", input, p)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout(input, p, training, feature=True, alpha=True, inplace=inplace)
