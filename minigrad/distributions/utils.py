"""Helpers the distributions share, as ``torch.distributions.utils``: parameters broadcast together, probabilities
to logits and back, and ``lazy_property`` (a parameter computed from the other one on first use)."""

from __future__ import annotations

import functools
from numbers import Number
from typing import Any, Callable

from ..autograd import enable_grad
from ..creation import arange, empty, tensor
from ..dtypes import finfo, get_default_dtype
from ..ops import broadcast_tensors, clamp, log, log1p, sigmoid
from ..nn.functional import softmax
from ..size import Size
from ..tensor import Tensor

__all__ = ["BinaryParams", "OfACategorical", "broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_or_logits",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values as tensors broadcast to one shape; a number becomes a tensor of the first tensor's dtype and
    device (of the default dtype when all are numbers)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    options = {"dtype": get_default_dtype()} if first is None else {"dtype": first.dtype, "device": first.device}
    return tuple(broadcast_tensors(*(v if isinstance(v, Tensor) else tensor(v, **options) for v in values)))


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: ``sigmoid`` for a binary variable, ``softmax`` over the last dim otherwise."""
    return sigmoid(logits) if is_binary else softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` kept within ``[eps, 1 - eps]`` of its dtype, so that their logarithms stay finite."""
    eps = finfo(probs.dtype).eps
    return clamp(probs, min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped first): ``log p - log(1 - p)`` for a binary variable, ``log p``
    otherwise (unnormalised logits, as a categorical keeps them)."""
    p = clamp_probs(probs)
    return log(p) - log1p(-p) if is_binary else log(p)


def not_defined(obj: Any, what: str) -> NotImplementedError:
    """The error of a method the base class leaves to its subclasses (``Distribution.mean``, ``Transform._call``),
    naming the class that lacks it, in the words of PyTorch's ``mode`` (``<class ...> does not implement mode``)."""
    return NotImplementedError(f"{type(obj)} does not implement {what}")


def _standard_normal(shape: Any, dtype: Any, device: Any) -> Tensor:
    """Standard normal draws of ``shape`` (PyTorch's ``empty(shape).normal_()``: the same numbers)."""
    return empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dims."""
    return value if dim == 0 else value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def _tril_mask(n: int, diag: int, device: Any) -> Tensor:
    """The ``n x n`` bool mask of the entries on or below diagonal ``diag``."""
    index = arange(n, device=device)
    return index < index.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of ``mat`` on or below diagonal ``diag``, row by row, as a vector (per batch entry)."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """``tril_matrix_to_vec`` undone: a square matrix, zero above diagonal ``diag``, filled row by row from
    ``vec`` (its size fixes the matrix's: the positive root of ``D^2 + (1 + 2 diag) D - |diag| (diag + 1) = 2 len``)."""
    b = 1 + 2 * diag
    n = (-b + (b ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


class OfACategorical:
    """A distribution drawn through a ``Categorical`` it holds (``self._categorical``: the one-hot and the
    relaxed categoricals): its parameters, their shape and its new tensors are that one's."""

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits


class lazy_property:
    """A parameter computed from another on first use and then kept on the instance (``Categorical(logits=...)
    .probs``); computed with gradients on, so it stays part of the parameters' graph. Read on the class it
    is a property (``arg_constraints`` can name it)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)  # the instance's attribute shadows this descriptor
        return value


def probs_or_logits(dist: Any, probs: Any, logits: Any) -> tuple[Tensor, Size]:
    """A coin-like distribution's one parameter, given as ``probs`` or as ``logits`` (not both), set on ``dist``
    under its name: the tensor and the batch shape it gives (none for a number)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    given = probs if probs is not None else logits
    (param,) = broadcast_all(given)
    setattr(dist, "probs" if probs is not None else "logits", param)
    return param, Size() if isinstance(given, Number) else param.size()


class BinaryParams:
    """``probs`` and ``logits`` of a coin, each computed from the other on first use (``lazy_property``)."""

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)
