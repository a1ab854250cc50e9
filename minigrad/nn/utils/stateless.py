"""Calling a module with other tensors in place of its parameters and buffers (``functional_call``).

``torch.func.functional_call(model, params, x)`` runs ``model(x)`` as if ``model``'s parameters were
the tensors of ``params`` (a dict from the names of ``named_parameters()``): the tensors are swapped
into the module for the call and the originals put back after it, even when the call raises. It is
how a module becomes a function of its parameters - what ``mg.func.grad`` and ``vmap`` differentiate
and map over (per-sample gradients, ensembles of models).

Example:
    >>> import minigrad as mg
    >>> lin = mg.nn.Linear(2, 1, bias=False)
    >>> mg.func.functional_call(lin, {"weight": mg.tensor([[1.0, 2.0]])}, mg.tensor([3.0, 4.0]))
    tensor([11.])
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

from ...tensor import Tensor
from ..module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _named_tensors(module: Module) -> list[tuple[str, Tensor]]:
    """Every ``(dotted name, tensor)`` of parameters then buffers, a tensor shared by two names under both
    (PyTorch's ``remove_duplicate=False``): the names tied weights go by."""
    found: list[tuple[str, Tensor]] = []
    for registry in ("_parameters", "_buffers"):
        stack: list[tuple[str, Module]] = [("", module)]
        while stack:
            prefix, mod = stack.pop(0)
            for name, t in mod.__dict__[registry].items():
                if t is not None:
                    found.append((prefix + name, t))
            stack[0:0] = [(prefix + n + ".", m) for n, m in mod._modules.items() if m is not None]
    return found


def _untie(module: Module, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with each value also under the other names of a tied tensor (a language model whose
    output layer shares the embedding's weight: the new embedding weight goes to both)."""
    names_of: dict[int, set[str]] = {}
    for name, t in _named_tensors(module):
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    out = dict(given)
    for name in given:
        if name not in tied:
            continue
        group = tied[name]
        if len(group & set(given)) > 1 and len({id(given[n]) for n in group if n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             f"which are tied. Consider using tie_weights=False")
        for other in group:
            out[other] = given[name]
    return out


def _swap(module: Module, dotted: str, tensor: Any) -> Any:
    """Put ``tensor`` at ``dotted`` (``"0.weight"``), returning what was there (``_MISSING`` if nothing).

    The registries keep what ``named_parameters()`` lists and the instance dict what ``forward`` reads
    as ``self.weight``: both get the new tensor, which need not be a Parameter."""
    *path, name = dotted.split(".")
    mod = module
    for part in path:
        mod = mod._modules[part]
    old: Any = _MISSING
    for registry in ("_parameters", "_buffers"):
        reg = mod.__dict__[registry]
        if name in reg:
            old = reg[name]
            if tensor is _MISSING:
                del reg[name]
            else:
                reg[name] = tensor
            break
    else:
        old = mod.__dict__.get(name, _MISSING)
    if tensor is _MISSING:
        mod.__dict__.pop(name, None)
    else:
        mod.__dict__[name] = tensor
    return old


@contextlib.contextmanager
def _reparametrize_module(module: Module, tensors: dict[str, Any], tie_weights: bool = False,
                          strict: bool = False) -> Iterator[None]:
    """Within the block, ``module`` holds ``tensors`` in place of its own (restored on the way out)."""
    given = _untie(module, tensors) if tie_weights else tensors
    if strict:
        valid = {n for n, _ in _named_tensors(module)}
        unexpected, missing = sorted(set(given) - valid), sorted(valid - set(given))
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(), "\n\t".join(msgs)))
    originals: dict[str, Any] = {}
    try:
        for name, t in given.items():
            if not isinstance(t, Tensor) and t is not None:
                raise TypeError(f"{t} is not an instance of torch.Tensor")
            originals[name] = _swap(module, name, t)
        yield
    finally:
        now = {name: _swap(module, name, old) for name, old in reversed(originals.items())}
        # A buffer the call replaced (``self.count = self.count + 1``) goes back to the caller's dict.
        tensors.update({k: now[k] for k in tensors if k in now and now[k] is not _MISSING})


def _functional_call(module: Module, parameters_and_buffers: dict[str, Any], args: Any = None,
                     kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **(kwargs or {}))


def functional_call(module: Module, parameters_and_buffers: dict[str, Any], args: Any = None,
                    kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True, strict: bool = False) -> Any:
    """Deprecated: ``mg.func.functional_call`` (which also takes a tuple of dicts)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
