"""Function transforms (``mg.func``, PyTorch's ``torch.func``): ``grad`` and ``grad_and_value``.

``grad(f)`` is a new function that returns the gradient of ``f`` (a function
returning one scalar) with respect to some of its arguments. It is built on
``mg.grad(create_graph=True)``, so transforms nest: ``grad(grad(f))`` is the
second derivative. (PyTorch implements ``torch.func`` with functorch's
levels; minigrad differentiates the ordinary graph, which gives the same
numbers for these two transforms. ``vmap`` is not provided.)

Example:
    >>> import minigrad as mg
    >>> from minigrad.func import grad
    >>> x = mg.tensor(2.0, dtype=mg.float64)
    >>> grad(lambda t: t ** 3)(x).item(), grad(grad(lambda t: t ** 3))(x).item()
    (12.0, 12.0)
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from . import ops
from .autograd import grad as _autograd_grad
from .autograd.grad_mode import enable_grad
from .tensor import Tensor

__all__ = ["grad", "grad_and_value"]


def _argnums(argnums: Any, n_args: int) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -n_args <= a < n_args:
            raise RuntimeError(f"Got argnum={a}, but only {n_args} positional inputs")
    return tuple(a % n_args for a in nums)


def _diff_input(t: Any, position: int) -> Tensor:
    """The argument as a tensor to differentiate: a differentiable identity of ``t`` when ``t`` already
    requires grad (so an outer transform sees through), else a fresh leaf."""
    if not isinstance(t, Tensor):
        raise RuntimeError(f"Expected argument {position} to be a Tensor, but got {type(t).__name__}")
    if not t.dtype.is_floating:
        raise RuntimeError("Only Tensors of floating point dtype can require gradients")
    return ops.reshape(t, tuple(t.shape)) if t.requires_grad else t.detach().requires_grad_(True)


def _detach_all(value: Any) -> Any:
    """``aux`` as the caller gets it: tensors detached, containers rebuilt."""
    if isinstance(value, Tensor):
        return value.detach()
    if isinstance(value, dict):
        return {k: _detach_all(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_detach_all(v) for v in value)
    return value


def grad_and_value(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """Like ``grad``, returning ``(gradient, value)`` (``((gradient, value), aux)`` becomes
    ``(gradient, (value, aux))`` with ``has_aux``)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args))
        args = list(args)
        outer = [args[i].requires_grad if isinstance(args[i], Tensor) else False for i in nums]
        diff = [_diff_input(args[i], i) for i in nums]
        for i, d in zip(nums, diff):
            args[i] = d
        with enable_grad():
            result = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                result, aux = result
            if not isinstance(result, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(result)}")
            if result.ndim != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {result.ndim} dims. Maybe you wanted to use the vjp or jacrev "
                                   f"APIs instead?")
            if result.requires_grad:
                grads = _autograd_grad(result, diff, create_graph=True, allow_unused=True)
            else:
                grads = [None] * len(diff)
        # Zeros for an unused argument; the graph is kept only where an outer transform will look.
        out = []
        for g, d, keep in zip(grads, diff, outer):
            g = ops.fill(d.detach(), 0.0) if g is None else g
            out.append(g if keep else g.detach())
        value = result if any(outer) else result.detach()
        if has_aux and not any(outer):
            aux = _detach_all(aux)
        g_out = tuple(out) if isinstance(argnums, tuple) else out[0]
        return (g_out, (value, aux)) if has_aux else (g_out, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of ``func`` (which returns a 0-d tensor) with respect to argument ``argnums``
    (a tuple of positions gives a tuple of gradients); with ``has_aux``, ``func`` returns
    ``(output, aux)`` and the new function ``(gradient, aux)``."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
