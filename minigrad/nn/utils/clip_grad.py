"""Gradient clipping: ``clip_grad_norm_`` (scale every gradient so their joint norm is at most
``max_norm``) and ``clip_grad_value_`` (clamp each element).

Both change the ``.grad`` tensors in place, under ``no_grad`` (so a recorder
sees the updates as events), as PyTorch's do.

NOTE [ Clipping in a few launches ]
    PyTorch's ``clip_grad_norm_`` takes its ``foreach`` form when every gradient is on a GPU
    (``foreach=None``): ``torch._foreach_norm`` of the gradients, the norm of those norms, the
    coefficient, then one ``torch._foreach_mul_`` by it. Done one gradient at a time it is four ops a
    gradient for the norm and one for the scaling: a GPT with 28 parameter tensors spent about 200
    launches of its 700 a step clipping. Here the foreach form is the GPU's multi-tensor kernels
    (``kernels/gpu/optim.py``): the norms in one launch per 32 gradients and two more, the scaling in
    one launch per 32 gradients, the coefficient read by the kernel from the device (no ``.item()``, no
    sync). As for the optimizers, a recorder runs the for-loop form on ops, so that a trace shows each
    step. On the CPU the foreach form runs when asked for (``foreach=True``), with NumPy's kernels.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable

from ... import ops
from ...autograd.grad_mode import no_grad
from ...creation import tensor as _tensor
from ...dtypes import bfloat16, float16, float32
from ...dispatch.dygraph import run_inplace
from ...optim.update import bump, kernel_of
from ...tensor import Tensor
from ...tracing import bus

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm"]


def _tensors(owner: str, parameters: Any) -> list[Tensor]:
    items = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    for i, p in enumerate(items):
        if not isinstance(p, Tensor):
            raise TypeError(f"{owner}(): element {i} of 'parameters' must be a Tensor, but got {type(p).__name__}")
    return items


def _vector_norm(x: Tensor, norm_type: float) -> Tensor:
    """The ``norm_type``-norm of all elements of ``x`` (inf: the largest absolute value); of a float16 or
    bfloat16 ``x`` computed in float32 and rounded once, as PyTorch's ``vector_norm`` (the squares of a
    float16 gradient's elements overflow float16)."""
    if x.dtype in (float16, bfloat16):
        return ops.cast(_vector_norm(ops.cast(x, float32), norm_type), x.dtype)
    a = ops.abs(x)
    if norm_type == math.inf:
        return ops.amax(a) if a.numel() else ops.sum(a)
    if norm_type == -math.inf:
        return ops.amin(a)
    if norm_type == 2:
        return ops.sqrt(ops.sum(ops.mul(x, x)))
    if norm_type == 1:
        return ops.sum(a)
    if norm_type == 0:
        return ops.sum(ops.cast(ops.ne(x, 0), x.dtype))
    return ops.pow(ops.sum(ops.pow(a, norm_type)), 1.0 / norm_type)


def _as(t: Tensor, dtype: Any) -> Tensor:
    """``t`` in ``dtype``: itself when it has it (no copy, as ``Tensor.to``)."""
    return t if t.dtype is dtype else ops.cast(t, dtype)


def _foreach(tensors: list[Tensor], foreach: bool | None) -> bool:
    """Whether the foreach form runs (NOTE [ Clipping in a few launches ]): asked for, or ``foreach=None`` and
    every tensor on a GPU (PyTorch's default), when no recorder is active and each tensor may join a
    multi-tensor kernel."""
    if foreach is False or bus.steps_traced() or (foreach is None and not all(t.is_cuda for t in tensors)):
        return False
    return all(t._data.flags.c_contiguous and kernel_of("_foreach_norm", t) is not None for t in tensors)


def _by_dtype(tensors: list[Tensor]) -> list[list[Tensor]]:
    groups: dict[Any, list[Tensor]] = {}
    for t in tensors:
        groups.setdefault(t.dtype, []).append(t)
    return list(groups.values())


def _foreach_norms(tensors: list[Tensor]) -> list[Tensor]:
    """The 2-norm of each tensor by the backend's ``_foreach_norm``: one 1-d tensor of norms per dtype."""
    return [Tensor._make(kernel_of("_foreach_norm", group[0])([t._data for t in group]), group[0]._dtype,
                         group[0]._device, group[0]._layout) for group in _by_dtype(tensors)]


def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of ``tensors`` (the norm of all their elements together)."""
    items = _tensors("get_total_norm", tensors)
    norm_type = float(norm_type)
    if not items:
        return _tensor(0.0)
    with no_grad():
        if _foreach(items, foreach) and norm_type == 2.0:
            norms = _foreach_norms(items)  # one 1-d tensor of norms per dtype
            dtype = norms[0].dtype
            total = _vector_norm(norms[0] if len(norms) == 1 else ops.concat([_as(n, dtype) for n in norms]), 2.0)
        else:
            norms = [_vector_norm(t, norm_type) for t in items]
            dtype = norms[0].dtype
            total = _vector_norm(ops.stack([_as(n, dtype) for n in norms]), norm_type)
    # Read on the host only when asked to check it (as PyTorch): on a GPU the read waits for the device.
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            f"clipped. To disable this error and scale the gradients by the non-finite norm anyway, "
            f"set `error_if_nonfinite=False`"
        )
    return total


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their total norm is at most ``max_norm``.

    The total norm is that of all gradients seen as one vector; each gradient
    is multiplied by ``min(1, max_norm / (total + 1e-6))``, as in PyTorch.

    Args:
        parameters: a Tensor or an iterable of them (those without ``.grad`` are skipped).
        max_norm: the largest allowed total norm.
        norm_type: the p of the p-norm (``float('inf')`` for the largest absolute value).
        error_if_nonfinite: raise a ``RuntimeError`` when the total norm is NaN or infinite.

    Returns:
        The total norm before clipping (a 0-d tensor).

    Example:
        >>> import minigrad as mg
        >>> w = mg.nn.Parameter(mg.ones(4))
        >>> w.grad = mg.full((4,), 2.0)
        >>> mg.nn.utils.clip_grad_norm_(w, 1.0).item(), [round(g, 4) for g in w.grad.tolist()]
        (4.0, [0.5, 0.5, 0.5, 0.5])
    """
    params = _tensors("clip_grad_norm_", parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients in place by ``min(1, max_norm / (total_norm + 1e-6))`` (the second half of
    ``clip_grad_norm_``, for a ``total_norm`` computed elsewhere, e.g. by ``get_total_norm``)."""
    grads = [p.grad for p in _tensors("clip_grads_with_norm_", parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = ops.clamp(ops.div(float(max_norm), ops.add(total_norm, 1e-6)), None, 1.0)
        if _foreach(grads, foreach):
            for group in _by_dtype(grads):
                arrays = [g._data for g in group]
                kernel_of("_foreach_binary", group[0])("mul", arrays, _as(coef, group[0].dtype)._data, out=arrays)
                for g in group:
                    bump(g)
            return
        for g in grads:
            g.mul_(_as(coef, g.dtype))


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The old name of ``clip_grad_norm_`` (deprecated in PyTorch, with a FutureWarning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Any, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element of ``parameters`` to ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors("clip_grad_value_", parameters):
            g = p.grad
            if g is not None:
                run_inplace(g, "clamp_", lambda g=g: ops.clamp(g, -clip_value, clip_value))
