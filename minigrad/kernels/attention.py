"""Attention's arithmetic on arrays, shared by the CPU's kernels (NumPy) and the GPU's (CuPy).

``scores`` is ``query @ key^T * scale`` with the mask applied: a causal mask lets row ``i`` see keys
``0..i`` (top-left aligned, as PyTorch's ``is_causal``), a bool mask keeps its True positions, a float
mask is added. ``weights`` is their softmax along the keys, a row with no key to attend (every score
``-inf``) all zeros: PyTorch's ``_safe_softmax``, where a plain softmax gives NaN. ``attention`` is
``weights @ value``.

Example:
    >>> import numpy as np
    >>> q = np.eye(2, dtype=np.float32)[None]
    >>> attention(np, _np_softmax, q, q, q, None, True, 1.0)[0, 0].tolist()
    [1.0, 0.0]
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["scores", "safe_rows", "weights", "attention"]

#: (module name, L, S) -> the causal mask's array (one per geometry and device: a GPU one is made once)
_CAUSAL: dict[tuple[str, int, int], Any] = {}


def _causal(xp: Any, length: int, source: int) -> Any:
    key = (xp.__name__, length, source)
    mask = _CAUSAL.get(key)
    if mask is None:
        if len(_CAUSAL) >= 64:
            _CAUSAL.clear()
        mask = _CAUSAL[key] = xp.tri(length, source, dtype=bool)
    return mask


def scores(xp: Any, q: Any, k: Any, mask: Any, is_causal: bool, scale: float) -> Any:
    """``q @ k^T * scale``, masked: ``-inf`` where a position may not be attended."""
    s = xp.matmul(q, xp.swapaxes(k, -1, -2)) * scale
    if is_causal:
        return xp.where(_causal(xp, s.shape[-2], s.shape[-1]), s, -np.inf).astype(s.dtype, copy=False)
    if mask is not None and mask.dtype == np.bool_:
        return xp.where(mask, s, -np.inf).astype(s.dtype, copy=False)
    if mask is not None:
        return (s + mask).astype(s.dtype, copy=False)
    return s


def safe_rows(xp: Any, x: Any, y: Any, dim: int) -> Any:
    """``y`` (a softmax of ``x``) with the rows of ``x`` that are all ``-inf`` set to zeros."""
    if x.size == 0:
        return y
    hidden = xp.max(x, axis=dim, keepdims=True) == -np.inf
    return xp.where(hidden, 0, y).astype(y.dtype, copy=False)


def weights(xp: Any, softmax: Callable[[Any, int], Any], q: Any, k: Any, mask: Any, is_causal: bool,
            scale: float) -> Any:
    """The attention weights: the softmax of the scores along the keys. Only a bool mask can leave a row with
    nothing to attend (a causal row always sees its first key), so only then are the rows made safe."""
    s = scores(xp, q, k, mask, is_causal, scale)
    p = softmax(s, -1)
    return safe_rows(xp, s, p, -1) if mask is not None and mask.dtype == np.bool_ else p


def attention(xp: Any, softmax: Callable[[Any, int], Any], q: Any, k: Any, v: Any, mask: Any, is_causal: bool,
              scale: float, dropped: Any = None) -> Any:
    """``weights @ value``, the weights times ``dropped`` (dropout's scaled mask: 0 or ``1 / (1 - p)``) when given."""
    w = weights(xp, softmax, q, k, mask, is_causal, scale)
    if dropped is not None:
        w = w * dropped
    return xp.matmul(w, v).astype(q.dtype, copy=False)


def _np_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)
