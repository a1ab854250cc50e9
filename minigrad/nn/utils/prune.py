"""``mg.nn.utils.prune``: PyTorch's pruning - a 0/1 mask kept beside a parameter and applied before every forward.

NOTE [ Pruning reparametrizes a parameter ]
    Pruning ``module.weight`` moves the Parameter to ``module.weight_orig`` (what an optimizer goes on
    training), registers the mask as the buffer ``module.weight_mask``, and makes ``module.weight`` a plain
    tensor, ``weight_mask * weight_orig``. The pruning method is itself a forward pre-hook of the module: before
    each call it computes ``weight`` again, so every forward's graph reaches the Parameter through a
    ``MulBackward0`` and the pruned entries get a zero gradient. Pruning the same tensor again extends its mask:
    the methods are kept in order in a ``PruningContainer``, and each new one chooses among what the mask still
    keeps - entries (``unstructured``), channels along its ``dim`` (``structured``) or everything (``global``).
    ``remove`` makes the pruning permanent: the Parameter takes the masked values under its own name again, and
    the hook, ``_orig`` and ``_mask`` go. A method's choice is PyTorch's, draw for draw: ``random_unstructured``
    prunes the ``amount`` entries whose ``rand_like`` draws are the largest, ``l1_unstructured`` the smallest
    magnitudes (``topk``), ``ln_structured`` keeps the channels of largest norm.

Example:
    >>> import minigrad as mg
    >>> from minigrad.nn.utils import prune
    >>> lin = mg.nn.Linear(3, 2)
    >>> with mg.no_grad():
    ...     _ = lin.weight.copy_(mg.tensor([[0.1, -2.0, 0.3], [4.0, -0.5, 0.6]]))
    >>> _ = prune.l1_unstructured(lin, "weight", amount=2)
    >>> lin.weight_mask.tolist()  # the two smallest magnitudes, 0.1 and 0.3, pruned
    [[0.0, 1.0, 0.0], [1.0, 1.0, 1.0]]
    >>> sorted(name for name, _ in lin.named_parameters())
    ['bias', 'weight_orig']
    >>> _ = prune.remove(lin, "weight")
    >>> lin.weight.tolist()[0], type(lin.weight).__name__, prune.is_pruned(lin)
    ([0.0, -2.0, 0.0], 'Parameter', False)
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import creation
from ...ops import kthvalue, norm, topk
from ...tensor import Tensor
from ..module import Module
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A pruning rule: ``compute_mask`` says which entries stay; ``apply`` reparametrizes a module's tensor with
    it (NOTE [ Pruning reparametrizes a parameter ]); called as a forward pre-hook, it recomputes the tensor."""

    PRUNING_TYPE: str
    _tensor_name: str | None = None

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for ``t`` (importance scores), keeping at most what ``default_mask`` keeps."""

    def apply_mask(self, module: Module) -> Tensor:
        """``module``'s pruned tensor: its mask (in the original's dtype) times the original."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> "BasePruningMethod":
        """Prune ``module``'s tensor ``name`` by ``cls(*args, **kwargs)`` (after any earlier pruning of it)."""
        method = _joined_with_earlier(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                 f"got {importance_scores.shape} vs {orig.shape}")
        scores = orig if importance_scores is None else importance_scores
        first = not isinstance(method, PruningContainer)
        if first:  # the Parameter moves to name_orig; name becomes the masked tensor below
            module.register_parameter(name + "_orig", orig)
            delattr(module, name)
            default_mask = creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format="contiguous_format")
        try:
            mask = method.compute_mask(scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # the module as it was
                orig = getattr(module, name + "_orig")
                delattr(module, name + "_orig")
                module.register_parameter(name, orig)
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None) -> Tensor:
        """``t`` with this method's mask applied (no module involved)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        scores = t if importance_scores is None else importance_scores
        return t * self.compute_mask(scores, default_mask=creation.ones_like(t) if default_mask is None else default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: the Parameter takes the masked values under the tensor's own name."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = pruned.data
        delattr(module, name + "_orig")  # (a parameter and a buffer: each leaves its registry)
        delattr(module, name + "_mask")
        setattr(module, name, orig)


def _joined_with_earlier(cls: type, module: Module, name: str, *args: Any, **kwargs: Any) -> BasePruningMethod:
    """``cls(*args, **kwargs)`` for tensor ``name``, added to the method that pruned it before (in a
    ``PruningContainer``), whose hook is unregistered: ``apply`` registers the result."""
    hooks = module._forward_pre_hooks
    earlier = [(k, h) for k, h in hooks.items() if isinstance(h, BasePruningMethod) and h._tensor_name == name]
    if len(earlier) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             f"Use a PruningContainer.")
    for k, _ in earlier:
        del hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not earlier:
        return method
    old = earlier[0][1]
    if isinstance(old, PruningContainer):
        old.add_pruning_method(method)
        return old
    container = PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The methods that pruned one tensor, in order; its mask is the last one's, chosen among what the earlier
    ones kept."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1 and not isinstance(args[0], Iterable):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in (args[0] if len(args) == 1 else args):
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed on the part of ``t`` that ``default_mask`` still keeps (its
        ``PRUNING_TYPE`` says which part) and written back into a copy of ``default_mask``."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            part: Any = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                     'defined.')
            dim = method.dim + t.dim() if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {t.dim()}")
            kept_channels = default_mask.sum(dim=[d for d in range(t.dim()) if d != dim]) != 0
            part = tuple(kept_channels if d == dim else slice(None) for d in range(t.dim()))
        elif kind == "global":
            part = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        mask[part] = method.compute_mask(t[part], default_mask=default_mask[part]).to(dtype=mask.dtype)
        return mask


def _check_amount(amount: Any) -> None:
    """An ``amount`` is a count (a non-negative int) or a fraction in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _how_many(amount: Any, size: int) -> int:
    """The entries (or channels) of ``size`` that ``amount`` prunes: the count, or the fraction rounded
    (Python's ``round``: half to even, as PyTorch's)."""
    n = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(n, numbers.Integral) and n > size:
        raise ValueError(f"amount={n} should be smaller than the number of parameters to prune={size}")
    return n


def _check_structured(t: Tensor, dim: int) -> None:
    if len(t.shape) <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. Found tensor of "
                         f"shape {t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channels(t: Tensor, dim: int, which: Any) -> Tensor:
    """A mask of ``t``'s shape: ones on the channels ``which`` along ``dim`` (an index or a bool mask)."""
    mask = creation.zeros_like(t)
    mask[tuple(which if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


class Identity(BasePruningMethod):
    """Prunes nothing: the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries whose scores (``_scores``) come first in ``topk``'s order."""

    PRUNING_TYPE = "unstructured"
    _largest = True

    def __init__(self, amount: Any) -> None:
        _check_amount(amount)
        self.amount = amount

    @abstractmethod
    def _scores(self, t: Tensor) -> Tensor:
        """What ``topk`` ranks the entries by."""

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        n = _how_many(self.amount, t.nelement())
        mask = default_mask.clone(memory_format="contiguous_format")
        if n != 0:
            mask.view(-1)[topk(self._scores(t).view(-1), k=n, largest=self._largest).indices] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen at random: those whose ``rand_like`` draws are the largest."""

    def _scores(self, t: Tensor) -> Tensor:
        return creation.rand_like(t)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest magnitude (``topk`` of ``abs``, smallest first)."""

    _largest = False

    def _scores(self, t: Tensor) -> Tensor:
        return t.abs()

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random (the smallest of ``rand`` draws)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        n = _how_many(self.amount, channels)
        if n == 0:
            return default_mask
        draws = creation.rand(channels)
        mask = _channels(t, self.dim, draws > kthvalue(draws, k=n).values)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, dim: int = -1) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm (``norm``'s ``p``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        n = _how_many(self.amount, channels)
        others = [d for d in range(t.dim()) if d != self.dim % t.dim()]
        kept = topk(norm(t, p=self.n, dim=others), k=channels - n, largest=True)
        if n == 0:
            return default_mask
        mask = _channels(t, self.dim, kept.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, n: Any, dim: int,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


# -- the functions a program calls --------------------------------------------------------------------------


def identity(module: Module, name: str) -> Module:
    """Reparametrize ``module.name`` with a mask of ones (prunes nothing); returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    """Prune ``amount`` (a count, or a fraction) of ``module.name``'s entries at random; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: Any, importance_scores: Tensor | None = None) -> Module:
    """Prune the ``amount`` entries of ``module.name`` of smallest magnitude (of ``importance_scores``, where
    given); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    """Prune ``amount`` channels of ``module.name`` along ``dim`` at random; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: Any, n: Any, dim: int,
                  importance_scores: Tensor | None = None) -> Module:
    """Prune the ``amount`` channels of ``module.name`` along ``dim`` of smallest ``n``-norm; returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Any, pruning_method: type, importance_scores: dict | None = None,
                        **kwargs: Any) -> None:
    """Prune the ``(module, name)`` tensors of ``parameters`` together: ``pruning_method(**kwargs)`` (an
    unstructured one) chooses among all their entries at once, flattened into one vector; each tensor then
    gets its part of the mask (``custom_from_mask``)."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    scores = {} if importance_scores is None else importance_scores
    if not isinstance(scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    all_scores = parameters_to_vector([scores.get((m, name), getattr(m, name)) for m, name in parameters])
    masks = parameters_to_vector([getattr(m, name + "_mask") if hasattr(m, name + "_mask")
                                  else creation.ones_like(getattr(m, name)) for m, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final = container.compute_mask(all_scores, masks)
    start = 0
    for m, name in parameters:
        t = getattr(m, name)
        custom_from_mask(m, name, mask=final[start:start + t.numel()].view_as(t))
        start += t.numel()


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.name`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.name`` permanent (NOTE [ Pruning reparametrizes a parameter ]); returns
    ``module``."""
    hooks = module._forward_pre_hooks
    for k, hook in hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or a submodule has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())

