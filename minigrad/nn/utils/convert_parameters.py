"""Parameters to one flat vector and back (``parameters_to_vector``, ``vector_to_parameters``)."""

from __future__ import annotations

from typing import Any, Iterable

from ... import ops
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated, in order (differentiable: a composite of
    ``reshape`` and ``cat``).

    Example:
        >>> import minigrad as mg
        >>> mg.nn.utils.parameters_to_vector([mg.ones(2, 2), mg.zeros(1)]).tolist()
        [1.0, 1.0, 1.0, 1.0, 0.0]
    """
    items = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    device = None
    for p in items:
        if not isinstance(p, Tensor):
            raise TypeError(f"expected minigrad.Tensor, but got: {type(p).__name__}")
        if device is not None and p.device != device:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
        device = p.device
    return ops.cat([ops.reshape(p, (-1,)) for p in items], 0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters (their data, not their history)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected minigrad.Tensor, but got: {type(vec).__name__}")
    items = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    flat = vec.detach().numpy().reshape(-1)
    total = sum(p.numel() for p in items)
    if total > flat.shape[0]:
        raise RuntimeError(f"vector_to_parameters(): vec has {flat.shape[0]} elements, the parameters need {total}")
    start = 0
    for p in items:
        n = p.numel()
        chunk = flat[start:start + n].reshape(p.shape).astype(p.dtype.np, copy=True)
        p._data = chunk if p.device == "cpu" else vec.detach()[start:start + n].reshape(p.shape)._data
        start += n
